//! The request screens drawn over everything: an elicitation form, a URL
//! elicitation, a sampling request. Pure renders of `&State`; everything
//! the server sent is sanitized here.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::{centered, clean};
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

/// `… · 1 of 3` when several wait.
fn position(s: &State) -> String {
    format!("1 of {}", s.asks.len())
}

pub fn render(s: &State, f: &mut Frame, area: Rect) {
    let (Some((_, screen)), Some(ask)) = (&s.asks.screen, s.asks.queue.front()) else {
        return;
    };
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

/// The rows a form wants: message, gap, every field, footer.
fn form_rows(form: &Form, width: u16) -> u16 {
    let message = wrapped_rows(&message_lines(&form.message), width).max(1);
    let fields: usize = form
        .fields
        .iter()
        .map(|f| field_lines(f, false, width as usize, label_width(form, width as usize)).len())
        .sum::<usize>()
        .max(1);
    message + 1 + fields.min(u16::MAX as usize / 2) as u16 + 1
}

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
    let [msg_area, _, fields_area, footer] = Layout::vertical([
        Constraint::Length(msg_rows),
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area);
    f.render_widget(Paragraph::new(message).wrap(Wrap { trim: false }), msg_area);

    // Each field: its row, then its description; scrolled so the focused
    // field shows whole.
    let width = fields_area.width as usize;
    let label = label_width(form, width);
    let blocks: Vec<Vec<Line>> = form
        .fields
        .iter()
        .enumerate()
        .map(|(i, field)| field_lines(field, i == form.focus, width, label))
        .collect();
    let height = fields_area.height as usize;
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

    let more_above = first > 0;
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
        let mut text = about.join(" · ");
        let room = width.saturating_sub(4);
        if text.chars().count() > room {
            text = text
                .chars()
                .take(room.saturating_sub(1))
                .collect::<String>()
                + "…";
        }
        lines.push(Line::styled(format!("    {text}"), muted()));
    }
    lines
}

/// What the field takes, in a few words: `email`, `1 to 100`, `pick up to 3`.
fn kind_hint(field: &Field) -> Option<String> {
    use crate::tui::ask::fmt_num;
    let range = |min: Option<f64>, max: Option<f64>| match (min, max) {
        (Some(a), Some(b)) => Some(format!("{} to {}", fmt_num(a), fmt_num(b))),
        (Some(a), None) => Some(format!("at least {}", fmt_num(a))),
        (None, Some(b)) => Some(format!("at most {}", fmt_num(b))),
        (None, None) => None,
    };
    let parts: Vec<String> = match &field.input {
        Input::Text {
            format,
            min_len,
            max_len,
            ..
        } => {
            let mut p: Vec<String> = format.iter().map(|f| clean(f)).collect();
            if let Some(r) = range(min_len.map(|v| v as f64), max_len.map(|v| v as f64)) {
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
            let r = range(min_items.map(|v| v as f64), max_items.map(|v| v as f64));
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
            let label = at
                .and_then(|i| options.get(i))
                .map(|o| clean(&o.label))
                .unwrap_or_else(|| "(none)".into());
            let label = fit(&label, width.saturating_sub(12));
            let count = at.map_or(String::new(), |i| format!(" {}/{}", i + 1, options.len()));
            if focused {
                vec![
                    Span::styled("‹ ", muted()),
                    Span::styled(label, sel),
                    Span::styled(" ›", muted()),
                    Span::styled(count, muted()),
                ]
            } else {
                vec![Span::raw(label)]
            }
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
    spans.push(Span::styled(before, field));
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
    let (_, screen) = s.asks.screen.as_ref()?;
    let k = &s.keymap;
    Some(match screen {
        AskScreen::Form(form) => {
            let typing = form.typing();
            let mut items = vec![(Action::Send, "accept"), (Action::NextPane, "next field")];
            let focused = form.focused().map(|f| &f.input);
            match focused {
                Some(Input::Bool(_)) => items.push((Action::Toggle, "flip")),
                Some(Input::One { .. }) => items.push((Action::Right, "next choice")),
                Some(Input::Many { .. }) => {
                    items.push((Action::Right, "next option"));
                    items.push((Action::Toggle, "tick"));
                }
                _ => {}
            }
            items.extend([(Action::Decline, "decline"), (Action::Back, "cancel")]);
            k.hint_with(&items, typing)
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
