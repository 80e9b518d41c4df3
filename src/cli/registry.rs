//! `mcpdeck registry search|show|add` and `registry:NAME[@VERSION]`
//! targets: the MCP Registry (API v0.1) from the command line.

use std::io::Write;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::exit::{Exit, Failure, Outcome};
use super::output::json_pretty;
use crate::config::{Config, ServerConfig};
use crate::registry::add::{add_to_config, lint_notes, local_name, memory_entry, secret_name};
use crate::registry::launch::{self, Choice, Given, Launch, LaunchError};
use crate::registry::{Cache, Entry, Registry, RegistryError};
use crate::sanitize;

/// The registry and the inputs of a `registry:NAME` target (or of
/// `registry add`).
#[derive(Args, Debug, Clone, Default)]
pub struct RegistryInputs {
    /// The registry to ask (API v0.1) [default: [settings] registry_url, else the official one]
    #[arg(long, value_name = "URL")]
    pub registry: Option<String>,
    /// For a registry: target, an environment variable of its package, K=V; repeatable
    #[arg(long = "env", value_name = "K=V")]
    pub env: Vec<String>,
    /// For a registry: target, a header of its remote, K=V; repeatable
    #[arg(long = "header", value_name = "K=V")]
    pub header: Vec<String>,
    /// For a registry: target, a {variable} of its URL, header or arguments, or an argument by
    /// name, K=V; repeatable
    #[arg(long = "var", value_name = "K=V")]
    pub var: Vec<String>,
    /// For a registry: target, run its package N (as `registry show` numbers them)
    #[arg(long, value_name = "N", conflicts_with = "remote")]
    pub package: Option<usize>,
    /// For a registry: target, connect to its remote N
    #[arg(long, value_name = "N")]
    pub remote: Option<usize>,
    /// Argument values by name (`--arg NAME=VALUE`, from [`RegistryArg`]
    /// where the command has no `--arg` of its own).
    #[arg(skip)]
    pub arg: Vec<String>,
}

/// `--arg NAME=VALUE` for a `registry:` target, on the commands whose own
/// `--arg` does not mean something else (`call` and `complete` have theirs:
/// there `--var NAME=VALUE` gives an argument by name).
#[derive(Args, Debug, Clone, Default)]
pub struct RegistryArg {
    /// For a registry: target, a runtime or package argument by name, NAME=VALUE; repeatable
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    pub arg: Vec<String>,
}

impl RegistryInputs {
    fn pairs(list: &[String], flag: &str) -> Result<Vec<(String, String)>, Failure> {
        list.iter()
            .map(|s| match s.split_once('=') {
                Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
                _ => Err(Failure::new(
                    Exit::Usage,
                    format!("{flag} {s:?}: write KEY=VALUE"),
                )),
            })
            .collect()
    }

    pub fn given(&self) -> Result<Given, Failure> {
        let vars = Self::pairs(&self.var, "--var")?;
        // An argument's value by its name: --arg, else as a {variable}.
        let mut args = Self::pairs(&self.arg, "--arg")?;
        args.extend(vars.iter().cloned());
        Ok(Given {
            env: Self::pairs(&self.env, "--env")?,
            headers: Self::pairs(&self.header, "--header")?,
            args,
            vars,
        })
    }

    /// With the `--arg` values of a command that has [`RegistryArg`].
    pub fn with_arg(&self, a: &RegistryArg) -> RegistryInputs {
        let mut r = self.clone();
        r.arg.extend(a.arg.iter().cloned());
        r
    }

    fn choice(&self) -> Option<Choice> {
        match (self.package, self.remote) {
            (Some(n), _) => Some(Choice::Package(n)),
            (None, Some(n)) => Some(Choice::Remote(n)),
            _ => None,
        }
    }

    fn any(&self) -> bool {
        !self.env.is_empty()
            || !self.header.is_empty()
            || !self.var.is_empty()
            || !self.arg.is_empty()
            || self.package.is_some()
            || self.remote.is_some()
    }
}

