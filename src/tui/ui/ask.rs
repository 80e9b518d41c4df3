//! The request screens drawn over everything: an elicitation form, a URL
//! elicitation, a sampling request. Pure renders of `&State`; everything
//! the server sent is sanitized here.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::{centered, clean, fit_end};
use crate::sanitize;
use crate::tui::app::State;
use crate::tui::ask::{AskScreen, Field, Form, Input, LineEdit, LineKind, Sampling, UrlAsk};
use crate::tui::keymap::Action;

fn muted() -> Style {
    Role::Muted.style()
}

fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

fn red() -> Style {
    Role::Error.style()
}

/// The request's frame: as wide as suits, as tall as its content (all of
/// the screen but the status bar when `rows` is `None`), near the top.
fn frame(area: Rect, rows: Option<u16>) -> Rect {
    let w = area.width.saturating_sub(4).min(100);
    let most = area.height.saturating_sub(3).max(3);
    let h = rows.map_or(most, |r| (r + 2).min(most));
    let mut r = centered(area, w, h);
    r.y = area.y + 1.min(area.height.saturating_sub(h));
    r
}

/// The inner width of a frame on this screen.
fn inner_width(area: Rect) -> u16 {
    area.width.saturating_sub(4).min(100).saturating_sub(2)
}

/// `for call 2 (tool) · 1 of 3`: the call the request is for, when it
/// is known, and where it stands among the requests waiting.
fn position(s: &State) -> String {
    let call = s
        .asks
        .queue
        .front()
        .and_then(|a| a.call)
        .and_then(|tag| {
            let entries = s.entries();
            let n = entries.iter().position(|e| e.tag == tag)?;
            Some(format!(
                "for call {} ({}) · ",
                n + 1,
                clean(&entries[n].tool)
            ))
        })
        .unwrap_or_default();
    format!("{call}1 of {}", s.asks.len())
}

pub fn render(s: &State, f: &mut Frame, area: Rect) {
    let (Some((_, screen)), Some(ask)) = (&s.asks.screen, s.asks.queue.front()) else {
        return;
    };
    if !s.asks.is_open() {
        return;
    }
    let width = inner_width(area);
    let rows = match screen {
        AskScreen::Form(form) => Some(form_rows(form, width)),
        AskScreen::Url(u) => Some(wrapped_rows(&url_lines(s, u), width)),
        AskScreen::Sampling(_) => None,
        AskScreen::Other { text } => Some(wrapped_rows(&other_lines(text), width)),
    };
    let rect = frame(area, rows);
    f.render_widget(Clear, rect);
    let server = clean(&ask.server);
    let (title, border) = match screen {
        AskScreen::Form(_) => (format!(" {server} asks for input "), Role::Accent.color()),
        AskScreen::Url(_) => (
            format!(" {server} asks you to open a URL "),
            Role::Warn.color(),
        ),
        AskScreen::Sampling(_) => (
            format!(" {server} asks for a model reply (sampling) "),
            Role::Accent.color(),
        ),
        AskScreen::Other { .. } => (format!(" {server} sent a request "), Role::Warn.color()),
    };
    let style = Style::default().fg(border).add_modifier(Modifier::BOLD);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(style)
        .title(Span::styled(title, style))
        .title(
            Line::styled(format!(" {} ", position(s)), style)
                .alignment(ratatui::layout::Alignment::Right),
        );
    let inner = block.inner(rect);
    f.render_widget(block, rect);
    match screen {
        AskScreen::Form(form) => render_form(form, f, inner),
        AskScreen::Url(u) => f.render_widget(
            Paragraph::new(url_lines(s, u)).wrap(Wrap { trim: false }),
            inner,
        ),
        AskScreen::Sampling(x) => render_sampling(s, x, f, inner),
        AskScreen::Other { text } => f.render_widget(
            Paragraph::new(other_lines(text)).wrap(Wrap { trim: false }),
            inner,
        ),
    }
}

