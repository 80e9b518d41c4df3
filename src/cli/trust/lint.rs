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
    #[command(flatten)]
    pub registry: crate::cli::registry::RegistryInputs,
    #[command(flatten)]
    pub registry_arg: crate::cli::registry::RegistryArg,
    /// Print {"findings": [{server, kind, name, rule, severity, message, evidence, field}]}
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limit: crate::cli::target::Limit,
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
    let mut out = crate::cli::output::stdout();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trust::Kind;

    fn finding(name: &str, rule: &'static str, severity: Severity, evidence: &str) -> Finding {
        Finding {
            server: "s".into(),
            kind: Kind::Tool,
            name: name.into(),
            rule,
            severity,
            message: "why".into(),
            evidence: evidence.into(),
            field: "description".into(),
        }
    }

    #[test]
    fn text_is_grouped_by_definition_and_safe() {
        let findings = [
            finding("add", "instruction-tag", Severity::High, "<IMPORTANT>"),
            finding("add", "secret-access", Severity::Medium, "~/.ssh"),
            finding(
                "ev\u{1b}[2Jil\u{200b}",
                "hidden-control",
                Severity::High,
                "x",
            ),
        ];
        let lines = render_text("s", &findings, (2, 0, 0, 0));
        assert_eq!(
            lines[0],
            "s: 3 findings (2 high, 1 medium, 0 low; 2 tools, 0 prompts, 0 resources, 0 templates checked)"
        );
        let headers: Vec<&String> = lines.iter().filter(|l| l.starts_with("tool ")).collect();
        assert_eq!(headers, ["tool add", "tool ev␛[2Jil⟨U+200B⟩"]);
        assert!(lines.contains(&"  HIGH    instruction-tag  (description)".to_string()));
        assert!(lines.contains(&"          evidence: ~/.ssh".to_string()));
        let quiet = render_text("s", &[], (13, 4, 7, 2));
        assert_eq!(
            quiet,
            ["s: no findings (13 tools, 4 prompts, 7 resources, 2 templates checked)"]
        );
    }
}
