//! `cargo bench --bench core`: figures measured in one run, printed as ratios.
//!
//! 1. Sequential `tools/call` round trips per second through mcpdeck's core
//!    (a `Session`, and the `Manager` the UI uses) against a minimal Rust echo
//!    server over stdio, beside a raw newline-JSON client on the same server
//!    (the limit). Target: mcpdeck at 70% of the limit or better.
//! 2. `mcpdeck tools` wall time against server-everything, beside that
//!    server's own time to answer `initialize`. Target: under 50 ms of
//!    overhead (spawn, detection, listing, close).
//!
//! The bench binary is also the echo server: run with `--echo-server`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpdeck::config::{ServerConfig, Settings};
use mcpdeck::mcp::framelog::FrameLog;
use mcpdeck::mcp::manager::{Command as Cmd, Event, Manager, ServerStatus, session_spec};
use mcpdeck::mcp::session::Session;
use serde_json::{Value, json};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--echo-server") {
        echo_server();
        return;
    }
    // `cargo bench` passes --bench; under `cargo test` this is a quick smoke run.
    let full = args.iter().any(|a| a == "--bench");
    // Rounds interleave the clients, so drift in the machine's speed
    // (frequent on these virtual machines) hits them all alike.
    let (rounds, calls) = if full { (15, 2_000) } else { (1, 200) };
    let runs = if full { 7 } else { 1 };
    let exe = std::env::current_exe().expect("current exe");
    if full {
        println!(
            "mcpdeck core benchmark: sequential tools/call round trips, {rounds} interleaved rounds of {calls} per client, median\n"
        );
    } else {
        println!(
            "mcpdeck core benchmark: SMOKE RUN ({calls} calls, test build); the figures mean nothing, run `cargo bench --bench core`\n"
        );
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let single = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // For profiling: only the current-thread Session client, many calls.
    if std::env::var("MCPDECK_BENCH_ONLY").as_deref() == Ok("session") {
        let session = single.block_on(connect(&exe));
        let rate = single.block_on(session_rate(&session, 0, 100_000));
        println!("Session::call_tool, current-thread: {rate:.0} calls/s");
        single.block_on(session.close());
        return;
    }
    let mut raw_client = RawClient::start(&exe);
    let session = rt.block_on(connect(&exe));
    let session1 = single.block_on(connect(&exe));
    let (manager, mut events) = rt.block_on(start_manager(&exe));
    let (manager1, mut events1) = single.block_on(start_manager(&exe));
    let mut rates: [Vec<f64>; 5] = Default::default();
    // CPU time of the calling thread per call: robust to the machine's
    // wake-up latency, which dominates the rates.
    let (mut cpu_raw, mut cpu_core) = (vec![], vec![]);
    for round in 0..rounds {
        let base = round * calls;
        let c = thread_cpu();
        rates[0].push(raw_client.rate(base, calls));
        cpu_raw.push((thread_cpu() - c) / calls as f64);
        let c = thread_cpu();
        rates[1].push(single.block_on(session_rate(&session1, base, calls)));
        cpu_core.push((thread_cpu() - c) / calls as f64);
        rates[2].push(single.block_on(manager_rate(&manager1, &mut events1, base as u64, calls)));
        rates[3].push(rt.block_on(session_rate(&session, base, calls)));
        rates[4].push(rt.block_on(manager_rate(&manager, &mut events, base as u64, calls)));
    }
    rt.block_on(session.close());
    single.block_on(session1.close());
    rt.block_on(manager.shutdown());
    single.block_on(manager1.shutdown());
    raw_client.stop();
    let [raw, core1, managed1, core, managed] = rates.map(medianf);
    println!("{:<52} {:>10} {:>9}", "client", "calls/s", "of limit");
    let row = |name: &str, rate: f64| {
        println!("{name:<52} {rate:>10.0} {:>8.0}%", rate / raw * 100.0);
    };
    row("raw newline-JSON client (the limit)", raw);
    row(
        "mcpdeck Session::call_tool, current-thread (the CLI)",
        core1,
    );
    row("mcpdeck Manager, current-thread", managed1);
    row("mcpdeck Session::call_tool, 2 worker threads", core);
    row("mcpdeck Manager, 2 worker threads", managed);
    let (cpu_raw, cpu_core) = (medianf(cpu_raw), medianf(cpu_core));
    println!(
        "\nCPU time per call in the client: raw {:.1} µs, mcpdeck Session (current-thread) {:.1} µs: {:.1} µs of overhead",
        cpu_raw * 1e6,
        cpu_core * 1e6,
        (cpu_core - cpu_raw) * 1e6
    );
    if full {
        println!(
            "target: the core (as the CLI runs it) at 70% of the limit or better: {}",
            if core1 / raw >= 0.7 { "met" } else { "NOT met" }
        );
    }
    println!();

    match everything_js() {
        Some(js) => tools_overhead(&js, runs, full),
        None => println!(
            "server-everything is not installed (run scripts/test.sh first); skipped the `mcpdeck tools` figure"
        ),
    }
}

