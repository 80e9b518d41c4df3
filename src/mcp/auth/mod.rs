//! OAuth 2.1 for HTTP servers: the engine that starts on a 401.
//!
//! It sits above the transports: it uses their HTTP helpers, and the HTTP
//! transport reaches it only through [`crate::mcp::bearer::Authorize`],
//! which [`Authorizer`] implements. What both sides share (the challenge,
//! [`Secret`], [`AuthError`] and its trace) is in [`crate::mcp::bearer`],
//! below both; `challenge`, `secret` and `error` are re-exported here.
//!
//! - [`http`]: metadata fetched under guard, token and registration POSTs;
//! - [`discovery`]: protected resource and authorization server metadata;
//! - [`register`]: who the client is (pre-registered, CIMD, dynamic);
//! - [`token`]: token endpoint requests and client authentication;
//! - [`engine`]: one server's authorizer (tokens, refresh, step-up, logins);
//! - [`registry`]: one authorizer per server and process;
//! - [`report`]: what a login shows while it runs, and where it goes when
//!   nobody asked (below both the engine and the registry);
//! - [`store`]: where tokens and registrations are kept (keyring or file);
//! - [`callback`]: the loopback redirect listener;
//! - [`browser`]: which command opens a login URL;
//! - [`jwt`]: `private_key_jwt` client assertions (ES256, RS256);
//! - [`dpop`]: DPoP keys and proofs (RFC 9449), for sender-bound tokens.

pub mod browser;
pub mod callback;
pub mod discovery;
pub mod dpop;
pub mod engine;
pub mod http;
pub mod jwt;
pub mod register;
pub mod registry;
pub mod report;
pub mod store;
pub mod token;

pub use crate::mcp::bearer::{AuthError, AuthErrorKind, Secret, Trace, TraceStep};
pub use crate::mcp::bearer::{challenge, error, secret};
pub use engine::{AuthSpec, Authorizer, TokenInfo};
pub use registry::{allow_unattended_login, authorizer};
pub use report::{LoginEvent, Reporter, set_default_reporter};
pub use token::now;