fn other_lines(text: &str) -> Vec<Line<'static>> {
    sanitize::visible(text)
        .lines()
        .map(|l| Line::raw(l.to_string()))
        .collect()
}

/// The rows a form wants: message, gap, every field (the focused one's
/// description whole), the buttons and the footer.
fn form_rows(form: &Form, width: u16) -> u16 {
    let message = wrapped_rows(&message_lines(&form.message), width).max(1);
    let label = label_width(form, width as usize);
    let fields: usize = form
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| field_lines(f, i == form.focus, width as usize, label).len())
        .sum::<usize>()
        .max(1);
    message + 1 + fields.min(u16::MAX as usize / 2) as u16 + FORM_FOOTER
}

/// Under the fields: the buttons, then the state of the form.
const FORM_FOOTER: u16 = 2;

/// The message, wrapped, at most `max` rows.
fn message_lines(message: &str) -> Vec<Line<'static>> {
    sanitize::visible(message)
        .lines()
        .map(|l| Line::styled(l.to_string(), bold()))
        .collect()
}

/// Rows a paragraph of these lines takes at this width (wrapped).
fn wrapped_rows(lines: &[Line], width: u16) -> u16 {
    let w = width.max(1) as usize;
    lines
        .iter()
        .map(|l| l.width().div_ceil(w).max(1))
        .sum::<usize>()
        .min(u16::MAX as usize) as u16
}

/// The label column's width: the longest label, within a third of the row.
fn label_width(form: &Form, width: usize) -> usize {
    let longest = form
        .fields
        .iter()
        .map(|f| clean(f.label()).chars().count() + usize::from(f.required))
        .max()
        .unwrap_or(0);
    (longest + 4).clamp(12, (width / 3).max(12))
}

fn render_form(form: &Form, f: &mut Frame, area: Rect) {
    let message = message_lines(&form.message);
    let msg_rows = wrapped_rows(&message, area.width)
        .min(area.height / 3)
        .max(1);
    let [msg_area, _, fields_area, buttons, footer] = Layout::vertical([
        Constraint::Length(msg_rows),
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    f.render_widget(Paragraph::new(message).wrap(Wrap { trim: false }), msg_area);

    // Each field: its row, then its description; scrolled so the focused
    // field shows whole.
    let width = fields_area.width as usize;
    let label = label_width(form, width);
    let height = fields_area.height as usize;
    let blocks: Vec<Vec<Line>> = form
        .fields
        .iter()
        .enumerate()
        .map(|(i, field)| {
            let mut block = field_lines(field, i == form.focus, width, label);
            // A description longer than the pane is cut where it ends.
            cut_block(&mut block, height);
            block
        })
        .collect();
    let mut first = 0;
    let rows_to = |from: usize, to: usize| blocks[from..=to].iter().map(Vec::len).sum::<usize>();
    if !blocks.is_empty() {
        let focus = form.focus.min(blocks.len() - 1);
        while first < focus && rows_to(first, focus) > height {
            first += 1;
        }
    }
    let more_below = !blocks.is_empty() && rows_to(first, blocks.len() - 1) > height;
    let mut lines: Vec<Line> = Vec::new();
    if form.fields.is_empty() {
        lines.push(Line::styled(
            "(no fields: accepting sends an empty answer)",
            muted(),
        ));
    }
    for b in blocks.into_iter().skip(first) {
        lines.extend(b);
    }
    f.render_widget(Paragraph::new(lines), fields_area);

    f.render_widget(Paragraph::new(button_line(form)), buttons);
    let more_above = first > 0;
    if let Some(leave) = form.confirm {
        let what = match leave {
            crate::tui::ask::Leave::Cancel => "cancel",
            _ => "decline",
        };
        f.render_widget(
            Paragraph::new(Line::styled(
                format!("⚠ {what} and throw away what you typed?"),
                Role::Warn.style().add_modifier(Modifier::BOLD),
            )),
            footer,
        );
        return;
    }
    let status = match form.content() {
        Ok(_) => Line::styled("✓ ready to send", Role::Ok.style()),
        Err(n) => Line::styled(
            format!(
                "✗ {n} field{} need{} attention",
                if n == 1 { "" } else { "s" },
                if n == 1 { "s" } else { "" }
            ),
            red(),
        ),
    };
    let mut spans = status.spans;
    spans.push(Span::styled(
        format!(
            "   field {} of {}{}",
            (form.focus + 1).min(form.fields.len()),
            form.fields.len(),
            match (more_above, more_below) {
                (true, true) => " · more above and below",
                (true, false) => " · more above",
                (false, true) => " · more below",
                (false, false) => "",
            }
        ),
        muted(),
    ));
    f.render_widget(Paragraph::new(Line::from(spans)), footer);
}

/// `[ Accept ]  [ Decline ]  [ Cancel ]`, the focused one highlighted.
fn button_line(form: &Form) -> Line<'static> {
    let focused = form.button();
    let mut spans = Vec::new();
    for (i, b) in crate::tui::ask::BUTTONS.iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw("  "));
        }
        let style = if focused == Some(*b) {
            Role::Selected.style().add_modifier(Modifier::BOLD)
        } else {
            Style::default()
        };
        let marker = if focused == Some(*b) { "▸" } else { " " };
        spans.push(Span::styled(format!("{marker}[ {} ]", b.label()), style));
    }
    Line::from(spans)
}

