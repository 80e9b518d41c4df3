//! `mcpdeck test FILE|DIR…`: run test suites (`*.mcpdeck.toml`, see
//! [`crate::suite`] and docs/testing.md) against their servers. Each step
//! is a call, a read or a prompt get; what came back is checked against
//! its `expect`, snapshots are compared (or written with `--update`), and
//! captures feed later steps.
//!
//! Suites run side by side (`--jobs`), each step of a suite in order, each
//! server of a suite started once, at its first step, and stopped when the
//! suite ends. Exit 0 when every step passed, 1 when an assertion failed,
//! 2 for a bad test file or command line, 3 when a server could not be
//! reached (4 when it needs a login).

mod junit;
mod report;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::exit::{Exit, Failure, Outcome};
use super::link::{Link, Options};
use super::target::{Limit, TargetArgs, target_config};
use crate::config::{Config, TransportConfig};
use crate::mcp::manager::{Answers, CallError};
use crate::mcp::session::{ListSet, RequestError};
use crate::sanitize;
use crate::suite::expect::{self, Response};
use crate::suite::template::{self, Captures};
use crate::suite::{Kind, Step, Suite, Target, snapshot};

/// The options of `mcpdeck test`.
#[derive(clap::Args, Debug, Clone)]
pub struct TestArgs {
    /// Suite files, or folders searched (with their subfolders) for
    /// `*.mcpdeck.toml` [default: the current folder]
    #[arg(value_name = "FILE|DIR")]
    pub paths: Vec<PathBuf>,
    /// Print {"suites": [{"file", "name", "steps": [{"name", "kind", "server", "status", "ms", "failures": [{"assertion", "expected", "actual", "message"}]}]}], "passed", "failed"}
    #[arg(long)]
    pub json: bool,
    /// Also write a JUnit XML report to FILE (for GitHub Actions, GitLab and other CI)
    #[arg(long, value_name = "OUT.xml")]
    pub junit: Option<PathBuf>,
    /// Write the snapshots (`expect.snapshot = true`) that are missing or differ, instead of failing
    #[arg(long)]
    pub update: bool,
    /// Run only the steps (or suites) whose name contains NAME, with the earlier steps whose captures they use
    #[arg(long, value_name = "NAME")]
    pub filter: Option<String>,
    /// How many suites run at once (the steps of a suite always run in order)
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Stop at the first step that fails; the steps not run are reported as skipped
    #[arg(long)]
    pub fail_fast: bool,
    #[command(flatten)]
    pub limit: Limit,
}

/// How a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Passed,
    /// An assertion failed.
    Failed,
    /// The step could not run: its server could not be reached, a
    /// `{{…}}` could not be filled, the request failed.
    Error,
    /// Not run (`--fail-fast`).
    Skipped,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Error => "error",
            Status::Skipped => "skipped",
        }
    }
}

/// What became of one step.
#[derive(Debug, Clone)]
pub struct StepReport {
    pub number: usize,
    pub line: usize,
    pub label: String,
    pub kind: Kind,
    pub server: String,
    pub status: Status,
    /// How long its request took.
    pub took: Duration,
    /// The assertions that failed, in order (the first is shown).
    pub failures: Vec<expect::Failure>,
    /// Why the step could not run, for [`Status::Error`] and
    /// [`Status::Skipped`].
    pub error: Option<String>,
    /// The exit code an error calls for.
    pub exit: Option<Exit>,
    /// What else happened: a snapshot written, a capture taken.
    pub notes: Vec<String>,
}

/// What became of one suite.
#[derive(Debug, Clone)]
pub struct SuiteReport {
    pub file: PathBuf,
    pub name: String,
    pub steps: Vec<StepReport>,
    pub took: Duration,
}

impl SuiteReport {
    pub fn count(&self, status: Status) -> usize {
        self.steps.iter().filter(|s| s.status == status).count()
    }
}

/// The suite files named by `paths`: files as given, folders searched.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let default = [PathBuf::from(".")];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p)
            .map_err(|e| Failure::new(Exit::Usage, format!("{}: {e}", p.display())))?;
        if meta.is_dir() {
            let found = crate::suite::find(p, usize::MAX);
            if found.is_empty() {
                return Err(Failure::new(
                    Exit::Usage,
                    format!(
                        "no test files (*{}) under {}; docs/testing.md shows how to write one",
                        crate::suite::SUFFIX,
                        p.display()
                    ),
                ));
            }
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    out.dedup();
    Ok(out)
}

