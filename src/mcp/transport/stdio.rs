//! The stdio transport: a child process speaking one JSON message per line.
//!
//! - stdout is read as lines of any length (bounded by a generous cap);
//! - stderr goes to a bounded per-server buffer, never to our terminal;
//! - close: close stdin, a short grace, SIGTERM to the process group, then
//!   SIGKILL; the child is always reaped and its process group cleaned up.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot};

use super::error::TransportClosed;
use super::inbound::Inbound;
use crate::mcp::finding::{Finding, Severity};

/// The longest stdout line accepted before it is dropped with a finding.
pub const MAX_LINE: usize = 256 * 1024 * 1024;
/// The longest stderr line kept (the rest of the line is cut).
pub const MAX_STDERR_LINE: usize = 4096;

/// What to start.
#[derive(Debug, Clone)]
pub struct StdioSpec {
    pub command: String,
    pub args: Vec<String>,
    /// Added to the parent's environment.
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
    /// Lines of stderr kept.
    pub stderr_lines: usize,
    /// Time between closing stdin and SIGTERM, and between SIGTERM and SIGKILL.
    pub grace: Duration,
    /// Where the running child is registered until it is reaped.
    pub children: Option<Arc<Children>>,
    /// The longest line (message) taken; a longer one is dropped, and the
    /// request it answers fails at once when its id can be read.
    pub max_line: usize,
}

impl StdioSpec {
    pub fn new(command: impl Into<String>, args: Vec<String>) -> Self {
        StdioSpec {
            command: command.into(),
            args,
            env: Vec::new(),
            cwd: None,
            stderr_lines: 500,
            grace: Duration::from_secs(2),
            children: None,
            max_line: MAX_LINE,
        }
    }

