//! The config from the command line: `add`, `remove`, `enable`,
//! `disable`, `deny`, `allow` (what the TUI does by keypress, for scripts)
//! and `config path|check|edit` (in [`file`]).
//!
//! Every write goes through [`ConfigEditor`]: comments and formatting are
//! kept, the file is validated before and after the edit, and it is
//! replaced atomically, so a failure leaves it byte for byte as it was.
//! These commands read the file themselves (leniently: a `${VAR}` that is
//! not set is no reason to refuse an edit), which is why `load_config`
//! skips them ([`super::config::config_for`]).
//!
//! `enable`, `disable`, `deny` and `allow` make their edit with
//! [`config::edit_enabled`], [`config::edit_deny`] and
//! [`config::edit_allow`] (shared with `serve`'s control socket, and where
//! a toggle and its opposite give the file back across runs); this module
//! prints what they did and turns their [`EditError`] into an exit code.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;
use toml_edit::{DocumentMut, Item};

mod file;
pub use file::{ConfigCmd, config_cmd};

use super::exit::{Exit, Failure, Kind, Outcome};
use crate::config::{self, Config, ConfigEditor, EditError, ServerConfig, TransportConfig};
use crate::sanitize;

#[derive(Args, Debug)]
pub struct AddArgs {
    /// The new server's name: letters, digits, `_`, `.` and `-` (not `__`)
    #[arg(value_name = "NAME")]
    pub name: String,
    /// An http(s):// URL: an HTTP server (streamable HTTP or SSE, detected)
    #[arg(value_name = "URL")]
    pub url: Option<String>,
    /// A header sent to an HTTP server, NAME=VALUE (`${VAR}` is expanded when the server starts); repeatable
    #[arg(long = "header", value_name = "NAME=VALUE")]
    pub headers: Vec<String>,
    /// An environment variable of a stdio server, NAME=VALUE; repeatable
    #[arg(long = "env", value_name = "NAME=VALUE")]
    pub env: Vec<String>,
    /// The working directory of a stdio server
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Print {"path", "server", "action", "changed"} instead of text
    #[arg(long)]
    pub json: bool,
    /// A stdio server: `-- CMD ARGS…`
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

#[derive(Args, Debug)]
pub struct ServerArg {
    /// A server configured in the config file
    #[arg(value_name = "SERVER")]
    pub server: String,
    /// Print {"path", "server", "action", "changed"} instead of text
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ToolArgs {
    /// A server configured in the config file
    #[arg(value_name = "SERVER")]
    pub server: String,
    /// The tool's name, as the server lists it (the server need not be running)
    #[arg(value_name = "TOOL")]
    pub tool: String,
    /// Print {"path", "server", "tool", "action", "changed"} instead of text
    #[arg(long)]
    pub json: bool,
}

fn usage(message: impl Into<String>) -> Failure {
    Failure::new(Exit::Usage, message)
}

/// The file the commands work on.
fn config_path(config: &Config) -> Result<&Path, Failure> {
    config.path.as_deref().ok_or_else(|| {
        usage("there is no config directory on this system (no home directory); name a file with --config FILE or $MCPDECK_CONFIG")
    })
}

/// A failed read or edit (the file was not changed), with its message
/// ([`EditError`]): exit 2, its kind `config` when the file is the
/// trouble, `usage` when the command line is (an unknown server).
fn edit_failure(error: impl Into<EditError>) -> Failure {
    let error = error.into();
    let failure = usage(error.to_string());
    match error {
        EditError::File(_) => failure.kind(Kind::Config),
        EditError::NoServer { .. } | EditError::EmptyTool => failure,
    }
}

/// The editor of the config file and the file as it is now (validated).
fn open(config: &Config) -> Result<(ConfigEditor, Config), Failure> {
    let path = config_path(config)?;
    let editor = ConfigEditor::open(path).map_err(edit_failure)?;
    let current = editor.config().map_err(edit_failure)?;
    Ok((editor, current))
}

/// What a write command did, as text or JSON.
struct Done<'a> {
    path: &'a Path,
    server: &'a str,
    tool: Option<&'a str>,
    action: &'static str,
    changed: bool,
    json: bool,
}

impl Done<'_> {
    fn print(&self, text: impl FnOnce() -> String) -> Outcome {
        if self.json {
            let mut value = json!({
                "path": self.path.display().to_string(),
                "server": self.server,
                "action": self.action,
                "changed": self.changed,
            });
            if let Some(tool) = self.tool {
                value["tool"] = json!(tool);
            }
            outln!("{value}");
        } else {
            outln!("{}", text());
        }
        Ok(Exit::Ok)
    }
}

/// The part of `after` that differs from `before` (or the reverse), as
/// whole lines without the blank lines around them.
fn changed_lines(before: &str, after: &str) -> String {
    // Whole lines: the lines both texts start with and end with (never
    // overlapping) are the same; what is between, in the longer text, is
    // what changed. (A byte diff matched the `# ` that starts two
    // different comments, and showed the next table's comment as removed.)
    let (a, b): (Vec<&str>, Vec<&str>) = (
        before.split_inclusive('\n').collect(),
        after.split_inclusive('\n').collect(),
    );
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let longer = if b.len() >= a.len() { &b } else { &a };
    let part: String = longer[prefix..longer.len() - suffix].concat();
    let lines: Vec<String> = part
        .trim_matches(['\n', '\r'])
        .lines()
        .map(|line| format!("    {}", sanitize::strip(line)))
        .collect();
    lines.join("\n")
}

