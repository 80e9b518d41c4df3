//! The words of these commands: TARGET and URI/NAME in either order with
//! `-- CMD`, `KEY=VALUE` pairs, RFC 6570 templates expanded with `--var`,
//! and a prompt's arguments checked against its listing.

use serde_json::Value;

use crate::cli::TargetArgs;
use crate::cli::exit::{Exit, Failure};
use crate::sanitize;
use crate::text::did_you_mean;
use crate::uritemplate;

/// `TARGET X` or, with `-- CMD`, `X` alone.
pub(crate) fn split_words(
    words: &[String],
    command: &[String],
    verb: &str,
    what: &str,
) -> Result<(TargetArgs, String), Failure> {
    if command.is_empty() {
        match words {
            [target, x] => Ok((
                TargetArgs {
                    target: Some(target.clone()),
                    command: Vec::new(),
                },
                x.clone(),
            )),
            _ => Err(Failure::new(
                Exit::Usage,
                format!(
                    "{verb} needs a TARGET and a {what}: `mcpdeck {verb} TARGET {what}`, or `mcpdeck {verb} {what} -- CMD ARGS…`"
                ),
            )),
        }
    } else {
        match words {
            [x] => Ok((
                TargetArgs {
                    target: None,
                    command: command.to_vec(),
                },
                x.clone(),
            )),
            _ => Err(Failure::new(
                Exit::Usage,
                format!(
                    "unexpected word {:?}: with `-- CMD`, write `mcpdeck {verb} {what} -- CMD ARGS…`",
                    words.last().map(String::as_str).unwrap_or_default()
                ),
            )),
        }
    }
}

/// `NAME=VALUE` (the value may be empty, or contain `=`).
pub(super) fn pair(s: &str, flag: &str, shape: &str) -> Result<(String, String), Failure> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(Failure::new(
            Exit::Usage,
            format!("{flag} {s:?}: write {shape}"),
        )),
    }
}

/// Every `NAME=VALUE`; a name given twice is an error.
pub(super) fn pairs(
    list: &[String],
    flag: &str,
    shape: &str,
) -> Result<Vec<(String, String)>, Failure> {
    let mut out: Vec<(String, String)> = Vec::new();
    for s in list {
        let (k, v) = pair(s, flag, shape)?;
        if out.iter().any(|(n, _)| *n == k) {
            return Err(Failure::new(
                Exit::Usage,
                format!("{flag} {k:?} is given more than once"),
            ));
        }
        out.push((k, v));
    }
    Ok(out)
}

/// The URI to read: a template is expanded with the `--var` values.
pub(super) fn resolve_uri(uri: &str, vars: &[String]) -> Result<String, Failure> {
    let values = pairs(vars, "--var", "NAME=VALUE")?;
    if !uritemplate::is_template(uri) {
        if let Some((name, _)) = values.first() {
            return Err(Failure::new(
                Exit::Usage,
                format!(
                    "--var {name}: {uri:?} is not a URI template (a template has {{…}}, e.g. `demo://item/{{id}}`)"
                ),
            ));
        }
        return Ok(uri.to_string());
    }
    uritemplate::validate(uri).map_err(|e| Failure::new(Exit::Usage, e))?;
    let names = uritemplate::variables(uri);
    if let Some((unknown, _)) = values.iter().find(|(k, _)| !names.contains(k)) {
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "--var {unknown}: the template {uri:?} has no such variable (its variables: {})",
                names.join(", ")
            ),
        ));
    }
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !values.iter().any(|(k, _)| k == *n))
        .collect();
    if !missing.is_empty() {
        let flags: Vec<String> = missing.iter().map(|n| format!("--var {n}=VALUE")).collect();
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "the template {uri:?} needs a value for {}: add {}",
                missing
                    .iter()
                    .map(|n| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                flags.join(" ")
            ),
        ));
    }
    uritemplate::expand(uri, &values).map_err(|e| Failure::new(Exit::Usage, e))
}

/// A missing required argument or an unknown one is a usage error.
pub(super) fn check_prompt_arguments(p: &Value, given: &[(String, String)]) -> Result<(), Failure> {
    let name = p.get("name").and_then(Value::as_str).unwrap_or_default();
    let declared: Vec<(&str, bool)> = p
        .get("arguments")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| {
                    let n = x.get("name").and_then(Value::as_str)?;
                    let required = x.get("required").and_then(Value::as_bool).unwrap_or(false);
                    Some((n, required))
                })
                .collect()
        })
        .unwrap_or_default();
    if let Some((unknown, _)) = given
        .iter()
        .find(|(k, _)| !declared.iter().any(|(n, _)| n == k))
    {
        let known: Vec<&str> = declared.iter().map(|(n, _)| *n).collect();
        let takes = if known.is_empty() {
            "it takes no arguments".to_string()
        } else {
            format!("its arguments: {}", sanitize::one_line(&known.join(", ")))
        };
        return Err(Failure::new(
            Exit::Usage,
            format!("--arg {unknown}: the prompt {name:?} has no such argument ({takes})"),
        ));
    }
    let missing: Vec<&str> = declared
        .iter()
        .filter(|(n, required)| *required && !given.iter().any(|(k, _)| k == n))
        .map(|(n, _)| *n)
        .collect();
    if !missing.is_empty() {
        let flags: Vec<String> = missing.iter().map(|n| format!("--arg {n}=VALUE")).collect();
        return Err(Failure::new(
            Exit::Usage,
            sanitize::one_line(&format!(
                "the prompt {name:?} needs its required argument{} {}: add {}",
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", "),
                flags.join(" ")
            )),
        ));
    }
    Ok(())
}

pub(super) fn hint(names: &[&str], wanted: &str, list_cmd: &str) -> String {
    did_you_mean(names, wanted).unwrap_or_else(|| format!("; `mcpdeck {list_cmd}` lists them"))
}
