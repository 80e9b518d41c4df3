//! The headless CLI: `servers`, `info`, `tools`, `call`, on the same core
//! (the manager) as the TUI. Text output for people, `--json` for scripts.

pub mod args;
pub mod output;
pub mod resources;
pub mod smoke;

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::config::{self, Config, ServerConfig, Settings};
use crate::mcp::error::ErrorKind;
use crate::mcp::framelog::FrameLog;
use crate::mcp::manager::{CallError, Command, Event, Manager, ServerSnapshot, ServerStatus};
use crate::mcp::session::RequestError;
use crate::mcp::transport::stdio::Children;
use crate::sanitize;
use crate::text::fmt_duration;

/// Exit codes (documented in the README).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    /// The tool returned `isError`, or the server answered with a JSON-RPC error.
    ToolError = 1,
    /// Usage or configuration error.
    Usage = 2,
    /// Could not connect, or the protocol failed.
    Connect = 3,
    /// Authorization needed or failed.
    Auth = 4,
}

const AFTER_HELP: &str = "\
TARGET is a configured server name, an http(s):// URL, or `-- CMD ARGS…` (last) for an ad-hoc stdio server.

Exit codes: 0 ok · 1 the tool returned isError or a JSON-RPC error · 2 usage or config error · 3 could not connect, or protocol failure · 4 authorization needed or failed";

#[derive(Parser, Debug)]
#[command(name = "mcpdeck", version, about = "A terminal deck for working with MCP servers by hand", after_help = AFTER_HELP)]
pub struct Cli {
    /// The config file [default: $MCPDECK_CONFIG, else the user config dir's mcpdeck/config.toml]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print every raw frame, with time and direction, to stderr
    #[arg(long, global = true)]
    pub trace: bool,
    /// Use the built-in demo servers instead of the config file
    #[arg(long, global = true)]
    pub demo: bool,
    /// Write mcpdeck's own log to FILE (level from RUST_LOG, default info); never to the screen
    #[arg(long, global = true, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<Cmd>,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Each configured server's status, era, version, counts and connect time
    Servers {
        #[arg(long)]
        json: bool,
    },
    /// The negotiated era and version (and how they were detected), serverInfo, capabilities, instructions
    Info {
        #[command(flatten)]
        target: TargetArgs,
        #[arg(long)]
        json: bool,
    },
    /// All tools of a server (every page)
    Tools {
        #[command(flatten)]
        target: TargetArgs,
        /// Print {"tools": […]} exactly as the server sent them
        #[arg(long)]
        json: bool,
    },
    /// Call a tool: `call TARGET TOOL [ARGS_JSON]`, or `call TOOL [ARGS_JSON] -- CMD ARGS…`
    Call {
        /// TARGET TOOL [ARGS_JSON] (TOOL [ARGS_JSON] with `-- CMD`)
        #[arg(value_name = "WORDS", num_args = 1..=3, required = true)]
        words: Vec<String>,
        /// One argument, KEY=VALUE (typed by the tool's schema); repeatable
        #[arg(long = "arg", value_name = "KEY=VALUE")]
        args: Vec<String>,
        /// Send the arguments even if they do not match the inputSchema
        #[arg(long)]
        no_validate: bool,
        /// Ask the server for log messages at LEVEL and above during the call
        /// (debug, info, notice, warning, error, critical, alert, emergency); they go to stderr
        #[arg(long, value_name = "LEVEL")]
        log_level: Option<String>,
        /// Print the result object as received
        #[arg(long)]
        json: bool,
        /// An ad-hoc stdio server
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Smoke-test a server: connect, list, call the tools annotated read-only (--calls
    /// widens this) with arguments from --args or their schema, read static resources,
    /// get prompts; exit 0 only if nothing failed
    Smoke(smoke::SmokeArgs),
    /// All resources of a server (every page): uri, name, title, mimeType, size, description
    Resources(resources::ListArgs),
    /// The resource templates of a server, with each template's variables
    Templates(resources::ListArgs),
    /// Read a resource: `read TARGET URI`, or `read URI -- CMD ARGS…`; a URI
    /// with `{…}` is an RFC 6570 template, expanded with --var
    Read(resources::ReadArgs),
    /// All prompts of a server, with their arguments (required ones marked *)
    Prompts(resources::ListArgs),
    /// Get a prompt: `prompt TARGET NAME`, or `prompt NAME -- CMD ARGS…`
    Prompt(resources::PromptArgs),
    /// Ask for completions of a prompt argument or a resource template variable
    Complete(resources::CompleteArgs),
    /// Run the built-in demo MCP server on stdio
    DemoServer(crate::demo::DemoArgs),
}

#[derive(Args, Debug, Clone)]
pub struct TargetArgs {
    /// A configured server name or an http(s):// URL
    pub target: Option<String>,
    /// An ad-hoc stdio server: `-- CMD ARGS…`
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

impl Exit {
    /// The exit code for a kind of failure. The one place where the core's
    /// error kinds become exit codes (documented in the README).
    pub fn for_kind(kind: ErrorKind) -> Exit {
        match kind {
            ErrorKind::Usage => Exit::Usage,
            ErrorKind::Rpc => Exit::ToolError,
            ErrorKind::Auth => Exit::Auth,
            ErrorKind::Connect
            | ErrorKind::Timeout
            | ErrorKind::Protocol
            | ErrorKind::Closed
            | ErrorKind::Cancelled
            | ErrorKind::Internal => Exit::Connect,
        }
    }
}

/// A failure with its exit code and message.
#[derive(Debug)]
pub struct Failure {
    pub code: Exit,
    pub message: String,
}

impl Failure {
    pub fn new(code: Exit, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
        }
    }
}

type Outcome = Result<Exit, Failure>;

/// `mcpdeck.log` in the user's state directory (created if needed).
fn default_log_file() -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "mcpdeck")?;
    let dir = dirs
        .state_dir()
        .unwrap_or_else(|| dirs.data_local_dir())
        .to_path_buf();
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir.join("mcpdeck.log"))
}

