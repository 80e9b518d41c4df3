//! `cargo bench --bench core`: figures measured in one run, printed as ratios.
//!
//! 1. Sequential `tools/call` round trips per second through mcpdeck's core
//!    (a `Session`, and the `Manager` the UI uses) against a minimal Rust echo
//!    server over stdio, beside a raw newline-JSON client on the same server
//!    (the limit). Targets: `Session::call_tool` on a current-thread runtime
//!    (the CLI) at 60% of the limit or better, the Manager on the TUI's
//!    runtime (also one thread: src/startup.rs) at 40% or better.
//! 2. Instructions per call in the client, counted by callgrind (the same
//!    count however busy the machine is; `--count CLIENT N` is the mode it
//!    runs).
//! 3. `mcpdeck tools` against server-everything: the time to stdout EOF
//!    beside a raw client's whole run (spawn, initialize, list, signal,
//!    reap), and the overhead beside the server's own time to answer
//!    `initialize` (under 50 ms). mcpdeck runs with the era memory filled
//!    (settings.remember_era: a script's second run on), and again probing
//!    (a first run, or `MCPDECK_ERA_MEMORY=off`), both printed.
//!
//! Profiling: `MCPDECK_BENCH_ONLY=session` (100,000 calls of the Session
//! alone; `session-beside-manager` with an idle Manager on the same
//! runtime; `MCPDECK_BENCH_AFTER_RT=1` after a Session on 2 worker threads;
//! `tools`: section 3 alone).
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
    // `--count CLIENT N`: N calls by one client, nothing printed; run
    // under callgrind by `instructions_per_call`.
    if let Some(i) = args.iter().position(|a| a == "--count") {
        let client = args.get(i + 1).map(String::as_str).unwrap_or("");
        let n: usize = args.get(i + 2).and_then(|n| n.parse().ok()).unwrap_or(0);
        count_calls(client, n);
        return;
    }
    // `cargo bench` passes --bench; under `cargo test` this is a quick smoke run.
    let full = args.iter().any(|a| a == "--bench");
    // Rounds interleave the clients, so drift in the machine's speed
    // (frequent on these virtual machines) hits them all alike.
    let (rounds, calls) = if full { (15, 2_000) } else { (1, 200) };
    let runs = if full { 7 } else { 1 };
    let exe = std::env::current_exe().expect("current exe");
    // Only the `mcpdeck tools` figure (section 3).
    if std::env::var("MCPDECK_BENCH_ONLY").as_deref() == Ok("tools") {
        match everything_js() {
            Some(js) => tools_overhead(&js, runs, full),
            None => println!("server-everything is not installed (run scripts/test.sh first)"),
        }
        return;
    }
    // Sections 1 and 2 on one CPU (the bench, its echo servers, the
    // runtimes): the rates then compare the work each client does, not
    // where the scheduler happened to put the client and the server (on
    // these 2-CPU machines the same binary's Session row ranged from 9% to
    // 75% unpinned). Section 3 runs on every CPU again: node's start is
    // what it measures, and the raw client and mcpdeck alike get the CPUs
    // a user's machine gives them.
    let pinned = if std::env::var("MCPDECK_BENCH_CPUS").as_deref() == Ok("all") {
        None
    } else {
        pin_to_one_cpu()
    };
    match &pinned {
        Some((cpu, _)) => println!(
            "sections 1 and 2 pinned to CPU {cpu} with everything they start (MCPDECK_BENCH_CPUS=all runs them unpinned)\n"
        ),
        None => println!("not pinned: the rates depend on where the scheduler puts each process\n"),
    }
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
    if let Ok(only @ ("session" | "session-beside-manager")) =
        std::env::var("MCPDECK_BENCH_ONLY").as_deref()
    {
        // The other clients of the full run, idle on the same runtime.
        let _idle =
            (only == "session-beside-manager").then(|| single.block_on(start_manager(&exe)));
        if std::env::var_os("MCPDECK_BENCH_AFTER_RT").is_some() {
            let other = rt.block_on(connect(&exe));
            let rate = rt.block_on(session_rate(&other, 0, 20_000));
            println!("Session::call_tool, 2 worker threads first: {rate:.0} calls/s");
        }
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
    // The same Manager recording every frame to a file (`--record`).
    let rec_dir = tempfile::tempdir().expect("temp dir");
    let (manager_rec, mut events_rec) = single.block_on(start_manager_recording(
        &exe,
        &rec_dir.path().join("rec.jsonl"),
    ));
    // A second plain Manager: telemetry is compiled in and off (no
    // endpoint), so this is the "spans off" cost beside the plain one.
    let (manager_off, mut events_off) = single.block_on(start_manager(&exe));
    let mut rates: [Vec<f64>; 7] = Default::default();
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
        rates[5].push(single.block_on(manager_rate(
            &manager_rec,
            &mut events_rec,
            base as u64,
            calls,
        )));
        rates[6].push(single.block_on(manager_rate(
            &manager_off,
            &mut events_off,
            base as u64,
            calls,
        )));
    }
    single.block_on(manager_off.shutdown());
    // Spans on, to a local sink: telemetry is process-wide, so this runs
    // after the interleaved rounds (every session from here has spans).
    let sink = otlp_sink();
    mcpdeck::telemetry::init(&mcpdeck::config::TelemetryConfig {
        otlp_endpoint: Some(sink),
        capture_content: false,
    })
    .expect("telemetry on");
    let (manager_spans, mut events_spans) = single.block_on(start_manager(&exe));
    let mut spans_on = Vec::new();
    for round in 0..rounds {
        spans_on.push(single.block_on(manager_rate(
            &manager_spans,
            &mut events_spans,
            (round * calls) as u64,
            calls,
        )));
    }
    single.block_on(manager_spans.shutdown());
    mcpdeck::telemetry::shutdown();
    let spans_on = medianf(spans_on);
    single.block_on(manager_rec.shutdown());
    rt.block_on(session.close());
    single.block_on(session1.close());
    rt.block_on(manager.shutdown());
    single.block_on(manager1.shutdown());
    raw_client.stop();
    let [raw, core1, managed1, core, managed, recorded1, spans_off1] = rates.map(medianf);
    println!("{:<52} {:>10} {:>9}", "client", "calls/s", "of limit");
    let row = |name: &str, rate: f64| {
        println!("{name:<52} {rate:>10.0} {:>8.0}%", rate / raw * 100.0);
    };
    row("raw newline-JSON client (the limit)", raw);
    row(
        "mcpdeck Session::call_tool, current-thread (the CLI)",
        core1,
    );
    row(
        "mcpdeck Manager, current-thread (the TUI's runtime)",
        managed1,
    );
    row("mcpdeck Session::call_tool, 2 worker threads", core);
    row("mcpdeck Manager, 2 worker threads", managed);
    row("mcpdeck Manager with --record, current-thread", recorded1);
    // Time per call, recorded against plain (current-thread Managers).
    let cost = (managed1 / recorded1 - 1.0) * 100.0;
    println!(
        "  recording: {:.0}% of the plain Manager's rate, {cost:+.1}% time per call (target: recording costs under 10% per call{})",
        recorded1 / managed1 * 100.0,
        if cost < 10.0 { ", met" } else { ", NOT met" }
    );
    row("mcpdeck Manager, spans off, current-thread", spans_off1);
    row(
        "mcpdeck Manager, spans on (local sink), current-thread",
        spans_on,
    );
    println!(
        "  spans off: {:.0}% of the plain Manager's rate ({:+.1}% time per call; the same code: one atomic load per request); spans on: {:.0}% ({:+.1}% time per call, measured after the interleaved rounds)",
        spans_off1 / managed1 * 100.0,
        (managed1 / spans_off1 - 1.0) * 100.0,
        spans_on / managed1 * 100.0,
        (managed1 / spans_on - 1.0) * 100.0,
    );
    let (cpu_raw, cpu_core) = (medianf(cpu_raw), medianf(cpu_core));
    println!(
        "\nCPU time per call in the client: raw {:.1} µs, mcpdeck Session (current-thread) {:.1} µs: {:.1} µs of overhead",
        cpu_raw * 1e6,
        cpu_core * 1e6,
        (cpu_core - cpu_raw) * 1e6
    );
    if full {
        println!(
            "target: Session::call_tool (the CLI) at 60% of the limit or better: {}; the Manager on the TUI's runtime (one thread, src/startup.rs) at 40% or better: {} (on 2 worker threads: {:.0}%)",
            if core1 / raw >= 0.6 { "met" } else { "NOT met" },
            if managed1 / raw >= 0.4 {
                "met"
            } else {
                "NOT met"
            },
            managed / raw * 100.0,
        );
    }
    println!();
    instructions_per_call(&exe, if full { 2_000 } else { 200 }, full);
    println!();
    if let Some((_, all)) = &pinned {
        unpin(all);
    }

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

