//! Resources, prompts and completion, headless: `resources`, `templates`,
//! `read`, `prompts`, `prompt` and `complete`. Each reaches its server
//! through a [`Link`] (as every command does), prints text for people
//! (every server string sanitized) or, with `--json`, the result as
//! received.

macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(crate::cli::output::stdout(), $($t)*);
    }};
}

/// `eprintln!`, ignoring a closed stderr.
macro_rules! note {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stderr().lock(), $($t)*);
    }};
}

mod prompt;
mod read;
mod skills;
mod text;
mod words;

use std::io::Write;
use std::path::PathBuf;

use clap::{ArgGroup, Args};
use serde_json::{Value, json};

use super::TargetArgs;
use super::exit::{Exit, Failure, Outcome, call_failure};
use super::link::{Link, Options};
use super::output::json_pretty;
use crate::config::Config;
use crate::mcp::jsonrpc::codes;
use crate::mcp::manager::CallError;
use crate::mcp::session::RequestError;
use crate::sanitize;

pub use prompt::{complete, prompt, prompts};
pub use read::read;
pub use skills::{SkillArgs, skill, skills_list};
use text::*;
pub(crate) use words::split_words;

/// `println!` that ignores a closed stdout (`| head`) instead of panicking.
/// `resources`, `templates` and `prompts`: TARGET and `--json`.
#[derive(Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub registry: crate::cli::registry::RegistryInputs,
    #[command(flatten)]
    pub registry_arg: crate::cli::registry::RegistryArg,
    /// Print the list as received (all pages joined)
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limit: super::target::Limit,
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
    #[command(flatten)]
    pub limit: super::target::Limit,
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
    #[command(flatten)]
    pub limit: super::target::Limit,
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
    #[command(flatten)]
    pub limit: super::target::Limit,
}

pub async fn resources(config: &Config, a: &ListArgs, trace: bool) -> Outcome {
    with_link(config, &a.target, trace, async |s: &mut Link| {
        if !s.declares("resources") {
            return Ok(not_declared(a.json, "resources", json!({"resources": []})));
        }
        let items = s.listed("resources/list").map_err(|e| failure(e, a.json))?;
        let mut out = crate::cli::output::stdout();
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
    with_link(config, &a.target, trace, async |s: &mut Link| {
        if !s.declares("resources") {
            return Ok(not_declared(
                a.json,
                "resources",
                json!({"resourceTemplates": []}),
            ));
        }
        let items = match s.listed("resources/templates/list") {
            Ok(items) => items,
            // Templates are optional, even for servers with resources.
            Err(CallError::Request(RequestError::Rpc { error, .. }))
                if error.code == codes::METHOD_NOT_FOUND =>
            {
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
        let mut out = crate::cli::output::stdout();
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

/// Connect to TARGET, run `body` on the link, close it.
pub(super) async fn with_link(
    config: &Config,
    target: &TargetArgs,
    trace: bool,
    body: impl AsyncFnOnce(&mut Link) -> Outcome,
) -> Outcome {
    let mut link = Link::open(config, target, Options::new(trace)).await?;
    let outcome = body(&mut link).await;
    link.close();
    outcome
}

/// The server does not declare `capability`: say so (exit 0). `--json`
/// prints `empty`, the command's result shape with nothing in it.
pub(super) fn not_declared(json_out: bool, capability: &str, empty: Value) -> Exit {
    let note = format!("The server does not declare the {capability} capability.");
    if json_out {
        note!("mcpdeck: {note}");
        say!("{}", json_pretty(&empty));
    } else {
        say!("{note}");
    }
    Exit::Ok
}

/// A request that failed, with the exit code of its kind (with `--json`,
/// [`super::report_as`] prints its error envelope).
pub(super) fn failure(e: CallError, _json_out: bool) -> Failure {
    call_failure(&e)
}

#[cfg(test)]
mod tests {
    use super::read::*;
    use super::words::*;
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
