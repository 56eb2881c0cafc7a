//! The focused window and whether the screen is locked: what the screen recorder asks before
//! every capture (recall's screen history records the window the user works in, never the
//! whole screen, and nothing while the screen is locked or the window cannot be named).
//!
//! The focused window is the window manager's `_NET_ACTIVE_WINDOW`; without a window manager,
//! the input focus climbed to its top-level window. Its identity is its title and its
//! `WM_CLASS` (the application); a window with neither is not known, and the recorder
//! records nothing for it. The screen counts as locked while the MIT-SCREEN-SAVER extension
//! says the saver is on (where lockers such as xss-lock and light-locker hook in).

use x11rb::errors::ReplyError;
use x11rb::protocol::screensaver::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, InputFocus, Window};
use x11rb::rust_connection::RustConnection;

use super::windows::{self, Atoms};

/// What has the user's attention.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Focus {
    /// A window whose identity is known: its title and application (`WM_CLASS`'s class
    /// part; empty when it sets none).
    Window {
        id: Window,
        title: String,
        class: String,
    },
    /// No window has the focus, or the one that has it carries no title and no class.
    Unknown(String),
    /// The screen saver (or a lock screen started with it) is on.
    Locked,
}

/// The focus on the display of `root`; `active_window` is the interned `_NET_ACTIVE_WINDOW`.
pub(super) fn focus(
    connection: &RustConnection,
    atoms: &Atoms,
    active_window: u32,
    root: Window,
) -> Result<Focus, ReplyError> {
    if saver_is_on(connection, root)? {
        return Ok(Focus::Locked);
    }
    let window = match active(connection, active_window, root)? {
        Some(window) => window,
        None => match input_focus(connection, root)? {
            Some(window) => window,
            None => return Ok(Focus::Unknown("no window has the input focus".into())),
        },
    };
    let title = windows::title(connection, atoms, window)?.unwrap_or_default();
    let class = class(connection, window)?.unwrap_or_default();
    if title.trim().is_empty() && class.is_empty() {
        return Ok(Focus::Unknown(format!(
            "the focused window 0x{window:x} has no title and no WM_CLASS"
        )));
    }
    Ok(Focus::Window {
        id: window,
        title,
        class,
    })
}

/// Whether MIT-SCREEN-SAVER reports the saver on (`false` when the server lacks it).
fn saver_is_on(connection: &RustConnection, root: Window) -> Result<bool, ReplyError> {
    use x11rb::connection::RequestConnection as _;
    if connection
        .extension_information(screensaver::X11_EXTENSION_NAME)?
        .is_none()
    {
        return Ok(false);
    }
    let info = connection.screensaver_query_info(root)?.reply()?;
    Ok(info.state == u8::from(screensaver::State::ON))
}

/// The window manager's active window, when there is one.
fn active(
    connection: &RustConnection,
    active_window: u32,
    root: Window,
) -> Result<Option<Window>, ReplyError> {
    let reply = connection
        .get_property(false, root, active_window, AtomEnum::WINDOW, 0, 1)?
        .reply()?;
    Ok(reply
        .value32()
        .and_then(|mut values| values.next())
        .filter(|&window| window != 0 && window != root))
}

/// The input focus climbed to the top-level window that holds it.
fn input_focus(connection: &RustConnection, root: Window) -> Result<Option<Window>, ReplyError> {
    let focused = connection.get_input_focus()?.reply()?.focus;
    if focused == u32::from(InputFocus::NONE)
        || focused == u32::from(InputFocus::POINTER_ROOT)
        || focused == root
    {
        return Ok(None);
    }
    let mut window = focused;
    loop {
        let tree = match connection.query_tree(window)?.reply() {
            Ok(tree) => tree,
            Err(ReplyError::X11Error(_)) => return Ok(None), // destroyed meanwhile
            Err(error) => return Err(error),
        };
        if tree.parent == root || tree.parent == 0 {
            return Ok(Some(window));
        }
        window = tree.parent;
    }
}

/// The class part of `WM_CLASS` ("XTerm" of "xterm\0XTerm\0"); `None` when unset.
fn class(connection: &RustConnection, window: Window) -> Result<Option<String>, ReplyError> {
    let reply = match connection
        .get_property(false, window, AtomEnum::WM_CLASS, AtomEnum::STRING, 0, 256)?
        .reply()
    {
        Ok(reply) => reply,
        Err(ReplyError::X11Error(_)) => return Ok(None),
        Err(error) => return Err(error),
    };
    let mut parts = reply
        .value
        .split(|&byte| byte == 0)
        .filter(|part| !part.is_empty());
    let instance = parts.next();
    let class = parts.next().or(instance);
    Ok(class.map(|bytes| bytes.iter().map(|&byte| char::from(byte)).collect()))
}
