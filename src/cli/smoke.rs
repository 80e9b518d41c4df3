//! `mcpdeck smoke TARGET`: the non-interactive smoke test a server's author
//! runs by hand or in CI. Connect and detect the era; list tools, resources
//! and prompts; call every tool not annotated destructive with arguments
//! made from its schema; read every static resource; get every prompt
//! without required arguments; answer server requests with safe automatic
//! policies; report every finding. Exit 0 only if nothing failed.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{CHILDREN, Exit, Failure, Outcome, TargetArgs, frame_log, target_config};
use crate::config::Config;
use crate::mcp::framelog::Direction;
use crate::mcp::manager::session_spec;
use crate::mcp::session::{ClientPolicy, EventSink, Lists, RequestError, Session};
use crate::mcp::{Finding, Severity, Tool};
use crate::sanitize;
use crate::text::fmt_duration;

/// How one check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Pass,
    Warn,
    Fail,
    Skip,
    Info,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::Skip => "skip",
            Status::Info => "info",
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone)]
pub struct Check {
    pub kind: &'static str,
    pub name: String,
    pub status: Status,
    pub message: String,
    pub elapsed: Option<Duration>,
}

impl Check {
    fn new(
        kind: &'static str,
        name: impl Into<String>,
        status: Status,
        message: impl Into<String>,
    ) -> Self {
        Check {
            kind,
            name: name.into(),
            status,
            message: message.into(),
            elapsed: None,
        }
    }

    fn took(mut self, d: Duration) -> Self {
        self.elapsed = Some(d);
        self
    }

    fn to_json(&self) -> Value {
        let mut v = json!({
            "kind": self.kind,
            "name": self.name,
            "status": self.status.label(),
            "message": self.message,
        });
        if let Some(d) = self.elapsed {
            v["ms"] = json!(d.as_secs_f64() * 1000.0);
        }
        v
    }
}

/// The options of `mcpdeck smoke`.
#[derive(Debug, Clone)]
pub struct SmokeArgs {
    pub json: bool,
    /// Also call tools annotated destructive.
    pub destructive: bool,
    /// Per-request timeout (else the config's).
    pub timeout: Option<Duration>,
}

