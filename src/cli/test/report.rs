//! What `mcpdeck test` prints: a line a step (✓ ✗ ! -), under a failure
//! its first failing assertion with a diff of expected against actual
//! (coloured on a terminal, unless `NO_COLOR`), a summary; or, with
//! `--json`, one JSON document at the end.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Status, StepReport, SuiteReport};
use crate::sanitize;
use crate::suite::Suite;
use crate::suite::diff::{self, Line};
use crate::suite::expect::Failure;

/// The longest diff shown under a step (the JSON has everything).
const DIFF_LINES: usize = 40;

/// A JSON value on one line, at most 80 characters.
pub fn short_json(v: &Value) -> String {
    let s = sanitize::one_line(&v.to_string());
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}

/// The colours of a line, when stdout is a terminal.
#[derive(Clone, Copy)]
struct Paint {
    on: bool,
}

impl Paint {
    fn wrap(self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn red(self, s: &str) -> String {
        self.wrap("31", s)
    }
    fn green(self, s: &str) -> String {
        self.wrap("32", s)
    }
    fn yellow(self, s: &str) -> String {
        self.wrap("33", s)
    }
    fn dim(self, s: &str) -> String {
        self.wrap("2", s)
    }
    fn bold(self, s: &str) -> String {
        self.wrap("1", s)
    }
}

/// Prints as the run goes: steps as they end when one suite runs at a
/// time, each suite whole when it ends otherwise (so that suites running
/// side by side do not mix their lines), nothing but the document with
/// `--json`.
pub struct Printer {
    json: bool,
    stream: bool,
    paint: Paint,
    /// Lines of the suites still running (when not streaming).
    held: Mutex<HashMap<PathBuf, Vec<String>>>,
}

impl Printer {
    pub fn new(json: bool, stream: bool) -> Printer {
        let on = !json
            && std::io::stdout().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        Printer {
            json,
            stream,
            paint: Paint { on },
            held: Mutex::new(HashMap::new()),
        }
    }

    fn emit(&self, file: &std::path::Path, lines: Vec<String>) {
        if self.json {
            return;
        }
        if self.stream {
            let mut out = crate::cli::output::stdout();
            for l in lines {
                let _ = writeln!(out, "{l}");
            }
            let _ = out.flush();
        } else {
            self.held
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .entry(file.to_path_buf())
                .or_default()
                .extend(lines);
        }
    }

    pub fn suite_start(&self, suite: &Suite, steps: usize) {
        let of = if steps < suite.steps.len() {
            format!(" of {}", suite.steps.len())
        } else {
            String::new()
        };
        let title = format!(
            "{} {}",
            self.paint
                .bold(&sanitize::one_line(&shown_path(&suite.path))),
            self.paint.dim(&format!(
                "({steps}{of} step{})",
                if suite.steps.len() == 1 { "" } else { "s" }
            ))
        );
        self.emit(&suite.path, vec![title]);
    }

    pub fn step(&self, suite: &Suite, r: &StepReport) {
        self.emit(&suite.path, step_lines(r, self.paint));
    }

    pub fn suite_done(&self, r: &SuiteReport) {
        let line = format!("  {}", counts(&[r], self.paint, r.took));
        self.emit(&r.file, vec![line, String::new()]);
        if !self.stream && !self.json {
            let lines = self
                .held
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&r.file)
                .unwrap_or_default();
            let mut out = crate::cli::output::stdout();
            for l in lines {
                let _ = writeln!(out, "{l}");
            }
            let _ = out.flush();
        }
    }

    pub fn summary(&self, reports: &[SuiteReport], took: Duration) {
        let mut out = crate::cli::output::stdout();
        if self.json {
            let _ = writeln!(
                out,
                "{}",
                crate::cli::output::json_pretty(&document(reports))
            );
            return;
        }
        let suites = reports.len();
        let _ = writeln!(
            out,
            "{} suite{}: {}",
            suites,
            if suites == 1 { "" } else { "s" },
            counts(&reports.iter().collect::<Vec<_>>(), self.paint, took)
        );
    }
}

/// `3 passed, 1 failed, 1 error (1.2 s)`; the counts that are 0 after
/// "passed" left out.
fn counts(reports: &[&SuiteReport], paint: Paint, took: Duration) -> String {
    let n = |s: Status| reports.iter().map(|r| r.count(s)).sum::<usize>();
    let mut parts = vec![format!("{} passed", n(Status::Passed))];
    if n(Status::Failed) > 0 {
        parts.push(paint.red(&format!("{} failed", n(Status::Failed))));
    }
    if n(Status::Error) > 0 {
        parts.push(paint.red(&format!(
            "{} error{}",
            n(Status::Error),
            if n(Status::Error) == 1 { "" } else { "s" }
        )));
    }
    if n(Status::Skipped) > 0 {
        parts.push(paint.yellow(&format!("{} skipped", n(Status::Skipped))));
    }
    format!("{} ({})", parts.join(", "), crate::text::fmt_duration(took))
}

/// A path as the user would write it: without a leading `./`.
pub fn shown_path(p: &std::path::Path) -> String {
    let s = p.display().to_string();
    s.strip_prefix("./").map(str::to_string).unwrap_or(s)
}

/// Milliseconds to a tenth, for JSON.
fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 10_000.0).round() / 10.0
}

