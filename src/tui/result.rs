//! A call's outcome prepared for display, once, when it arrives: every
//! block sanitized and split into lines, so drawing a frame only touches
//! the lines on screen.
//!
//! Lines are wrapped at the pane's width and scrolled by screen line: the
//! end of a 20 MiB line is as reachable as its start. Where each line
//! starts on screen is worked out once per width ([`Wrapped`], cached);
//! a frame then cuts only the lines it shows.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::tui::theme::Role;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use unicode_width::UnicodeWidthChar;

use crate::mcp::manager::CallError;
use crate::mcp::types::{CallResult, Content};
use crate::sanitize;

/// Styles of plain text rows (a byte per row instead of a `Style`).
const TEXT_STYLES: [Style; 2] = [Style::new(), Style::new().fg(Role::Accent.color())];
const PLAIN: u8 = 0;
const STRUCTURED: u8 = 1;

/// JSON up to this size is pretty-printed and coloured; larger stays
/// plain text (pretty-printing it costs too much).
const HIGHLIGHT_LIMIT: usize = 2 * 1024 * 1024;

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
    /// Bytes of indent at the start of the text: wrapped parts of the
    /// line are indented as much.
    indent: u8,
}

/// A call's outcome, ready to draw: plain text kept as ranges into one
/// string, and the few decorated lines as they are.
#[derive(Debug, Clone, Default)]
pub struct Prepared {
    text: String,
    styled: Vec<Line<'static>>,
    rows: Vec<Row>,
    /// The wrap at the last width asked for.
    wrapped: RefCell<Option<Wrapped>>,
}

/// Where each row starts on screen at one width.
#[derive(Debug, Clone, Default)]
struct Wrapped {
    width: usize,
    /// `starts[i]`: the first screen line of row `i`; the last entry is
    /// the total.
    starts: Vec<u64>,
    /// For long rows that are not ASCII: the byte offsets (into the row)
    /// where each wrapped part after the first starts.
    breaks: HashMap<usize, Vec<u32>>,
}

/// Rows longer than this keep their break offsets (a frame then cuts any
/// part of them without scanning from the start).
const KEEP_BREAKS: usize = 4096;

/// The indent of continuation parts: the row's own, unless it would take
/// half the width.
fn cont_indent(indent: usize, width: usize) -> usize {
    if indent * 2 < width { indent } else { 0 }
}

/// Rows up to this size wrap at word boundaries; longer ASCII rows (a
/// minified JSON document, a base64 blob) are cut at the width, which
/// needs no scan to find any part.
const WORD_WRAP_LIMIT: usize = 64 * 1024;

/// Whether a row is cut at the width by arithmetic (long ASCII).
fn cut_by_width(text: &str) -> bool {
    text.len() > WORD_WRAP_LIMIT && text.is_ascii()
}

/// Where the parts after the first start (byte offsets) when `text` is
/// wrapped to `width` columns, continuation parts `width - pre` wide:
/// after the last space that fits, else (a word longer than the line)
/// at the width.
fn breaks(text: &str, width: usize, pre: usize) -> Vec<u32> {
    let mut out = Vec::new();
    let mut room = width.max(1);
    // The current part's start, its width so far, and the last place
    // after a space in it (with the width up to there).
    let mut start = 0usize;
    let mut used = 0usize;
    let mut after_space: Option<(usize, usize)> = None;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > room && used > 0 {
            let cut = match after_space {
                Some((at, upto)) if at > start && c != ' ' => {
                    used -= upto;
                    at
                }
                _ => {
                    used = 0;
                    i
                }
            };
            out.push(cut as u32);
            start = cut;
            after_space = None;
            room = (width - pre).max(1);
        }
        used += w;
        if c == ' ' {
            after_space = Some((i + 1, used));
        }
    }
    out
}

/// How many screen lines an ASCII text of `len` bytes takes.
fn ascii_height(len: usize, width: usize, pre: usize) -> usize {
    let width = width.max(1);
    if len <= width {
        1
    } else {
        let cw = (width - pre).max(1);
        1 + (len - width).div_ceil(cw)
    }
}