    /// The command line, for messages (the values of named secrets
    /// masked).
    pub fn display(&self) -> String {
        std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .map(crate::mcp::bearer::secret::redact)
            .map(|a| {
                if a.contains(' ') || a.is_empty() {
                    format!("{a:?}")
                } else {
                    a.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The children of one owner (a manager) that are not reaped yet, so that
/// shutdown and signal handlers can make sure none outlives mcpdeck.
#[derive(Debug)]
pub struct Children {
    live: Mutex<std::collections::HashMap<u32, Live>>,
    /// Turns `true` when every child is asked to stop ([`Children::close_all`]);
    /// a child started afterwards is stopped at once.
    closing: tokio::sync::watch::Sender<bool>,
}

/// A child not reaped yet.
#[derive(Debug)]
struct Live {
    /// Turns `true` once it is reaped.
    done: tokio::sync::watch::Receiver<bool>,
    /// Its grace between closing stdin, SIGTERM and SIGKILL.
    grace: Duration,
}

impl Default for Children {
    fn default() -> Self {
        Children {
            live: Mutex::new(std::collections::HashMap::new()),
            closing: tokio::sync::watch::channel(false).0,
        }
    }
}

impl Children {
    pub fn new() -> Arc<Children> {
        Arc::new(Children::default())
    }

    fn register(&self, pid: u32, done: tokio::sync::watch::Receiver<bool>, grace: Duration) {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(pid, Live { done, grace });
    }

    fn remove(&self, pid: u32) {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&pid);
    }

    /// How many children are not reaped yet.
    pub fn count(&self) -> usize {
        self.live.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Ask every child to stop the polite way, each on its own: stdin
    /// closed, its grace, SIGTERM to its process group, the grace again,
    /// SIGKILL. Children started afterwards are stopped as soon as they
    /// start. Returns at once; [`Children::stop_all`] also waits.
    pub fn close_all(&self) {
        self.closing.send_replace(true);
    }

    /// [`Children::close_all`], then wait until every child is reaped: a
    /// child that leaves on stdin EOF ends the wait at once. One still
    /// there after twice its grace and a second is SIGKILLed.
    pub async fn stop_all(&self) {
        self.close_all();
        let longest = self
            .live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .map(|l| l.grace)
            .max()
            .unwrap_or_default();
        self.settle(longest.saturating_mul(2) + Duration::from_secs(1))
            .await;
    }

    /// Wait up to `grace` for every child to be reaped (their sessions are
    /// closing them); SIGKILL the process groups of the rest and wait for
    /// those a little longer.
    pub async fn settle(&self, grace: Duration) {
        let waiting: Vec<(u32, tokio::sync::watch::Receiver<bool>)> = self
            .live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(p, l)| (*p, l.done.clone()))
            .collect();
        let deadline = tokio::time::Instant::now() + grace;
        let mut stubborn = Vec::new();
        for (pid, mut done) in waiting {
            if tokio::time::timeout_at(deadline, done.wait_for(|d| *d))
                .await
                .is_err()
            {
                stubborn.push((pid, done));
            }
        }
        for (pid, _) in &stubborn {
            signal_group(Some(*pid), libc::SIGKILL);
        }
        for (_, mut done) in stubborn {
            let _ = tokio::time::timeout(Duration::from_secs(1), done.wait_for(|d| *d)).await;
        }
    }

    /// SIGKILL every child's process group now (a second Ctrl-C).
    pub fn kill_now(&self) {
        for pid in self.live.lock().unwrap_or_else(|p| p.into_inner()).keys() {
            signal_group(Some(*pid), libc::SIGKILL);
        }
    }
}

/// Send `sig` to the process group led by `pid`.
fn signal_group(pid: Option<u32>, sig: i32) {
    if let Some(pid) = pid
        && let Ok(pid) = i32::try_from(pid)
        && pid > 0
    {
        // SAFETY: kill(2) with a negative pid signals that process group;
        // it has no memory-safety preconditions.
        unsafe {
            libc::kill(-pid, sig);
        }
    }
}

/// A bounded buffer of a server's stderr lines.
#[derive(Debug)]
pub struct StderrBuffer {
    lines: Mutex<VecDeque<String>>,
    cap: usize,
    total: AtomicU64,
}

impl StderrBuffer {
    pub fn new(cap: usize) -> Self {
        StderrBuffer {
            lines: Mutex::new(VecDeque::new()),
            cap: cap.max(1),
            total: AtomicU64::new(0),
        }
    }

    pub fn push(&self, line: String) {
        self.total.fetch_add(1, Ordering::Relaxed);
        let mut lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() == self.cap {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The last `n` lines.
    pub fn tail(&self, n: usize) -> Vec<String> {
        let lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        lines
            .iter()
            .skip(lines.len().saturating_sub(n))
            .cloned()
            .collect()
    }

    /// How many lines were ever written.
    pub fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }
}

/// How a child ended.
pub fn describe_exit(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        format!("exited with status {code}")
    } else if let Some(sig) = status.signal() {
        let name = match sig {
            libc::SIGKILL => " (SIGKILL)",
            libc::SIGTERM => " (SIGTERM)",
            libc::SIGSEGV => " (SIGSEGV)",
            libc::SIGABRT => " (SIGABRT)",
            libc::SIGINT => " (SIGINT)",
            libc::SIGPIPE => " (SIGPIPE)",
            _ => "",
        };
        format!("was killed by signal {sig}{name}")
    } else {
        "ended".to_string()
    }
}

/// A running stdio server.
#[derive(Debug)]
pub struct StdioTransport {
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    close_tx: Mutex<Option<oneshot::Sender<()>>>,
    done: tokio::sync::watch::Receiver<bool>,
    stderr: Arc<StderrBuffer>,
    pid: Option<u32>,
}

impl StdioTransport {
    /// Start the child. Read what it sends with the returned
    /// [`StdioReader`]; stderr lines are also sent to `stderr_events` (best
    /// effort: when that channel is full, lines are only buffered).
    pub fn spawn(
        spec: &StdioSpec,
        stderr_events: Option<mpsc::Sender<String>>,
    ) -> std::io::Result<(StdioTransport, StdioReader)> {
        let mut cmd = Command::new(&spec.command);
        cmd.args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(cwd) = &spec.cwd {
            cmd.current_dir(cwd);
        }
        let mut child = cmd.spawn()?;
        let pid = child.id();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr_pipe = child.stderr.take();
        let stdin = Arc::new(tokio::sync::Mutex::new(stdin));
        let stderr = Arc::new(StderrBuffer::new(spec.stderr_lines));

        let (close_tx, close_rx) = oneshot::channel();
        let (eof_tx, eof_rx) = oneshot::channel();
        let (report_tx, report_rx) = oneshot::channel();
        let (done_tx, done_rx) = tokio::sync::watch::channel(false);

        let stderr_task = stderr_pipe.map(|pipe| {
            let buf = stderr.clone();
            tokio::spawn(read_stderr(pipe, buf, stderr_events))
        });

        if let (Some(children), Some(pid)) = (&spec.children, pid) {
            children.register(pid, done_rx.clone(), spec.grace);
        }
        let life = Lifecycle {
            children: spec.children.clone(),
            child,
            pid,
            stdin: stdin.clone(),
            stderr: stderr.clone(),
            stderr_task,
            grace: spec.grace,
            closing: spec.children.as_ref().map(|c| c.closing.subscribe()),
        };
        tokio::spawn(async move {
            let children = life.children.clone();
            let report = life.run(close_rx, eof_rx).await;
            let _ = report_tx.send(report);
            let _ = done_tx.send(true);
            if let (Some(children), Some(pid)) = (children, pid) {
                children.remove(pid);
            }
        });

        let reader = StdioReader {
            reader: stdout.map(|s| BufReader::with_capacity(64 * 1024, s)),
            buf: Vec::new(),
            overflow: Overflow::new(spec.max_line),
            eof_tx: Some(eof_tx),
            report_rx: Some(report_rx),
        };
        Ok((
            StdioTransport {
                stdin,
                close_tx: Mutex::new(Some(close_tx)),
                done: done_rx,
                stderr,
                pid,
            },
            reader,
        ))
    }

    /// Write one message as one line (the newline is added here: the
    /// message and its newline go out in one `writev`).
    pub async fn send(&self, message: &str) -> Result<(), TransportClosed> {
        let mut guard = self.stdin.lock().await;
        let Some(stdin) = guard.as_mut() else {
            return Err(TransportClosed("the server's stdin is closed".into()));
        };
        let res = async {
            let bytes = message.as_bytes();
            let parts = [std::io::IoSlice::new(bytes), std::io::IoSlice::new(b"\n")];
            let n = stdin.write_vectored(&parts).await?;
            if n < bytes.len() {
                stdin.write_all(&bytes[n..]).await?;
                stdin.write_all(b"\n").await?;
            } else if n == bytes.len() {
                stdin.write_all(b"\n").await?;
            }
            stdin.flush().await
        }
        .await;
        res.map_err(|e| TransportClosed(format!("could not write to the server's stdin: {e}")))
    }

    pub fn stderr(&self) -> &Arc<StderrBuffer> {
        &self.stderr
    }

    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Close: stdin first, then signals; returns when the child is reaped.
    pub async fn close(&self) {
        let tx = self
            .close_tx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(tx) = tx {
            let _ = tx.send(());
        }
        let mut done = self.done.clone();
        let _ = done.wait_for(|d| *d).await;
    }
}

struct Lifecycle {
    children: Option<Arc<Children>>,
    child: Child,
    pid: Option<u32>,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    stderr: Arc<StderrBuffer>,
    stderr_task: Option<tokio::task::JoinHandle<()>>,
    grace: Duration,
    /// The registry's call to stop every child ([`Children::close_all`]).
    closing: Option<tokio::sync::watch::Receiver<bool>>,
}

pub(crate) enum End {
    /// The process exited (its stdout may still be open elsewhere).
    Exited,
    Eof,
    Closing,
    ReadError(String),
}

/// Reads the server's stdout, line by line, in the caller's task (no
/// extra hop per frame). After the last line it yields one
/// [`Inbound::Closed`] with the exit status and the stderr tail.
pub struct StdioReader {
    reader: Option<BufReader<tokio::process::ChildStdout>>,
    buf: Vec<u8>,
    overflow: Overflow,
    eof_tx: Option<oneshot::Sender<End>>,
    report_rx: Option<oneshot::Receiver<Inbound>>,
}

impl std::fmt::Debug for StdioReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdioReader").finish_non_exhaustive()
    }
}

impl StdioReader {
    /// The next item; `None` after [`Inbound::Closed`].
    pub async fn next(&mut self) -> Option<Inbound> {
        let end = match self.reader.as_mut() {
            None if self.report_rx.is_none() => return None,
            None => End::ReadError("no stdout pipe".into()),
            Some(reader) => {
                let report_rx = self.report_rx.as_mut()?;
                tokio::select! {
                    // Lines first: what the server wrote before it ended counts.
                    biased;
                    r = read_line_capped(reader, &mut self.buf, &mut self.overflow) => match r {
                        Ok(true) => return Some(take_line(&mut self.buf, &mut self.overflow)),
                        Ok(false) => End::Eof,
                        Err(e) => End::ReadError(e.to_string()),
                    },
                    // The server is gone although something it started still
                    // holds its stdout open.
                    report = report_rx => {
                        self.reader = None;
                        self.report_rx = None;
                        self.eof_tx = None;
                        return Some(report.unwrap_or_else(|_| Inbound::Closed {
                            description: "the server's connection ended".into(),
                            requested: true,
                            stderr_tail: Vec::new(),
                        }));
                    }
                }
            }
        };
        self.reader = None;
        if let Some(tx) = self.eof_tx.take() {
            let _ = tx.send(end);
        }
        let rx = self.report_rx.take()?;
        Some(rx.await.unwrap_or_else(|_| Inbound::Closed {
            description: "the server's connection ended".into(),
            requested: true,
            stderr_tail: Vec::new(),
        }))
    }
}

/// A line over the limit: its start and its end are kept (a request id
/// may be read from either), the rest is skipped as it comes.
#[derive(Debug)]
pub(crate) struct Overflow {
    limit: usize,
    /// Past the limit: the rest of the line is being skipped.
    on: bool,
    /// Bytes of the line seen so far.
    len: usize,
    /// The last bytes of the line (at most [`OVERFLOW_TAIL`]).
    tail: Vec<u8>,
}

/// What is kept of the start and of the end of an overlong line.
const OVERFLOW_HEAD: usize = 64 * 1024;
const OVERFLOW_TAIL: usize = 1024;

impl Overflow {
    fn new(limit: usize) -> Self {
        Overflow {
            limit: limit.max(1),
            on: false,
            len: 0,
            tail: Vec::new(),
        }
    }

    fn skip(&mut self, chunk: &[u8]) {
        self.len += chunk.len();
        let keep = chunk.len().min(OVERFLOW_TAIL);
        self.tail.extend_from_slice(&chunk[chunk.len() - keep..]);
        if self.tail.len() > OVERFLOW_TAIL {
            let cut = self.tail.len() - OVERFLOW_TAIL;
            self.tail.drain(..cut);
        }
    }
}

fn take_line(buf: &mut Vec<u8>, overflow: &mut Overflow) -> Inbound {
    if overflow.on {
        let head = String::from_utf8_lossy(&buf[..buf.len().min(OVERFLOW_HEAD)]).into_owned();
        let tail = String::from_utf8_lossy(&overflow.tail).into_owned();
        let len = overflow.len;
        *overflow = Overflow::new(overflow.limit);
        // The kept start of the line is let go now, not at the next line.
        *buf = Vec::new();
        return Inbound::Oversize {
            len,
            limit: overflow.limit,
            head,
            tail,
        };
    }
    overflow.len = 0;
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    }
    let bytes = std::mem::take(buf);
    match String::from_utf8(bytes) {
        Ok(s) => Inbound::Line(s),
        Err(e) => {
            let s = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let f = Finding::frame(
                Severity::Warning,
                "a line from the server is not valid UTF-8; bad bytes were replaced",
                &s,
            );
            Inbound::LineWithFinding(s, f)
        }
    }
}

impl Lifecycle {
    /// Wait for stdout to end or for a close request, then stop and reap
    /// the child; the report becomes the reader's last item.
    async fn run(
        mut self,
        close_rx: oneshot::Receiver<()>,
        eof_rx: oneshot::Receiver<End>,
    ) -> Inbound {
        let mut closing = self.closing.take();
        let (end, requested) = tokio::select! {
            end = eof_rx => (end.unwrap_or(End::Closing), false),
            _ = close_rx => (End::Closing, true),
            // A signal: mcpdeck is stopping every server.
            () = called_to_close(closing.as_mut()) => (End::Closing, true),
            // It exited, whether or not its stdout is closed yet.
            _ = self.child.wait() => (End::Exited, false),
        };
        let status = self.shutdown().await;
        // Let stderr drain so the tail holds the last words.
        if let Some(task) = self.stderr_task.take() {
            let _ = tokio::time::timeout(Duration::from_millis(300), task).await;
        }
        let mut description = match &status {
            Some(s) => format!("the server {}", describe_exit(s)),
            None => "the server could not be reaped".to_string(),
        };
        match &end {
            End::ReadError(e) => {
                description = format!("reading the server's stdout failed ({e}); {description}")
            }
            End::Eof => description = format!("the server closed its output: {description}"),
            End::Exited | End::Closing => {}
        }
        Inbound::Closed {
            description,
            requested,
            stderr_tail: self.stderr.tail(20),
        }
    }