/// A local OTLP/HTTP sink: answers 200 to every request (keep-alive),
/// reading and dropping the bodies. Its base URL.
fn otlp_sink() -> String {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the sink");
    let port = listener.local_addr().expect("sink address").port();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let Ok(mut out) = conn.try_clone() else {
                    return;
                };
                let mut reader = BufReader::new(conn);
                loop {
                    let mut length = 0usize;
                    loop {
                        let mut line = String::new();
                        match reader.read_line(&mut line) {
                            Ok(0) | Err(_) => return,
                            Ok(_) => {}
                        }
                        let line = line.trim_end();
                        if line.is_empty() {
                            break;
                        }
                        if let Some((k, v)) = line.split_once(':')
                            && k.eq_ignore_ascii_case("content-length")
                        {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err()
                        || out
                            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
                            .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// [`start_manager`] with every frame recorded to `path`, as `--record`
/// does (the process's recorder, a tap on this frame log only).
async fn start_manager_recording(
    exe: &Path,
    path: &Path,
) -> (Manager, mcpdeck::mcp::manager::EventReceiver) {
    let settings = Settings::default();
    let config = echo_config(exe);
    let recorder = mcpdeck::record::Recorder::global();
    recorder.open(path).expect("open the recording");
    recorder.attach(std::slice::from_ref(&config));
    let frames = FrameLog::new(settings.frame_log).with_tap(Box::new(mcpdeck::record::frame_tap));
    let (m, mut rx) = Manager::start(settings, vec![config], Arc::new(frames));
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

/// `--count CLIENT N`: make N calls with one client (after connecting),
/// then stop.
fn count_calls(client: &str, n: usize) {
    let exe = std::env::current_exe().expect("current exe");
    let single = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    match client {
        "raw" => {
            let mut raw = RawClient::start(&exe);
            raw.rate(0, n);
            raw.stop();
        }
        "session" => {
            let session = single.block_on(connect(&exe));
            single.block_on(session_rate(&session, 0, n));
            single.block_on(session.close());
        }
        "manager" => {
            let (manager, mut events) = single.block_on(start_manager(&exe));
            single.block_on(manager_rate(&manager, &mut events, 0, n));
            single.block_on(manager.shutdown());
        }
        "manager-record" => {
            let dir = tempfile::tempdir().expect("temp dir");
            let path = dir.path().join("rec.jsonl");
            let (manager, mut events) = single.block_on(start_manager_recording(&exe, &path));
            single.block_on(manager_rate(&manager, &mut events, 0, n));
            single.block_on(manager.shutdown());
            mcpdeck::startup::flush_writers(Duration::from_secs(5));
        }
        "manager-spans" => {
            let sink = otlp_sink();
            mcpdeck::telemetry::init(&mcpdeck::config::TelemetryConfig {
                otlp_endpoint: Some(sink),
                capture_content: false,
            })
            .expect("telemetry on");
            let (manager, mut events) = single.block_on(start_manager(&exe));
            single.block_on(manager_rate(&manager, &mut events, 0, n));
            single.block_on(manager.shutdown());
            mcpdeck::telemetry::shutdown();
        }
        other => {
            panic!(
                "--count: unknown client {other:?} (raw, session, manager, manager-record or manager-spans)"
            )
        }
    }
}

/// Instructions per call in the client process, counted by callgrind: the
/// same count however busy the machine is. Two runs per client (few and
/// many calls); the difference over the extra calls leaves out start-up,
/// connecting and shutting down. The echo server is not counted (callgrind
/// does not follow children).
fn instructions_per_call(exe: &Path, extra: usize, full: bool) {
    let have = Command::new("valgrind")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !have {
        println!("valgrind is not installed: no instruction counts (apt-get install valgrind)");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let count = |client: &str, n: usize| -> Option<u64> {
        let out = dir.path().join(format!("callgrind.{client}.{n}"));
        let status = Command::new("valgrind")
            .arg("--tool=callgrind")
            .arg(format!("--callgrind-out-file={}", out.display()))
            .arg(exe)
            .args(["--count", client, &n.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .ok()?;
        if !status.success() {
            return None;
        }
        let text = std::fs::read_to_string(&out).ok()?;
        text.lines()
            .find_map(|l| {
                l.strip_prefix("totals:")
                    .or_else(|| l.strip_prefix("summary:"))
            })
            .and_then(|t| t.split_whitespace().next())
            .and_then(|t| t.parse().ok())
    };
    let base = 100;
    let per_call = |client: &str| -> Option<f64> {
        let few = count(client, base)?;
        let many = count(client, base + extra)?;
        Some(many.saturating_sub(few) as f64 / extra as f64)
    };
    println!("instructions per call in the client (valgrind --tool=callgrind, {extra} calls):");
    // The smoke run (a test build, under the test command) counts one
    // client, the one that runs the most code, to show the path works: each
    // callgrind run of a debug build takes seconds, and its figures mean
    // nothing there.
    let raw = if full { per_call("raw") } else { None };
    for (client, name) in [
        ("raw", "raw newline-JSON client"),
        ("session", "mcpdeck Session::call_tool, current-thread"),
        ("manager", "mcpdeck Manager, current-thread"),
        (
            "manager-record",
            "mcpdeck Manager with --record (all threads)",
        ),
        ("manager-spans", "mcpdeck Manager, spans on (all threads)"),
    ] {
        if !full && client != "manager-spans" {
            continue;
        }
        let n = if client == "raw" {
            raw
        } else {
            per_call(client)
        };
        match (n, raw) {
            (Some(n), Some(r)) => println!("  {name:<46} {n:>9.0}  {:>5.2}x raw", n / r),
            (Some(n), None) => println!("  {name:<46} {n:>9.0}"),
            (None, _) => println!("  {name:<46} (callgrind failed)"),
        }
    }
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

/// server-everything on stdio, driven by a raw blocking client: spawned,
/// then `initialize`, `notifications/initialized` and `tools/list` (as
/// mcpdeck sends them). Returns the child, its stdin (still open) and the
/// time from spawn to the `initialize` answer.
fn everything_listed(
    js: &Path,
    t: Instant,
) -> (std::process::Child, std::process::ChildStdin, Duration) {
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
    for note in [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ] {
        writeln!(stdin, "{note}").expect("write");
    }
    read_until("\"tools\"");
    (child, stdin, init)
}

/// The server's own times, driven by a raw client: spawn to its answer to
/// `initialize`, and (after `initialized` and `tools/list`) stdin EOF to
/// its exit.
fn server_own_times(js: &Path) -> (Duration, Duration) {
    let (mut child, stdin, init) = everything_listed(js, Instant::now());
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
    let mut eof = Vec::new();
    let mut eof_probing = Vec::new();
    let mut raw = Vec::new();
    // The era memory (settings.remember_era) in a file of the bench's own,
    // filled by a first run: a script running `mcpdeck tools` again and
    // again is in this state from its second run on.
    let dir = tempfile::tempdir().expect("temp dir");
    let memory = dir.path().join("eras.json");
    mcpdeck_tools_run(&bin, js, &memory);
    assert!(
        memory.exists(),
        "the first run remembered server-everything's era"
    );
    let off = PathBuf::from("off");
    for _ in 0..runs {
        let (i, e) = server_own_times(js);
        init.push(i);
        exit.push(e);
        raw.push(raw_client_run(js));
        let (to_eof, to_exit) = mcpdeck_tools_run(&bin, js, &memory);
        eof.push(to_eof);
        wall.push(to_exit);
        eof_probing.push(mcpdeck_tools_run(&bin, js, &off).0);
    }
    let (i, e, w) = (median(init), median(exit), median(wall));
    let (eof, raw) = (median(eof), median(raw));
    let eof_probing = median(eof_probing);
    // mcpdeck's answer is out at stdout EOF; what follows (the polite
    // stop: oneshot_grace, then SIGTERM) no longer delays a reader, so the
    // overhead is counted to the EOF.
    let overhead = eof.saturating_sub(i);
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
        "  mcpdeck tools wall time (spawn .. reaped):      {:>7.1} ms  (stdout closed at {:.1} ms, then the servers stopped)",
        ms(w),
        ms(eof)
    );
    println!(
        "  mcpdeck overhead (stdout EOF - the server's spawn to initialize): {:>7.1} ms",
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
    println!(
        "  raw client's whole run (spawn, initialize, list, SIGTERM, reap): {:>7.1} ms",
        ms(raw)
    );
    println!(
        "  mcpdeck tools --json, spawn to stdout EOF:                        {:>7.1} ms  ({:.2}x the raw client)",
        ms(eof),
        eof.as_secs_f64() / raw.as_secs_f64().max(1e-9)
    );
    println!(
        "  the same, probing the era (first run, or MCPDECK_ERA_MEMORY=off):  {:>7.1} ms  ({:.2}x the raw client)",
        ms(eof_probing),
        eof_probing.as_secs_f64() / raw.as_secs_f64().max(1e-9)
    );
    if full {
        println!(
            "target: stdout EOF no later than the raw client's whole run: {}",
            if eof <= raw { "met" } else { "NOT met" }
        );
    }
}

/// A raw client's whole run against server-everything, written here with
/// std::process alone: spawn, `initialize`, `notifications/initialized`,
/// `tools/list`, then SIGTERM as soon as the answer is read, and reap.
fn raw_client_run(js: &Path) -> Duration {
    let t = Instant::now();
    let (mut child, stdin, _) = everything_listed(js, t);
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: a signal to our own child, not yet reaped.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
    }
    let _ = child.wait();
    drop(stdin);
    t.elapsed()
}

/// `mcpdeck tools --json -- node server-everything stdio` with stdout a
/// pipe and the era memory in `memory` (or `off`): spawn to stdout EOF,
/// and spawn to exit.
fn mcpdeck_tools_run(bin: &Path, js: &Path, memory: &Path) -> (Duration, Duration) {
    use std::io::Read;
    let t = Instant::now();
    let mut child = Command::new(bin)
        .args(["tools", "--json", "--"])
        .arg("node")
        .arg(js)
        .arg("stdio")
        .env("MCPDECK_CONFIG", "/dev/null")
        .env("MCPDECK_ERA_MEMORY", memory)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run mcpdeck");
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("read mcpdeck's stdout");
    let to_eof = t.elapsed();
    let status = child.wait().expect("wait for mcpdeck");
    let to_exit = t.elapsed();
    assert!(status.success(), "mcpdeck tools failed");
    let v: Value = serde_json::from_slice(&out).expect("mcpdeck tools --json printed JSON");
    assert!(v["tools"].is_array(), "no tools in {v}");
    (to_eof, to_exit)
}

/// Pin this thread (and so the threads and processes it starts from now
/// on) to the first CPU it may run on: that CPU and the CPUs it had, or
/// `None` when it cannot be done.
fn pin_to_one_cpu() -> Option<(usize, libc::cpu_set_t)> {
    // SAFETY: the sets are plain bitmasks owned here, and their size is passed.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        let cpu = (0..libc::CPU_SETSIZE as usize).find(|&c| libc::CPU_ISSET(c, &set))?;
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut one);
        (libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one) == 0)
            .then_some((cpu, set))
    }
}

/// Give this thread back the CPUs `all` (what it starts from now on runs
/// anywhere again).
fn unpin(all: &libc::cpu_set_t) {
    // SAFETY: `all` is a bitmask from sched_getaffinity, its size passed.
    unsafe {
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), all);
    }
}
