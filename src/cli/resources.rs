//! Resources, prompts and completion, headless: `resources`, `templates`,
//! `read`, `prompts`, `prompt` and `complete`. Each drives one [`Session`]
//! directly (as `smoke` does), prints text for people (every server string
//! sanitized) or, with `--json`, the result as received.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use clap::{ArgGroup, Args};
use serde_json::{Map, Value, json};

use super::output::{json_pretty, write_call_result};
use super::{CHILDREN, Exit, Failure, Outcome, TargetArgs, frame_log, tail_text, target_config};
use crate::config::Config;
use crate::mcp::jsonrpc::codes;
use crate::mcp::manager::session_spec;
use crate::mcp::session::{EventSink, RequestError, Session, SessionEvent, Tagged};
use crate::mcp::types::{CallResult, Content};
use crate::sanitize;
use crate::text::{file_name_for, human_size};
use crate::uritemplate;

/// `println!` that ignores a closed stdout (`| head`) instead of panicking.
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

/// `eprintln!`, ignoring a closed stderr.
macro_rules! note {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stderr().lock(), $($t)*);
    }};
}

/// `resources`, `templates` and `prompts`: TARGET and `--json`.
#[derive(Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Print the list as received (all pages joined)
    #[arg(long)]
    pub json: bool,
}