/// The minimal Rust echo server: answers initialize, tools/list and
/// tools/call (echoing the arguments as text) with one line each.
fn echo_server() {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = msg.get("id").cloned() else {
            continue;
        };
        let result = match msg["method"].as_str().unwrap_or("") {
            "initialize" => {
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "echo", "version": "1"}})
            }
            "tools/list" => json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
            "tools/call" => {
                json!({"content": [{"type": "text", "text": msg["params"]["arguments"].to_string()}]})
            }
            _ => {
                let _ = writeln!(
                    out,
                    "{}",
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
                );
                let _ = out.flush();
                continue;
            }
        };
        let _ = writeln!(
            out,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "result": result})
        );
        let _ = out.flush();
    }
}

/// A raw newline-JSON client: blocking writes and reads, no framework.
struct RawClient {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: BufReader<std::process::ChildStdout>,
    line: String,
}

impl RawClient {
    fn start(exe: &Path) -> RawClient {
        let mut child = Command::new(exe)
            .arg("--echo-server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn echo server");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        RawClient {
            child,
            stdin,
            stdout,
            line: String::new(),
        }
    }

    fn round(&mut self, id: usize) {
        let req = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {"n": id}}});
        let mut text = req.to_string();
        text.push('\n');
        let stdin = self.stdin.as_mut().expect("stdin");
        stdin.write_all(text.as_bytes()).expect("write");
        stdin.flush().expect("flush");
        self.line.clear();
        self.stdout.read_line(&mut self.line).expect("read");
        let v: Value = serde_json::from_str(&self.line).expect("json");
        assert_eq!(v["id"], json!(id));
    }

    fn rate(&mut self, base: usize, calls: usize) -> f64 {
        let t = Instant::now();
        for i in 0..calls {
            self.round(base + i);
        }
        calls as f64 / t.elapsed().as_secs_f64()
    }

    fn stop(mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

fn echo_config(exe: &Path) -> ServerConfig {
    let mut c = ServerConfig::stdio("echo", exe.display().to_string(), &["--echo-server"]);
    c.protocol = mcpdeck::config::ProtocolPin::Initialize;
    c
}

async fn connect(exe: &Path) -> Session {
    let settings = Settings::default();
    let spec = session_spec(&echo_config(exe), &settings, None).expect("spec");
    let frames = Arc::new(FrameLog::new(settings.frame_log));
    Session::connect(&spec, frames, Arc::new(|_| {}))
        .await
        .expect("connect")
}

async fn session_rate(session: &Session, base: usize, calls: usize) -> f64 {
    let t = Instant::now();
    for i in 0..calls {
        let r = session
            .call_tool("echo", json!({"n": base + i}))
            .await
            .expect("call");
        assert!(!r.is_error);
    }
    calls as f64 / t.elapsed().as_secs_f64()
}

async fn start_manager(exe: &Path) -> (Manager, mcpdeck::mcp::manager::EventReceiver) {
    let settings = Settings::default();
    let frames = Arc::new(FrameLog::new(settings.frame_log));
    let (m, mut rx) = Manager::start(settings, vec![echo_config(exe)], frames);
    loop {
        if let Some(Event::Status {
            status: ServerStatus::Connected,
            ..
        }) = rx.recv().await
        {
            return (m, rx);
        }
    }
}

async fn manager_rate(
    m: &Manager,
    rx: &mut mcpdeck::mcp::manager::EventReceiver,
    base: u64,
    calls: usize,
) -> f64 {
    let t = Instant::now();
    for tag in base..base + calls as u64 {
        m.send(Cmd::Call {
            tag,
            server: "echo".into(),
            tool: "echo".into(),
            arguments: json!({"n": tag}),
        });
        loop {
            match rx.recv().await {
                Some(Event::CallFinished { tag: t, result, .. }) if t == tag => {
                    assert!(result.is_ok());
                    break;
                }
                Some(_) => {}
                None => panic!("manager stopped"),
            }
        }
    }
    calls as f64 / t.elapsed().as_secs_f64()
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

fn everything_js() -> Option<PathBuf> {
    let nm = std::env::var_os("MCPDECK_TEST_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/deps/node_modules")
        });
    let js = nm.join("@modelcontextprotocol/server-everything/dist/index.js");
    js.exists().then_some(js)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The server's own times, driven by a raw client: spawn to its answer to
/// `initialize`, and (after `initialized` and `tools/list`, as mcpdeck sends
/// them) stdin EOF to its exit.
fn server_own_times(js: &Path) -> (Duration, Duration) {
    let t = Instant::now();
    let mut child = Command::new("node")
        .arg(js)
        .arg("stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn node");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut read_until = |needle: &str| {
        let mut line = String::new();
        loop {
            line.clear();
            if stdout.read_line(&mut line).expect("read") == 0 {
                panic!("server-everything closed stdout");
            }
            if line.contains(needle) {
                return;
            }
        }
    };
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}});
    writeln!(stdin, "{req}").expect("write");
    read_until("\"protocolVersion\"");
    let init = t.elapsed();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .expect("write");
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    )
    .expect("write");
    read_until("\"tools\"");
    drop(stdin);
    let t = Instant::now();
    let _ = child.wait();
    (init, t.elapsed())
}