/// A step's lines: its mark, label and time; under a failure the first
/// failing assertion, its diff, and how many more failed.
fn step_lines(r: &StepReport, paint: Paint) -> Vec<String> {
    let mut out = Vec::new();
    let time = paint.dim(&crate::text::fmt_duration(r.took));
    match r.status {
        Status::Passed => out.push(format!("  {} {}  {time}", paint.green("✓"), r.label)),
        Status::Failed => {
            out.push(format!("  {} {}  {time}", paint.red("✗"), r.label));
            if let Some(f) = r.failures.first() {
                out.push(format!("      {}", sanitize::one_line(&f.message)));
                out.extend(
                    diff_lines(f, paint)
                        .into_iter()
                        .map(|l| format!("        {l}")),
                );
            }
            if r.failures.len() > 1 {
                let more: Vec<&str> = r.failures[1..]
                    .iter()
                    .map(|f| f.assertion.as_str())
                    .collect();
                out.push(paint.dim(&format!(
                    "      and {} more: {} (--json shows each)",
                    more.len(),
                    sanitize::one_line(&more.join(", "))
                )));
            }
        }
        Status::Error => out.push(format!(
            "  {} {}  {}",
            paint.red("!"),
            r.label,
            sanitize::one_line(r.error.as_deref().unwrap_or("error"))
        )),
        Status::Skipped => out.push(format!(
            "  {} {}  {}",
            paint.yellow("-"),
            r.label,
            paint.dim(r.error.as_deref().unwrap_or("skipped"))
        )),
    }
    for n in &r.notes {
        out.push(paint.dim(&format!("      {}", sanitize::one_line(n))));
    }
    out
}

/// Expected (`-`) against actual (`+`), line by line, unchanged runs
/// shortened to a few lines around the changes; at most
/// [`DIFF_LINES`]. Nothing when there is nothing to compare (a missing
/// snapshot, a missing value).
fn diff_lines(f: &Failure, paint: Paint) -> Vec<String> {
    diff::lines(&f.expected, &f.actual, DIFF_LINES)
        .into_iter()
        .map(|l| match l {
            Line::Same(t) => paint.dim(&format!("  {t}")),
            Line::Removed(t) => paint.red(&format!("- {t}")),
            Line::Added(t) => paint.green(&format!("+ {t}")),
            Line::Gap => paint.dim("⋮"),
            Line::More(n) => paint.dim(&format!("… {n} more lines (--json has both sides whole)")),
        })
        .collect()
}

/// [`diff_lines`] without colour (for the JUnit report).
pub fn diff_lines_plain(f: &Failure) -> Vec<String> {
    diff_lines(f, Paint { on: false })
}

/// The `--json` document.
pub fn document(reports: &[SuiteReport]) -> Value {
    let n = |s: Status| -> usize { reports.iter().map(|r| r.count(s)).sum() };
    json!({
        "suites": reports.iter().map(|r| json!({
            "file": shown_path(&r.file),
            "name": r.name,
            "ms": ms(r.took),
            "steps": r.steps.iter().map(|s| {
                let mut v = json!({
                    "number": s.number,
                    "line": s.line,
                    "name": s.label,
                    "kind": s.kind.label(),
                    "server": s.server,
                    "status": s.status.label(),
                    "ms": ms(s.took),
                    "failures": s.failures.iter().map(|f| json!({
                        "assertion": f.assertion,
                        "expected": f.expected,
                        "actual": f.actual,
                        "message": f.message,
                    })).collect::<Vec<_>>(),
                });
                if let Some(e) = &s.error {
                    v["error"] = json!(e);
                }
                if !s.notes.is_empty() {
                    v["notes"] = json!(s.notes);
                }
                v
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "passed": n(Status::Passed),
        "failed": n(Status::Failed),
        "errors": n(Status::Error),
        "skipped": n(Status::Skipped),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_keeps_context_around_changes() {
        let expected: Value = (0..20).map(|i| json!(i)).collect::<Vec<_>>().into();
        let mut actual = expected.clone();
        actual[10] = json!(99);
        let f = Failure::new("snapshot", expected, actual, "differs");
        let lines = diff_lines(&f, Paint { on: false });
        assert_eq!(
            lines,
            [
                "⋮", "    7,", "    8,", "    9,", "-   10,", "+   99,", "    11,", "    12,",
                "    13,", "⋮"
            ]
        );
        let f = Failure::new("text", json!("Lyon"), json!("Paris"), "differs");
        assert_eq!(diff_lines(&f, Paint { on: false }), ["- Lyon", "+ Paris"]);
        // A text of many lines: the changed line alone.
        let f = Failure::new(
            "snapshot",
            json!({"content": [{"type": "text", "text": "a\nb\nc"}]}),
            json!({"content": [{"type": "text", "text": "a\nB\nc"}]}),
            "differs",
        );
        let lines = diff_lines(&f, Paint { on: false });
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.starts_with(['-', '+']))
                .collect::<Vec<_>>(),
            ["-         b", "+         B"]
        );
        let f = Failure::new("snapshot", Value::Null, json!(1), "missing");
        assert!(diff_lines(&f, Paint { on: false }).is_empty());
    }

    #[test]
    fn server_text_cannot_reach_the_terminal() {
        let f = Failure::new("text", json!("a"), json!("\x1b]52;c;AAAA\x07b"), "differs");
        for l in diff_lines(&f, Paint { on: false }) {
            assert!(!l.contains('\x1b') && !l.contains('\x07'), "{l:?}");
        }
    }
}
