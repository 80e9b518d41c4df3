//! A call's outcome prepared for display, once, when it arrives: every
//! block sanitized and split into lines (very long lines cut into chunks),
//! so drawing a frame only touches the lines on screen.

use crate::tui::theme::Role;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use serde_json::Value;

use crate::mcp::manager::CallError;
use crate::mcp::types::{CallResult, Content};
use crate::sanitize;

/// Lines longer than this are shown in chunks (wrapping one 20 MB line
/// would cost every frame).
const CHUNK: usize = 2000;

/// Styles of plain text rows (a byte per row instead of a `Style`).
const TEXT_STYLES: [Style; 2] = [Style::new(), Style::new().fg(Role::Accent.color())];
const PLAIN: u8 = 0;
const STRUCTURED: u8 = 1;

/// One row of a prepared outcome: a range of `Prepared::text`, or a
/// styled line. Twelve bytes, so a 100 MB result costs little beyond its
/// text.
#[derive(Debug, Clone, Copy)]
struct Row {
    /// Index into `styled` when `styled` is true, else a byte offset.
    start: u32,
    len: u32,
    styled: bool,
    style: u8,
}

/// A call's outcome, ready to draw: plain text kept as ranges into one
/// string, and the few decorated lines as they are.
#[derive(Debug, Clone, Default)]
pub struct Prepared {
    text: String,
    styled: Vec<Line<'static>>,
    rows: Vec<Row>,
}

impl Prepared {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Row `i` as a line (borrowing the text).
    pub fn line(&self, i: usize) -> Option<Line<'_>> {
        let r = self.rows.get(i)?;
        if r.styled {
            return self.styled.get(r.start as usize).cloned();
        }
        let text = self
            .text
            .get(r.start as usize..(r.start + r.len) as usize)?;
        Some(Line::styled(text, TEXT_STYLES[r.style as usize]))
    }

    fn push(&mut self, line: Line<'static>) {
        self.rows.push(Row {
            start: self.styled.len() as u32,
            len: 0,
            styled: true,
            style: PLAIN,
        });
        self.styled.push(line);
    }

    fn push_plain(&mut self, indent: &str, text: &str, style: u8) {
        // Past 4 GiB of text, offsets would not fit: say so rather than wrap.
        if self.text.len() + indent.len() + text.len() > u32::MAX as usize {
            if self.rows.last().is_none_or(|r| !r.styled) {
                self.push(Line::styled(
                    "… (the rest is too large to show)",
                    Role::Warn.style(),
                ));
            }
            return;
        }
        let start = self.text.len() as u32;
        self.text.push_str(indent);
        self.text.push_str(text);
        self.rows.push(Row {
            start,
            len: (indent.len() + text.len()) as u32,
            styled: false,
            style,
        });
    }
}

fn clean(s: &str) -> String {
    sanitize::one_line(s)
}

/// Push `text` as lines, sanitized, long lines chunked, with an indent.
fn push_text(lines: &mut Prepared, text: &str, indent: &str, style: u8) {
    let text = sanitize::visible(text);
    lines.text.reserve(text.len());
    for l in text.lines() {
        let mut rest = l;
        loop {
            let mut end = rest.len().min(CHUNK);
            while !rest.is_char_boundary(end) {
                end -= 1;
            }
            lines.push_plain(indent, &rest[..end], style);
            rest = &rest[end..];
            if rest.is_empty() {
                break;
            }
        }
    }
}

/// Text that is a JSON object or array is shown pretty-printed with its
/// keys and values coloured; other text as it is.
fn push_text_or_json(lines: &mut Prepared, text: &str) {
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
    push_text(lines, text, "", PLAIN);
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
        spans.push(Span::styled(k.to_string(), Role::Accent.style()));
    }
    let value = rest.trim_start_matches(": ").trim_end_matches(',');
    let style = if value.starts_with('"') {
        Role::Ok.style()
    } else if value == "true" || value == "false" || value == "null" {
        Role::Media.style()
    } else if value.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        Role::Warn.style()
    } else {
        Style::default()
    };
    spans.push(Span::styled(rest.to_string(), style));
    Line::from(spans)
}

