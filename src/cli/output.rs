//! Text and JSON output of the headless commands. Everything a server sent
//! is sanitized before it reaches a terminal.

use serde_json::Value;
use std::io::Write;

use crate::mcp::types::{CallResult, Content, Tool};
use crate::sanitize;
use crate::text::human_size;

/// The commands' stdout, locked. A write that finds the reader gone
/// (EPIPE: `mcpdeck … | head -1`) is not an error: it and every later write
/// are dropped, and the run ends quietly with exit 141 once the command
/// yields ([`crate::startup::stdout_gone`]), its servers stopped as usual.
pub fn stdout() -> Stdout {
    Stdout(std::io::stdout().lock())
}

/// See [`stdout`].
pub struct Stdout(std::io::StdoutLock<'static>);

impl Stdout {
    fn gone<T>(r: std::io::Result<T>, ok: T) -> std::io::Result<T> {
        match r {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                crate::startup::stdout_gone();
                Ok(ok)
            }
            r => r,
        }
    }
}

impl Write for Stdout {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if crate::startup::stdout_is_gone() {
            return Ok(b.len());
        }
        Self::gone(self.0.write(b), b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if crate::startup::stdout_is_gone() {
            return Ok(());
        }
        Self::gone(self.0.flush(), ())
    }
}

/// Pretty JSON with every character that a terminal could act on escaped
/// (serde_json escapes C0 controls; this also escapes DEL, C1 controls and
/// bidi overrides), so `--json` output is safe on a terminal and still the
/// same JSON value.
pub fn json_pretty(v: &Value) -> String {
    let s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into());
    escape_json_text(&s)
}

