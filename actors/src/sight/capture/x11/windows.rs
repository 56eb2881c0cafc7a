//! Finding the watched window: by id, or as the first window whose title contains some text.
//!
//! Titles come from `_NET_WM_NAME` (UTF-8), else `WM_NAME` (Latin-1). Candidates are the
//! window manager's `_NET_CLIENT_LIST` in mapping order; without a window manager, every
//! window of the tree, like `xdotool search --name`. Among the matches a viewable one wins.
//! Requests are pipelined: a search costs a few round trips, not one per window.

use x11rb::cookie::Cookie;
use x11rb::errors::ReplyError;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, GetPropertyReply, MapState, Window};
use x11rb::rust_connection::RustConnection;

/// The atoms a search needs, interned once per connection.
#[derive(Clone, Copy, Debug)]
pub(super) struct Atoms {
    net_client_list: u32,
    net_wm_name: u32,
    utf8_string: u32,
}

impl Atoms {
    pub(super) fn intern(connection: &RustConnection) -> Result<Atoms, ReplyError> {
        let client_list = connection.intern_atom(false, b"_NET_CLIENT_LIST")?;
        let wm_name = connection.intern_atom(false, b"_NET_WM_NAME")?;
        let utf8 = connection.intern_atom(false, b"UTF8_STRING")?;
        Ok(Atoms {
            net_client_list: client_list.reply()?.atom,
            net_wm_name: wm_name.reply()?.atom,
            utf8_string: utf8.reply()?.atom,
        })
    }
}

/// The title of `window`, or `None` when it has none or no longer exists.
pub(super) fn title(
    connection: &RustConnection,
    atoms: &Atoms,
    window: Window,
) -> Result<Option<String>, ReplyError> {
    Ok(titles(connection, atoms, &[window])?.pop().flatten())
}

/// The first window whose title contains `needle` (case-insensitively) and that title,
/// preferring one that is viewable.
pub(super) fn find_by_title(
    connection: &RustConnection,
    atoms: &Atoms,
    root: Window,
    needle: &str,
) -> Result<Option<(Window, String)>, ReplyError> {
    let needle = needle.to_lowercase();
    let managed = client_list(connection, atoms, root)?;
    let candidates = if managed.is_empty() {
        tree(connection, root)?
    } else {
        managed
    };
    let named = titles(connection, atoms, &candidates)?;
    let matches: Vec<(Window, String)> = candidates
        .into_iter()
        .zip(named)
        .filter_map(|(window, title)| {
            let title = title?;
            title
                .to_lowercase()
                .contains(&needle)
                .then_some((window, title))
        })
        .collect();
    let cookies = matches
        .iter()
        .map(|(window, _)| connection.get_window_attributes(*window))
        .collect::<Result<Vec<_>, _>>()?;
    let mut first = None;
    for ((window, title), cookie) in matches.into_iter().zip(cookies) {
        match cookie.reply() {
            Ok(attributes) if attributes.map_state == MapState::VIEWABLE => {
                return Ok(Some((window, title)));
            }
            Ok(_) => {
                first.get_or_insert((window, title));
            }
            Err(ReplyError::X11Error(_)) => {} // destroyed meanwhile
            Err(error) => return Err(error),
        }
    }
    Ok(first)
}

/// Every titled window's title (the window manager's windows, else the whole tree), for
/// telling an agent what it could have meant.
pub(super) fn all_titles(
    connection: &RustConnection,
    atoms: &Atoms,
    root: Window,
) -> Result<Vec<String>, ReplyError> {
    let managed = client_list(connection, atoms, root)?;
    let candidates = if managed.is_empty() {
        tree(connection, root)?
    } else {
        managed
    };
    let mut named: Vec<String> = titles(connection, atoms, &candidates)?
        .into_iter()
        .flatten()
        .filter(|title| !title.trim().is_empty())
        .collect();
    named.dedup();
    Ok(named)
}