/// Send tracing output to a file, if one was asked for.
fn init_logging(path: &std::path::Path) -> Result<(), Failure> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| {
            Failure::new(
                Exit::Usage,
                format!("cannot open the log file {}: {e}", path.display()),
            )
        })?;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .map_err(|e| Failure::new(Exit::Usage, format!("cannot start logging: {e}")))
}

/// Run a parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    if let Some(path) = &cli.log_file
        && let Err(f) = init_logging(path)
    {
        eprintln!("mcpdeck: {}", f.message);
        return f.code as i32;
    }
    // The TUI logs to a file by default (never to the screen).
    if cli.log_file.is_none()
        && cli.command.is_none()
        && let Some(path) = default_log_file()
    {
        let _ = init_logging(&path);
    }
    // One thread: the CLI waits on servers, it does not compute. On small
    // machines idle worker threads would compete with the servers for CPU
    // and add a thread hand-off to every message (see benches/core.rs).
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcpdeck: could not start the async runtime: {e}");
            return Exit::Connect as i32;
        }
    };
    let code = runtime.block_on(async move {
        if let Some(Cmd::DemoServer(args)) = cli.command {
            return match crate::demo::run(args).await {
                Ok(()) => Exit::Ok as i32,
                Err(e) => {
                    eprintln!("demo-server: {e:#}");
                    1
                }
            };
        }
        let mut signals = match Signals::new() {
            Ok(s) => s,
            Err(e) => {
                eprintln!("mcpdeck: could not install signal handlers: {e}");
                return Exit::Connect as i32;
            }
        };
        tokio::select! {
            r = dispatch(cli) => match r {
                Ok(code) => code as i32,
                Err(f) => {
                    let mut err = std::io::stderr().lock();
                    let _ = writeln!(err, "mcpdeck: {}", f.message);
                    f.code as i32
                }
            },
            (name, code) = signals.next() => {
                // The command is dropped here; its manager closes every
                // session. Wait for the servers to go, SIGKILL the rest; a
                // second signal kills them at once.
                eprintln!("mcpdeck: {name}: stopping the servers (again to kill them now)");
                tokio::select! {
                    _ = CHILDREN.settle(Duration::from_secs(2)) => {}
                    _ = signals.next() => CHILDREN.kill_now(),
                }
                code
            }
        }
    });
    // Do not wait for blocking tasks (stdin readers) that may never end.
    runtime.shutdown_timeout(Duration::from_millis(100));
    code
}