    /// Stop the child (gracefully when asked to) and reap it.
    async fn shutdown(&mut self) -> Option<ExitStatus> {
        // Close stdin: the polite way to ask a stdio server to leave.
        if let Ok(mut guard) = tokio::time::timeout(self.grace, self.stdin.lock()).await {
            guard.take();
        }
        // Asked to close, or the server closed stdout (crashed or exited):
        // either way give it a moment to go before signals.
        let status = match tokio::time::timeout(self.grace, self.child.wait()).await {
            Ok(Ok(s)) => Some(s),
            _ => self.terminate().await,
        };
        self.clean_group().await;
        status
    }

    async fn terminate(&mut self) -> Option<ExitStatus> {
        self.signal_group(libc::SIGTERM);
        if let Ok(Ok(s)) = tokio::time::timeout(self.grace, self.child.wait()).await {
            return Some(s);
        }
        self.signal_group(libc::SIGKILL);
        let _ = self.child.start_kill();
        self.child.wait().await.ok()
    }

    fn signal_group(&self, sig: i32) {
        signal_group(self.pid, sig);
    }

    fn group_alive(&self) -> bool {
        match self.pid.and_then(|p| i32::try_from(p).ok()) {
            // SAFETY: signal 0 only checks for existence.
            Some(pid) => unsafe { libc::kill(-pid, 0) == 0 },
            None => false,
        }
    }