/// A field: `▸ Title*  value  ✗ error`, then its description.
pub(super) fn field_lines(
    field: &Field,
    focused: bool,
    width: usize,
    label_w: usize,
) -> Vec<Line<'static>> {
    let label_style = if focused {
        Role::Accent.style().add_modifier(Modifier::BOLD)
    } else {
        bold()
    };
    let mut label = clean(field.label());
    let max_label = label_w.saturating_sub(3);
    if label.chars().count() > max_label {
        label = label.chars().take(max_label - 1).collect::<String>() + "…";
    }
    let star = if field.required { "*" } else { "" };
    let pad = label_w.saturating_sub(2 + label.chars().count() + star.len());
    let mut spans = vec![
        Span::styled(if focused { "▸ " } else { "  " }, label_style),
        Span::styled(label, label_style),
        Span::styled(star, red()),
        Span::raw(" ".repeat(pad)),
    ];
    let error = field.error();
    let error_width = error.as_ref().map_or(0, |e| e.chars().count() + 4);
    // Text fields stay a readable width; choices take what there is.
    let room = width.saturating_sub(label_w + error_width).max(12);
    let value_width =
        if field.is_text() { room.min(48) } else { room }.min(width.saturating_sub(label_w).max(1));
    spans.extend(value_spans(field, focused, value_width));
    if let Some(e) = error {
        spans.push(Span::styled(format!("  ✗ {}", clean(&e)), red()));
    }
    let mut lines = vec![Line::from(spans)];
    let mut about = Vec::new();
    if let Some(d) = &field.description {
        about.push(clean(d));
    }
    if let Some(h) = kind_hint(field) {
        about.push(h);
    }
    if !about.is_empty() {
        for row in about_rows(&about.join(" · "), width.saturating_sub(4), focused) {
            lines.push(Line::styled(format!("    {row}"), muted()));
        }
    }
    lines
}

/// A field's description and hint under it: one row, cut, for a field
/// without the focus; wrapped whole for the focused one, so every
/// description can be read by moving to its field.
pub(super) fn about_rows(text: &str, width: usize, focused: bool) -> Vec<String> {
    if text.is_empty() {
        Vec::new()
    } else if focused {
        super::wrap_words(text, width.max(1))
    } else {
        vec![super::fit_end(text, width.max(1))]
    }
}

/// A block of rows cut to `height`, its last row saying so (`…`).
pub(super) fn cut_block(block: &mut Vec<Line<'static>>, height: usize) {
    if block.len() > height && height > 0 {
        block.truncate(height);
        if let Some(last) = block.last_mut() {
            let text: String = last.spans.iter().map(|s| s.content.as_ref()).collect();
            let w = text.chars().count().max(2);
            *last = Line::styled(
                super::fit_end(&format!("{} …", text.trim_end()), w),
                muted(),
            );
        }
    }
}

