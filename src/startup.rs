//! Process start-up, shared by the headless commands and the TUI: mcpdeck's
//! own log (to a file only, never the screen), the async runtime, the
//! signals that stop every server, and the registry of server processes
//! that makes sure none outlives mcpdeck.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, LazyLock, Mutex};
use std::time::Duration;

use crate::mcp::transport::stdio::Children;

/// Every server process this run starts, so that a signal can reap them all.
pub static CHILDREN: LazyLock<Arc<Children>> = LazyLock::new(Children::new);

/// The first SIGINT, when the running command has claimed it.
struct Interrupt {
    claimed: AtomicBool,
    fired: tokio::sync::watch::Sender<bool>,
}

static INTERRUPT: LazyLock<Interrupt> = LazyLock::new(|| Interrupt {
    claimed: AtomicBool::new(false),
    fired: tokio::sync::watch::channel(false).0,
});

/// Take the next SIGINT for the running command (`bench`: it stops
/// issuing calls and still prints what it measured): while the claim is
/// held, [`run`] only turns [`InterruptClaim::fired`] to `true`, and the
/// command ends by itself. A second SIGINT (or SIGTERM, SIGHUP), or one
/// after the claim is dropped, stops the servers as usual.
pub fn claim_interrupt() -> InterruptClaim {
    INTERRUPT.fired.send_replace(false);
    INTERRUPT.claimed.store(true, Ordering::SeqCst);
    InterruptClaim {
        fired: INTERRUPT.fired.subscribe(),
    }
}

/// A claim on the next SIGINT ([`claim_interrupt`]); dropping it gives
/// SIGINT back to [`run`].
pub struct InterruptClaim {
    /// Turns `true` when the claimed SIGINT comes.
    pub fired: tokio::sync::watch::Receiver<bool>,
}

impl Drop for InterruptClaim {
    fn drop(&mut self) {
        INTERRUPT.claimed.store(false, Ordering::SeqCst);
    }
}

/// The exit code of a run whose stdout was found closed (128 + SIGPIPE, as
/// a program killed by SIGPIPE shows in the shell).
pub const STDOUT_CLOSED: i32 = 141;

/// Set when a write to stdout found its reader gone (EPIPE, `| head`).
static STDOUT_GONE: LazyLock<tokio::sync::watch::Sender<bool>> =
    LazyLock::new(|| tokio::sync::watch::channel(false).0);

/// Say that stdout's reader is gone: [`run`] ends the command quietly
/// (its servers stopped as on a signal) with [`STDOUT_CLOSED`].
pub fn stdout_gone() {
    STDOUT_GONE.send_replace(true);
}

/// Whether stdout's reader was found gone.
pub fn stdout_is_gone() -> bool {
    *STDOUT_GONE.borrow()
}

/// Exit code when the runtime or the signal handlers cannot be set up.
const CANNOT_START: i32 = 3;

/// The user's state directory for mcpdeck (Linux: `~/.local/state/mcpdeck`;
/// where there is none, the local data directory): the log, the era
/// memory, the TUI's history.
pub fn state_dir() -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "mcpdeck")?;
    Some(
        dirs.state_dir()
            .unwrap_or_else(|| dirs.data_local_dir())
            .to_path_buf(),
    )
}

/// `mcpdeck.log` in the user's state directory (created if needed).
pub fn default_log_file() -> Option<PathBuf> {
    let dir = state_dir()?;
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir.join("mcpdeck.log"))
}

/// Send tracing output to `path` (level from `RUST_LOG`, default `info`).
///
/// The file is written by a thread of its own through a bounded queue
/// ([`LineWriter`]): a log file nobody reads (a FIFO, a full disk, a slow
/// network mount) never holds up the runtime; what does not fit is
/// dropped and counted in the file once it takes lines again.
pub fn init_logging(path: &Path) -> std::io::Result<()> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("cannot open the log file {}: {e}", path.display()),
            )
        })?;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let writer = LineWriter::start(
        Box::new(std::io::BufWriter::new(file)),
        "log lines",
        "the log file was not being read",
    );
    tracing_subscriber::fmt()
        .with_writer(LogSink(writer))
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .map_err(|e| std::io::Error::other(format!("cannot start logging: {e}")))
}

