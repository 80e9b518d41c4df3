//! The test suite picker (`T`, `X`) and the tests view (`X`): a suite's
//! steps, each opened to its failures and their diffs.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::{PickFor, State};
use crate::tui::keymap::Action;
use crate::tui::theme::Role;

use super::*;

/// The picker: the path typed, the suites found under the folder.
pub(super) fn render_pick(s: &State, f: &mut Frame, area: Rect) {
    let Some(p) = &s.suite_pick else { return };
    let width = area.width.min(90);
    let inner = width.saturating_sub(2) as usize;
    let mut lines = vec![input_line(&p.line, inner)];
    let base = clean(&p.base.display().to_string());
    lines.push(Line::styled(
        fit_end(&format!("  in {base}"), inner),
        Role::Muted.style(),
    ));
    // Room for the list: what the screen leaves.
    let room = (area.height as usize)
        .saturating_sub(lines.len() + 8)
        .max(1);
    if p.found.is_empty() {
        lines.push(Line::styled(
            fit_end("  no suites found here yet: a new file is made", inner),
            Role::Muted.style(),
        ));
    } else {
        lines.push(Line::styled(
            fit_end(
                &format!(
                    "  {} found ({}/{} takes one):",
                    p.found.len(),
                    s.keymap.label(Action::Up),
                    s.keymap.label(Action::Down)
                ),
                inner,
            ),
            Role::Muted.style(),
        ));
        let top = list_offset(p.sel.unwrap_or(0), room);
        for (i, name) in p.found.iter().enumerate().skip(top).take(room) {
            let text = fit_end(&format!("  {}", clean(name)), inner);
            lines.push(if p.sel == Some(i) {
                Line::styled(text, Role::Selected.style())
            } else {
                Line::raw(text)
            });
        }
    }
    if let Some(err) = &p.error {
        for l in wrap_words(&format!("✗ {}", clean(err)), inner) {
            lines.push(Line::styled(l, Role::Error.style()));
        }
    }
    let what = match &p.purpose {
        PickFor::Add(d) => format!(
            "Add {} on {} to a test suite",
            clean(&d.tool),
            clean(&d.server)
        ),
        PickFor::Run => "Run a test suite".to_string(),
    };
    let title = format!(
        "{what} ({} {}, {} cancels)",
        s.keymap.label(Action::Open),
        match p.purpose {
            PickFor::Add(_) => "adds",
            PickFor::Run => "runs",
        },
        s.keymap.label(Action::Back)
    );
    popup(f, area, width, &fit_end(&title, inner), lines);
}

/// The mark and its colour for a step's status.
fn mark(status: &str) -> (&'static str, Role) {
    match status {
        "passed" => ("✓", Role::Ok),
        "failed" => ("✗", Role::Error),
        "error" => ("!", Role::Error),
        _ => ("-", Role::Warn),
    }
}

/// The tests view: the steps, or the open one.
pub(super) fn render_tests(s: &State, f: &mut Frame, area: Rect) {
    let Some(v) = &s.tests else { return };
    let rows = area.height.saturating_sub(2).max(1) as usize;
    let width = area.width.saturating_sub(2) as usize;
    let file = clean(&v.file.display().to_string());
    if v.open
        && let Some(r) = v.rows.get(v.sel)
    {
        let all = crate::tui::app::suites::open_lines(r);
        let top = v.scroll.min(all.len().saturating_sub(1));
        // Sentences wrap; diff lines are cut (their columns line up).
        let mut lines: Vec<Line> = Vec::new();
        for (m, t) in all.iter().skip(top) {
            if lines.len() >= rows {
                break;
            }
            let style = match m {
                '-' | '✗' | '!' => Role::Error.style(),
                '+' | '✓' => Role::Ok.style(),
                '·' => Role::Muted.style(),
                _ => ratatui::style::Style::default(),
            };
            if matches!(m, '✗' | '!' | '·' | '✓') {
                for l in wrap_words(&clean(t), width.max(1)) {
                    lines.push(Line::styled(l, style));
                }
            } else {
                lines.push(Line::styled(fit_end(&clean(t), width), style));
            }
        }
        let (m, _) = mark(&r.status);
        let title = format!(
            "{m} {} · {} {} on {} · {} · step {}/{}",
            clean(&r.name),
            clean(&r.kind),
            clean(&r.status),
            clean(&r.server),
            crate::text::fmt_duration(std::time::Duration::from_secs_f64(r.ms.max(0.0) / 1000.0)),
            v.sel + 1,
            v.rows.len()
        );
        f.render_widget(Paragraph::new(lines).block(block(title, true)), area);
        return;
    }
    let mut lines: Vec<Line> = Vec::new();
    if v.running {
        lines.push(Line::styled(
            format!(
                "{} running `mcpdeck test {file}`…",
                SPINNER[s.spinner % SPINNER.len()]
            ),
            Role::Warn.style(),
        ));
    } else if let Some(e) = &v.error {
        for l in e.lines().flat_map(|l| wrap_words(&clean(l), width.max(1))) {
            lines.push(Line::styled(l, Role::Error.style()));
        }
    } else {
        let name_w = v
            .rows
            .iter()
            .map(|r| r.name.chars().count())
            .max()
            .unwrap_or(8)
            .clamp(8, 40);
        let top = list_offset(v.sel, rows);
        for (i, r) in v.rows.iter().enumerate().skip(top).take(rows) {
            let (m, role) = mark(&r.status);
            let first = r
                .failures
                .first()
                .map(|(_, msg, _)| msg.clone())
                .or_else(|| r.error.clone())
                .unwrap_or_default();
            let time = crate::text::fmt_duration(std::time::Duration::from_secs_f64(
                r.ms.max(0.0) / 1000.0,
            ));
            let fixed = format!(" {:<name_w$}  {time:>8}  ", fit(&clean(&r.name), name_w));
            let rest = fit_end(
                &clean(&first),
                width.saturating_sub(fixed.chars().count() + 2),
            );
            let mut spans = vec![
                Span::styled(format!(" {m}"), role.style()),
                Span::raw(fixed),
                Span::styled(rest, Role::Muted.style()),
            ];
            if i == v.sel {
                spans = selected_row(spans);
            }
            lines.push(Line::from(spans));
        }
        if v.rows.is_empty() {
            lines.push(Line::styled("No steps ran.", Role::Muted.style()));
        }
    }
    let title = format!(
        "Tests · {} ({}) · {file}",
        v.summary(),
        position(v.sel, v.rows.len(), rows)
    );
    f.render_widget(
        Paragraph::new(lines).block(block(fit_end(&title, width), true)),
        area,
    );
}