#[derive(Subcommand, Debug)]
pub enum RegistryCmd {
    /// Search the registry (latest versions; deleted entries left out, deprecated ones marked)
    Search {
        /// Words to look for in names (empty: everything)
        query: Option<String>,
        /// Every page, not just the first --limit entries
        #[arg(long)]
        all: bool,
        /// At most N entries [default: 30]
        #[arg(long, value_name = "N", default_value_t = 30)]
        limit: usize,
        /// Ask the network even when the cache has this search
        #[arg(long)]
        refresh: bool,
        /// Print {"servers": [{name, title, description, version, status, statusMessage,
        /// packages, remotes, repository}]}
        #[arg(long)]
        json: bool,
        /// The registry to ask [default: [settings] registry_url, else the official one]
        #[arg(long, value_name = "URL")]
        registry: Option<String>,
    },
    /// Everything to know before running a server: packages, remotes, the exact command
    /// line each would run, the inputs it needs (required and secret marked), status
    Show {
        /// The server's registry name (io.github.owner/name)
        name: String,
        /// A version other than the latest
        #[arg(long, value_name = "V")]
        version: Option<String>,
        /// Print {server, status, statusMessage, publishedAt, updatedAt, isLatest, websiteUrl,
        /// inputs, ways: [{way, default, runtime, runtimeInstalled, runs, argv | error}], lint}
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        inputs: RegistryInputs,
        #[command(flatten)]
        arg: RegistryArg,
    },
    /// Add a server from the registry to the config (secrets go to the credential store)
    Add {
        /// The server's registry name
        name: String,
        /// The name in the config [default: the last part of the registry name]
        #[arg(long = "as", value_name = "LOCAL")]
        local: Option<String>,
        /// A version other than the latest
        #[arg(long, value_name = "V")]
        version: Option<String>,
        /// Write without asking
        #[arg(long)]
        yes: bool,
        /// Print {added, registryName, version, way, secrets: [names], config}
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        inputs: RegistryInputs,
        #[command(flatten)]
        arg: RegistryArg,
    },
}

/// The registry to ask: `--registry`, else `[settings] registry_url`,
/// else the official one.
fn registry(config: &Config, flag: Option<&str>) -> Result<Registry, Failure> {
    let url = flag
        .map(str::to_string)
        .or_else(|| config.settings.registry_url.clone())
        .unwrap_or_else(|| crate::registry::DEFAULT_URL.to_string());
    Registry::new(&url).map_err(|e| Failure::new(Exit::Usage, e.to_string()))
}

fn failure(e: RegistryError) -> Failure {
    match e {
        RegistryError::NotFound { .. } => Failure::new(Exit::Usage, e.to_string()),
        RegistryError::BadUrl(_) => Failure::new(Exit::Usage, e.to_string()),
        _ => Failure::new(Exit::Connect, e.to_string()),
    }
}

fn launch_failure(e: LaunchError) -> Failure {
    Failure::new(Exit::Usage, e.to_string())
}

fn one(s: &Option<String>) -> String {
    s.as_deref().map(sanitize::one_line).unwrap_or_default()
}

fn age(t: std::time::SystemTime) -> String {
    let d = t.elapsed().unwrap_or_default();
    crate::text::fmt_duration(std::time::Duration::from_secs(d.as_secs()))
}

pub async fn run(config: &Config, cmd: RegistryCmd) -> Outcome {
    match cmd {
        RegistryCmd::Search {
            query,
            all,
            limit,
            refresh,
            json,
            registry: flag,
        } => {
            search(
                config,
                query.as_deref(),
                all,
                limit,
                refresh,
                json,
                flag.as_deref(),
            )
            .await
        }
        RegistryCmd::Show {
            name,
            version,
            json,
            inputs,
            arg,
        } => {
            show(
                config,
                &name,
                version.as_deref(),
                json,
                &inputs.with_arg(&arg),
            )
            .await
        }
        RegistryCmd::Add {
            name,
            local,
            version,
            yes,
            json,
            inputs,
            arg,
        } => {
            add(
                config,
                &name,
                local,
                version.as_deref(),
                yes,
                json,
                &inputs.with_arg(&arg),
            )
            .await
        }
    }
}