fn escape_json_text(s: &str) -> String {
    if !s.chars().any(unsafe_in_json) {
        return s.to_string();
    }
    // Outside strings JSON has only ASCII, so every such char is in a string
    // and \uXXXX is a faithful escape.
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if unsafe_in_json(c) {
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn unsafe_in_json(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{061C}')
}

/// How many lines of a description a list shows (unless asked for all).
pub const DESCRIPTION_LINES: usize = 6;

/// The non-blank lines of `text` (sanitized), each under `indent`: all of
/// them, or the first `max` and then `… (N more lines: WHERE)`, `more`
/// saying where to read them whole. A cut is never silent.
pub fn write_lines(
    out: &mut impl Write,
    text: &str,
    indent: &str,
    max: Option<usize>,
    more: &str,
) -> std::io::Result<()> {
    let text = sanitize::strip(text);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let shown = max.map_or(lines.len(), |m| m.min(lines.len()));
    for line in &lines[..shown] {
        writeln!(out, "{indent}{}", line.trim_end())?;
    }
    let left = lines.len() - shown;
    if left > 0 {
        let what = if left == 1 { "line" } else { "lines" };
        writeln!(out, "{indent}… ({left} more {what}: {more})")?;
    }
    Ok(())
}

/// One tool in text mode, its description cut at
/// [`DESCRIPTION_LINES`] unless `full` (`more` says where the rest is).
pub fn write_tool(
    out: &mut impl Write,
    t: &Tool,
    denied: bool,
    full: bool,
    more: &str,
) -> std::io::Result<()> {
    let badges = badges(t, denied);
    let title = t
        .title
        .as_deref()
        .map(|s| format!("  \"{}\"", sanitize::strip(s)))
        .unwrap_or_default();
    let badges = if badges.is_empty() {
        String::new()
    } else {
        format!("  [{}]", badges.join(", "))
    };
    writeln!(
        out,
        "{}{}{title}{badges}",
        sanitize::strip(&t.name),
        sanitize::strip(&t.signature())
    )?;
    if let Some(d) = &t.description {
        let max = (!full).then_some(DESCRIPTION_LINES);
        write_lines(out, d, "    ", max, more)?;
    }
    Ok(())
}

/// A tool's badges: read-only, destructive, open-world, app (an MCP Apps
/// view), DENIED.
fn badges(t: &Tool, denied: bool) -> Vec<&'static str> {
    let mut badges = Vec::new();
    if t.read_only() {
        badges.push("read-only");
    }
    if t.destructive() {
        badges.push("destructive");
    }
    if t.open_world() {
        badges.push("open-world");
    }
    if crate::mcp::apps::tool_ui(&t.raw).is_some() {
        badges.push("app");
    }
    if denied {
        badges.push("DENIED");
    }
    badges
}

/// One tool whole (`mcpdeck tool`): name, title and badges, annotations,
/// the whole description, the parameters and the output schema.
pub fn write_tool_whole(out: &mut impl Write, t: &Tool, denied: bool) -> std::io::Result<()> {
    let title = t
        .title
        .as_deref()
        .map(|s| format!("  \"{}\"", sanitize::one_line(s)))
        .unwrap_or_default();
    let b = badges(t, denied);
    let b = if b.is_empty() {
        String::new()
    } else {
        format!("  [{}]", b.join(", "))
    };
    writeln!(out, "{}{title}{b}", sanitize::one_line(&t.name))?;
    if let Some(a) = t.annotations.as_ref().and_then(Value::as_object)
        && !a.is_empty()
    {
        let pairs: Vec<String> = a
            .iter()
            .map(|(k, v)| format!("{k}: {}", compact(v)))
            .collect();
        writeln!(
            out,
            "annotations: {}",
            sanitize::one_line(&pairs.join(", "))
        )?;
    }
    if let Some(ui) = crate::mcp::apps::tool_ui(&t.raw) {
        let who = ui
            .visibility
            .as_ref()
            .map(|v| format!(", visible to {}", v.join(" and ")))
            .unwrap_or_default();
        writeln!(
            out,
            "app view: {}{} (`mcpdeck app-info` reads it: size, CSP, permissions, problems)",
            sanitize::one_line(&ui.resource_uri),
            sanitize::one_line(&who)
        )?;
    }
    writeln!(out)?;
    match &t.description {
        Some(d) if !d.trim().is_empty() => {
            writeln!(out, "description:")?;
            write_lines(out, d, "    ", None, "")?;
        }
        _ => writeln!(out, "description: (none)")?,
    }
    writeln!(out)?;
    match &t.input_schema {
        Some(schema) => {
            writeln!(out, "parameters:")?;
            write_schema(out, schema, "    ", 0)?;
        }
        None => writeln!(out, "parameters: (no inputSchema)")?,
    }
    writeln!(out)?;
    match &t.output_schema {
        Some(schema) => {
            writeln!(out, "output (outputSchema):")?;
            write_schema(out, schema, "    ", 0)?;
        }
        None => writeln!(out, "output: (no outputSchema)")?,
    }
    Ok(())
}

/// A JSON value on one line.
fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// How deep nested objects are shown.
const SCHEMA_DEPTH: usize = 8;

/// An object schema's properties as a list: `name: type (required)`, its
/// default, enum, format and bounds, its description, and the properties
/// of nested objects (and of arrays of objects) under it.
fn write_schema(
    out: &mut impl Write,
    schema: &Value,
    indent: &str,
    depth: usize,
) -> std::io::Result<()> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        let t = crate::mcp::types::schema_type(schema);
        if t == "object" || schema.get("type").is_none() {
            return writeln!(out, "{indent}(none)");
        }
        return writeln!(out, "{indent}(a value of type {})", sanitize::one_line(&t));
    };
    if props.is_empty() {
        return writeln!(out, "{indent}(none)");
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, p) in props {
        let req = if required.contains(&name.as_str()) {
            ", required"
        } else {
            ""
        };
        let ty = match p.get("enum") {
            Some(_) => "enum".to_string(),
            None => crate::mcp::types::schema_type(p),
        };
        writeln!(
            out,
            "{indent}{}: {}{req}",
            sanitize::one_line(name),
            sanitize::one_line(&ty)
        )?;
        let inner = format!("{indent}    ");
        let mut facts = Vec::new();
        if let Some(e) = p.get("enum").and_then(Value::as_array) {
            let vals: Vec<String> = e.iter().map(compact).collect();
            facts.push(format!("one of: {}", vals.join(" | ")));
        }
        if let Some(d) = p.get("default") {
            facts.push(format!("default: {}", compact(d)));
        }
        for key in [
            "format",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "minLength",
            "maxLength",
            "pattern",
            "minItems",
            "maxItems",
        ] {
            if let Some(v) = p.get(key) {
                facts.push(format!("{key}: {}", compact(v)));
            }
        }
        for f in facts {
            writeln!(out, "{inner}{}", sanitize::one_line(&f))?;
        }
        if let Some(d) = p.get("description").and_then(Value::as_str) {
            write_lines(out, d, &inner, None, "")?;
        }
        if depth + 1 >= SCHEMA_DEPTH {
            continue;
        }
        if p.get("properties").is_some() {
            write_schema(out, p, &inner, depth + 1)?;
        } else if let Some(items) = p.get("items")
            && items.get("properties").is_some()
        {
            writeln!(out, "{inner}each item:")?;
            write_schema(out, items, &format!("{inner}    "), depth + 1)?;
        }
    }
    Ok(())
}

/// A call result in text mode: content blocks, then structured content and
/// its check against the output schema.
pub fn write_call_result(
    out: &mut impl Write,
    r: &CallResult,
    output_schema: Option<&Value>,
) -> std::io::Result<()> {
    for (i, block) in r.content.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_block(out, block)?;
    }
    if let Some(sc) = r.structured() {
        if !r.content.is_empty() {
            writeln!(out)?;
        }
        writeln!(out, "structuredContent:")?;
        writeln!(out, "{}", sanitize::strip(&json_pretty(sc)))?;
        match output_schema {
            None => writeln!(out, "(the tool declares no outputSchema)")?,
            Some(schema) => match crate::schema::check(schema, sc) {
                Ok(v) if v.is_empty() => {
                    writeln!(out, "✓ structuredContent matches the outputSchema")?
                }
                Ok(v) => {
                    writeln!(out, "✗ structuredContent does not match the outputSchema:")?;
                    for violation in v {
                        writeln!(out, "    {}", sanitize::strip(&violation.to_string()))?;
                    }
                }
                Err(e) => writeln!(
                    out,
                    "? the outputSchema could not be used: {}",
                    sanitize::strip(&e)
                )?,
            },
        }
    } else if output_schema.is_some() && !r.is_error {
        writeln!(
            out,
            "✗ the tool declares an outputSchema but returned no structuredContent"
        )?;
    }
    Ok(())
}

