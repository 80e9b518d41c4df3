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
pub(super) fn open(s: &mut State) -> bool {
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
    let own = v.trust.config.as_ref().and_then(|c| c.roots.clone());
    let inherits = own.is_none();
    let dirs = own.unwrap_or_default();
    let line = dirs
        .iter()
        .map(|d| sh_quote(&d.display().to_string()))
        .collect::<Vec<_>>()
        .join(" ");
    s.roots_edit = Some(RootsEdit {
        server: v.name.clone(),
        line,
        inherits,
        error: None,
    });
    s.mode = Mode::Roots;
    true
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
            if let Some(rel) = roots
                .iter()
                .flatten()
                .find(|d| !d.starts_with('/') && !d.starts_with("${"))
            {
                // Relative: from the config file's folder, as the loader
                // takes it; said, so it is no surprise.
                s.status = Some(format!(
                    "{} is taken from the config file's folder",
                    crate::sanitize::one_line(rel)
                ));
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
