//! One-shot commands answer at once: a command prints its answer, then
//! [`finish`] closes stdout, and only then are the servers stopped.
//!
//! A command does not stop its servers itself: [`Link::close`] and
//! [`link::finish`] hand the manager to [`defer`], and [`finish`] (called
//! once, by [`super::run`], after every command) stops them all together.
//! A script reading `mcpdeck tools --json … | jq` so gets its end of file
//! as soon as the answer is written, not after the server's own slow exit
//! (server-everything takes ~350 ms to leave after its stdin closes).
//!
//! Stopping follows the usual polite order (close stdin, a grace, SIGTERM,
//! the grace again, SIGKILL to the process group), with
//! `[settings] oneshot_grace` (default 200 ms) as the grace: the answer is
//! already out, nobody waits for it but the shell.
//!
//! stderr stays open through the shutdown: a server's last findings and
//! warnings still reach it. So a reader of `2>&1` sees its end of file only
//! when mcpdeck exits (at most about twice `oneshot_grace` after the
//! answer, for a server that ignores stdin EOF and SIGTERM).
//!
//! The exit code is the answer's. Stopping the servers afterwards cannot
//! change it: killing a server that does not leave is what the grace is
//! for, not a failure. A server process that could not be reaped at all is
//! reported on stderr.
//!
//! [`Link::close`]: super::link::Link::close
//! [`link::finish`]: super::link::finish

use std::io::Write;
use std::sync::Mutex;

use crate::mcp::manager::{EventReceiver, Manager};

/// A manager whose servers are to be stopped once the answer is out.
struct Pending {
    manager: Manager,
    events: EventReceiver,
    /// Report what the servers say while they stop (findings, stderr).
    report: bool,
}

static PENDING: Mutex<Vec<Pending>> = Mutex::new(Vec::new());

fn pending() -> std::sync::MutexGuard<'static, Vec<Pending>> {
    PENDING.lock().unwrap_or_else(|p| p.into_inner())
}

/// Stop `manager`'s servers in [`finish`], after the answer; with `report`,
/// what its events say meanwhile goes to stderr.
pub fn defer(manager: Manager, events: EventReceiver, report: bool) {
    pending().push(Pending {
        manager,
        events,
        report,
    });
}

/// Flush stdout and close it for whoever reads it: `/dev/null` takes fd 1
/// (fd 1 is not simply closed, or the next file opened would become
/// stdout). Later writes to stdout go nowhere.
pub fn close_stdout() -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // A reader that went away (EPIPE) is no reason not to close.
    let _ = crate::cli::output::stdout().flush();
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    // SAFETY: dup2 onto fd 1 with a valid fd; `null` stays open until
    // after the call, and fd 1 now refers to its own copy.
    if unsafe { libc::dup2(null.as_raw_fd(), libc::STDOUT_FILENO) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The end of every command: close stdout, then stop every deferred
/// manager's servers (all at once) and report what they said last.
pub async fn finish() {
    if let Err(e) = close_stdout() {
        eprintln!(
            "mcpdeck: warning: could not close stdout before stopping the servers ({e}); a reader of stdout waits for them to stop"
        );
    }
    let mut all = std::mem::take(&mut *pending());
    futures_util::future::join_all(all.iter().map(|p| p.manager.shutdown())).await;
    for p in &mut all {
        if p.report {
            super::events::drain(&mut p.events);
        }
    }
    // The managers of the CLI share one registry of server processes.
    let left = all.first().map_or(0, |p| p.manager.children().count());
    if left > 0 {
        eprintln!(
            "mcpdeck: warning: {left} server process(es) could not be reaped after SIGKILL; check `ps` for them"
        );
    }
}