fn write_block(out: &mut impl Write, block: &Content) -> std::io::Result<()> {
    match block {
        Content::Text { text } => {
            let text = sanitize::strip(text);
            write!(out, "{text}")?;
            if !text.ends_with('\n') {
                writeln!(out)?;
            }
        }
        Content::Image { mime, data } => writeln!(
            out,
            "[image] {}, {}",
            sanitize::strip(mime),
            human_size(Content::decoded_len(data))
        )?,
        Content::Audio { mime, data } => writeln!(
            out,
            "[audio] {}, {}",
            sanitize::strip(mime),
            human_size(Content::decoded_len(data))
        )?,
        Content::ResourceLink {
            uri,
            name,
            mime,
            description,
        } => {
            write!(out, "[resource link] {}", sanitize::strip(uri))?;
            if let Some(n) = name {
                write!(out, "  \"{}\"", sanitize::strip(n))?;
            }
            if let Some(m) = mime {
                write!(out, "  ({})", sanitize::strip(m))?;
            }
            writeln!(out)?;
            if let Some(d) = description {
                writeln!(out, "    {}", sanitize::strip(d))?;
            }
        }
        Content::Resource {
            uri,
            mime,
            text,
            blob,
        } => {
            let mime = mime
                .as_deref()
                .map(|m| format!(" ({})", sanitize::strip(m)))
                .unwrap_or_default();
            match (text, blob) {
                (Some(t), _) => {
                    writeln!(out, "[embedded resource] {}{mime}", sanitize::strip(uri))?;
                    for line in sanitize::strip(t).lines() {
                        writeln!(out, "    {line}")?;
                    }
                }
                (None, Some(b)) => writeln!(
                    out,
                    "[embedded resource] {}{mime}, blob of {}",
                    sanitize::strip(uri),
                    human_size(Content::decoded_len(b))
                )?,
                (None, None) => writeln!(
                    out,
                    "[embedded resource] {}{mime}, empty",
                    sanitize::strip(uri)
                )?,
            }
        }
        Content::Unknown { kind, raw } => {
            writeln!(out, "[unknown content type \"{}\"]", sanitize::strip(kind))?;
            writeln!(out, "{}", sanitize::strip(&json_pretty(raw)))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_output_escapes_c1_and_bidi_but_stays_the_same_value() {
        let v = json!({"t": "a\u{9b}31m\u{202e}b\u{1b}[0m"});
        let s = json_pretty(&v);
        assert!(!s.chars().any(|c| c.is_control() && c != '\n'), "{s:?}");
        assert!(s.contains("\\u009b") && s.contains("\\u202e") && s.contains("\\u001b"));
        let back: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn cut_descriptions_say_how_much_is_left_and_where() {
        let text = "a\n\nb\nc\nd";
        let mut out = Vec::new();
        write_lines(&mut out, text, "  ", Some(2), "see X").unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "  a\n  b\n  … (2 more lines: see X)\n"
        );
        let mut out = Vec::new();
        write_lines(&mut out, text, "  ", Some(3), "see X").unwrap();
        assert!(
            String::from_utf8(out)
                .unwrap()
                .ends_with("… (1 more line: see X)\n")
        );
        let mut out = Vec::new();
        write_lines(&mut out, text, "", None, "").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "a\nb\nc\nd\n");
    }

    #[test]
    fn text_rendering_of_blocks() {
        let mut f = Vec::new();
        let r = CallResult::parse(
            json!({"content":[
                {"type":"text","text":"hello \u{1b}[31mred"},
                {"type":"image","data":"AAAAAAAA","mimeType":"image/png"},
                {"type":"resource","resource":{"uri":"demo://r","text":"line1\nline2","mimeType":"text/plain"}}
            ],"structuredContent":{"sum":3}}),
            &mut f,
        );
        let schema = json!({"type":"object","properties":{"sum":{"type":"string"}}});
        let mut out = Vec::new();
        write_call_result(&mut out, &r, Some(&schema)).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.contains("hello red\n"), "{s}");
        assert!(s.contains("[image] image/png, 6 B"));
        assert!(s.contains("[embedded resource] demo://r (text/plain)\n    line1\n    line2"));
        assert!(s.contains("✗ structuredContent does not match"));
        assert!(s.contains("/sum"));
        assert_eq!(human_size(2048), "2.0 KiB");
    }
}
