//! One HTTP/1.1 request read off a loopback connection: what the test kit's model server and
//! the integration tests' webhook stub both need of the wire, written once.

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// A request as a stand-in server received it.
#[derive(Clone, Debug)]
pub struct HttpRequest {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpRequest {
    /// A header's value, its name matched case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Reads the request line, the headers and a body of `Content-Length` bytes; `None` when the
/// client closed the connection before a whole head arrived.
pub async fn read_request(stream: &mut TcpStream) -> Option<HttpRequest> {
    let mut raw = Vec::new();
    let mut chunk = vec![0u8; 16384];
    let head_end = loop {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        raw.extend_from_slice(&chunk[..read]);
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let (method, path) = (
        request_line.next()?.to_owned(),
        request_line.next()?.to_owned(),
    );
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .collect();
    let mut request = HttpRequest {
        method,
        path,
        headers,
        body: raw[head_end + 4..].to_vec(),
    };
    let length: usize = request
        .header("content-length")
        .and_then(|value| value.parse().ok())
        .unwrap_or(0);
    while request.body.len() < length {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            break;
        }
        request.body.extend_from_slice(&chunk[..read]);
    }
    Some(request)
}