async fn search(
    config: &Config,
    query: Option<&str>,
    all: bool,
    limit: usize,
    refresh: bool,
    json_out: bool,
    flag: Option<&str>,
) -> Outcome {
    if limit == 0 {
        return Err(Failure::new(
            Exit::Usage,
            "--limit 0 asks for nothing: give a number of entries, or --all",
        ));
    }
    let reg = registry(config, flag)?;
    let q = query.unwrap_or("");
    let cache = Cache::open();
    let cached = if refresh {
        None
    } else {
        cache
            .as_ref()
            .and_then(|c| c.get(reg.base(), q, all, limit))
    };
    let found = match cached {
        Some(f) => f,
        None => match reg.search(query, limit, all).await {
            Ok(f) => {
                if let Some(c) = &cache {
                    c.put(reg.base(), q, all, limit, &f);
                }
                f
            }
            Err(e) => {
                // Offline: the cache, however old, says what it knew.
                if let Some(old) = cache
                    .as_ref()
                    .and_then(|c| c.get(reg.base(), q, all, limit))
                {
                    let mut err = std::io::stderr().lock();
                    let _ = writeln!(
                        err,
                        "mcpdeck: {e}; showing the cached results of {} ago",
                        age(old.fetched)
                    );
                    old
                } else {
                    return Err(failure(e));
                }
            }
        },
    };
    let mut out = super::output::stdout();
    if json_out {
        let v = json!({
            "servers": found.entries.iter().map(Entry::summary_json).collect::<Vec<_>>(),
            "registry": crate::mcp::netlog::shown_url(reg.base()),
            "cached": found.cached,
            "more": found.more,
        });
        let _ = writeln!(out, "{}", json_pretty(&v));
        return Ok(Exit::Ok);
    }
    if found.entries.is_empty() {
        let _ = writeln!(
            out,
            "Nothing found{}.",
            query
                .map(|q| format!(" for {:?}", sanitize::one_line(q)))
                .unwrap_or_default()
        );
    }
    for e in &found.entries {
        let mark = match e.status.as_str() {
            "deprecated" => format!(
                "  [deprecated{}]",
                e.status_message
                    .as_deref()
                    .map(|m| format!(": {}", sanitize::one_line(m)))
                    .unwrap_or_default()
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "{} {}{mark}",
            sanitize::one_line(&e.name),
            sanitize::one_line(&e.version)
        );
        let about = e.title.as_ref().or(e.description.as_ref());
        if let Some(d) = about {
            let d = sanitize::one_line(d);
            let d: String = d.chars().take(160).collect();
            let _ = writeln!(out, "    {d}");
        }
        let mut ways: Vec<String> = e
            .packages
            .iter()
            .map(|p| format!("{} {}", p.registry_type, sanitize::one_line(&p.identifier)))
            .collect();
        ways.extend(
            e.remotes
                .iter()
                .map(|r| format!("{} remote", sanitize::one_line(&r.kind))),
        );
        if !ways.is_empty() {
            let _ = writeln!(out, "    {}", ways.join(" · "));
        }
    }
    let from = if found.cached {
        format!("cached {} ago; --refresh asks again", age(found.fetched))
    } else {
        sanitize::one_line(&crate::mcp::netlog::shown_url(reg.base()))
    };
    let more = if found.more && !all {
        "; more with --all or a larger --limit"
    } else {
        ""
    };
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "mcpdeck: {} servers ({from}){more}",
        found.entries.len()
    );
    Ok(Exit::Ok)
}

/// `NAME` or `NAME@VERSION` of a `registry:` target.
pub fn split_spec(spec: &str) -> (&str, Option<&str>) {
    match spec.rsplit_once('@') {
        // A scoped npm-like name has no `@` after a `/`: `io.x/y@1.0`.
        Some((n, v)) if !n.is_empty() && !v.contains('/') => (n, Some(v)),
        _ => (spec, None),
    }
}

