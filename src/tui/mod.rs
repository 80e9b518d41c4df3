//! The interactive terminal UI. Pure state + update + render over the
//! manager's events (see STYLE.md); this module never reaches into
//! sessions directly.

pub mod app;
pub mod ask;
pub mod browse;
pub mod keymap;
mod launch;
pub mod layout;
pub mod result;
pub mod run;
mod terminal;
pub mod theme;
pub mod ui;

pub use launch::{LaunchError, launch};
