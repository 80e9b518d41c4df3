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
    let find = s
        .keymap
        .key_label(Action::Registry)
        .unwrap_or_else(|| "F".into());
    let text = [
        String::new(),
        format!("Press {add} to add one: a name and the command that starts it."),
        format!("It is written to {path}."),
        String::new(),
        format!("Press {find} to find one in the MCP Registry, try it, and add it."),
        String::new(),
        "Already using Claude, VS Code, Cursor, Windsurf, Zed, Codex or Gemini?".to_string(),
        format!("Press {import} to import their servers."),
        String::new(),
        "Or write the file yourself: config.example.toml documents every option.".to_string(),
        "To look around first: mcpdeck --demo".to_string(),
    ];
    // Wrapped to the popup, so nothing is cut on a narrow screen.
    let width = area.width.min(76).saturating_sub(2) as usize;
    let mut lines = vec![Line::styled(
        "No servers yet",
        Style::default().add_modifier(Modifier::BOLD),
    )];
    for t in text {
        lines.extend(wrap_words(&t, width).into_iter().map(Line::raw));
    }
    popup(f, area, 76, "Welcome to mcpdeck", lines);
}
