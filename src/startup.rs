//! Process start-up, shared by the headless commands and the TUI: mcpdeck's
//! own log (to a file only, never the screen), the async runtime, the
//! signals that stop every server, and the registry of server processes
//! that makes sure none outlives mcpdeck.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use crate::mcp::transport::stdio::Children;

/// Every server process this run starts, so that a signal can reap them all.
pub static CHILDREN: LazyLock<Arc<Children>> = LazyLock::new(Children::new);

/// Exit code when the runtime or the signal handlers cannot be set up.
const CANNOT_START: i32 = 3;

/// `mcpdeck.log` in the user's state directory (created if needed).
pub fn default_log_file() -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "mcpdeck")?;
    let dir = dirs
        .state_dir()
        .unwrap_or_else(|| dirs.data_local_dir())
        .to_path_buf();
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir.join("mcpdeck.log"))
}

/// Send tracing output to `path` (level from `RUST_LOG`, default `info`).
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
    tracing_subscriber::fmt()
        .with_writer(std::sync::Mutex::new(file))
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
        tokio::select! {
            code = work => code,
            (name, code) = signals.next() => {
                // The work is dropped here; its manager closes every
                // session. Wait for the servers to go, SIGKILL the rest; a
                // second signal kills them at once.
                eprintln!("mcpdeck: {name}: stopping the servers (again to kill them now)");
                tokio::select! {
                    _ = CHILDREN.settle(Duration::from_secs(2)) => {}
                    _ = signals.next() => CHILDREN.kill_now(),
                }
                code
            }
        }
    });
    // Do not wait for blocking tasks (stdin readers) that may never end.
    runtime.shutdown_timeout(Duration::from_millis(100));
    code
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