/// `read TARGET URI`, or `read URI -- CMD ARGS…`.
#[derive(Args, Debug)]
pub struct ReadArgs {
    /// TARGET URI (URI alone with `-- CMD`); a URI with `{…}` is an RFC 6570 template
    #[arg(value_name = "WORDS", num_args = 1..=2, required = true)]
    pub words: Vec<String>,
    /// A template variable, NAME=VALUE; repeatable
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// Write blob contents to files in DIR (named from their URI)
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
    /// Print the result as received
    #[arg(long)]
    pub json: bool,
    /// Then subscribe to the resource and read it again on every
    /// `notifications/resources/updated`, until Ctrl-C (or --updates)
    #[arg(long)]
    pub watch: bool,
    /// With --watch: stop after N updates
    #[arg(long, value_name = "N", requires = "watch")]
    pub updates: Option<u64>,
    /// An ad-hoc stdio server
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// `prompt TARGET NAME`, or `prompt NAME -- CMD ARGS…`.
#[derive(Args, Debug)]
pub struct PromptArgs {
    /// TARGET NAME (NAME alone with `-- CMD`)
    #[arg(value_name = "WORDS", num_args = 1..=2, required = true)]
    pub words: Vec<String>,
    /// One prompt argument, KEY=VALUE (a string); repeatable
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    pub args: Vec<String>,
    /// Print the result as received
    #[arg(long)]
    pub json: bool,
    /// An ad-hoc stdio server
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// `complete TARGET (--prompt NAME | --resource URI_TEMPLATE) --arg NAME=PARTIAL`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("reference").required(true).args(["prompt", "resource"])))]
pub struct CompleteArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Complete an argument of this prompt
    #[arg(long, value_name = "NAME")]
    pub prompt: Option<String>,
    /// Complete a variable of this resource template
    #[arg(long, value_name = "URI_TEMPLATE")]
    pub resource: Option<String>,
    /// The argument to complete and what is typed so far, NAME=PARTIAL
    #[arg(long = "arg", value_name = "NAME=PARTIAL", required = true)]
    pub arg: String,
    /// An argument already chosen, KEY=VALUE (sent as context.arguments); repeatable
    #[arg(long = "context", value_name = "KEY=VALUE")]
    pub context: Vec<String>,
    /// Print the result as received
    #[arg(long)]
    pub json: bool,
}

// ---------------------------------------------------------------------------
// The commands

pub async fn resources(config: &Config, a: &ListArgs, trace: bool) -> Outcome {
    with_session(config, &a.target, trace, async |s: &Session| {
        if !declared(s, "resources") {
            return Ok(not_declared(a.json, "resources", json!({"resources": []})));
        }
        let items = s
            .list_all("resources/list", "resources")
            .await
            .map_err(|e| failure(e, a.json))?;
        let mut out = std::io::stdout().lock();
        if a.json {
            let _ = writeln!(out, "{}", json_pretty(&json!({"resources": items})));
            return Ok(Exit::Ok);
        }
        if items.is_empty() {
            let _ = writeln!(out, "The server lists no resources.");
        }
        for r in &items {
            let _ = write_resource(&mut out, r, "uri");
        }
        Ok(Exit::Ok)
    })
    .await
}

pub async fn templates(config: &Config, a: &ListArgs, trace: bool) -> Outcome {
    with_session(config, &a.target, trace, async |s: &Session| {
        if !declared(s, "resources") {
            return Ok(not_declared(
                a.json,
                "resources",
                json!({"resourceTemplates": []}),
            ));
        }
        let items = match s
            .list_all("resources/templates/list", "resourceTemplates")
            .await
        {
            Ok(items) => items,
            // Templates are optional, even for servers with resources.
            Err(RequestError::Rpc { error, .. }) if error.code == codes::METHOD_NOT_FOUND => {
                let note = format!(
                    "The server has resources but does not offer resources/templates/list ({}).",
                    sanitize::one_line(&error.to_string())
                );
                if a.json {
                    note!("mcpdeck: {note}");
                    say!("{}", json_pretty(&json!({"resourceTemplates": []})));
                } else {
                    say!("{note}");
                }
                return Ok(Exit::Ok);
            }
            Err(e) => return Err(failure(e, a.json)),
        };
        let mut out = std::io::stdout().lock();
        if a.json {
            let _ = writeln!(out, "{}", json_pretty(&json!({"resourceTemplates": items})));
            return Ok(Exit::Ok);
        }
        if items.is_empty() {
            let _ = writeln!(out, "The server lists no resource templates.");
        }
        for t in &items {
            let _ = write_resource(&mut out, t, "uriTemplate");
        }
        Ok(Exit::Ok)
    })
    .await
}

pub async fn read(config: &Config, a: &ReadArgs, trace: bool) -> Outcome {
    let (target, uri) = split_words(&a.words, &a.command, "read", "URI")?;
    let uri = resolve_uri(&uri, &a.vars)?;
    if let Some(dir) = &a.save
        && dir.exists()
        && !dir.is_dir()
    {
        return Err(Failure::new(
            Exit::Usage,
            format!("--save {}: not a directory", dir.display()),
        ));
    }
    let (updates_tx, mut updates) = tokio::sync::mpsc::unbounded_channel::<Value>();
    let watch = a.watch.then_some(updates_tx);
    with_session_watching(config, &target, trace, watch, async |s: &Session| {
        let result = s
            .request("resources/read", Some(json!({"uri": uri})))
            .await
            .map_err(|e| failure(e, a.json))?;
        if a.json {
            say!("{}", json_pretty(&result));
        }
        let mut exit = show_contents(&result, &uri, a)?;
        if !a.watch {
            return Ok(exit);
        }
        s.subscribe(&uri).await.map_err(|e| failure(e, a.json))?;
        note!(
            "mcpdeck: subscribed to {}; waiting for updates (Ctrl-C stops)",
            sanitize::one_line(&uri)
        );
        let mut seen = 0u64;
        while a.updates.is_none_or(|n| seen < n) {
            let Some(update) = updates.recv().await else {
                break;
            };
            if update.get("uri").and_then(Value::as_str) != Some(uri.as_str()) {
                continue;
            }
            seen += 1;
            note!("mcpdeck: {} was updated ({seen})", sanitize::one_line(&uri));
            let result = s
                .request("resources/read", Some(json!({"uri": uri})))
                .await
                .map_err(|e| failure(e, a.json))?;
            if a.json {
                say!("{}", json_pretty(&result));
            }
            exit = show_contents(&result, &uri, a)?;
        }
        let _ = s.unsubscribe(&uri).await;
        Ok(exit)
    })
    .await
}

pub async fn prompts(config: &Config, a: &ListArgs, trace: bool) -> Outcome {
    with_session(config, &a.target, trace, async |s: &Session| {
        if !declared(s, "prompts") {
            return Ok(not_declared(a.json, "prompts", json!({"prompts": []})));
        }
        let items = s
            .list_all("prompts/list", "prompts")
            .await
            .map_err(|e| failure(e, a.json))?;
        let mut out = std::io::stdout().lock();
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
    with_session(config, &target, trace, async |s: &Session| {
        if !declared(s, "prompts") {
            return Err(Failure::new(
                Exit::Usage,
                format!(
                    "the server does not declare the prompts capability, so it has no prompt {name:?}"
                ),
            ));
        }
        let listed = s
            .list_all("prompts/list", "prompts")
            .await
            .map_err(|e| failure(e, a.json))?;
        let Some(p) = listed
            .iter()
            .find(|p| p.get("name").and_then(Value::as_str) == Some(name.as_str()))
        else {
            let names: Vec<&str> = listed
                .iter()
                .filter_map(|p| p.get("name").and_then(Value::as_str))
                .collect();
            return Err(Failure::new(
                Exit::Usage,
                format!("the server lists no prompt named {name:?}{}", hint(&names, &name, "prompts")),
            ));
        };
        check_prompt_arguments(p, &given)?;
        let arguments: Map<String, Value> = given
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        let result = s
            .request(
                "prompts/get",
                Some(json!({"name": name, "arguments": arguments})),
            )
            .await
            .map_err(|e| failure(e, a.json))?;
        let mut out = std::io::stdout().lock();
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
    with_session(config, &a.target, trace, async |s: &Session| {
        if !declared(s, "completions") {
            return Ok(not_declared(
                a.json,
                "completions",
                json!({"completion": {"values": []}}),
            ));
        }
        let result = s
            .request("completion/complete", Some(params))
            .await
            .map_err(|e| failure(e, a.json))?;
        let mut out = std::io::stdout().lock();
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

// ---------------------------------------------------------------------------
// Sessions and failures

/// Connect to TARGET, run `body` on the session, close it.
async fn with_session(
    config: &Config,
    target: &TargetArgs,
    trace: bool,
    body: impl AsyncFnOnce(&Session) -> Outcome,
) -> Outcome {
    with_session_watching(config, target, trace, None, body).await
}

/// [`with_session`], handing each `notifications/resources/updated` to
/// `updates` when given.
async fn with_session_watching(
    config: &Config,
    target: &TargetArgs,
    trace: bool,
    updates: Option<tokio::sync::mpsc::UnboundedSender<Value>>,
    body: impl AsyncFnOnce(&Session) -> Outcome,
) -> Outcome {
    let server = target_config(config, target)?;
    super::warn_insecure(std::slice::from_ref(&server));
    let spec = session_spec(&server, &config.settings, Some(CHILDREN.clone()))
        .map_err(|e| Failure::new(Exit::for_kind(e.kind()), e.to_string()))?;
    let frames = frame_log(&config.settings, trace);
    let sink: EventSink = Arc::new(move |t: Tagged| match &t.event {
        SessionEvent::Finding(f) => super::print_finding(&t.server, f),
        SessionEvent::Notification { method, params }
            if method == "notifications/resources/updated" =>
        {
            if let Some(tx) = &updates {
                let _ = tx.send(params.clone().unwrap_or_default());
            }
        }
        _ => {}
    });
    let session = Session::connect(&spec, frames, sink).await.map_err(|e| {
        Failure::new(
            Exit::for_kind(e.kind()),
            format!(
                "could not connect to {}: {}{}",
                server.name,
                sanitize::strip(&e.to_string()),
                tail_text(e.stderr_tail())
            ),
        )
    })?;
    let outcome = body(&session).await;
    session.close().await;
    outcome
}

fn declared(s: &Session, capability: &str) -> bool {
    s.negotiated().is_some_and(|n| n.has_capability(capability))
}

/// The server does not declare `capability`: say so (exit 0). `--json`
/// prints `empty`, the command's result shape with nothing in it.
fn not_declared(json_out: bool, capability: &str, empty: Value) -> Exit {
    let note = format!("The server does not declare the {capability} capability.");
    if json_out {
        note!("mcpdeck: {note}");
        say!("{}", json_pretty(&empty));
    } else {
        say!("{note}");
    }
    Exit::Ok
}

/// A request that failed, with the exit code of its kind (a JSON-RPC error
/// is printed as `{"error": …}` with `--json`).
fn failure(e: RequestError, json_out: bool) -> Failure {
    if let (RequestError::Rpc { error, .. }, true) = (&e, json_out) {
        say!("{}", json_pretty(&json!({"error": error.to_value()})));
    }
    Failure::new(
        Exit::for_kind(e.kind()),
        format!(
            "{}{}",
            sanitize::strip(&e.to_string()),
            tail_text(e.stderr_tail())
        ),
    )
}

// ---------------------------------------------------------------------------
// Arguments

/// `TARGET X` or, with `-- CMD`, `X` alone.
fn split_words(
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
fn pair(s: &str, flag: &str, shape: &str) -> Result<(String, String), Failure> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(Failure::new(
            Exit::Usage,
            format!("{flag} {s:?}: write {shape}"),
        )),
    }
}

/// Every `NAME=VALUE`; a name given twice is an error.
fn pairs(list: &[String], flag: &str, shape: &str) -> Result<Vec<(String, String)>, Failure> {
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
fn resolve_uri(uri: &str, vars: &[String]) -> Result<String, Failure> {
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
fn check_prompt_arguments(p: &Value, given: &[(String, String)]) -> Result<(), Failure> {
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

fn hint(names: &[&str], wanted: &str, list_cmd: &str) -> String {
    names
        .iter()
        .map(|n| (strsim::jaro_winkler(n, wanted), n))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| format!("; did you mean {:?}?", sanitize::one_line(n)))
        .unwrap_or_else(|| format!("; `mcpdeck {list_cmd}` lists them"))
}

// ---------------------------------------------------------------------------
// Text output

/// Prose from the server on one line: sanitized, whitespace runs made one space.
fn flat(s: &str) -> String {
    sanitize::strip(s)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn write_description(out: &mut impl Write, v: &Value) -> std::io::Result<()> {
    if let Some(d) = field(v, "description") {
        for line in sanitize::strip(d)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(6)
        {
            writeln!(out, "    {}", line.trim_end())?;
        }
    }
    Ok(())
}

/// A resource (`key` = `uri`) or a resource template (`uriTemplate`):
/// `URI  NAME "TITLE"  (MIME, SIZE)`, then its variables and description.
fn write_resource(out: &mut impl Write, r: &Value, key: &str) -> std::io::Result<()> {
    let uri = field(r, key).unwrap_or("(no uri)");
    let mut line = sanitize::one_line(uri);
    if let Some(n) = field(r, "name") {
        line.push_str(&format!("  {}", sanitize::one_line(n)));
    }
    if let Some(t) = field(r, "title")
        && Some(t) != field(r, "name")
    {
        line.push_str(&format!("  \"{}\"", flat(t)));
    }
    let mut facts = Vec::new();
    if let Some(m) = field(r, "mimeType") {
        facts.push(sanitize::one_line(m));
    }
    if let Some(n) = r.get("size").and_then(Value::as_u64) {
        facts.push(human_size(usize::try_from(n).unwrap_or(usize::MAX)));
    }
    if !facts.is_empty() {
        line.push_str(&format!("  ({})", facts.join(", ")));
    }
    writeln!(out, "{line}")?;
    if key == "uriTemplate" {
        match uritemplate::validate(uri) {
            Ok(()) => {
                let vars = uritemplate::variables(uri);
                let shown = if vars.is_empty() {
                    "(none)".to_string()
                } else {
                    sanitize::one_line(&vars.join(", "))
                };
                writeln!(out, "    variables: {shown}")?;
            }
            Err(e) => writeln!(out, "    ✗ {}", sanitize::one_line(&e))?,
        }
    }
    write_description(out, r)
}

/// A prompt: `NAME(req*, opt)  "TITLE"`, its description, then each argument.
fn write_prompt(out: &mut impl Write, p: &Value) -> std::io::Result<()> {
    let name = field(p, "name").unwrap_or("(no name)");
    let args: Vec<&Value> = p
        .get("arguments")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let arg_label = |a: &Value| {
        let n = field(a, "name").unwrap_or("?");
        let star = if a.get("required").and_then(Value::as_bool) == Some(true) {
            "*"
        } else {
            ""
        };
        format!("{}{star}", sanitize::one_line(n))
    };
    let signature: Vec<String> = args.iter().map(|a| arg_label(a)).collect();
    let title = field(p, "title")
        .map(|t| format!("  \"{}\"", flat(t)))
        .unwrap_or_default();
    writeln!(
        out,
        "{}({}){title}",
        sanitize::one_line(name),
        signature.join(", ")
    )?;
    write_description(out, p)?;
    let width = signature
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    for (a, label) in args.iter().zip(&signature) {
        let line = match field(a, "description") {
            Some(d) => format!("{label:<width$}  {}", flat(d)),
            None => label.clone(),
        };
        writeln!(out, "    {}", line.trim_end())?;
    }
    Ok(())
}

/// The messages of a prompts/get result: `role:`, then its content indented.
fn write_messages(out: &mut impl Write, result: &Value) -> std::io::Result<()> {
    if let Some(d) = field(result, "description") {
        writeln!(out, "description: {}", flat(d))?;
    }
    let messages = result
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if messages.is_empty() {
        writeln!(out, "(no messages)")?;
    }
    for m in messages {
        let role = field(m, "role").unwrap_or("(no role)");
        writeln!(out, "{}:", sanitize::one_line(role))?;
        let blocks: Vec<&Value> = match m.get("content") {
            Some(Value::Array(a)) => a.iter().collect(),
            Some(v @ Value::Object(_)) => vec![v],
            _ => Vec::new(),
        };
        if blocks.is_empty() {
            writeln!(out, "    (no content)")?;
            continue;
        }
        let mut findings = Vec::new();
        let content: Vec<Content> = blocks
            .iter()
            .map(|b| Content::parse(b, &mut findings))
            .collect();
        for f in &findings {
            super::print_finding("prompt", f);
        }
        let r = CallResult {
            content,
            is_error: false,
            raw: json!({}),
        };
        let mut buf = Vec::new();
        write_call_result(&mut buf, &r, None)?;
        for line in String::from_utf8_lossy(&buf).lines() {
            if line.is_empty() {
                writeln!(out)?;
            } else {
                writeln!(out, "    {line}")?;
            }
        }
    }
    Ok(())
}

/// The contents of a resources/read result: text with its mime type, blobs
/// as mime and decoded size (saved with `--save`).
fn show_contents(result: &Value, uri: &str, a: &ReadArgs) -> Outcome {
    let Some(contents) = result.get("contents").and_then(Value::as_array) else {
        return Err(Failure::new(
            Exit::Connect,
            "the resources/read result has no `contents` array",
        ));
    };
    let mut out = std::io::stdout().lock();
    let text = !a.json;
    let mut code = Exit::Ok;
    let mut saved_any = false;
    if text && contents.is_empty() {
        let _ = writeln!(
            out,
            "(the server returned no contents for {})",
            sanitize::one_line(uri)
        );
    }
    for (i, c) in contents.iter().enumerate() {
        let item_uri = field(c, "uri").unwrap_or(uri);
        let mime = field(c, "mimeType");
        let shown_mime = mime
            .map(sanitize::one_line)
            .unwrap_or_else(|| "no mimeType".into());
        if text && i > 0 {
            let _ = writeln!(out);
        }
        match (field(c, "text"), field(c, "blob")) {
            (Some(t), _) => {
                if text {
                    let _ = writeln!(
                        out,
                        "{}  ({shown_mime}, text)",
                        sanitize::one_line(item_uri)
                    );
                    let t = sanitize::strip(t);
                    let _ = write!(out, "{t}");
                    if !t.ends_with('\n') {
                        let _ = writeln!(out);
                    }
                }
            }
            (None, Some(b)) => match decode_blob(b) {
                Ok(bytes) => {
                    if text {
                        let _ = writeln!(
                            out,
                            "{}  ({shown_mime}, blob of {})",
                            sanitize::one_line(item_uri),
                            exact_size(bytes.len())
                        );
                    }
                    if let Some(dir) = &a.save {
                        let path = save_blob(dir, item_uri, mime, &bytes)?;
                        saved_any = true;
                        if text {
                            let _ = writeln!(out, "    saved to {}", path.display());
                        } else {
                            note!(
                                "mcpdeck: saved {} ({} bytes) to {}",
                                sanitize::one_line(item_uri),
                                bytes.len(),
                                path.display()
                            );
                        }
                    } else if text {
                        let _ = writeln!(out, "    (--save DIR writes it to a file)");
                    }
                }
                Err(e) => {
                    note!(
                        "mcpdeck: the blob of {} is not valid base64: {e}",
                        sanitize::one_line(item_uri)
                    );
                    if text {
                        let _ = writeln!(
                            out,
                            "{}  ({shown_mime}, blob that is not valid base64)",
                            sanitize::one_line(item_uri)
                        );
                    }
                    code = Exit::Connect;
                }
            },
            (None, None) => {
                note!(
                    "mcpdeck: a content item of {} has neither `text` nor `blob`",
                    sanitize::one_line(item_uri)
                );
                if text {
                    let _ = writeln!(
                        out,
                        "{}  ({shown_mime}, neither text nor blob)",
                        sanitize::one_line(item_uri)
                    );
                }
                code = Exit::Connect;
            }
        }
    }
    if a.save.is_some() && !saved_any {
        note!("mcpdeck: --save: the result has no blob contents, nothing was written");
    }
    Ok(code)
}

/// `55 bytes`, `3.1 KiB (3172 bytes)`.
fn exact_size(n: usize) -> String {
    if n < 1024 {
        format!("{n} bytes")
    } else {
        format!("{} ({n} bytes)", human_size(n))
    }
}

/// Standard base64, padding optional, whitespace ignored.
fn decode_blob(b: &str) -> Result<Vec<u8>, String> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const ENGINE: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let compact: String = b.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    ENGINE.decode(compact).map_err(|e| e.to_string())
}

/// Write `bytes` into `dir` under a name made from `uri`, never
/// overwriting a file: `name`, `name-2`, … Returns the path written.
fn save_blob(dir: &Path, uri: &str, mime: Option<&str>, bytes: &[u8]) -> Result<PathBuf, Failure> {
    let io_fail = |what: &str, p: &Path, e: std::io::Error| {
        Failure::new(
            Exit::Usage,
            format!("--save: cannot {what} {}: {e}", p.display()),
        )
    };
    std::fs::create_dir_all(dir).map_err(|e| io_fail("create the directory", dir, e))?;
    let name = file_name_for(uri, mime);
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
        _ => (name.clone(), String::new()),
    };
    for n in 1..10_000 {
        let candidate = if n == 1 {
            name.clone()
        } else {
            format!("{stem}-{n}{ext}")
        };
        let path = dir.join(candidate);
        // create_new: never follow a symlink or replace an existing file.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(bytes).map_err(|e| io_fail("write", &path, e))?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_fail("create", &path, e)),
        }
    }
    Err(Failure::new(
        Exit::Usage,
        format!(
            "--save: too many files named like {name} in {}",
            dir.display()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saving_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let a = save_blob(dir.path(), "demo://x/f.bin", None, b"one").unwrap();
        let b = save_blob(dir.path(), "demo://x/f.bin", None, b"two").unwrap();
        assert_eq!(a, dir.path().join("x_f.bin"));
        assert_eq!(b, dir.path().join("x_f-2.bin"));
        assert_eq!(std::fs::read(a).unwrap(), b"one");
        assert_eq!(std::fs::read(b).unwrap(), b"two");
    }

    #[test]
    fn blobs_decode_with_or_without_padding_and_whitespace() {
        assert_eq!(decode_blob("aGk=").unwrap(), b"hi");
        assert_eq!(decode_blob("aGk").unwrap(), b"hi");
        assert_eq!(decode_blob("aG\nk=").unwrap(), b"hi");
        assert!(decode_blob("not base64!").is_err());
    }

    #[test]
    fn template_uris_need_every_variable() {
        let t = "demo://resource/dynamic/text/{resourceId}";
        assert_eq!(
            resolve_uri(t, &["resourceId=3".into()]).unwrap(),
            "demo://resource/dynamic/text/3"
        );
        let e = resolve_uri(t, &[]).unwrap_err();
        assert_eq!(e.code, Exit::Usage);
        assert!(e.message.contains("resourceId"), "{}", e.message);
        let e = resolve_uri(t, &["resourceId=3".into(), "other=1".into()]).unwrap_err();
        assert!(e.message.contains("other"), "{}", e.message);
        let e = resolve_uri("demo://plain", &["x=1".into()]).unwrap_err();
        assert!(e.message.contains("not a URI template"), "{}", e.message);
        let e = resolve_uri(t, &["resourceId".into()]).unwrap_err();
        assert!(e.message.contains("NAME=VALUE"), "{}", e.message);
        assert_eq!(resolve_uri("demo://plain", &[]).unwrap(), "demo://plain");
    }

    #[test]
    fn prompt_arguments_are_checked_against_the_listing() {
        let p = json!({"name": "p", "arguments": [
            {"name": "city", "required": true},
            {"name": "state"}
        ]});
        let given = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert!(check_prompt_arguments(&p, &given(&[("city", "x")])).is_ok());
        let e = check_prompt_arguments(&p, &given(&[("state", "x")])).unwrap_err();
        assert_eq!(e.code, Exit::Usage);
        assert!(e.message.contains("city"), "{}", e.message);
        let e = check_prompt_arguments(&p, &given(&[("city", "x"), ("zip", "1")])).unwrap_err();
        assert!(e.message.contains("zip"), "{}", e.message);
    }

    #[test]
    fn prompt_messages_render_each_content_kind() {
        let result = json!({"description": "d\u{1b}[2J", "messages": [
            {"role": "user", "content": {"type": "text", "text": "hello\u{1b}]0;x\u{7}"}},
            {"role": "assistant", "content": {"type": "image", "mimeType": "image/png", "data": "AAAAAAAA"}},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "demo://r", "mimeType": "text/plain", "text": "inside"}}},
            {"role": "user", "content": {"type": "resource_link", "uri": "demo://l", "name": "link"}}
        ]});
        let mut out = Vec::new();
        write_messages(&mut out, &result).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(!s.chars().any(|c| c.is_control() && c != '\n'), "{s:?}");
        assert!(s.contains("description: d\n"), "{s}");
        assert!(s.contains("user:\n    hello\n"), "{s}");
        assert!(s.contains("assistant:\n    [image] image/png, 6 B"), "{s}");
        assert!(
            s.contains("[embedded resource] demo://r (text/plain)"),
            "{s}"
        );
        assert!(s.contains("        inside"), "{s}");
        assert!(s.contains("[resource link] demo://l  \"link\""), "{s}");
    }
}