pub async fn smoke(config: &Config, target: &TargetArgs, args: &SmokeArgs, trace: bool) -> Outcome {
    let server = target_config(config, target)?;
    super::warn_insecure(std::slice::from_ref(&server));
    let shown_target = match &server.transport {
        crate::config::TransportConfig::Http { url, .. } => crate::mcp::netlog::shown_url(url),
        crate::config::TransportConfig::Stdio { command, args, .. } => sanitize::one_line(
            &std::iter::once(command.clone())
                .chain(args.iter().cloned())
                .collect::<Vec<_>>()
                .join(" "),
        ),
    };
    let mut settings = config.settings.clone();
    if let Some(t) = args.timeout {
        settings.request_timeout = t;
    }
    let mut spec = session_spec(&server, &settings, Some(CHILDREN.clone()))
        .map_err(|e| Failure::new(Exit::Usage, e.message))?;
    if let Some(t) = args.timeout {
        spec.request_timeout = t;
    }
    spec.client = ClientPolicy::automatic();
    let frames = frame_log(&settings, trace);
    let sink: EventSink = Arc::new(|_| {});
    let mut checks: Vec<Check> = Vec::new();
    let started = Instant::now();

    let session = match Session::connect(&spec, frames.clone(), sink).await {
        Ok(s) => s,
        Err(e) => {
            let mut message = sanitize::one_line(&e.message);
            if !e.stderr_tail.is_empty() {
                message.push_str(&format!(
                    "; server stderr: {}",
                    sanitize::one_line(&e.stderr_tail.join(" | "))
                ));
            }
            let status_code = if e.needs_auth {
                Exit::Auth
            } else {
                Exit::Connect
            };
            checks.push(
                Check::new("connect", &shown_target, Status::Fail, message).took(started.elapsed()),
            );
            print_report(args.json, &shown_target, None, &checks);
            return Ok(status_code);
        }
    };
    let negotiated = session.negotiated();
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
                    session.transport_kind(),
                    sanitize::one_line(&n.detection)
                ),
            )
            .took(n.connect_time),
        );
    }

    let listed = Instant::now();
    let lists = match session.list_everything().await {
        Ok(l) => {
            checks.push(
                Check::new(
                    "list",
                    "tools, resources, prompts",
                    Status::Pass,
                    format!(
                        "{} tools, {} resources, {} resource templates, {} prompts",
                        l.tools.len(),
                        l.resources.len(),
                        l.templates.len(),
                        l.prompts.len()
                    ),
                )
                .took(listed.elapsed()),
            );
            l
        }
        Err(e) => {
            checks.push(Check::new(
                "list",
                "tools, resources, prompts",
                Status::Fail,
                sanitize::one_line(&e.to_string()),
            ));
            Lists::default()
        }
    };

    for tool in &lists.tools {
        checks.push(call_check(&session, tool, &server, args).await);
    }
    for r in &lists.resources {
        checks.push(read_check(&session, r).await);
    }
    for p in &lists.prompts {
        checks.push(prompt_check(&session, p).await);
    }

    // The server's own requests, and how they were answered.
    for f in frames.snapshot() {
        if f.dir == Direction::In
            && f.id.is_some()
            && let Some(m) = f.method.as_deref()
            && matches!(
                m,
                "roots/list" | "elicitation/create" | "sampling/createMessage" | "ping"
            )
            && f.latency.is_none()
        {
            let how = match m {
                "roots/list" => "answered with the current directory",
                "elicitation/create" => "accepted with the schema's defaults (URL mode declined)",
                "sampling/createMessage" => "declined (smoke offers no sampling)",
                _ => "answered",
            };
            checks.push(Check::new("server request", m, Status::Info, how));
        }
    }
    for f in session.findings() {
        checks.push(finding_check(&f));
    }
    session.close().await;
    print_report(
        args.json,
        &shown_target,
        negotiated.as_ref().map(|n| (n, session.transport_kind())),
        &checks,
    );
    let failed = checks.iter().any(|c| c.status == Status::Fail);
    Ok(if failed { Exit::ToolError } else { Exit::Ok })
}

fn finding_check(f: &Finding) -> Check {
    let status = match f.severity {
        Severity::Error => Status::Fail,
        Severity::Warning => Status::Warn,
        Severity::Info => Status::Info,
    };
    let mut message = sanitize::one_line(&f.message);
    if let Some(raw) = &f.raw {
        let cut: String = raw.chars().take(200).collect();
        message.push_str(&format!(" — frame: {}", sanitize::one_line(&cut)));
    }
    Check::new("finding", f.severity.label(), status, message)
}

fn text_excerpt(result: &Value) -> String {
    let text = result
        .get("content")
        .and_then(Value::as_array)
        .and_then(|c| c.iter().find_map(|b| b.get("text").and_then(Value::as_str)))
        .unwrap_or("");
    let squeezed: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = squeezed.chars().take(160).collect();
    sanitize::one_line(&cut)
}

