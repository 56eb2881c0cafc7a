//! One connection to a wlroots compositor and what it told us: its outputs (where each sits
//! in the layout, its size and name), its toplevel windows (title, app id, minimised, whether
//! it covers its output, from `wlr-foreign-toplevel-management`), and the state of the screencopy frame in flight.
//!
//! wayland-client dispatches every event to [`State`]; the `Dispatch` impls below only
//! record. What is asked and when lives in `mod.rs` and `screencopy.rs`.

use std::os::unix::net::UnixStream;
use std::path::Path;

use wayland_client::globals::{GlobalList, GlobalListContents, registry_queue_init};
use wayland_client::protocol::{wl_buffer, wl_output, wl_registry, wl_shm, wl_shm_pool};
use wayland_client::{
    Connection, Dispatch, EventQueue, Proxy, QueueHandle, WEnum, event_created_child,
};
use wayland_protocols_wlr::foreign_toplevel::v1::client::{
    zwlr_foreign_toplevel_handle_v1::{self, ZwlrForeignToplevelHandleV1},
    zwlr_foreign_toplevel_manager_v1::{self, ZwlrForeignToplevelManagerV1},
};
use wayland_protocols_wlr::screencopy::v1::client::{
    zwlr_screencopy_frame_v1::{self, ZwlrScreencopyFrameV1},
    zwlr_screencopy_manager_v1::ZwlrScreencopyManagerV1,
};

use crate::sight::capture::CaptureError;

/// An output (a monitor) as the compositor describes it.
#[derive(Debug)]
pub(super) struct Output {
    pub wl: wl_output::WlOutput,
    /// The global's name in the registry, to forget the output when it goes.
    pub global: u32,
    /// Its top-left corner in the compositor's layout (wl_output's geometry).
    pub x: i32,
    pub y: i32,
    /// Its current mode, in pixels.
    pub width: i32,
    pub height: i32,
    /// "HEADLESS-1", "DP-2" (wl_output version 4 and later).
    pub name: Option<String>,
}

/// A toplevel window as `wlr-foreign-toplevel-management` describes it.
#[derive(Debug)]
pub(super) struct Toplevel {
    pub handle: ZwlrForeignToplevelHandleV1,
    pub title: String,
    pub app_id: String,
    pub minimized: bool,
    /// It has the keyboard focus (the compositor marks it activated).
    pub activated: bool,
    /// Focused, and covering its output (fullscreen or maximised): what is on that output
    /// is this window, so it can be read where the compositor does not say where it is.
    pub covers_output: bool,
    /// The output it is on (the last it entered).
    pub output: Option<wl_output::WlOutput>,
    pub closed: bool,
}

/// The buffer a screencopy frame asked for (its `buffer` event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct BufferSpec {
    pub format: wl_shm::Format,
    pub width: u32,
    pub height: u32,
    pub stride: u32,
}

/// What the frame in flight has said so far.
#[derive(Debug, Default)]
pub(super) struct FrameState {
    /// The shared-memory buffer it takes (DMA-BUF offers are ignored).
    pub buffer: Option<BufferSpec>,
    /// Every buffer type was offered (version 3's `buffer_done`).
    pub buffer_done: bool,
    /// The rows arrive bottom-up.
    pub y_invert: bool,
    /// `Some(true)` once `ready`, `Some(false)` once `failed`.
    pub outcome: Option<bool>,
}

/// Everything the compositor told this connection.
#[derive(Debug, Default)]
pub(super) struct State {
    pub outputs: Vec<Output>,
    pub toplevels: Vec<Toplevel>,
    pub frame: FrameState,
}

/// The connection, its event queue and the globals lookout uses.
pub(super) struct Client {
    pub queue: EventQueue<State>,
    pub state: State,
    pub handle: QueueHandle<State>,
    pub shm: wl_shm::WlShm,
    pub screencopy: ZwlrScreencopyManagerV1,
    /// `None` when the compositor does not offer `wlr-foreign-toplevel-management`.
    pub toplevels: Option<ZwlrForeignToplevelManagerV1>,
    connection: Connection,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("outputs", &self.state.outputs.len())
            .field("toplevels", &self.state.toplevels.len())
            .finish_non_exhaustive()
    }
}

/// Whether the compositor at `socket` offers `wlr-screencopy` (wlroots compositors do, GNOME
/// and KDE do not); blocking.
pub fn offers_screencopy(socket: &Path) -> Result<bool, CaptureError> {
    let stream = UnixStream::connect(socket).map_err(|error| {
        CaptureError::retryable(format!(
            "cannot reach the Wayland compositor at {}: {error}",
            socket.display()
        ))
    })?;
    let connection = Connection::from_socket(stream).map_err(|error| lost(socket, &error))?;
    let (globals, _queue) = registry_queue_init::<State>(&connection).map_err(|error| {
        CaptureError::retryable(format!(
            "the Wayland compositor at {} did not list its globals: {error}",
            socket.display()
        ))
    })?;
    Ok(globals.contents().with_list(|globals| {
        globals
            .iter()
            .any(|global| global.interface == ZwlrScreencopyManagerV1::interface().name)
    }))
}

