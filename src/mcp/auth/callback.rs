//! The loopback redirect listener of a native-app login (RFC 8252 §7.3).
//!
//! [`CallbackListener::bind`] listens on `127.0.0.1` only (a random free
//! port, or the configured `callback_port`), and [`CallbackListener::wait`]
//! serves a tiny hand-written HTTP/1.1 until the authorization server's
//! redirect arrives on `/callback` with the expected `state`:
//!
//! - a `code` ends the wait with a [`Callback`];
//! - an `error` (e.g. `access_denied`) ends it with [`CallbackError::Denied`];
//! - a wrong or missing `state` (a stale tab of an earlier login) is answered
//!   with 400 and the wait goes on; other paths get 404, other methods 405;
//! - each connection is served on its own task with its own time limit, so a
//!   slow or garbage connection never holds up the real redirect.
//!
//! Neither the pages nor the errors ever contain the code.

use std::fmt;
use std::io;
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// The path the redirect URI names.
const CALLBACK_PATH: &str = "/callback";
/// The most a request head may take.
const MAX_HEAD: usize = 16 * 1024;
/// How long one connection may take to send its request head.
const HEAD_LIMIT: Duration = Duration::from_secs(10);
/// How long writing a page may take.
const WRITE_LIMIT: Duration = Duration::from_secs(5);
/// Connections served at once; more are dropped at once.
const MAX_CONNECTIONS: usize = 64;
/// Accept errors in a row before giving up.
const MAX_ACCEPT_ERRORS: u32 = 100;
/// The longest error or description from the server kept in a message.
const MAX_SERVER_TEXT: usize = 300;

/// What the redirect brought back.
#[derive(Clone, PartialEq, Eq)]
pub struct Callback {
    /// The authorization code (a secret: `Debug` prints `***`).
    pub code: String,
    /// The `iss` parameter (RFC 9207), when the server sent one.
    pub iss: Option<String>,
}

impl fmt::Debug for Callback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Callback")
            .field("code", &format_args!("***"))
            .field("iss", &self.iss)
            .finish()
    }
}

