//! The MCP registry's `server.json`: `packages` become stdio commands
//! (npm through `npx -y pkg@version`, PyPI through `uvx pkg==version`,
//! OCI through `docker run -i --rm image`), `remotes` HTTP servers.
//! Arguments are built as a list (never through a shell); what the user
//! must supply (required environment variables, headers, `{name}`
//! templates without a default) becomes `${VAR}` with a warning.

use serde_json::{Map, Value};

use super::json_clients::parse_jsonc;
use super::vars::input_variable;
use super::{Ctx, Draft, FileResult, usable_name};
use crate::config::HttpTransportKind;

/// A field by its current (camelCase) name or its older snake_case one.
fn field<'v>(object: &'v Map<String, Value>, camel: &str, snake: &str) -> Option<&'v Value> {
    object.get(camel).or_else(|| object.get(snake))
}

fn text<'v>(object: &'v Map<String, Value>, camel: &str, snake: &str) -> Option<&'v str> {
    field(object, camel, snake).and_then(Value::as_str)
}

fn flag(object: &Map<String, Value>, camel: &str, snake: &str) -> bool {
    field(object, camel, snake).and_then(Value::as_bool) == Some(true)
}

fn objects<'v>(
    object: &'v Map<String, Value>,
    camel: &str,
    snake: &str,
) -> Vec<&'v Map<String, Value>> {
    field(object, camel, snake)
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default()
}

/// `$` as `$$`, for values taken literally.
fn lit(s: &str) -> String {
    s.replace('$', "$$")
}

/// Replaces `{name}` templates: a variable's default, else `${NAME}` with
/// a warning.
fn fill(value: &str, variables: Option<&Map<String, Value>>, warnings: &mut Vec<String>) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let name = &rest[open + 1..open + close];
        out.push_str(&lit(&rest[..open]));
        let variable = variables
            .and_then(|v| v.get(name))
            .and_then(Value::as_object);
        match variable
            .and_then(|v| v.get("default"))
            .and_then(Value::as_str)
        {
            Some(default) => out.push_str(&lit(default)),
            None => {
                let var = input_variable(name);
                let about = variable
                    .and_then(|v| v.get("description"))
                    .and_then(Value::as_str)
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default();
                warnings.push(format!(
                    "set the environment variable {var}: it fills `{{{name}}}`{about}"
                ));
                out.push_str(&format!("${{{var}}}"));
            }
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(&lit(rest));
    out
}

/// The argv of `runtimeArguments` or `packageArguments`.
fn arguments(list: &[&Map<String, Value>], warnings: &mut Vec<String>) -> Vec<String> {
    let mut argv = Vec::new();
    for arg in list {
        let variables = arg.get("variables").and_then(Value::as_object);
        let value = text(arg, "value", "value").or_else(|| text(arg, "default", "default"));
        let required = flag(arg, "isRequired", "is_required");
        let hint = text(arg, "valueHint", "value_hint");
        let ask = |what: &str, warnings: &mut Vec<String>| {
            let var = input_variable(what);
            warnings.push(format!(
                "set the environment variable {var}: it is the argument `{what}`"
            ));
            format!("${{{var}}}")
        };
        match arg.get("type").and_then(Value::as_str) {
            Some("named") => {
                let Some(name) = text(arg, "name", "name") else {
                    continue;
                };
                match value {
                    Some(value) => {
                        argv.push(lit(name));
                        argv.push(fill(value, variables, warnings));
                    }
                    None if required => {
                        argv.push(lit(name));
                        let what = hint.unwrap_or(name.trim_start_matches('-'));
                        argv.push(ask(what, warnings));
                    }
                    None => {}
                }
            }
            _ => match value {
                Some(value) => argv.push(fill(value, variables, warnings)),
                None => {
                    let what = hint.unwrap_or("argument");
                    argv.push(ask(what, warnings));
                }
            },
        }
    }
    argv
}

/// Environment variables: required ones (and ones with a default) become
/// references, with a warning for the required ones.
fn environment(list: &[&Map<String, Value>], warnings: &mut Vec<String>) -> Vec<(String, String)> {
    let mut env = Vec::new();
    for var in list {
        let Some(name) = text(var, "name", "name") else {
            continue;
        };
        let valid = super::vars::is_variable_name(name);
        let value = text(var, "value", "value");
        let default = text(var, "default", "default");
        if let Some(value) = value {
            env.push((
                name.to_owned(),
                fill(
                    value,
                    var.get("variables").and_then(Value::as_object),
                    warnings,
                ),
            ));
        } else if flag(var, "isRequired", "is_required") && valid {
            let about = text(var, "description", "description")
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            warnings.push(format!(
                "set the environment variable {name}{about}: the server requires it"
            ));
            env.push((name.to_owned(), format!("${{{name}}}")));
        } else if let (Some(default), true) = (default, valid) {
            env.push((name.to_owned(), format!("${{{name}:-{}}}", lit(default))));
        }
    }
    env
}

