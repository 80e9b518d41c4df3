//! `cargo bench --bench http`: mcpdeck over Streamable HTTP beside the
//! official clients, measured in one run, printed as ratios.
//!
//! 1. Sequential `tools/call` round trips per second to a local streamable
//!    HTTP server: mcpdeck's `Session` in process beside the official Python
//!    SDK's own client (mcp 2.3.0, tests/servers/bench_py_client.py), both on
//!    the same server, both negotiating as they do by default (auto). Two
//!    servers: the Python SDK's test server (py_v2_server.py --http), and
//!    the rmcp test server, whose answers cost less, so the clients' own
//!    costs show more. Target: mcpdeck faster.
//! 2. `mcpdeck tools URL` wall time beside `mcp-inspector --cli --method
//!    tools/list URL` (inspector 2.12.0 on Node 22) against server-everything
//!    over streamable HTTP. Target: mcpdeck 5x faster or better.
//!
//! Under `cargo test --all-targets` this is a quick smoke run (tiny counts,
//! one run of each command, no verdicts). A missing test dependency fails
//! with its path: scripts/test.sh installs them all. The rmcp server for a
//! real run is the optimized one (`cargo build --release --manifest-path
//! tests/servers/rmcp-server/Cargo.toml`, the default path here); the test
//! command builds an unoptimized one for the tests and passes it in
//! `MCPDECK_TEST_RMCP_SERVER`, which a real run should leave unset.

#[path = "support/mod.rs"]
mod support;
use support::{check, free_port, run_limited};

use std::fs::File;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpdeck::config::Settings;
use mcpdeck::mcp::framelog::FrameLog;
use mcpdeck::mcp::session::{ClientPolicy, Negotiated, Pin, Session, SessionSpec, TransportSpec};
use mcpdeck::mcp::transport::http::HttpSpec;
use serde_json::{Value, json};