/// Why no code came back.
#[derive(Debug, thiserror::Error)]
pub enum CallbackError {
    /// The listening socket could not be opened.
    #[error("cannot listen on 127.0.0.1:{port} for the login redirect: {source}{hint}")]
    Bind {
        port: u16,
        hint: String,
        #[source]
        source: io::Error,
    },
    /// The authorization server redirected back with an `error`.
    #[error("the authorization server refused the login: {error}{}", describe(.description))]
    Denied {
        error: String,
        description: Option<String>,
    },
    /// Nothing came back in time.
    #[error("no login came back within {}", show_duration(*.0))]
    Timeout(Duration),
    /// The login was cancelled.
    #[error("the login was cancelled")]
    Cancelled,
    /// The listening socket failed.
    #[error("the login redirect listener failed: {0}")]
    Io(#[from] io::Error),
}

fn describe(description: &Option<String>) -> String {
    match description {
        Some(d) if !d.is_empty() => format!(" ({d})"),
        _ => String::new(),
    }
}

fn show_duration(d: Duration) -> String {
    let secs = d.as_secs();
    if secs == 0 {
        format!("{} ms", d.as_millis())
    } else if secs.is_multiple_of(60) {
        format!("{} min", secs / 60)
    } else {
        format!("{secs} s")
    }
}

/// A listener on `127.0.0.1` waiting for the login redirect.
#[derive(Debug)]
pub struct CallbackListener {
    listener: TcpListener,
    port: u16,
}

impl CallbackListener {
    /// Bind `127.0.0.1` only: port 0 (a random free port) when `None`, else
    /// that port (an error naming the port and `callback_port` when it is
    /// taken).
    pub async fn bind(port: Option<u16>) -> Result<CallbackListener, CallbackError> {
        let wanted = port.unwrap_or(0);
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, wanted))
            .await
            .map_err(|source| {
                let hint = match (port, source.kind()) {
                    (Some(_), io::ErrorKind::AddrInUse) => " (the port is taken: choose another \
                         `callback_port`, or remove the setting to use a free port)"
                        .to_string(),
                    (Some(_), _) => " (check the `callback_port` setting)".to_string(),
                    (None, _) => String::new(),
                };
                CallbackError::Bind {
                    port: wanted,
                    hint,
                    source,
                }
            })?;
        let port = listener.local_addr()?.port();
        Ok(CallbackListener { listener, port })
    }

    /// The redirect URI: `http://127.0.0.1:<port>/callback`.
    pub fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK_PATH}", self.port)
    }

    /// The port listened on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serve until a request on `/callback` carries `state`: with a `code`
    /// it is the [`Callback`], with an `error` it is
    /// [`CallbackError::Denied`]. Requests with a wrong or missing `state`,
    /// on other paths or with other methods are answered (400, 404, 405)
    /// and the wait goes on. Ends with [`CallbackError::Timeout`] after
    /// `limit` and [`CallbackError::Cancelled`] when `cancel` resolves
    /// first. The listener is closed when this returns.
    pub async fn wait(
        self,
        state: &str,
        limit: Duration,
        cancel: impl Future<Output = ()>,
    ) -> Result<Callback, CallbackError> {
        let state: Arc<str> = Arc::from(state);
        let (tx, mut rx) = mpsc::channel::<Result<Callback, CallbackError>>(1);
        // Dropping the set when this returns aborts the connections still
        // being served.
        let mut conns = JoinSet::new();
        let deadline = tokio::time::sleep(limit);
        tokio::pin!(deadline);
        tokio::pin!(cancel);
        let mut accept_errors = 0u32;
        loop {
            tokio::select! {
                biased;
                () = &mut cancel => return Err(CallbackError::Cancelled),
                Some(outcome) = rx.recv() => return outcome,
                () = &mut deadline => return Err(CallbackError::Timeout(limit)),
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        accept_errors = 0;
                        while conns.try_join_next().is_some() {}
                        if conns.len() >= MAX_CONNECTIONS {
                            tracing::debug!(%peer, "login redirect listener: too many connections, one dropped");
                            continue;
                        }
                        conns.spawn(serve(stream, Arc::clone(&state), tx.clone()));
                    }
                    Err(e) => {
                        accept_errors += 1;
                        if accept_errors >= MAX_ACCEPT_ERRORS {
                            return Err(CallbackError::Io(e));
                        }
                        tracing::debug!(error = %e, "login redirect listener: accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                },
            }
        }
    }
}

/// Serve one connection: read its head, answer it, and report a final
/// outcome (a code or a refusal with the right state) through `tx`.
async fn serve(
    mut stream: TcpStream,
    state: Arc<str>,
    tx: mpsc::Sender<Result<Callback, CallbackError>>,
) {
    let head = match tokio::time::timeout(HEAD_LIMIT, read_head(&mut stream)).await {
        Ok(Some(head)) => head,
        // Too slow, too big, or closed: drop the connection.
        Ok(None) | Err(_) => return,
    };
    let (reply, outcome) = answer(&head, &state);
    let written = tokio::time::timeout(WRITE_LIMIT, async {
        stream.write_all(reply.to_bytes().as_slice()).await?;
        stream.flush().await?;
        stream.shutdown().await
    })
    .await;
    if !matches!(written, Ok(Ok(()))) {
        tracing::debug!("login redirect listener: the page could not be written");
    }
    if let Some(outcome) = outcome {
        // The receiver is gone only when the wait is already over.
        let _ = tx.send(outcome).await;
    }
}

/// Read up to the end of the request head; `None` when the peer closes
/// first, fails, or sends more than [`MAX_HEAD`].
async fn read_head(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = head_end(&buf) {
            buf.truncate(end);
            return Some(buf);
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
    }
}