/// The entry and what it would run, or why not.
async fn entry_and_launch(
    config: &Config,
    name: &str,
    version: Option<&str>,
    inputs: &RegistryInputs,
) -> Result<(Registry, Entry, Result<launch::Resolved, LaunchError>), Failure> {
    let reg = registry(config, inputs.registry.as_deref())?;
    let entry = reg.entry(name, version).await.map_err(failure)?;
    let given = inputs.given()?;
    let resolved = launch::pick(&entry, inputs.choice(), &launch::installed)
        .and_then(|c| launch::resolve(&entry, c, &given));
    Ok((reg, entry, resolved))
}

/// Whether stdin and stderr are a terminal (where questions can be asked).
fn interactive_stdin() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// `question [Y/n]` on stderr; yes unless the answer starts with n.
fn confirm(question: &str) -> bool {
    use std::io::BufRead;
    let mut err = std::io::stderr();
    let _ = write!(err, "{question} [Y/n] ");
    let _ = err.flush();
    let mut answer = String::new();
    match std::io::stdin().lock().read_line(&mut answer) {
        Ok(0) | Err(_) => false,
        Ok(_) => !answer.trim_start().to_ascii_lowercase().starts_with('n'),
    }
}

/// One line from the terminal, shown as `*` when `masked` (Ctrl-C, Esc:
/// cancelled).
fn prompt_line(prompt: &str, masked: bool) -> std::io::Result<String> {
    use std::io::BufRead;
    if masked {
        return super::secret::read_masked(prompt)?
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::Interrupted, "cancelled"));
    }
    let mut err = std::io::stderr();
    let _ = write!(err, "{prompt}");
    let _ = err.flush();
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