impl Client {
    /// Connects to the compositor's socket and binds what capturing needs; blocking.
    pub fn connect(socket: &Path) -> Result<Client, CaptureError> {
        let shown = socket.display();
        let stream = UnixStream::connect(socket).map_err(|error| {
            CaptureError::retryable(format!(
                "cannot reach the Wayland compositor at {shown}: {error}"
            ))
        })?;
        let connection = Connection::from_socket(stream).map_err(|error| {
            CaptureError::retryable(format!(
                "cannot talk to the Wayland compositor at {shown}: {error}"
            ))
        })?;
        let (globals, mut queue) = registry_queue_init::<State>(&connection).map_err(|error| {
            CaptureError::retryable(format!(
                "the Wayland compositor at {shown} did not list its globals: {error}"
            ))
        })?;
        let handle = queue.handle();
        let shm: wl_shm::WlShm = globals.bind(&handle, 1..=1, ()).map_err(|_| {
            CaptureError::permanent(format!(
                "the Wayland compositor at {shown} offers no shared memory (wl_shm)"
            ))
        })?;
        let screencopy: ZwlrScreencopyManagerV1 =
            globals.bind(&handle, 1..=3, ()).map_err(|_| {
                CaptureError::permanent(format!(
                    "the Wayland compositor at {shown} does not offer wlr-screencopy, so lookout \
                     cannot read its pixels directly; wlroots compositors (sway, Hyprland, river, \
                     labwc, Wayfire) offer it, GNOME and KDE do not: there the screen is read \
                     through the ScreenCast portal ([wayland] capture = \"auto\" or \"portal\"), \
                     and windows of X11 programs through XWayland ([wayland] session = \"x11\")"
                ))
            })?;
        let toplevels = globals.bind(&handle, 1..=3, ()).ok();
        let mut state = State::default();
        bind_outputs(&globals, &handle, &mut state);
        // Two round trips: the first brings the outputs' and toplevels' first events, the
        // second the events of the toplevel handles the first one created.
        for _ in 0..2 {
            queue
                .roundtrip(&mut state)
                .map_err(|error| lost(socket, &error))?;
        }
        Ok(Client {
            queue,
            state,
            handle,
            shm,
            screencopy,
            toplevels,
            connection,
        })
    }

    /// The connection's socket on the runtime's reactor, for a task that waits on it.
    pub fn reactor_socket(&self) -> Option<tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>> {
        crate::sight::capture::reactor_socket(self.connection.backend().poll_fd())
    }

    /// Brings the outputs and toplevels up to date with one round trip.
    pub fn refresh(&mut self, socket: &Path) -> Result<(), CaptureError> {
        self.queue
            .roundtrip(&mut self.state)
            .map(|_| ())
            .map_err(|error| lost(socket, &error))
    }
}

/// The connection broke (the compositor went away, or a protocol error).
pub(super) fn lost(socket: &Path, error: &dyn std::fmt::Display) -> CaptureError {
    CaptureError::retryable(format!(
        "lost the Wayland compositor at {}: {error}",
        socket.display()
    ))
}

fn bind_outputs(globals: &GlobalList, handle: &QueueHandle<State>, state: &mut State) {
    let registry = globals.registry();
    globals.contents().with_list(|list| {
        for global in list.iter().filter(|g| g.interface == "wl_output") {
            state
                .outputs
                .push(Output::bind(registry, global.name, global.version, handle));
        }
    });
}

impl Output {
    /// Binds the `wl_output` global `name` (up to version 4, which names outputs); its
    /// place, mode and name arrive as events.
    fn bind(
        registry: &wl_registry::WlRegistry,
        name: u32,
        version: u32,
        handle: &QueueHandle<State>,
    ) -> Output {
        Output {
            wl: registry.bind::<wl_output::WlOutput, _, State>(name, version.min(4), handle, ()),
            global: name,
            x: 0,
            y: 0,
            width: 0,
            height: 0,
            name: None,
        }
    }
}

impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for State {
    fn event(
        state: &mut Self,
        registry: &wl_registry::WlRegistry,
        event: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        handle: &QueueHandle<Self>,
    ) {
        match event {
            wl_registry::Event::Global {
                name,
                interface,
                version,
            } if interface == "wl_output" => {
                state
                    .outputs
                    .push(Output::bind(registry, name, version, handle));
            }
            wl_registry::Event::GlobalRemove { name } => {
                state.outputs.retain(|output| output.global != name);
            }
            _ => {}
        }
    }
}

