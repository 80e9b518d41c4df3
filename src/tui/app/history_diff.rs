//! The diff of two calls in the history (`m` marks, `d` shows): their
//! arguments field by field, with a word diff (the pin diff's machinery,
//! `trust::pin::values`), and their results line by line as the result
//! pane shows them (`trust::pin::line_diff`).

use ratatui::text::{Line, Span};

use crate::trust::pin::{WordChange, line_diff, render_words, values};
use crate::tui::history::Entry;
use crate::tui::theme::Role;

use super::*;

/// Unchanged result lines kept around a change; longer runs are cut.
const CONTEXT: usize = 3;

/// The diff shown over the history list.
#[derive(Debug, Clone, Default)]
pub struct HistoryDiff {
    pub title: String,
    pub lines: Vec<Line<'static>>,
    pub scroll: usize,
}

impl HistoryDiff {
    /// Its screen lines at `width` columns (long lines wrap).
    pub fn height(&self, width: u16) -> usize {
        ratatui::widgets::Paragraph::new(self.lines.clone())
            .wrap(ratatui::widgets::Wrap { trim: false })
            .line_count(width)
    }
}

/// `m`: mark the selected call, or unmark it; two at most (a third takes
/// the place of the older mark).
pub(super) fn mark(s: &mut State, e: Entry) {
    if let Some(i) = s.history_marked.iter().position(|m| *m == e) {
        s.history_marked.remove(i);
        s.status = Some("unmarked".into());
        return;
    }
    if s.history_marked.len() == 2 {
        s.history_marked.remove(0);
    }
    s.history_marked.push(e);
    let d = s.keymap.label(crate::tui::keymap::Action::DiffMarked);
    s.status = Some(match s.history_marked.len() {
        1 => format!("marked; mark another (or select one) and {d} shows the diff"),
        _ => format!("two marked: {d} shows the diff"),
    });
}

/// `d`: the diff of the two marked calls, or of the marked one and the
/// selected one; the older first.
pub(super) fn show(s: &mut State, selected: Option<Entry>) {
    let mut pair: Vec<Entry> = s.history_marked.clone();
    if pair.len() == 1
        && let Some(e) = selected.filter(|e| *e != pair[0])
    {
        pair.push(e);
    }
    let (a, b) = match pair.as_slice() {
        [a, b] => (a.clone(), b.clone()),
        _ => {
            s.status = Some(format!(
                "mark two calls ({}) to see their diff",
                s.keymap.label(crate::tui::keymap::Action::Mark)
            ));
            return;
        }
    };
    // The older first: the history is newest first (the same second can
    // hold both).
    let at = |e: &Entry| s.history.iter().position(|h| h == e).unwrap_or(0);
    let (a, b) = if at(&a) >= at(&b) { (a, b) } else { (b, a) };
    s.history_diff = Some(build(&a, &b));
}

/// One call's line at the top: `A  2026-11-28 05:01:02  demo  echo  ok  12 ms`.
fn head(tag: &str, e: &Entry) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{tag}  "), Role::Accent.style()),
        Span::raw(crate::sanitize::one_line(&format!(
            "{}  {}  {}  {}  {}  {}",
            crate::text::fmt_utc(e.at),
            e.server,
            e.tool,
            e.status.word(),
            crate::text::fmt_duration(std::time::Duration::from_millis(e.ms)),
            e.args_summary(200)
        ))),
    ])
}

/// The text the result pane shows for a kept call.
fn shown_text(e: &Entry) -> String {
    crate::tui::result::lines(&super::history_view::outcome_of(e), None).text_lines()
}

