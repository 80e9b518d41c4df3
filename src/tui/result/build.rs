//! Making a [`Prepared`] from what a server answered: a call's result,
//! a resource read, a prompt: each block sanitized, JSON pretty-printed and
//! coloured, blobs by their size, annotations for a person.

use super::*;

pub(super) fn clean(s: &str) -> String {
    sanitize::one_line(s)
}

/// Push `text` as lines, sanitized, with an indent.
pub(super) fn push_text(lines: &mut Prepared, text: &str, indent: &str, style: u8) {
    let text = sanitize::visible(text);
    lines.text.reserve(text.len());
    for l in text.lines() {
        lines.push_plain(indent, l, style);
    }
}

/// Blobs up to this size whose mime type says text are shown decoded.
pub(super) const BLOB_PREVIEW: usize = 64 * 1024;

/// A blob's size, and its text when it is small text (`text/*`, JSON,
/// XML) in UTF-8.
pub(super) fn push_blob(lines: &mut Prepared, mime: Option<&str>, blob: &str, indent: &str) {
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
pub(super) fn push_text_or_json(lines: &mut Prepared, text: &str) {
    let t = text.trim_start();
    // Very large JSON stays plain text (pretty-printing it costs too much).
    if (t.starts_with('{') || t.starts_with('['))
        && text.len() < HIGHLIGHT_LIMIT
        && let Ok(v) = serde_json::from_str::<Value>(text)
        && let Ok(pretty) = serde_json::to_string_pretty(&v)
    {
        lines.push_json(&sanitize::visible(&pretty));
        return;
    }
    push_text(lines, text, "", PLAIN);
}

/// Colour one line of pretty JSON: keys, strings, numbers and literals.
pub(super) fn highlight_json_line(line: &str) -> Line<'static> {
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
                            // JSON contents fold like any JSON in a result.
                            if is_json(mime.as_deref()) {
                                push_text_or_json(&mut lines, t);
                            } else {
                                push_text(&mut lines, t, "  ", PLAIN);
                            }
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
                    lines.push_json(&sanitize::visible(&pretty));
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

pub(super) fn error_line(e: &crate::mcp::manager::CallError) -> Line<'static> {
    Line::styled(
        format!("✗ {}", clean(&e.to_string())),
        Role::Error.style().add_modifier(Modifier::BOLD),
    )
}

/// Whether a mime type is JSON (`application/json`, `…+json`).
pub(super) fn is_json(mime: Option<&str>) -> bool {
    let essence = essence(mime);
    essence == "application/json" || essence.ends_with("+json")
}

/// A mime type's essence: `text/plain; charset=utf-8` is `text/plain`.
pub(super) fn essence(mime: Option<&str>) -> String {
    mime.unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

pub(super) fn human(n: usize) -> String {
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
