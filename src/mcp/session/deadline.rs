//! Request deadlines: one timer a session (the [`Sweeper`]), not one a
//! request. Progress moves a request's deadline on; while a person answers
//! one of the server's requests, no deadline passes.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use crate::text::fmt_duration;

use super::handle::*;
use super::model::RequestError;
use super::timeout::{Deadline, MAX_PROGRESS_FACTOR};

/// The sweeper's loop: sleep until the armed time (or until woken with an
/// earlier one), then time out what is due. Holds the session weakly: it
/// ends with the session.
pub(super) async fn sweep(session: Weak<Inner>, sweeper: Arc<Sweeper>) {
    loop {
        if sweeper.stopped.load(Ordering::Acquire) {
            return;
        }
        let notified = sweeper.wake.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let armed = *sweeper.armed.lock().unwrap_or_else(|p| p.into_inner());
        match armed {
            None => {
                notified.await;
                continue;
            }
            Some(at) => {
                tokio::select! {
                    _ = &mut notified => continue,
                    _ = tokio::time::sleep_until(at) => {}
                }
            }
        }
        let Some(inner) = session.upgrade() else {
            return;
        };
        inner.expire_due();
    }
}

impl Inner {
    /// Time out every request whose deadline has passed, and arm the
    /// sweeper for the next one.
    pub(super) fn expire_due(self: &Arc<Self>) {
        let now = tokio::time::Instant::now();
        // A person answering the server: their time does not count.
        let asking = self.open_asks.load(Ordering::Acquire) > 0;
        let mut due = Vec::new();
        {
            let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            let mut next: Option<tokio::time::Instant> = None;
            for (id, entry) in pending.iter_mut() {
                let Some(deadline) = entry.deadline.as_mut() else {
                    continue;
                };
                if deadline.at <= now {
                    if asking {
                        let fresh = Deadline::after(deadline.timeout);
                        deadline.at = fresh.at;
                        deadline.hard = deadline.hard.max(fresh.at);
                    } else {
                        due.push(*id);
                        continue;
                    }
                }
                next = Some(next.map_or(deadline.at, |n| n.min(deadline.at)));
            }
            *self.sweeper.armed.lock().unwrap_or_else(|p| p.into_inner()) = next;
            due.retain(|id| pending.contains_key(id));
        }
        for id in due {
            let session = Session {
                inner: self.clone(),
            };
            session.end_request(id, |entry| {
                let deadline = entry
                    .deadline
                    .unwrap_or_else(|| Deadline::after(Default::default()));
                let (after, reason) = if deadline.at >= deadline.hard {
                    let total = deadline.timeout.saturating_mul(MAX_PROGRESS_FACTOR);
                    (
                        total,
                        format!(
                            "still running after {} despite progress",
                            fmt_duration(total)
                        ),
                    )
                } else {
                    (
                        deadline.timeout,
                        format!("timed out after {}", fmt_duration(deadline.timeout)),
                    )
                };
                (
                    RequestError::Timeout {
                        method: entry.method.to_string(),
                        after,
                    },
                    reason,
                )
            });
        }
    }
}