pub(crate) fn read(ctx: &Ctx<'_>, text_in: &str, out: &mut FileResult) {
    let root = match parse_jsonc(text_in, ctx.path) {
        Ok(v) => v,
        Err(message) => {
            out.errors.push(ctx.file_error(message));
            return;
        }
    };
    let Some(root) = root.as_object() else {
        out.errors.push(ctx.file_error(format!(
            "{}: the file is not a JSON object",
            ctx.path.display()
        )));
        return;
    };
    let full = text(root, "name", "name").unwrap_or("server");
    let base = full.rsplit('/').next().unwrap_or(full);
    let mut ignore = Vec::new();
    let base = usable_name(base, &mut ignore);
    let mut count = 0;
    let mut next_name = |kind: &str| {
        count += 1;
        if count == 1 {
            base.clone()
        } else {
            format!("{base}-{kind}")
        }
    };
    for package in objects(root, "packages", "packages") {
        let kind = text(package, "registryType", "registry_type").unwrap_or("");
        let name = next_name(kind);
        let mut warnings = Vec::new();
        match package_draft(package, &mut warnings).and_then(|d| d.build(&name, &mut warnings)) {
            Ok(server) => out.servers.push(ctx.imported(&name, server, warnings)),
            Err(message) => out.errors.push(ctx.entry_error(&name, message)),
        }
    }
    for remote in objects(root, "remotes", "remotes") {
        let name = next_name("remote");
        let mut warnings = Vec::new();
        match remote_draft(remote, &mut warnings).and_then(|d| d.build(&name, &mut warnings)) {
            Ok(server) => out.servers.push(ctx.imported(&name, server, warnings)),
            Err(message) => out.errors.push(ctx.entry_error(&name, message)),
        }
    }
    if out.servers.is_empty() && out.errors.is_empty() {
        out.errors.push(ctx.file_error(format!(
            "{}: the server.json has neither `packages` nor `remotes`",
            ctx.path.display()
        )));
    }
}

fn package_draft(
    package: &Map<String, Value>,
    warnings: &mut Vec<String>,
) -> Result<Draft, String> {
    let kind = text(package, "registryType", "registry_type").unwrap_or("");
    let identifier = text(package, "identifier", "identifier")
        .or_else(|| text(package, "name", "name"))
        .ok_or("the package has no `identifier`")?;
    let version = text(package, "version", "version").filter(|v| !v.is_empty());
    let transport = package
        .get("transport")
        .and_then(|t| t.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("stdio");
    if transport != "stdio" {
        return Err(format!(
            "the {kind} package serves MCP over \"{transport}\", not stdio; start it yourself and add its URL"
        ));
    }
    let runtime = arguments(
        &objects(package, "runtimeArguments", "runtime_arguments"),
        warnings,
    );
    let package_args = arguments(
        &objects(package, "packageArguments", "package_arguments"),
        warnings,
    );
    let env = environment(
        &objects(package, "environmentVariables", "environment_variables"),
        warnings,
    );
    let mut draft = Draft::new();
    let (command, mut args) = match kind {
        "npm" => {
            let spec = match version {
                Some(v) => format!("{identifier}@{v}"),
                None => identifier.to_owned(),
            };
            let mut args = vec!["-y".to_owned()];
            args.extend(runtime);
            args.push(lit(&spec));
            ("npx", args)
        }
        "pypi" => {
            let spec = match version {
                Some(v) => format!("{identifier}=={v}"),
                None => identifier.to_owned(),
            };
            let mut args = runtime;
            args.push(lit(&spec));
            ("uvx", args)
        }
        "oci" => {
            let last = identifier.rsplit('/').next().unwrap_or(identifier);
            let image = match version {
                Some(v) if !last.contains(':') && !last.contains('@') => {
                    format!("{identifier}:{v}")
                }
                _ => identifier.to_owned(),
            };
            let mut args = vec!["run".to_owned(), "-i".to_owned(), "--rm".to_owned()];
            // The container sees only the variables passed with -e.
            for (name, _) in &env {
                args.push("-e".to_owned());
                args.push(name.clone());
            }
            args.extend(runtime);
            args.push(lit(&image));
            ("docker", args)
        }
        other => {
            return Err(format!(
                "packages of type \"{other}\" cannot be imported yet (npm, pypi and oci can); add its command by hand"
            ));
        }
    };
    args.extend(package_args);
    draft.command = Some(command.to_owned());
    draft.args = args;
    draft.env = env;
    Ok(draft)
}

fn remote_draft(remote: &Map<String, Value>, warnings: &mut Vec<String>) -> Result<Draft, String> {
    let variables = remote.get("variables").and_then(Value::as_object);
    let url = text(remote, "url", "url").ok_or("the remote has no `url`")?;
    let mut draft = Draft::new();
    draft.url = Some(fill(url, variables, warnings));
    draft.implied = match field(remote, "type", "transport_type").and_then(Value::as_str) {
        Some("sse") => Some(HttpTransportKind::Sse),
        Some("streamable-http" | "http" | "streamableHttp") => {
            Some(HttpTransportKind::StreamableHttp)
        }
        Some(other) => {
            return Err(format!(
                "unknown remote type \"{other}\"; mcpdeck knows \"streamable-http\" and \"sse\""
            ));
        }
        None => None,
    };
    for header in objects(remote, "headers", "headers") {
        let Some(name) = text(header, "name", "name") else {
            continue;
        };
        let value = text(header, "value", "value").or_else(|| text(header, "default", "default"));
        let value = match value {
            Some(value) => fill(
                value,
                header
                    .get("variables")
                    .and_then(Value::as_object)
                    .or(variables),
                warnings,
            ),
            None if flag(header, "isRequired", "is_required") => {
                let var = input_variable(name);
                let about = text(header, "description", "description")
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default();
                warnings.push(format!(
                    "set the environment variable {var}: it is the value of the `{name}` header{about}"
                ));
                format!("${{{var}}}")
            }
            None => continue,
        };
        draft.headers.push((name.to_owned(), value));
    }
    Ok(draft)
}