async fn dispatch(cli: Cli) -> Outcome {
    let config = load_config(&cli)?;
    let trace = cli.trace;
    match cli.command {
        None => {
            use std::io::IsTerminal;
            let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
            // On a terminal the TUI opens, with a welcome when there is
            // nothing configured yet.
            if interactive && (cli.demo || !config.servers.is_empty() || config.path.is_some()) {
                return tui(&config).await;
            }
            if cli.demo {
                demo_tour(&config, trace).await
            } else if config.servers.is_empty() {
                no_servers_yet(&config);
                Ok(Exit::Ok)
            } else {
                servers(&config, false, trace).await
            }
        }
        Some(Cmd::Servers { json }) => servers(&config, json, trace).await,
        Some(Cmd::Info { target, json }) => info(&config, &target, json, trace).await,
        Some(Cmd::Tools { target, json }) => tools(&config, &target, json, trace).await,
        Some(Cmd::Call {
            words,
            args,
            no_validate,
            log_level,
            json,
            command,
        }) => {
            let (target, rest) = if command.is_empty() {
                let mut w = words.into_iter();
                let target = TargetArgs {
                    target: w.next(),
                    command: Vec::new(),
                };
                (target, w.collect::<Vec<_>>())
            } else {
                (
                    TargetArgs {
                        target: None,
                        command,
                    },
                    words,
                )
            };
            let Some(tool) = rest.first() else {
                return Err(Failure::new(
                    Exit::Usage,
                    "call needs a TOOL: `mcpdeck call TARGET TOOL [ARGS_JSON]`",
                ));
            };
            if rest.len() > 2 {
                return Err(Failure::new(
                    Exit::Usage,
                    format!(
                        "unexpected word {:?}: with `-- CMD`, write `mcpdeck call TOOL [ARGS_JSON] -- CMD ARGS…`",
                        rest[2]
                    ),
                ));
            }
            let call = CallArgs {
                tool: tool.clone(),
                json_args: rest.get(1).cloned(),
                pairs: args,
                no_validate,
                json,
                log_level,
            };
            call_tool(&config, &target, &call, trace).await
        }
        Some(Cmd::Smoke(a)) => smoke::smoke(&config, &a, trace).await,
        Some(Cmd::Resources(a)) => resources::resources(&config, &a, trace).await,
        Some(Cmd::Templates(a)) => resources::templates(&config, &a, trace).await,
        Some(Cmd::Read(a)) => resources::read(&config, &a, trace).await,
        Some(Cmd::Prompts(a)) => resources::prompts(&config, &a, trace).await,
        Some(Cmd::Prompt(a)) => resources::prompt(&config, &a, trace).await,
        Some(Cmd::Complete(a)) => resources::complete(&config, &a, trace).await,
        Some(Cmd::DemoServer(_)) => Ok(Exit::Ok),
    }
}

fn load_config(cli: &Cli) -> Result<Config, Failure> {
    if cli.demo {
        return Ok(demo_config());
    }
    let Some(path) = config::resolve_path(cli.config.as_deref()) else {
        return Ok(Config::empty(None));
    };
    let explicit = cli.config.is_some()
        || std::env::var_os(config::CONFIG_ENV_VAR).is_some_and(|v| !v.is_empty());
    let loaded = if explicit {
        config::load(&path)
    } else {
        config::load_or_empty(&path)
    };
    loaded.map_err(|e| {
        let from = if cli.config.is_some() {
            "--config"
        } else {
            config::CONFIG_ENV_VAR
        };
        let hint = if !path.exists() {
            format!(
                " (the file was named by {from}; create it, or point {from} at an existing file)"
            )
        } else {
            String::new()
        };
        Failure::new(Exit::Usage, format!("{e}{hint}"))
    })
}

/// The built-in demo: `mcpdeck demo-server` under a few names, with
/// different eras and capabilities.
pub fn demo_config() -> Config {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "mcpdeck".into());
    let server = |name: &str, extra: &[&str]| {
        let mut args = vec!["demo-server", "--name", name];
        args.extend_from_slice(extra);
        ServerConfig::stdio(name, exe.clone(), &args)
    };
    let mut config = Config::empty(None);
    config.servers = vec![
        server("demo", &[]),
        server("demo-legacy", &["--era", "initialize", "--no-prompts"]),
        server("demo-stateless", &["--era", "stateless", "--no-resources"]),
    ];
    // In a checkout where the test setup ran, the real servers join in.
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let everything =
        repo.join("tests/deps/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if everything.exists() {
        let js = everything.display().to_string();
        config.servers.push(ServerConfig::stdio(
            "everything",
            "node",
            &[js.as_str(), "stdio"],
        ));
    }
    for (name, venv, script) in [
        ("python-sdk-1", ".deps/venv-v1", "py_v1_server.py"),
        ("python-sdk-2", ".deps/venv-v2", "py_v2_server.py"),
    ] {
        let python = repo.join(venv).join("bin/python");
        let script = repo.join("tests/servers").join(script);
        if python.exists() && script.exists() {
            let script = script.display().to_string();
            config.servers.push(ServerConfig::stdio(
                name,
                python.display().to_string(),
                &[script.as_str()],
            ));
        }
    }
    config
}

fn no_servers_yet(config: &Config) {
    let path = config
        .path
        .as_ref()
        .map(|p| p.display().to_string())
        .or_else(|| config::default_path().map(|p| p.display().to_string()))
        .unwrap_or_else(|| "(no config directory on this system; use --config FILE)".into());
    println!("No servers are configured yet.");
    println!();
    println!("Add one to {path}, for example:");
    println!();
    println!("    [servers.everything]");
    println!("    command = \"npx\"");
    println!("    args = [\"-y\", \"@modelcontextprotocol/server-everything\"]");
    println!();
    println!(
        "config.example.toml documents every option. To look around first, run `mcpdeck --demo`."
    );
}

