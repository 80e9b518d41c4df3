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

/// One tool in text mode.
pub fn write_tool(out: &mut impl Write, t: &Tool, denied: bool) -> std::io::Result<()> {
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
    if denied {
        badges.push("DENIED");
    }
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
        for line in sanitize::strip(d)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(6)
        {
            writeln!(out, "    {}", line.trim_end())?;
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