/// The diff of `a` (older) and `b`.
pub fn build(a: &Entry, b: &Entry) -> HistoryDiff {
    let mut lines = vec![head("A", a), head("B", b), Line::raw("")];
    // Arguments: each field that differs.
    let args = values(&a.args, &b.args);
    if args.is_empty() {
        lines.push(Line::styled("Arguments: the same", Role::Muted.style()));
    } else {
        lines.push(Line::styled(
            format!(
                "Arguments: {} field{} differ{}",
                args.len(),
                plural(args.len()),
                if args.len() == 1 { "s" } else { "" }
            ),
            Role::Accent
                .style()
                .add_modifier(ratatui::style::Modifier::BOLD),
        ));
        for f in &args {
            let field = if f.field.is_empty() {
                "(all)"
            } else {
                &f.field
            };
            let change = match (&f.before, &f.after) {
                (Some(_), Some(_)) => render_words(&f.words),
                (None, Some(x)) => format!("{{+{}+}}", crate::sanitize::one_line(x)),
                (Some(x), None) => format!("[-{}-]", crate::sanitize::one_line(x)),
                (None, None) => String::new(),
            };
            lines.push(Line::raw(crate::sanitize::one_line(&format!(
                "  {field}: {change}"
            ))));
        }
    }
    lines.push(Line::raw(""));
    // Results: line by line, as the result pane shows them.
    let (ta, tb) = (shown_text(a), shown_text(b));
    let runs = line_diff(&ta, &tb);
    let count = |pick: fn(&WordChange) -> Option<&String>| -> usize {
        runs.iter()
            .filter_map(pick)
            .map(|t| t.split_inclusive('\n').count())
            .sum()
    };
    let removed = count(|w| match w {
        WordChange::Removed(t) => Some(t),
        _ => None,
    });
    let added = count(|w| match w {
        WordChange::Added(t) => Some(t),
        _ => None,
    });
    if removed + added == 0 {
        lines.push(Line::styled("Result: the same", Role::Muted.style()));
    } else {
        lines.push(Line::styled(
            format!(
                "Result (as the result pane shows it): {removed} line{} removed, {added} added",
                plural(removed)
            ),
            Role::Accent
                .style()
                .add_modifier(ratatui::style::Modifier::BOLD),
        ));
        let last = runs.len().saturating_sub(1);
        for (i, run) in runs.iter().enumerate() {
            match run {
                WordChange::Same(t) => {
                    let rows: Vec<&str> = t.split_inclusive('\n').collect();
                    let keep_head = if i > 0 { CONTEXT } else { 0 };
                    let keep_tail = if i < last { CONTEXT } else { 0 };
                    if rows.len() > keep_head + keep_tail + 1 {
                        for r in &rows[..keep_head] {
                            lines.push(row("  ", r, Role::Muted));
                        }
                        lines.push(Line::styled(
                            format!("  … {} same lines …", rows.len() - keep_head - keep_tail),
                            Role::Muted.style(),
                        ));
                        for r in &rows[rows.len() - keep_tail..] {
                            lines.push(row("  ", r, Role::Muted));
                        }
                    } else {
                        for r in rows {
                            lines.push(row("  ", r, Role::Muted));
                        }
                    }
                }
                WordChange::Removed(t) => {
                    for r in t.split_inclusive('\n') {
                        lines.push(row("- ", r, Role::Error));
                    }
                }
                WordChange::Added(t) => {
                    for r in t.split_inclusive('\n') {
                        lines.push(row("+ ", r, Role::Ok));
                    }
                }
            }
        }
    }
    HistoryDiff {
        title: format!(
            "Diff · A {} · B {}",
            crate::text::fmt_utc(a.at),
            crate::text::fmt_utc(b.at)
        ),
        lines,
        scroll: 0,
    }
}

fn row(mark: &str, text: &str, role: Role) -> Line<'static> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    Line::styled(
        format!("{mark}{}", crate::sanitize::one_line(text)),
        role.style(),
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A key while the diff is shown: it scrolls, and Esc (or `q`) closes it.
pub(super) fn key(s: &mut State, action: Option<crate::tui::keymap::Action>) -> bool {
    use crate::tui::keymap::Action;
    let page = s.areas.main.height.saturating_sub(2).max(1) as usize;
    let width = s.areas.main.width.saturating_sub(2).max(1);
    let Some(d) = s.history_diff.as_mut() else {
        return false;
    };
    // Long lines wrap: the scroll is by screen line.
    let max = d.height(width).saturating_sub(page);
    match action {
        Some(Action::Up) => d.scroll = d.scroll.saturating_sub(1),
        Some(Action::Down) => d.scroll = (d.scroll + 1).min(max),
        Some(Action::PageUp) => d.scroll = d.scroll.saturating_sub(page),
        Some(Action::PageDown) => d.scroll = (d.scroll + page).min(max),
        Some(Action::Home) => d.scroll = 0,
        Some(Action::End) => d.scroll = max,
        Some(Action::Back | Action::Quit | Action::DiffMarked) => s.history_diff = None,
        _ => return false,
    }
    true
}
