//! Recordings: every frame of a session as JSON Lines (`--record FILE`,
//! the TUI's record key and its log's save), read back by `open`,
//! `replay`, `stats` (and `diff`).
//!
//! The format (version 1), one JSON object a line:
//! - line 1, the header: `{"mcpdeck_recording": 1, "version": "<mcpdeck>",
//!   "started": "<RFC 3339>", "servers": [{"name", "transport", "command",
//!   "args"} | {"name", "transport", "url"}]}` — URLs masked, no env values,
//!   no header values, arguments after a secret-looking flag masked;
//! - a frame: `{"t": <seconds since the recording started>, "ts": "<RFC
//!   3339 wall time>", "server": "<name>", "dir": "send"|"recv", "frame":
//!   <the JSON-RPC message>}` (`"raw": "<text>"` instead of `frame` when
//!   the text is not JSON);
//! - an HTTP exchange as it ended: `{"t", "ts", "server", "dir": "http",
//!   "http": {"method", "url", "label", "status", "error", "request_headers",
//!   "response_headers"}}` — the URL and secret headers masked as in the
//!   network view;
//! - servers that joined after the header: `{"mcpdeck_servers": [...]}`.
//!
//! Frames are the protocol and are kept as sent: mcpdeck does not alter
//! what a server or a person wrote. The secrets mcpdeck itself holds (the
//! config's header values, env values, OAuth tokens, which travel in HTTP
//! headers) never reach the file.
//!
//! Writing goes through a [`LineWriter`]: a tap formats the line and
//! queues it; its own thread writes the file. A full queue drops lines
//! (counted in the file); a failing disk is one warning.

pub mod histogram;
pub mod replay;
pub mod stats;

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Instant, SystemTime};

use serde_json::{Value, json};

use crate::config::{ServerConfig, TransportConfig};
use crate::mcp::framelog::{Direction, Frame};
use crate::mcp::netlog::{Exchange, shown_header, shown_url};
use crate::startup::LineWriter;

/// The format version this mcpdeck writes and reads.
pub const FORMAT: u64 = 1;
/// The header's key that marks a recording.
pub const MARK: &str = "mcpdeck_recording";

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn rfc3339_millis(t: SystemTime) -> String {
    let base = crate::trust::pin::rfc3339(t);
    let millis = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_millis());
    format!("{}.{millis:03}Z", base.trim_end_matches('Z'))
}

/// A server as the header shows it: no env values, no header values,
/// the URL masked.
pub fn server_entry(s: &ServerConfig) -> Value {
    let mut entry = match &s.transport {
        TransportConfig::Stdio { command, args, .. } => json!({
            "name": s.name,
            "transport": "stdio",
            "command": command,
            "args": masked_args(args),
        }),
        TransportConfig::Http { url, .. } => json!({
            "name": s.name,
            "transport": "http",
            "url": shown_url(url),
        }),
    };
    // The config excerpt that shapes the session (never a secret).
    let protocol = match &s.protocol {
        crate::config::ProtocolPin::Auto | crate::config::ProtocolPin::InitializeFirst => {
            "auto".to_string()
        }
        crate::config::ProtocolPin::Stateless => "stateless".to_string(),
        crate::config::ProtocolPin::Initialize => "initialize".to_string(),
        crate::config::ProtocolPin::Version(v) => v.clone(),
    };
    if let Value::Object(m) = &mut entry {
        m.insert("protocol".into(), json!(protocol));
        if let Some(t) = s.timeout {
            m.insert("timeout_s".into(), json!(t.as_secs_f64()));
        }
        if !s.deny_tools.is_empty() {
            m.insert("deny_tools".into(), json!(s.deny_tools));
        }
    }
    entry
}