/// Run `work` to its exit code on one thread, stopping every server on
/// SIGINT, SIGTERM or SIGHUP (exit 130, 143, 129; a second signal kills
/// them at once).
///
/// One thread: mcpdeck waits on servers, it does not compute. On small
/// machines idle worker threads would compete with the servers for CPU and
/// add a thread hand-off to every message (see benches/core.rs).
pub fn run<F: Future<Output = i32>>(work: F) -> i32 {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcpdeck: could not start the async runtime: {e}");
            return CANNOT_START;
        }
    };
    let code = runtime.block_on(async move {
        let mut signals = match Signals::new() {
            Ok(s) => s,
            Err(e) => {
                eprintln!("mcpdeck: could not install signal handlers: {e}");
                return CANNOT_START;
            }
        };
        // Boxed, so that a signal can drop it before the servers are
        // waited for.
        let mut work = Box::pin(work);
        let mut gone = STDOUT_GONE.subscribe();
        let (name, code) = loop {
            tokio::select! {
                code = &mut work => {
                    // A reader that left early ends every command alike.
                    return if stdout_is_gone() { STDOUT_CLOSED } else { code };
                }
                Ok(_) = gone.wait_for(|g| *g) => break (None, STDOUT_CLOSED),
                (name, code) = signals.next() => {
                    // A command that claimed the first SIGINT ends by
                    // itself (and reports what it did first).
                    if code == 130 && INTERRUPT.claimed.swap(false, Ordering::SeqCst) {
                        INTERRUPT.fired.send_replace(true);
                        eprintln!("mcpdeck: {name}: finishing (again to stop the servers now)");
                        continue;
                    }
                    break (Some(name), code);
                }
            }
        };
        // A closed stdout ends the command quietly.
        if let Some(name) = name {
            eprintln!("mcpdeck: {name}: stopping the servers (again to kill them now)");
        }
        // Every stdio server is stopped the polite way, each with its own
        // grace: stdin closed, the grace, SIGTERM to its process group,
        // the grace again, SIGKILL. One that leaves on stdin EOF ends the
        // wait at once.
        CHILDREN.close_all();
        // The work goes: its managers close their sessions (HTTP ones
        // too), and nothing it started waits on anything any more.
        drop(work);
        // A signal (a second one) kills what is left at once.
        tokio::select! {
            () = CHILDREN.stop_all() => {}
            _ = signals.next() => CHILDREN.kill_now(),
        }
        code
    });
    // Do not wait for blocking tasks (stdin readers) that may never end.
    runtime.shutdown_timeout(Duration::from_millis(100));
    // The trace and the log file get what is queued, unless their reader
    // is stuck.
    flush_writers(Duration::from_secs(1));
    code
}

/// The most bytes a [`LineWriter`] keeps queued (a single longer line is
/// still taken when the queue is empty).
const LINE_QUEUE_BYTES: usize = 4 << 20;

/// The most capacity the writing thread keeps in its spare buffer
/// between batches.
const SPARE_KEPT: usize = 1 << 20;

/// Lines written by a thread of its own, so that whoever writes a line
/// never waits for the reader of the output (stderr piped into a paused
/// program, a FIFO, a stuck disk). The queue holds at most
/// [`LINE_QUEUE_BYTES`]; a line that does not fit is dropped and counted,
/// and a note `… N <what> dropped (<why>)` takes its place in the output.
pub struct LineWriter {
    state: Mutex<LineState>,
    wake: Condvar,
    what: &'static str,
    why: &'static str,
}

struct LineState {
    /// The queued lines, end to end: a line is made in place
    /// ([`LineWriter::write_with`]), and the writing thread swaps the whole
    /// buffer for its emptied spare, so that a line costs no allocation and
    /// no copy beyond its own making.
    buf: Vec<u8>,
    /// Lines dropped since the last one queued.
    dropped: usize,
    closed: bool,
    /// The writing thread has written everything and ended.
    finished: bool,
}

/// How long the writer lets lines gather after the first of a batch.
const GATHER: Duration = Duration::from_millis(2);