/// The display width of a line.
fn line_width(line: &Line) -> usize {
    line.spans.iter().map(|s| s.width()).sum()
}

/// The leading spaces of a styled line.
fn line_indent(line: &Line) -> usize {
    let mut n = 0;
    for s in &line.spans {
        let lead = s.content.len() - s.content.trim_start_matches(' ').len();
        n += lead;
        if lead < s.content.len() {
            break;
        }
    }
    n
}

/// Cut a styled line into parts `width` wide (continuations indented by
/// its own indent).
fn wrap_styled(line: &Line<'static>, width: usize) -> Vec<Line<'static>> {
    if line_width(line) <= width {
        return vec![line.clone()];
    }
    let pre = cont_indent(line_indent(line).min(u8::MAX as usize), width);
    let mut parts: Vec<Line<'static>> = Vec::new();
    let mut current: Vec<Span<'static>> = Vec::new();
    let mut room = width.max(1);
    let mut used = 0usize;
    for span in &line.spans {
        let mut piece = String::new();
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > room && used > 0 {
                if !piece.is_empty() {
                    current.push(Span::styled(std::mem::take(&mut piece), span.style));
                }
                parts.push(Line::from(std::mem::take(&mut current)).style(line.style));
                current.push(Span::raw(" ".repeat(pre)));
                room = (width - pre).max(1);
                used = 0;
            }
            used += w;
            piece.push(c);
        }
        if !piece.is_empty() {
            current.push(Span::styled(piece, span.style));
        }
    }
    if !current.is_empty() {
        parts.push(Line::from(current).style(line.style));
    }
    parts
}