/// What the field takes, in a few words: `email`, `1 to 100`, `pick up to 3`.
fn kind_hint(field: &Field) -> Option<String> {
    let range = |min: Option<f64>, max: Option<f64>| crate::tui::ask::bounds(min, max, false);
    let count = |min: Option<u64>, max: Option<u64>| {
        crate::tui::ask::bounds(min.map(|v| v as f64), max.map(|v| v as f64), true)
    };
    let parts: Vec<String> = match &field.input {
        Input::Text {
            format,
            min_len,
            max_len,
            ..
        } => {
            let mut p: Vec<String> = format.iter().map(|f| clean(f)).collect();
            if let Some(r) = count(*min_len, *max_len) {
                p.push(format!("{r} characters"));
            }
            p
        }
        Input::Number {
            integer, min, max, ..
        } => {
            let mut p = vec![if *integer { "whole number" } else { "number" }.to_string()];
            p.extend(range(*min, *max));
            p
        }
        Input::Many {
            min_items,
            max_items,
            ..
        } => {
            let r = count(*min_items, *max_items);
            vec![format!("pick {}", r.unwrap_or_else(|| "any".into()))]
        }
        Input::Json { .. } => vec!["JSON".into()],
        Input::Bool(_) | Input::One { .. } => vec![],
    };
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The value as it is drawn, `width` cells at most.
fn value_spans(field: &Field, focused: bool, width: usize) -> Vec<Span<'static>> {
    let sel = Role::Selected.style();
    match &field.input {
        Input::Text { line, format, .. } => {
            let placeholder = match format.as_deref() {
                Some("email") => "name@example.com",
                Some("uri") => "https://…",
                Some("date") => "YYYY-MM-DD",
                Some("date-time") => "YYYY-MM-DDTHH:MM:SSZ",
                _ => "",
            };
            text_spans(line, focused, width, placeholder)
        }
        Input::Number { line, .. } | Input::Json { line, .. } => {
            text_spans(line, focused, width, "")
        }
        Input::Bool(b) => {
            let (mark, word) = match b {
                Some(true) => ("[x]", "yes"),
                Some(false) => ("[ ]", "no"),
                None => ("[ ]", "not answered"),
            };
            let style = if focused { sel } else { Style::default() };
            vec![
                Span::styled(mark, style),
                Span::styled(
                    format!(" {word}"),
                    if b.is_none() {
                        muted()
                    } else {
                        Style::default()
                    },
                ),
            ]
        }
        Input::One { options, sel: at } => {
            if focused {
                // Every choice in a row, the one taken highlighted.
                let labels: Vec<String> = options.iter().map(|o| clean(&o.label)).collect();
                let none = (!field.required).then_some("(none)");
                return choice_spans(&labels, *at, none, width);
            }
            let label = at
                .and_then(|i| options.get(i))
                .map(|o| clean(&o.label))
                .unwrap_or_else(|| "(none)".into());
            vec![Span::raw(fit(&label, width))]
        }
        Input::Many {
            options,
            picked,
            at,
            ..
        } => {
            // A window of options around the cursor.
            let items: Vec<String> = options
                .iter()
                .zip(picked)
                .map(|(o, p)| format!("[{}] {}", if *p { "x" } else { " " }, clean(&o.label)))
                .collect();
            let w = |i: usize| items[i].chars().count() + 1;
            let mut start = 0;
            while start < *at && (start..=*at).map(w).sum::<usize>() + 2 > width {
                start += 1;
            }
            let mut spans = Vec::new();
            let mut used = 0;
            if start > 0 {
                spans.push(Span::styled("‹ ", muted()));
                used += 2;
            }
            for (i, item) in items.iter().enumerate().skip(start) {
                if used + w(i) > width && i > *at {
                    spans.push(Span::styled("›", muted()));
                    break;
                }
                used += w(i);
                let style = if focused && i == *at {
                    sel
                } else {
                    Style::default()
                };
                spans.push(Span::styled(item.clone(), style));
                spans.push(Span::raw(" "));
            }
            spans
        }
    }
}

