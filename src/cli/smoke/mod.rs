//! `mcpdeck smoke TARGET`: the non-interactive smoke test a server's author
//! runs by hand or in CI. Connect and detect the era; list tools, resources
//! and prompts; call the tools the policy allows (by default only those
//! annotated read-only: see [`policy`]) with the caller's arguments or
//! arguments made from their schema; read every static resource; get every
//! prompt without required arguments; answer server requests with safe
//! automatic policies; report every finding. Exit 0 only if nothing failed.

mod call;
pub mod policy;
mod report;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::TargetArgs;
use super::exit::{Exit, Failure, Outcome};
use super::link::{Link, Options};
use crate::config::Config;
use crate::mcp::framelog::Direction;
use crate::mcp::manager::Answers;
use crate::sanitize;
use call::{CallPlan, call_check};
use policy::{Calls, Effect, Selection};
use report::{Check, Status, Summary, finding_check, print_report};

/// The options of `mcpdeck smoke`.
#[derive(clap::Args, Debug, Clone)]
pub struct SmokeArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub registry: crate::cli::registry::RegistryInputs,
    #[command(flatten)]
    pub registry_arg: crate::cli::registry::RegistryArg,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
    /// Which tools to call: read-only (default: only tools annotated
    /// readOnlyHint: true), writes (also readOnlyHint: false with
    /// destructiveHint: false), or all (also destructive tools and tools
    /// without annotations)
    #[arg(long, value_enum, value_name = "WHICH")]
    pub calls: Option<Calls>,
    /// The same as --calls all
    #[arg(long)]
    pub destructive: bool,
    /// Call only these tools (still within --calls); repeatable or comma-separated
    #[arg(long, value_name = "TOOL", num_args = 1.., value_delimiter = ',')]
    pub only: Vec<String>,
    /// Never call these tools; repeatable or comma-separated
    #[arg(long, value_name = "TOOL", num_args = 1.., value_delimiter = ',')]
    pub skip: Vec<String>,
    /// Arguments for one tool, TOOL=JSON (an object); repeatable; over --args-file
    #[arg(long = "args", value_name = "TOOL=JSON")]
    pub args: Vec<String>,
    /// A TOML or JSON file with one table of arguments per tool
    #[arg(long, value_name = "FILE")]
    pub args_file: Option<PathBuf>,
    /// Per-request timeout in seconds (default: the config's request_timeout)
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
}

impl SmokeArgs {
    /// The tool selection these options ask for (`None` for --calls: the default).
    fn selection(&self) -> Result<Selection, Failure> {
        let calls = match (self.calls, self.destructive) {
            (Some(c), false) => c,
            (None, true) | (Some(Calls::All), true) => Calls::All,
            (Some(c), true) => {
                return Err(Failure::new(
                    Exit::Usage,
                    format!(
                        "--destructive means --calls all, which contradicts {}: give one of them",
                        c.flag()
                    ),
                ));
            }
            (None, false) => Calls::ReadOnly,
        };
        Ok(Selection {
            calls,
            only: self.only.clone(),
            skip: self.skip.clone(),
        })
    }

    fn request_timeout(&self) -> Result<Option<Duration>, Failure> {
        match self.timeout {
            Some(t) if !(t.is_finite() && t > 0.0 && t <= 7.0 * 86_400.0) => Err(Failure::new(
                Exit::Usage,
                format!("--timeout {t}: give a number of seconds above 0 and at most a week"),
            )),
            t => Ok(t.map(Duration::from_secs_f64)),
        }
    }
}

