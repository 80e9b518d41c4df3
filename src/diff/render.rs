//! A [`Diff`] as readable text (terminal-safe) and as Markdown for a pull
//! request comment. JSON is [`Diff::to_json`].

use super::{Change, Diff};
use crate::sanitize;

/// `2 breaking changes, 1 non-breaking change`.
pub fn summary(diff: &Diff) -> String {
    let (b, n) = (diff.breaking(), diff.non_breaking());
    if b + n == 0 {
        return "no changes".into();
    }
    let plural = |k: usize| if k == 1 { "" } else { "s" };
    format!(
        "{b} breaking change{}, {n} non-breaking change{}",
        plural(b),
        plural(n)
    )
}

fn compared_text(diff: &Diff) -> String {
    let list =
        |cs: &[super::Category]| cs.iter().map(|c| c.plural()).collect::<Vec<_>>().join(", ");
    let mut s = if diff.compared.is_empty() {
        "nothing compared: the two sides have no list in common".to_string()
    } else {
        format!("compared: {}", list(&diff.compared))
    };
    if !diff.skipped.is_empty() {
        s.push_str(&format!(
            "; not compared (only one side has them): {}",
            list(&diff.skipped)
        ));
    }
    s
}

/// The text for a terminal: a summary line naming both sides, then the
/// breaking changes, then the others; everything from the sides stripped
/// of control characters.
pub fn text(diff: &Diff, a: &str, b: &str) -> String {
    let mut out = format!(
        "{} → {}: {}\n({})\n",
        sanitize::one_line(a),
        sanitize::one_line(b),
        summary(diff),
        compared_text(diff)
    );
    let (breaking, other): (Vec<&Change>, Vec<&Change>) =
        diff.changes.iter().partition(|c| c.breaking);
    for (title, list) in [("Breaking", breaking), ("Non-breaking", other)] {
        if list.is_empty() {
            continue;
        }
        out.push_str(&format!("\n{title}:\n"));
        for c in list {
            out.push_str(&format!(
                "  {} {}\n      {}\n",
                if c.breaking { "✗" } else { "·" },
                sanitize::one_line(&c.message),
                sanitize::one_line(&format!("{}  ({})", c.path, c.kind)),
            ));
            if let Some(detail) = before_after(c) {
                out.push_str(&format!("      {}\n", sanitize::one_line(&detail)));
            }
        }
    }
    out
}

/// `before: … → after: …` for short values; nothing for long ones.
fn before_after(c: &Change) -> Option<String> {
    const MAX: usize = 120;
    let show = |v: &Option<serde_json::Value>| {
        v.as_ref()
            .map_or("(none)".to_string(), crate::trust::pin::canonical_text)
    };
    if c.before.is_none() && c.after.is_none() {
        return None;
    }
    let s = format!("{} → {}", show(&c.before), show(&c.after));
    (s.chars().count() <= MAX).then_some(s)
}

/// Text for a Markdown table cell: no line breaks, Markdown and HTML
/// characters escaped (`|` and backticks included), control characters
/// stripped.
pub fn md_escape(s: &str) -> String {
    let s = sanitize::one_line(s);
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' | '`' | '*' | '_' | '|' | '[' | ']' | '<' | '>' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(ch);
            }
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
    out
}

/// Markdown for a pull request comment: a heading with the summary, then
/// a table of the changes, breaking first.
pub fn markdown(diff: &Diff, a: &str, b: &str) -> String {
    let icon = if diff.breaking() > 0 { "❌" } else { "✅" };
    let mut out = format!(
        "### {icon} mcpdeck diff: {}\n\n{} → {} ({})\n",
        summary(diff),
        md_escape(a),
        md_escape(b),
        md_escape(&compared_text(diff))
    );
    if diff.changes.is_empty() {
        return out;
    }
    out.push_str("\n| | Change | Where | What |\n|---|---|---|---|\n");
    for c in &diff.changes {
        out.push_str(&format!(
            "| {} | `{}` | {} | {} |\n",
            if c.breaking {
                "💥 breaking"
            } else {
                "non-breaking"
            },
            c.kind,
            md_escape(&c.path),
            md_escape(&c.message)
        ));
    }
    out
}
