//! The argument form: a row per field (its name, required marked, the
//! value, the problem at its path beside it), its description and what
//! it takes under it; groups indented; lists with their items. Scrolled
//! so the focused field shows whole. Names, titles, descriptions and
//! values go through `sanitize`: control characters show as placeholders.

use crate::tui::ui::fit_end;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use serde_json::Value;

use crate::tui::app::State;
use crate::tui::argform::{ArgForm, Kind, Node, Row};
use crate::tui::keymap::Action;
use crate::tui::theme::Role;
use crate::tui::ui::ask::{about_rows, choice_spans, cut_block, text_spans};
use crate::tui::ui::clean;

/// A text field is at most this wide (what is typed scrolls in it).
const TEXT_WIDTH: usize = 40;

fn muted() -> Style {
    Role::Muted.style()
}

fn red() -> Style {
    Role::Error.style()
}

/// A value in a few words for a placeholder.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => clean(s),
        other => clean(&other.to_string()),
    }
}

/// What an empty field shows: its default, an example, or what an empty
/// required field sends.
fn placeholder(n: &Node) -> String {
    match (&n.default, &n.example) {
        (Some(d), _) => format!("{} (default)", shown(d)),
        (None, Some(x)) => format!("e.g. {}", shown(x)),
        _ if n.required && matches!(n.kind, Kind::Text { .. }) => "\"\" (empty text)".into(),
        _ if n.required && n.nullable => "null".into(),
        _ => String::new(),
    }
}

/// The name column: the longest name with its indent, within reason.
fn label_width(form: &ArgForm, rows: &[Row], width: usize) -> usize {
    let longest = rows
        .iter()
        .filter_map(|r| {
            let n = form.node(&r.at)?;
            let name = match r.item {
                Some(i) => format!("[{i}]").chars().count(),
                None => clean(n.label()).chars().count() + usize::from(n.required),
            };
            Some(r.depth * 2 + 2 + name + 2)
        })
        .max()
        .unwrap_or(0);
    longest.clamp(10, (width * 2 / 5).max(10))
}

pub(in crate::tui::ui) fn render(s: &State, form: &ArgForm, f: &mut Frame, area: Rect) {
    if form.fields.is_empty() {
        let send = s.keymap.label(Action::Send);
        f.render_widget(
            Paragraph::new(vec![
                Line::styled("This tool takes no arguments.", muted()),
                Line::styled(format!("{send} sends {{}}."), muted()),
            ])
            .wrap(Wrap { trim: false }),
            area,
        );
        return;
    }
    let width = area.width as usize;
    let height = area.height as usize;
    let rows = form.rows();
    let label_w = label_width(form, &rows, width);
    let blocks: Vec<Vec<Line>> = rows
        .iter()
        .map(|r| {
            let mut block = row_lines(s, form, r, r.at == form.focus, width, label_w);
            // A description longer than the pane is cut where it ends.
            cut_block(&mut block, height);
            block
        })
        .collect();
    let focus = rows.iter().position(|r| r.at == form.focus).unwrap_or(0);
    let rows_to =
        |from: usize, to: usize| -> usize { blocks[from..to].iter().map(Vec::len).sum::<usize>() };
    let mut first = 0;
    while first < focus && rows_to(first, focus + 1) > height {
        first += 1;
    }
    let mut lines: Vec<Line> = blocks[first..].concat();
    let more_below = lines.len() > height;
    lines.truncate(height);
    // Say there is more, where that hides no part of the focused field.
    let focus_end = rows_to(first, focus + 1);
    if more_below && height >= 3 && focus_end < height {
        lines[height - 1] = Line::styled("  ↓ more", muted());
    }
    if first > 0 && height >= 3 && rows_to(first, focus) > 0 {
        lines[0] = Line::styled("  ↑ more", muted());
    }
    f.render_widget(Paragraph::new(lines), area);
}

