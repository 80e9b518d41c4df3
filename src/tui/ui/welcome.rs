//! The welcome screen when no server is configured.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

use crate::tui::app::State;
use crate::tui::keymap::Action;

use super::*;

pub(super) fn render_empty(s: &State, f: &mut Frame, area: Rect) {
    let path = s
        .config_path
        .as_ref()
        .map(|p| clean(&p.display().to_string()))
        .unwrap_or_else(|| "(no config file)".into());
    let add = s
        .keymap
        .key_label(Action::AddServer)
        .unwrap_or_else(|| "a".into());
    let import = s
        .keymap
        .key_label(Action::Import)
        .unwrap_or_else(|| "i".into());
    let lines = vec![
        Line::styled(
            "No servers yet",
            Style::default().add_modifier(Modifier::BOLD),
        ),
        Line::raw(""),
        Line::raw(format!(
            "Press {add} to add one: a name and the command that starts it."
        )),
        Line::raw(format!("It is written to {path}.")),
        Line::raw(""),
        Line::raw("Already using Claude, VS Code, Cursor, Windsurf, Zed, Codex or Gemini?"),
        Line::raw(format!("Press {import} to import their servers.")),
        Line::raw(""),
        Line::raw("Or write the file yourself: config.example.toml documents every option."),
        Line::raw("To look around first: mcpdeck --demo"),
    ];
    popup(f, area, 76, "Welcome to mcpdeck", lines);
}