impl Dispatch<wl_output::WlOutput, ()> for State {
    fn event(
        state: &mut Self,
        wl: &wl_output::WlOutput,
        event: wl_output::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let Some(output) = state.outputs.iter_mut().find(|output| &output.wl == wl) else {
            return;
        };
        match event {
            wl_output::Event::Geometry { x, y, .. } => (output.x, output.y) = (x, y),
            wl_output::Event::Mode {
                flags: WEnum::Value(flags),
                width,
                height,
                ..
            } if flags.contains(wl_output::Mode::Current) => {
                (output.width, output.height) = (width, height);
            }
            wl_output::Event::Name { name } => output.name = Some(name),
            _ => {}
        }
    }
}

impl Dispatch<ZwlrForeignToplevelManagerV1, ()> for State {
    fn event(
        state: &mut Self,
        _: &ZwlrForeignToplevelManagerV1,
        event: zwlr_foreign_toplevel_manager_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let zwlr_foreign_toplevel_manager_v1::Event::Toplevel { toplevel } = event {
            state.toplevels.push(Toplevel {
                handle: toplevel,
                title: String::new(),
                app_id: String::new(),
                minimized: false,
                activated: false,
                covers_output: false,
                output: None,
                closed: false,
            });
        }
    }

    event_created_child!(State, ZwlrForeignToplevelManagerV1, [
        zwlr_foreign_toplevel_manager_v1::EVT_TOPLEVEL_OPCODE => (ZwlrForeignToplevelHandleV1, ()),
    ]);
}

impl Dispatch<ZwlrForeignToplevelHandleV1, ()> for State {
    fn event(
        state: &mut Self,
        handle: &ZwlrForeignToplevelHandleV1,
        event: zwlr_foreign_toplevel_handle_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let Some(toplevel) = state.toplevels.iter_mut().find(|t| &t.handle == handle) else {
            return;
        };
        match event {
            zwlr_foreign_toplevel_handle_v1::Event::Title { title } => toplevel.title = title,
            zwlr_foreign_toplevel_handle_v1::Event::AppId { app_id } => toplevel.app_id = app_id,
            zwlr_foreign_toplevel_handle_v1::Event::State { state: states } => {
                use zwlr_foreign_toplevel_handle_v1::State;
                let has = |wanted: State| {
                    states.chunks_exact(4).any(|word| {
                        u32::from_ne_bytes([word[0], word[1], word[2], word[3]]) == wanted as u32
                    })
                };
                toplevel.minimized = has(State::Minimized);
                toplevel.activated = has(State::Activated);
                toplevel.covers_output =
                    toplevel.activated && (has(State::Fullscreen) || has(State::Maximized));
            }
            zwlr_foreign_toplevel_handle_v1::Event::OutputEnter { output } => {
                toplevel.output = Some(output);
            }
            zwlr_foreign_toplevel_handle_v1::Event::OutputLeave { output }
                if toplevel.output.as_ref() == Some(&output) =>
            {
                toplevel.output = None;
            }
            zwlr_foreign_toplevel_handle_v1::Event::Closed => {
                toplevel.closed = true;
                handle.destroy();
            }
            _ => {}
        }
        state.toplevels.retain(|toplevel| !toplevel.closed);
    }
}

impl Dispatch<ZwlrScreencopyFrameV1, ()> for State {
    fn event(
        state: &mut Self,
        _: &ZwlrScreencopyFrameV1,
        event: zwlr_screencopy_frame_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let frame = &mut state.frame;
        match event {
            zwlr_screencopy_frame_v1::Event::Buffer {
                format: WEnum::Value(format),
                width,
                height,
                stride,
            } => {
                // The first shared-memory format offered is the compositor's preference.
                frame.buffer.get_or_insert(BufferSpec {
                    format,
                    width,
                    height,
                    stride,
                });
            }
            zwlr_screencopy_frame_v1::Event::BufferDone => frame.buffer_done = true,
            zwlr_screencopy_frame_v1::Event::Flags {
                flags: WEnum::Value(flags),
            } => {
                frame.y_invert = flags.contains(zwlr_screencopy_frame_v1::Flags::YInvert);
            }
            zwlr_screencopy_frame_v1::Event::Ready { .. } => frame.outcome = Some(true),
            zwlr_screencopy_frame_v1::Event::Failed => frame.outcome = Some(false),
            _ => {}
        }
    }
}

/// Objects whose events lookout does not need.
macro_rules! ignore_events {
    ($($interface:ty),*) => {$(
        impl Dispatch<$interface, ()> for State {
            fn event(
                _: &mut Self,
                _: &$interface,
                _: <$interface as Proxy>::Event,
                _: &(),
                _: &Connection,
                _: &QueueHandle<Self>,
            ) {
            }
        }
    )*};
}

ignore_events!(
    wl_shm::WlShm,
    wl_shm_pool::WlShmPool,
    wl_buffer::WlBuffer,
    ZwlrScreencopyManagerV1
);