/// The lines of a call's outcome.
pub fn lines(result: &Result<CallResult, CallError>, output_schema: Option<&Value>) -> Prepared {
    let mut lines = Prepared::default();
    match result {
        Err(e) => {
            lines.push(Line::styled(
                format!("✗ {}", clean(&e.to_string())),
                Role::Error.style().add_modifier(Modifier::BOLD),
            ));
            // The server went away mid-call: its last words say why (the
            // last few; the server's detail has the whole tail).
            let tail = e.stderr_tail();
            if !tail.is_empty() {
                lines.push(Line::styled(
                    "the server's last stderr lines:",
                    Role::Muted.style(),
                ));
                for l in &tail[tail.len().saturating_sub(6)..] {
                    lines.push(Line::styled(format!("  {}", clean(l)), Role::Muted.style()));
                }
            }
        }
        Ok(r) => {
            if r.is_error {
                lines.push(Line::styled(
                    "✗ the tool reported an error (isError)",
                    Role::Alert.style().add_modifier(Modifier::BOLD),
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
                        Role::Media.style(),
                    )),
                    Content::Audio { mime, data } => lines.push(Line::styled(
                        format!(
                            "[audio] {}, {} bytes",
                            clean(mime),
                            Content::decoded_len(data)
                        ),
                        Role::Media.style(),
                    )),
                    Content::ResourceLink { uri, name, .. } => lines.push(Line::styled(
                        format!(
                            "[link] {} {}",
                            clean(uri),
                            name.as_deref().map(clean).unwrap_or_default()
                        ),
                        Role::Link.style(),
                    )),
                    Content::Resource {
                        uri, text, blob, ..
                    } => {
                        lines.push(Line::styled(
                            format!("[resource] {}", clean(uri)),
                            Role::Link.style(),
                        ));
                        if let Some(t) = text {
                            push_text(&mut lines, t, "  ", PLAIN);
                        } else if let Some(b) = blob {
                            lines.push(Line::raw(format!(
                                "  blob, {} bytes",
                                Content::decoded_len(b)
                            )));
                        }
                    }
                    Content::Unknown { kind, .. } => lines.push(Line::styled(
                        format!("[unknown content type {}]", clean(kind)),
                        Role::Warn.style(),
                    )),
                }
            }
            if let Some(sc) = r.structured() {
                lines.push(Line::styled(
                    "structuredContent",
                    Style::default().add_modifier(Modifier::BOLD),
                ));
                let pretty = serde_json::to_string_pretty(sc).unwrap_or_default();
                push_text(&mut lines, &pretty, "", STRUCTURED);
                if let Some(schema) = output_schema {
                    match crate::schema::check(schema, sc) {
                        Ok(v) if v.is_empty() => {
                            lines.push(Line::styled("✓ matches the outputSchema", Role::Ok.style()))
                        }
                        Ok(v) => {
                            for x in v {
                                lines.push(Line::styled(
                                    format!("✗ {}", clean(&x.to_string())),
                                    Role::Error.style(),
                                ));
                            }
                        }
                        Err(e) => {
                            lines.push(Line::styled(format!("? {}", clean(&e)), Role::Warn.style()))
                        }
                    }
                }
            }
        }
    }
    lines
}

/// Blobs, images and audio to save: a safe file name and the base64 data.
pub type Media = Vec<(String, String)>;

fn error_line(e: &crate::mcp::manager::CallError) -> Line<'static> {
    Line::styled(
        format!("✗ {}", clean(&e.to_string())),
        Role::Error.style().add_modifier(Modifier::BOLD),
    )
}

/// Whether a mime type is JSON (`application/json`, `…+json`).
fn is_json(mime: Option<&str>) -> bool {
    let essence = mime
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json" || essence.ends_with("+json")
}

fn human(n: usize) -> String {
    crate::text::human_size(n)
}

/// The lines of a `resources/read` answer: each content with its URI,
/// mime type and size; text as it is (JSON pretty-printed when its mime
/// type says JSON), a blob by its decoded size (saved with `s`).
pub fn read_lines(result: &Result<Value, crate::mcp::manager::CallError>) -> (Prepared, Media) {
    let mut lines = Prepared::default();
    let mut media = Vec::new();
    let v = match result {
        Err(e) => {
            lines.push(error_line(e));
            return (lines, media);
        }
        Ok(v) => v,
    };
    let Some(contents) = v.get("contents").and_then(Value::as_array) else {
        lines.push(Line::styled(
            "✗ the answer has no `contents` array; as received:",
            Role::Error.style(),
        ));
        let pretty = serde_json::to_string_pretty(v).unwrap_or_default();
        push_text(&mut lines, &pretty, "", PLAIN);
        return (lines, media);
    };
    if contents.is_empty() {
        lines.push(Line::styled("(no contents)", Role::Muted.style()));
    }
    let head = Role::Link.style().add_modifier(Modifier::BOLD);
    for (i, c) in contents.iter().enumerate() {
        let s = |k: &str| c.get(k).and_then(Value::as_str);
        let uri = s("uri").unwrap_or("(no uri)");
        let mime = s("mimeType");
        let mime_text = mime.map(clean).unwrap_or_else(|| "no mimeType".into());
        if i > 0 {
            lines.push(Line::raw(""));
        }
        match (s("text"), s("blob")) {
            (Some(text), _) => {
                lines.push(Line::styled(
                    format!("{} · {mime_text} · {}", clean(uri), human(text.len())),
                    head,
                ));
                if is_json(mime) {
                    push_text_or_json(&mut lines, text);
                } else {
                    push_text(&mut lines, text, "", PLAIN);
                }
            }
            (None, Some(blob)) => {
                lines.push(Line::styled(
                    format!("{} · {mime_text} · blob", clean(uri)),
                    head,
                ));
                lines.push(Line::styled(
                    format!(
                        "[blob] {mime_text}, {} decoded",
                        human(Content::decoded_len(blob))
                    ),
                    Role::Media.style(),
                ));
                media.push((crate::text::file_name_for(uri, mime), blob.to_string()));
            }
            (None, None) => {
                lines.push(Line::styled(format!("{} · {mime_text}", clean(uri)), head));
                lines.push(Line::styled("(neither text nor blob)", Role::Warn.style()));
            }
        }
    }
    (lines, media)
}

