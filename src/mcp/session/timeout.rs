//! A request's deadline as a value: when it times out, how progress moves
//! it on, and the cap on that. The handle keeps one per request, the
//! request code makes them, the sweeper ([`super::deadline`]) acts on them.

use std::time::Duration;

/// Progress notifications restart a request's timeout, but a request never
/// runs longer than this many timeouts in all.
pub const MAX_PROGRESS_FACTOR: u32 = 10;

/// `now + d`, or a far future when that does not fit.
pub(super) fn deadline_after(d: Duration) -> tokio::time::Instant {
    let now = tokio::time::Instant::now();
    now.checked_add(d)
        .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 3600))
}

/// A request's deadline. Progress moves `at` on, up to `hard`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Deadline {
    pub(super) at: tokio::time::Instant,
    pub(super) hard: tokio::time::Instant,
    pub(super) timeout: Duration,
}

impl Deadline {
    pub(super) fn after(timeout: Duration) -> Deadline {
        Deadline {
            at: deadline_after(timeout),
            hard: deadline_after(timeout.saturating_mul(MAX_PROGRESS_FACTOR)),
            timeout,
        }
    }

    /// Progress: the clock starts again, but never past `hard`.
    pub(super) fn extend(&mut self) {
        self.at = deadline_after(self.timeout).min(self.hard);
    }
}
