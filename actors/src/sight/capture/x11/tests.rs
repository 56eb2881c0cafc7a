//! X11 capture against a real Xvfb that each test starts on a display of its own.

use super::test_display::{TestWindows, Xvfb};
use super::*;
use crate::sight::capture::Source;

const RED: u32 = 0xff0000;
const GREEN: u32 = 0x00ff00;
const BLUE: u32 = 0x0000ff;
const YELLOW: u32 = 0xffff00;

/// The BGRA bytes of an `0xRRGGBB` colour, opaque.
fn bgra(rgb: u32) -> [u8; 4] {
    [rgb as u8, (rgb >> 8) as u8, (rgb >> 16) as u8, 0xff]
}

fn pixel(frame: &Frame, x: u32, y: u32) -> [u8; 4] {
    let at = ((y * frame.width + x) * 4) as usize;
    frame.pixels[at..at + 4].try_into().unwrap()
}

fn frame(content: Content) -> Frame {
    match content {
        Content::Frame(frame) => frame,
        other => panic!("expected a frame, got {other:?}"),
    }
}

fn is_solid(frame: &Frame, rgb: u32) -> bool {
    frame.pixels.chunks_exact(4).all(|p| p == bgra(rgb))
}

fn capture_of(xvfb: &Xvfb, target: &str, options: CaptureOptions) -> X11Capture {
    let watched = Watched::of(&Target::parse(target).unwrap()).unwrap();
    X11Capture::connect(Some(xvfb.display()), watched, options).unwrap()
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
fn the_screen_shows_the_windows_on_it() {
    let xvfb = Xvfb::start();
    let app = TestWindows::connect(xvfb.display());
    app.create("red", 100, 50, 200, 100, RED);
    let mut capture = capture_of(&xvfb, "screen", CaptureOptions::default());
    assert_eq!(capture.method(), CaptureMethod::SharedMemory);
    let screen = frame(capture.capture().unwrap());
    assert_eq!(
        capture.method(),
        CaptureMethod::SharedMemory,
        "no fallback happened"
    );
    assert_eq!((screen.width, screen.height), (1280, 720));
    assert_eq!(pixel(&screen, 150, 100), bgra(RED));
    assert_eq!(pixel(&screen, 10, 10), bgra(0x000000));
    assert_eq!(pixel(&screen, 299, 149), bgra(RED));
    assert_eq!(pixel(&screen, 300, 150), bgra(0x000000));
    assert_eq!(
        capture.describe(),
        format!("the screen of X display {}", xvfb.display())
    );
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
fn a_window_by_title_yields_its_pixels_and_follows_its_title() {
    let xvfb = Xvfb::start();
    let app = TestWindows::connect(xvfb.display());
    app.create("Terminal", 0, 0, 300, 200, BLUE);
    let window = app.create("Downloads - Mozilla Firefox", 40, 30, 320, 240, GREEN);
    app.fill(window, 10, 20, 30, 40, YELLOW);
    let mut capture = capture_of(&xvfb, "window:firefox", CaptureOptions::default());
    let seen = frame(capture.capture().unwrap());
    assert_eq!((seen.width, seen.height), (320, 240));
    assert_eq!(pixel(&seen, 0, 0), bgra(GREEN));
    assert_eq!(pixel(&seen, 10, 20), bgra(YELLOW));
    assert_eq!(pixel(&seen, 39, 59), bgra(YELLOW));
    assert_eq!(pixel(&seen, 40, 60), bgra(GREEN));
    assert_eq!(capture.window_id(), Some(window));
    assert_eq!(
        capture.describe(),
        format!("window 0x{window:x} (Downloads - Mozilla Firefox)")
    );
    app.set_title(window, "Library - Mozilla Firefox");
    capture.capture().unwrap();
    assert!(
        capture.describe().contains("Library"),
        "{}",
        capture.describe()
    );
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
fn a_window_managers_client_list_is_searched_before_the_tree() {
    let xvfb = Xvfb::start();
    let app = TestWindows::connect(xvfb.display());
    let unmanaged = app.create("build log", 0, 0, 100, 100, RED);
    let managed = app.create("build log", 200, 0, 100, 100, GREEN);
    let mut without_manager = capture_of(&xvfb, "window:BUILD", CaptureOptions::default());
    without_manager.capture().unwrap();
    assert_eq!(
        without_manager.window_id(),
        Some(unmanaged),
        "first in the tree"
    );
    app.set_client_list(&[managed]);
    let mut with_manager = capture_of(&xvfb, "window:BUILD", CaptureOptions::default());
    assert!(is_solid(&frame(with_manager.capture().unwrap()), GREEN));
    assert_eq!(with_manager.window_id(), Some(managed));
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
fn a_window_by_id_yields_its_pixels_at_its_current_size() {
    let xvfb = Xvfb::start();
    let app = TestWindows::connect(xvfb.display());
    let window = app.create("", 10, 10, 64, 48, RED);
    let mut capture = capture_of(
        &xvfb,
        &format!("window:0x{window:x}"),
        CaptureOptions::default(),
    );
    assert!(is_solid(&frame(capture.capture().unwrap()), RED));
    assert_eq!(capture.describe(), format!("window 0x{window:x}"));
    app.resize(window, 100, 30);
    app.repaint(window, BLUE);
    let resized = frame(capture.capture().unwrap());
    assert_eq!((resized.width, resized.height), (100, 30));
    assert!(is_solid(&resized, BLUE));
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
fn an_obscured_window_yields_its_own_pixels() {
    let xvfb = Xvfb::start();
    let app = TestWindows::connect(xvfb.display());
    let watched = app.create("watched", 50, 50, 200, 150, GREEN);
    let cover = app.create("cover", 0, 0, 400, 300, RED);
    let mut capture = capture_of(&xvfb, "window:watched", CaptureOptions::default());
    assert!(capture.uses_composite());
    assert!(is_solid(&frame(capture.capture().unwrap()), GREEN));
    // Drawing into the covered window lands in its own pixmap.
    app.fill(watched, 20, 20, 40, 40, YELLOW);
    let drawn = frame(capture.capture().unwrap());
    assert_eq!(pixel(&drawn, 30, 30), bgra(YELLOW));
    assert_eq!(pixel(&drawn, 100, 100), bgra(GREEN));
    // The screen still shows the cover on top.
    let mut screen = capture_of(&xvfb, "screen", CaptureOptions::default());
    assert_eq!(
        pixel(&frame(screen.capture().unwrap()), 100, 100),
        bgra(RED)
    );
    app.destroy(cover);
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
fn a_window_that_closes_is_absent_and_a_new_one_with_its_title_is_followed() {
    let xvfb = Xvfb::start();
    let app = TestWindows::connect(xvfb.display());
    let first = app.create("Installer", 0, 0, 80, 60, RED);
    let mut by_title = capture_of(&xvfb, "window:installer", CaptureOptions::default());
    let mut by_id = capture_of(
        &xvfb,
        &format!("window:0x{first:x}"),
        CaptureOptions::default(),
    );
    assert!(is_solid(&frame(by_title.capture().unwrap()), RED));
    assert!(is_solid(&frame(by_id.capture().unwrap()), RED));
    app.destroy(first);
    let closed = Content::Absent {
        description: WINDOW_CLOSED.into(),
    };
    assert_eq!(by_title.capture().unwrap(), closed);
    assert_eq!(by_id.capture().unwrap(), closed);
    let second = app.create("Installer", 0, 0, 90, 70, GREEN);
    assert!(is_solid(&frame(by_title.capture().unwrap()), GREEN));
    assert_eq!(by_title.window_id(), Some(second));
    assert_eq!(
        by_id.capture().unwrap(),
        closed,
        "an id is never re-resolved"
    );
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
fn a_missing_or_hidden_window_is_absent_saying_which() {
    let xvfb = Xvfb::start();
    let app = TestWindows::connect(xvfb.display());
    let mut by_title = capture_of(&xvfb, "window:Report", CaptureOptions::default());
    assert_eq!(
        by_title.capture().unwrap(),
        Content::Absent {
            description: "no window's title contains 'Report'".into()
        }
    );
    let window = app.create("Quarterly Report", 0, 0, 50, 50, BLUE);
    assert!(is_solid(&frame(by_title.capture().unwrap()), BLUE));
    app.unmap(window);
    assert_eq!(
        by_title.capture().unwrap(),
        Content::Absent {
            description: WINDOW_HIDDEN.into()
        }
    );
    app.map(window);
    assert!(is_solid(&frame(by_title.capture().unwrap()), BLUE));
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
fn get_image_reads_the_same_pixels_as_shared_memory() {
    let xvfb = Xvfb::start();
    let app = TestWindows::connect(xvfb.display());
    let window = app.create("same", 30, 30, 257, 131, GREEN);
    app.fill(window, 100, 50, 20, 10, RED);
    let plain = CaptureOptions {
        shared_memory: false,
        ..CaptureOptions::default()
    };
    for target in ["screen", "window:same"] {
        let mut shared = capture_of(&xvfb, target, CaptureOptions::default());
        let mut core = capture_of(&xvfb, target, plain);
        assert_eq!(core.method(), CaptureMethod::GetImage);
        assert_eq!(
            shared.capture().unwrap(),
            core.capture().unwrap(),
            "{target}"
        );
    }
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
fn a_sixteen_bit_screen_is_handed_out_as_bgra() {
    let xvfb = Xvfb::start_with(640, 480, 16);
    let app = TestWindows::connect(xvfb.display());
    app.create("deep", 0, 0, 40, 40, RED);
    app.create("shallow", 40, 0, 40, 40, BLUE);
    let mut screen = capture_of(&xvfb, "screen", CaptureOptions::default());
    let seen = frame(screen.capture().unwrap());
    assert_eq!(pixel(&seen, 10, 10), bgra(RED));
    assert_eq!(pixel(&seen, 50, 10), bgra(BLUE));
    let mut window = capture_of(&xvfb, "window:deep", CaptureOptions::default());
    assert!(is_solid(&frame(window.capture().unwrap()), RED));
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
fn no_display_or_a_dead_one_says_how_to_give_the_daemon_one() {
    let error = X11Capture::connect(None, Watched::Screen, CaptureOptions::default()).unwrap_err();
    assert!(error.permanent);
    assert!(error.message.contains("[x11] display"), "{}", error.message);
    // A display whose server has gone: Xvfb started and stopped again.
    let gone = Xvfb::start().display().to_owned();
    let error =
        X11Capture::connect(Some(&gone), Watched::Screen, CaptureOptions::default()).unwrap_err();
    assert!(
        error.message.contains(&format!("'{gone}'")),
        "{}",
        error.message
    );
    assert!(
        error
            .message
            .contains("systemctl --user import-environment DISPLAY XAUTHORITY"),
        "{}",
        error.message
    );
}

#[tokio::test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
async fn the_source_captures_on_blocking_threads_and_drops_a_broken_connection() {
    let xvfb = Xvfb::start();
    let app = TestWindows::connect(xvfb.display());
    app.create("watched", 0, 0, 64, 64, GREEN);
    let target = Target::parse("window:watched").unwrap();
    let mut source = X11Source::open(Some(xvfb.display().to_owned()), &target)
        .await
        .unwrap();
    assert_eq!(source.method(), Some(CaptureMethod::SharedMemory));
    assert!(is_solid(&frame(source.capture().await.unwrap()), GREEN));
    assert!(
        source.describe().contains("(watched)"),
        "{}",
        source.describe()
    );
    drop(app);
    drop(xvfb);
    let error = source.capture().await.unwrap_err();
    assert!(!error.permanent, "{}", error.message);
    assert_eq!(source.method(), None, "the broken connection was dropped");
    let error = source.capture().await.unwrap_err();
    assert!(
        error.message.contains("cannot open X display"),
        "{}",
        error.message
    );

    let text = X11Source::open(Some(":0".into()), &Target::parse("tmux:main").unwrap()).await;
    assert!(text.unwrap_err().message.contains("not tmux:main"));
}

/// Waits for the count to move on; whether it did within a few seconds.
async fn told(changes: &mut tokio::sync::watch::Receiver<u64>) -> bool {
    tokio::time::timeout(std::time::Duration::from_secs(10), changes.changed())
        .await
        .is_ok_and(|changed| changed.is_ok())
}

/// A capture told of changes, and its count.
fn told_capture(xvfb: &Xvfb, target: &str) -> (X11Capture, tokio::sync::watch::Receiver<u64>) {
    let mut capture = capture_of(xvfb, target, CaptureOptions::default());
    let tell: ChangeCount = Arc::new(tokio::sync::watch::channel(0).0);
    let changes = tell.subscribe();
    capture.tell_changes(tell);
    assert!(capture.is_told_of_changes(), "Xvfb has DAMAGE");
    (capture, changes)
}

/// Captures, then waits until the server has reported everything drawn before: no change
/// told for 300 ms.
async fn until_quiet(
    capture: &mut X11Capture,
    changes: &mut tokio::sync::watch::Receiver<u64>,
) -> Frame {
    for _ in 0..100 {
        // Seen before the capture: a report its own replies brought in counts.
        changes.borrow_and_update();
        let captured = frame(capture.capture().unwrap());
        let quiet =
            tokio::time::timeout(std::time::Duration::from_millis(300), changes.changed()).await;
        if quiet.is_err() {
            return captured;
        }
    }
    panic!("the window never stopped changing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
async fn a_window_that_changes_is_told_and_a_still_one_is_not() {
    let xvfb = Xvfb::start();
    let app = TestWindows::connect(xvfb.display());
    let window = app.create("Installer", 20, 20, 200, 100, BLUE);
    let other = app.create("Elsewhere", 400, 300, 100, 100, GREEN);
    let (mut capture, mut changes) = told_capture(&xvfb, &format!("window:0x{window:x}"));
    let quiet = until_quiet(&mut capture, &mut changes).await;
    assert!(is_solid(&quiet, BLUE));
    assert!(
        capture.tells_every_change(),
        "a live report on the window read: a still poll need not read it"
    );
    let untold = capture_of(
        &xvfb,
        &format!("window:0x{window:x}"),
        CaptureOptions::default(),
    );
    assert!(!untold.tells_every_change(), "no report asked for");

    // Drawing in another window, and captures of the still one, tell nothing.
    app.fill(other, 0, 0, 50, 50, RED);
    capture.capture().unwrap();
    let still =
        tokio::time::timeout(std::time::Duration::from_millis(500), changes.changed()).await;
    assert!(still.is_err(), "nothing changed in the watched window");

    changes.borrow_and_update();
    app.fill(window, 0, 0, 50, 50, RED);
    assert!(told(&mut changes).await, "the server reported the drawing");
    let drawn = frame(capture.capture().unwrap());
    assert_eq!(
        pixel(&drawn, 10, 10),
        bgra(RED),
        "read at once, not skipped"
    );

    changes.borrow_and_update();
    app.unmap(window);
    assert!(told(&mut changes).await, "unmapping is told");
    assert_eq!(
        capture.capture().unwrap(),
        Content::Absent {
            description: WINDOW_HIDDEN.to_owned()
        }
    );
    changes.borrow_and_update();
    app.map(window);
    assert!(told(&mut changes).await, "mapping again is told");
    changes.borrow_and_update();
    app.destroy(window);
    assert!(told(&mut changes).await, "closing is told");
    let closed = capture.capture().unwrap();
    assert_eq!(
        closed,
        Content::Absent {
            description: WINDOW_CLOSED.to_owned()
        }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs Xvfb"
)]
async fn the_screen_is_told_when_a_window_on_it_is_drawn() {
    let xvfb = Xvfb::start();
    let app = TestWindows::connect(xvfb.display());
    let window = app.create("Editor", 100, 50, 200, 100, GREEN);
    let (mut capture, mut changes) = told_capture(&xvfb, "screen");
    let quiet = until_quiet(&mut capture, &mut changes).await;
    assert_eq!(pixel(&quiet, 150, 100), bgra(GREEN));
    changes.borrow_and_update();
    app.fill(window, 0, 0, 200, 100, YELLOW);
    assert!(
        told(&mut changes).await,
        "drawing in a window damages the screen"
    );
    let drawn = frame(capture.capture().unwrap());
    assert_eq!(pixel(&drawn, 150, 100), bgra(YELLOW));
}
