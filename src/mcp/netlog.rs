//! The network log: one entry per HTTP exchange (POST, GET stream, DELETE)
//! with the JSON-RPC method it carried, status, headers (secrets masked),
//! and timing. Kept beside the frame log in a bounded ring; the TUI's
//! network view and `--trace` read it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use super::change::{ChangeSignal, ChangeWatcher};

/// One HTTP exchange, updated as it progresses.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    pub seq: u64,
    pub server: Arc<str>,
    pub at: SystemTime,
    /// Time since the log was created.
    pub elapsed: Duration,
    /// `POST`, `GET`, `DELETE`.
    pub http_method: &'static str,
    /// The URL, with secret query values masked.
    pub url: String,
    /// What it carried: a JSON-RPC method, `response`, `GET stream`, …
    pub label: String,
    /// Request headers as sent, secrets masked.
    pub request_headers: Vec<(String, String)>,
    /// The response status, once headers arrived.
    pub status: Option<u16>,
    pub response_headers: Vec<(String, String)>,
    /// Time until the response headers.
    pub headers_after: Option<Duration>,
    /// Time until the body or stream ended.
    pub total: Option<Duration>,
    /// Body bytes received so far.
    pub bytes: u64,
    /// SSE events received (for event streams).
    pub events: u64,
    /// Why it failed, if it did (connection refused, TLS, …).
    pub error: Option<String>,
    /// A note: "redirected to …", "resumed with Last-Event-ID …".
    pub note: Option<String>,
}

impl Exchange {
    /// The exchange as text (for the clipboard): secrets stay masked.
    pub fn text(&self) -> String {
        let e = self;
        use crate::mcp::netlog::shown_header;
        use std::fmt::Write;
        let mut t = String::new();
        let _ = writeln!(t, "{} {}", e.http_method, shown_url(&e.url));
        let _ = writeln!(t, "# {} · {}", e.server, e.summary());
        if let Some(n) = &e.note {
            let _ = writeln!(t, "# note: {n}");
        }
        if let Some(err) = &e.error {
            let _ = writeln!(t, "# error: {err}");
        }
        for (name, value) in &e.request_headers {
            let (name, value) = shown_header(name, value);
            let _ = writeln!(t, "{name}: {value}");
        }
        t.push('\n');
        if let Some(status) = e.status {
            let _ = writeln!(t, "HTTP {status}");
        }
        for (name, value) in &e.response_headers {
            let (name, value) = shown_header(name, value);
            let _ = writeln!(t, "{name}: {value}");
        }
        crate::sanitize::strip(&t).into_owned()
    }

    /// Finished (with a status and a total time, or an error).
    pub fn done(&self) -> bool {
        self.total.is_some() || self.error.is_some()
    }

    /// One line for a person: `POST 200 tools/call 12 ms 1.2 KB`.
    pub fn summary(&self) -> String {
        let status = match (self.status, &self.error) {
            (Some(s), _) => s.to_string(),
            (None, Some(_)) => "ERR".into(),
            (None, None) => "…".into(),
        };
        let time = match (self.total, self.headers_after) {
            (Some(t), _) => crate::text::fmt_duration(t),
            (None, Some(h)) => format!("{} (open)", crate::text::fmt_duration(h)),
            (None, None) => "…".into(),
        };
        format!("{} {status} {} {time}", self.http_method, self.label)
    }
}

/// A cheap handle that updates one exchange in the log.
#[derive(Clone)]
pub struct ExchangeHandle {
    log: Arc<NetLog>,
    seq: u64,
    started: Instant,
}

impl ExchangeHandle {
    pub fn update(&self, f: impl FnOnce(&mut Exchange)) {
        self.log.update(self.seq, f);
    }

    pub fn response(&self, status: u16, headers: Vec<(String, String)>) {
        let after = self.started.elapsed();
        self.update(|e| {
            e.status = Some(status);
            e.response_headers = headers;
            e.headers_after = Some(after);
        });
    }

    pub fn add_bytes(&self, n: usize, events: u64) {
        self.update(|e| {
            e.bytes += n as u64;
            e.events += events;
        });
    }

    pub fn finish(&self) {
        let t = self.started.elapsed();
        self.update(|e| {
            if e.total.is_none() {
                e.total = Some(t);
            }
        });
        self.log.tapped(self.seq);
    }

    pub fn fail(&self, error: String) {
        let t = self.started.elapsed();
        self.update(|e| {
            e.error = Some(error);
            e.total = Some(t);
        });
        self.log.tapped(self.seq);
    }

    pub fn note(&self, note: String) {
        self.update(|e| e.note = Some(note));
    }
}

struct Inner {
    entries: VecDeque<Exchange>,
    next_seq: u64,
}