impl Prepared {
    /// Rows (logical lines, before wrapping).
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
        Some(Line::styled(
            self.row_text(r)?,
            TEXT_STYLES[r.style as usize],
        ))
    }

    fn row_text(&self, r: &Row) -> Option<&str> {
        self.text.get(r.start as usize..(r.start + r.len) as usize)
    }

    /// The screen lines the outcome takes at `width` columns.
    pub fn screen_len(&self, width: u16) -> usize {
        self.with_wrap(width as usize, |w| {
            w.starts.last().copied().unwrap_or(0) as usize
        })
    }

    /// The screen lines `from..from + count` at `width` columns: rows
    /// wrapped at the width, continuations keeping the row's indent.
    pub fn screen_lines(&self, width: u16, from: usize, count: usize) -> Vec<Line<'_>> {
        let width = (width as usize).max(1);
        self.with_wrap(width, |w| {
            let mut out = Vec::with_capacity(count);
            let from = from as u64;
            // The row that holds screen line `from`.
            let mut row = w.starts.partition_point(|s| *s <= from).saturating_sub(1);
            let mut skip = from.saturating_sub(w.starts.get(row).copied().unwrap_or(0)) as usize;
            while out.len() < count && row < self.rows.len() {
                let need = count - out.len();
                self.row_parts(w, row, skip, need, &mut out);
                row += 1;
                skip = 0;
            }
            out
        })
    }

    /// Parts `skip..skip + need` of row `i`, wrapped at `w.width`.
    fn row_parts<'a>(
        &'a self,
        w: &Wrapped,
        i: usize,
        skip: usize,
        need: usize,
        out: &mut Vec<Line<'a>>,
    ) {
        let Some(r) = self.rows.get(i) else { return };
        let width = w.width;
        if r.styled {
            if let Some(line) = self.styled.get(r.start as usize) {
                out.extend(wrap_styled(line, width).into_iter().skip(skip).take(need));
            }
            return;
        }
        let Some(text) = self.row_text(r) else { return };
        let style = TEXT_STYLES[r.style as usize];
        let pre = cont_indent(r.indent as usize, width);
        let ascii = cut_by_width(text);
        // Where part `k` starts: arithmetic for long ASCII, else the
        // breaks (kept for long rows, found again for short ones).
        let found;
        let cuts: &[u32] = if ascii {
            &[]
        } else if let Some(b) = w.breaks.get(&i) {
            b
        } else {
            found = breaks(text, width, pre);
            &found
        };
        let cw = (width - pre).max(1);
        let start_of = |k: usize| -> usize {
            match k {
                0 => 0,
                k if ascii => (width + (k - 1) * cw).min(text.len()),
                k => cuts.get(k - 1).map_or(text.len(), |c| *c as usize),
            }
        };
        let parts = if ascii {
            ascii_height(text.len(), width, pre)
        } else {
            cuts.len() + 1
        };
        for k in skip..(skip + need).min(parts) {
            let Some(mut piece) = text.get(start_of(k)..start_of(k + 1)) else {
                break;
            };
            // A part that starts where a space ended the line above: the
            // space was the break, not an indent.
            if k > 0 && !ascii {
                piece = piece.strip_prefix(' ').unwrap_or(piece);
            }
            if k == 0 || pre == 0 {
                out.push(Line::styled(piece, style));
            } else {
                out.push(Line::from(vec![
                    Span::raw(" ".repeat(pre)),
                    Span::styled(piece, style),
                ]));
            }
        }
    }

    /// Run `f` on the wrap at `width`, working it out first if the cached
    /// one is for another width.
    fn with_wrap<T>(&self, width: usize, f: impl FnOnce(&Wrapped) -> T) -> T {
        let width = width.max(1);
        let mut cache = self.wrapped.borrow_mut();
        if cache.as_ref().is_none_or(|w| w.width != width) {
            *cache = Some(self.wrap(width));
        }
        match cache.as_ref() {
            Some(w) => f(w),
            None => f(&Wrapped::default()),
        }
    }

    fn wrap(&self, width: usize) -> Wrapped {
        let mut starts = Vec::with_capacity(self.rows.len() + 1);
        let mut breaks_of = HashMap::new();
        let mut at = 0u64;
        for (i, r) in self.rows.iter().enumerate() {
            starts.push(at);
            let h = if r.styled {
                self.styled.get(r.start as usize).map_or(1, |l| {
                    // Only a line wider than the pane is cut (to count
                    // its parts); the others take one line, uncopied.
                    if line_width(l) <= width {
                        1
                    } else {
                        wrap_styled(l, width).len()
                    }
                })
            } else {
                let text = self.row_text(r).unwrap_or("");
                let pre = cont_indent(r.indent as usize, width);
                if cut_by_width(text) {
                    ascii_height(text.len(), width, pre)
                } else if text.len() <= width && text.is_ascii() {
                    1
                } else {
                    let b = breaks(text, width, pre);
                    let h = b.len() + 1;
                    if text.len() > KEEP_BREAKS {
                        breaks_of.insert(i, b);
                    }
                    h
                }
            };
            at += h.max(1) as u64;
        }
        starts.push(at);
        Wrapped {
            width,
            starts,
            breaks: breaks_of,
        }
    }

    fn push(&mut self, line: Line<'static>) {
        self.rows.push(Row {
            start: self.styled.len() as u32,
            len: 0,
            styled: true,
            style: PLAIN,
            indent: 0,
        });
        self.styled.push(line);
        self.wrapped.take();
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
            indent: indent.len().min(u8::MAX as usize) as u8,
        });
        self.wrapped.take();
    }
}

fn clean(s: &str) -> String {
    sanitize::one_line(s)
}

/// Push `text` as lines, sanitized, with an indent.
fn push_text(lines: &mut Prepared, text: &str, indent: &str, style: u8) {
    let text = sanitize::visible(text);
    lines.text.reserve(text.len());
    for l in text.lines() {
        lines.push_plain(indent, l, style);
    }
}

/// Blobs up to this size whose mime type says text are shown decoded.
const BLOB_PREVIEW: usize = 64 * 1024;