/// Which steps of `suite` `filter` keeps: those whose label (or the
/// suite's name) contains it, and the earlier steps whose captures they
/// use. `None` when none is kept.
fn selected(suite: &Suite, filter: Option<&str>) -> Option<Vec<bool>> {
    let Some(f) = filter else {
        return Some(vec![true; suite.steps.len()]);
    };
    let f = f.to_lowercase();
    if suite.name.to_lowercase().contains(&f) {
        return Some(vec![true; suite.steps.len()]);
    }
    let mut keep: Vec<bool> = suite
        .steps
        .iter()
        .map(|s| s.label().to_lowercase().contains(&f))
        .collect();
    if !keep.iter().any(|k| *k) {
        return None;
    }
    // The steps that capture what a kept step uses, back to the start.
    for i in (0..suite.steps.len()).rev() {
        if !keep[i] {
            continue;
        }
        let mut names = Vec::new();
        template::names_in(&suite.steps[i].args, &mut names);
        template::names_in(&Value::String(suite.steps[i].subject.clone()), &mut names);
        for name in names {
            if let Some(j) = (0..i)
                .rev()
                .find(|&j| suite.steps[j].capture.iter().any(|(n, _)| *n == name))
            {
                keep[j] = true;
            }
        }
    }
    Some(keep)
}

pub async fn test(config: &Config, args: &TestArgs, trace: bool) -> Outcome {
    let timeout = args.limit.duration()?;
    if args.jobs == 0 {
        return Err(Failure::new(Exit::Usage, "--jobs 0: give at least 1"));
    }
    let files = discover(&args.paths)?;
    // Every file is read before anything runs: a mistake in one is found
    // now, not after the others' servers have run.
    let mut suites = Vec::new();
    let mut bad = Vec::new();
    for f in &files {
        match crate::suite::load(f) {
            Ok(s) => suites.push(s),
            Err(e) => bad.push(e.to_string()),
        }
    }
    if !bad.is_empty() {
        let n = bad.len();
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "{}\n{n} test file{} could not be read; nothing was run",
                bad.join("\n\n"),
                if n == 1 { "" } else { "s" }
            ),
        )
        .kind(super::exit::Kind::Config));
    }
    let mut plans = Vec::new();
    for s in suites {
        if let Some(keep) = selected(&s, args.filter.as_deref()) {
            plans.push((s, keep));
        }
    }
    if plans.is_empty() {
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "no suite or step matches --filter {:?}",
                args.filter.as_deref().unwrap_or_default()
            ),
        ));
    }
    // A test runs without a person, as smoke does: a login starts by
    // itself where the config allows that (client credentials, or a
    // browser command it names).
    crate::mcp::auth::allow_unattended_login(true);
    let started = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let printer = report::Printer::new(args.json, args.jobs == 1);
    let run = RunOptions {
        trace,
        timeout,
        update: args.update,
        fail_fast: args.fail_fast,
    };
    use futures_util::StreamExt;
    let mut reports: Vec<(usize, SuiteReport)> =
        futures_util::stream::iter(plans.iter().enumerate().map(|(i, (suite, keep))| {
            let stop = stop.clone();
            let printer = &printer;
            async move {
                let r = run_suite(config, suite, keep, run, &stop, printer).await;
                printer.suite_done(&r);
                (i, r)
            }
        }))
        .buffer_unordered(args.jobs)
        .collect()
        .await;
    reports.sort_by_key(|(i, _)| *i);
    let reports: Vec<SuiteReport> = reports.into_iter().map(|(_, r)| r).collect();
    let elapsed = started.elapsed();
    printer.summary(&reports, elapsed);
    if let Some(out) = &args.junit {
        junit::write(out, &reports).map_err(|e| {
            Failure::new(
                Exit::Usage,
                format!("--junit {}: could not write it: {e}", out.display()),
            )
        })?;
    }
    let steps = || reports.iter().flat_map(|r| &r.steps);
    // A login needed, then a server not reached, then a usage error:
    // whatever the order of the files.
    for code in [Exit::Auth, Exit::Connect, Exit::Usage] {
        if steps().any(|s| s.exit == Some(code)) {
            return Ok(code);
        }
    }
    if let Some(code) = steps().find_map(|s| s.exit) {
        return Ok(code);
    }
    if steps().any(|s| s.status == Status::Failed) {
        return Ok(Exit::ToolError);
    }
    Ok(Exit::Ok)
}

#[derive(Debug, Clone, Copy)]
struct RunOptions {
    trace: bool,
    timeout: Option<Duration>,
    update: bool,
    fail_fast: bool,
}

/// A server of a suite: connected, or why not.
enum Conn {
    Up(Box<Link>),
    Down { message: String, exit: Exit },
}

