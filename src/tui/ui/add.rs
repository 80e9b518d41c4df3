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
    let labels = ["name", "command or URL"];
    // The labels in a column of their own: a value never runs into them.
    let label_w = labels.iter().map(|l| l.len()).max().unwrap_or(0) + 2;
    let width = area.width.min(76);
    let value_w = (width as usize).saturating_sub(2 + label_w + 1).max(1);
    let field = |label: &str, value: &str, active: bool| {
        let style = if active {
            Role::Selected.style()
        } else {
            Style::default()
        };
        let cursor = if active { "▏" } else { "" };
        // The end of a long value (where the cursor is) stays in view.
        let value = clean(value);
        let n = value.chars().count();
        let shown = if n > value_w {
            let tail: String = value.chars().skip(n + 1 - value_w).collect();
            format!("…{tail}")
        } else {
            value
        };
        Line::from(vec![
            Span::styled(format!("{label:<label_w$}"), Role::Accent.style()),
            Span::styled(format!("{shown}{cursor}"), style),
        ])
    };
    let mut lines = vec![
        field(labels[0], &form.name, form.field == 0),
        field(labels[1], &form.command, form.field == 1),
        Line::styled(
            fit(
                "  e.g. node server.js  ·  https://host/mcp",
                width.saturating_sub(2) as usize,
            ),
            Role::Muted.style(),
        ),
    ];
    if let Some(e) = &form.error {
        for l in wrap_words(&format!("✗ {}", clean(e)), width.saturating_sub(2) as usize) {
            lines.push(Line::styled(l, Role::Error.style()));
        }
    }
    let title = format!(
        "Add a server ({} adds, {} cancels)",
        s.keymap.label(Action::Open),
        s.keymap.label(Action::Back)
    );
    popup(f, area, width, &title, lines);
}

/// The roots dialog (`D`): one line of directories for one server.
pub(super) fn render_roots(s: &State, f: &mut Frame, area: Rect) {
    let Some(e) = &s.roots_edit else { return };
    let width = area.width.min(76);
    let inner = width.saturating_sub(2) as usize;
    let mut lines = vec![input_line(&e.line, inner)];
    let now = if e.inherits {
        let global = &s.settings.roots;
        if global.is_empty() {
            "now: none of its own, and no global roots".to_string()
        } else {
            format!(
                "now: the global roots ({})",
                global
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        }
    } else {
        "now: its own roots, as above".to_string()
    };
    for l in wrap_words(&clean(&now), inner) {
        lines.push(Line::styled(l, Role::Muted.style()));
    }
    for hint in [
        "  e.g. /srv/app \"${HOME}/my notes\"  ·  - alone: the global roots",
        "  a relative path is taken from the config file's folder",
    ] {
        lines.push(Line::styled(fit(hint, inner), Role::Muted.style()));
    }
    if let Some(err) = &e.error {
        for l in wrap_words(&format!("✗ {}", clean(err)), inner) {
            lines.push(Line::styled(l, Role::Error.style()));
        }
    }
    let title = format!(
        "Roots of {} ({} saves, {} cancels)",
        clean(&e.server),
        s.keymap.label(Action::Open),
        s.keymap.label(Action::Back)
    );
    popup(f, area, width, &title, lines);
}