/// A blob's size, and its text when it is small text (`text/*`, JSON,
/// XML) in UTF-8.
fn push_blob(lines: &mut Prepared, mime: Option<&str>, blob: &str, indent: &str) {
    let size = Content::decoded_len(blob);
    let essence = essence(mime);
    let texty = essence.starts_with("text/")
        || is_json(Some(&essence))
        || essence.ends_with("+xml")
        || essence == "application/xml";
    let decoded = (texty && size <= BLOB_PREVIEW)
        .then(|| {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD
                .decode(blob.trim())
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
        })
        .flatten();
    match decoded {
        Some(text) => {
            lines.push(Line::styled(
                format!(
                    "{indent}[blob] {}, {} decoded (text, shown below)",
                    clean(&essence),
                    human(size)
                ),
                Role::Media.style(),
            ));
            push_text(lines, &text, indent, PLAIN);
        }
        None => lines.push(Line::styled(
            format!(
                "{indent}[blob] {}, {} decoded",
                if essence.is_empty() {
                    "no mimeType".to_string()
                } else {
                    clean(&essence)
                },
                human(size)
            ),
            Role::Media.style(),
        )),
    }
}

/// Text that is a JSON object or array is shown pretty-printed with its
/// keys and values coloured; other text as it is.
fn push_text_or_json(lines: &mut Prepared, text: &str) {
    let t = text.trim_start();
    // Very large JSON stays plain text (pretty-printing it costs too much).
    if (t.starts_with('{') || t.starts_with('['))
        && text.len() < HIGHLIGHT_LIMIT
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
            let raw_blocks = r.raw.get("content").and_then(Value::as_array);
            for (i, block) in r.content.iter().enumerate() {
                // What the block's annotations say (who it is for, how
                // important, when it changed), after the block.
                let annotations = raw_blocks
                    .and_then(|b| b.get(i))
                    .and_then(|b| b.get("annotations"))
                    .and_then(annotations_text);
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
                        uri,
                        mime,
                        text,
                        blob,
                    } => {
                        let mime_text = mime
                            .as_deref()
                            .map(|m| format!(" · {}", clean(m)))
                            .unwrap_or_default();
                        lines.push(Line::styled(
                            format!("[resource] {}{mime_text}", clean(uri)),
                            Role::Link.style(),
                        ));
                        if let Some(t) = text {
                            push_text(&mut lines, t, "  ", PLAIN);
                        } else if let Some(b) = blob {
                            push_blob(&mut lines, mime.as_deref(), b, "  ");
                        }
                    }
                    Content::Unknown { kind, .. } => lines.push(Line::styled(
                        format!("[unknown content type {}]", clean(kind)),
                        Role::Warn.style(),
                    )),
                }
                if let Some(a) = annotations {
                    lines.push(Line::styled(format!("  ↳ {a}"), Role::Muted.style()));
                }
            }
            if let Some(sc) = r.structured() {
                lines.push(Line::styled(
                    "structuredContent",
                    Style::default().add_modifier(Modifier::BOLD),
                ));
                let pretty = serde_json::to_string_pretty(sc).unwrap_or_default();
                if pretty.len() < HIGHLIGHT_LIMIT {
                    for l in sanitize::visible(&pretty).lines() {
                        lines.push(highlight_json_line(l));
                    }
                } else {
                    push_text(&mut lines, &pretty, "", STRUCTURED);
                }
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

/// A content block's `annotations` for a person: `for user · priority
/// 0.9 · modified 2025-01-12T15:00:58Z`, then any other key as JSON;
/// `None` when there are none.
pub fn annotations_text(a: &Value) -> Option<String> {
    let obj = a.as_object()?;
    let mut parts = Vec::new();
    if let Some(aud) = obj.get("audience") {
        let who: Vec<String> = aud
            .as_array()
            .map(|v| {
                v.iter()
                    .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                    .collect()
            })
            .unwrap_or_else(|| vec![aud.to_string()]);
        parts.push(format!("for {}", who.join(" and ")));
    }
    if let Some(p) = obj.get("priority") {
        parts.push(format!("priority {p}"));
    }
    if let Some(m) = obj.get("lastModified") {
        parts.push(format!(
            "modified {}",
            m.as_str().map_or_else(|| m.to_string(), str::to_string)
        ));
    }
    for (k, v) in obj {
        if !matches!(k.as_str(), "audience" | "priority" | "lastModified") {
            parts.push(format!("{k}: {v}"));
        }
    }
    (!parts.is_empty()).then(|| clean(&parts.join(" · ")))
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
    let essence = essence(mime);
    essence == "application/json" || essence.ends_with("+json")
}

/// A mime type's essence: `text/plain; charset=utf-8` is `text/plain`.
fn essence(mime: Option<&str>) -> String {
    mime.unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
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
                push_blob(&mut lines, mime, blob, "");
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
                        push_blob(&mut lines, mime.as_deref(), &b, "    ");
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

#[cfg(test)]
mod wrap_tests {
    use super::*;
    use unicode_width::UnicodeWidthStr;

    fn text_of(p: &Prepared, width: u16) -> Vec<String> {
        let n = p.screen_len(width);
        p.screen_lines(width, 0, n)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn annotations_read_as_a_person_would() {
        let a = serde_json::json!({"audience": ["user", "assistant"], "priority": 0.9,
            "lastModified": "2025-01-12T15:00:58Z", "x-team": "blue"});
        assert_eq!(
            annotations_text(&a).as_deref(),
            Some(
                "for user and assistant · priority 0.9 · modified 2025-01-12T15:00:58Z · x-team: \"blue\""
            )
        );
        assert_eq!(annotations_text(&serde_json::json!({})), None);
        assert_eq!(annotations_text(&serde_json::json!("odd")), None);
        // Control characters in a hostile value are made visible.
        let a = serde_json::json!({"lastModified": "\u{1b}[31mred"});
        assert!(!annotations_text(&a).unwrap().contains('\u{1b}'));
    }

    #[test]
    fn text_wraps_at_spaces_and_long_words_are_cut() {
        let mut p = Prepared::default();
        push_text(&mut p, "the quick brown fox jumps over", "", PLAIN);
        assert_eq!(
            text_of(&p, 10),
            vec!["the quick ", "brown fox ", "jumps over"]
        );
        let mut p = Prepared::default();
        push_text(&mut p, "abcdefghijklmnop qr", "", PLAIN);
        assert_eq!(text_of(&p, 6), vec!["abcdef", "ghijkl", "mnop ", "qr"]);
        // A space that overflows is the break: the next line does not
        // start with it.
        let mut p = Prepared::default();
        push_text(&mut p, "abc, def", "", PLAIN);
        assert_eq!(text_of(&p, 4), vec!["abc,", "def"]);
    }

    #[test]
    fn every_part_is_reachable_from_any_screen_line() {
        let mut p = Prepared::default();
        let line: String = (0..500).map(|i| format!("w{i} ")).collect();
        push_text(&mut p, &format!("{line}\n  {line}\n漢字{line}"), "", PLAIN);
        for width in [7u16, 20, 33, 80] {
            let all = text_of(&p, width);
            assert_eq!(all.len(), p.screen_len(width));
            // Any window is the same as the matching slice of the whole.
            for from in [0, 1, all.len() / 2, all.len() - 3] {
                let part: Vec<String> = p
                    .screen_lines(width, from, 3)
                    .iter()
                    .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
                    .collect();
                assert_eq!(part, all[from..from + 3], "width {width} from {from}");
            }
            // Nothing is lost: the text comes back whole (spaces aside).
            let joined: String = all.concat().replace(' ', "");
            assert_eq!(joined.matches("w499").count(), 3, "width {width}");
            assert!(all.iter().all(|l| l.width() <= width as usize));
        }
    }

    #[test]
    fn a_long_ascii_row_is_cut_by_arithmetic_and_reaches_its_end() {
        let mut p = Prepared::default();
        let text = format!("{}END", "a".repeat(200_000));
        push_text(&mut p, &text, "", PLAIN);
        let n = p.screen_len(80);
        assert_eq!(n, (200_003usize).div_ceil(80));
        let last = p.screen_lines(80, n - 1, 5);
        assert_eq!(last.len(), 1);
        assert!(last[0].spans[0].content.ends_with("END"));
    }
}
