//! A private X server for the X11 tests and the capture benchmark: Xvfb on a display it picks
//! itself, and plain windows painted in known colours, made with x11rb.
//!
//! Test support only (`actors::testkit`, feature `testkit`, for the integration tests and
//! the benchmarks): production code starts no processes outside `process.rs`.

#![allow(dead_code)] // the tests and the benchmark each use a part

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ChangeWindowAttributesAux, ConfigureWindowAux, ConnectionExt as _, CreateGCAux,
    CreateWindowAux, InputFocus, MapState, PropMode, Rectangle, ScreenSaver, StackMode, Window,
    WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

/// An Xvfb server, killed when dropped.
pub struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    /// A 1280x720 screen at depth 24.
    pub fn start() -> Xvfb {
        Xvfb::start_with(1280, 720, 24)
    }

    /// Starts Xvfb on a free display (it chooses one and reports it through `-displayfd`,
    /// once it accepts connections), with a black root window.
    pub fn start_with(width: u32, height: u32, depth: u8) -> Xvfb {
        #[allow(clippy::disallowed_methods)] // test fixture: the X server the tests watch
        let mut child = Command::new("Xvfb")
            .args(["-displayfd", "1", "-screen", "0"])
            .arg(format!("{width}x{height}x{depth}"))
            .args(["-nolisten", "tcp", "-noreset", "-br"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| {
                panic!("cannot start Xvfb ({error}); install it: apt-get install xvfb")
            });
        let mut line = String::new();
        let stdout = child.stdout.take().expect("stdout is piped");
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("Xvfb reports its display");
        let number: u32 = line
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("Xvfb did not start (it printed {line:?})"));
        Xvfb {
            child,
            display: format!(":{number}"),
        }
    }

    pub fn display(&self) -> &str {
        &self.display
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client that makes top-level windows of a solid colour (an `0xRRGGBB` value), as a
/// test application would.
pub struct TestWindows {
    connection: RustConnection,
    screen: usize,
}

impl TestWindows {
    pub fn connect(display: &str) -> TestWindows {
        let (connection, screen) = RustConnection::connect(Some(display)).expect("connect to Xvfb");
        TestWindows { connection, screen }
    }

    fn root(&self) -> Window {
        self.connection.setup().roots[self.screen].root
    }

    /// The pixel value of a colour on this screen, whatever its depth.
    fn pixel(&self, rgb: u32) -> u32 {
        let colormap = self.connection.setup().roots[self.screen].default_colormap;
        let channel = |shift: u32| (((rgb >> shift) & 0xff) * 0x101) as u16;
        self.connection
            .alloc_color(colormap, channel(16), channel(8), channel(0))
            .unwrap()
            .reply()
            .unwrap()
            .pixel
    }

    /// A mapped window at (x, y) with this title and background colour.
    pub fn create(&self, title: &str, x: i16, y: i16, width: u16, height: u16, rgb: u32) -> Window {
        let window = self.connection.generate_id().unwrap();
        let aux = CreateWindowAux::new().background_pixel(self.pixel(rgb));
        self.connection
            .create_window(
                x11rb::COPY_DEPTH_FROM_PARENT,
                window,
                self.root(),
                x,
                y,
                width,
                height,
                0,
                WindowClass::INPUT_OUTPUT,
                x11rb::COPY_FROM_PARENT,
                &aux,
            )
            .unwrap();
        self.set_title(window, title);
        self.connection.map_window(window).unwrap();
        self.sync();
        window
    }

    pub fn set_title(&self, window: Window, title: &str) {
        let utf8 = self.atom("UTF8_STRING");
        let net_wm_name = self.atom("_NET_WM_NAME");
        self.connection
            .change_property8(
                PropMode::REPLACE,
                window,
                net_wm_name,
                utf8,
                title.as_bytes(),
            )
            .unwrap();
        let latin1: Vec<u8> = title
            .chars()
            .map(|c| u8::try_from(c).unwrap_or(b'?'))
            .collect();
        self.connection
            .change_property8(
                PropMode::REPLACE,
                window,
                AtomEnum::WM_NAME,
                AtomEnum::STRING,
                &latin1,
            )
            .unwrap();
        self.sync();
    }

    /// Fills a rectangle of the window with a colour.
    pub fn fill(&self, window: Window, x: i16, y: i16, width: u16, height: u16, rgb: u32) {
        let gc = self.connection.generate_id().unwrap();
        self.connection
            .create_gc(gc, window, &CreateGCAux::new().foreground(self.pixel(rgb)))
            .unwrap();
        self.connection
            .poly_fill_rectangle(
                window,
                gc,
                &[Rectangle {
                    x,
                    y,
                    width,
                    height,
                }],
            )
            .unwrap();
        self.connection.free_gc(gc).unwrap();
        self.sync();
    }

    /// Repaints the whole window in a new background colour.
    pub fn repaint(&self, window: Window, rgb: u32) {
        let aux = ChangeWindowAttributesAux::new().background_pixel(self.pixel(rgb));
        self.connection
            .change_window_attributes(window, &aux)
            .unwrap();
        self.connection
            .clear_area(false, window, 0, 0, 0, 0)
            .unwrap();
        self.sync();
    }

    pub fn resize(&self, window: Window, width: u32, height: u32) {
        let aux = ConfigureWindowAux::new().width(width).height(height);
        self.connection.configure_window(window, &aux).unwrap();
        self.sync();
    }

    pub fn raise(&self, window: Window) {
        let aux = ConfigureWindowAux::new().stack_mode(StackMode::ABOVE);
        self.connection.configure_window(window, &aux).unwrap();
        self.sync();
    }

    pub fn unmap(&self, window: Window) {
        self.connection.unmap_window(window).unwrap();
        self.sync();
    }

    pub fn map(&self, window: Window) {
        self.connection.map_window(window).unwrap();
        self.sync();
    }

    pub fn destroy(&self, window: Window) {
        self.connection.destroy_window(window).unwrap();
        self.sync();
    }

    /// Publishes `_NET_CLIENT_LIST` on the root window, as a window manager does.
    pub fn set_client_list(&self, windows: &[Window]) {
        let list = self.atom("_NET_CLIENT_LIST");
        self.connection
            .change_property32(
                PropMode::REPLACE,
                self.root(),
                list,
                AtomEnum::WINDOW,
                windows,
            )
            .unwrap();
        self.sync();
    }

    fn atom(&self, name: &str) -> u32 {
        self.connection
            .intern_atom(false, name.as_bytes())
            .unwrap()
            .reply()
            .unwrap()
            .atom
    }

    /// Gives `window` the input focus, as a click would (there is no window manager), and
    /// waits until it has it. A window is found by its title before its client maps it, and
    /// the server refuses the focus to a window not yet viewable (an error nobody reads), so
    /// this tries again until the focus holds.
    pub fn focus(&self, window: Window) {
        let pause = std::time::Duration::from_millis(50);
        for _ in 0..1_200 {
            let viewable = self
                .connection
                .get_window_attributes(window)
                .unwrap()
                .reply()
                .is_ok_and(|attributes| attributes.map_state == MapState::VIEWABLE);
            if viewable {
                self.connection
                    .set_input_focus(InputFocus::PARENT, window, x11rb::CURRENT_TIME)
                    .unwrap();
                let focused = self.connection.get_input_focus().unwrap().reply().unwrap();
                if focused.focus == window {
                    return;
                }
            }
            std::thread::sleep(pause);
        }
        panic!("window {window:#x} never became viewable to take the input focus");
    }

    /// The first top-level window whose title contains `needle`, once it exists.
    pub fn find(&self, needle: &str, patience: std::time::Duration) -> Window {
        let net_wm_name = self.atom("_NET_WM_NAME");
        let pause = std::time::Duration::from_millis(100);
        for _ in 0..=patience.as_millis() / pause.as_millis() {
            let children = self
                .connection
                .query_tree(self.root())
                .unwrap()
                .reply()
                .unwrap()
                .children;
            for window in children {
                for property in [net_wm_name, u32::from(AtomEnum::WM_NAME)] {
                    let Ok(reply) = self
                        .connection
                        .get_property(false, window, property, AtomEnum::ANY, 0, 256)
                        .unwrap()
                        .reply()
                    else {
                        continue;
                    };
                    if String::from_utf8_lossy(&reply.value).contains(needle) {
                        return window;
                    }
                }
            }
            std::thread::sleep(pause);
        }
        panic!("no window titled like '{needle}' appeared");
    }

    /// Turns the screen saver on (`true`) or off, as a lock screen started with it does.
    pub fn screen_saver(&self, on: bool) {
        let mode = if on {
            ScreenSaver::ACTIVE
        } else {
            ScreenSaver::RESET
        };
        self.connection.force_screen_saver(mode).unwrap();
        self.sync();
    }

    /// Waits until the server has handled every request sent so far.
    pub fn sync(&self) {
        self.connection.get_input_focus().unwrap().reply().unwrap();
    }
}
