//! Wayland capture told of changes, against a private headless sway (`testkit::sway`) with a
//! foot terminal window that shows what the test appends to a file.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::*;
use crate::testkit::sway::{HeadlessSway, append, follow_script};

const TOLD_PATIENCE: Duration = Duration::from_secs(10);

fn frame(content: Content) -> crate::sight::content::Frame {
    match content {
        Content::Frame(frame) => frame,
        other => panic!("expected a frame, got {other:?}"),
    }
}

fn capture_of(sway: &HeadlessSway, target: &str) -> WaylandCapture {
    let watched = Watched::of(&Target::parse(target).unwrap()).unwrap();
    WaylandCapture::connect(sway.display(), watched).unwrap()
}

/// A capture told of changes, and its count.
fn told_capture(sway: &HeadlessSway, target: &str) -> (WaylandCapture, watch::Receiver<u64>) {
    let mut capture = capture_of(sway, target);
    let tell: ChangeCount = Arc::new(watch::channel(0).0);
    let changes = tell.subscribe();
    capture.tell_changes(tell);
    (capture, changes)
}

/// Whether the count moves on within a few seconds.
async fn told(changes: &mut watch::Receiver<u64>) -> bool {
    tokio::time::timeout(TOLD_PATIENCE, changes.changed())
        .await
        .is_ok_and(|changed| changed.is_ok())
}

/// Whether the count stands still for `quiet`.
async fn stays_quiet(changes: &mut watch::Receiver<u64>, quiet: Duration) -> bool {
    tokio::time::timeout(quiet, changes.changed())
        .await
        .is_err()
}

/// Captures until the compositor has told everything drawn before: nothing told for 500 ms
/// after a capture. Returns that capture.
async fn until_quiet(
    capture: &mut WaylandCapture,
    changes: &mut watch::Receiver<u64>,
) -> crate::sight::content::Frame {
    for _ in 0..40 {
        changes.borrow_and_update();
        let captured = frame(capture.capture().unwrap());
        if stays_quiet(changes, Duration::from_millis(500)).await {
            return captured;
        }
    }
    panic!("the window never stopped changing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs sway and foot"
)]
async fn a_wayland_window_that_changes_is_told_and_a_still_one_is_not() {
    let mut sway = HeadlessSway::start_with(800, 600);
    let log = sway.shared_folder().join("told.log");
    let script = follow_script(&log);
    let index = sway.open_terminal("Told Terminal", &script);
    let (mut capture, mut changes) = told_capture(&sway, "window:told terminal");
    let still = until_quiet(&mut capture, &mut changes).await;
    assert!(
        capture.tells_every_change(),
        "a live follow of the window read: a still poll need not read it"
    );
    let mut untold = capture_of(&sway, "window:told terminal");
    untold.capture().unwrap();
    assert!(!untold.tells_every_change(), "no changes asked for");

    // Still, a capture after another tells nothing: the follow waits without copying.
    capture.capture().unwrap();
    assert!(
        stays_quiet(&mut changes, Duration::from_secs(1)).await,
        "nothing was drawn"
    );

    // Text appears in the window: told, and the capture after it sees it.
    changes.borrow_and_update();
    append(&log, "Installation complete\n");
    assert!(told(&mut changes).await, "the compositor told the drawing");
    let drawn = until_quiet(&mut capture, &mut changes).await;
    assert_ne!(drawn, still, "the capture after the tell read the new text");
    assert!(capture.tells_every_change());

    // Moved and resized (floating, in a corner): the follow moves with the window's region.
    changes.borrow_and_update();
    sway.command(
        "[title=\"Told Terminal\"] floating enable, resize set 300 200, move position 20 20",
    );
    assert!(told(&mut changes).await, "moving the window is told");
    let moved = until_quiet(&mut capture, &mut changes).await;
    assert_eq!(
        (moved.width, moved.height),
        (300, 200),
        "the window's new size"
    );
    assert!(
        capture.tells_every_change(),
        "the follow moved with the window"
    );
    changes.borrow_and_update();
    append(&log, "\x1b[2JRebooting\n");
    assert!(
        told(&mut changes).await,
        "drawing in the moved window is told"
    );

    // Closed: told, and a window no longer there is polled.
    until_quiet(&mut capture, &mut changes).await;
    changes.borrow_and_update();
    sway.close(index, "Told Terminal");
    assert!(told(&mut changes).await, "closing the window is told");
    assert_eq!(
        capture.capture().unwrap(),
        Content::Absent {
            description: WINDOW_CLOSED.to_owned()
        }
    );
    assert!(
        !capture.tells_every_change(),
        "nothing read, nothing followed: the polls read"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs sway and foot"
)]
async fn the_wayland_screen_is_told_when_a_window_on_it_is_drawn_and_a_lost_follow_is_not_trusted()
{
    let mut sway = HeadlessSway::start_with(800, 600);
    let log = sway.shared_folder().join("screen.log");
    let script = follow_script(&log);
    sway.open_terminal("Screen Terminal", &script);
    let (mut capture, mut changes) = told_capture(&sway, "screen");
    let still = until_quiet(&mut capture, &mut changes).await;
    assert_eq!((still.width, still.height), (800, 600));
    assert!(capture.tells_every_change());
    changes.borrow_and_update();
    append(&log, "Build finished\n");
    assert!(
        told(&mut changes).await,
        "drawing in a window damages the screen"
    );
    let drawn = frame(capture.capture().unwrap());
    assert_ne!(drawn, still);

    // The compositor goes away: the follow ends telling a change, and is not trusted after.
    changes.borrow_and_update();
    drop(sway);
    assert!(told(&mut changes).await, "a follow that ended tells it");
    for _ in 0..50 {
        if !capture.tells_every_change() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        !capture.tells_every_change(),
        "a lost follow: the polls read"
    );
    assert!(capture.capture().is_err(), "the compositor is gone");
}
