//! The report as text, `--json` and SARIF.

use super::*;

pub(super) fn summary_json(s: &Summary) -> Value {
    json!({
        "clients": s.clients,
        "servers": s.servers,
        "distinct": s.distinct,
        "scanned": s.scanned,
        "failed": s.failed,
        "notFound": s.not_found,
        "needsLogin": s.needs_login,
        "timedOut": s.timed_out,
        "disabled": s.disabled,
        "high": s.high,
        "medium": s.medium,
        "low": s.low,
        "changed": s.changed,
    })
}

pub(super) fn report_json(report: &Report) -> Value {
    let clients: Vec<Value> = report
        .clients
        .iter()
        .map(|c| {
            let servers: Vec<Value> = c
                .servers
                .iter()
                .map(|s| {
                    let mut v = json!({
                        "name": s.name,
                        "status": s.status,
                        "findings": s.findings,
                        "changes": s.changes,
                    });
                    if let Some(e) = &s.error {
                        v["error"] = json!(e);
                    }
                    if !s.stderr_tail.is_empty() {
                        v["stderrTail"] = json!(s.stderr_tail);
                    }
                    if let Some([tools, prompts, resources, templates]) = s.counts {
                        v["counts"] = json!({
                            "tools": tools,
                            "prompts": prompts,
                            "resources": resources,
                            "templates": templates,
                        });
                    }
                    v
                })
                .collect();
            let mut v = json!({
                "client": c.client,
                "label": c.label,
                "path": c.path.display().to_string(),
                "servers": servers,
                "errors": c.errors,
            });
            if let Some(e) = &c.error {
                v["error"] = json!(e);
            }
            v
        })
        .collect();
    json!({
        "clients": clients,
        "notes": report.notes,
        "summary": summary_json(&report.summary()),
    })
}

/// A change since pinned, as a finding (SARIF).
pub(super) fn change_finding(server: &str, c: &pin::Change) -> Finding {
    let mut lines = c.render_text();
    let head = if lines.is_empty() {
        String::new()
    } else {
        lines.remove(0)
    };
    Finding {
        server: server.to_owned(),
        kind: c.kind,
        name: c.name.clone(),
        rule: PIN_RULE,
        severity: Severity::High,
        message: format!(
            "{head} since it was pinned: review it, then pin it again (`mcpdeck pin`)."
        ),
        evidence: lines
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join("\n"),
        field: String::new(),
    }
}

pub(super) fn sarif_log(report: &Report) -> Value {
    let rules = rules();
    let mut owned: Vec<(Finding, String)> = Vec::new();
    let mut notices: Vec<sarif::Notice> = report
        .notes
        .iter()
        .map(|n| sarif::Notice {
            message: n.clone(),
            uri: None,
        })
        .collect();
    for c in &report.clients {
        let uri = sarif::file_uri(&c.path);
        if let Some(e) = &c.error {
            notices.push(sarif::Notice {
                message: format!("{}: {e}", c.label),
                uri: Some(uri.clone()),
            });
        }
        for e in &c.errors {
            notices.push(sarif::Notice {
                message: format!("{}: {e}", c.label),
                uri: Some(uri.clone()),
            });
        }
        for s in &c.servers {
            if !matches!(s.status, Status::Scanned | Status::Disabled) {
                notices.push(sarif::Notice {
                    message: format!(
                        "{} server {:?} was not scanned ({}): {}",
                        c.label,
                        s.name,
                        s.status.label(),
                        s.error.as_deref().unwrap_or("")
                    ),
                    uri: Some(uri.clone()),
                });
            }
            for f in &s.findings {
                owned.push((f.clone(), uri.clone()));
            }
            for change in &s.changes {
                owned.push((change_finding(&s.name, change), uri.clone()));
            }
        }
    }
    let located: Vec<sarif::Located> = owned
        .iter()
        .map(|(finding, uri)| sarif::Located { finding, uri })
        .collect();
    sarif::log(&rules, &located, &notices)
}

pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