pub async fn smoke(config: &Config, args: &SmokeArgs, trace: bool) -> Outcome {
    // Smoke runs without a person: it logs in by itself where the config
    // allows that (client credentials, or a browser command it names).
    crate::mcp::auth::allow_unattended_login(true);
    let mut selection = args.selection()?;
    let timeout = args.request_timeout()?;
    let given = policy::given_arguments(args.args_file.as_deref(), &args.args)
        .map_err(|e| Failure::new(Exit::Usage, e))?;
    let server = crate::cli::registry::resolve_target(config, &args.target).await?;
    // A configured server by its name; a URL or a command as given.
    let configured = args
        .target
        .target
        .as_deref()
        .is_some_and(|t| config.server(t).is_some());
    let shown_target = match &server.transport {
        _ if configured => sanitize::one_line(&server.name),
        crate::config::TransportConfig::Http { url, .. } => crate::mcp::netlog::shown_url(url),
        crate::config::TransportConfig::Stdio { command, args, .. } => sanitize::one_line(
            &std::iter::once(command.clone())
                .chain(args.iter().cloned())
                .collect::<Vec<_>>()
                .join(" "),
        ),
    };
    let options = Options {
        trace,
        answers: Answers::Automatically,
        keep_findings: true,
        timeout,
        connect_timeout: None,
        lists: crate::mcp::session::ListSet::ALL,
    };
    let mut checks: Vec<Check> = Vec::new();
    let started = Instant::now();

    let mut link = match Link::connect(config, &args.target, options).await? {
        Ok(link) => link,
        Err((_, e)) => {
            let mut message = sanitize::one_line(&e.to_string());
            if !e.stderr_tail().is_empty() {
                message.push_str(&format!(
                    "; server stderr: {}",
                    sanitize::one_line(&e.stderr_tail().join(" | "))
                ));
            }
            checks.push(
                Check::new("connect", &shown_target, Status::Fail, message).took(started.elapsed()),
            );
            let summary = Summary {
                target: &shown_target,
                server: None,
                unannotated: Vec::new(),
            };
            print_report(args.json, &summary, &checks);
            return Ok(Exit::for_kind(e.kind()));
        }
    };
    let negotiated = link.server.negotiated.clone();
    if let Some(n) = &negotiated {
        checks.push(
            Check::new(
                "connect",
                &shown_target,
                Status::Pass,
                format!(
                    "{} era, version {} over {}; {}",
                    n.era.label(),
                    n.version,
                    n.transport,
                    sanitize::one_line(&n.detection)
                ),
            )
            .took(n.connect_time),
        );
    }

    // The manager listed everything while connecting (a list that failed
    // is a finding, reported below).
    let lists = link.server.lists.clone();
    checks.push(Check::new(
        "list",
        "tools, resources, prompts",
        Status::Pass,
        [
            count(lists.tools.len(), "tool", "tools"),
            count(lists.resources.len(), "resource", "resources"),
            count(
                lists.templates.len(),
                "resource template",
                "resource templates",
            ),
            count(lists.prompts.len(), "prompt", "prompts"),
        ]
        .join(", "),
    ));

    // --only naming a tool the server does not list tests less than it
    // says: a usage error, with the names that come close.
    let unknown_only: Vec<&str> = selection
        .only
        .iter()
        .filter(|n| !lists.tools.iter().any(|t| t.name == **n))
        .map(String::as_str)
        .collect();
    if !unknown_only.is_empty() {
        link.close();
        return Err(unknown_only_failure(&unknown_only, &lists.tools));
    }
    for name in selection.unknown(&lists.tools) {
        checks.push(Check::new(
            "tool",
            sanitize::one_line(name),
            Status::Warn,
            "named by --skip, but the server lists no such tool",
        ));
    }
    let unlisted = given
        .keys()
        .filter(|name| !lists.tools.iter().any(|t| t.name == **name));
    for tool in unlisted {
        checks.push(Check::new(
            "tool",
            sanitize::one_line(tool),
            Status::Warn,
            "arguments were given for it (--args, --args-file), but the server lists no such tool",
        ));
    }
    // Left at the default, at a terminal: offer the additive writes once.
    if args.calls.is_none() && !args.destructive && !args.json {
        let plan = CallPlan {
            server: &server,
            selection: &selection,
            given: None,
        };
        let writes: Vec<&crate::mcp::Tool> = lists
            .tools
            .iter()
            .filter(|t| Effect::of(t) == Effect::Additive)
            .filter(|t| call::skipped(t, &plan).is_some_and(|c| c.calls_with.is_some()))
            .collect();
        if policy::ask_for_writes(&writes) {
            selection.calls = Calls::Writes;
        }
    }
    // Of the tools --only names: how many were called, and why the others
    // were not.
    let mut only_called = 0;
    let mut only_skipped = Vec::new();
    for tool in &lists.tools {
        let plan = CallPlan {
            server: &server,
            selection: &selection,
            given: given.get(&tool.name),
        };
        let check = call_check(&mut link, tool, &plan).await;
        if selection.only.contains(&tool.name) {
            if check.status == Status::Skip {
                only_skipped.push(format!("{} ({})", check.name, check.message));
            } else {
                only_called += 1;
            }
        }
        checks.push(check);
    }
    if !selection.only.is_empty() && only_called == 0 {
        checks.push(Check::new(
            "tool",
            "--only",
            Status::Fail,
            format!(
                "no tool named by --only was called, so nothing was tested: {}",
                only_skipped.join("; ")
            ),
        ));
    }
    for r in &lists.resources {
        checks.push(read_check(&mut link, r).await);
    }
    for p in &lists.prompts {
        checks.push(prompt_check(&mut link, p).await);
    }

    // The server's own requests, and how they were answered.
    for f in link.frames().snapshot() {
        if f.dir == Direction::In
            && f.id.is_some()
            && let Some(m) = f.method.as_deref()
            && matches!(
                m,
                "roots/list" | "elicitation/create" | "sampling/createMessage" | "ping"
            )
            && f.latency.is_none()
        {
            let roots = server.roots(&config.settings);
            let declared = config.settings.capabilities;
            let refused = format!(
                "refused: not declared (--capabilities {})",
                declared.words()
            );
            let given;
            let how = match m {
                "roots/list" | "sampling/createMessage" | "elicitation/create"
                    if !match m {
                        "roots/list" => declared.roots,
                        "sampling/createMessage" => declared.sampling,
                        _ => declared.elicitation_form || declared.elicitation_url,
                    } =>
                {
                    refused.as_str()
                }
                "roots/list" if roots.is_empty() => {
                    "answered with no roots (none configured: [settings] roots, the server's roots, or --roots)"
                }
                "roots/list" => {
                    given = format!(
                        "answered with the configured roots: {}",
                        roots
                            .iter()
                            .map(|d| sanitize::one_line(&d.display().to_string()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                    given.as_str()
                }
                "elicitation/create" => "accepted with the schema's defaults (URL mode declined)",
                "sampling/createMessage" => "declined (smoke offers no sampling)",
                _ => "answered",
            };
            checks.push(Check::new("server request", m, Status::Info, how));
        }
    }
    for f in link.take_findings() {
        checks.push(finding_check(&f));
    }
    link.close();
    let unannotated = lists
        .tools
        .iter()
        .filter(|t| Effect::of(t) == Effect::Unannotated)
        .map(|t| t.name.clone())
        .collect();
    let summary = Summary {
        target: &shown_target,
        server: negotiated.as_ref().map(|n| (n, n.transport)),
        unannotated,
    };
    print_report(args.json, &summary, &checks);
    let failed = checks.iter().any(|c| c.status == Status::Fail);
    Ok(if failed { Exit::ToolError } else { Exit::Ok })
}

/// `1 tool`, `2 tools`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `--only` named tools the server does not list.
fn unknown_only_failure(unknown: &[&str], tools: &[crate::mcp::Tool]) -> Failure {
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let shown: Vec<String> = unknown
        .iter()
        .map(|n| {
            let close = crate::text::did_you_mean(&names, n)
                .map(|h| format!(" ({})", h.trim_start_matches("; ")))
                .unwrap_or_default();
            format!("{:?}{close}", sanitize::one_line(n))
        })
        .collect();
    let listed = if names.is_empty() {
        "it lists no tools".to_string()
    } else {
        format!("it lists: {}", sanitize::one_line(&names.join(", ")))
    };
    Failure::new(
        Exit::Usage,
        format!(
            "--only names {} that the server does not list: {}; {listed}",
            if unknown.len() == 1 {
                "a tool"
            } else {
                "tools"
            },
            shown.join(", ")
        ),
    )
}

async fn read_check(link: &mut Link, r: &Value) -> Check {
    let Some(uri) = r.get("uri").and_then(Value::as_str) else {
        return Check::new(
            "resource",
            "(no uri)",
            Status::Fail,
            format!(
                "a listed resource has no `uri`: {}",
                sanitize::one_line(&r.to_string())
            ),
        );
    };
    let name = sanitize::one_line(uri);
    let started = Instant::now();
    match link.request("resources/read", json!({"uri": uri})).await {
        Ok(v) => {
            let took = started.elapsed();
            match v.get("contents").and_then(Value::as_array) {
                Some(c) if c.is_empty() => Check::new(
                    "resource",
                    name,
                    Status::Warn,
                    "read, but `contents` is empty",
                )
                .took(took),
                Some(c) => {
                    let bad = c
                        .iter()
                        .filter(|x| x.get("text").is_none() && x.get("blob").is_none())
                        .count();
                    if bad > 0 {
                        Check::new(
                            "resource",
                            name,
                            Status::Fail,
                            format!(
                                "{bad} of {} contents have neither `text` nor `blob`",
                                c.len()
                            ),
                        )
                        .took(took)
                    } else {
                        Check::new(
                            "resource",
                            name,
                            Status::Pass,
                            format!("{} content item(s)", c.len()),
                        )
                        .took(took)
                    }
                }
                None => Check::new(
                    "resource",
                    name,
                    Status::Fail,
                    "the resources/read result has no `contents` array",
                )
                .took(took),
            }
        }
        Err(e) => Check::new(
            "resource",
            name,
            Status::Fail,
            sanitize::one_line(&e.to_string()),
        )
        .took(started.elapsed()),
    }
}

async fn prompt_check(link: &mut Link, p: &Value) -> Check {
    let Some(pname) = p.get("name").and_then(Value::as_str) else {
        return Check::new(
            "prompt",
            "(no name)",
            Status::Fail,
            "a listed prompt has no `name`",
        );
    };
    let name = sanitize::one_line(pname);
    let required: Vec<&str> = p
        .get("arguments")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter(|x| x.get("required").and_then(Value::as_bool).unwrap_or(false))
                .filter_map(|x| x.get("name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    if !required.is_empty() {
        return Check::new(
            "prompt",
            name,
            Status::Skip,
            format!(
                "has required arguments ({})",
                sanitize::one_line(&required.join(", "))
            ),
        );
    }
    let started = Instant::now();
    match link
        .request("prompts/get", json!({"name": pname, "arguments": {}}))
        .await
    {
        Ok(v) => match v.get("messages").and_then(Value::as_array) {
            Some(m) => Check::new(
                "prompt",
                name,
                Status::Pass,
                format!("{} message(s)", m.len()),
            )
            .took(started.elapsed()),
            None => Check::new(
                "prompt",
                name,
                Status::Fail,
                "the prompts/get result has no `messages` array",
            )
            .took(started.elapsed()),
        },
        Err(e) => Check::new(
            "prompt",
            name,
            Status::Fail,
            sanitize::one_line(&e.to_string()),
        )
        .took(started.elapsed()),
    }
}