fn row_lines(
    s: &State,
    form: &ArgForm,
    row: &Row,
    focused: bool,
    width: usize,
    label_w: usize,
) -> Vec<Line<'static>> {
    let Some(n) = form.node(&row.at) else {
        return Vec::new();
    };
    let indent = "  ".repeat(row.depth);
    let name = match row.item {
        Some(i) => format!("[{i}]"),
        None => clean(n.label()),
    };
    let star = if n.required && row.item.is_none() {
        "*"
    } else {
        ""
    };
    // Name, then at least one space: a long name is cut, never run into
    // the value.
    let room = label_w
        .saturating_sub(indent.len() + 2 + star.len() + 1)
        .max(1);
    let name = fit_end(&name, room);
    let used = indent.len() + 2 + name.chars().count() + star.len();
    let pad = label_w.saturating_sub(used).max(1);
    let label_style = if focused {
        Role::Accent.style().add_modifier(Modifier::BOLD)
    } else {
        Style::default().add_modifier(Modifier::BOLD)
    };
    let mut spans = vec![
        Span::raw(indent.clone()),
        Span::styled(if focused { "▸ " } else { "  " }, label_style),
        Span::styled(name, label_style),
        Span::styled(star, red()),
        Span::raw(" ".repeat(pad)),
    ];
    let value_w = width.saturating_sub(used + pad);
    let error = form.error_at(&row.path).map(|e| format!("✗ {}", clean(e)));
    // The problem beside the value when a text box a little narrower
    // leaves room for it; else under it.
    let beside = error.as_ref().and_then(|e| {
        let room = value_w.checked_sub(e.chars().count() + 2)?;
        (room >= 12 || !n.is_text()).then_some(room)
    });
    let value = value_spans(s, n, focused, beside.unwrap_or(value_w));
    let value_len: usize = value.iter().map(|sp| sp.content.chars().count()).sum();
    spans.extend(value);
    let mut lines = Vec::new();
    let mut error_below = None;
    if let Some(e) = error {
        if beside.is_some_and(|room| value_len <= room) {
            spans.push(Span::styled(format!("  {e}"), red()));
        } else {
            error_below = Some(e);
        }
    }
    lines.push(Line::from(spans));
    let about_indent = format!("{indent}    ");
    let about_w = width.saturating_sub(about_indent.len()).max(1);
    if let Some(e) = error_below {
        lines.push(Line::styled(
            format!("{about_indent}{}", fit_end(&e, about_w)),
            red(),
        ));
    }
    // The focused field's description whole, the others' on one row.
    for r in about_rows(&about(n), about_w, focused) {
        lines.push(Line::styled(format!("{about_indent}{r}"), muted()));
    }
    lines
}

/// The line under a field: its title (when it says more than the name),
/// description and what it takes.
fn about(n: &Node) -> String {
    let mut parts = Vec::new();
    if let Some(t) = &n.title
        && !t.eq_ignore_ascii_case(&n.key)
    {
        parts.push(clean(t));
    }
    if let Some(d) = &n.description {
        parts.push(clean(d));
    }
    if !n.hint.is_empty() {
        parts.push(clean(&n.hint));
    }
    parts.join(" · ")
}

/// The value as drawn, `width` cells at most.
fn value_spans(s: &State, n: &Node, focused: bool, width: usize) -> Vec<Span<'static>> {
    let sel = Role::Selected.style();
    match &n.kind {
        Kind::Text { line, .. } | Kind::Number { line, .. } | Kind::Json { line } => {
            let w = width.clamp(1, TEXT_WIDTH);
            let hold = fit_end(&placeholder(n), w.saturating_sub(1));
            if focused && line.text.is_empty() && !hold.is_empty() {
                // The cursor, then the placeholder until something is typed.
                let field = Style::default().add_modifier(Modifier::UNDERLINED);
                let pad = w.saturating_sub(1 + hold.chars().count());
                return vec![
                    Span::styled(" ", field.add_modifier(Modifier::REVERSED)),
                    Span::styled(hold, field.fg(Role::Muted.color())),
                    Span::styled(" ".repeat(pad), field),
                ];
            }
            text_spans(line, focused, w, &hold)
        }
        Kind::Bool(b) => {
            let (mark, word) = match b {
                Some(true) => ("[x]", "yes".to_string()),
                Some(false) => ("[ ]", "no".to_string()),
                None => (
                    "[ ]",
                    match &n.default {
                        Some(d) => format!("not set (default: {})", shown(d)),
                        None => "not set".to_string(),
                    },
                ),
            };
            vec![
                Span::styled(mark, if focused { sel } else { Style::default() }),
                Span::styled(
                    fit_end(&format!(" {word}"), width.saturating_sub(3)),
                    if b.is_none() {
                        muted()
                    } else {
                        Style::default()
                    },
                ),
            ]
        }
        Kind::Choice { options, sel: at } => {
            let chosen = at.and_then(|i| options.get(i));
            let label = match chosen {
                Some(o) => clean(&o.label),
                None => match &n.default {
                    Some(d) => format!("(default: {})", shown(d)),
                    None if n.required => "(choose one)".into(),
                    None => "(none)".into(),
                },
            };
            let style = if chosen.is_some() {
                Style::default()
            } else {
                muted()
            };
            if focused {
                // Every choice in a row, the one taken highlighted; an
                // optional one starts with "none" (or its default).
                let labels: Vec<String> = options.iter().map(|o| clean(&o.label)).collect();
                let none = match &n.default {
                    Some(d) => format!("(default: {})", shown(d)),
                    None => "(none)".into(),
                };
                let none = (!n.required).then_some(none.as_str());
                choice_spans(&labels, *at, none, width)
            } else {
                vec![Span::styled(fit_end(&label, width), style)]
            }
        }
        Kind::Object { .. } => Vec::new(),
        Kind::Array { items, .. } => {
            let words = match items.len() {
                0 => "empty list".to_string(),
                1 => "1 item".to_string(),
                k => format!("{k} items"),
            };
            let add = if focused {
                format!(" · {} adds one", s.keymap.label(Action::AddItem))
            } else {
                String::new()
            };
            vec![Span::styled(
                fit_end(&format!("{words}{add}"), width),
                muted(),
            )]
        }
    }
}
