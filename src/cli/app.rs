//! `app-info TARGET TOOL`: the MCP Apps view a tool names
//! (`_meta.ui.resourceUri`), read with `resources/read` and reported (its
//! size, MIME type, CSP, permissions and what is wrong with them), never
//! rendered.

use std::io::Write;

use clap::Args;
use serde_json::json;

use super::TargetArgs;
use super::exit::{Exit, Failure, Outcome, call_failure};
use super::link::{Link, Options};
use super::output::json_pretty;
use crate::config::Config;
use crate::mcp::apps;
use crate::mcp::session::ListSet;
use crate::sanitize;
use crate::text::human_size;

/// `app-info TARGET TOOL`, or `app-info TOOL -- CMD ARGS…`.
#[derive(Args, Debug)]
pub struct AppInfoArgs {
    /// TARGET TOOL (TOOL alone with `-- CMD`)
    #[arg(value_name = "WORDS", num_args = 1..=2, required = true)]
    pub words: Vec<String>,
    /// Print {"tool", "resourceUri", "visibility", "resource": {"mimeType", "size",
    /// "html"}, "csp", "permissions", "domain", "prefersBorder", "problems"}
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limit: super::target::Limit,
    /// An ad-hoc stdio server
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

pub async fn app_info(config: &Config, a: &AppInfoArgs, trace: bool) -> Outcome {
    let (target, name) = super::resources::split_words(&a.words, &a.command, "app-info", "TOOL")?;
    let lists = ListSet {
        tools: true,
        resources: true,
        ..ListSet::NONE
    };
    let mut link: Link = Link::open(
        config,
        &target as &TargetArgs,
        Options::new(trace).listing(lists),
    )
    .await?;
    let outcome = report(&mut link, &name, a.json).await;
    link.close();
    outcome
}

async fn report(link: &mut Link, name: &str, json_out: bool) -> Outcome {
    let snap = link.server.clone();
    if let Some(e) = snap.lists.error("tools/list") {
        return Err(call_failure(&crate::mcp::manager::CallError::Request(
            e.clone(),
        )));
    }
    let Some(tool) = snap.lists.tools.iter().find(|t| t.name == name) else {
        let names: Vec<&str> = snap.lists.tools.iter().map(|t| t.name.as_str()).collect();
        let hint = crate::text::did_you_mean(&names, name).unwrap_or_default();
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "the server lists no tool named {:?}{hint}",
                sanitize::one_line(name)
            ),
        ));
    };
    let Some(ui) = apps::tool_ui(&tool.raw) else {
        let with: Vec<&str> = snap
            .lists
            .tools
            .iter()
            .filter(|t| apps::tool_ui(&t.raw).is_some())
            .map(|t| t.name.as_str())
            .collect();
        let others = if with.is_empty() {
            "; no tool of this server has one".to_string()
        } else {
            format!(
                "; these tools have one: {}",
                sanitize::one_line(&with.join(", "))
            )
        };
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "the tool {:?} names no MCP Apps view (no _meta.ui.resourceUri){others}",
                sanitize::one_line(name)
            ),
        ));
    };
    let mut problems = apps::tool_problems(&ui);
    let read = link
        .request("resources/read", json!({ "uri": ui.resource_uri }))
        .await
        .map_err(|e| {
            let mut f = call_failure(&e);
            f.message = format!(
                "reading the view {} failed: {}",
                sanitize::one_line(&ui.resource_uri),
                f.message
            );
            f
        })?;
    let listed = snap.lists.resources.iter().find(|r| {
        r.get("uri").and_then(serde_json::Value::as_str) == Some(ui.resource_uri.as_str())
    });
    let mut info = apps::inspect(&read, &ui.resource_uri, listed);
    problems.append(&mut info.problems);
    info.problems = problems;
    let mut out = crate::cli::output::stdout();
    if json_out {
        let _ = writeln!(out, "{}", json_pretty(&info.to_json(name, &ui)));
    } else {
        let _ = writeln!(
            out,
            "{} → {}",
            sanitize::one_line(name),
            sanitize::one_line(&ui.resource_uri)
        );
        if let Some(v) = &ui.visibility {
            let _ = writeln!(out, "visibility: {}", sanitize::one_line(&v.join(", ")));
        }
        let _ = writeln!(
            out,
            "document: {}, {}{}",
            sanitize::one_line(info.mime_type.as_deref().unwrap_or("(no mimeType)")),
            human_size(info.size),
            if info.html { ", HTML" } else { "" }
        );
        match info.ui.get("csp").and_then(|c| c.as_object()) {
            Some(csp) if !csp.is_empty() => {
                let _ = writeln!(out, "csp:");
                for (k, v) in csp {
                    let list: Vec<String> = v
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .map(|d| d.as_str().map_or_else(|| d.to_string(), str::to_string))
                                .collect()
                        })
                        .unwrap_or_else(|| vec![v.to_string()]);
                    let _ = writeln!(
                        out,
                        "  {}: {}",
                        sanitize::one_line(k),
                        sanitize::one_line(&if list.is_empty() {
                            "(none)".to_string()
                        } else {
                            list.join(" ")
                        })
                    );
                }
            }
            _ => {
                let _ = writeln!(
                    out,
                    "csp: (none declared: hosts allow no network, no external resources, no frames)"
                );
            }
        }
        match info.ui.get("permissions").and_then(|p| p.as_object()) {
            Some(p) if !p.is_empty() => {
                let names: Vec<&str> = p.keys().map(String::as_str).collect();
                let _ = writeln!(
                    out,
                    "permissions: {}",
                    sanitize::one_line(&names.join(", "))
                );
            }
            _ => {
                let _ = writeln!(out, "permissions: (none asked)");
            }
        }
        if let Some(d) = info.ui.get("domain").and_then(|d| d.as_str()) {
            let _ = writeln!(out, "domain: {}", sanitize::one_line(d));
        }
        if let Some(b) = info.ui.get("prefersBorder").and_then(|b| b.as_bool()) {
            let _ = writeln!(out, "prefersBorder: {b}");
        }
        if info.problems.is_empty() {
            let _ = writeln!(out, "no problems found (mcpdeck does not render views)");
        } else {
            let _ = writeln!(out, "problems:");
            for p in &info.problems {
                let _ = writeln!(out, "  ✗ {}", sanitize::one_line(p));
            }
        }
    }
    Ok(if info.problems.is_empty() {
        Exit::Ok
    } else {
        Exit::ToolError
    })
}
