//! The smoke report: one [`Check`] per thing tried, printed for a person
//! or as JSON (`{target, ok, server, summary, checks[]}`).

use std::io::Write;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::mcp::{Finding, Severity};
use crate::sanitize;
use crate::text::fmt_duration;

/// How one check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Pass,
    Warn,
    Fail,
    Skip,
    Info,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::Skip => "skip",
            Status::Info => "info",
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone)]
pub struct Check {
    pub kind: &'static str,
    pub name: String,
    pub status: Status,
    pub message: String,
    pub elapsed: Option<Duration>,
    /// For a tool that was called: the arguments sent.
    pub arguments: Option<Value>,
    /// For a tool that was called: where each top-level argument came from.
    pub sources: Vec<(String, &'static str)>,
    /// For a skipped tool: the flag that would call it.
    pub calls_with: Option<&'static str>,
}

impl Check {
    pub fn new(
        kind: &'static str,
        name: impl Into<String>,
        status: Status,
        message: impl Into<String>,
    ) -> Self {
        Check {
            kind,
            name: name.into(),
            status,
            message: message.into(),
            elapsed: None,
            arguments: None,
            sources: Vec::new(),
            calls_with: None,
        }
    }

    pub fn took(mut self, d: Duration) -> Self {
        self.elapsed = Some(d);
        self
    }

    fn to_json(&self) -> Value {
        let mut v = json!({
            "kind": self.kind,
            "name": self.name,
            "status": self.status.label(),
            "message": self.message,
        });
        if let Some(d) = self.elapsed {
            // Milliseconds to the microsecond (3 decimals).
            v["ms"] = json!((d.as_secs_f64() * 1_000_000.0).round() / 1000.0);
        }
        if let Some(a) = &self.arguments {
            v["arguments"] = a.clone();
            let sources: Map<String, Value> = self
                .sources
                .iter()
                .map(|(k, s)| (k.clone(), Value::from(*s)))
                .collect();
            v["sources"] = Value::Object(sources);
        }
        if let Some(flag) = self.calls_with {
            v["calls_with"] = json!(flag);
        }
        v
    }
}

/// A finding about the server's frames, as a check.
pub fn finding_check(f: &Finding) -> Check {
    let status = match f.severity {
        Severity::Error => Status::Fail,
        Severity::Warning => Status::Warn,
        Severity::Info => Status::Info,
    };
    let mut message = sanitize::one_line(&f.message);
    if let Some(raw) = &f.raw {
        let mut cut: String = raw.chars().take(200).collect();
        if cut.len() < raw.len() {
            cut.push('…');
        }
        message.push_str(&format!(" — frame: {}", sanitize::one_line(&cut)));
    }
    Check::new("finding", f.severity.label(), status, message)
}

/// What the report says besides the checks.
pub struct Summary<'a> {
    pub target: &'a str,
    pub server: Option<(&'a crate::mcp::Negotiated, &'a str)>,
    /// Tools with neither `readOnlyHint` nor `destructiveHint`.
    pub unannotated: Vec<String>,
}

impl Summary<'_> {
    /// The advice for the server's author, if any.
    fn suggestion(&self) -> Option<String> {
        let n = self.unannotated.len();
        (n > 0).then(|| {
            let (tools, them) = if n == 1 {
                ("tool has", "it")
            } else {
                ("tools have", "them")
            };
            format!(
                "{n} {tools} no readOnlyHint/destructiveHint annotations, so clients (and smoke) must treat {them} as writes that may destroy; annotate {them}: readOnlyHint: true for a tool that only reads, destructiveHint: false for one that only adds"
            )
        })
    }
}

fn counts(checks: &[Check]) -> (usize, usize, usize, usize) {
    let n = |s| checks.iter().filter(|c| c.status == s).count();
    (
        n(Status::Pass),
        n(Status::Warn),
        n(Status::Fail),
        n(Status::Skip),
    )
}

pub fn print_report(json_out: bool, summary: &Summary, checks: &[Check]) {
    let (pass, warn, fail, skip) = counts(checks);
    let mut out = crate::cli::output::stdout();
    let suggestion = summary.suggestion();
    if json_out {
        let server = summary.server.map(|(n, transport)| {
            json!({
                "name": n.server_info.name,
                "version": n.server_info.version,
                "era": n.era.label(),
                "protocolVersion": n.version,
                "transport": transport,
                "detection": n.detection,
            })
        });
        let mut totals = json!({
            "passed": pass,
            "warnings": warn,
            "failed": fail,
            "skipped": skip,
            "unannotated": summary.unannotated.len(),
        });
        if let Some(s) = &suggestion {
            totals["suggestion"] = json!(s);
        }
        let v = json!({
            "target": summary.target,
            "ok": fail == 0,
            "server": server,
            "summary": totals,
            "checks": checks.iter().map(Check::to_json).collect::<Vec<_>>(),
        });
        let _ = writeln!(out, "{}", super::super::output::json_pretty(&v));
        return;
    }
    let _ = writeln!(out, "smoke test of {}", summary.target);
    if let Some((n, _)) = summary.server {
        let _ = writeln!(
            out,
            "server: {} {}",
            sanitize::one_line(&n.server_info.name),
            sanitize::one_line(&n.server_info.version)
        );
    }
    for c in checks {
        let tag = match c.status {
            Status::Pass => "PASS",
            Status::Warn => "WARN",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
            Status::Info => "INFO",
        };
        let took = c
            .elapsed
            .map(|d| format!(" ({})", fmt_duration(d)))
            .unwrap_or_default();
        let _ = writeln!(out, "{tag} {} {}{took}: {}", c.kind, c.name, c.message);
    }
    if let Some(s) = &suggestion {
        let _ = writeln!(out, "note: {s}");
    }
    let verdict = if fail == 0 { "ok" } else { "FAILED" };
    let _ = writeln!(
        out,
        "{verdict}: {pass} passed, {warn} warnings, {fail} failed, {skip} skipped"
    );
}
