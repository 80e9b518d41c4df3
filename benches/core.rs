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
    let calls = if full { 20_000 } else { 200 };
    let runs = if full { 7 } else { 1 };
    let exe = std::env::current_exe().expect("current exe");
    println!("mcpdeck core benchmark ({calls} sequential tools/call round trips per client)\n");
    let raw = raw_client(&exe, calls);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let core = rt.block_on(session_client(&exe, calls));
    let single = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let core1 = single.block_on(session_client(&exe, calls));
    let managed = rt.block_on(manager_client(&exe, calls));
    println!("{:<36} {:>12} {:>10}", "client", "calls/s", "of limit");
    println!(
        "{:<36} {:>12.0} {:>9.0}%",
        "raw newline-JSON client (limit)", raw, 100.0
    );
    println!(
        "{:<36} {:>12.0} {:>9.0}%",
        "mcpdeck Session::call_tool",
        core,
        core / raw * 100.0
    );
    println!(
        "{:<36} {:>12.0} {:>9.0}%",
        "  same, current-thread runtime",
        core1,
        core1 / raw * 100.0
    );
    println!(
        "{:<36} {:>12.0} {:>9.0}%",
        "mcpdeck Manager (the UI's path)",
        managed,
        managed / raw * 100.0
    );
    println!(
        "target: Session at 70% of the limit or better: {}\n",
        if core / raw >= 0.7 { "met" } else { "NOT met" }
    );

    match everything_js() {
        Some(js) => tools_overhead(&js, runs),
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

fn raw_client(exe: &Path, calls: usize) -> f64 {
    let mut child = Command::new(exe)
        .arg("--echo-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn echo server");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let mut round = |id: usize| {
        let req = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {"n": id}}});
        let mut text = req.to_string();
        text.push('\n');
        stdin.write_all(text.as_bytes()).expect("write");
        stdin.flush().expect("flush");
        line.clear();
        stdout.read_line(&mut line).expect("read");
        let v: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(v["id"], json!(id));
    };
    round(0);
    let t = Instant::now();
    for i in 1..=calls {
        round(i);
    }
    let rate = calls as f64 / t.elapsed().as_secs_f64();
    drop(stdin);
    let _ = child.wait();
    rate
}

fn echo_config(exe: &Path) -> ServerConfig {
    let mut c = ServerConfig::stdio("echo", exe.display().to_string(), &["--echo-server"]);
    c.protocol = mcpdeck::config::ProtocolPin::Initialize;
    c
}

async fn session_client(exe: &Path, calls: usize) -> f64 {
    let settings = Settings::default();
    let spec = session_spec(&echo_config(exe), &settings, None).expect("spec");
    let session = Session::connect(
        &spec,
        Arc::new(FrameLog::new(settings.frame_log)),
        Arc::new(|_| {}),
    )
    .await
    .expect("connect");
    session
        .call_tool("echo", json!({"n": 0}))
        .await
        .expect("call");
    let t = Instant::now();
    for i in 1..=calls {
        let r = session
            .call_tool("echo", json!({"n": i}))
            .await
            .expect("call");
        assert!(!r.is_error);
    }
    let rate = calls as f64 / t.elapsed().as_secs_f64();
    session.close().await;
    rate
}

async fn manager_client(exe: &Path, calls: usize) -> f64 {
    let settings = Settings::default();
    let frames = Arc::new(FrameLog::new(settings.frame_log));
    let (m, mut rx) = Manager::start(settings, vec![echo_config(exe)], frames);
    loop {
        if let Some(Event::Status {
            status: ServerStatus::Connected,
            ..
        }) = rx.recv().await
        {
            break;
        }
    }
    let mut round = async |tag: u64| {
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
    };
    round(0).await;
    let t = Instant::now();
    for i in 1..=calls as u64 {
        round(i).await;
    }
    let rate = calls as f64 / t.elapsed().as_secs_f64();
    m.shutdown().await;
    rate
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

fn tools_overhead(js: &Path, runs: usize) {
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
    println!("target: under 50 ms of overhead: {verdict}");
}
