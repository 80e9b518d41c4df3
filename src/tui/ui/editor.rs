//! The argument editor, with problems by path under it.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::tui::app::State;
use crate::tui::keymap::Action;

use super::*;

pub(super) fn render_editor(s: &State, f: &mut Frame, area: Rect) {
    let Some(e) = &s.editor else { return };
    let problems = e.problems.len().clamp(1, 6) as u16;
    let [text, below] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(problems + 2)]).areas(area);
    let send = s.keymap.key_label(Action::Send).unwrap_or_default();
    let title = format!(
        "Arguments · {} on {} · {send} sends",
        clean(&e.tool),
        clean(&e.server)
    );
    let mut area_widget = e.text.clone();
    area_widget.set_block(block(title, true));
    f.render_widget(&area_widget, text);
    let lines: Vec<Line> = if e.problems.is_empty() {
        vec![Line::styled(
            "✓ valid against the inputSchema",
            Role::Ok.style(),
        )]
    } else {
        e.problems
            .iter()
            .take(6)
            .map(|p| Line::styled(format!("✗ {}", clean(p)), Role::Error.style()))
            .collect()
    };
    f.render_widget(
        Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title("Validation")),
        below,
    );
}