/// Where the head ends (after its blank line), if it has.
fn head_end(buf: &[u8]) -> Option<usize> {
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A page to send back.
#[derive(Debug, PartialEq, Eq)]
struct Reply {
    status: u16,
    reason: &'static str,
    body: String,
}

impl Reply {
    fn new(status: u16, reason: &'static str, title: &str, message: &str) -> Reply {
        let body = format!(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{t}</title></head>\
             <body style=\"font-family: sans-serif; margin: 3em\"><h1>{t}</h1><p>{m}</p></body></html>\n",
            t = escape_html(title),
            m = escape_html(message),
        );
        Reply {
            status,
            reason,
            body,
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut head = format!(
            "HTTP/1.1 {} {}\r\n\
             Content-Type: text/html; charset=utf-8\r\n\
             Content-Length: {}\r\n\
             Cache-Control: no-store\r\n\
             Referrer-Policy: no-referrer\r\n\
             X-Content-Type-Options: nosniff\r\n\
             Connection: close\r\n",
            self.status,
            self.reason,
            self.body.len()
        );
        if self.status == 405 {
            head.push_str("Allow: GET\r\n");
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(self.body.as_bytes());
        bytes
    }
}

fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Text from the server made fit for a message: one line, not too long.
fn server_text(s: &str) -> String {
    let line = crate::sanitize::one_line(s);
    if line.chars().count() > MAX_SERVER_TEXT {
        let mut cut: String = line.chars().take(MAX_SERVER_TEXT).collect();
        cut.push('…');
        cut
    } else {
        line
    }
}

fn bad_request() -> Reply {
    Reply::new(
        400,
        "Bad Request",
        "mcpdeck: bad request",
        "This is mcpdeck's login listener; it did not understand this request.",
    )
}

/// The reply to a request head, and the outcome of the wait when the
/// request ends it.
fn answer(head: &[u8], state: &str) -> (Reply, Option<Result<Callback, CallbackError>>) {
    let Ok(head) = std::str::from_utf8(head) else {
        return (bad_request(), None);
    };
    let line = head.lines().next().unwrap_or_default();
    let mut parts = line.split_ascii_whitespace();
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return (bad_request(), None);
    };
    if !version.starts_with("HTTP/1.") {
        return (bad_request(), None);
    }
    // The absolute form (`http://127.0.0.1:port/callback?…`) as well as the
    // usual origin form.
    let target = match target.strip_prefix("http://") {
        Some(rest) => match rest.find('/') {
            Some(i) => &rest[i..],
            None => "/",
        },
        None => target,
    };
    let target = target.split('#').next().unwrap_or_default();
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p, q),
        None => (target, ""),
    };
    if path != CALLBACK_PATH {
        return (
            Reply::new(
                404,
                "Not Found",
                "mcpdeck: not found",
                "This is mcpdeck's login listener; nothing is here.",
            ),
            None,
        );
    }
    if method != "GET" {
        return (
            Reply::new(
                405,
                "Method Not Allowed",
                "mcpdeck: method not allowed",
                "This is mcpdeck's login listener; it only takes the login redirect (GET).",
            ),
            None,
        );
    }

    let mut code = None;
    let mut got_state = None;
    let mut error = None;
    let mut description = None;
    let mut iss = None;
    let mut repeated = false;
    for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
        let slot = match k.as_ref() {
            "code" => &mut code,
            "state" => &mut got_state,
            "error" => &mut error,
            "error_description" => &mut description,
            "iss" => &mut iss,
            _ => continue,
        };
        if slot.is_some() {
            repeated = true;
        }
        *slot = Some(v.into_owned());
    }

    let stale = || {
        Reply::new(
            400,
            "Bad Request",
            "mcpdeck: stale login link",
            "This login link is stale; start again from mcpdeck.",
        )
    };
    if got_state.as_deref() != Some(state) {
        return (stale(), None);
    }
    if repeated {
        // RFC 6749 §3.1: no parameter may be sent twice.
        return (bad_request(), None);
    }
    if let Some(error) = error {
        let error = server_text(&error);
        let description = description
            .map(|d| server_text(&d))
            .filter(|d| !d.is_empty());
        let message = match &description {
            Some(d) => format!(
                "The authorization server refused the login ({error}: {d}). You can close this tab."
            ),
            None => format!(
                "The authorization server refused the login ({error}). You can close this tab."
            ),
        };
        return (
            Reply::new(200, "OK", "mcpdeck: login refused", &message),
            Some(Err(CallbackError::Denied { error, description })),
        );
    }
    match code {
        Some(code) if !code.is_empty() => (
            Reply::new(
                200,
                "OK",
                "mcpdeck: logged in",
                "Logged in to mcpdeck. You can close this tab.",
            ),
            Some(Ok(Callback { code, iss })),
        ),
        _ => (
            Reply::new(
                400,
                "Bad Request",
                "mcpdeck: no code",
                "The redirect carries neither a code nor an error; start again from mcpdeck.",
            ),
            None,
        ),
    }
}