/// Command arguments with what looks secret masked: the values of
/// secret-looking flags (`--token X`, `--api-key=X`), `NAME=value` pairs
/// with a secret-looking name (`-e GITHUB_TOKEN=X`), secret headers given
/// as arguments (`--header "Authorization: Bearer X"`), and URLs' user
/// info and secret query values.
pub fn masked_args(args: &[String]) -> Vec<String> {
    use crate::mcp::netlog::{is_secret_header, mask_value, shown_url};
    const MASK: &str = "••••••";
    let secret_flag = |flag: &str| {
        let name = flag.trim_start_matches('-');
        flag.starts_with('-') && is_secret_header(name)
    };
    let header_flag = |flag: &str| matches!(flag, "--header" | "-H" | "--headers");
    let mut out = Vec::with_capacity(args.len());
    let mut mask_next = false;
    let mut header_next = false;
    for a in args {
        if mask_next {
            out.push(MASK.to_string());
            mask_next = false;
        } else if header_next && let Some((name, value)) = a.split_once(':') {
            header_next = false;
            if is_secret_header(name.trim()) {
                out.push(format!("{name}: {}", mask_value(value)));
            } else {
                out.push(a.clone());
            }
        } else if let Some((name, _)) = a.split_once('=')
            && (secret_flag(name) || (!name.starts_with('-') && is_secret_header(name)))
        {
            header_next = false;
            out.push(format!("{name}={MASK}"));
        } else if a.contains("://") {
            header_next = false;
            out.push(shown_url(a));
        } else {
            header_next = header_flag(a);
            mask_next = secret_flag(a);
            out.push(a.clone());
        }
    }
    out
}

/// The header line.
pub fn header(servers: &[Value], started: SystemTime) -> Value {
    json!({
        MARK: FORMAT,
        "version": env!("CARGO_PKG_VERSION"),
        "started": rfc3339_millis(started),
        "servers": servers,
    })
}

/// One frame as a line (with its newline). `t` is seconds since the
/// recording started.
pub fn frame_line(t: f64, at: SystemTime, server: &str, dir: Direction, raw: &str) -> Vec<u8> {
    frame_line_of(t, at, server, dir, raw, false)
}

/// [`frame_line`] for a frame whose text is `known_json` (the session
/// parsed or made it: not checked again).
pub fn frame_line_of(
    t: f64,
    at: SystemTime,
    server: &str,
    dir: Direction,
    raw: &str,
    known_json: bool,
) -> Vec<u8> {
    let mut line = Vec::new();
    push_frame_line(&mut line, t, at, &json_string(server), dir, raw, known_json);
    line
}

/// `s` as a JSON string, quotes included.
fn json_string(s: &str) -> Vec<u8> {
    serde_json::to_vec(s).unwrap_or_else(|_| b"\"?\"".to_vec())
}

/// [`frame_line_of`] appended to `line`, the server's name given already
/// as a JSON string (a recorder keeps it from frame to frame).
fn push_frame_line(
    line: &mut Vec<u8>,
    t: f64,
    at: SystemTime,
    server_json: &[u8],
    dir: Direction,
    raw: &str,
    known_json: bool,
) {
    // Written once into the buffer, without the formatting machinery: this
    // runs on the runtime's thread for every frame while recording (see
    // benches/core.rs, which counts its instructions).
    let sent = dir == Direction::Out;
    let trimmed = raw.trim();
    line.reserve(trimmed.len() + 96 + server_json.len());
    // `{"t":S.UUUUUU,"ts":"YYYY-MM-DDTHH:MM:SS.mmmZ","server":`, made on
    // the stack and added in one go.
    let mut head = [0u8; 96];
    let mut n = 0;
    let mut put = |bytes: &[u8]| {
        head[n..n + bytes.len()].copy_from_slice(bytes);
        n += bytes.len();
    };
    put(b"{\"t\":");
    // `t` with 6 decimals, from integers.
    let micros = (t.max(0.0) * 1e6).round() as u64;
    let mut digits = [0u8; 20];
    put(decimal(&mut digits, micros / 1_000_000, 1));
    put(b".");
    put(decimal(&mut digits, micros % 1_000_000, 6));
    put(b",\"ts\":\"");
    let mut ts = [0u8; 40];
    put(rfc3339_millis_into(&mut ts, at));
    put(b"\",\"server\":");
    line.extend_from_slice(&head[..n]);
    line.extend_from_slice(server_json);
    line.extend_from_slice(if sent {
        b",\"dir\":\"send\","
    } else {
        b",\"dir\":\"recv\","
    });
    let bytes = trimmed.as_bytes();
    let one_line = memchr::memchr2(b'\n', b'\r', bytes).is_none();
    // What mcpdeck sends is its own serde output: JSON on one line, not
    // checked again. What it receives is whatever the server wrote.
    let valid = ((known_json || sent) && trimmed.starts_with(['{', '[']))
        || serde_json::from_str::<&serde_json::value::RawValue>(trimmed).is_ok();
    match valid.then_some(()).ok_or(()) {
        // Valid JSON on one line goes in as it is (no re-encoding).
        Ok(()) if one_line => {
            line.extend_from_slice(b"\"frame\":");
            line.extend_from_slice(bytes);
        }
        Ok(()) => match serde_json::from_str::<Value>(trimmed) {
            Ok(v) => {
                line.extend_from_slice(b"\"frame\":");
                let _ = serde_json::to_writer(&mut *line, &v);
            }
            Err(_) => {
                line.extend_from_slice(b"\"raw\":");
                let _ = serde_json::to_writer(&mut *line, raw);
            }
        },
        Err(_) => {
            line.extend_from_slice(b"\"raw\":");
            let _ = serde_json::to_writer(&mut *line, raw);
        }
    }
    line.extend_from_slice(b"}\n");
}

