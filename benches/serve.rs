//! `cargo bench --bench serve`: what `mcpdeck serve` costs an agent,
//! measured in one run.
//!
//! 1. Per-call latency: a raw newline-JSON client calling `echo` on the
//!    demo server (`mcpdeck demo-server`) directly, and the same client
//!    calling it through `mcpdeck serve demo`, in interleaved rounds of
//!    sequential calls (so drift in the machine's speed hits both alike);
//!    medians of the rounds. Target: serve adds at most 0.2 ms per call.
//! 2. Memory: `mcpdeck serve --all` in front of 10 demo servers, once the
//!    agent has listed their tools: the serve process's own resident set
//!    (VmRSS) and its peak (VmHWM), from /proc. Target: under 30 MB.
//!
//! Under `cargo test` (no `--bench`) this is a quick smoke run whose
//! figures mean nothing.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (rounds, calls) = if full { (10, 2_000) } else { (1, 50) };
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mcpdeck"));
    let dir = tempfile::tempdir().expect("temp dir");
    if full {
        println!(
            "mcpdeck serve benchmark: sequential tools/call round trips, {rounds} interleaved rounds of {calls} per client, median\n"
        );
    } else {
        println!(
            "mcpdeck serve benchmark: SMOKE RUN ({calls} calls, test build); the figures mean nothing, run `cargo bench --bench serve`\n"
        );
    }

    let one = write_config(dir.path(), "one.toml", &bin, 1);
    let mut direct = Vec::new();
    let mut served = Vec::new();
    for _ in 0..rounds {
        let mut d = Agent::start(demo_server(&bin, "demo0"));
        direct.push(d.per_call(calls));
        d.stop();
        let mut s = Agent::start(serve(&bin, &one, &["demo0"]));
        served.push(s.per_call(calls));
        s.stop();
    }
    let (direct, served) = (median(direct), median(served));
    let added = served.saturating_sub(direct);
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "  raw client -> demo server (direct)            {:>8.1} µs/call",
        us(direct)
    );
    println!(
        "  raw client -> mcpdeck serve -> demo server    {:>8.1} µs/call",
        us(served)
    );
    println!(
        "  serve adds                                    {:>8.1} µs/call",
        us(added)
    );
    if full {
        println!(
            "target: serve adds at most 200 µs per call: {}",
            if added <= Duration::from_micros(200) {
                "met"
            } else {
                "NOT met"
            }
        );
    }
    println!();

    let ten = write_config(dir.path(), "ten.toml", &bin, 10);
    let mut agent = Agent::start(serve(&bin, &ten, &["--all"]));
    let tools = agent.tools();
    let (rss, peak) = memory_kb(agent.child.id());
    agent.stop();
    println!("`mcpdeck serve --all` in front of 10 demo servers ({tools} tools listed):");
    println!(
        "  serve's resident memory {:>6.1} MB, peak {:>6.1} MB",
        rss as f64 / 1024.0,
        peak as f64 / 1024.0
    );
    assert!(
        tools >= 10,
        "serve listed {tools} tools from 10 demo servers"
    );
    if full {
        println!(
            "target: under 30 MB: {}",
            if peak < 30 * 1024 { "met" } else { "NOT met" }
        );
    }
}

/// A config with `n` demo servers, `demo0`…
fn write_config(dir: &Path, name: &str, bin: &Path, n: usize) -> PathBuf {
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!(
            "[servers.demo{i}]\ncommand = {:?}\nargs = [\"demo-server\", \"--name\", \"demo{i}\"]\n\n",
            bin.display().to_string()
        ));
    }
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the config");
    path
}

fn demo_server(bin: &Path, name: &str) -> Command {
    let mut cmd = Command::new(bin);
    cmd.args(["demo-server", "--name", name]);
    cmd
}

fn serve(bin: &Path, config: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin);
    cmd.arg("--config")
        .arg(config)
        .arg("serve")
        .args(args)
        .env("MCPDECK_ERA_MEMORY", "off");
    cmd
}

/// A raw newline-JSON MCP client (initialize era) on a child's stdio.
struct Agent {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Agent {
    fn start(mut cmd: Command) -> Agent {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the server");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut agent = Agent {
            child,
            stdin,
            stdout,
            next: 0,
        };
        agent.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}}),
        );
        agent.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        agent
    }

    fn send(&mut self, v: &Value) {
        let mut line = v.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).expect("write");
        self.stdin.flush().expect("flush");
    }

    /// Send a request and read lines until its answer.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.stdout.read_line(&mut line).expect("read");
            assert!(
                n > 0,
                "the server closed its output before answering {method}"
            );
            let v: Value = serde_json::from_str(&line).expect("a JSON line");
            if v["id"] == json!(id) {
                assert!(v.get("error").is_none(), "{method} failed: {v}");
                return v["result"].clone();
            }
        }
    }

    /// How many tools the server lists (all pages).
    fn tools(&mut self) -> usize {
        let mut count = 0;
        let mut cursor: Option<Value> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let r = self.request("tools/list", params);
            count += r["tools"].as_array().map_or(0, Vec::len);
            match r.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = Some(c.clone()),
                _ => return count,
            }
        }
    }

    /// The time per sequential `echo` call, over `calls` calls.
    fn per_call(&mut self, calls: usize) -> Duration {
        assert!(self.tools() > 0, "no tools listed");
        // Warm up.
        for _ in 0..(calls / 10).max(1) {
            self.echo();
        }
        let t = Instant::now();
        for _ in 0..calls {
            self.echo();
        }
        t.elapsed() / calls.max(1) as u32
    }

    fn echo(&mut self) {
        let r = self.request(
            "tools/call",
            json!({"name": "echo", "arguments": {"message": "hello"}}),
        );
        assert!(r["content"].is_array(), "echo answered {r}");
    }

    /// Close stdin and reap (SIGKILL after a moment).
    fn stop(self) {
        let Agent {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// VmRSS and VmHWM of `pid`, in kB.
fn memory_kb(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}
