//! One server connection: era detection and handshake, requests with
//! timeouts and cancellation, pagination, answers to the server's requests,
//! and the raw frame tap.
//!
//! - `model`: what to connect to, what was negotiated, events and errors;
//! - `policy`: how the server's own requests are answered;
//! - `handle`: the [`Session`] handle and its shared state;
//! - `open`: starting the transport; `negotiate`: era detection and the
//!   handshake; `request`: requests, timeouts, cancellation;
//!   `list`: pagination; `task`: task-augmented calls;
//!   `subscribe`: subscriptions; `inbound`: what the server sends;
//!   `memory`: the era remembered between runs;
//! - `timeout`: a request's deadline as a value, `deadline`: the one
//!   timer that acts on them.
//!
//! Below `handle`, nothing names it: `model`, `policy` and `timeout` are
//! plain data the handle holds (the session ids too live in `model`).

mod deadline;
mod handle;
mod inbound;
mod list;
mod memory;
mod model;
mod negotiate;
mod open;
mod policy;
mod request;
mod subscribe;
mod task;
mod timeout;

pub use handle::{PendingRequest, Session};
pub use memory::{ENV as ERA_MEMORY_ENV, EraMemory, Remembered};
pub use model::{
    CacheHint, ConnectError, EventSink, ListSet, Lists, MAX_INPUT_ROUNDS, Negotiated, Pin,
    RequestError, SessionEvent, SessionSpec, Tagged, TransportSpec, next_session_id,
};
pub use policy::{Asker, ClientPolicy, Declared, ServerRequest, SharedRoots, UnknownCapability};
pub use request::{LOG_LEVELS, PASS_THROUGH, envelope, envelope_with};
pub use task::{MAX_TASK_POLLS, TASK_TTL_MS, TaskStatus};
pub use timeout::MAX_PROGRESS_FACTOR;