pub(super) fn report_text(report: &Report) -> String {
    let mut out = String::new();
    let line = |out: &mut String, text: &str| {
        out.push_str(text);
        out.push('\n');
    };
    for note in &report.notes {
        line(&mut out, &format!("note: {}", sanitize::one_line(note)));
    }
    if report.clients.is_empty() {
        line(
            &mut out,
            "No MCP client files were found, and mcpdeck's config lists no servers: nothing to scan.",
        );
        if !report.looked.is_empty() {
            line(&mut out, "Looked for:");
            for p in &report.looked {
                line(
                    &mut out,
                    &format!("  {}", sanitize::one_line(&p.display().to_string())),
                );
            }
        }
        return out;
    }
    for c in &report.clients {
        line(
            &mut out,
            &format!(
                "{}: {}",
                c.label,
                sanitize::one_line(&c.path.display().to_string())
            ),
        );
        if let Some(e) = &c.error {
            for (i, l) in sanitize::strip(e).lines().enumerate() {
                let lead = if i == 0 { "  error: " } else { "    " };
                line(&mut out, &format!("{lead}{l}"));
            }
        }
        if c.error.is_none() && c.servers.is_empty() {
            line(&mut out, "  (no servers)");
        }
        let width = c
            .servers
            .iter()
            .map(|s| sanitize::one_line(&s.name).chars().count())
            .max()
            .unwrap_or(0);
        for s in &c.servers {
            let name = sanitize::one_line(&s.name);
            let mut head = format!("  {name:<width$}  {}", s.status.label());
            if let Some([tools, prompts, resources, templates]) = s.counts {
                head.push_str(&format!(
                    " ({}, {}, {}, {})",
                    plural(tools, "tool", "tools"),
                    plural(prompts, "prompt", "prompts"),
                    plural(resources, "resource", "resources"),
                    plural(templates, "template", "templates")
                ));
            }
            // The error's first line on the server's line, the rest
            // under it (a login's discovery trace only in --json).
            let mut more: Vec<String> = Vec::new();
            if let Some(e) = &s.error {
                let text = sanitize::strip(e);
                let mut lines = text.lines();
                head.push_str(": ");
                head.push_str(&sanitize::one_line(lines.next().unwrap_or("")));
                if s.status != Status::NeedsLogin {
                    more = lines.map(sanitize::one_line).collect();
                }
            } else if s.status == Status::Scanned {
                let counts = severity_counts(&s.findings);
                if s.findings.is_empty() && s.changes.is_empty() {
                    head.push_str(": no findings");
                } else {
                    let mut parts = counts;
                    if !s.changes.is_empty() {
                        parts.push(format!(
                            "{} since pinned",
                            plural(s.changes.len(), "change", "changes")
                        ));
                    }
                    head.push_str(&format!(": {}", parts.join(", ")));
                }
            }
            line(&mut out, &head);
            for l in &more {
                line(&mut out, &format!("      {l}"));
            }
            if s.stderr_tail.len() > 3 {
                line(
                    &mut out,
                    &format!(
                        "      stderr: … ({} earlier lines: --json has them all)",
                        s.stderr_tail.len() - 3
                    ),
                );
            }
            for l in s.stderr_tail.iter().rev().take(3).rev() {
                line(
                    &mut out,
                    &format!("      stderr: {}", sanitize::one_line(l)),
                );
            }
            findings_text(&mut out, &s.findings);
            for change in &s.changes {
                // render_text is safe for a terminal.
                for (i, l) in change.render_text().iter().enumerate() {
                    let since = if i == 0 { " since pinned" } else { "" };
                    line(&mut out, &format!("      {l}{since}"));
                }
            }
        }
        for e in &c.errors {
            line(&mut out, &format!("  not read: {}", sanitize::one_line(e)));
        }
    }
    let s = report.summary();
    let mut states = vec![format!("{} scanned", s.scanned)];
    for (n, what) in [
        (s.failed, "failed"),
        (s.not_found, "not found"),
        (s.needs_login, "need login"),
        (s.timed_out, "timed out"),
        (s.disabled, "disabled"),
    ] {
        if n > 0 {
            states.push(format!("{n} {what}"));
        }
    }
    line(&mut out, "");
    line(
        &mut out,
        &format!(
            "{}, {} ({} distinct): {}. Findings: {} high, {} medium, {} low; {} since pinned.",
            plural(s.clients, "client file", "client files"),
            plural(s.servers, "server", "servers"),
            s.distinct,
            states.join(", "),
            s.high,
            s.medium,
            s.low,
            plural(s.changed, "change", "changes"),
        ),
    );
    out
}

pub(super) fn severity_counts(findings: &[Finding]) -> Vec<String> {
    [Severity::High, Severity::Medium, Severity::Low]
        .into_iter()
        .filter_map(|sev| {
            let n = findings.iter().filter(|f| f.severity == sev).count();
            (n > 0).then(|| format!("{n} {}", sev.label()))
        })
        .collect()
}

/// The findings of one server, grouped by definition.
pub(super) fn findings_text(out: &mut String, findings: &[Finding]) {
    let mut groups: Vec<((Kind, &str), Vec<&Finding>)> = Vec::new();
    for f in findings {
        let key = (f.kind, f.name.as_str());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(f),
            None => groups.push((key, vec![f])),
        }
    }
    for ((kind, name), list) in groups {
        out.push_str(&format!(
            "      {} {}\n",
            kind.label(),
            sanitize::one_line(name)
        ));
        for f in list {
            let at = if f.field.is_empty() {
                String::new()
            } else {
                format!(" ({})", sanitize::one_line(&f.field))
            };
            out.push_str(&format!(
                "        {:<6}  {}{at}: {}\n",
                f.severity.label(),
                f.rule,
                sanitize::one_line(&f.message)
            ));
            if !f.evidence.is_empty() {
                out.push_str(&format!(
                    "                evidence: {}\n",
                    sanitize::one_line(&f.evidence)
                ));
            }
        }
    }
}
