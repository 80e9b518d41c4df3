//! The add-server dialog.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::app::State;
use crate::tui::keymap::Action;

use super::*;

pub(super) fn render_add(s: &State, f: &mut Frame, area: Rect) {
    let form = &s.add;
    let field = |label: &str, value: &str, active: bool| {
        let style = if active {
            Role::Selected.style()
        } else {
            Style::default()
        };
        let cursor = if active { "▏" } else { "" };
        Line::from(vec![
            Span::raw(format!("{label:<9}")),
            Span::styled(format!("{}{cursor}", clean(value)), style),
        ])
    };
    let mut lines = vec![
        field("name", &form.name, form.field == 0),
        field("command or URL", &form.command, form.field == 1),
        Line::styled(
            "  e.g. npx -y @modelcontextprotocol/server-everything",
            Role::Muted.style(),
        ),
    ];
    if let Some(e) = &form.error {
        lines.push(Line::styled(format!("✗ {}", clean(e)), Role::Error.style()));
    }
    let title = format!(
        "Add a server ({} adds, {} cancels)",
        s.keymap.label(Action::Open),
        s.keymap.label(Action::Back)
    );
    popup(f, area, 76, &title, lines);
}
