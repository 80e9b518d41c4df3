//! mcpdeck: a terminal deck for working with MCP servers by hand.
//!
//! The layers, each using only those above it:
//! - shared helpers: [`text`] (durations, sizes, file names), [`sanitize`]
//!   (what a server sends, made safe for a terminal), [`schema`] (JSON
//!   Schema checks, skeletons, rows and smoke arguments), [`uritemplate`];
//! - [`config`]: the TOML model, `${VAR}` expansion, errors with line and
//!   column, comment-keeping write-back;
//! - [`mcp`]: the protocol core (no UI): transports, sessions, the manager;
//! - [`secret`]: named secrets in the credential store (the keyring, else
//!   a 0600 file), `${secret:NAME}` in the config put in when a server
//!   connects;
//! - [`registry`]: the MCP Registry (API v0.1): search, entries, what an
//!   entry runs (no UI);
//! - [`telemetry`]: a span per MCP request over OTLP/HTTP (no UI), fed
//!   by the sessions when an endpoint is configured;
//! - [`demo`]: the built-in demo server;
//! - [`diff`]: two versions of a server's tools, prompts, resources and
//!   templates compared, each change breaking or not;
//! - [`startup`]: logging, the runtime, signals, the server registry;
//! - [`trace`]: what a headless run tells on stderr of its servers
//!   (`--trace`, unverified TLS), with the `--record` tap;
//! - [`serve`]: `mcpdeck serve`, an MCP server for agents in front of the
//!   configured servers (the manager's sessions, the config's policy);
//! - [`cli`] (headless commands) and [`tui`] (the terminal UI), side by
//!   side on the same core;
//! - [`entry`]: what `main` runs, the choice between the two.

pub mod cli;
pub mod config;
pub mod demo;
pub mod diff;
pub mod entry;
pub mod fsutil;
pub mod mcp;
pub mod record;
pub mod registry;
pub mod sanitize;
pub mod schema;
pub mod secret;
pub mod serve;
pub mod startup;
pub mod suite;
pub mod telemetry;
pub mod text;
pub mod trace;
pub mod trust;
pub mod tui;
pub mod uritemplate;