async fn connect(config: &Config, suite: &Suite, target: &Target, run: RunOptions) -> Conn {
    let resolved = match target {
        Target::Named(name) => target_config(
            config,
            &TargetArgs {
                target: Some(name.clone()),
                command: Vec::new(),
            },
        ),
        Target::Command(words) => target_config(
            config,
            &TargetArgs {
                target: None,
                command: words.clone(),
            },
        )
        .map(|mut s| {
            // A command runs in the suite's folder: `node server.js`
            // finds the file beside the suite, wherever the run starts.
            if let TransportConfig::Stdio { cwd, .. } = &mut s.transport
                && cwd.is_none()
            {
                *cwd = Some(suite.dir().to_path_buf());
            }
            s.name = "test".into();
            s
        }),
    };
    let server = match resolved {
        Ok(s) => s,
        Err(f) => {
            return Conn::Down {
                message: f.message,
                exit: f.code,
            };
        }
    };
    let timeout = run.timeout.or(suite.timeout);
    let options = Options {
        trace: run.trace,
        answers: Answers::Automatically,
        keep_findings: false,
        timeout,
        connect_timeout: run.timeout,
        lists: ListSet::TOOLS,
    };
    match Link::connect_server(config, server, options).await {
        Ok(link) => Conn::Up(Box::new(link)),
        Err((_, e)) => {
            let mut message = format!("could not connect: {}", sanitize::one_line(&e.to_string()));
            if !e.stderr_tail().is_empty() {
                message.push_str(&format!(
                    "; server stderr: {}",
                    sanitize::one_line(&e.stderr_tail().join(" | "))
                ));
            }
            Conn::Down {
                message,
                exit: Exit::for_kind(e.kind()),
            }
        }
    }
}

async fn run_suite(
    config: &Config,
    suite: &Suite,
    keep: &[bool],
    run: RunOptions,
    stop: &AtomicBool,
    printer: &report::Printer,
) -> SuiteReport {
    let started = Instant::now();
    printer.suite_start(suite, keep.iter().filter(|k| **k).count());
    let mut conns: HashMap<Target, Conn> = HashMap::new();
    let mut captures = Captures::new();
    let mut steps = Vec::new();
    for (step, _) in suite.steps.iter().zip(keep).filter(|(_, k)| **k) {
        let report = if stop.load(Ordering::Relaxed) {
            skipped(step, "not run: an earlier step failed (--fail-fast)")
        } else {
            if !conns.contains_key(&step.target) {
                let c = connect(config, suite, &step.target, run).await;
                conns.insert(step.target.clone(), c);
            }
            let conn = conns.get_mut(&step.target);
            run_step(suite, step, conn, &mut captures, run).await
        };
        if run.fail_fast && matches!(report.status, Status::Failed | Status::Error) {
            stop.store(true, Ordering::Relaxed);
        }
        printer.step(suite, &report);
        steps.push(report);
    }
    for (_, c) in conns {
        if let Conn::Up(link) = c {
            link.shutdown().await;
        }
    }
    SuiteReport {
        file: suite.path.clone(),
        name: suite.name.clone(),
        steps,
        took: started.elapsed(),
    }
}

fn base(step: &Step, status: Status) -> StepReport {
    StepReport {
        number: step.number,
        line: step.line,
        label: step.label(),
        kind: step.kind,
        server: step.target.label(),
        status,
        took: Duration::ZERO,
        failures: Vec::new(),
        error: None,
        exit: None,
        notes: Vec::new(),
    }
}

fn skipped(step: &Step, why: &str) -> StepReport {
    StepReport {
        error: Some(why.into()),
        ..base(step, Status::Skipped)
    }
}

fn errored(step: &Step, message: String, exit: Exit, took: Duration) -> StepReport {
    StepReport {
        error: Some(message),
        exit: Some(exit),
        took,
        ..base(step, Status::Error)
    }
}

/// An RPC error as the assertions see it: `{code, message, data}`.
fn rpc_json(e: &crate::mcp::jsonrpc::RpcError) -> Value {
    let mut v = json!({ "code": e.code, "message": e.message });
    if let Some(d) = &e.data {
        v["data"] = d.clone();
    }
    v
}

/// The response of a request, or the step's error.
fn response_of(result: Result<Value, CallError>) -> Result<Response, (String, Exit)> {
    match result {
        Ok(v) => Ok(Response::Result(v)),
        Err(CallError::Request(RequestError::Rpc { error, .. })) => {
            Ok(Response::Error(rpc_json(&error)))
        }
        Err(e) => Err((sanitize::one_line(&e.to_string()), Exit::for_kind(e.kind()))),
    }
}

