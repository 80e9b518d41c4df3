//! `mcpdeck serve`: an MCP server on stdio (newline-delimited JSON) for an
//! agent, in front of the configured servers.
//!
//! Upstream, every server is reached by the manager, as everywhere in
//! mcpdeck (its frames go into the same frame log: `--trace` and
//! `--record` work). Toward the agent, both eras are spoken: `initialize`
//! (the agent's version if mcpdeck speaks it, else the newest) and the
//! stateless requests (`params._meta` with the protocol version,
//! `server/discover`, `subscriptions/listen`).
//!
//! - `names`: the names the agent sees (one server transparent, several
//!   aggregated);
//! - `state`: what is served (servers, lists, policy, pins, call log);
//! - `agent`: the loop and the agent's own protocol (initialize,
//!   discover, lists, listen, its answers and retries); `agent/forward`:
//!   what goes to a server (names resolved, policy checked, calls, tasks,
//!   prompts, resources, completion); `agent/upstream`: the manager's
//!   events turned into frames for the agent, and the watched files
//!   applied; `agent/start`: start-up, and a context (its own manager)
//!   for each agent;
//! - `http`: `--http`, a session per `initialize`; `http/door`: the
//!   stateless era's front door; `http/route`: each context's router;
//!   `http/resume`: resumable request streams (`Last-Event-ID`);
//! - `watch`: the config file (and pin file) watched for changes;
//! - `control`: the control socket (status, a live watch, deny/allow/
//!   enable/disable), and finding the running serves.
//!
//! Stdout is the protocol: nothing else is written there; diagnostics go
//! to stderr.

mod agent;
pub mod control;
mod http;
pub mod names;
pub mod state;

use std::path::PathBuf;

use clap::Args;

pub use names::Naming;

/// A line for the agent, and the id of the agent's request it belongs to
/// (if it belongs to one): what the agent side hands to the stdio writer
/// and to the HTTP side.
pub(in crate::serve) type Out = (String, Option<serde_json::Value>);
pub use state::{CallRecord, ServeState, Upstream, Visible, Withheld};

/// `mcpdeck serve [SERVER…] [--all] [--pinned]`.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// The configured servers to serve (one: served transparently, under
    /// its own names; several: as SERVER__NAME)
    #[arg(value_name = "SERVER")]
    pub servers: Vec<String>,
    /// Serve every enabled server (names always qualified, as servers may
    /// come and go with the config)
    #[arg(long, conflicts_with = "servers")]
    pub all: bool,
    /// Withhold tools that are not pinned, or changed since pinned
    /// (`mcpdeck pin`), until they are pinned again
    #[arg(long)]
    pub pinned: bool,
    /// Serve Streamable HTTP at ADDR (e.g. 127.0.0.1:8808), endpoint /mcp, instead of stdio;
    /// loopback only unless --allow-remote
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// With --http: accept a non-loopback ADDR; clients must send
    /// `Authorization: Bearer TOKEN` ($MCPDECK_SERVE_TOKEN, else generated and printed once on stderr)
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// With --http: end a session unused for this many seconds (its
    /// upstream sessions with it); 0 keeps sessions until DELETE
    #[arg(long, value_name = "SECS", default_value_t = 1800)]
    pub session_idle: u64,
}

/// Why `serve` could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Wrong arguments.
    #[error("{0}")]
    Usage(String),
    /// Stdin or stdout failed.
    #[error("{0}")]
    Io(String),
}

/// Run `serve` until the agent closes stdin.
pub async fn run(
    config: crate::config::Config,
    args: ServeArgs,
    trace: bool,
    config_path: Option<PathBuf>,
) -> Result<(), ServeError> {
    // Each progress notification is the agent's: none is merged into the
    // next on the way.
    crate::mcp::manager::keep_every_progress(true);
    agent::run(config, args, trace, config_path).await
}