/// The frame log, with a `--trace` tap that prints every frame to stderr.
fn frame_log(settings: &Settings, trace: bool) -> Arc<FrameLog> {
    let log = FrameLog::new(settings.frame_log);
    let log = if trace {
        log.with_tap(Box::new(|frame, raw| {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(
                err,
                "[{:>9.3}] {} {} {}",
                frame.elapsed.as_secs_f64(),
                sanitize::one_line(&frame.server),
                frame.dir.arrow(),
                sanitize::one_line(raw)
            );
        }))
    } else {
        log
    };
    if trace {
        // HTTP exchanges too: method, status, what it carried, timing and
        // the headers (secrets masked by the net log).
        log.net().set_tap(Box::new(|e| {
            let mut err = std::io::stderr().lock();
            let outcome = match (&e.error, e.status) {
                (Some(x), _) => format!("failed: {}", sanitize::one_line(x)),
                (None, Some(s)) => s.to_string(),
                (None, None) => "-".into(),
            };
            let total = e.total.map(crate::text::fmt_duration).unwrap_or_default();
            let _ = writeln!(
                err,
                "[{:>9.3}] {} HTTP {} {} {} -> {outcome} ({total}, {} B)",
                e.elapsed.as_secs_f64(),
                sanitize::one_line(&e.server),
                e.http_method,
                sanitize::one_line(&e.url),
                sanitize::one_line(&e.label),
                e.bytes,
            );
            for (k, v) in &e.request_headers {
                let _ = writeln!(
                    err,
                    "            > {}: {}",
                    sanitize::one_line(k),
                    sanitize::one_line(v)
                );
            }
            for (k, v) in &e.response_headers {
                let _ = writeln!(
                    err,
                    "            < {}: {}",
                    sanitize::one_line(k),
                    sanitize::one_line(v)
                );
            }
        }));
    }
    Arc::new(log)
}

/// Every server process this run starts, so a signal can reap them all.
static CHILDREN: std::sync::LazyLock<Arc<Children>> = std::sync::LazyLock::new(Children::new);

/// Say on stderr when TLS verification is off for a server.
fn warn_insecure(servers: &[ServerConfig]) {
    for s in servers {
        if s.enabled
            && let config::TransportConfig::Http { insecure: true, .. } = &s.transport
        {
            eprintln!(
                "mcpdeck: warning: TLS certificates are not verified for server {:?} (insecure = true)",
                s.name
            );
        }
    }
}

fn start(
    config: &Config,
    servers: Vec<ServerConfig>,
    trace: bool,
) -> (Manager, UnboundedReceiver<Event>) {
    warn_insecure(&servers);
    Manager::start_with_children(
        config.settings.clone(),
        servers,
        frame_log(&config.settings, trace),
        CHILDREN.clone(),
    )
}

/// SIGINT, SIGTERM and SIGHUP, with the exit code each one means.
struct Signals {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    async fn next(&mut self) -> (&'static str, i32) {
        tokio::select! {
            _ = self.int.recv() => ("interrupted", 130),
            _ = self.term.recv() => ("terminated", 143),
            _ = self.hup.recv() => ("hung up", 129),
        }
    }
}

/// Print what deserves the user's attention while we wait.
fn report(ev: &Event) {
    if let Event::TaskStatus { server, status, .. } = ev {
        let message = status
            .message
            .as_deref()
            .map(|m| format!(" · {}", sanitize::one_line(m)))
            .unwrap_or_default();
        eprintln!(
            "mcpdeck: [{}] task {} {}{message}",
            sanitize::one_line(server),
            sanitize::one_line(&status.task_id),
            sanitize::one_line(&status.status)
        );
        return;
    }
    if let Event::Notification {
        server,
        method,
        params: Some(p),
    } = ev
    {
        let mut err = std::io::stderr().lock();
        match method.as_str() {
            "notifications/progress" => {
                let _ = writeln!(
                    err,
                    "mcpdeck: [{}] progress {}",
                    sanitize::one_line(server),
                    crate::mcp::types::progress_text(
                        p.get("progress").and_then(Value::as_f64).unwrap_or(0.0),
                        p.get("total").and_then(Value::as_f64),
                        p.get("message").and_then(Value::as_str),
                    )
                );
            }
            "notifications/message" => {
                let _ = writeln!(
                    err,
                    "mcpdeck: [{}] {}",
                    sanitize::one_line(server),
                    crate::mcp::types::log_line(p)
                );
            }
            _ => {}
        }
        return;
    }
    if let Event::Finding { server, finding } = ev {
        print_finding(server, finding);
    }
}

/// A finding on stderr, with (the start of) its frame.
pub(crate) fn print_finding(server: &str, finding: &crate::mcp::Finding) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "mcpdeck: [{}] {}: {}",
        sanitize::one_line(server),
        finding.severity.label(),
        sanitize::one_line(&finding.message)
    );
    if let Some(raw) = &finding.raw {
        let cut = crate::mcp::finding::truncate(raw, 200);
        let more = if finding.raw_len > cut.len() {
            format!(" …({} bytes)", finding.raw_len)
        } else {
            String::new()
        };
        let _ = writeln!(err, "    frame: {}{more}", sanitize::one_line(cut));
    }
}