async fn run_step(
    suite: &Suite,
    step: &Step,
    conn: Option<&mut Conn>,
    captures: &mut Captures,
    run: RunOptions,
) -> StepReport {
    let env = template::process_env;
    let filled = template::fill(&step.args, captures, &env)
        .and_then(|args| Ok((args, template::fill_str(&step.subject, captures, &env)?)));
    let (args, subject) = match filled {
        Ok((a, Value::String(s))) => (a, s),
        Ok((a, other)) => (a, other.to_string()),
        Err(e) => return errored(step, e.to_string(), Exit::Usage, Duration::ZERO),
    };
    let link = match conn {
        Some(Conn::Up(link)) => link,
        Some(Conn::Down { message, exit }) => {
            return errored(step, message.clone(), *exit, Duration::ZERO);
        }
        None => return errored(step, "no connection".into(), Exit::Connect, Duration::ZERO),
    };
    let started = Instant::now();
    let mut output_schema = None;
    let result = match step.kind {
        Kind::Call => {
            output_schema = link
                .server
                .lists
                .tools
                .iter()
                .find(|t| t.name == subject)
                .and_then(|t| t.output_schema.clone());
            let (r, _) = link.call(&subject, args).await;
            r.map(|c| c.raw)
        }
        Kind::Read => {
            link.request("resources/read", json!({ "uri": subject }))
                .await
        }
        Kind::Prompt => {
            // Prompt arguments are strings (the protocol says so): other
            // values are sent as their JSON text.
            let arguments: serde_json::Map<String, Value> = args
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| {
                            let s = match v {
                                Value::String(s) => s.clone(),
                                other => other.to_string(),
                            };
                            (k.clone(), Value::String(s))
                        })
                        .collect()
                })
                .unwrap_or_default();
            link.request(
                "prompts/get",
                json!({ "name": subject, "arguments": arguments }),
            )
            .await
        }
    };
    let took = started.elapsed();
    let response = match response_of(result) {
        Ok(r) => r,
        Err((message, exit)) => return errored(step, message, exit, took),
    };
    let mut report = base(step, Status::Passed);
    report.took = took;
    let ms = took.as_millis() as u64;
    let mut failures = expect::check(
        &step.expect,
        step.kind,
        &response,
        ms,
        output_schema.as_ref(),
    );
    if step.kind == Kind::Call
        && matches!(response, Response::Error(_))
        && !link.server.lists.tools.iter().any(|t| t.name == subject)
        && !step.expect.wants_error()
    {
        let names: Vec<&str> = link
            .server
            .lists
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        if let Some(f) = failures.first_mut() {
            f.message.push_str(&format!(
                "; the server lists no tool named {subject:?}{}",
                crate::text::did_you_mean(&names, &subject).unwrap_or_default()
            ));
        }
    }
    let root = response.root();
    if step.expect.snapshot {
        let ignore: Vec<&crate::suite::jsonpath::Path> =
            suite.ignore.iter().chain(&step.expect.ignore).collect();
        let actual = snapshot::normalize(&root, &ignore);
        let file = snapshot::file(suite, step);
        let shown = file.display().to_string();
        let compared = snapshot::compare(&file, &actual);
        let write = |what: &str, report: &mut StepReport, failures: &mut Vec<expect::Failure>| {
            match snapshot::write(&file, &actual) {
                Ok(()) => report.notes.push(format!("snapshot {what}: {shown}")),
                Err(e) => failures.push(expect::Failure::new(
                    "snapshot",
                    Value::Null,
                    actual.clone(),
                    format!("could not write {shown}: {e}"),
                )),
            }
        };
        match compared {
            snapshot::Compared::Same => {}
            snapshot::Compared::Missing if run.update => {
                write("written", &mut report, &mut failures)
            }
            snapshot::Compared::Missing => failures.push(expect::Failure::new(
                "snapshot",
                Value::Null,
                actual.clone(),
                format!("no snapshot yet ({shown}): run with --update to write it"),
            )),
            snapshot::Compared::Differs(_) | snapshot::Compared::Unreadable(_) if run.update => {
                write("updated", &mut report, &mut failures)
            }
            snapshot::Compared::Differs(stored) => failures.push(expect::Failure::new(
                "snapshot",
                serde_json::from_str(&stored).unwrap_or(Value::String(stored)),
                actual.clone(),
                format!(
                    "the result differs from the snapshot {shown} (--update takes the new one)"
                ),
            )),
            snapshot::Compared::Unreadable(why) => failures.push(expect::Failure::new(
                "snapshot",
                Value::Null,
                actual.clone(),
                why,
            )),
        }
    }
    for (name, path) in &step.capture {
        // A path that selects nothing captures nothing (not an empty list).
        let value = if path.select(&root).is_empty() {
            None
        } else {
            path.value(&root)
        };
        match value {
            Some(v) => {
                report
                    .notes
                    .push(format!("captured {name} = {}", report::short_json(&v)));
                captures.insert(name.clone(), v);
            }
            None => failures.push(expect::Failure::new(
                format!("capture {name}"),
                Value::String(path.as_str().into()),
                Value::Null,
                format!("capture {name}: {} matched nothing", path.as_str()),
            )),
        }
    }
    if !failures.is_empty() {
        report.status = Status::Failed;
    }
    report.failures = failures;
    report
}