fn main() {
    // `cargo bench` passes --bench; under `cargo test` this is a quick smoke run.
    let full = std::env::args().any(|a| a == "--bench");
    // Rounds interleave the clients, so drift in the machine's speed
    // (frequent on these virtual machines) hits them all alike.
    let (rounds, calls, warmup) = if full { (7, 1_000, 50) } else { (1, 20, 5) };
    let runs = if full { 11 } else { 1 };
    let deps = Deps::find();
    if full {
        println!(
            "mcpdeck HTTP benchmark: sequential tools/call round trips over streamable HTTP, {rounds} interleaved rounds of {calls} per client (after {warmup} untimed), median\n"
        );
    } else {
        println!(
            "mcpdeck HTTP benchmark: SMOKE RUN ({calls} calls, {runs} run of each command, test build); the figures mean nothing, run `cargo bench --bench http`\n"
        );
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    // What the CLI runs on.
    let single = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let bench = CallBench {
        deps: &deps,
        rt: &rt,
        single: &single,
        rounds,
        calls,
        warmup,
        full,
    };

    let py_server = Server::start("py_v2_server.py", tmp.path(), |port| {
        let mut c = Command::new(&deps.py_v2);
        c.arg(&deps.py_server).arg("--http").arg(port.to_string());
        c
    });
    bench.run(
        &py_server,
        "Python SDK 2.3.0 test server (tests/servers/py_v2_server.py --http)",
        "py-v2",
    );
    drop(py_server);

    let rmcp_server = Server::start("rmcp-test-server", tmp.path(), |port| {
        let mut c = Command::new(&deps.rmcp);
        c.arg("--http").arg(port.to_string());
        c
    });
    bench.run(
        &rmcp_server,
        "rmcp 3.9.0 test server (tests/servers/rmcp-server --http)",
        "rmcp-test",
    );
    drop(rmcp_server);

    let everything = Server::start("server-everything", tmp.path(), |port| {
        let mut c = Command::new(&deps.node);
        c.arg(&deps.everything_js)
            .arg("streamableHttp")
            .env("PORT", port.to_string());
        c
    });
    tools_vs_inspector(&deps, &everything, tmp.path(), runs, full);
    drop(everything);
}

/// The test dependencies, all checked before anything runs.
struct Deps {
    py_v2: PathBuf,
    py_server: PathBuf,
    py_client: PathBuf,
    rmcp: PathBuf,
    node: PathBuf,
    everything_js: PathBuf,
    inspector_js: PathBuf,
    inspector_version: String,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn env_or(var: &str, default: PathBuf) -> PathBuf {
    std::env::var_os(var).map(PathBuf::from).unwrap_or(default)
}

fn need(path: PathBuf, what: &str) -> PathBuf {
    assert!(
        path.exists(),
        "{what} is missing at {}: run the README's test command (scripts/test.sh), which installs the test servers",
        path.display()
    );
    path
}

impl Deps {
    fn find() -> Deps {
        let nm = env_or(
            "MCPDECK_TEST_NODE_MODULES",
            repo().join("tests/deps/node_modules"),
        );
        // The inspector needs Node >= 22.19; the `node` package (22.23.3)
        // brings it, whatever node is on PATH.
        let node = need(nm.join("node/bin/node"), "Node 22 (npm package `node`)");
        let inspector_dir = nm.join("@modelcontextprotocol/inspector");
        let manifest = need(
            inspector_dir.join("package.json"),
            "@modelcontextprotocol/inspector",
        );
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(&manifest).expect("read package.json"))
                .expect("inspector package.json");
        let bin = manifest["bin"]["mcp-inspector"]
            .as_str()
            .expect("the inspector's package.json names no mcp-inspector bin");
        Deps {
            py_v2: need(
                env_or(
                    "MCPDECK_TEST_PY_V2",
                    repo().join(".deps/venv-v2/bin/python"),
                ),
                "the mcp 2.3.0 venv",
            ),
            py_server: need(
                repo().join("tests/servers/py_v2_server.py"),
                "py_v2_server.py",
            ),
            py_client: need(
                repo().join("tests/servers/bench_py_client.py"),
                "bench_py_client.py",
            ),
            rmcp: need(
                env_or(
                    "MCPDECK_TEST_RMCP_SERVER",
                    repo().join("tests/servers/rmcp-server/target/release/rmcp-test-server"),
                ),
                "the rmcp test server",
            ),
            everything_js: need(
                nm.join("@modelcontextprotocol/server-everything/dist/index.js"),
                "server-everything",
            ),
            inspector_js: need(inspector_dir.join(bin), "the mcp-inspector CLI"),
            inspector_version: manifest["version"].as_str().unwrap_or("?").to_string(),
            node,
        }
    }
}

/// A server on a free local port, killed and reaped when dropped.
struct Server {
    name: &'static str,
    child: Child,
    url: String,
    log: PathBuf,
}

impl Server {
    /// Start the server `command(port)` builds on a free port and wait until
    /// it accepts connections. A server that exits first (another process
    /// took the port meanwhile) is tried again on another port.
    fn start(name: &'static str, dir: &Path, command: impl Fn(u16) -> Command) -> Server {
        let log = dir.join(format!("{name}.log"));
        for attempt in 1..=3 {
            let port = free_port();
            let out = File::create(&log).expect("server log");
            let err = out.try_clone().expect("server log");
            let child = command(port)
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err)
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
            let mut server = Server {
                name,
                child,
                url: format!("http://127.0.0.1:{port}/mcp"),
                log: log.clone(),
            };
            let addr = SocketAddr::from(([127, 0, 0, 1], port));
            let deadline = Instant::now() + Duration::from_secs(60);
            loop {
                if let Ok(Some(status)) = server.child.try_wait() {
                    if attempt < 3 {
                        break;
                    }
                    panic!(
                        "{name} exited ({status}) before listening:\n{}",
                        server.log_tail()
                    );
                }
                if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                    return server;
                }
                if Instant::now() > deadline {
                    panic!(
                        "{name} did not listen on port {port} within 60 s:\n{}",
                        server.log_tail()
                    );
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        unreachable!()
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct CallBench<'a> {
    deps: &'a Deps,
    rt: &'a tokio::runtime::Runtime,
    single: &'a tokio::runtime::Runtime,
    rounds: usize,
    calls: usize,
    warmup: usize,
    full: bool,
}

/// One timed round of one client.
struct Round {
    rate: f64,
    /// CPU seconds per call spent by the client (None: not measurable).
    cpu: Option<f64>,
}

impl CallBench<'_> {
    fn run(&self, server: &Server, title: &str, server_name: &str) {
        let url = server.url.as_str();
        // Each round, each client connects afresh (the Python client is a new
        // process each round), warms up, and is timed. A session kept across
        // rounds would not do: its current-thread runtime is not driven while
        // the other clients run, so it would not see the server close the idle
        // keep-alive connection (uvicorn: after 5 s) and would send its next
        // request into the closed connection.
        let mut rows: [Vec<Round>; 3] = Default::default();
        let mut py_version = String::new();
        let mut negotiated = None;
        for _ in 0..self.rounds {
            let (round, version) = self.python_round(url);
            rows[0].push(round);
            py_version = version;
            let (round, n) = self
                .single
                .block_on(self.deck_round(server, server_name, true));
            rows[1].push(round);
            negotiated = Some(n);
            let (round, _) = self
                .rt
                .block_on(self.deck_round(server, server_name, false));
            rows[2].push(round);
        }
        let negotiated = negotiated.expect("one round");
        let [py, deck1, deck] = rows.map(summary);
        println!("server: {title}, {url}");
        println!(
            "protocol: mcpdeck {} ({:?} era), Python SDK {py_version}{}",
            negotiated.version,
            negotiated.era,
            if py_version == negotiated.version {
                ""
            } else {
                "  (NOT THE SAME: the comparison is unfair)"
            }
        );
        println!(
            "{:<54} {:>9} {:>9} {:>14}",
            "client", "calls/s", "µs/call", "client CPU µs"
        );
        let row = |name: &str, (rate, cpu): (f64, Option<f64>)| {
            let cpu = cpu.map_or("-".to_string(), |c| format!("{:.0}", c * 1e6));
            println!("{name:<54} {rate:>9.0} {:>9.0} {cpu:>14}", 1e6 / rate);
        };
        row("official Python SDK client (mcp 2.3.0)", py);
        row(
            "mcpdeck Session::call_tool, current-thread (the CLI)",
            deck1,
        );
        row("mcpdeck Session::call_tool, 2 worker threads", deck);
        let ratio = deck1.0 / py.0;
        println!("mcpdeck (the CLI's runtime) / Python SDK: {ratio:.2}x the calls/s");
        if self.full {
            println!(
                "target: mcpdeck faster: {}",
                if ratio > 1.0 { "met" } else { "NOT met" }
            );
        }
        println!();
    }

    /// mcpdeck's Session: connect, warm up, one timed round, close. `cpu`:
    /// measure the thread's CPU time (meaningful on a current-thread runtime).
    async fn deck_round(
        &self,
        server: &Server,
        server_name: &str,
        cpu: bool,
    ) -> (Round, Negotiated) {
        let session = connect(&server.url).await;
        let negotiated = session.negotiated().expect("negotiated");
        assert_eq!(
            negotiated.server_info.name, server_name,
            "{} is not {} (another process on its port?)",
            server.url, server.name
        );
        calls(&session, self.warmup).await;
        let c = thread_cpu();
        let t = Instant::now();
        calls(&session, self.calls).await;
        let rate = self.calls as f64 / t.elapsed().as_secs_f64();
        let cpu = cpu.then(|| (thread_cpu() - c) / self.calls as f64);
        session.close().await;
        (Round { rate, cpu }, negotiated)
    }

    /// The Python client in its own process: connect, warm up, one timed round.
    fn python_round(&self, url: &str) -> (Round, String) {
        let mut cmd = Command::new(&self.deps.py_v2);
        cmd.arg(&self.deps.py_client)
            .arg(url)
            .arg(self.calls.to_string())
            .arg("--warmup")
            .arg(self.warmup.to_string());
        let max = Duration::from_secs(120) + Duration::from_millis(50) * self.calls as u32;
        let out = run_limited(cmd, "bench_py_client.py", max);
        check(&out, "bench_py_client.py");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "bench_py_client.py printed no JSON ({e}): {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        let secs = v["seconds"][0].as_f64().expect("seconds");
        let cpu = v["cpu_seconds"][0].as_f64().expect("cpu_seconds");
        let round = Round {
            rate: self.calls as f64 / secs,
            cpu: Some(cpu / self.calls as f64),
        };
        (
            round,
            v["protocolVersion"].as_str().unwrap_or("?").to_string(),
        )
    }
}

async fn connect(url: &str) -> Session {
    let settings = Settings::default();
    let spec = SessionSpec {
        name: Arc::from("bench"),
        transport: TransportSpec::Http(HttpSpec::new(url)),
        client: ClientPolicy::default(),
        pin: Pin::Auto,
        era_memory: None,
        request_timeout: settings.request_timeout,
        connect_timeout: settings.connect_timeout,
        probe_timeout: settings.probe_timeout,
    };
    let frames = Arc::new(FrameLog::new(settings.frame_log));
    Session::connect(&spec, frames, Arc::new(|_| {}))
        .await
        .unwrap_or_else(|e| panic!("connect to {url}: {}", e))
}

async fn calls(session: &Session, n: usize) {
    for _ in 0..n {
        let r = session
            .call_tool("echo", json!({"text": "hi"}))
            .await
            .expect("call");
        assert!(!r.is_error, "echo returned isError: {}", r.raw);
    }
}

/// Median rate, and median client CPU per call.
fn summary(rounds: Vec<Round>) -> (f64, Option<f64>) {
    let rate = medianf(rounds.iter().map(|r| r.rate).collect());
    let cpu: Option<Vec<f64>> = rounds.iter().map(|r| r.cpu).collect();
    (rate, cpu.map(medianf))
}

/// CPU seconds (user + system) used by the calling thread so far.
fn thread_cpu() -> f64 {
    // SAFETY: getrusage only writes into the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe {
        libc::getrusage(libc::RUSAGE_THREAD, &mut ru);
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn medianf(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn tools_vs_inspector(deps: &Deps, server: &Server, tmp: &Path, runs: usize, full: bool) {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mcpdeck"));
    let url = server.url.as_str();
    // The inspector keeps state under ~/.mcp-inspector: give it a home of its own.
    let home = tmp.join("inspector-home");
    std::fs::create_dir_all(&home).expect("inspector home");
    let max = Duration::from_secs(60);
    let deck = || {
        let mut c = Command::new(&bin);
        c.arg("tools").arg(url).env("MCPDECK_CONFIG", "/dev/null");
        c
    };
    let inspector = || {
        let mut c = Command::new(&deps.node);
        c.arg(&deps.inspector_js)
            .args(["--cli", "--method", "tools/list"])
            .arg(url)
            .env("HOME", &home)
            .env("NO_COLOR", "1");
        c
    };
    let timed = |cmd: Command, what: &str| {
        let t = Instant::now();
        let out = run_limited(cmd, what, max);
        let wall = t.elapsed();
        check(&out, what);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("echo"),
            "{what} listed no `echo` tool:\n{stdout}"
        );
        wall
    };
    // One untimed run each: the first pays for cold file caches.
    if full {
        timed(deck(), "mcpdeck tools");
        timed(inspector(), "mcp-inspector --cli");
    }
    let (mut deck_wall, mut insp_wall) = (vec![], vec![]);
    for _ in 0..runs {
        deck_wall.push(timed(deck(), "mcpdeck tools"));
        insp_wall.push(timed(inspector(), "mcp-inspector --cli"));
    }
    let (d, i) = (median(deck_wall), median(insp_wall));
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let node_version = Command::new(&deps.node)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    println!("`mcpdeck tools URL` beside `mcp-inspector --cli --method tools/list URL`");
    println!(
        "server: server-everything over streamable HTTP, {url} (median of {runs}, wall time spawn .. exit)"
    );
    let inspector_name = format!(
        "mcp-inspector {} --cli (Node {node_version})",
        deps.inspector_version
    );
    println!("  {inspector_name:<44} {:>8.1} ms", ms(i));
    println!("  {:<44} {:>8.1} ms", "mcpdeck tools", ms(d));
    let ratio = i.as_secs_f64() / d.as_secs_f64();
    println!("  mcpdeck is {ratio:.1}x faster");
    if full {
        println!(
            "target: mcpdeck 5x faster or better: {}",
            if ratio >= 5.0 { "met" } else { "NOT met" }
        );
    }
}
