//! "Something changed": a signal one writer bumps often and viewers sleep
//! on. The frame log and the network log each have one; it lives here,
//! below both, because the frame log owns a network log.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// "Something changed", for one writer that changes things often and
/// viewers that sleep until it does. Bumping costs two atomic operations
/// while nobody waits (a `watch` channel would take eight locks a frame,
/// on every request's path); a waiting viewer is woken.
#[derive(Debug, Default)]
pub struct ChangeSignal {
    version: AtomicU64,
    waiting: AtomicBool,
    notify: tokio::sync::Notify,
}

impl ChangeSignal {
    /// Mark a change and wake whoever waits for one.
    pub fn bump(&self) {
        self.version.fetch_add(1, Ordering::SeqCst);
        if self.waiting.load(Ordering::SeqCst) && self.waiting.swap(false, Ordering::SeqCst) {
            self.notify.notify_waiters();
        }
    }

    /// A watcher that has seen every change so far.
    pub fn watch(this: &Arc<ChangeSignal>) -> ChangeWatcher {
        ChangeWatcher {
            seen: this.version.load(Ordering::SeqCst),
            signal: this.clone(),
        }
    }
}

/// Waits for the changes of a [`ChangeSignal`] (one wake for any number
/// of changes since the last look).
#[derive(Debug)]
pub struct ChangeWatcher {
    signal: Arc<ChangeSignal>,
    seen: u64,
}

impl ChangeWatcher {
    /// Whether something changed since the last [`ChangeWatcher::changed`].
    pub fn has_changed(&self) -> bool {
        self.signal.version.load(Ordering::SeqCst) != self.seen
    }

    /// Wait until something changed since the last call (at once if it
    /// already has). Never fails; the `Result` matches `watch::Receiver`.
    pub async fn changed(&mut self) -> Result<(), std::convert::Infallible> {
        loop {
            let notified = self.signal.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            // Either the writer sees `waiting` and wakes us, or we see its
            // new version here (both sides use SeqCst).
            self.signal.waiting.store(true, Ordering::SeqCst);
            let now = self.signal.version.load(Ordering::SeqCst);
            if now != self.seen {
                self.seen = now;
                return Ok(());
            }
            notified.await;
        }
    }
}
