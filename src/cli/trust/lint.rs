//! `mcpdeck lint TARGET [--json]`: connect one server, call no tool, and
//! run the rules of [`crate::trust::lint`] over everything it shows the
//! model. Text is grouped by definition and safe for a terminal; `--json`
//! keeps the data exact. Exit 1 when any finding is high.

use std::io::Write;

use clap::Args;
use serde_json::json;

use crate::cli::TargetArgs;
use crate::cli::exit::{Exit, Outcome};
use crate::cli::link::{Link, Options as LinkOptions};
use crate::cli::output;
use crate::config::Config;
use crate::sanitize;
use crate::trust::lint::{Options, lint_server};
use crate::trust::{Finding, Severity};

#[derive(Args, Debug)]
pub struct LintArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Print {"findings": [{server, kind, name, rule, severity, message, evidence, field}]}
    #[arg(long)]
    pub json: bool,
}

pub async fn run(config: &Config, args: &LintArgs, trace: bool) -> Outcome {
    let link = Link::open(config, &args.target, LinkOptions::new(trace)).await?;
    let snap = link.server.clone();
    link.close();
    let options = Options::for_server(&snap.config, &config.settings);
    let instructions = snap
        .negotiated
        .as_ref()
        .and_then(|n| n.instructions.as_deref());
    let findings = lint_server(&snap.config.name, &snap.lists, instructions, &options);
    for (method, e) in &snap.lists.errors {
        eprintln!(
            "mcpdeck: {method} failed, so its definitions were not linted: {}",
            sanitize::one_line(&e.to_string())
        );
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let v = json!({ "findings": findings });
        let _ = writeln!(out, "{}", output::json_pretty(&v));
    } else {
        let counts = (
            snap.lists.tools.len(),
            snap.lists.prompts.len(),
            snap.lists.resources.len(),
            snap.lists.templates.len(),
        );
        for line in render_text(&snap.config.name, &findings, counts) {
            let _ = writeln!(out, "{line}");
        }
    }
    let high = findings.iter().any(|f| f.severity == Severity::High);
    Ok(if high { Exit::ToolError } else { Exit::Ok })
}

/// The text report: a summary line, then the findings grouped by
/// definition, each with its rule, severity, field, message and evidence.
/// Everything a server wrote passes through [`sanitize`].
pub fn render_text(
    server: &str,
    findings: &[Finding],
    (tools, prompts, resources, templates): (usize, usize, usize, usize),
) -> Vec<String> {
    let mut lines = Vec::new();
    let server = sanitize::one_line(server);
    let checked = format!(
        "{tools} tool{}, {prompts} prompt{}, {resources} resource{}, {templates} template{}",
        plural(tools),
        plural(prompts),
        plural(resources),
        plural(templates)
    );
    if findings.is_empty() {
        lines.push(format!("{server}: no findings ({checked} checked)"));
        return lines;
    }
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    lines.push(format!(
        "{server}: {} finding{} ({} high, {} medium, {} low; {checked} checked)",
        findings.len(),
        plural(findings.len()),
        count(Severity::High),
        count(Severity::Medium),
        count(Severity::Low),
    ));
    let mut last: Option<(crate::trust::Kind, &str)> = None;
    for f in findings {
        if last != Some((f.kind, f.name.as_str())) {
            lines.push(String::new());
            lines.push(format!(
                "{} {}",
                f.kind.label(),
                sanitize::one_line(&f.name)
            ));
            last = Some((f.kind, f.name.as_str()));
        }
        lines.push(format!(
            "  {:<6}  {}  ({})",
            f.severity.label().to_uppercase(),
            f.rule,
            sanitize::one_line(&f.field)
        ));
        lines.push(format!("          {}", sanitize::one_line(&f.message)));
        lines.push(format!(
            "          evidence: {}",
            sanitize::one_line(&f.evidence)
        ));
    }
    lines
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
