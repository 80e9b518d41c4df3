//! The interactive terminal UI. Pure state + update + render over the
//! manager's events (see STYLE.md); it never reaches into sessions
//! directly, and imports nothing from `cli`.
//!
//! - [`app`]: the state, the messages and `update` (keys, mouse, manager
//!   events), with no I/O;
//! - [`argform`]: a tool's arguments as a form made from its schema;
//! - [`ask`], [`browse`], [`skills`]: views that own their state (the
//!   request screens; the resources and prompts views; the skills view,
//!   SEP-2640: listed, loaded and verified without waiting); [`attach`]:
//!   the running serves and the one attached to (its socket is the
//!   driver's); [`registry`]: the MCP Registry browser (search, try,
//!   add);
//! - [`keymap`]: keys to named actions, `[keys]`, the help and hints;
//! - [`ui`]: rendering, one file per pane or overlay; [`layout`] the
//!   geometry shared with `update`; [`theme`] colour roles; [`result`]
//!   results prepared once for display;
//! - [`run`]: the event loop, generic over the backend and the terminal
//!   host; `terminal` the real terminal; [`launch`] starting it on a
//!   config.

pub mod app;
pub mod argform;
pub mod ask;
pub mod attach;
pub mod browse;
pub mod history;
pub mod keymap;
mod launch;
pub mod layout;
pub mod registry;
pub mod result;
pub mod run;
pub mod skills;
mod terminal;
pub mod theme;
pub mod ui;

pub use launch::{LaunchError, launch, open_recording};