/// The lines of a `prompts/get` answer: its description, then each
/// message with its role and content (text, media by type and size, an
/// embedded resource with its text, a resource link).
pub fn prompt_lines(
    name: &str,
    result: &Result<Value, crate::mcp::manager::CallError>,
) -> (Prepared, Media) {
    let mut lines = Prepared::default();
    let mut media = Vec::new();
    let v = match result {
        Err(e) => {
            lines.push(error_line(e));
            return (lines, media);
        }
        Ok(v) => v,
    };
    if let Some(d) = v.get("description").and_then(Value::as_str) {
        push_text(&mut lines, d, "", STRUCTURED);
        lines.push(Line::raw(""));
    }
    let Some(messages) = v.get("messages").and_then(Value::as_array) else {
        lines.push(Line::styled(
            "✗ the answer has no `messages` array",
            Role::Error.style(),
        ));
        return (lines, media);
    };
    if messages.is_empty() {
        lines.push(Line::styled("(no messages)", Role::Muted.style()));
    }
    let muted = Role::Media.style();
    let mut findings = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("(no role)");
        lines.push(Line::styled(
            format!("{}:", clean(role)),
            Role::Accent.style().add_modifier(Modifier::BOLD),
        ));
        let blocks = match m.get("content") {
            Some(Value::Array(list)) => list.clone(),
            Some(b) => vec![b.clone()],
            None => vec![],
        };
        for (j, b) in blocks.iter().enumerate() {
            let file = |mime: &str| {
                crate::text::file_name_for(
                    &format!("mcpdeck-{name}-{}-{}", i + 1, j + 1),
                    Some(mime),
                )
            };
            match Content::parse(b, &mut findings) {
                Content::Text { text } => push_text(&mut lines, &text, "  ", PLAIN),
                Content::Image { mime, data } | Content::Audio { mime, data } => {
                    let kind = if matches!(b.get("type").and_then(Value::as_str), Some("audio")) {
                        "audio"
                    } else {
                        "image"
                    };
                    lines.push(Line::styled(
                        format!(
                            "  [{kind}] {}, {}",
                            clean(&mime),
                            human(Content::decoded_len(&data))
                        ),
                        muted,
                    ));
                    media.push((file(&mime), data));
                }
                Content::Resource {
                    uri,
                    mime,
                    text,
                    blob,
                } => {
                    let mime_text = mime
                        .as_deref()
                        .map(clean)
                        .map(|m| format!(" · {m}"))
                        .unwrap_or_default();
                    lines.push(Line::styled(
                        format!("  [resource] {}{mime_text}", clean(&uri)),
                        Role::Link.style(),
                    ));
                    if let Some(t) = text {
                        push_text(&mut lines, &t, "    ", PLAIN);
                    } else if let Some(b) = blob {
                        lines.push(Line::raw(format!(
                            "    blob, {}",
                            human(Content::decoded_len(&b))
                        )));
                        media.push((crate::text::file_name_for(&uri, mime.as_deref()), b));
                    }
                }
                Content::ResourceLink {
                    uri,
                    name,
                    mime,
                    description,
                } => {
                    let mut t = format!("  [link] {}", clean(&uri));
                    if let Some(n) = name {
                        t.push_str(&format!(" {}", clean(&n)));
                    }
                    if let Some(m) = mime {
                        t.push_str(&format!(" · {}", clean(&m)));
                    }
                    lines.push(Line::styled(t, Role::Link.style()));
                    if let Some(d) = description {
                        push_text(&mut lines, &d, "    ", PLAIN);
                    }
                }
                Content::Unknown { kind, .. } => lines.push(Line::styled(
                    format!("  [unknown content type {}]", clean(&kind)),
                    Role::Warn.style(),
                )),
            }
        }
    }
    (lines, media)
}
