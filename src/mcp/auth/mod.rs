//! OAuth 2.1 for HTTP servers: the engine that starts on a 401.
//!
//! - [`challenge`]: `WWW-Authenticate` parsing;
//! - [`secret`]: a string that never shows;
//! - [`store`]: where tokens and registrations are kept (keyring or file);
//! - [`callback`]: the loopback redirect listener;
//! - [`browser`]: which command opens a login URL;
//! - [`jwt`]: `private_key_jwt` client assertions (ES256, RS256).

pub mod browser;
pub mod callback;
pub mod challenge;
pub mod jwt;
pub mod secret;
pub mod store;

pub use secret::Secret;