/// `n` in decimal, at least `width` digits (zeros in front), written at
/// the end of `digits`.
fn decimal(digits: &mut [u8; 20], n: u64, width: usize) -> &[u8] {
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    while digits.len() - i < width.min(digits.len()) {
        i -= 1;
        digits[i] = b'0';
    }
    &digits[i..]
}

/// [`rfc3339_millis`] written into `buf`, the date and time worked out
/// once a second (a thread's last second is kept).
fn rfc3339_millis_into(buf: &mut [u8; 40], t: SystemTime) -> &[u8] {
    use std::cell::Cell;
    thread_local! {
        static LAST: Cell<(u64, [u8; 19])> = const { Cell::new((u64::MAX, [0; 19])) };
    }
    let since = t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let (secs, millis) = (since.as_secs(), since.subsec_millis());
    let (kept, mut date) = LAST.get();
    if kept != secs {
        let (y, mo, d, h, mi, s) = crate::text::civil_utc(secs);
        let text = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}");
        match <[u8; 19]>::try_from(text.as_bytes()) {
            Ok(bytes) => {
                date = bytes;
                LAST.set((secs, bytes));
            }
            Err(_) => {
                // A year past 9999: written out, not kept.
                let text = format!("{text}.{millis:03}Z");
                let n = text.len().min(buf.len());
                buf[..n].copy_from_slice(&text.as_bytes()[..n]);
                return &buf[..n];
            }
        }
    }
    buf[..19].copy_from_slice(&date);
    buf[19..24].copy_from_slice(&[
        b'.',
        b'0' + (millis / 100) as u8,
        b'0' + (millis / 10 % 10) as u8,
        b'0' + (millis % 10) as u8,
        b'Z',
    ]);
    &buf[..24]
}

/// One ended HTTP exchange as a line: URL and secret headers masked, and
/// the session id too (a file travels further than a screen, and a live
/// session id lets whoever holds it talk in that session).
pub fn exchange_line(t: f64, e: &Exchange) -> Vec<u8> {
    let headers = |h: &[(String, String)]| -> Value {
        Value::Array(
            h.iter()
                .map(|(k, v)| {
                    if k.eq_ignore_ascii_case("mcp-session-id") {
                        return json!([k, crate::mcp::netlog::mask_value(v)]);
                    }
                    let (k, v) = shown_header(k, v);
                    json!([k, v])
                })
                .collect(),
        )
    };
    let line = json!({
        "t": (t * 1e6).round() / 1e6,
        "ts": rfc3339_millis(e.at),
        "server": &*e.server,
        "dir": "http",
        "http": {
            "method": e.http_method,
            "url": shown_url(&e.url),
            "label": e.label,
            "status": e.status,
            "error": e.error,
            "bytes": e.bytes,
            "request_headers": headers(&e.request_headers),
            "response_headers": headers(&e.response_headers),
        }
    });
    let mut bytes = line.to_string().into_bytes();
    bytes.push(b'\n');
    bytes
}

/// The recording in progress (one per process): the frame log's taps
/// hand it every frame while it is on.
pub struct Recorder {
    active: AtomicBool,
    failed: Arc<AtomicBool>,
    sink: Mutex<Option<Sink>>,
}

struct Sink {
    path: PathBuf,
    out: Arc<LineWriter>,
    start: Instant,
    started: SystemTime,
    /// The servers named so far; `None` until the header is written.
    servers: Option<Vec<String>>,
    /// The last frame's server, and its name as a JSON string.
    last_server: Option<(Arc<str>, Vec<u8>)>,
}