async fn show(
    config: &Config,
    name: &str,
    version: Option<&str>,
    json_out: bool,
    inputs: &RegistryInputs,
) -> Outcome {
    let reg = registry(config, inputs.registry.as_deref())?;
    let entry = reg.entry(name, version).await.map_err(failure)?;
    let given = inputs.given()?;
    let notes = lint_notes(&entry);
    // Each way to run it, with the command line it would run.
    let mut ways = Vec::new();
    for (i, p) in entry.packages.iter().enumerate() {
        let c = Choice::Package(i + 1);
        let r = launch::resolve(&entry, c, &given);
        ways.push((
            c,
            format!(
                "package {}: {} {}{}",
                i + 1,
                p.registry_type,
                sanitize::one_line(&p.identifier),
                p.version
                    .as_deref()
                    .map(|v| format!(" {}", sanitize::one_line(v)))
                    .unwrap_or_default()
            ),
            launch::runtime(p),
            r,
        ));
    }
    for (i, r) in entry.remotes.iter().enumerate() {
        let c = Choice::Remote(i + 1);
        let res = launch::resolve(&entry, c, &given);
        ways.push((
            c,
            format!(
                "remote {}: {} {}",
                i + 1,
                sanitize::one_line(&r.kind),
                sanitize::one_line(&r.url)
            ),
            "",
            res,
        ));
    }
    let default = launch::pick(&entry, None, &launch::installed).ok();
    let mut out = super::output::stdout();
    if json_out {
        let ways_json: Vec<Value> = ways
            .iter()
            .map(|(c, label, rt, r)| {
                let mut v = json!({
                    "way": label,
                    "default": Some(*c) == default,
                });
                if !rt.is_empty() {
                    v["runtime"] = json!(rt);
                    v["runtimeInstalled"] = json!(launch::installed(rt));
                }
                match r {
                    Ok(r) => {
                        v["runs"] = json!(launch::shown(&r.launch, &r.secrets));
                        if let Launch::Stdio { command, args, .. } = &r.launch {
                            v["argv"] = json!(
                                std::iter::once(command.clone())
                                    .chain(args.iter().map(|a| {
                                        if r.secrets.iter().any(|s| &s.value == a) {
                                            "••••••".to_string()
                                        } else {
                                            a.clone()
                                        }
                                    }))
                                    .collect::<Vec<_>>()
                            );
                        }
                    }
                    Err(e) => v["error"] = json!(e.to_string()),
                }
                v
            })
            .collect();
        let v = json!({
            "server": entry.summary_json(),
            "status": entry.status,
            "statusMessage": entry.status_message,
            "publishedAt": entry.published_at,
            "updatedAt": entry.updated_at,
            "isLatest": entry.is_latest,
            "websiteUrl": entry.website,
            "inputs": entry.inputs_json(),
            "ways": ways_json,
            "lint": notes,
            "registry": crate::mcp::netlog::shown_url(reg.base()),
        });
        let _ = writeln!(out, "{}", json_pretty(&v));
        return Ok(Exit::Ok);
    }
    let _ = writeln!(
        out,
        "{} {}",
        sanitize::one_line(&entry.name),
        sanitize::one_line(&entry.version)
    );
    if entry.title.is_some() {
        let _ = writeln!(out, "title: {}", one(&entry.title));
    }
    if let Some(d) = &entry.description {
        let _ = writeln!(out, "description: {}", sanitize::one_line(d));
    }
    let status = match &entry.status_message {
        Some(m) => format!(
            "{} ({})",
            sanitize::one_line(&entry.status),
            sanitize::one_line(m)
        ),
        None => sanitize::one_line(&entry.status),
    };
    let _ = writeln!(
        out,
        "status: {status}{}",
        if entry.is_latest { ", latest" } else { "" }
    );
    if let Some(r) = &entry.repository {
        let _ = writeln!(out, "repository: {}", sanitize::one_line(r));
    }
    if let Some(w) = &entry.website {
        let _ = writeln!(out, "website: {}", sanitize::one_line(w));
    }
    for (c, label, rt, r) in &ways {
        let _ = writeln!(out);
        let mark = if Some(*c) == default {
            "  (the default)"
        } else {
            ""
        };
        let _ = writeln!(out, "{label}{mark}");
        if !rt.is_empty() {
            let _ = writeln!(
                out,
                "  runtime: {rt}{}",
                if launch::installed(rt) {
                    ""
                } else {
                    " (not installed here)"
                }
            );
        }
        match r {
            Ok(r) => {
                for line in launch::shown(&r.launch, &r.secrets).lines() {
                    let _ = writeln!(out, "  runs: {line}");
                }
            }
            Err(e) => {
                let _ = writeln!(
                    out,
                    "  cannot run yet: {}",
                    sanitize::one_line(&e.to_string())
                );
            }
        }
        // The inputs of this way.
        let inputs: Vec<&crate::registry::Input> = match c {
            Choice::Package(n) => {
                let p = &entry.packages[n - 1];
                p.env
                    .iter()
                    .chain(p.runtime_args.iter().map(|a| &a.input))
                    .chain(p.package_args.iter().map(|a| &a.input))
                    .collect()
            }
            Choice::Remote(n) => {
                let r = &entry.remotes[n - 1];
                r.variables.iter().chain(r.headers.iter()).collect()
            }
        };
        for i in inputs {
            let mut marks = Vec::new();
            if i.required {
                marks.push("required".to_string());
            }
            if i.secret {
                marks.push("secret".to_string());
            }
            if let Some(d) = &i.default {
                marks.push(format!("default {}", sanitize::one_line(d)));
            }
            if !i.choices.is_empty() {
                marks.push(format!(
                    "one of {}",
                    sanitize::one_line(&i.choices.join(", "))
                ));
            }
            let about = i
                .description
                .as_deref()
                .map(|d| format!(": {}", sanitize::one_line(d)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  input {}{}{about}",
                sanitize::one_line(&i.name),
                if marks.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", marks.join(", "))
                }
            );
        }
    }
    for n in notes {
        let _ = writeln!(out, "lint: {}", sanitize::one_line(&n));
    }
    Ok(Exit::Ok)
}

