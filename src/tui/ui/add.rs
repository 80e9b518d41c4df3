//! The add-server dialog.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::tui::app::State;

use super::*;

pub(super) fn render_add(s: &State, f: &mut Frame, area: Rect) {
    let form = &s.add;
    let field = |label: &str, value: &str, active: bool| {
        let style = if active {
            Style::default().add_modifier(Modifier::REVERSED)
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
            Style::default().fg(Color::DarkGray),
        ),
    ];
    if let Some(e) = &form.error {
        lines.push(Line::styled(
            format!("✗ {}", clean(e)),
            Style::default().fg(Color::Red),
        ));
    }
    popup(f, area, 76, "Add a server (Enter adds, Esc cancels)", lines);
}
