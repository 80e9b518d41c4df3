//! The text output of the resources and prompts commands: resources,
//! templates and prompts listed for a person, and a prompt's messages.

use std::io::Write;

use serde_json::{Value, json};

use crate::cli::output::write_call_result;
use crate::mcp::types::{CallResult, Content};
use crate::sanitize;
use crate::text::human_size;
use crate::uritemplate;

/// Prose from the server on one line: sanitized, whitespace runs made one space.
pub(super) fn flat(s: &str) -> String {
    sanitize::strip(s)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The description, its first lines (the cut marked: `--json` has it
/// whole).
pub(super) fn write_description(out: &mut impl Write, v: &Value) -> std::io::Result<()> {
    if let Some(d) = field(v, "description") {
        crate::cli::output::write_lines(
            out,
            d,
            "    ",
            Some(crate::cli::output::DESCRIPTION_LINES),
            "--json shows it whole",
        )?;
    }
    Ok(())
}

/// A resource (`key` = `uri`) or a resource template (`uriTemplate`):
/// `URI  NAME "TITLE"  (MIME, SIZE)`, then its variables and description.
pub(super) fn write_resource(out: &mut impl Write, r: &Value, key: &str) -> std::io::Result<()> {
    let uri = field(r, key).unwrap_or("(no uri)");
    let mut line = sanitize::one_line(uri);
    if let Some(n) = field(r, "name") {
        line.push_str(&format!("  {}", sanitize::one_line(n)));
    }
    if let Some(t) = field(r, "title")
        && Some(t) != field(r, "name")
    {
        line.push_str(&format!("  \"{}\"", flat(t)));
    }
    let mut facts = Vec::new();
    if let Some(m) = field(r, "mimeType") {
        facts.push(sanitize::one_line(m));
    }
    if let Some(n) = r.get("size").and_then(Value::as_u64) {
        facts.push(human_size(usize::try_from(n).unwrap_or(usize::MAX)));
    }
    if !facts.is_empty() {
        line.push_str(&format!("  ({})", facts.join(", ")));
    }
    writeln!(out, "{line}")?;
    if key == "uriTemplate" {
        match uritemplate::validate(uri) {
            Ok(()) => {
                let vars = uritemplate::variables(uri);
                let shown = if vars.is_empty() {
                    "(none)".to_string()
                } else {
                    sanitize::one_line(&vars.join(", "))
                };
                writeln!(out, "    variables: {shown}")?;
            }
            Err(e) => writeln!(out, "    ✗ {}", sanitize::one_line(&e))?,
        }
    }
    write_description(out, r)
}

/// A prompt: `NAME(req*, opt)  "TITLE"`, its description, then each argument.
pub(super) fn write_prompt(out: &mut impl Write, p: &Value) -> std::io::Result<()> {
    let name = field(p, "name").unwrap_or("(no name)");
    let args: Vec<&Value> = p
        .get("arguments")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let arg_label = |a: &Value| {
        let n = field(a, "name").unwrap_or("?");
        let star = if a.get("required").and_then(Value::as_bool) == Some(true) {
            "*"
        } else {
            ""
        };
        format!("{}{star}", sanitize::one_line(n))
    };
    let signature: Vec<String> = args.iter().map(|a| arg_label(a)).collect();
    let title = field(p, "title")
        .map(|t| format!("  \"{}\"", flat(t)))
        .unwrap_or_default();
    writeln!(
        out,
        "{}({}){title}",
        sanitize::one_line(name),
        signature.join(", ")
    )?;
    write_description(out, p)?;
    let width = signature
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    for (a, label) in args.iter().zip(&signature) {
        let line = match field(a, "description") {
            Some(d) => format!("{label:<width$}  {}", flat(d)),
            None => label.clone(),
        };
        writeln!(out, "    {}", line.trim_end())?;
    }
    Ok(())
}

/// The messages of a prompts/get result: `role:`, then its content indented.
pub(super) fn write_messages(out: &mut impl Write, result: &Value) -> std::io::Result<()> {
    if let Some(d) = field(result, "description") {
        writeln!(out, "description: {}", flat(d))?;
    }
    let messages = result
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if messages.is_empty() {
        writeln!(out, "(no messages)")?;
    }
    for m in messages {
        let role = field(m, "role").unwrap_or("(no role)");
        writeln!(out, "{}:", sanitize::one_line(role))?;
        let blocks: Vec<&Value> = match m.get("content") {
            Some(Value::Array(a)) => a.iter().collect(),
            Some(v @ Value::Object(_)) => vec![v],
            _ => Vec::new(),
        };
        if blocks.is_empty() {
            writeln!(out, "    (no content)")?;
            continue;
        }
        let mut findings = Vec::new();
        let content: Vec<Content> = blocks
            .iter()
            .map(|b| Content::parse(b, &mut findings))
            .collect();
        for f in &findings {
            crate::cli::events::print_finding("prompt", f);
        }
        let r = CallResult {
            content,
            is_error: false,
            raw: json!({}),
        };
        let mut buf = Vec::new();
        write_call_result(&mut buf, &r, None)?;
        for line in String::from_utf8_lossy(&buf).lines() {
            if line.is_empty() {
                writeln!(out)?;
            } else {
                writeln!(out, "    {line}")?;
            }
        }
    }
    Ok(())
}