impl Sink {
    fn attach(&mut self, servers: &[ServerConfig]) {
        let line = match &mut self.servers {
            None => {
                let entries: Vec<Value> = servers.iter().map(server_entry).collect();
                self.servers = Some(servers.iter().map(|c| c.name.clone()).collect());
                header(&entries, self.started)
            }
            Some(named) => {
                let new: Vec<&ServerConfig> = servers
                    .iter()
                    .filter(|c| !named.contains(&c.name))
                    .collect();
                if new.is_empty() {
                    return;
                }
                named.extend(new.iter().map(|c| c.name.clone()));
                json!({ "mcpdeck_servers": new.into_iter().map(server_entry).collect::<Vec<_>>() })
            }
        };
        let mut bytes = line.to_string().into_bytes();
        bytes.push(b'\n');
        self.out.write(bytes);
    }
}

static RECORDER: OnceLock<Recorder> = OnceLock::new();
/// Set by the TUI: a write error is not printed on the screen.
static QUIET: AtomicBool = AtomicBool::new(false);

impl Recorder {
    /// The process's recorder (off until [`Recorder::start`]).
    pub fn global() -> &'static Recorder {
        RECORDER.get_or_init(|| Recorder {
            active: AtomicBool::new(false),
            failed: Arc::new(AtomicBool::new(false)),
            sink: Mutex::new(None),
        })
    }

    /// The recorder if it is recording (cheap: one atomic load).
    pub fn current() -> Option<&'static Recorder> {
        RECORDER.get().filter(|r| r.active.load(Ordering::Relaxed))
    }

    /// Keep write errors off stderr (the TUI owns the screen).
    pub fn quiet_stderr() {
        QUIET.store(true, Ordering::Relaxed);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Sink>> {
        self.sink.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Start recording to `path` (created or emptied). If already
    /// recording to `path`, it just goes on. The header is written by the
    /// first [`Recorder::attach`] (or before the first frame).
    pub fn open(&self, path: &Path) -> Result<(), String> {
        let mut sink = self.lock();
        if let Some(s) = sink.as_ref()
            && s.path == path
        {
            self.active.store(true, Ordering::Relaxed);
            return Ok(());
        }
        let file = std::fs::File::create(path).map_err(|e| {
            format!(
                "cannot create the recording {}: {e}; pick a writable path for --record",
                path.display()
            )
        })?;
        let out = LineWriter::start(
            Box::new(WarnOnce {
                out: std::io::BufWriter::new(file),
                path: path.to_path_buf(),
                failed: self.failed.clone(),
                dead: false,
            }),
            "recorded lines",
            "the recording file was not keeping up",
        );
        if let Some(old) = sink.take() {
            old.out.close(std::time::Duration::from_millis(500));
        }
        *sink = Some(Sink {
            path: path.to_path_buf(),
            out,
            start: Instant::now(),
            started: SystemTime::now(),
            servers: None,
            last_server: None,
        });
        self.failed.store(false, Ordering::Relaxed);
        self.active.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Name the servers being recorded: in the header if it is not written
    /// yet, else those not named before on a line of their own.
    pub fn attach(&self, servers: &[ServerConfig]) {
        let mut sink = self.lock();
        let Some(s) = sink.as_mut() else { return };
        s.attach(servers);
    }

    /// Pause or resume (the file stays open; resuming appends).
    pub fn set_active(&self, on: bool) {
        let has_sink = self.lock().is_some();
        self.active.store(on && has_sink, Ordering::Relaxed);
    }

    pub fn is_active(&self) -> bool {
        self.active.load(Ordering::Relaxed)
    }

    /// Whether writing the file failed (one warning was given).
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    /// The file being written, if any.
    pub fn path(&self) -> Option<PathBuf> {
        self.lock().as_ref().map(|s| s.path.clone())
    }

    /// Record a frame (the frame log's tap).
    pub fn frame(&self, frame: &Frame, raw: &str) {
        if !self.is_active() {
            return;
        }
        let mut sink = self.lock();
        let Some(s) = sink.as_mut() else { return };
        if s.servers.is_none() {
            s.attach(&[]);
        }
        let t = s.start.elapsed().as_secs_f64();
        let server_json = match &s.last_server {
            Some((name, json)) if Arc::ptr_eq(name, &frame.server) || **name == *frame.server => {
                json
            }
            _ => {
                let json = json_string(&frame.server);
                &s.last_server.insert((frame.server.clone(), json)).1
            }
        };
        s.out.write_with(|line| {
            push_frame_line(line, t, frame.at, server_json, frame.dir, raw, frame.json)
        });
    }

    /// Record an ended HTTP exchange (the net log's tap).
    pub fn exchange(&self, e: &Exchange) {
        if !self.is_active() {
            return;
        }
        let mut sink = self.lock();
        let Some(s) = sink.as_mut() else { return };
        if s.servers.is_none() {
            s.attach(&[]);
        }
        let t = s.start.elapsed().as_secs_f64();
        s.out.write(exchange_line(t, e));
    }
}

/// The file under a [`LineWriter`]: the first error is one warning (on
/// stderr outside the TUI, and in the log), then lines are dropped.
struct WarnOnce<W: Write> {
    out: W,
    path: PathBuf,
    failed: Arc<AtomicBool>,
    dead: bool,
}

impl<W: Write> WarnOnce<W> {
    fn check(&mut self, r: std::io::Result<()>) -> std::io::Result<()> {
        if let Err(e) = r {
            self.dead = true;
            self.failed.store(true, Ordering::Relaxed);
            let msg = format!(
                "mcpdeck: warning: writing the recording {} failed: {e}; recording stopped",
                self.path.display()
            );
            tracing::warn!("{msg}");
            if !QUIET.load(Ordering::Relaxed) {
                eprintln!("{msg}");
            }
        }
        Ok(())
    }
}

impl<W: Write> Write for WarnOnce<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.dead {
            let r = self.out.write_all(buf);
            self.check(r)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.dead {
            let r = self.out.flush();
            self.check(r)?;
        }
        Ok(())
    }
}

/// What a frame log holds, as a recording (the TUI's save); `servers`
/// for the header. Times are the frames' own, from the first one. A frame
/// cut to the log's per-frame limit is kept as `raw` text.
pub fn recording_bytes(
    frames: &[Arc<Frame>],
    exchanges: &[Exchange],
    servers: &[ServerConfig],
) -> Vec<u8> {
    let entries: Vec<Value> = servers.iter().map(server_entry).collect();
    let started = frames.first().map_or(SystemTime::now(), |f| f.at);
    let base = frames.first().map_or(0.0, |f| f.elapsed.as_secs_f64());
    let mut out = header(&entries, started).to_string().into_bytes();
    out.push(b'\n');
    let mut ex = exchanges.iter().filter(|e| e.done()).peekable();
    for f in frames {
        while let Some(e) = ex.next_if(|e| e.elapsed <= f.elapsed) {
            out.extend(exchange_line(e.elapsed.as_secs_f64() - base, e));
        }
        out.extend(frame_line(
            f.elapsed.as_secs_f64() - base,
            f.at,
            &f.server,
            f.dir,
            &f.text,
        ));
    }
    for e in ex {
        out.extend(exchange_line(e.elapsed.as_secs_f64() - base, e));
    }
    out
}

/// Which way a recorded line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Send,
    Recv,
    Http,
}

