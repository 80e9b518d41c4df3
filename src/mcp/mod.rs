//! The protocol core. It never imports UI code.
//!
//! - [`jsonrpc`]: the lenient envelope parser and serializers;
//! - [`types`]: views of tools, content blocks and results;
//! - [`transport`]: stdio (HTTP arrives later) behind one type;
//! - [`session`]: one server: era detection, requests, pagination;
//! - [`manager`]: the background task that owns every session.

pub mod error;
pub mod finding;
pub mod framelog;
pub mod jsonrpc;
pub mod manager;
pub mod netlog;
pub mod session;
pub mod transport;
pub mod types;

pub use finding::{Finding, Severity};
pub use framelog::{Direction, Frame, FrameLog};
pub use session::{
    ClientPolicy, ConnectError, Negotiated, Pin, RequestError, Session, SessionSpec,
};
pub use types::{CallResult, Content, Era, Tool};