    /// After the leader is gone, make sure nothing it started lives on
    /// (`npx` wrappers orphan their child on SIGTERM).
    async fn clean_group(&mut self) {
        if !self.group_alive() {
            return;
        }
        self.signal_group(libc::SIGTERM);
        let deadline = tokio::time::Instant::now() + self.grace;
        while tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
            if !self.group_alive() {
                return;
            }
        }
        self.signal_group(libc::SIGKILL);
    }
}

/// Returns once `closing` turns `true` (never without a registry, or when
/// the registry is gone).
async fn called_to_close(closing: Option<&mut tokio::sync::watch::Receiver<bool>>) {
    if let Some(rx) = closing
        && rx.wait_for(|c| *c).await.is_ok()
    {
        return;
    }
    std::future::pending().await
}

/// Read up to and including the next newline into `buf`. Returns false at
/// EOF with nothing read. Past `MAX_LINE` bytes the rest of the line is
/// skipped and `overflow` is set.
async fn read_line_capped<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    buf: &mut Vec<u8>,
    overflow: &mut Overflow,
) -> std::io::Result<bool> {
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            // EOF: a last line without a newline still counts.
            return Ok(!buf.is_empty() || overflow.on);
        }
        let (chunk, found) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let n = chunk.len();
        if !overflow.on && buf.len() + n > overflow.limit {
            // Over the limit: keep the start, skip the rest.
            overflow.on = true;
            overflow.len = buf.len();
            buf.truncate(OVERFLOW_HEAD);
            buf.shrink_to_fit();
        }
        if overflow.on {
            overflow.skip(chunk);
        } else {
            buf.extend_from_slice(chunk);
        }
        reader.consume(n);
        if found {
            return Ok(true);
        }
    }
}

/// Read stderr into the buffer, line by line, cutting long lines.
async fn read_stderr<R: AsyncRead + Unpin>(
    mut pipe: R,
    buf: Arc<StderrBuffer>,
    events: Option<mpsc::Sender<String>>,
) {
    let mut chunk = vec![0u8; 16 * 1024];
    let mut line: Vec<u8> = Vec::new();
    let mut cut = false;
    let emit = |line: &mut Vec<u8>, cut: &mut bool| {
        let mut s = String::from_utf8_lossy(line).into_owned();
        if *cut {
            s.push_str(" …(cut)");
        }
        if s.ends_with('\r') {
            s.pop();
        }
        line.clear();
        *cut = false;
        if let Some(tx) = &events {
            let _ = tx.try_send(s.clone());
        }
        buf.push(s);
    };
    loop {
        let n = match pipe.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &b in &chunk[..n] {
            if b == b'\n' {
                emit(&mut line, &mut cut);
            } else if line.len() < MAX_STDERR_LINE {
                line.push(b);
            } else {
                cut = true;
            }
        }
    }
    if !line.is_empty() {
        emit(&mut line, &mut cut);
    }
}