/// Wait until every named server has a settled status.
async fn wait_settled(rx: &mut UnboundedReceiver<Event>, names: &[String]) {
    let mut waiting: Vec<&String> = names.iter().collect();
    while !waiting.is_empty() {
        let Some(ev) = rx.recv().await else { return };
        report(&ev);
        if let Event::Status { server, status, .. } = &ev
            && status.settled()
        {
            waiting.retain(|n| *n != server);
        }
    }
}

fn drain(rx: &mut UnboundedReceiver<Event>) {
    while let Ok(ev) = rx.try_recv() {
        report(&ev);
    }
}

/// Resolve TARGET to one server config.
fn target_config(config: &Config, target: &TargetArgs) -> Result<ServerConfig, Failure> {
    if !target.command.is_empty() {
        if target.target.is_some() {
            return Err(Failure::new(
                Exit::Usage,
                "give either TARGET or `-- CMD ARGS…`, not both",
            ));
        }
        let mut server = ServerConfig::stdio("adhoc", target.command[0].clone(), &[]);
        if let config::TransportConfig::Stdio { args, .. } = &mut server.transport {
            *args = target.command[1..].to_vec();
        }
        return Ok(server);
    }
    let Some(name) = target.target.as_deref() else {
        return Err(Failure::new(
            Exit::Usage,
            "give a TARGET: a configured server name, an http(s):// URL, or `-- CMD ARGS…`",
        ));
    };
    if name.starts_with("http://") || name.starts_with("https://") {
        return Ok(ServerConfig::http("remote", name));
    }
    match config.server(name) {
        Some(s) => {
            let mut s = s.clone();
            if !s.enabled {
                eprintln!(
                    "mcpdeck: server {name:?} is disabled in the config; connecting to it anyway"
                );
                s.enabled = true;
            }
            Ok(s)
        }
        None => {
            let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
            let hint = names
                .iter()
                .map(|n| (strsim::jaro_winkler(n, name), n))
                .filter(|(score, _)| *score > 0.8)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, n)| format!("; did you mean {n:?}?"))
                .unwrap_or_else(|| {
                    if names.is_empty() {
                        let at = config
                            .path
                            .as_ref()
                            .map(|p| format!(" in {}", p.display()))
                            .unwrap_or_default();
                        format!("; no servers are configured{at} (try --demo, or `-- CMD ARGS…`)")
                    } else {
                        format!(" (configured: {})", names.join(", "))
                    }
                });
            Err(Failure::new(
                Exit::Usage,
                format!("no server named {name:?} in the configuration{hint}"),
            ))
        }
    }
}

/// Connect one server; on failure, the reason and its stderr tail.
async fn connect_one(
    config: &Config,
    target: &TargetArgs,
    trace: bool,
) -> Result<(Manager, UnboundedReceiver<Event>, ServerSnapshot), Failure> {
    let server = target_config(config, target)?;
    let name = server.name.clone();
    let (manager, mut rx) = start(config, vec![server], trace);
    wait_settled(&mut rx, std::slice::from_ref(&name)).await;
    let snap = manager
        .snapshot()
        .await
        .into_iter()
        .find(|s| s.config.name == name);
    match snap {
        Some(s) if s.status == ServerStatus::Connected => Ok((manager, rx, s)),
        Some(ServerSnapshot {
            status: ServerStatus::NeedsAuth(e) | ServerStatus::Failed(e),
            ..
        }) => {
            manager.shutdown().await;
            drain(&mut rx);
            Err(connect_failure(&name, &e))
        }
        _ => {
            manager.shutdown().await;
            Err(Failure::new(
                Exit::Connect,
                format!("could not connect to {name}"),
            ))
        }
    }
}

/// A server that could not be connected, as the CLI reports it.
fn connect_failure(name: &str, e: &crate::mcp::ConnectError) -> Failure {
    let message = if e.needs_auth() {
        format!(
            "{name} needs authorization: {}",
            sanitize::strip(&e.to_string())
        )
    } else {
        format!(
            "could not connect to {name}: {}{}",
            sanitize::strip(&e.to_string()),
            tail_text(e.stderr_tail())
        )
    };
    Failure::new(Exit::for_kind(e.kind()), message)
}

fn tail_text(tail: &[String]) -> String {
    if tail.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = tail
        .iter()
        .map(|l| format!("    {}", sanitize::strip(l)))
        .collect();
    format!("\nthe server's last stderr lines:\n{}", lines.join("\n"))
}

async fn finish(manager: Manager, mut rx: UnboundedReceiver<Event>) {
    manager.shutdown().await;
    drain(&mut rx);
}