/// One recorded line after the header.
#[derive(Debug, Clone)]
pub struct Entry {
    /// 1-based line number in the file.
    pub line: usize,
    pub t: f64,
    pub ts: Option<String>,
    pub server: String,
    pub dir: Dir,
    /// The frame, when it was JSON.
    pub frame: Option<Value>,
    /// The frame's text, when it was not.
    pub raw: Option<String>,
    /// The exchange, for `dir: "http"`.
    pub http: Option<Value>,
}

impl Entry {
    /// The frame's text (JSON re-encoded, or the raw text).
    pub fn text(&self) -> String {
        match (&self.frame, &self.raw, &self.http) {
            (Some(f), _, _) => f.to_string(),
            (None, Some(r), _) => r.clone(),
            (None, None, Some(h)) => h.to_string(),
            _ => String::new(),
        }
    }
}

/// A recorded server, from the header.
#[derive(Debug, Clone)]
pub struct RecordedServer {
    pub name: String,
    pub transport: String,
    /// The command line or the (masked) URL.
    pub target: String,
}

/// A recording read back.
#[derive(Debug, Clone)]
pub struct Recording {
    pub path: PathBuf,
    pub version: String,
    pub started: String,
    pub servers: Vec<RecordedServer>,
    pub entries: Vec<Entry>,
    /// Lines that could not be read, each named ("line 7: …").
    pub problems: Vec<String>,
}