/// A callback for ended exchanges.
pub type NetTap = Box<dyn Fn(&Exchange) + Send + Sync>;

/// The bounded log of exchanges.
pub struct NetLog {
    inner: Mutex<Inner>,
    /// Called with each exchange as it ends (`--trace`).
    tap: std::sync::OnceLock<NetTap>,
    /// Bumped on every change, so a viewer can tell cheaply.
    version: std::sync::atomic::AtomicU64,
    /// Bumped with `version`, so a viewer can sleep until then.
    changed: Arc<ChangeSignal>,
    max: usize,
    start: Instant,
}

impl std::fmt::Debug for NetLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetLog").field("max", &self.max).finish()
    }
}

impl NetLog {
    pub fn new(max: usize) -> Self {
        NetLog {
            inner: Mutex::new(Inner {
                entries: VecDeque::new(),
                next_seq: 0,
            }),
            version: std::sync::atomic::AtomicU64::new(0),
            changed: Arc::new(ChangeSignal::default()),
            tap: std::sync::OnceLock::new(),
            max: max.max(1),
            start: Instant::now(),
        }
    }

    /// Record the start of an exchange.
    pub fn begin(
        self: &Arc<Self>,
        server: &Arc<str>,
        http_method: &'static str,
        url: String,
        label: String,
        request_headers: Vec<(String, String)>,
    ) -> ExchangeHandle {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let seq = inner.next_seq;
        inner.next_seq += 1;
        inner.entries.push_back(Exchange {
            seq,
            server: server.clone(),
            at: SystemTime::now(),
            elapsed: self.start.elapsed(),
            http_method,
            url,
            label,
            request_headers,
            status: None,
            response_headers: Vec::new(),
            headers_after: None,
            total: None,
            bytes: 0,
            events: 0,
            error: None,
            note: None,
        });
        while inner.entries.len() > self.max {
            inner.entries.pop_front();
        }
        self.bump();
        ExchangeHandle {
            log: self.clone(),
            seq,
            started: Instant::now(),
        }
    }

    /// Call `tap` with every exchange as it ends (set once).
    pub fn set_tap(&self, tap: NetTap) {
        let _ = self.tap.set(tap);
    }

    fn tapped(&self, seq: u64) {
        let Some(tap) = self.tap.get() else { return };
        let entry = {
            let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            let first = inner.entries.front().map(|e| e.seq);
            first
                .filter(|f| seq >= *f)
                .and_then(|f| inner.entries.get((seq - f) as usize).cloned())
        };
        if let Some(e) = entry {
            tap(&e);
        }
    }

