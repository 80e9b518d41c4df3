//! The protocol core: both MCP eras, every transport, no UI. It never
//! imports `tui` or `cli`, and no file in it is part of an import circle.
//!
//! - [`jsonrpc`]: the lenient envelope parser and serializers;
//! - [`types`]: views of tools, content blocks and results;
//! - [`finding`]: what was off-spec in a frame, for a person to read;
//! - [`framelog`], [`netlog`]: the raw frames and HTTP exchanges, kept in
//!   rings (the protocol log, the network view, `--trace`), and
//!   [`change`], the signal their viewers sleep on;
//! - [`known`]: the secret values this process holds, masked wherever
//!   shown;
//! - [`bearer`]: what the HTTP transport and the OAuth engine share (the
//!   [`bearer::Authorize`] seam, challenges, secrets, `AuthError`), below
//!   both;
//! - [`transport`]: stdio, streamable HTTP and legacy HTTP+SSE behind one
//!   type;
//! - [`auth`]: the OAuth engine, above the transports (it uses their HTTP
//!   helpers; the transport reaches it only through `bearer::Authorize`);
//! - [`session`]: one server: era detection and the handshake, requests
//!   with timeouts and cancellation, pagination, tasks, subscriptions,
//!   answers to the server's own requests;
//! - [`manager`]: the background task that owns every session: commands
//!   in, events out (the TUI and the CLI both drive it);
//! - [`apps`]: MCP Apps views (read and checked, never rendered);
//! - [`skills`]: Agent Skills (SEP-2640): listing, loading and verifying;
//! - [`error`]: the kind of every failure, which the CLI maps to exit
//!   codes and the TUI to badges.

pub mod apps;
pub mod auth;
pub mod bearer;
pub mod change;
pub mod error;
pub mod finding;
pub mod framelog;
pub mod jsonrpc;
pub mod known;
pub mod manager;
pub mod netlog;
pub mod session;
pub mod skills;
pub mod transport;
pub mod types;

pub use finding::{Finding, Severity};
pub use framelog::{Direction, Frame, FrameLog};
pub use session::{
    ClientPolicy, ConnectError, Negotiated, Pin, RequestError, Session, SessionSpec,
};
pub use types::{CallResult, Content, Era, Tool};
