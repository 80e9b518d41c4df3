//! `mcpdeck call`: one tool call, its arguments checked against the
//! `inputSchema` first, its result rendered by content type (or printed as
//! received with `--json`).

use std::io::{Read, Write};
use std::path::Path;

use super::TargetArgs;
use super::exit::{Exit, Failure, Kind, Outcome, call_failure};
use super::link::{Link, Options};
use super::{output, values};
use crate::config::Config;
use crate::mcp::manager::CallError;
use crate::mcp::session::{ListSet, RequestError};
use crate::sanitize;
use crate::text::did_you_mean;
use crate::text::fmt_duration;

pub struct CallArgs {
    pub tool: String,
    pub json_args: Option<String>,
    pub pairs: Vec<String>,
    pub no_validate: bool,
    pub json: bool,
    pub log_level: Option<String>,
}

/// ARGS_JSON as given: the word itself, stdin for `-`, or `--args-file
/// FILE`; checked to be JSON here, so that its error names where it came
/// from (Linux takes at most 128 KiB in one command-line word).
pub async fn read_args(word: Option<&str>, file: Option<&Path>) -> Result<Option<String>, Failure> {
    let (text, from) = match (word, file) {
        (Some(_), Some(f)) => {
            return Err(Failure::new(
                Exit::Usage,
                format!(
                    "give the arguments either as ARGS_JSON or with --args-file {}, not both",
                    f.display()
                ),
            ));
        }
        (None, None) => return Ok(None),
        (Some("-"), None) => {
            // On a thread of its own: the runtime goes on meanwhile, so a
            // signal (Ctrl-C at a terminal) still ends the command.
            let read = tokio::task::spawn_blocking(|| {
                let mut text = String::new();
                std::io::stdin().read_to_string(&mut text).map(|_| text)
            })
            .await;
            let text = read
                .map_err(|e| e.to_string())
                .and_then(|r| r.map_err(|e| e.to_string()))
                .map_err(|e| {
                    Failure::new(
                        Exit::Usage,
                        format!("could not read the arguments from stdin (ARGS_JSON `-`): {e}"),
                    )
                })?;
            (text, "stdin (ARGS_JSON `-`)".to_string())
        }
        (Some(word), None) => return Ok(Some(word.to_string())),
        (None, Some(f)) => {
            let text = std::fs::read_to_string(f).map_err(|e| {
                Failure::new(
                    Exit::Usage,
                    format!("--args-file {}: could not read it: {e}", f.display()),
                )
            })?;
            (text, format!("--args-file {}", f.display()))
        }
    };
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Object(_)) => Ok(Some(text)),
        Ok(other) => Err(Failure::new(
            Exit::Usage,
            format!(
                "the arguments from {from} must be a JSON object like {{\"key\": \"value\"}}, found {}",
                crate::mcp::jsonrpc::short(&other)
            ),
        )),
        Err(e) => Err(Failure::new(
            Exit::Usage,
            format!("the arguments from {from} are not valid JSON: {e}"),
        )),
    }
}

pub async fn call_tool(
    config: &Config,
    target: &TargetArgs,
    call: &CallArgs,
    trace: bool,
) -> Outcome {
    let mut link = Link::open(config, target, Options::new(trace).listing(ListSet::TOOLS)).await?;
    let result = call_connected(&mut link, call).await;
    link.close();
    result
}

async fn call_connected(link: &mut Link, call: &CallArgs) -> Outcome {
    let snap = link.server.clone();
    let tool = snap.lists.tools.iter().find(|t| t.name == call.tool);
    if tool.is_none() && !call.no_validate {
        let names: Vec<&str> = snap.lists.tools.iter().map(|t| t.name.as_str()).collect();
        let hint = did_you_mean(&names, &call.tool).unwrap_or_else(|| {
            "; `mcpdeck tools` lists them, --no-validate sends the call anyway".into()
        });
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "server {:?} lists no tool named {:?}{hint}",
                snap.config.name, call.tool
            ),
        ));
    }
    let schema = tool.and_then(|t| t.input_schema.as_ref());
    let arguments = values::build(call.json_args.as_deref(), &call.pairs, schema)
        .map_err(|e| Failure::new(Exit::Usage, e))?;
    if !call.no_validate
        && let Some(schema) = schema
    {
        match crate::schema::check(schema, &arguments) {
            Ok(violations) if !violations.is_empty() => {
                let list: Vec<String> = violations
                    .iter()
                    .map(|v| format!("    {}", sanitize::strip(&v.to_string())))
                    .collect();
                return Err(Failure::new(
                    Exit::Usage,
                    format!(
                        "the arguments do not match the inputSchema of {:?}:\n{}\nfix them, or pass --no-validate to send them anyway",
                        call.tool,
                        list.join("\n")
                    ),
                )
                .kind(Kind::InvalidArguments));
            }
            Ok(_) => {}
            Err(e) => eprintln!(
                "mcpdeck: not validating the arguments: the tool's inputSchema is broken ({})",
                sanitize::strip(&e)
            ),
        }
    }
    if let Some(level) = &call.log_level
        && let Err(e) = link.set_log_level(level).await
    {
        eprintln!("mcpdeck: warning: {}", sanitize::one_line(&e.to_string()));
    }
    let finished = link.call(&call.tool, arguments).await;
    let (result, elapsed) = finished;
    let mut out = crate::cli::output::stdout();
    match result {
        Ok(r) => {
            if call.json {
                let _ = writeln!(out, "{}", output::json_pretty(&r.raw));
            } else {
                let _ = output::write_call_result(
                    &mut out,
                    &r,
                    tool.and_then(|t| t.output_schema.as_ref()),
                );
            }
            if r.is_error {
                eprintln!(
                    "mcpdeck: the tool reported an error (isError: true) after {}",
                    fmt_duration(elapsed)
                );
                Ok(Exit::ToolError)
            } else {
                Ok(Exit::Ok)
            }
        }
        Err(CallError::Request(RequestError::Rpc { error, .. })) => Err(Failure::new(
            Exit::ToolError,
            format!(
                "the server answered tools/call with error {}",
                sanitize::strip(&error.to_string())
            ),
        )
        .rpc(&error)),
        // In JSON mode the envelope says what went wrong, as data: the
        // server's last stderr lines when it went away mid-call.
        Err(e) => Err(call_failure(&e)),
    }
}