// ----- add, remove -----

pub fn add(config: &Config, a: &AddArgs) -> Outcome {
    ConfigEditor::check_server_name(&a.name).map_err(usage)?;
    let server = new_server(a)?;
    let (mut editor, current) = open(config)?;
    let path = editor.path().to_path_buf();
    if current.server(&a.name).is_some() {
        return Err(usage(format!(
            "a server named {:?} already exists in {}; to replace it, remove it first (`mcpdeck remove {}`), then add it again",
            a.name,
            path.display(),
            a.name
        )));
    }
    let before = editor.baseline().to_owned();
    editor
        .add_server_as_written(&server)
        .map_err(edit_failure)?;
    // Added as written; a `${VAR}` that is not set now is said at once
    // (the server cannot start until it is).
    // (An error that needs the environment, such as an unset variable in
    // [settings], stops every command: said too.)
    match config::load_str(editor.baseline(), Some(&path), &|name| {
        std::env::var(name).ok()
    }) {
        Ok(added) => {
            warn_unset(added.server(&a.name));
            // A `${secret:NAME}` not stored yet: said too.
            let only = config::Config {
                servers: added.server(&a.name).into_iter().cloned().collect(),
                ..added.clone()
            };
            match crate::secret::missing(&only) {
                Ok(found) => {
                    for d in found {
                        eprintln!("mcpdeck: warning: {}", sanitize::strip(&d.summary()));
                    }
                }
                Err(why) => eprintln!("mcpdeck: warning: {}", sanitize::strip(&why)),
            }
        }
        Err(e) => eprintln!(
            "mcpdeck: warning: the config does not load as it is now: {}",
            sanitize::strip(&e.summary())
        ),
    }
    let what = match &server.transport {
        TransportConfig::Stdio { .. } => "a stdio server",
        TransportConfig::Http { .. } => "an HTTP server",
    };
    Done {
        path: &path,
        server: &a.name,
        tool: None,
        action: "added",
        changed: true,
        json: a.json,
    }
    .print(|| {
        format!(
            "added {what} {:?} to {}:\n{}",
            a.name,
            path.display(),
            changed_lines(&before, editor.baseline())
        )
    })
}

/// The warnings about the `${VAR}`s of `servers` that are not set now
/// (each `FILE:LINE:COL: server "h": the environment variable TOK is not
/// set; set it, or …`). Disabled servers are left out: their variables
/// matter once they are enabled.
pub fn unset_warnings<'a>(servers: impl IntoIterator<Item = &'a ServerConfig>) -> Vec<String> {
    servers
        .into_iter()
        .filter(|s| s.enabled)
        .flat_map(|s| s.unset.iter().map(|u| u.diagnostic.summary()))
        .collect()
}

/// [`unset_warnings`] on stderr.
pub fn warn_unset<'a>(servers: impl IntoIterator<Item = &'a ServerConfig>) {
    for warning in unset_warnings(servers) {
        eprintln!("mcpdeck: warning: {}", sanitize::strip(&warning));
    }
}

/// The server `add` describes, as written in the file (`${VAR}` kept).
fn new_server(a: &AddArgs) -> Result<ServerConfig, Failure> {
    let mut server = match (&a.url, a.command.is_empty()) {
        (Some(url), true) => {
            let lower = url.to_ascii_lowercase();
            if !(lower.starts_with("http://") || lower.starts_with("https://")) {
                return Err(usage(format!(
                    "{:?} is not an http:// or https:// URL; for a stdio server, write the command after `--`: `mcpdeck add {} -- CMD ARGS…`",
                    sanitize::one_line(url),
                    a.name
                )));
            }
            if !url.contains("${") && url::Url::parse(url).is_err() {
                return Err(usage(format!(
                    "{:?} is not a valid URL",
                    sanitize::one_line(url)
                )));
            }
            if !a.env.is_empty() || a.cwd.is_some() {
                return Err(usage(
                    "--env and --cwd apply to stdio servers (`mcpdeck add NAME -- CMD ARGS…`); an HTTP server takes --header",
                ));
            }
            ServerConfig::http(&a.name, url)
        }
        (Some(_), false) => {
            return Err(usage(
                "give either a URL (`mcpdeck add NAME URL`) or a command (`mcpdeck add NAME -- CMD ARGS…`), not both",
            ));
        }
        (None, true) => {
            return Err(usage(format!(
                "add needs a URL (`mcpdeck add {0} https://…`) or a command after `--` (`mcpdeck add {0} -- CMD ARGS…`)",
                a.name
            )));
        }
        (None, false) => {
            if !a.headers.is_empty() {
                return Err(usage(
                    "--header applies to HTTP servers (`mcpdeck add NAME URL --header K=V`); a stdio server takes --env",
                ));
            }
            let Some((command, args)) = a.command.split_first() else {
                return Err(usage("give the command after `--`"));
            };
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            ServerConfig::stdio(&a.name, command, &args)
        }
    };
    match &mut server.transport {
        TransportConfig::Stdio { env, cwd, .. } => {
            *env = pairs("--env", &a.env, |name| {
                if name.contains('\0') {
                    Err("it contains a NUL byte".to_owned())
                } else {
                    Ok(())
                }
            })?;
            if let Some(dir) = &a.cwd {
                let dir = std::path::absolute(dir)
                    .map_err(|e| usage(format!("--cwd {}: {e}", dir.display())))?;
                *cwd = Some(dir);
            }
        }
        TransportConfig::Http { headers, .. } => {
            *headers = pairs("--header", &a.headers, |name| {
                reqwest::header::HeaderName::from_bytes(name.as_bytes())
                    .map(|_| ())
                    .map_err(|_| "it is not a valid HTTP header name".to_owned())
            })?;
        }
    }
    Ok(server)
}