/// A focused choice: its options in a row (an optional one's "none"
/// first, when given), the one taken highlighted, scrolled to keep it in
/// view; `‹` / `›` say there are more, and then where it is (`2/9`).
pub(super) fn choice_spans(
    labels: &[String],
    at: Option<usize>,
    none: Option<&str>,
    width: usize,
) -> Vec<Span<'static>> {
    let mut items: Vec<(String, bool)> = Vec::new();
    if let Some(n) = none {
        items.push((n.to_string(), true));
    }
    items.extend(labels.iter().map(|l| (l.clone(), false)));
    let shift = usize::from(none.is_some());
    let chosen = match at {
        Some(i) => Some(i + shift),
        None if none.is_some() => Some(0),
        None => None,
    };
    // Each item is ` label `, with a space between items.
    let len = |i: usize| items[i].0.chars().count() + 2;
    let n = items.len();
    let total = (0..n).map(len).sum::<usize>() + n.saturating_sub(1);
    let (first, last, avail) = if total <= width {
        (0, n.saturating_sub(1), width)
    } else {
        // A window around the one taken: as many after it as fit, then
        // before it; `‹` / `›` and `k/n` say there are more.
        let count = chosen.map_or(0, |c| format!(" {}/{}", c + 1, n).chars().count());
        let cost = |a: usize, b: usize| {
            (a..=b).map(len).sum::<usize>()
                + (b - a)
                + usize::from(a > 0)
                + usize::from(b + 1 < n)
                + count
        };
        let anchor = chosen.unwrap_or(0).min(n.saturating_sub(1));
        let (mut a, mut b) = (anchor, anchor);
        while b + 1 < n && cost(a, b + 1) <= width {
            b += 1;
        }
        while a > 0 && cost(a - 1, b) <= width {
            a -= 1;
        }
        // Only a choice alone in the window is cut (to what the row holds).
        let avail = if a == b {
            width.saturating_sub(cost(a, b) - len(anchor)).max(4)
        } else {
            width
        };
        (a, b, avail)
    };
    let mut spans = Vec::new();
    if first > 0 {
        spans.push(Span::styled("‹", muted()));
    }
    for (i, (label, is_none)) in items.iter().enumerate().take(last + 1).skip(first) {
        if i > first {
            spans.push(Span::raw(" "));
        }
        let style = if Some(i) == chosen {
            Role::Selected.style()
        } else if *is_none {
            muted()
        } else {
            Style::default()
        };
        let text = fit_end(label, avail.saturating_sub(2).max(1));
        spans.push(Span::styled(format!(" {text} "), style));
    }
    if total > width {
        if last + 1 < n {
            spans.push(Span::styled("›", muted()));
        }
        if let Some(c) = chosen {
            spans.push(Span::styled(format!(" {}/{n}", c + 1), muted()));
        }
    }
    spans
}