/// The titles most like `needle`, best first (at most `count`): by the needle's words they
/// contain, then by shared letter pairs.
pub fn closest_titles(needle: &str, titles: &[String], count: usize) -> Vec<String> {
    let needle = needle.to_lowercase();
    let words: Vec<&str> = needle.split_whitespace().collect();
    let pairs = |text: &str| -> std::collections::HashSet<(char, char)> {
        let chars: Vec<char> = text.chars().collect();
        chars.windows(2).map(|pair| (pair[0], pair[1])).collect()
    };
    let wanted = pairs(&needle);
    let mut scored: Vec<(usize, usize, &String)> = titles
        .iter()
        .map(|title| {
            let lower = title.to_lowercase();
            let shared_words = words.iter().filter(|word| lower.contains(**word)).count();
            let shared_pairs = pairs(&lower).intersection(&wanted).count();
            (shared_words, shared_pairs, title)
        })
        .collect();
    scored.sort_by_key(|(words, pairs, _)| std::cmp::Reverse((*words, *pairs)));
    scored
        .into_iter()
        .take(count)
        .map(|(_, _, title)| title.clone())
        .collect()
}

/// The window manager's managed windows, oldest first; empty without a window manager.
fn client_list(
    connection: &RustConnection,
    atoms: &Atoms,
    root: Window,
) -> Result<Vec<Window>, ReplyError> {
    let reply = connection
        .get_property(
            false,
            root,
            atoms.net_client_list,
            AtomEnum::WINDOW,
            0,
            u32::MAX / 4,
        )?
        .reply()?;
    Ok(reply.value32().map(Iterator::collect).unwrap_or_default())
}

/// Every window below `root`, breadth first, bottom of the stack first on each level.
fn tree(connection: &RustConnection, root: Window) -> Result<Vec<Window>, ReplyError> {
    let mut all = Vec::new();
    let mut level = vec![root];
    while !level.is_empty() {
        let cookies = level
            .iter()
            .map(|&window| connection.query_tree(window))
            .collect::<Result<Vec<_>, _>>()?;
        let mut next = Vec::new();
        for cookie in cookies {
            match cookie.reply() {
                Ok(reply) => next.extend(reply.children),
                Err(ReplyError::X11Error(_)) => {} // destroyed meanwhile
                Err(error) => return Err(error),
            }
        }
        all.extend_from_slice(&next);
        level = next;
    }
    Ok(all)
}

/// The titles of `windows`, in order (`None`: no title, or the window is gone).
fn titles(
    connection: &RustConnection,
    atoms: &Atoms,
    windows: &[Window],
) -> Result<Vec<Option<String>>, ReplyError> {
    let request = |window: Window, property: u32| {
        connection.get_property(false, window, property, AtomEnum::ANY, 0, 1024)
    };
    let cookies = windows
        .iter()
        .map(|&window| {
            Ok::<_, ReplyError>((
                request(window, atoms.net_wm_name)?,
                request(window, AtomEnum::WM_NAME.into())?,
            ))
        })
        .collect::<Result<Vec<_>, _>>()?;
    cookies
        .into_iter()
        .map(|(net_wm_name, wm_name)| {
            let net_wm_name = decoded(net_wm_name, atoms)?;
            let wm_name = decoded(wm_name, atoms)?;
            Ok(net_wm_name.filter(|t| !t.is_empty()).or(wm_name))
        })
        .collect()
}

fn decoded(
    cookie: Cookie<'_, RustConnection, GetPropertyReply>,
    atoms: &Atoms,
) -> Result<Option<String>, ReplyError> {
    let reply = match cookie.reply() {
        Ok(reply) => reply,
        Err(ReplyError::X11Error(_)) => return Ok(None),
        Err(error) => return Err(error),
    };
    if reply.format != 8 || reply.value.is_empty() {
        return Ok(None);
    }
    let text = if reply.type_ == atoms.utf8_string {
        String::from_utf8_lossy(&reply.value).into_owned()
    } else {
        // STRING is Latin-1; COMPOUND_TEXT is read the same way, which is right for its
        // ASCII part, the part titles are searched by.
        reply.value.iter().map(|&byte| char::from(byte)).collect()
    };
    Ok(Some(text))
}