    fn update(&self, seq: u64, f: impl FnOnce(&mut Exchange)) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let Some(first) = inner.entries.front().map(|e| e.seq) else {
            return;
        };
        if seq < first {
            return; // already dropped from the ring
        }
        if let Some(e) = inner.entries.get_mut((seq - first) as usize) {
            f(e);
            self.bump();
        }
    }

    /// Mark the unfinished exchanges of `server` as ended (streams dropped
    /// when the session closed).
    pub fn finish_open(&self, server: &str, note: &str) {
        let now = self.start.elapsed();
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        for e in inner.entries.iter_mut() {
            if &*e.server == server && !e.done() {
                e.total = Some(now.saturating_sub(e.elapsed));
                e.note = Some(match e.note.take() {
                    Some(n) => format!("{n}; {note}"),
                    None => note.to_string(),
                });
            }
        }
        drop(inner);
        self.bump();
    }

    fn bump(&self) {
        self.version
            .fetch_add(1, std::sync::atomic::Ordering::Release);
        self.changed.bump();
    }

    /// A receiver marked changed whenever an exchange begins or changes.
    pub fn subscribe(&self) -> ChangeWatcher {
        ChangeSignal::watch(&self.changed)
    }

    /// A number that changes whenever an exchange begins or changes.
    pub fn version(&self) -> u64 {
        self.version.load(std::sync::atomic::Ordering::Acquire)
    }

    pub fn snapshot(&self) -> Vec<Exchange> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.entries.iter().cloned().collect()
    }

    /// A number that changes whenever an exchange begins (for redraws).
    pub fn next_seq(&self) -> u64 {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .next_seq
    }

    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entries
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Header names whose values are secrets: never shown or logged.
pub fn is_secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie" | "dpop"
    ) || [
        "token",
        "secret",
        "key",
        "password",
        "passwd",
        "auth",
        "credential",
        "signature",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// A secret header's value as it may be shown: the auth scheme (`Bearer`)
/// when there is one, never any character of the secret itself.
pub fn mask_value(value: &str) -> String {
    let value = value.trim();
    if let Some((scheme, rest)) = value.split_once(' ')
        && !rest.trim().is_empty()
        && scheme.len() <= 16
        && scheme.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
    {
        return format!("{scheme} ••••••");
    }
    "••••••".into()
}

/// A header as it may be shown.
pub fn shown_header(name: &str, value: &str) -> (String, String) {
    // A header by its name, or one that carries a named secret (a
    // `${secret:NAME}` of the config) whatever its name.
    if is_secret_header(name) || crate::mcp::known::holds_known(value) {
        (name.to_string(), mask_value(value))
    } else {
        (name.to_string(), crate::sanitize::one_line(value))
    }
}

/// A URL as it may be shown: user info and the values of query parameters
/// that look like secrets are masked (the rest is kept as written).
pub fn shown_url(url: &str) -> String {
    const MASK: &str = "••••••";
    // A named secret (`${secret:NAME}` in a `url`) wherever it is.
    let url = &*crate::mcp::known::redact(url);
    let Ok(u) = url::Url::parse(url) else {
        // Not a URL: mask everything that could hold a secret (the
        // authority and the query) rather than guess.
        let mut text = url.to_string();
        if let Some(start) = text.find("://").map(|i| i + 3) {
            let end = text[start..]
                .find(['/', '?', '#'])
                .map_or(text.len(), |i| start + i);
            if text[start..end].contains('@') {
                text.replace_range(start..end, MASK);
            }
        }
        if let Some(q) = text.find('?') {
            text.replace_range(q + 1.., MASK);
        }
        return crate::sanitize::one_line(&text);
    };
    let mut text = u.as_str().to_string();
    if !u.username().is_empty() || u.password().is_some() {
        // scheme://user:pw@host… -> scheme://••••••@host…
        if let Some(start) = text.find("://").map(|i| i + 3)
            && let Some(at) = text[start..].find('@').map(|i| start + i)
        {
            text.replace_range(start..at, MASK);
        }
    }
    if let Some(q) = text.find('?') {
        let end = text[q..].find('#').map_or(text.len(), |i| q + i);
        let masked: Vec<String> = text[q + 1..end]
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((k, _)) if is_secret_query(&url_decode(k)) => format!("{k}={MASK}"),
                _ => pair.to_string(),
            })
            .collect();
        text.replace_range(q + 1..end, &masked.join("&"));
    }
    crate::sanitize::one_line(&text)
}

/// A query parameter whose value is a secret: what a secret header is
/// named, and OAuth's one-time and signed values (an authorization code,
/// a PKCE verifier, assertions and ID tokens).
pub fn is_secret_query(name: &str) -> bool {
    is_secret_header(name)
        || matches!(
            name.to_ascii_lowercase().as_str(),
            "code" | "code_verifier" | "assertion" | "client_assertion" | "id_token"
        )
}

fn url_decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("k={s}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oauth_codes_and_verifiers_in_a_query_are_masked() {
        let shown = shown_url(
            "http://127.0.0.1:4000/callback?code=c0de&state=s1&code_verifier=v&client_assertion=eyJ&iss=x",
        );
        assert_eq!(
            shown,
            "http://127.0.0.1:4000/callback?code=••••••&state=s1&code_verifier=••••••&client_assertion=••••••&iss=x"
        );
    }

    #[test]
    fn secrets_are_masked() {
        assert_eq!(
            shown_header("Authorization", "Bearer sk-abc123"),
            ("Authorization".into(), "Bearer ••••••".into())
        );
        assert_eq!(shown_header("X-API-Key", "abc").1, "••••••");
        assert_eq!(shown_header("x-auth-token", "Token abc").1, "Token ••••••");
        assert_eq!(
            shown_header("Accept", "text/event-stream").1,
            "text/event-stream"
        );
        let u = shown_url("https://user:pw@example.com/mcp?api_key=s3cret&x=1");
        assert!(
            !u.contains("s3cret") && !u.contains("pw") && !u.contains("user"),
            "{u}"
        );
        assert!(u.contains("x=1"));
    }

    #[test]
    fn ring_is_bounded_and_updates_find_their_entry() {
        let log = Arc::new(NetLog::new(2));
        let name: Arc<str> = Arc::from("s");
        let a = log.begin(&name, "POST", "u".into(), "a".into(), vec![]);
        let b = log.begin(&name, "POST", "u".into(), "b".into(), vec![]);
        let c = log.begin(&name, "POST", "u".into(), "c".into(), vec![]);
        a.response(200, vec![]); // dropped: no effect
        b.response(404, vec![]);
        c.fail("refused".into());
        let snap = log.snapshot();
        assert_eq!(snap.len(), 2);
        assert_eq!(snap[0].status, Some(404));
        assert_eq!(snap[1].error.as_deref(), Some("refused"));
        assert!(snap[1].done());
    }
}