/// Every line writer, flushed (with a bounded wait) at exit.
static WRITERS: Mutex<Vec<Arc<LineWriter>>> = Mutex::new(Vec::new());

impl LineWriter {
    /// Start the writing thread on `out`; `what` names the lines in the
    /// note about dropped ones ("trace lines"), `why` says why they were.
    pub fn start(
        out: Box<dyn std::io::Write + Send>,
        what: &'static str,
        why: &'static str,
    ) -> Arc<LineWriter> {
        let writer = Arc::new(LineWriter {
            state: Mutex::new(LineState {
                buf: Vec::new(),
                dropped: 0,
                closed: false,
                finished: false,
            }),
            wake: Condvar::new(),
            what,
            why,
        });
        let w = writer.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("mcpdeck {what}"))
            .spawn(move || w.write_loop(out));
        if spawned.is_err() {
            // No thread: nothing is written, and nothing waits for it.
            writer.lock().finished = true;
            writer.lock().closed = true;
        }
        lock(&WRITERS).push(writer.clone());
        writer
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LineState> {
        lock(&self.state)
    }

    fn note(&self, n: usize) -> Vec<u8> {
        format!("… {n} {} dropped ({})\n", self.what, self.why).into_bytes()
    }

    /// Queue a line (with its newline); never waits.
    pub fn write(&self, line: Vec<u8>) {
        self.write_with(|buf| buf.extend_from_slice(&line));
    }

    /// Queue the line (with its newline) that `make` appends to the
    /// buffer it is given; never waits for the output. The line is made
    /// in the queue itself (under its lock, which the writing thread holds
    /// only to swap buffers), so a busy tap allocates nothing.
    pub fn write_with(&self, make: impl FnOnce(&mut Vec<u8>)) {
        let mut st = self.lock();
        if st.closed {
            return;
        }
        let before = st.buf.len();
        let dropped = st.dropped;
        if dropped > 0 {
            let note = self.note(dropped);
            st.buf.extend_from_slice(&note);
        }
        let start = st.buf.len();
        // A `make` that panics leaves no half line behind.
        let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| make(&mut st.buf)));
        if let Err(panic) = made {
            st.buf.truncate(before);
            drop(st);
            std::panic::resume_unwind(panic);
        }
        // A line that does not fit is dropped and counted (a single longer
        // line is still taken when nothing else is queued).
        if before > 0 && before + (st.buf.len() - start) > LINE_QUEUE_BYTES {
            st.buf.truncate(before);
            st.dropped += 1;
            return;
        }
        st.dropped = 0;
        drop(st);
        // The writer waits only on an empty queue: a line added to a
        // queue that has lines is taken with them, without a wake-up (each
        // notify is a system call, and a wake-up per line costs a context
        // switch on a busy CPU).
        if before == 0 {
            self.wake.notify_one();
        }
    }

    fn write_loop(&self, mut out: Box<dyn std::io::Write + Send>) {
        let mut spare = Vec::new();
        loop {
            let closed = {
                let mut st = self.lock();
                while st.buf.is_empty() && !st.closed {
                    st = self.wake.wait(st).unwrap_or_else(|p| p.into_inner());
                }
                if !st.closed {
                    // Let the lines of a busy moment gather: one write for
                    // many (a recording of thousands of calls a second
                    // would otherwise be a write and a wake-up per frame).
                    drop(st);
                    std::thread::sleep(GATHER);
                    st = self.lock();
                }
                if st.closed && st.dropped > 0 {
                    let note = self.note(std::mem::take(&mut st.dropped));
                    st.buf.extend_from_slice(&note);
                }
                std::mem::swap(&mut st.buf, &mut spare);
                st.closed
            };
            // An output that fails is given up on: the lines go nowhere.
            let _ = out.write_all(&spare).and_then(|()| out.flush());
            spare.clear();
            // A burst's buffer is not kept for good.
            if spare.capacity() > SPARE_KEPT {
                spare = Vec::new();
            }
            if closed {
                break;
            }
        }
        self.lock().finished = true;
        self.wake.notify_all();
    }

    /// Take no more lines, and wait up to `wait` for the queued ones to
    /// be written; whether they were.
    pub fn close(&self, wait: Duration) -> bool {
        let deadline = std::time::Instant::now() + wait;
        let mut st = self.lock();
        st.closed = true;
        self.wake.notify_all();
        while !st.finished {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return false;
            }
            st = self
                .wake
                .wait_timeout(st, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        true
    }
}