#[cfg(test)]
impl CallbackListener {
    /// The address actually listened on.
    fn local_addr(&self) -> io::Result<std::net::SocketAddr> {
        self.listener.local_addr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Send `request` and read the whole reply.
    async fn send(port: u16, request: &str) -> String {
        let mut s = TcpStream::connect((Ipv4Addr::LOCALHOST, port))
            .await
            .expect("connect");
        s.write_all(request.as_bytes()).await.expect("write");
        let mut out = String::new();
        s.read_to_string(&mut out).await.expect("read");
        out
    }

    async fn get(port: u16, target: &str) -> String {
        send(
            port,
            &format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"),
        )
        .await
    }

    fn status(reply: &str) -> u16 {
        reply
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }

    fn never() -> impl Future<Output = ()> {
        std::future::pending()
    }

    const LIMIT: Duration = Duration::from_secs(20);

    #[tokio::test]
    async fn binds_loopback_only() {
        let l = CallbackListener::bind(None).await.expect("bind");
        let addr = l.local_addr().expect("addr");
        assert_eq!(addr.ip(), std::net::IpAddr::V4(Ipv4Addr::LOCALHOST));
        assert_ne!(l.port(), 0);
        assert_eq!(addr.port(), l.port());
        assert_eq!(
            l.redirect_uri(),
            format!("http://127.0.0.1:{}/callback", l.port())
        );
    }

    #[tokio::test]
    async fn code_comes_back() {
        let l = CallbackListener::bind(None).await.expect("bind");
        let port = l.port();
        let waiting = tokio::spawn(async move { l.wait("s1", LIMIT, never()).await });
        let reply = get(
            port,
            "/callback?code=abc&state=s1&iss=https%3A%2F%2Fas.example",
        )
        .await;
        assert_eq!(status(&reply), 200, "{reply}");
        assert!(reply.contains("Content-Type: text/html; charset=utf-8"));
        assert!(reply.contains("Connection: close"));
        assert!(reply.contains("Logged in to mcpdeck. You can close this tab."));
        assert!(!reply.contains("abc"));
        let cb = waiting.await.expect("join").expect("callback");
        assert_eq!(cb.code, "abc");
        assert_eq!(cb.iss.as_deref(), Some("https://as.example"));
        assert_eq!(
            format!("{cb:?}"),
            "Callback { code: ***, iss: Some(\"https://as.example\") }"
        );
    }

    #[tokio::test]
    async fn query_is_form_decoded() {
        let l = CallbackListener::bind(None).await.expect("bind");
        let port = l.port();
        let waiting = tokio::spawn(async move { l.wait("a b/c", LIMIT, never()).await });
        let reply = get(port, "/callback?state=a+b%2Fc&code=x%2By+z").await;
        assert_eq!(status(&reply), 200, "{reply}");
        let cb = waiting.await.expect("join").expect("callback");
        assert_eq!(cb.code, "x+y z");
        assert_eq!(cb.iss, None);
    }

    #[tokio::test]
    async fn stale_state_keeps_waiting() {
        let l = CallbackListener::bind(None).await.expect("bind");
        let port = l.port();
        let waiting = tokio::spawn(async move { l.wait("s1", LIMIT, never()).await });
        let stale = get(port, "/callback?code=old&state=s0").await;
        assert_eq!(status(&stale), 400, "{stale}");
        assert!(stale.contains("stale"));
        assert!(!stale.contains("old"));
        let missing = get(port, "/callback?code=old").await;
        assert_eq!(status(&missing), 400, "{missing}");
        let good = get(port, "/callback?code=new&state=s1").await;
        assert_eq!(status(&good), 200, "{good}");
        let cb = waiting.await.expect("join").expect("callback");
        assert_eq!(cb.code, "new");
    }

    #[tokio::test]
    async fn refusal_ends_the_wait() {
        let l = CallbackListener::bind(None).await.expect("bind");
        let port = l.port();
        let waiting = tokio::spawn(async move { l.wait("s1", LIMIT, never()).await });
        let reply = get(
            port,
            "/callback?error=access_denied&error_description=the+user+said+no&state=s1",
        )
        .await;
        assert_eq!(status(&reply), 200, "{reply}");
        assert!(reply.contains("refused"));
        match waiting.await.expect("join") {
            Err(CallbackError::Denied { error, description }) => {
                assert_eq!(error, "access_denied");
                assert_eq!(description.as_deref(), Some("the user said no"));
            }
            other => panic!("expected Denied, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn refusal_with_a_wrong_state_is_stale() {
        let l = CallbackListener::bind(None).await.expect("bind");
        let port = l.port();
        let waiting = tokio::spawn(async move { l.wait("s1", LIMIT, never()).await });
        let reply = get(port, "/callback?error=access_denied&state=nope").await;
        assert_eq!(status(&reply), 400, "{reply}");
        let good = get(port, "/callback?code=c&state=s1").await;
        assert_eq!(status(&good), 200, "{good}");
        assert!(waiting.await.expect("join").is_ok());
    }

    #[tokio::test]
    async fn other_paths_and_methods_keep_waiting() {
        let l = CallbackListener::bind(None).await.expect("bind");
        let port = l.port();
        let waiting = tokio::spawn(async move { l.wait("s1", LIMIT, never()).await });
        assert_eq!(status(&get(port, "/favicon.ico").await), 404);
        assert_eq!(status(&get(port, "/").await), 404);
        assert_eq!(status(&get(port, "/callback/x?code=c&state=s1").await), 404);
        let post = send(
            port,
            "POST /callback?code=c&state=s1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
        )
        .await;
        assert_eq!(status(&post), 405, "{post}");
        assert!(post.contains("Allow: GET"));
        let good = get(port, "/callback?code=c&state=s1").await;
        assert_eq!(status(&good), 200, "{good}");
        assert_eq!(waiting.await.expect("join").expect("callback").code, "c");
    }

    #[tokio::test]
    async fn times_out() {
        let l = CallbackListener::bind(None).await.expect("bind");
        let limit = Duration::from_millis(100);
        match l.wait("s1", limit, never()).await {
            Err(CallbackError::Timeout(d)) => assert_eq!(d, limit),
            other => panic!("expected Timeout, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn cancels() {
        let l = CallbackListener::bind(None).await.expect("bind");
        let notify = Arc::new(tokio::sync::Notify::new());
        let n = Arc::clone(&notify);
        let waiting = tokio::spawn(async move { l.wait("s1", LIMIT, n.notified()).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        notify.notify_waiters();
        notify.notify_one();
        match waiting.await.expect("join") {
            Err(CallbackError::Cancelled) => {}
            other => panic!("expected Cancelled, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn slow_and_garbage_connections_do_not_block() {
        let l = CallbackListener::bind(None).await.expect("bind");
        let port = l.port();
        let waiting = tokio::spawn(async move { l.wait("s1", LIMIT, never()).await });
        // A connection that sends half a head and then nothing.
        let mut slow = TcpStream::connect((Ipv4Addr::LOCALHOST, port))
            .await
            .expect("connect");
        slow.write_all(b"GET /callback?code=x")
            .await
            .expect("write");
        // One that sends nothing at all.
        let _silent = TcpStream::connect((Ipv4Addr::LOCALHOST, port))
            .await
            .expect("connect");
        // Garbage with a complete head.
        let garbage = send(port, "\x16\x03\x01 nonsense\r\n\r\n").await;
        assert_eq!(status(&garbage), 400, "{garbage}");
        // Too much: the connection is dropped.
        let mut big = TcpStream::connect((Ipv4Addr::LOCALHOST, port))
            .await
            .expect("connect");
        let junk = vec![b'a'; MAX_HEAD + 4096];
        let _ = big.write_all(&junk).await;
        let mut sink = Vec::new();
        let _ = big.read_to_end(&mut sink).await;
        assert!(sink.is_empty());

        let started = std::time::Instant::now();
        let good = get(port, "/callback?code=c&state=s1").await;
        assert_eq!(status(&good), 200, "{good}");
        let cb = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("not blocked")
            .expect("join")
            .expect("callback");
        assert_eq!(cb.code, "c");
        assert!(started.elapsed() < HEAD_LIMIT);
    }

    #[tokio::test]
    async fn taken_port_names_the_port() {
        let first = CallbackListener::bind(None).await.expect("bind");
        let port = first.port();
        match CallbackListener::bind(Some(port)).await {
            Err(e @ CallbackError::Bind { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains(&port.to_string()), "{msg}");
                assert!(msg.contains("callback_port"), "{msg}");
            }
            other => panic!("expected Bind, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn fixed_port_is_used() {
        // Find a free port, release it, and ask for it.
        let port = {
            let probe = CallbackListener::bind(None).await.expect("bind");
            probe.port()
        };
        let l = CallbackListener::bind(Some(port)).await.expect("bind");
        assert_eq!(l.port(), port);
        assert_eq!(
            l.redirect_uri(),
            format!("http://127.0.0.1:{port}/callback")
        );
    }

    #[test]
    fn messages_never_carry_the_code() {
        let (reply, outcome) = answer(
            b"GET /callback?code=SECRETCODE&state=s HTTP/1.1\r\n\r\n",
            "s",
        );
        let page = String::from_utf8(reply.to_bytes()).expect("utf-8");
        assert!(!page.contains("SECRETCODE"));
        let cb = outcome.expect("outcome").expect("callback");
        assert!(!format!("{cb:?}").contains("SECRETCODE"));
    }

    #[test]
    fn server_text_is_escaped_in_pages_and_cleaned_in_errors() {
        let (reply, outcome) = answer(
            b"GET /callback?error=x%3Cscript%3E&error_description=a%1B%5B31mb&state=s HTTP/1.1\r\n\r\n",
            "s",
        );
        assert!(!reply.body.contains("<script>"));
        assert!(reply.body.contains("x&lt;script&gt;"));
        match outcome {
            Some(Err(e @ CallbackError::Denied { .. })) => {
                assert!(!e.to_string().contains('\u{1b}'), "{e}");
            }
            other => panic!("expected Denied, got {other:?}"),
        }
    }

    #[test]
    fn absolute_form_and_repeated_parameters() {
        let (reply, outcome) = answer(
            b"GET http://127.0.0.1:1/callback?code=c&state=s HTTP/1.1\r\n\r\n",
            "s",
        );
        assert_eq!(reply.status, 200);
        assert!(matches!(outcome, Some(Ok(_))));
        let (reply, outcome) = answer(b"GET /callback?code=c&code=d&state=s HTTP/1.1\r\n\r\n", "s");
        assert_eq!(reply.status, 400);
        assert!(outcome.is_none());
        let (reply, outcome) = answer(b"GET /callback?state=s HTTP/1.1\r\n\r\n", "s");
        assert_eq!(reply.status, 400);
        assert!(outcome.is_none());
    }

    #[test]
    fn errors_read_well() {
        let e = CallbackError::Denied {
            error: "access_denied".into(),
            description: Some("no".into()),
        };
        assert_eq!(
            e.to_string(),
            "the authorization server refused the login: access_denied (no)"
        );
        assert_eq!(
            CallbackError::Timeout(Duration::from_secs(300)).to_string(),
            "no login came back within 5 min"
        );
    }
}