/// NAME=VALUE pairs of a repeatable flag; names checked by `check`.
fn pairs(
    flag: &str,
    given: &[String],
    check: impl Fn(&str) -> Result<(), String>,
) -> Result<Vec<(String, String)>, Failure> {
    let mut out: Vec<(String, String)> = Vec::new();
    for pair in given {
        let Some((name, value)) = pair.split_once('=').filter(|(name, _)| !name.is_empty()) else {
            return Err(usage(format!(
                "{flag} takes NAME=VALUE, got {:?}",
                sanitize::one_line(pair)
            )));
        };
        check(name)
            .map_err(|why| usage(format!("{flag} {:?}: {why}", sanitize::one_line(name))))?;
        if out.iter().any(|(n, _)| n == name) {
            return Err(usage(format!(
                "{flag} {:?} is given twice; keep one",
                sanitize::one_line(name)
            )));
        }
        out.push((name.to_owned(), value.to_owned()));
    }
    Ok(out)
}

pub fn remove(config: &Config, a: &ServerArg) -> Outcome {
    let (mut editor, current) = open(config)?;
    let path = editor.path().to_path_buf();
    config::find_server(&current, &path, &a.server).map_err(edit_failure)?;
    let before = editor.baseline().to_owned();
    editor.remove_server(&a.server).map_err(edit_failure)?;
    Done {
        path: &path,
        server: &a.server,
        tool: None,
        action: "removed",
        changed: true,
        json: a.json,
    }
    .print(|| {
        format!(
            "removed server {:?} from {}:\n{}",
            a.server,
            path.display(),
            changed_lines(&before, editor.baseline())
        )
    })
}

// ----- enable, disable, deny, allow -----

pub fn set_enabled(config: &Config, a: &ServerArg, enabled: bool) -> Outcome {
    let path = config_path(config)?;
    let done = config::edit_enabled(path, &a.server, enabled).map_err(edit_failure)?;
    Done {
        path,
        server: &a.server,
        tool: None,
        action: if enabled { "enabled" } else { "disabled" },
        changed: done.changed,
        json: a.json,
    }
    .print(|| done.message.clone())
}

pub fn deny(config: &Config, a: &ToolArgs) -> Outcome {
    let path = config_path(config)?;
    let done = config::edit_deny(path, &a.server, &a.tool).map_err(edit_failure)?;
    Done {
        path,
        server: &a.server,
        tool: Some(&a.tool),
        action: "denied",
        changed: done.changed,
        json: a.json,
    }
    .print(|| done.message.clone())
}

pub fn allow(config: &Config, a: &ToolArgs) -> Outcome {
    let path = config_path(config)?;
    let done = config::edit_allow(path, &a.server, &a.tool).map_err(edit_failure)?;
    Done {
        path,
        server: &a.server,
        tool: Some(&a.tool),
        action: "allowed",
        changed: done.changed,
        json: a.json,
    }
    .print(|| done.message.clone())
}

// ----- the server names, for completions -----

/// The configured server names, one a line; nothing when the file is
/// missing or broken (the completion scripts call this).
pub fn server_names(config: &Config) -> Outcome {
    let Some(path) = config.path.as_deref() else {
        return Ok(Exit::Ok);
    };
    let Ok(editor) = ConfigEditor::open(path) else {
        return Ok(Exit::Ok);
    };
    let names: Vec<String> = match editor.config() {
        Ok(current) => current.servers.into_iter().map(|s| s.name).collect(),
        // A broken file: whatever names its TOML has, if it parses.
        Err(_) => editor
            .baseline()
            .parse::<DocumentMut>()
            .ok()
            .and_then(|d| {
                d.get("servers")
                    .and_then(Item::as_table_like)
                    .map(|s| s.iter().map(|(k, _)| k.to_owned()).collect())
            })
            .unwrap_or_default(),
    };
    let mut out = crate::cli::output::stdout();
    for name in names {
        // Only names a shell can take as they are.
        if ConfigEditor::check_server_name(&name).is_ok() {
            let _ = writeln!(out, "{name}");
        }
    }
    Ok(Exit::Ok)
}
