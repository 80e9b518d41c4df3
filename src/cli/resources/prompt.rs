//! `mcpdeck prompts`, `prompt` (`prompts/get`) and `complete`
//! (`completion/complete`).

use std::io::Write;

use serde_json::{Map, Value, json};

use crate::cli::exit::{Exit, Failure, Outcome};
use crate::cli::link::Link;
use crate::cli::output::json_pretty;
use crate::config::Config;
use crate::sanitize;
use crate::text::did_you_mean;
use crate::uritemplate;

use super::text::*;
use super::words::*;
use super::*;

pub async fn prompts(config: &Config, a: &ListArgs, trace: bool) -> Outcome {
    with_link(config, &a.target, trace, async |s: &mut Link| {
        if !s.declares("prompts") {
            return Ok(not_declared(a.json, "prompts", json!({"prompts": []})));
        }
        let items = s.listed("prompts/list").map_err(|e| failure(e, a.json))?;
        let mut out = crate::cli::output::stdout();
        if a.json {
            let _ = writeln!(out, "{}", json_pretty(&json!({"prompts": items})));
            return Ok(Exit::Ok);
        }
        if items.is_empty() {
            let _ = writeln!(out, "The server lists no prompts.");
        }
        for p in &items {
            let _ = write_prompt(&mut out, p);
        }
        Ok(Exit::Ok)
    })
    .await
}

pub async fn prompt(config: &Config, a: &PromptArgs, trace: bool) -> Outcome {
    let (target, name) = split_words(&a.words, &a.command, "prompt", "NAME")?;
    let given = pairs(&a.args, "--arg", "KEY=VALUE")?;
    with_link(config, &target, trace, async |s: &mut Link| {
        if !s.declares("prompts") {
            return Err(Failure::new(
                Exit::Usage,
                format!(
                    "the server does not declare the prompts capability, so it has no prompt {name:?}"
                ),
            ));
        }
        let listed = s
            .listed("prompts/list")
            .map_err(|e| failure(e, a.json))?;
        let p = listed_prompt(&listed, &name)?;
        check_prompt_arguments(p, &given)?;
        let arguments: Map<String, Value> = given
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        let result = s
            .request("prompts/get", json!({"name": name, "arguments": arguments}),
            )
            .await
            .map_err(|e| failure(e, a.json))?;
        let mut out = crate::cli::output::stdout();
        if a.json {
            let _ = writeln!(out, "{}", json_pretty(&result));
        } else {
            let _ = write_messages(&mut out, &result);
        }
        Ok(Exit::Ok)
    })
    .await
}

pub async fn complete(config: &Config, a: &CompleteArgs, trace: bool) -> Outcome {
    let (arg_name, partial) = pair(&a.arg, "--arg", "NAME=PARTIAL")?;
    let context = pairs(&a.context, "--context", "KEY=VALUE")?;
    let reference = match (&a.prompt, &a.resource) {
        (Some(name), None) => json!({"type": "ref/prompt", "name": name}),
        (None, Some(uri)) => {
            if uritemplate::is_template(uri) {
                uritemplate::validate(uri).map_err(|e| Failure::new(Exit::Usage, e))?;
                let vars = uritemplate::variables(uri);
                if !vars.contains(&arg_name) {
                    return Err(Failure::new(
                        Exit::Usage,
                        format!(
                            "the template {uri:?} has no variable {arg_name:?} (its variables: {})",
                            vars.join(", ")
                        ),
                    ));
                }
            }
            json!({"type": "ref/resource", "uri": uri})
        }
        _ => {
            return Err(Failure::new(
                Exit::Usage,
                "give exactly one of --prompt NAME and --resource URI_TEMPLATE",
            ));
        }
    };
    let mut params = json!({
        "ref": reference,
        "argument": {"name": arg_name, "value": partial},
    });
    if !context.is_empty() {
        let arguments: Map<String, Value> = context
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        params["context"] = json!({"arguments": arguments});
    }
    with_link(config, &a.target, trace, async |s: &mut Link| {
        if !s.declares("completions") {
            return Ok(not_declared(
                a.json,
                "completions",
                json!({"completion": {"values": []}}),
            ));
        }
        // As `prompt` does: an unknown prompt or argument is a usage error.
        if let Some(name) = &a.prompt
            && s.declares("prompts")
        {
            let listed = s.listed("prompts/list").map_err(|e| failure(e, a.json))?;
            check_completed_prompt(&listed, name, &arg_name, &context)?;
        }
        let result = s
            .request("completion/complete", params)
            .await
            .map_err(|e| failure(e, a.json))?;
        let mut out = crate::cli::output::stdout();
        if a.json {
            let _ = writeln!(out, "{}", json_pretty(&result));
            return Ok(Exit::Ok);
        }
        let Some(completion) = result.get("completion") else {
            return Err(Failure::new(
                Exit::Connect,
                "the completion/complete result has no `completion` object",
            ));
        };
        let values: Vec<String> = completion
            .get("values")
            .and_then(Value::as_array)
            .map(|v| {
                v.iter()
                    .map(|x| match x {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        if values.is_empty() {
            let _ = writeln!(out, "(no completions)");
        }
        for v in &values {
            let _ = writeln!(out, "{}", sanitize::one_line(v));
        }
        let total = completion.get("total").and_then(Value::as_u64);
        let more = completion
            .get("hasMore")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let shown = values.len() as u64;
        match (total, more) {
            (Some(t), _) if t != shown || more => {
                let _ = writeln!(
                    out,
                    "({shown} of {t} values{})",
                    if more { "; the server has more" } else { "" }
                );
            }
            (None, true) => {
                let _ = writeln!(out, "({shown} values; the server has more)");
            }
            _ => {}
        }
        Ok(Exit::Ok)
    })
    .await
}

/// The listed prompt called `name`; none is a usage error (exit 2) with
/// the closest name (`prompt` and `complete --prompt` alike).
fn listed_prompt<'a>(listed: &'a [Value], name: &str) -> Result<&'a Value, Failure> {
    let named = |p: &&Value| p.get("name").and_then(Value::as_str) == Some(name);
    listed.iter().find(named).ok_or_else(|| {
        let names: Vec<&str> = listed
            .iter()
            .filter_map(|p| p.get("name").and_then(Value::as_str))
            .collect();
        Failure::new(
            Exit::Usage,
            format!(
                "the server lists no prompt named {:?}{}",
                sanitize::one_line(name),
                hint(&names, name, "prompts")
            ),
        )
    })
}

/// `complete --prompt NAME --arg ARG=… --context KEY=…`: the prompt is
/// listed, and ARG and every KEY are its arguments (exit 2 otherwise).
fn check_completed_prompt(
    listed: &[Value],
    name: &str,
    arg_name: &str,
    context: &[(String, String)],
) -> Result<(), Failure> {
    let p = listed_prompt(listed, name)?;
    let args: Vec<&str> = p
        .get("arguments")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.get("name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let wanted = std::iter::once(("--arg", arg_name))
        .chain(context.iter().map(|(k, _)| ("--context", k.as_str())));
    for (flag, key) in wanted {
        if !args.contains(&key) {
            let known = if args.is_empty() {
                "it has no arguments".to_string()
            } else {
                format!("its arguments: {}", sanitize::one_line(&args.join(", ")))
            };
            let close = did_you_mean(&args, key).unwrap_or_default();
            return Err(Failure::new(
                Exit::Usage,
                format!(
                    "{flag} {:?}: the prompt {:?} has no such argument{close} ({known})",
                    sanitize::one_line(key),
                    sanitize::one_line(name)
                ),
            ));
        }
    }
    Ok(())
}