async fn servers(config: &Config, json: bool, trace: bool) -> Outcome {
    let names: Vec<String> = config.servers.iter().map(|s| s.name.clone()).collect();
    let (manager, mut rx) = start(config, config.servers.clone(), trace);
    wait_settled(&mut rx, &names).await;
    let snaps = manager.snapshot().await;
    finish(manager, rx).await;
    let any_failed = snaps
        .iter()
        .any(|s| matches!(s.status, ServerStatus::Failed { .. }));
    let mut out = std::io::stdout().lock();
    if json {
        let list: Vec<Value> = snaps.iter().map(server_json).collect();
        let _ = writeln!(out, "{}", output::json_pretty(&json!({"servers": list})));
    } else if snaps.is_empty() {
        let _ = writeln!(out, "No servers are configured.");
    } else {
        let rows: Vec<[String; 8]> = snaps.iter().map(server_row).collect();
        let header = [
            "NAME", "STATUS", "ERA", "VERSION", "SERVER", "TOOLS", "RES", "PROMPTS",
        ]
        .map(String::from);
        let mut widths = header.clone().map(|h| h.chars().count());
        for r in &rows {
            for (i, c) in r.iter().enumerate() {
                widths[i] = widths[i].max(c.chars().count());
            }
        }
        let line = |r: &[String; 8]| {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
                .collect();
            format!("{}  CONNECT", cells.join("  "))
        };
        let _ = writeln!(out, "{}", line(&header).trim_end());
        for (r, s) in rows.iter().zip(&snaps) {
            let connect = s
                .negotiated
                .as_ref()
                .map(|n| fmt_duration(n.connect_time))
                .unwrap_or_else(|| "-".into());
            let l = line(r);
            let _ = writeln!(
                out,
                "{}",
                l.trim_end_matches("CONNECT").to_string() + &connect
            );
            if let ServerStatus::Failed(e) = &s.status {
                let _ = writeln!(out, "    error: {}", sanitize::strip(&e.to_string()));
                for l in e.stderr_tail().iter().rev().take(3).rev() {
                    let _ = writeln!(out, "    stderr: {}", sanitize::strip(l));
                }
            }
        }
    }
    Ok(if any_failed { Exit::Connect } else { Exit::Ok })
}

fn server_row(s: &ServerSnapshot) -> [String; 8] {
    let n = s.negotiated.as_ref();
    let connected = s.status == ServerStatus::Connected;
    let count = |c: usize| if connected { c.to_string() } else { "-".into() };
    [
        s.config.name.clone(),
        s.status.label().to_string(),
        n.map(|n| n.era.label().to_string())
            .unwrap_or_else(|| "-".into()),
        n.map(|n| n.version.clone()).unwrap_or_else(|| "-".into()),
        n.map(|n| {
            sanitize::one_line(&format!("{} {}", n.server_info.name, n.server_info.version))
                .trim()
                .to_string()
        })
        .unwrap_or_else(|| "-".into()),
        count(s.lists.tools.len()),
        count(s.lists.resources.len()),
        count(s.lists.prompts.len()),
    ]
}

fn server_json(s: &ServerSnapshot) -> Value {
    let n = s.negotiated.as_ref();
    let connected = s.status == ServerStatus::Connected;
    let (error, tail) = match &s.status {
        ServerStatus::Failed(e) => (json!(e.to_string()), json!(e.stderr_tail())),
        _ => (Value::Null, json!([])),
    };
    json!({
        "name": s.config.name,
        "enabled": s.config.enabled,
        "status": s.status.label(),
        "era": n.map(|n| n.era.label()),
        "version": n.map(|n| n.version.clone()),
        "serverInfo": n.map(|n| n.server_info.raw.clone()),
        "tools": connected.then_some(s.lists.tools.len()),
        "resources": connected.then_some(s.lists.resources.len()),
        "prompts": connected.then_some(s.lists.prompts.len()),
        "connectMs": n.map(|n| n.connect_time.as_millis() as u64),
        "error": error,
        "stderrTail": tail,
    })
}

