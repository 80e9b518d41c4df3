//! OAuth 2.1 for HTTP servers: the engine that starts on a 401.
//!
//! - [`challenge`]: `WWW-Authenticate` parsing;
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
//! - [`secret`]: a string that never shows; [`error`]: failures and traces.

pub mod browser;
pub mod callback;
pub mod challenge;
pub mod discovery;
pub mod engine;
pub mod error;
pub mod http;
pub mod jwt;
pub mod register;
pub mod registry;
pub mod report;
pub mod secret;
pub mod store;
pub mod token;

pub use engine::{AuthSpec, Authorizer, TokenInfo};
pub use error::{AuthError, AuthErrorKind, Trace, TraceStep};
pub use registry::{allow_unattended_login, authorizer};
pub use report::{LoginEvent, Reporter, set_default_reporter};
pub use secret::Secret;
pub use token::now;