/// Close every [`LineWriter`], waiting at most `wait` in all.
pub fn flush_writers(wait: Duration) {
    let deadline = std::time::Instant::now() + wait;
    let writers = std::mem::take(&mut *lock(&WRITERS));
    for w in writers {
        w.close(deadline.saturating_duration_since(std::time::Instant::now()));
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// tracing's writer: each event is formatted into a buffer, then queued
/// whole on the [`LineWriter`].
struct LogSink(Arc<LineWriter>);

/// One log event being formatted.
pub struct LogLine<'a> {
    buf: Vec<u8>,
    to: &'a LineWriter,
}

impl std::io::Write for LogLine<'_> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for LogLine<'_> {
    fn drop(&mut self) {
        if !self.buf.is_empty() {
            self.to.write(std::mem::take(&mut self.buf));
        }
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogSink {
    type Writer = LogLine<'a>;

    fn make_writer(&'a self) -> LogLine<'a> {
        LogLine {
            buf: Vec::new(),
            to: &self.0,
        }
    }
}

/// SIGINT, SIGTERM and SIGHUP, with the exit code each one means.
struct Signals {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    async fn next(&mut self) -> (&'static str, i32) {
        tokio::select! {
            _ = self.int.recv() => ("interrupted", 130),
            _ = self.term.recv() => ("terminated", 143),
            _ = self.hup.recv() => ("hung up", 129),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// An output that waits for the gate before its first write.
    struct Gated {
        gate: Option<mpsc::Receiver<()>>,
        out: Arc<Mutex<Vec<u8>>>,
    }

    impl std::io::Write for Gated {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            if let Some(gate) = self.gate.take() {
                let _ = gate.recv();
            }
            lock(&self.out).extend_from_slice(b);
            Ok(b.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stuck_output_never_holds_up_the_writer_and_the_drops_are_told() {
        let (open, gate) = mpsc::channel();
        let out = Arc::new(Mutex::new(Vec::new()));
        let w = LineWriter::start(
            Box::new(Gated {
                gate: Some(gate),
                out: out.clone(),
            }),
            "lines",
            "stuck",
        );
        w.write(b"first\n".to_vec());
        // The thread took it and is stuck writing it.
        while !w.lock().buf.is_empty() {
            std::thread::yield_now();
        }
        let mib = vec![b'x'; 1 << 20];
        for _ in 0..6 {
            w.write(mib.clone());
        }
        w.write(b"small, but no room\n".to_vec());
        // Four fit; three did not, and nothing waited.
        assert_eq!(w.lock().buf.len(), 4 << 20);
        assert_eq!(w.lock().dropped, 3);
        open.send(()).expect("the gate");
        // Once there is room, the next line comes after the note.
        while !w.lock().buf.is_empty() {
            std::thread::yield_now();
        }
        w.write(b"last\n".to_vec());
        assert!(w.close(Duration::from_secs(10)));
        let out = lock(&out).clone();
        assert_eq!(
            out.len(),
            6 + 4 * (1 << 20) + "… 3 lines dropped (stuck)\n".len() + 5
        );
        let text = String::from_utf8_lossy(&out);
        assert!(text.starts_with("first\nxxx"));
        assert!(text.ends_with("x… 3 lines dropped (stuck)\nlast\n"));
        // Closed: lines go nowhere, and nothing waits.
        w.write(b"after\n".to_vec());
        assert!(w.close(Duration::ZERO));
    }

    #[test]
    fn closing_waits_only_so_long_for_a_stuck_output() {
        let (_open, gate) = mpsc::channel::<()>();
        let w = LineWriter::start(
            Box::new(Gated {
                gate: Some(gate),
                out: Arc::new(Mutex::new(Vec::new())),
            }),
            "lines",
            "stuck",
        );
        w.write(b"never written\n".to_vec());
        assert!(!w.close(Duration::from_millis(50)));
    }
}
