//! One tool, called by the smoke test: the policy decides whether, the
//! caller's arguments and [`crate::schema::arguments`] decide with what,
//! and the result is checked against the tool's `outputSchema`.

use serde_json::{Map, Value, json};

use super::super::link::Link;
use super::policy::Selection;
use super::report::{Check, Status};
use crate::config::ServerConfig;
use crate::mcp::Tool;
use crate::mcp::manager::CallError;
use crate::mcp::session::RequestError;
use crate::sanitize;

/// Everything a tool check needs besides the session.
pub struct CallPlan<'a> {
    pub server: &'a ServerConfig,
    pub selection: &'a Selection,
    /// The caller's arguments for this tool, if any.
    pub given: Option<&'a Map<String, Value>>,
}

/// Why a tool is not called, as a check (`None`: call it).
pub fn skipped(tool: &Tool, plan: &CallPlan) -> Option<Check> {
    let name = sanitize::one_line(&tool.name);
    if let Some(rule) = plan.server.tool_refusal(&tool.name) {
        return Some(Check::new(
            "tool",
            name,
            Status::Skip,
            format!("refused by the config ({rule})"),
        ));
    }
    let skip = plan.selection.skip(tool)?;
    let mut check = Check::new("tool", name, Status::Skip, skip.reason);
    check.calls_with = skip.calls_with;
    Some(check)
}

pub async fn call_check(link: &mut Link, tool: &Tool, plan: &CallPlan<'_>) -> Check {
    if let Some(check) = skipped(tool, plan) {
        return check;
    }
    let name = sanitize::one_line(&tool.name);
    let schema = tool
        .input_schema
        .clone()
        .unwrap_or_else(|| json!({"type": "object"}));
    let empty = Map::new();
    let made = match crate::schema::arguments(&schema, plan.given.unwrap_or(&empty)) {
        Ok(a) => a,
        Err(e) => {
            return Check::new(
                "tool",
                name,
                Status::Skip,
                format!(
                    "could not build valid arguments ({}); give them with --args {}=JSON or --args-file",
                    sanitize::one_line(&e.to_string()),
                    sanitize::one_line(&tool.name)
                ),
            );
        }
    };
    let arguments = made.value.clone();
    let mut notes = Vec::new();
    if let Some(first) = made.violations.first() {
        notes.push(format!(
            "the given arguments do not satisfy the inputSchema ({first})"
        ));
    }
    // A tool that requires task execution runs as a task (the manager
    // creates it, polls it and fetches its result).
    let (result, took) = link.call(&tool.name, arguments.clone()).await;
    let shown_args = shown_arguments(&arguments, &made.sources);
    let mut check = match result {
        Ok(r) => {
            let problems = output_problems(tool, &r);
            if !problems.is_empty() {
                Check::new(
                    "tool",
                    name,
                    Status::Fail,
                    format!("{} (arguments {shown_args})", problems.join("; ")),
                )
            } else if r.is_error {
                Check::new(
                    "tool",
                    name,
                    Status::Warn,
                    format!(
                        "returned isError with arguments {shown_args}: {}",
                        text_excerpt(&r.raw)
                    ),
                )
            } else {
                let blocks = r.content.len();
                Check::new(
                    "tool",
                    name,
                    Status::Pass,
                    format!("{blocks} content block(s); arguments {shown_args}"),
                )
            }
        }
        Err(e) => {
            let status = match &e {
                // The caller's own arguments may be what the server objects to.
                CallError::Request(RequestError::Rpc { error, .. })
                    if error.code == crate::mcp::jsonrpc::codes::INVALID_PARAMS
                        && !notes.is_empty() =>
                {
                    Status::Warn
                }
                _ => Status::Fail,
            };
            Check::new(
                "tool",
                name,
                status,
                format!(
                    "{} (arguments {shown_args})",
                    sanitize::one_line(&e.to_string())
                ),
            )
        }
    }
    .took(took);
    if !notes.is_empty() {
        check.message.push_str(&format!("; {}", notes.join("; ")));
    }
    check.arguments = Some(arguments);
    check.sources = made
        .sources
        .iter()
        .map(|(k, s)| (k.clone(), s.label()))
        .collect();
    check
}

/// `{"timezone":"America/New_York"} (timezone: description)`, one line.
fn shown_arguments(arguments: &Value, sources: &[(String, crate::schema::Source)]) -> String {
    let mut s = sanitize::one_line(&arguments.to_string());
    if !sources.is_empty() {
        let from: Vec<String> = sources
            .iter()
            .map(|(k, src)| format!("{}: {}", sanitize::one_line(k), src.label()))
            .collect();
        s.push_str(&format!(" (from {})", from.join(", ")));
    }
    s
}

/// What is wrong with a successful result against the `outputSchema`.
fn output_problems(tool: &Tool, r: &crate::mcp::CallResult) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(out) = &tool.output_schema else {
        return problems;
    };
    if r.is_error {
        return problems;
    }
    match r.structured() {
        None => problems.push(
            "the tool has an outputSchema but the result has no structuredContent".to_string(),
        ),
        Some(sc) => match crate::schema::check(out, sc) {
            Ok(v) if v.is_empty() => {}
            Ok(v) => problems.push(format!(
                "structuredContent breaks the outputSchema: {}{}",
                v.iter()
                    .take(3)
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; "),
                if v.len() > 3 {
                    format!("; … ({} more)", v.len() - 3)
                } else {
                    String::new()
                }
            )),
            Err(e) => problems.push(format!("outputSchema: {e}")),
        },
    }
    problems
}

fn text_excerpt(result: &Value) -> String {
    let text = result
        .get("content")
        .and_then(Value::as_array)
        .and_then(|c| c.iter().find_map(|b| b.get("text").and_then(Value::as_str)))
        .unwrap_or("");
    let squeezed: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut cut: String = squeezed.chars().take(160).collect();
    if cut.len() < squeezed.len() {
        cut.push('…');
    }
    sanitize::one_line(&cut)
}
