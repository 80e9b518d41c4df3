//! What a login shows while it runs, and where the events of logins
//! nobody asked for go (the process's default reporter). Below both the
//! engine, which reports, and the registry, which hands out engines.

use std::sync::{Arc, Mutex, OnceLock};

use crate::mcp::bearer::Trace;

/// What a login shows while it runs.
#[derive(Debug, Clone)]
pub enum LoginEvent {
    /// Discovery finished: each URL tried and what was concluded.
    Discovered(Trace),
    /// Open this URL in a browser (it holds no secret).
    OpenUrl(String),
    /// How the URL was opened, or that it must be opened by hand.
    Browser(String),
    /// Waiting for the browser to come back.
    Waiting,
    /// Exchanging the code for a token.
    Exchanging,
}

/// Receives a login's events.
pub type Reporter = Arc<dyn Fn(LoginEvent) + Send + Sync>;

fn default_reporter() -> &'static Mutex<Option<Reporter>> {
    static R: OnceLock<Mutex<Option<Reporter>>> = OnceLock::new();
    R.get_or_init(|| Mutex::new(None))
}

/// Where the events of logins nobody asked for go (the CLI prints them).
pub fn set_default_reporter(reporter: Option<Reporter>) {
    *default_reporter().lock().unwrap_or_else(|p| p.into_inner()) = reporter;
}

pub(super) fn default_reporter_now() -> Option<Reporter> {
    default_reporter()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
}