/// A `registry:NAME[@VERSION]` target as a server config (not written
/// anywhere): what it runs, its secrets in place (in memory only). Says on
/// stderr which way was picked.
pub async fn target(
    config: &Config,
    spec: &str,
    inputs: &RegistryInputs,
) -> Result<ServerConfig, Failure> {
    let (name, version) = split_spec(spec);
    if name.is_empty() {
        return Err(Failure::new(
            Exit::Usage,
            "registry: needs a name: `registry:io.github.owner/name[@VERSION]`",
        ));
    }
    let (reg, entry, resolved) = entry_and_launch(config, name, version, inputs).await?;
    if entry.status == "deleted" {
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "{} {} is deleted from the registry{}",
                sanitize::one_line(&entry.name),
                sanitize::one_line(&entry.version),
                entry
                    .status_message
                    .as_deref()
                    .map(|m| format!(": {}", sanitize::one_line(m)))
                    .unwrap_or_default()
            ),
        ));
    }
    let r = resolved.map_err(launch_failure)?;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "mcpdeck: registry {} {} ({}): {}{}",
        sanitize::one_line(&entry.name),
        sanitize::one_line(&entry.version),
        sanitize::one_line(&crate::mcp::netlog::shown_url(reg.base())),
        r.picked,
        if entry.status == "deprecated" {
            " [deprecated]"
        } else {
            ""
        }
    );
    for n in lint_notes(&entry) {
        let _ = writeln!(err, "mcpdeck: lint: {}", sanitize::one_line(&n));
    }
    drop(err);
    // Every display (traces, errors, recordings) masks these values.
    for sv in &r.secrets {
        crate::mcp::bearer::secret::remember(&crate::mcp::bearer::Secret::new(sv.value.clone()));
    }
    let mut err = std::io::stderr().lock();
    for line in launch::shown(&r.launch, &r.secrets).lines() {
        let _ = writeln!(err, "mcpdeck:   runs: {line}");
    }
    drop(err);
    // In memory: values as they are (`$` literal), nothing expanded.
    Ok(memory_entry(&local_name(&entry.name), &r))
}

/// The inputs of this command's `registry:` target (set once, by the
/// command line, before the command runs).
static INPUTS: std::sync::Mutex<Option<RegistryInputs>> = std::sync::Mutex::new(None);

/// The command's registry inputs (`--env`, `--header`, `--var`,
/// `--package`, `--remote`, `--registry`).
pub fn set_inputs(inputs: Option<RegistryInputs>) {
    *INPUTS.lock().unwrap_or_else(|p| p.into_inner()) = inputs;
}

/// TARGET as a server config: a `registry:NAME[@VERSION]` target looked up
/// and resolved (with the command's registry inputs), anything else as
/// [`super::target::target_config`] does.
pub async fn resolve_target(
    config: &Config,
    target: &super::TargetArgs,
) -> Result<ServerConfig, Failure> {
    let inputs = INPUTS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
        .unwrap_or_default();
    match is_registry_target(target.target.as_deref()) {
        Some(spec) if target.command.is_empty() => self::target(config, spec, &inputs).await,
        _ => {
            check_unused(target.target.as_deref(), &inputs)?;
            super::target::target_config(config, target)
        }
    }
}

/// Whether a TARGET is a `registry:` one.
pub fn is_registry_target(t: Option<&str>) -> Option<&str> {
    t.and_then(|t| t.strip_prefix("registry:"))
}

/// Inputs given without a `registry:` target do nothing: say so.
pub fn check_unused(target: Option<&str>, inputs: &RegistryInputs) -> Result<(), Failure> {
    if is_registry_target(target).is_none() && (inputs.any() || inputs.registry.is_some()) {
        return Err(Failure::new(
            Exit::Usage,
            "--registry, --env, --header, --var, --arg, --package and --remote are for a registry:NAME target; this TARGET is not one",
        ));
    }
    Ok(())
}

