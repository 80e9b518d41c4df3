//! Editing the roots offered to one server (`D`): a line of directories
//! (quoted like a shell's words), written to the server's `roots` in the
//! config (comments kept), then applied in place: the server's session
//! offers them at once and a connected server is told with
//! `notifications/roots/list_changed`, without reconnecting.

use crossterm::event::KeyEvent;

use crate::tui::keymap::Action;

use super::keys::{edit_line, sh_quote};
use super::*;

/// The roots line being edited.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RootsEdit {
    pub server: String,
    pub line: String,
    /// The server has no roots of its own (it takes the global ones).
    pub inherits: bool,
    pub error: Option<String>,
}

/// `D`: edit the selected server's roots.
pub(super) fn open(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let Some(v) = s.selected_server() else {
        s.status = Some("no server selected".into());
        return true;
    };
    if s.roots_flag {
        s.status =
            Some("the roots come from --roots for this run: they are not edited here".into());
        return true;
    }
    if s.config_path.is_none() {
        s.status = Some("this session has no config file (demo): roots are not saved".into());
        return true;
    }
    // The roots as written in the file (the loaded ones have their
    // `${VAR}`s filled in and relative paths made absolute): the driver
    // reads them (`Msg::RootsRead`).
    fx.push(Effect::ReadRoots(v.name.clone()));
    true
}

/// The roots of `server` as written in the config file: `None` when it
/// has no `roots` key (it takes the global ones).
pub fn raw_roots(text: &str, server: &str) -> Result<Option<Vec<String>>, String> {
    let doc = super::curl::parse_config(text)?;
    let table = super::curl::server_table(&doc, server)?;
    let Some(roots) = table.get("roots") else {
        return Ok(None);
    };
    let array = roots
        .as_array()
        .ok_or_else(|| format!("{server}: roots is not a list in the config file"))?;
    Ok(Some(
        array
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
    ))
}

/// The driver read the server's roots: the dialog opens on them as
/// written (`-` when it takes the global ones, so Enter keeps that).
pub(super) fn read(s: &mut State, server: String, roots: Result<Option<Vec<String>>, String>) {
    let roots = match roots {
        Ok(r) => r,
        Err(why) => {
            s.status = Some(format!("roots not editable: {why}"));
            return;
        }
    };
    let inherits = roots.is_none();
    let line = match &roots {
        None => "-".to_string(),
        Some(dirs) => dirs
            .iter()
            .map(|d| sh_quote(d))
            .collect::<Vec<_>>()
            .join(" "),
    };
    s.roots_edit = Some(RootsEdit {
        server,
        line,
        inherits,
        error: None,
    });
    s.mode = Mode::Roots;
}

pub(super) fn key(s: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let Some(e) = s.roots_edit.as_mut() else {
        s.mode = Mode::Normal;
        return true;
    };
    if edit_line(&mut e.line, &k) {
        e.error = None;
        return true;
    }
    match s.keymap.action(&k) {
        Some(Action::Back) => {
            s.roots_edit = None;
            s.mode = Mode::Normal;
        }
        Some(Action::ClearField) => e.line.clear(),
        Some(Action::Open) => {
            let roots = if e.line.trim() == "-" {
                None
            } else {
                match crate::text::split_command(&e.line) {
                    Ok(words) => Some(words),
                    Err(why) => {
                        e.error = Some(why.to_string());
                        return true;
                    }
                }
            };
            if roots.iter().flatten().any(|d| d.starts_with('~')) {
                e.error = Some("~ is not expanded in the config: write ${HOME}/… instead".into());
                return true;
            }
            fx.push(Effect::WriteRoots {
                server: e.server.clone(),
                roots,
            });
            s.roots_edit = None;
            s.mode = Mode::Normal;
        }
        _ => return false,
    }
    true
}