async fn info(config: &Config, target: &TargetArgs, json: bool, trace: bool) -> Outcome {
    let (manager, rx, snap) = connect_one(config, target, trace).await?;
    finish(manager, rx).await;
    let Some(n) = snap.negotiated else {
        return Err(Failure::new(
            Exit::Connect,
            "connected, but nothing was negotiated",
        ));
    };
    let mut out = std::io::stdout().lock();
    if json {
        let v = json!({
            "name": snap.config.name,
            "era": n.era.label(),
            "version": n.version,
            "detection": n.detection,
            "transport": n.transport,
            "serverInfo": n.server_info.raw,
            "capabilities": n.capabilities,
            "instructions": n.instructions,
            "supportedVersions": n.supported_versions,
            "connectMs": n.connect_time.as_millis() as u64,
        });
        let _ = writeln!(out, "{}", output::json_pretty(&v));
        return Ok(Exit::Ok);
    }
    let info = &n.server_info;
    let title = info
        .title
        .as_deref()
        .map(|t| format!(" \"{}\"", sanitize::strip(t)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "server:       {} {}{title}",
        sanitize::strip(&info.name),
        sanitize::strip(&info.version)
    );
    let _ = writeln!(out, "era:          {} ({})", n.era, n.version);
    let _ = writeln!(out, "transport:    {}", n.transport);
    let _ = writeln!(out, "detected by:  {}", sanitize::strip(&n.detection));
    if !n.supported_versions.is_empty() {
        let _ = writeln!(
            out,
            "supports:     {}",
            sanitize::strip(&n.supported_versions.join(", "))
        );
    }
    let _ = writeln!(out, "connected in: {}", fmt_duration(n.connect_time));
    let caps: Vec<String> = n
        .capabilities
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let flags: Vec<&str> = v
                        .as_object()
                        .map(|o| {
                            o.iter()
                                .filter(|(_, b)| b.as_bool() == Some(true))
                                .map(|(f, _)| f.as_str())
                                .collect()
                        })
                        .unwrap_or_default();
                    if flags.is_empty() {
                        k.clone()
                    } else {
                        format!("{k} ({})", flags.join(", "))
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let caps = if caps.is_empty() {
        "(none)".to_string()
    } else {
        caps.join(", ")
    };
    let _ = writeln!(out, "capabilities: {}", sanitize::strip(&caps));
    if let Some(i) = &n.instructions {
        let _ = writeln!(out, "instructions:");
        for line in sanitize::strip(i).lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    Ok(Exit::Ok)
}

async fn tools(config: &Config, target: &TargetArgs, json: bool, trace: bool) -> Outcome {
    let (manager, rx, snap) = connect_one(config, target, trace).await?;
    finish(manager, rx).await;
    let mut out = std::io::stdout().lock();
    if json {
        let raw: Vec<Value> = snap.lists.tools.iter().map(|t| t.raw.clone()).collect();
        let _ = writeln!(out, "{}", output::json_pretty(&json!({"tools": raw})));
        return Ok(Exit::Ok);
    }
    if snap.lists.tools.is_empty() {
        let declared = snap
            .negotiated
            .as_ref()
            .is_some_and(|n| n.has_capability("tools"));
        let _ = writeln!(
            out,
            "{}",
            if declared {
                "The server lists no tools."
            } else {
                "The server does not declare the tools capability."
            }
        );
    }
    for t in snap.lists.tools.iter() {
        let _ = output::write_tool(&mut out, t, snap.config.is_tool_denied(&t.name));
    }
    Ok(Exit::Ok)
}

struct CallArgs {
    tool: String,
    json_args: Option<String>,
    pairs: Vec<String>,
    no_validate: bool,
    json: bool,
    log_level: Option<String>,
}

async fn call_tool(config: &Config, target: &TargetArgs, call: &CallArgs, trace: bool) -> Outcome {
    let (manager, mut rx, snap) = connect_one(config, target, trace).await?;
    let result = call_connected(&manager, &mut rx, &snap, call).await;
    finish(manager, rx).await;
    result
}

async fn call_connected(
    manager: &Manager,
    rx: &mut UnboundedReceiver<Event>,
    snap: &ServerSnapshot,
    call: &CallArgs,
) -> Outcome {
    let server = snap.config.name.clone();
    let tool = snap.lists.tools.iter().find(|t| t.name == call.tool);
    if tool.is_none() && !call.no_validate {
        let names: Vec<&str> = snap.lists.tools.iter().map(|t| t.name.as_str()).collect();
        let hint = names
            .iter()
            .map(|n| (strsim::jaro_winkler(n, &call.tool), n))
            .filter(|(s, _)| *s > 0.8)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, n)| format!("; did you mean {n:?}?"))
            .unwrap_or_else(|| {
                "; `mcpdeck tools` lists them, --no-validate sends the call anyway".into()
            });
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "server {server:?} lists no tool named {:?}{hint}",
                call.tool
            ),
        ));
    }
    let schema = tool.and_then(|t| t.input_schema.as_ref());
    let arguments = args::build(call.json_args.as_deref(), &call.pairs, schema)
        .map_err(|e| Failure::new(Exit::Usage, e))?;
    if !call.no_validate
        && let Some(schema) = schema
    {
        match crate::schema::check(schema, &arguments) {
            Ok(violations) if !violations.is_empty() => {
                let list: Vec<String> = violations
                    .iter()
                    .map(|v| format!("    {}", sanitize::strip(&v.to_string())))
                    .collect();
                return Err(Failure::new(
                    Exit::Usage,
                    format!(
                        "the arguments do not match the inputSchema of {:?}:\n{}\nfix them, or pass --no-validate to send them anyway",
                        call.tool,
                        list.join("\n")
                    ),
                ));
            }
            Ok(_) => {}
            Err(e) => eprintln!(
                "mcpdeck: not validating the arguments: the tool's inputSchema is broken ({})",
                sanitize::strip(&e)
            ),
        }
    }
    if let Some(level) = &call.log_level {
        manager.send(Command::SetLogLevel(server.clone(), level.clone()));
        loop {
            let Some(ev) = rx.recv().await else { break };
            report(&ev);
            if let Event::LogLevel { result, .. } = ev {
                if let Err(e) = result {
                    eprintln!("mcpdeck: warning: {}", sanitize::one_line(&e.to_string()));
                }
                break;
            }
        }
    }
    let tag = 1;
    manager.send(Command::Call {
        tag,
        server: server.clone(),
        tool: call.tool.clone(),
        arguments,
    });
    let finished = loop {
        let Some(ev) = rx.recv().await else {
            return Err(Failure::new(
                Exit::Connect,
                "the manager stopped before the call finished",
            ));
        };
        report(&ev);
        if let Event::CallFinished {
            tag: t,
            result,
            elapsed,
            ..
        } = ev
            && t == tag
        {
            break (result, elapsed);
        }
    };
    let (result, elapsed) = finished;
    drain(rx);
    let mut out = std::io::stdout().lock();
    match result {
        Ok(r) => {
            if call.json {
                let _ = writeln!(out, "{}", output::json_pretty(&r.raw));
            } else {
                let _ = output::write_call_result(
                    &mut out,
                    &r,
                    tool.and_then(|t| t.output_schema.as_ref()),
                );
            }
            if r.is_error {
                eprintln!(
                    "mcpdeck: the tool reported an error (isError: true) after {}",
                    fmt_duration(elapsed)
                );
                Ok(Exit::ToolError)
            } else {
                Ok(Exit::Ok)
            }
        }
        Err(CallError::Request(RequestError::Rpc { error, .. })) => {
            if call.json {
                let _ = writeln!(
                    out,
                    "{}",
                    output::json_pretty(&json!({"error": error.to_value()}))
                );
            }
            Err(Failure::new(
                Exit::ToolError,
                format!(
                    "the server answered tools/call with error {}",
                    sanitize::strip(&error.to_string())
                ),
            ))
        }
        Err(e @ (CallError::Denied { .. } | CallError::UnknownServer(_))) => {
            Err(Failure::new(Exit::Usage, e.to_string()))
        }
        Err(CallError::Request(e @ RequestError::Closed { .. })) => {
            let tail = tail_text(e.stderr_tail());
            Err(Failure::new(
                Exit::Connect,
                format!("{}{tail}", sanitize::strip(&e.to_string())),
            ))
        }
        Err(e) => Err(Failure::new(
            Exit::Connect,
            sanitize::strip(&e.to_string()).into_owned(),
        )),
    }
}