/// `text` cut to `width` characters, with `…` when cut.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width.max(1) {
        text.to_string()
    } else {
        let mut t: String = text.chars().take(width.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// A text field: underlined, the cursor reversed, scrolled to the cursor.
pub(super) fn text_spans(
    line: &LineEdit,
    focused: bool,
    width: usize,
    placeholder: &str,
) -> Vec<Span<'static>> {
    let field = Style::default().add_modifier(Modifier::UNDERLINED);
    let chars: Vec<String> = line
        .text
        .chars()
        .map(|c| sanitize::one_line(&c.to_string()))
        .collect();
    if chars.is_empty() && !focused {
        let shown = fit(placeholder, width);
        let pad = width.saturating_sub(shown.chars().count());
        return vec![
            Span::styled(shown, field.fg(Role::Muted.color())),
            Span::styled(" ".repeat(pad), field),
        ];
    }
    let room = width.saturating_sub(1).max(1);
    let start = line.cursor.saturating_sub(room);
    let end = (start + width).min(chars.len());
    let mut spans = Vec::new();
    let before: String = chars[start..line.cursor.min(chars.len())].concat();
    // A selected default (the cursor is at its end): typing replaces it.
    let before_style = if line.selected && focused {
        Role::Selected.style()
    } else {
        field
    };
    spans.push(Span::styled(before, before_style));
    let mut used = line.cursor.saturating_sub(start);
    if focused {
        let at = chars
            .get(line.cursor)
            .cloned()
            .unwrap_or_else(|| " ".into());
        spans.push(Span::styled(at, field.add_modifier(Modifier::REVERSED)));
        used += 1;
        let after: String = chars
            .get(line.cursor + 1..end.max(line.cursor + 1))
            .map(|c| c.concat())
            .unwrap_or_default();
        used += after.chars().count();
        spans.push(Span::styled(after, field));
    } else {
        let after: String = chars[line.cursor.min(chars.len())..end].concat();
        used += after.chars().count();
        spans.push(Span::styled(after, field));
    }
    spans.push(Span::styled(" ".repeat(width.saturating_sub(used)), field));
    spans
}

fn url_lines(s: &State, u: &UrlAsk) -> Vec<Line<'static>> {
    let k = |a: Action| s.keymap.key_label(a).unwrap_or_default();
    let mut lines = message_lines(&u.message);
    lines.push(Line::raw(""));
    let domain = u
        .parsed
        .as_ref()
        .and_then(|p| p.host_str().map(str::to_string));
    match &domain {
        Some(d) => lines.push(Line::from(vec![
            Span::styled("Domain  ", muted()),
            Span::styled(clean(d), Role::Warn.style().add_modifier(Modifier::BOLD)),
        ])),
        None => lines.push(Line::styled("⚠ this is not a URL mcpdeck can read", red())),
    }
    lines.push(Line::from(vec![
        Span::styled("URL     ", muted()),
        Span::raw(clean(&u.url)),
    ]));
    if let Some(id) = &u.elicitation_id {
        lines.push(Line::from(vec![
            Span::styled("Id      ", muted()),
            Span::styled(clean(id), muted()),
        ]));
    }
    lines.push(Line::raw(""));
    match u.openable() {
        Some(p) => {
            if p.scheme() != "https" {
                lines.push(Line::styled(
                    "⚠ not HTTPS: what you type there can be read on the way",
                    Role::Warn.style(),
                ));
            }
            lines.push(Line::raw(format!(
                "Nothing is opened unless you press {}. Check the domain first.",
                k(Action::OpenUrl)
            )));
        }
        None => lines.push(Line::styled(
            "Not an http(s) URL: mcpdeck will not open it.",
            Role::Warn.style(),
        )),
    }
    lines.push(Line::raw(format!(
        "When you are done in the browser, press {}; {} declines, {} cancels.",
        k(Action::Accept),
        k(Action::Decline),
        k(Action::Back)
    )));
    lines
}

