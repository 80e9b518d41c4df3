//! The command line, as clap reads it: global flags, the commands and
//! their arguments, and TARGET.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::{resources, smoke};

pub const AFTER_HELP: &str = "\
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
    /// Record every frame (and HTTP exchange) to FILE as JSON Lines, secrets masked
    #[arg(long, global = true, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Use the built-in demo servers instead of the config file
    #[arg(long, global = true)]
    pub demo: bool,
    /// Write mcpdeck's own log to FILE (level from RUST_LOG, default info); never to the screen
    #[arg(long, global = true, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// Offer these directories (and only these) to every server as roots, for this run, instead of the config's `roots` [default: the config's; none when it has none]
    #[arg(long, global = true, value_name = "DIR", num_args = 1.., action = clap::ArgAction::Append)]
    pub roots: Option<Vec<PathBuf>>,
    /// The client capabilities declared to every server: `default` (roots, sampling, elicitation: what serve declares for a full-featured agent), `none`, `all`, or a comma list of roots, sampling, elicitation, elicitation-form, elicitation-url [default: the config's `capabilities`, else default]
    #[arg(long, global = true, value_name = "SET", value_parser = parse_capabilities)]
    pub capabilities: Option<crate::mcp::session::Declared>,
    #[command(subcommand)]
    pub command: Option<Cmd>,
}

