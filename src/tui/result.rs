//! A call's outcome prepared for display, once, when it arrives: every
//! block sanitized and split into lines (very long lines cut into chunks),
//! so drawing a frame only touches the lines on screen.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use serde_json::Value;

use crate::mcp::manager::CallError;
use crate::mcp::types::{CallResult, Content};
use crate::sanitize;

/// Lines longer than this are shown in chunks (wrapping one 20 MB line
/// would cost every frame).
const CHUNK: usize = 2000;

fn clean(s: &str) -> String {
    sanitize::one_line(s)
}

/// Push `text` as lines, sanitized, long lines chunked, with an indent.
fn push_text(lines: &mut Vec<Line<'static>>, text: &str, indent: &str, style: Style) {
    for l in sanitize::visible(text).lines() {
        let mut rest = l;
        loop {
            let mut end = rest.len().min(CHUNK);
            while !rest.is_char_boundary(end) {
                end -= 1;
            }
            lines.push(Line::styled(format!("{indent}{}", &rest[..end]), style));
            rest = &rest[end..];
            if rest.is_empty() {
                break;
            }
        }
    }
}

/// Text that is a JSON object or array is shown pretty-printed with its
/// keys and values coloured; other text as it is.
fn push_text_or_json(lines: &mut Vec<Line<'static>>, text: &str) {
    let t = text.trim_start();
    // Very large JSON stays plain text (pretty-printing it costs too much).
    if (t.starts_with('{') || t.starts_with('['))
        && text.len() < 2 * 1024 * 1024
        && let Ok(v) = serde_json::from_str::<Value>(text)
        && let Ok(pretty) = serde_json::to_string_pretty(&v)
    {
        for l in sanitize::visible(&pretty).lines() {
            lines.push(highlight_json_line(l));
        }
        return;
    }
    push_text(lines, text, "", Style::default());
}

/// Colour one line of pretty JSON: keys, strings, numbers and literals.
fn highlight_json_line(line: &str) -> Line<'static> {
    use ratatui::text::Span;
    let indent = line.len() - line.trim_start().len();
    let body = &line[indent..];
    let mut spans = vec![Span::raw(line[..indent].to_string())];
    let (key, rest) = match body
        .strip_prefix('"')
        .and_then(|b| b.find("\": ").map(|i| (i, b)))
    {
        Some((i, b)) => (Some(&body[..i + 2]), &b[i + 1..]),
        None => (None, body),
    };
    if let Some(k) = key {
        spans.push(Span::styled(
            k.to_string(),
            Style::default().fg(Color::Cyan),
        ));
    }
    let value = rest.trim_end_matches(',');
    let style = if value.starts_with('"') {
        Style::default().fg(Color::Green)
    } else if value == "true" || value == "false" || value == "null" {
        Style::default().fg(Color::Magenta)
    } else if value.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        Style::default().fg(Color::Yellow)
    } else {
        Style::default()
    };
    spans.push(Span::styled(rest.to_string(), style));
    Line::from(spans)
}

/// The lines of a call's outcome.
pub fn lines(
    result: &Result<CallResult, CallError>,
    output_schema: Option<&Value>,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    match result {
        Err(e) => {
            lines.push(Line::styled(
                format!("✗ {}", clean(&e.to_string())),
                Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
            ));
        }
        Ok(r) => {
            if r.is_error {
                lines.push(Line::styled(
                    "✗ the tool reported an error (isError)",
                    Style::default()
                        .fg(Color::White)
                        .bg(Color::Red)
                        .add_modifier(Modifier::BOLD),
                ));
            }
            for block in &r.content {
                match block {
                    Content::Text { text } => push_text_or_json(&mut lines, text),
                    Content::Image { mime, data } => lines.push(Line::styled(
                        format!(
                            "[image] {}, {} bytes",
                            clean(mime),
                            Content::decoded_len(data)
                        ),
                        Style::default().fg(Color::Magenta),
                    )),
                    Content::Audio { mime, data } => lines.push(Line::styled(
                        format!(
                            "[audio] {}, {} bytes",
                            clean(mime),
                            Content::decoded_len(data)
                        ),
                        Style::default().fg(Color::Magenta),
                    )),
                    Content::ResourceLink { uri, name, .. } => lines.push(Line::styled(
                        format!(
                            "[link] {} {}",
                            clean(uri),
                            name.as_deref().map(clean).unwrap_or_default()
                        ),
                        Style::default().fg(Color::Blue),
                    )),
                    Content::Resource {
                        uri, text, blob, ..
                    } => {
                        lines.push(Line::styled(
                            format!("[resource] {}", clean(uri)),
                            Style::default().fg(Color::Blue),
                        ));
                        if let Some(t) = text {
                            push_text(&mut lines, t, "  ", Style::default());
                        } else if let Some(b) = blob {
                            lines.push(Line::raw(format!(
                                "  blob, {} bytes",
                                Content::decoded_len(b)
                            )));
                        }
                    }
                    Content::Unknown { kind, .. } => lines.push(Line::styled(
                        format!("[unknown content type {}]", clean(kind)),
                        Style::default().fg(Color::Yellow),
                    )),
                }
            }
            if let Some(sc) = r.structured() {
                lines.push(Line::styled(
                    "structuredContent",
                    Style::default().add_modifier(Modifier::BOLD),
                ));
                let pretty = serde_json::to_string_pretty(sc).unwrap_or_default();
                push_text(&mut lines, &pretty, "", Style::default().fg(Color::Cyan));
                if let Some(schema) = output_schema {
                    match crate::schema::check(schema, sc) {
                        Ok(v) if v.is_empty() => lines.push(Line::styled(
                            "✓ matches the outputSchema",
                            Style::default().fg(Color::Green),
                        )),
                        Ok(v) => {
                            for x in v {
                                lines.push(Line::styled(
                                    format!("✗ {}", clean(&x.to_string())),
                                    Style::default().fg(Color::Red),
                                ));
                            }
                        }
                        Err(e) => lines.push(Line::styled(
                            format!("? {}", clean(&e)),
                            Style::default().fg(Color::Yellow),
                        )),
                    }
                }
            }
        }
    }
    lines
}
