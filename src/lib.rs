//! mcpdeck: a terminal deck for working with MCP servers by hand.
//!
//! The library is split into a protocol core (`mcp`) that never imports UI
//! code, the configuration model (`config`), the headless CLI (`cli`) and the
//! built-in demo server (`demo`).

pub mod cli;
pub mod config;
pub mod demo;
pub mod mcp;
pub mod sanitize;
pub mod schema;
pub mod startup;
pub mod text;
pub mod tui;
pub mod uritemplate;