fn tools_overhead(js: &Path, runs: usize, full: bool) {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mcpdeck"));
    let mut init = Vec::new();
    let mut exit = Vec::new();
    let mut wall = Vec::new();
    for _ in 0..runs {
        let (i, e) = server_own_times(js);
        init.push(i);
        exit.push(e);
        let t = Instant::now();
        let out = Command::new(&bin)
            .args(["tools", "--json", "--"])
            .arg("node")
            .arg(js)
            .arg("stdio")
            .env("MCPDECK_CONFIG", "/dev/null")
            .stderr(Stdio::null())
            .output()
            .expect("run mcpdeck");
        wall.push(t.elapsed());
        assert!(out.status.success(), "mcpdeck tools failed");
    }
    let (i, e, w) = (median(init), median(exit), median(wall));
    let overhead = w.saturating_sub(i).saturating_sub(e);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("`mcpdeck tools` against server-everything (median of {runs})");
    println!(
        "  server's own time, spawn to initialize answer:  {:>7.1} ms",
        ms(i)
    );
    println!(
        "  server's own time, stdin EOF to exit:           {:>7.1} ms",
        ms(e)
    );
    println!(
        "  mcpdeck tools wall time (spawn .. reaped):      {:>7.1} ms",
        ms(w)
    );
    println!(
        "  mcpdeck overhead (wall - the server's own):     {:>7.1} ms",
        ms(overhead)
    );
    let verdict = if overhead < Duration::from_millis(50) {
        "met"
    } else {
        "NOT met"
    };
    if full {
        println!("target: under 50 ms of overhead: {verdict}");
    }
}
