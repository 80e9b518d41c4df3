//! The argument editor: the form made from the schema, or the raw JSON
//! with the schema beside or under it when there is room; the problems by
//! path under either.

mod form;

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::tui::app::{Editor, State};
use crate::tui::argform::Kind;
use crate::tui::keymap::Action;

use super::*;

/// The JSON and the schema side by side from this inner width on.
const BESIDE: u16 = 64;
/// The schema under the JSON from this inner height on.
const UNDER: u16 = 8;

pub(super) fn render_editor(s: &State, f: &mut Frame, area: Rect) {
    let Some(e) = &s.editor else { return };
    let send = s.keymap.key_label(Action::Send).unwrap_or_default();
    let title = format!(
        "Arguments · {} on {} · {send} sends",
        clean(&e.tool),
        clean(&e.server)
    );
    let view = match (&e.form, e.in_form) {
        (Ok(_), true) => " form ",
        _ => " JSON ",
    };
    let style = Role::Accent.style().add_modifier(Modifier::BOLD);
    let outer = block(title, true).title(Line::styled(view, style).right_aligned());
    let inner = outer.inner(area);
    f.render_widget(outer, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let [top, body, bottom] = layout_parts(e, inner);
    if let Some(note) = &e.note {
        f.render_widget(
            Paragraph::new(Line::styled(
                format!("⚠ {}", clean(note)),
                Role::Warn.style(),
            ))
            .wrap(Wrap { trim: false }),
            top,
        );
    }
    match &e.form {
        Ok(form) if e.in_form => form::render(s, form, f, body),
        _ => render_json(e, f, body),
    }
    render_problems(e, f, bottom);
}

/// The note on top, the editor, the problems under it.
fn layout_parts(e: &Editor, inner: Rect) -> [Rect; 3] {
    let note_rows = e.note.as_ref().map_or(0, |n| {
        let w = inner.width.max(1) as usize;
        ((clean(n).chars().count() + 2).div_ceil(w)).min(2) as u16
    });
    // The problems: the whole list when it fits, at most a third.
    let most = (inner.height.saturating_sub(note_rows) / 3).max(1);
    let lines = (e.problems.len() as u16).clamp(1, most);
    let bottom = if inner.height > note_rows + 3 {
        lines + 1
    } else {
        0
    };
    Layout::vertical([
        Constraint::Length(note_rows),
        Constraint::Min(1),
        Constraint::Length(bottom),
    ])
    .areas(inner)
}

fn render_json(e: &Editor, f: &mut Frame, area: Rect) {
    let (text, schema) = if area.width >= BESIDE {
        let side = (area.width * 2 / 5).clamp(24, 48);
        let [t, sc] =
            Layout::horizontal([Constraint::Min(20), Constraint::Length(side)]).areas(area);
        (t, Some((sc, Borders::LEFT)))
    } else if area.height >= UNDER {
        let rows = (area.height / 3).max(3);
        let [t, sc] = Layout::vertical([Constraint::Min(4), Constraint::Length(rows)]).areas(area);
        (t, Some((sc, Borders::TOP)))
    } else {
        (area, None)
    };
    let mut widget = e.text.clone();
    widget.set_cursor_line_style(Style::default());
    f.render_widget(&widget, text);
    if let Some((rect, borders)) = schema {
        let mut lines = Vec::new();
        match &e.schema {
            Some(sc) => super::detail::schema_lines(sc, &mut lines),
            None => lines.push(Line::styled("  (no inputSchema)", Role::Warn.style())),
        }
        // Wrapped under their own text (the left border takes a column).
        let inner = if borders == Borders::LEFT || borders.contains(Borders::LEFT) {
            rect.width.saturating_sub(1)
        } else {
            rect.width
        };
        let lines = super::detail::hang(lines, inner as usize);
        f.render_widget(
            Paragraph::new(lines).wrap(Wrap { trim: false }).block(
                Block::default()
                    .borders(borders)
                    .border_style(Role::Muted.style())
                    .title(Span::styled("Schema", Role::Muted.style())),
            ),
            rect,
        );
    }
}

/// The problems by path, or that the arguments are valid; "… n more"
/// when they do not all fit.
fn render_problems(e: &Editor, f: &mut Frame, area: Rect) {
    if area.height == 0 {
        return;
    }
    let rows = area.height.saturating_sub(1) as usize;
    let width = area.width as usize;
    let lines: Vec<Line> = if e.problems.is_empty() {
        vec![Line::styled(
            "✓ valid against the inputSchema",
            Role::Ok.style(),
        )]
    } else {
        let n = e.problems.len();
        let shown = if n > rows { rows.saturating_sub(1) } else { n };
        let mut lines: Vec<Line> = e
            .problems
            .iter()
            .take(shown)
            .map(|p| {
                Line::styled(
                    super::fit(&format!("✗ {}", clean(p)), width)
                        .trim_end()
                        .to_string(),
                    Role::Error.style(),
                )
            })
            .collect();
        if shown < n {
            lines.push(Line::styled(
                format!("… {} more", n - shown),
                Role::Error.style(),
            ));
        }
        lines
    };
    f.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::TOP)
                .border_style(Role::Muted.style())
                .title(Span::styled("Validation", Role::Muted.style())),
        ),
        area,
    );
}

/// The status bar's hint in the editor: the keys of the view shown, the
/// focused field's own first.
pub(super) fn hint(s: &State) -> String {
    let k = &s.keymap;
    let Some(e) = &s.editor else {
        return k.hint(&[Action::Send, Action::Back]);
    };
    match &e.form {
        Ok(form) if e.in_form => {
            let mut items = vec![(Action::Send, "send")];
            match form.focused() {
                Some(n) if matches!(n.kind, Kind::Bool(_)) => items.push((Action::Toggle, "flip")),
                Some(n) if matches!(n.kind, Kind::Choice { .. }) => {
                    items.push((Action::Right, "choose"))
                }
                Some(n) if matches!(n.kind, Kind::Array { .. }) => {
                    items.push((Action::AddItem, "add item"))
                }
                _ => {}
            }
            if form.in_list() {
                items.push((Action::AddItem, "add item"));
                items.push((Action::RemoveItem, "remove item"));
            }
            items.extend([
                (Action::NextPane, "next field"),
                (Action::ToggleJson, "JSON"),
                (Action::ResetArgs, "reset"),
                (Action::Back, "back"),
            ]);
            k.hint_with(&items, form.typing())
        }
        _ => {
            let mut items = vec![(Action::Send, "send")];
            if e.form.is_ok() {
                items.push((Action::ToggleJson, "form"));
            }
            items.extend([
                (Action::NextPane, "next value"),
                (Action::ResetArgs, "reset"),
                (Action::ExternalEditor, "$EDITOR"),
                (Action::Back, "back"),
                (Action::SelectAll, "select all"),
            ]);
            k.hint_with(&items, true)
        }
    }
}
