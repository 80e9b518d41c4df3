//! `mcpdeck demo-server`: a small, fast MCP server built into the binary.
//!
//! It speaks newline-delimited JSON-RPC on stdin/stdout (stderr is for logs
//! only) and serves both protocol eras, so it is at once the demo a newcomer
//! sees and a quick, dependable server for tests and benchmarks.
//!
//! - [`run`] serves the process's stdin/stdout until stdin reaches EOF.
//! - [`serve`] does the same over any reader/writer pair (e.g. an in-process
//!   `tokio::io::duplex`), which tests can use without spawning a process.

mod catalog;
mod media;
mod server;
mod skills;

use std::io::IsTerminal as _;

use tokio::io::{AsyncRead, AsyncWrite};

pub use server::{LEGACY_VERSIONS, MODERN_VERSION};

/// Which protocol era(s) the demo server answers.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Era {
    /// Both eras; the first request locks the connection to one of them
    /// (like the official Python SDK 2.3).
    #[default]
    Dual,
    /// Only the stateless 2026-07-28 protocol (`initialize` is refused with -32022).
    Stateless,
    /// Only the `initialize` handshake era (`server/discover` is -32601 Method not found).
    Initialize,
}

/// Flags of `mcpdeck demo-server`.
#[derive(clap::Args, Debug, Clone)]
pub struct DemoArgs {
    /// Server name reported in serverInfo.
    #[arg(long, value_name = "NAME", default_value = "mcpdeck-demo")]
    pub name: String,

    /// Protocol era(s) to serve.
    #[arg(long, value_enum, default_value_t = Era::Dual)]
    pub era: Era,

    /// Add N generated tools `tool_0001`… (each echoes its `value` argument), for benchmarks.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub tools: usize,

    /// Paginate tools/list, resources/list, resources/templates/list, prompts/list,
    /// skills/list and resources/directory/read with N items per page (default:
    /// everything in one page).
    #[arg(long, value_name = "N")]
    pub page_size: Option<usize>,

    /// Do not offer resources (no `resources` capability, and so no skills: the
    /// `io.modelcontextprotocol/skills` extension needs resources).
    #[arg(long)]
    pub no_resources: bool,

    /// Do not offer prompts (no `prompts` capability).
    #[arg(long)]
    pub no_prompts: bool,

    /// Fail at startup with an error on stderr and exit status 1 (demo of a broken server).
    #[arg(long)]
    pub fail_start: bool,

    /// The `ttlMs` of cacheable results (SEP-2549: lists, reads, server/discover;
    /// 2026-07-28 era): how long a client may reuse them. 0: not at all.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub ttl_ms: u64,

    /// The `cacheScope` of cacheable results: `private` (one user's) or `public`.
    #[arg(long, value_name = "SCOPE", default_value = "private", value_parser = ["private", "public"])]
    pub cache_scope: String,
}

impl Default for DemoArgs {
    fn default() -> Self {
        DemoArgs {
            name: "mcpdeck-demo".to_string(),
            era: Era::Dual,
            tools: 0,
            page_size: None,
            no_resources: false,
            no_prompts: false,
            fail_start: false,
            ttl_ms: 0,
            cache_scope: "private".to_string(),
        }
    }
}

/// Serve MCP on this process's stdin/stdout until stdin reaches EOF, then
/// return `Ok` (in-flight slow requests are abandoned, not awaited).
///
/// With `--fail-start` this prints an error to stderr and exits the process
/// with status 1 immediately.
pub async fn run(args: DemoArgs) -> anyhow::Result<()> {
    if args.fail_start {
        eprintln!("demo-server: failed to open database: permission denied");
        std::process::exit(1);
    }
    if std::io::stdin().is_terminal() {
        let era = match args.era {
            Era::Dual => "dual",
            Era::Stateless => "stateless",
            Era::Initialize => "initialize",
        };
        eprintln!(
            "mcpdeck demo-server: speaking MCP on stdin/stdout (era: {era}). This is meant to be \
             launched by an MCP client; to poke at it by hand, type one JSON-RPC message per line. \
             Ctrl-D quits."
        );
    }
    // tokio's `io-std` feature is not enabled; `tokio::fs::File` over duplicated
    // descriptors gives the same blocking-pool backed async stdio.
    let input = tokio::fs::File::from_std(dup_stdio(&std::io::stdin())?);
    let output = tokio::fs::File::from_std(dup_stdio(&std::io::stdout())?);
    serve(args, input, output).await
}

#[cfg(unix)]
fn dup_stdio(stream: &impl std::os::fd::AsFd) -> anyhow::Result<std::fs::File> {
    Ok(std::fs::File::from(stream.as_fd().try_clone_to_owned()?))
}

#[cfg(windows)]
fn dup_stdio(stream: &impl std::os::windows::io::AsHandle) -> anyhow::Result<std::fs::File> {
    Ok(std::fs::File::from(
        stream.as_handle().try_clone_to_owned()?,
    ))
}

/// Serve one MCP connection over `input`/`output` until `input` reaches EOF.
pub async fn serve<R, W>(args: DemoArgs, input: R, output: W) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    server::serve(args, input, output).await
}

/// The built-in demo: `mcpdeck demo-server` under a few names, with
/// different eras and capabilities (and the test servers, when the test
/// setup installed them). They are one group: they share tool names on
/// purpose, so they are not linted against each other.
pub fn demo_config() -> crate::config::Config {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "mcpdeck".into());
    let server = |name: &str, extra: &[&str]| {
        let mut args = vec!["demo-server", "--name", name];
        args.extend_from_slice(extra);
        crate::config::ServerConfig::stdio(name, exe.clone(), &args)
    };
    let mut config = crate::config::Config::empty(None);
    config.servers = vec![
        server("demo", &[]),
        server("demo-legacy", &["--era", "initialize", "--no-prompts"]),
        // Static lists: reusable for a minute, by anyone (SEP-2549).
        server(
            "demo-stateless",
            &[
                "--era",
                "stateless",
                "--no-resources",
                "--ttl-ms",
                "60000",
                "--cache-scope",
                "public",
            ],
        ),
    ];
    // In a checkout where the test setup ran, the real servers join in.
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let everything =
        repo.join("tests/deps/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if everything.exists() {
        let js = everything.display().to_string();
        config.servers.push(crate::config::ServerConfig::stdio(
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
            config.servers.push(crate::config::ServerConfig::stdio(
                name,
                python.display().to_string(),
                &[script.as_str()],
            ));
        }
    }
    for server in &mut config.servers {
        server.lint.group = Some("demo".into());
    }
    config
}