fn recorded_servers(v: &Value) -> Vec<RecordedServer> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| {
                    let name = s.get("name")?.as_str()?.to_string();
                    let transport = s
                        .get("transport")
                        .and_then(Value::as_str)
                        .unwrap_or("?")
                        .to_string();
                    let target = match s.get("url").and_then(Value::as_str) {
                        Some(u) => u.to_string(),
                        None => {
                            let mut words = vec![
                                s.get("command")
                                    .and_then(Value::as_str)
                                    .unwrap_or("")
                                    .to_string(),
                            ];
                            if let Some(args) = s.get("args").and_then(Value::as_array) {
                                words.extend(
                                    args.iter().filter_map(Value::as_str).map(str::to_string),
                                );
                            }
                            words.join(" ")
                        }
                    };
                    Some(RecordedServer {
                        name,
                        transport,
                        target,
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

impl Recording {
    /// Read a recording. A file that is not one is an `Err` saying so; a
    /// line that is not complete JSON (a truncated or corrupted file) is
    /// skipped and named in [`Recording::problems`].
    pub fn load(path: &Path) -> Result<Recording, String> {
        let file = std::fs::File::open(path)
            .map_err(|e| format!("cannot open the recording {}: {e}", path.display()))?;
        Self::read(path, std::io::BufReader::new(file))
    }

    pub fn read(path: &Path, input: impl BufRead) -> Result<Recording, String> {
        let shown = path.display();
        let not_one = |why: &str| {
            format!(
                "{shown} is not an mcpdeck recording ({why}); make one with `mcpdeck --record FILE …` or the TUI's record key"
            )
        };
        let mut lines = input.lines().enumerate();
        let first = match lines.next() {
            None => return Err(not_one("it is empty")),
            Some((_, Err(e))) => return Err(format!("cannot read {shown}: {e}")),
            Some((_, Ok(l))) => l,
        };
        let head: Value = serde_json::from_str(first.trim())
            .map_err(|_| not_one("its first line is not a JSON object"))?;
        let Some(format) = head.get(MARK) else {
            return Err(not_one(&format!("its first line has no {MARK:?} key")));
        };
        if format.as_u64() != Some(FORMAT) {
            return Err(format!(
                "{shown} is a recording of format {format}, which this mcpdeck ({}) does not read (it reads format {FORMAT}); use a newer mcpdeck",
                env!("CARGO_PKG_VERSION")
            ));
        }
        let mut rec = Recording {
            path: path.to_path_buf(),
            version: head
                .get("version")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .into(),
            started: head
                .get("started")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .into(),
            servers: recorded_servers(head.get("servers").unwrap_or(&Value::Null)),
            entries: Vec::new(),
            problems: Vec::new(),
        };
        for (i, line) in lines {
            let n = i + 1;
            let line = match line {
                Ok(l) => l,
                Err(e) => {
                    rec.problems.push(format!("line {n}: cannot be read: {e}"));
                    break;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = match serde_json::from_str(&line) {
                Ok(v) => v,
                Err(e) => {
                    rec.problems.push(format!(
                        "line {n}: not complete JSON ({e}); the file may be truncated or corrupted — the line is skipped"
                    ));
                    continue;
                }
            };
            if let Some(more) = v.get("mcpdeck_servers") {
                rec.servers.extend(recorded_servers(more));
                continue;
            }
            let dir = match v.get("dir").and_then(Value::as_str) {
                Some("send") => Dir::Send,
                Some("recv") => Dir::Recv,
                Some("http") => Dir::Http,
                _ => {
                    rec.problems.push(format!(
                        "line {n}: no \"dir\" of send, recv or http — the line is skipped"
                    ));
                    continue;
                }
            };
            let Some(server) = v.get("server").and_then(Value::as_str) else {
                rec.problems
                    .push(format!("line {n}: no \"server\" — the line is skipped"));
                continue;
            };
            rec.entries.push(Entry {
                line: n,
                t: v.get("t").and_then(Value::as_f64).unwrap_or(0.0),
                ts: v.get("ts").and_then(Value::as_str).map(str::to_string),
                server: server.to_string(),
                dir,
                frame: v.get("frame").cloned(),
                raw: v.get("raw").and_then(Value::as_str).map(str::to_string),
                http: v.get("http").cloned(),
            });
        }
        // Servers seen in frames but not in the header (a saved log).
        for e in &rec.entries {
            if !rec.servers.iter().any(|s| s.name == e.server) {
                rec.servers.push(RecordedServer {
                    name: e.server.clone(),
                    transport: "?".into(),
                    target: String::new(),
                });
            }
        }
        Ok(rec)
    }

    /// The era a server spoke, from its handshake: `initialize` when an
    /// initialize request got a result, `stateless` when `server/discover`
    /// did and no initialize followed.
    pub fn era(&self, server: &str) -> Option<&'static str> {
        let mut pending: Vec<(Value, &str)> = Vec::new();
        let mut discovered = false;
        for e in self.entries.iter().filter(|e| e.server == server) {
            let Some(f) = &e.frame else { continue };
            match e.dir {
                Dir::Send => {
                    if let (Some(id), Some(m)) =
                        (f.get("id"), f.get("method").and_then(Value::as_str))
                    {
                        pending.push((
                            id.clone(),
                            if m == "initialize" {
                                "i"
                            } else if m == "server/discover" {
                                "d"
                            } else {
                                ""
                            },
                        ));
                    }
                }
                Dir::Recv if f.get("result").is_some() => {
                    if let Some(id) = f.get("id")
                        && let Some(k) = pending.iter().find(|(p, _)| p == id).map(|(_, k)| *k)
                    {
                        match k {
                            "i" => return Some("initialize"),
                            "d" => discovered = true,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        discovered.then_some("stateless")
    }

    /// The recorded server to use: `name`, or the only one there is.
    pub fn pick_server(&self, name: Option<&str>) -> Result<String, String> {
        let names: Vec<&str> = self.servers.iter().map(|s| s.name.as_str()).collect();
        match name {
            Some(n) if names.contains(&n) => Ok(n.to_string()),
            Some(n) => Err(format!(
                "{} has no server {n:?}; it recorded: {}",
                self.path.display(),
                names.join(", ")
            )),
            None if names.len() == 1 => Ok(names[0].to_string()),
            None if names.is_empty() => Err(format!(
                "{} recorded no frames of any server",
                self.path.display()
            )),
            None => Err(format!(
                "{} recorded several servers ({}); pick one with --server NAME",
                self.path.display(),
                names.join(", ")
            )),
        }
    }
}

/// The tap the frame logs install (cheap while not recording).
pub fn frame_tap(frame: &Frame, raw: &str) {
    if let Some(r) = Recorder::current() {
        r.frame(frame, raw);
    }
}

/// The tap the net logs install.
pub fn exchange_tap(e: &Exchange) {
    if let Some(r) = Recorder::current() {
        r.exchange(e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_written_with_their_zeros() {
        for (n, width, want) in [
            (0, 1, "0"),
            (7, 6, "000007"),
            (123456, 6, "123456"),
            (u64::MAX, 1, "18446744073709551615"),
            (42, 1, "42"),
        ] {
            let mut digits = [0u8; 20];
            assert_eq!(decimal(&mut digits, n, width), want.as_bytes());
        }
        // `t` as before: six decimals.
        let at = std::time::UNIX_EPOCH;
        let l = String::from_utf8(frame_line(12.000_034, at, "s", Direction::In, "{}")).unwrap();
        assert!(l.starts_with("{\"t\":12.000034,"), "{l}");
    }

    #[test]
    fn the_kept_second_gives_the_same_time_as_rfc3339_millis() {
        for ms in [
            0u64,
            999,
            1_000,
            1_001,
            86_399_999,
            1_764_000_000_123,
            1_764_000_000_987,
            // A year past 9999.
            400_000_000_000_123,
        ] {
            let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
            let mut buf = [0u8; 40];
            let text = rfc3339_millis_into(&mut buf, t);
            assert_eq!(
                std::str::from_utf8(text).unwrap(),
                rfc3339_millis(t),
                "{ms}"
            );
        }
    }

    #[test]
    fn frame_lines_keep_json_and_quote_the_rest() {
        let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_500);
        let l = String::from_utf8(frame_line(
            0.25,
            at,
            "s\"1",
            Direction::Out,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
        ))
        .unwrap();
        let v: Value = serde_json::from_str(&l).unwrap();
        assert_eq!(v["server"], "s\"1");
        assert_eq!(v["dir"], "send");
        assert_eq!(v["frame"]["method"], "ping");
        assert_eq!(v["ts"], "1970-01-01T00:00:01.500Z");
        let l = String::from_utf8(frame_line(1.0, at, "s", Direction::In, "not {json")).unwrap();
        let v: Value = serde_json::from_str(&l).unwrap();
        assert_eq!(v["raw"], "not {json");
        assert_eq!(v["dir"], "recv");
        let l =
            String::from_utf8(frame_line(1.0, at, "s", Direction::In, "{\n\"a\": 1\n}")).unwrap();
        assert_eq!(l.matches('\n').count(), 1, "one line: {l}");
    }

    #[test]
    fn secret_flags_are_masked_in_the_header() {
        let s = ServerConfig::stdio("a", "srv", &["--token", "t0k", "--api-key=k3y", "-v", "x"]);
        let v = server_entry(&s).to_string();
        assert!(!v.contains("t0k") && !v.contains("k3y"), "{v}");
        assert!(v.contains("\"-v\",\"x\""), "{v}");
    }

    #[test]
    fn reading_names_bad_lines_and_refuses_other_files() {
        let text = format!(
            "{}\n{}\n{{\"t\":1,\"server\":\"a\",\"dir\":\"recv\",\"fra\n",
            header(
                &[json!({"name":"a","transport":"stdio","command":"x","args":[]})],
                SystemTime::now()
            ),
            r#"{"t":0.5,"server":"a","dir":"send","frame":{"jsonrpc":"2.0","id":1,"method":"ping"}}"#,
        );
        let r = Recording::read(Path::new("r.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(r.entries.len(), 1);
        assert_eq!(r.problems.len(), 1);
        assert!(r.problems[0].starts_with("line 3:"), "{:?}", r.problems);
        assert_eq!(r.era("a"), None);
        let e = Recording::read(Path::new("x.json"), "{\"tools\":[]}\n".as_bytes()).unwrap_err();
        assert!(e.contains("not an mcpdeck recording"), "{e}");
        let e = Recording::read(Path::new("x.json"), "".as_bytes()).unwrap_err();
        assert!(e.contains("empty"), "{e}");
    }

    #[test]
    fn the_era_follows_the_handshake_and_a_server_is_picked() {
        let text = r#"{"mcpdeck_recording":1,"servers":[]}
{"t":0,"server":"a","dir":"send","frame":{"jsonrpc":"2.0","id":1,"method":"server/discover"}}
{"t":0,"server":"a","dir":"recv","frame":{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}}
{"t":0,"server":"a","dir":"send","frame":{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}}
{"t":0,"server":"a","dir":"recv","frame":{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25"}}}
{"t":0,"server":"a","dir":"send","frame":{"jsonrpc":"2.0","id":3,"method":"tools/list"}}
{"t":0,"server":"a","dir":"recv","frame":{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"x"}],"nextCursor":"c"}}}
{"t":0,"server":"a","dir":"send","frame":{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"c"}}}
{"t":0,"server":"a","dir":"recv","frame":{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"y"}]}}}
{"t":0,"server":"b","dir":"send","frame":{"jsonrpc":"2.0","id":1,"method":"server/discover"}}
{"t":0,"server":"b","dir":"recv","frame":{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}}
"#;
        let r = Recording::read(Path::new("r"), text.as_bytes()).unwrap();
        assert_eq!(r.era("a"), Some("initialize"));
        assert_eq!(r.era("b"), Some("stateless"));
        assert!(r.pick_server(None).unwrap_err().contains("--server"));
        assert_eq!(r.pick_server(Some("b")).unwrap(), "b");
    }
}

#[cfg(test)]
mod masked_args_tests {
    use super::masked_args;

    #[test]
    fn secrets_in_arguments_are_masked() {
        let args: Vec<String> = [
            "--token",
            "t0k",
            "--api-key=k3y",
            "-e",
            "GITHUB_TOKEN=ghp_x",
            "--header",
            "Authorization: Bearer s3cret",
            "--header",
            "X-Team: blue",
            "postgres://user:pw@host/db",
            "plain",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let shown = masked_args(&args).join(" ");
        for secret in ["t0k", "k3y", "ghp_x", "s3cret", ":pw@"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(shown.contains("X-Team: blue"), "{shown}");
        assert!(shown.contains("Authorization: Bearer ••••••"), "{shown}");
        assert!(shown.ends_with("plain"), "{shown}");
    }
}