/// The interactive TUI on the configured (or demo) servers.
async fn tui(config: &Config) -> Outcome {
    // Problems with [keys] or [theme] name the file they are in.
    let file = config
        .path
        .as_ref()
        .map(|p| format!("{}: ", p.display()))
        .unwrap_or_default();
    let in_file = |e: String| Failure::new(Exit::Usage, format!("{file}{e}"));
    let keymap = crate::tui::keymap::Keymap::with_overrides(&config.keys)
        .map_err(|e| in_file(e.to_string()))?;
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let theme = crate::tui::theme::Theme::from_config(&config.theme, no_color).map_err(in_file)?;
    // Frames are never printed in the TUI: stderr is the screen.
    // The TUI answers the servers' sampling and elicitation requests.
    let (manager, rx) = Manager::start_full(
        config.settings.clone(),
        config.servers.clone(),
        frame_log(&config.settings, false),
        CHILDREN.clone(),
        true,
    );
    let result = crate::tui::run::run(config.clone(), keymap, theme, manager.clone(), rx).await;
    manager.shutdown().await;
    result
        .map(|()| Exit::Ok)
        .map_err(|e| Failure::new(Exit::Connect, format!("the terminal failed: {e}")))
}

/// `mcpdeck --demo` with no subcommand: a short headless tour.
async fn demo_tour(config: &Config, trace: bool) -> Outcome {
    println!(
        "mcpdeck demo: three built-in demo servers (`mcpdeck demo-server`) in different eras.\n"
    );
    let code = servers(config, false, trace).await?;
    println!("\n$ mcpdeck --demo tools demo");
    let target = TargetArgs {
        target: Some("demo".into()),
        command: Vec::new(),
    };
    tools(config, &target, false, trace).await?;
    for (tool, args) in [
        ("echo", r#"{"message":"hello from mcpdeck"}"#),
        ("get_weather", r#"{"city":"Zürich"}"#),
    ] {
        println!("\n$ mcpdeck --demo call demo {tool} '{args}'");
        let call = CallArgs {
            tool: tool.into(),
            json_args: Some(args.into()),
            pairs: Vec::new(),
            no_validate: false,
            json: false,
            log_level: None,
        };
        if let Err(f) = call_tool(config, &target, &call, trace).await {
            eprintln!("mcpdeck: {}", f.message);
        }
    }
    println!(
        "\nTry: mcpdeck --demo info demo-stateless · mcpdeck --demo call demo everything_mixed · add --trace to see every frame"
    );
    Ok(code)
}