async fn call_check(
    session: &Session,
    tool: &Tool,
    server: &crate::config::ServerConfig,
    args: &SmokeArgs,
) -> Check {
    let name = sanitize::one_line(&tool.name);
    if server.is_tool_denied(&tool.name) {
        return Check::new(
            "tool",
            name,
            Status::Skip,
            "denied in the config (deny_tools)",
        );
    }
    if tool.destructive() && !args.destructive {
        return Check::new(
            "tool",
            name,
            Status::Skip,
            "annotated destructive (--destructive calls it)",
        );
    }
    let task = tool
        .raw
        .get("execution")
        .and_then(|e| e.get("taskSupport"))
        .and_then(Value::as_str);
    let as_task = task == Some("required");
    let schema = tool
        .input_schema
        .clone()
        .unwrap_or_else(|| json!({"type": "object"}));
    let mut arguments = crate::schema::skeleton(&schema);
    if !arguments.is_object() {
        arguments = json!({});
    }
    let mut notes = Vec::new();
    if let Ok(v) = crate::schema::check(&schema, &arguments)
        && let Some(first) = v.first()
    {
        notes.push(format!(
            "the generated arguments do not satisfy the schema ({first})"
        ));
    }
    let started = Instant::now();
    let result = if as_task {
        // Run as a task: created, polled, its result fetched. Never cancelled
        // here (the request timeouts still apply to each step).
        let (_keep, never) = tokio::sync::oneshot::channel();
        session
            .call_task(&tool.name, arguments.clone(), never, |_| {})
            .await
    } else {
        session.call_tool(&tool.name, arguments.clone()).await
    };
    let took = started.elapsed();
    let shown_args = sanitize::one_line(&arguments.to_string());
    let check = match result {
        Ok(r) => {
            let mut problems = Vec::new();
            if let Some(out) = &tool.output_schema
                && !r.is_error
            {
                match r.structured() {
                    None => problems.push(
                        "the tool has an outputSchema but the result has no structuredContent"
                            .to_string(),
                    ),
                    Some(sc) => match crate::schema::check(out, sc) {
                        Ok(v) if v.is_empty() => {}
                        Ok(v) => problems.push(format!(
                            "structuredContent breaks the outputSchema: {}",
                            v.iter()
                                .take(3)
                                .map(ToString::to_string)
                                .collect::<Vec<_>>()
                                .join("; ")
                        )),
                        Err(e) => problems.push(format!("outputSchema: {e}")),
                    },
                }
            }
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
                // Our generated arguments may be what the server objects to.
                RequestError::Rpc { error, .. }
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
    };
    let mut check = check.took(took);
    if !notes.is_empty() {
        check.message.push_str(&format!("; {}", notes.join("; ")));
    }
    check
}

async fn read_check(session: &Session, r: &Value) -> Check {
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
    match session
        .request("resources/read", Some(json!({"uri": uri})))
        .await
    {
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

async fn prompt_check(session: &Session, p: &Value) -> Check {
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
    match session
        .request("prompts/get", Some(json!({"name": pname, "arguments": {}})))
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

fn counts(checks: &[Check]) -> (usize, usize, usize, usize) {
    let n = |s| checks.iter().filter(|c| c.status == s).count();
    (
        n(Status::Pass),
        n(Status::Warn),
        n(Status::Fail),
        n(Status::Skip),
    )
}

fn print_report(
    json_out: bool,
    target: &str,
    negotiated: Option<(&crate::mcp::Negotiated, &str)>,
    checks: &[Check],
) {
    let (pass, warn, fail, skip) = counts(checks);
    let mut out = std::io::stdout().lock();
    if json_out {
        let server = negotiated.map(|(n, transport)| {
            json!({
                "name": n.server_info.name,
                "version": n.server_info.version,
                "era": n.era.label(),
                "protocolVersion": n.version,
                "transport": transport,
                "detection": n.detection,
            })
        });
        let v = json!({
            "target": target,
            "ok": fail == 0,
            "server": server,
            "summary": {"passed": pass, "warnings": warn, "failed": fail, "skipped": skip},
            "checks": checks.iter().map(Check::to_json).collect::<Vec<_>>(),
        });
        let _ = writeln!(out, "{}", super::output::json_pretty(&v));
        return;
    }
    let _ = writeln!(out, "smoke test of {target}");
    if let Some((n, _)) = negotiated {
        let _ = writeln!(
            out,
            "server: {} {}",
            sanitize::one_line(&n.server_info.name),
            sanitize::one_line(&n.server_info.version)
        );
    }
    for c in checks {
        let tag = match c.status {
            Status::Pass => "PASS",
            Status::Warn => "WARN",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
            Status::Info => "INFO",
        };
        let took = c
            .elapsed
            .map(|d| format!(" ({})", fmt_duration(d)))
            .unwrap_or_default();
        let _ = writeln!(out, "{tag} {} {}{took}: {}", c.kind, c.name, c.message);
    }
    let verdict = if fail == 0 { "ok" } else { "FAILED" };
    let _ = writeln!(
        out,
        "{verdict}: {pass} passed, {warn} warnings, {fail} failed, {skip} skipped"
    );
}
