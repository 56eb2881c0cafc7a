//! Where windows are, from sway's IPC: `wlr-foreign-toplevel-management` names windows but
//! not their place, so on sway the layout tree (`GET_TREE`) gives each window's rectangle,
//! the output it is on and whether it is shown. Blocking; one short request per capture.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::sight::capture::CaptureError;

/// i3's IPC magic, which sway speaks.
const MAGIC: &[u8; 6] = b"i3-ipc";
const GET_TREE: u32 = 4;
/// A tree is a few hundred KiB at most; anything larger is not an answer.
const MAX_REPLY_BYTES: usize = 16 << 20;
const IPC_TIMEOUT: Duration = Duration::from_secs(2);

/// A rectangle in the compositor's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

/// A window in sway's tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SwayWindow {
    pub title: String,
    pub app_id: String,
    /// Its content (without borders and title bar), in layout coordinates.
    pub content: Rect,
    /// Shown on a visible workspace.
    pub visible: bool,
    /// The output it is on: its name and where it sits in the layout.
    pub output: String,
    pub output_rect: Rect,
}

/// Every window in sway's tree; blocking.
pub(super) fn windows(socket: &Path) -> Result<Vec<SwayWindow>, CaptureError> {
    let failed = |error: std::io::Error| {
        CaptureError::retryable(format!(
            "cannot ask sway where windows are ({}): {error}",
            socket.display()
        ))
    };
    let mut stream = UnixStream::connect(socket).map_err(failed)?;
    stream.set_read_timeout(Some(IPC_TIMEOUT)).map_err(failed)?;
    stream
        .set_write_timeout(Some(IPC_TIMEOUT))
        .map_err(failed)?;
    let mut request = Vec::with_capacity(14);
    request.extend_from_slice(MAGIC);
    request.extend_from_slice(&0u32.to_ne_bytes());
    request.extend_from_slice(&GET_TREE.to_ne_bytes());
    stream.write_all(&request).map_err(failed)?;
    let mut header = [0u8; 14];
    stream.read_exact(&mut header).map_err(failed)?;
    let length = u32::from_ne_bytes([header[6], header[7], header[8], header[9]]) as usize;
    if &header[..6] != MAGIC || length > MAX_REPLY_BYTES {
        return Err(CaptureError::retryable(format!(
            "{} does not answer like sway's IPC",
            socket.display()
        )));
    }
    let mut payload = vec![0u8; length];
    stream.read_exact(&mut payload).map_err(failed)?;
    let tree: Value = serde_json::from_slice(&payload)
        .map_err(|error| CaptureError::retryable(format!("sway's tree is not JSON: {error}")))?;
    Ok(windows_of(&tree))
}

/// The windows of a `GET_TREE` answer, in tree order.
pub(super) fn windows_of(tree: &Value) -> Vec<SwayWindow> {
    let mut found = Vec::new();
    walk(tree, None, &mut found);
    found
}

fn walk(node: &Value, output: Option<(&str, Rect)>, found: &mut Vec<SwayWindow>) {
    let output = match node["type"].as_str() {
        Some("output") => Some((node["name"].as_str().unwrap_or(""), rect(&node["rect"]))),
        _ => output,
    };
    let children: Vec<&Value> = ["nodes", "floating_nodes"]
        .iter()
        .filter_map(|key| node[*key].as_array())
        .flatten()
        .collect();
    let is_window = matches!(node["type"].as_str(), Some("con" | "floating_con"))
        && children.is_empty()
        && (node["pid"].is_number() || node["app_id"].is_string());
    if is_window && let Some((name, output_rect)) = output {
        let outer = rect(&node["rect"]);
        let inner = rect(&node["window_rect"]);
        found.push(SwayWindow {
            title: node["name"].as_str().unwrap_or("").to_owned(),
            app_id: node["app_id"].as_str().unwrap_or("").to_owned(),
            content: Rect {
                x: outer.x + inner.x,
                y: outer.y + inner.y,
                width: inner.width,
                height: inner.height,
            },
            visible: node["visible"].as_bool().unwrap_or(false),
            output: name.to_owned(),
            output_rect,
        });
    }
    for child in children {
        walk(child, output, found);
    }
}

fn rect(value: &Value) -> Rect {
    let field = |key: &str| value[key].as_i64().unwrap_or(0) as i32;
    Rect {
        x: field("x"),
        y: field("y"),
        width: field("width"),
        height: field("height"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn windows_come_with_their_content_rectangle_and_output() {
        let tree = json!({
            "type": "root", "rect": {"x": 0, "y": 0, "width": 3840, "height": 1080},
            "nodes": [
                {"type": "output", "name": "__i3", "rect": {"x": 0, "y": 0, "width": 0, "height": 0},
                 "nodes": [{"type": "workspace", "name": "__i3_scratch", "nodes": []}]},
                {"type": "output", "name": "DP-2", "rect": {"x": 1920, "y": 0, "width": 1920, "height": 1080},
                 "nodes": [{"type": "workspace", "name": "1", "nodes": [
                     {"type": "con", "name": "build log", "app_id": "foot", "pid": 42, "visible": true,
                      "rect": {"x": 1920, "y": 0, "width": 960, "height": 1080},
                      "window_rect": {"x": 2, "y": 24, "width": 956, "height": 1054},
                      "nodes": []}
                 ], "floating_nodes": [
                     {"type": "floating_con", "name": "Installer", "app_id": null, "pid": 43, "visible": false,
                      "rect": {"x": 2000, "y": 100, "width": 400, "height": 300},
                      "window_rect": {"x": 0, "y": 0, "width": 400, "height": 300},
                      "nodes": []}
                 ]}]}
            ]
        });
        let windows = windows_of(&tree);
        assert_eq!(windows.len(), 2, "{windows:?}");
        assert_eq!(windows[0].title, "build log");
        assert_eq!(windows[0].app_id, "foot");
        assert_eq!(
            windows[0].content,
            Rect {
                x: 1922,
                y: 24,
                width: 956,
                height: 1054
            }
        );
        assert!(windows[0].visible);
        assert_eq!(windows[0].output, "DP-2");
        assert_eq!(windows[0].output_rect.x, 1920);
        assert_eq!(windows[1].title, "Installer");
        assert!(!windows[1].visible);
    }
}
