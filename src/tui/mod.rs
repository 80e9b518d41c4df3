//! The interactive terminal UI (in progress: see the TUI issue). Built as
//! pure state + update + render over the manager's events; this module
//! never reaches into sessions directly.

pub mod keymap;
