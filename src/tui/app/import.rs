//! The import screen: servers found in other clients' files (Claude
//! Desktop and Code, VS Code, Cursor, Windsurf, Zed, Codex, Gemini), with
//! a box each, their warnings and the TOML each would add. The files are
//! read by the driver (`Effect::FindImports`); confirming hands the
//! ticked servers to it (`Effect::Import`), which writes them through
//! the comment-preserving write-back and reloads.

use crossterm::event::KeyEvent;

use crate::tui::keymap::Action;

use super::model::*;
use super::*;

/// Open the import screen and ask the driver to look.
pub(super) fn open(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    s.import = Some(ImportView {
        loading: true,
        ..ImportView::default()
    });
    s.mode = Mode::Import;
    fx.push(Effect::FindImports);
    true
}

/// What the driver found.
pub(super) fn found(s: &mut State, found: Result<ImportFound, String>) -> bool {
    let Some(view) = s.import.as_mut() else {
        return false;
    };
    view.loading = false;
    match found {
        Ok(f) => {
            view.rows = f.rows;
            view.errors = f.errors;
            view.files = f.files;
            view.sel = 0;
        }
        Err(e) => view.errors = vec![e],
    }
    true
}

pub(super) fn key(
    s: &mut State,
    _k: KeyEvent,
    action: Option<Action>,
    fx: &mut Vec<Effect>,
) -> bool {
    let Some(view) = s.import.as_mut() else {
        s.mode = Mode::Normal;
        return true;
    };
    let n = view.rows.len();
    let by: isize = match action {
        Some(Action::Up) => -1,
        Some(Action::Down) => 1,
        Some(Action::PageUp) => -10,
        Some(Action::PageDown) => 10,
        Some(Action::Home) => isize::MIN / 2,
        Some(Action::End) => isize::MAX / 2,
        Some(Action::ToggleServer | Action::Toggle) => {
            let Some(row) = view.rows.get_mut(view.sel) else {
                return false;
            };
            if row.already {
                s.status = Some(format!(
                    "{} is in the config already",
                    crate::sanitize::one_line(&row.item.name)
                ));
            } else {
                row.checked = !row.checked;
            }
            return true;
        }
        Some(Action::AllTools) => {
            // All or none.
            let all = view.rows.iter().filter(|r| !r.already).all(|r| r.checked);
            for r in view.rows.iter_mut().filter(|r| !r.already) {
                r.checked = !all;
            }
            return true;
        }
        Some(Action::Open | Action::Send) => {
            let chosen = view.chosen();
            if chosen.is_empty() {
                s.status = Some(format!(
                    "nothing ticked to import ({} ticks a server)",
                    s.keymap.label(Action::ToggleServer)
                ));
                return true;
            }
            s.status = Some(format!(
                "importing {} server{}…",
                chosen.len(),
                if chosen.len() == 1 { "" } else { "s" }
            ));
            fx.push(Effect::Import(chosen));
            s.import = None;
            s.mode = Mode::Normal;
            return true;
        }
        Some(Action::Back | Action::Quit) => {
            s.import = None;
            s.mode = Mode::Normal;
            return true;
        }
        Some(Action::Help) => {
            s.help_back = Some(Mode::Import);
            s.mode = Mode::Help;
            return true;
        }
        _ => return false,
    };
    let new = step(view.sel, by, n);
    let moved = new != view.sel;
    view.sel = new;
    moved
}