fn render_sampling(s: &State, x: &Sampling, f: &mut Frame, area: Rect) {
    let reply_rows = (area.height / 3).clamp(3, 10);
    let [request_area, reply_area] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(reply_rows)]).areas(area);
    let lines: Vec<Line> = x
        .request
        .iter()
        .map(|(kind, text)| {
            let text = sanitize::visible(text).into_owned();
            match kind {
                LineKind::Heading => Line::styled(text, bold().fg(Role::Accent.color())),
                LineKind::Label => Line::styled(text, bold()),
                LineKind::Text => Line::raw(format!("  {text}")),
                LineKind::Muted => Line::styled(text, muted()),
            }
        })
        .collect();
    let focus = |on: bool| {
        if on {
            Role::Accent.style().add_modifier(Modifier::BOLD)
        } else {
            Style::default()
        }
    };
    let total = x.request.len();
    let rows = wrapped_rows(&lines, request_area.width) as usize;
    let below = rows > x.scroll + request_area.height.saturating_sub(1) as usize;
    let page = s.keymap.key_label(Action::PageDown).unwrap_or_default();
    let request_title = match (x.scroll > 0, below) {
        (false, false) => "Request".to_string(),
        (false, true) => format!("Request · more below ({page})"),
        (true, _) => format!("Request · line {} of {total}", x.scroll + 1),
    };
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((x.scroll.min(u16::MAX as usize) as u16, 0))
            .block(
                Block::default()
                    .borders(Borders::TOP)
                    .border_style(focus(!x.in_reply))
                    .title(Span::styled(request_title, focus(!x.in_reply))),
            ),
        request_area,
    );
    let send = s.keymap.key_label(Action::Send).unwrap_or_default();
    let mut reply = x.reply.clone();
    reply.set_block(
        Block::default()
            .borders(Borders::TOP)
            .border_style(focus(x.in_reply))
            .title(Span::styled(
                format!("Your reply, as the model · {send} sends"),
                focus(x.in_reply),
            )),
    );
    if !x.in_reply {
        reply.set_cursor_style(Style::default());
    }
    reply.set_cursor_line_style(Style::default());
    f.render_widget(&reply, reply_area);
}

/// The status bar's hint for the request shown.
pub fn hint(s: &State) -> Option<String> {
    let (_, screen) = s.asks.screen.as_ref().filter(|_| s.asks.is_open())?;
    let k = &s.keymap;
    Some(match screen {
        AskScreen::Form(form) if form.confirm.is_some() => {
            let again = match form.confirm {
                Some(crate::tui::ask::Leave::Cancel) => k.key_label(Action::Back),
                _ => k
                    .keys(Action::Decline)
                    .iter()
                    .find(|x| !x.is_typed())
                    .map(|x| x.to_string()),
            };
            let mut yes = k.label(Action::Confirm);
            if let Some(a) = again {
                yes = format!("{yes} or {a}");
            }
            format!("{yes}: yes, throw it away · any other key: back to the form")
        }
        AskScreen::Sampling(x) if x.confirm => {
            format!(
                "{}: decline and throw away your reply · any other key: back to it",
                k.label(Action::Confirm)
            )
        }
        AskScreen::Form(form) => {
            let mut items = vec![(Action::Send, "accept"), (Action::NextPane, "next field")];
            let focused = form.focused().map(|f| &f.input);
            match focused {
                Some(Input::Bool(_)) => items.push((Action::Toggle, "flip")),
                Some(Input::One { .. }) => items.push((Action::Right, "next choice")),
                Some(Input::Many { .. }) => {
                    items.push((Action::Right, "next option"));
                    items.push((Action::Toggle, "tick"));
                }
                Some(_) => {}
                None => items.push((Action::Accept, "press")),
            }
            // Letters type (or pick a choice) everywhere in a form: the
            // way out is named by its chord (Ctrl-D, not d).
            let leave = k.hint_with(
                &[
                    (Action::Decline, "decline"),
                    (Action::Back, "cancel"),
                    (Action::ClearField, "clear"),
                ],
                true,
            );
            format!("{} · {leave}", k.hint_with(&items, form.typing()))
        }
        AskScreen::Url(_) => k.hint_with(
            &[
                (Action::OpenUrl, "open"),
                (Action::Copy, "copy"),
                (Action::Accept, "done"),
                (Action::Decline, "decline"),
                (Action::Back, "cancel"),
            ],
            false,
        ),
        AskScreen::Sampling(x) => {
            let mut items = vec![(Action::Send, "send")];
            items.push((
                Action::NextPane,
                if x.in_reply { "read request" } else { "reply" },
            ));
            items.push((Action::PageDown, "scroll"));
            items.push((Action::Back, "decline"));
            k.hint_with(&items, x.in_reply)
        }
        AskScreen::Other { .. } => k.hint_with(
            &[(Action::Decline, "decline"), (Action::Back, "cancel")],
            false,
        ),
    })
}