fn parse_capabilities(text: &str) -> Result<crate::mcp::session::Declared, String> {
    crate::mcp::session::Declared::parse(text)
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Each configured server's status, era, version, counts and connect time
    Servers {
        /// Print [{"name", "status", …}] (a failure: the error envelope, see docs/cli.md)
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limit: Limit,
    },
    /// The negotiated era and version (and how they were detected), serverInfo, capabilities, instructions
    Info {
        #[command(flatten)]
        target: TargetArgs,
        /// Print {"name", "era", "version", "serverInfo", "capabilities", …}
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limit: Limit,
    },
    /// All tools of a server (every page)
    Tools {
        #[command(flatten)]
        target: TargetArgs,
        /// Print {"tools": […]} exactly as the server sent them (and "denied": [names] when the config denies some)
        #[arg(long)]
        json: bool,
        /// Print every description whole (the list shows the first 6 lines of each)
        #[arg(long)]
        full: bool,
        #[command(flatten)]
        limit: Limit,
    },
    /// One tool whole: `tool TARGET NAME`, or `tool NAME -- CMD ARGS…`: its
    /// badges, full description, parameters and output schema
    Tool {
        /// TARGET NAME (NAME alone with `-- CMD`)
        #[arg(value_name = "WORDS", num_args = 1..=2, required = true)]
        words: Vec<String>,
        /// Print the tool object exactly as the server sent it
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limit: Limit,
        /// An ad-hoc stdio server
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Call a tool: `call TARGET TOOL [ARGS_JSON]`, or `call TOOL [ARGS_JSON] -- CMD ARGS…`;
    /// ARGS_JSON `-` reads the arguments from stdin
    Call {
        /// TARGET TOOL [ARGS_JSON] (TOOL [ARGS_JSON] with `-- CMD`); ARGS_JSON `-` reads them from stdin
        #[arg(value_name = "WORDS", num_args = 1..=3, required = true)]
        words: Vec<String>,
        /// Read the arguments (a JSON object) from FILE, for arguments too long for the command line
        #[arg(long, value_name = "FILE")]
        args_file: Option<PathBuf>,
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
        #[command(flatten)]
        limit: Limit,
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
    /// OAuth logins of HTTP servers: `auth login SERVER`, `auth logout SERVER`, `auth status [--json]`
    #[command(subcommand)]
    Auth(super::auth::AuthCmd),
    /// Run the built-in demo MCP server on stdio
    DemoServer(crate::demo::DemoArgs),
    /// An MCP server on stdio for an agent, in front of configured servers: their tools,
    /// prompts and resources with the config's deny/allow lists enforced, live
    Serve(crate::serve::ServeArgs),
    /// The `mcpdeck serve` processes running for this user (by their control sockets):
    /// pid, agent, calls, servers, config file
    Serves {
        /// Print {"dir", "serves": [{"pid", "socket", "status"|"error"}]}
        #[arg(long)]
        json: bool,
    },
    /// Import servers from other clients' files (--all, --from CLIENT) or a file (PATH, incl. a registry server.json)
    Import(super::import::ImportArgs),
    /// Print servers in another client's format (claude-desktop, claude-code, vscode, cursor,
    /// windsurf, zed, codex, gemini), or merge them into its user file with --write
    Export(super::export::ExportArgs),
    /// Add a server to the config: `add NAME -- CMD ARGS…` (stdio) or `add NAME URL` (HTTP)
    Add(super::manage::AddArgs),
    /// Remove a server from the config
    Remove(super::manage::ServerArg),
    /// Enable a server in the config (`enabled` back to its default)
    Enable(super::manage::ServerArg),
    /// Disable a server in the config (`enabled = false`)
    Disable(super::manage::ServerArg),
    /// Deny a tool of a server (adds it to `deny_tools`)
    Deny(super::manage::ToolArgs),
    /// Allow a denied tool again (removes it from `deny_tools`)
    Allow(super::manage::ToolArgs),
    /// Lint what a server tells the model (names, descriptions, schemas, instructions); exit 1 on a high finding
    Lint(super::trust::lint::LintArgs),
    /// Record a fingerprint of each definition the servers show (all enabled servers without TARGET)
    Pin(super::trust::pin::PinArgs),
    /// Compare the servers' definitions with their pins; exit 1 on any change
    Verify(super::trust::pin::PinArgs),
    /// Lint (and verify) the servers of every client found on this machine, read-only; exit 1 on a high finding
    Scan(super::trust::scan::ScanArgs),
    /// The config file: `config path`, `config check`, `config edit`
    #[command(subcommand)]
    Config(super::manage::ConfigCmd),
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell
    Completions(super::completions::CompletionsArgs),
    /// The configured server names, one a line (for the completion scripts)
    #[command(name = "__servers", hide = true)]
    ServerNames,
    /// Show a recording (`--record FILE`) in the TUI's log and result views, with no server
    Open(super::record::OpenArgs),
    /// An MCP server on stdio answering from a recording: `replay FILE [--server NAME]`
    Replay(super::record::ReplayArgs),
    /// Latency per server and method in a recording: count, p50, p95, p99, max, errors
    Stats(super::record::StatsArgs),
    /// Compare two versions of a server's tools, prompts, resources and templates
    /// (servers, `tools --json` snapshots, recordings, pin files); exit 1 on a breaking change
    Diff(super::diff::DiffArgs),
    /// Load on one tool: `bench TARGET TOOL [ARGS_JSON] --calls N --concurrency C
    /// [--duration S]`, or `bench TOOL [ARGS_JSON] … -- CMD ARGS…`; calls/s, latency
    /// percentiles, errors by kind, and a stdio server's CPU and peak RSS
    Bench(super::load::BenchArgs),
}

/// `--timeout SECS` of the commands that connect and ask.
#[derive(Args, Debug, Clone, Default)]
pub struct Limit {
    /// Give up after SECS seconds, connect and request together (exit 3) [default: the config's connect_timeout and request_timeout]
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
}

impl Limit {
    /// The timeout, checked: a number of seconds above 0, at most a week.
    pub fn duration(&self) -> Result<Option<std::time::Duration>, super::Failure> {
        match self.timeout {
            None => Ok(None),
            Some(t) if t.is_finite() && t > 0.0 && t <= 7.0 * 86400.0 => {
                Ok(Some(std::time::Duration::from_secs_f64(t)))
            }
            Some(t) => Err(super::Failure::new(
                super::Exit::Usage,
                format!("--timeout {t}: give a number of seconds above 0 and at most a week"),
            )),
        }
    }

    /// `d` as `--timeout` would take it: `1`, `2.5`.
    pub fn secs(d: std::time::Duration) -> String {
        let s = d.as_secs_f64();
        if s.fract() == 0.0 {
            format!("{s:.0}")
        } else {
            format!("{s}")
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct TargetArgs {
    /// A configured server name or an http(s):// URL
    pub target: Option<String>,
    /// An ad-hoc stdio server: `-- CMD ARGS…`
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}