async fn add(
    config: &Config,
    name: &str,
    local: Option<String>,
    version: Option<&str>,
    yes: bool,
    json_out: bool,
    inputs: &RegistryInputs,
) -> Outcome {
    let Some(path) = config.path.clone() else {
        return Err(Failure::new(
            Exit::Usage,
            "no config file to add to (demo mode)",
        ));
    };
    let (reg, entry, resolved) = entry_and_launch(config, name, version, inputs).await?;
    if entry.status == "deleted" {
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "{} is deleted from the registry",
                sanitize::one_line(&entry.name)
            ),
        ));
    }
    let interactive = interactive_stdin();
    // Missing inputs: asked at a terminal (masked for secrets), else an error naming the flags.
    let mut inputs = inputs.clone();
    let r = match resolved {
        Ok(r) => r,
        Err(LaunchError::Missing(missing)) if interactive && !yes => {
            for m in &missing {
                let prompt = format!(
                    "{}{}{}: ",
                    sanitize::one_line(&m.input.name),
                    m.input
                        .description
                        .as_deref()
                        .map(|d| format!(" ({})", sanitize::one_line(d)))
                        .unwrap_or_default(),
                    if m.input.secret {
                        " [secret, not shown]"
                    } else {
                        ""
                    }
                );
                let value = prompt_line(&prompt, m.input.secret).map_err(|e| {
                    Failure::new(Exit::Usage, format!("reading {}: {e}", m.input.name))
                })?;
                let kv = format!("{}={value}", m.input.name);
                if m.flag.starts_with("--env") {
                    inputs.env.push(kv);
                } else if m.flag.starts_with("--header") {
                    inputs.header.push(kv);
                } else if m.flag.starts_with("--arg") {
                    inputs.arg.push(kv);
                } else {
                    inputs.var.push(kv);
                }
            }
            let given = inputs.given()?;
            let c = launch::pick(&entry, inputs.choice(), &launch::installed)
                .map_err(launch_failure)?;
            launch::resolve(&entry, c, &given).map_err(launch_failure)?
        }
        Err(e) => return Err(launch_failure(e)),
    };
    let local = local.unwrap_or_else(|| local_name(&entry.name));
    if config.server(&local).is_some() {
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "the config already has a server named {local:?}; give another name with --as NAME (nothing was stored)"
            ),
        ));
    }
    crate::config::ConfigEditor::check_server_name(&local)
        .map_err(|m| Failure::new(Exit::Usage, m))?;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "mcpdeck: {} {}: {}",
        sanitize::one_line(&entry.name),
        sanitize::one_line(&entry.version),
        r.picked
    );
    for line in launch::shown(&r.launch, &r.secrets).lines() {
        let _ = writeln!(err, "  runs: {line}");
    }
    for s in &r.secrets {
        let _ = writeln!(
            err,
            "  secret {} → mcpdeck's credential store as {}",
            sanitize::one_line(&s.name),
            secret_name(&local, s)
        );
    }
    for n in lint_notes(&entry) {
        let _ = writeln!(err, "mcpdeck: lint: {}", sanitize::one_line(&n));
    }
    drop(err);
    if !yes {
        if !interactive {
            return Err(Failure::new(
                Exit::Usage,
                "add it without a terminal to ask: pass --yes",
            ));
        }
        if !confirm(&format!("Add {local} to {}?", path.display())) {
            return Err(Failure::new(Exit::Usage, "not added"));
        }
    }
    let stored = add_to_config(
        &path,
        &entry,
        &r,
        &local,
        config.settings.credentials,
        reg.base(),
    )
    .map_err(|m| Failure::new(Exit::Usage, m))?;
    let mut out = super::output::stdout();
    if json_out {
        let v = json!({
            "added": local,
            "registryName": entry.name,
            "version": entry.version,
            "way": r.picked,
            "secrets": stored,
            "config": path.display().to_string(),
        });
        let _ = writeln!(out, "{}", json_pretty(&v));
    } else {
        let _ = writeln!(out, "added {local} to {}", path.display());
    }
    Ok(Exit::Ok)
}
