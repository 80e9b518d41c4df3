//! `cargo bench --bench tui`: the TUI's figures, measured in one run.
//!
//! - frame render time with 10 000 tools and a filter active;
//! - frame render time while scrolling a 10 MB text result (and the time
//!   to prepare it when it arrives), and a search in it (each keystroke
//!   with its frame, and the next match);
//! - mcpdeck's CPU time over 10 s idle with 3 connected servers;
//! - mcpdeck's resident memory with 4 real servers connected, and its peak
//!   while showing a 20 MB result;
//! - launch until 4 real stdio servers show connected, beside the slowest
//!   server's own time to answer.

#[path = "../tests/common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use mcpdeck::config::ServerConfig;
use mcpdeck::mcp::manager::Event;
use mcpdeck::mcp::session::Lists;
use mcpdeck::mcp::types::{CallResult, Tool};
use mcpdeck::tui::app::{InFlight, Msg, State, update};
use mcpdeck::tui::keymap::Keymap;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;

fn key(c: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new_with_kind(
        c,
        KeyModifiers::NONE,
        KeyEventKind::Press,
    ))
}

/// A call of the bench's tool, running.
fn call_of(tag: u64) -> InFlight {
    InFlight {
        tag,
        server: "many".into(),
        tool: "tool_00001".into(),
        request_id: None,
        progress: None,
        task: None,
        args: "{}".into(),
        started: None,
    }
}

/// That call, finished with `result`.
fn finished(tag: u64, result: CallResult) -> Msg {
    Msg::Manager(Event::CallFinished {
        tag,
        server: "many".into(),
        tool: "tool_00001".into(),
        result: Ok(result),
        elapsed: Duration::ZERO,
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let frames = if full { 300 } else { 5 };
    println!(
        "mcpdeck TUI benchmark{}\n",
        if full {
            ""
        } else {
            ": SMOKE RUN (test build), figures mean nothing"
        }
    );
    render_figures(frames);
    if full {
        process_figures();
    }
}

fn render_figures(frames: usize) {
    let mut term = Terminal::new(TestBackend::new(200, 60)).expect("terminal");
    let configs = [ServerConfig::stdio("many", "x", &[])];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut fx = Vec::new();
    // As the TUI does at start (src/tui/run.rs): the state's layout is the
    // terminal's. Without it the update's scroll bounds and the frame
    // disagree on the result pane's width, and every frame wraps the whole
    // result twice.
    update(&mut s, Msg::Resize(200, 60), &mut fx);
    let tools: Vec<Tool> = (0..10_000)
        .map(|i| {
            let raw = json!({"name": format!("tool_{i:05}"), "description": format!("Tool number {i}, which does thing {i}."),
                "inputSchema": {"type": "object", "properties": {"value": {"type": "string"}}}});
            Tool::parse(&raw, &mut Vec::new()).expect("tool")
        })
        .collect();
    update(
        &mut s,
        Msg::Manager(Event::Lists {
            server: "many".into(),
            lists: Arc::new(Lists {
                tools,
                ..Lists::default()
            }),
        }),
        &mut fx,
    );
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Char('/')), &mut fx);
    let t = Instant::now();
    for c in "tool_01".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    let per_key = t.elapsed() / 7;
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let t = Instant::now();
    for i in 0..frames {
        update(
            &mut s,
            key(if i % 2 == 0 {
                KeyCode::Down
            } else {
                KeyCode::Up
            }),
            &mut fx,
        );
        term.draw(|f| mcpdeck::tui::ui::render(&s, f))
            .expect("draw");
    }
    let per_frame = t.elapsed() / frames as u32;
    println!(
        "10 000 tools, filter \"tool_01\" ({} shown), 200×60:",
        s.visible.len()
    );
    println!(
        "  filter keystroke: {:.2} ms   frame: {:.2} ms   (target under 5 ms a frame)",
        ms(per_key),
        ms(per_frame)
    );

    // A 10 MB text result.
    let line = "x".repeat(79);
    let text: String = (0..(10 * 1024 * 1024 / 80))
        .map(|i| format!("{i:08} {}\n", &line[..70]))
        .collect();
    let bytes = text.len();
    s.track(call_of(1));
    let mut findings = Vec::new();
    let result = CallResult::parse(
        json!({"content": [{"type": "text", "text": text}]}),
        &mut findings,
    );
    let t = Instant::now();
    update(&mut s, finished(1, result), &mut fx);
    term.draw(|f| mcpdeck::tui::ui::render(&s, f))
        .expect("draw");
    let appear = t.elapsed();
    let t = Instant::now();
    for _ in 0..frames {
        update(&mut s, key(KeyCode::Down), &mut fx);
        term.draw(|f| mcpdeck::tui::ui::render(&s, f))
            .expect("draw");
    }
    let per_frame = t.elapsed() / frames as u32;
    println!("a {:.1} MB text result:", bytes as f64 / 1048576.0);
    println!(
        "  on screen after: {:.0} ms   scrolling frame: {:.2} ms   (targets: within 1 s; under 5 ms)",
        ms(appear),
        ms(per_frame)
    );

    // A search in it: each keystroke searches the whole result again and
    // draws the frame with the match in view.
    let mut search = |query: &str, s: &mut State, fx: &mut Vec<_>| -> (Duration, usize) {
        // (`/` again starts a new search.)
        update(s, key(KeyCode::Char('/')), fx);
        let mut worst = Duration::ZERO;
        for c in query.chars() {
            let t = Instant::now();
            update(s, key(KeyCode::Char(c)), fx);
            term.draw(|f| mcpdeck::tui::ui::render(s, f)).expect("draw");
            worst = worst.max(t.elapsed());
        }
        update(s, key(KeyCode::Enter), fx);
        (worst, s.result_search.hits.len())
    };
    assert_eq!(s.focus, mcpdeck::tui::app::Pane::Result);
    // (A letter in it: the search folds case, as a person's would.)
    let rare = format!("{:08} x", 10 * 1024 * 1024 / 80 - 7);
    let (rare_worst, rare_hits) = search(&rare, &mut s, &mut fx);
    let (common_worst, common_hits) = search("xxxxx", &mut s, &mut fx);
    let t = Instant::now();
    for _ in 0..frames {
        update(&mut s, key(KeyCode::Char('n')), &mut fx);
        term.draw(|f| mcpdeck::tui::ui::render(&s, f))
            .expect("draw");
    }
    let per_next = t.elapsed() / frames as u32;
    println!(
        "  search keystroke, frame drawn: {:.1} ms for a rare word ({rare_hits} match), {:.1} ms for a common one ({common_hits} matches kept)   next match: {:.2} ms   (target: within a frame, 16 ms)",
        ms(rare_worst),
        ms(common_worst),
        ms(per_next)
    );

    // A JSON result of 10,202 nodes that fold (3,400 objects, each with
    // an array and an object inside, in an array): fold everything below
    // the top level, unfold it all, and fold the node at the cursor, each
    // with its frame drawn.
    let items: Vec<serde_json::Value> = (0..3400)
        .map(
            |i| json!({"id": i, "name": format!("item {i}"), "tags": ["a", "b"], "meta": {"n": i}}),
        )
        .collect();
    let doc = json!({ "items": items });
    s.track(call_of(2));
    let result = CallResult::parse(
        json!({"content": [{"type": "text", "text": doc.to_string()}]}),
        &mut findings,
    );
    update(&mut s, finished(2, result), &mut fx);
    let nodes = s.outcome.as_ref().map_or(0, |o| o.lines.folds().len());
    let mut timed = |k: KeyCode, s: &mut State, fx: &mut Vec<_>| -> Duration {
        let mut worst = Duration::ZERO;
        for _ in 0..5 {
            let t = Instant::now();
            update(s, key(k), fx);
            term.draw(|f| mcpdeck::tui::ui::render(s, f)).expect("draw");
            worst = worst.max(t.elapsed());
            // Back, for the next round (not timed).
            let undo = match k {
                KeyCode::Char('C') | KeyCode::Left => KeyCode::Char('E'),
                _ => KeyCode::Char('C'),
            };
            update(s, key(undo), fx);
        }
        worst
    };
    let fold_all = timed(KeyCode::Char('C'), &mut s, &mut fx);
    update(&mut s, key(KeyCode::Char('C')), &mut fx);
    let unfold_all = timed(KeyCode::Char('E'), &mut s, &mut fx);
    update(&mut s, key(KeyCode::Char('E')), &mut fx);
    for _ in 0..3 {
        update(&mut s, key(KeyCode::Down), &mut fx);
    }
    let fold_one = timed(KeyCode::Left, &mut s, &mut fx);
    println!(
        "a JSON result of {nodes} nodes that fold: fold all (C) {:.1} ms   unfold all (E) {:.1} ms   fold one (←) {:.1} ms, frame drawn   (target: within a frame, 16 ms)",
        ms(fold_all),
        ms(unfold_all),
        ms(fold_one)
    );
}

/// CPU time (ns) of every thread of a process, from schedstat.
fn cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| {
            s.split_whitespace()
                .next()
                .and_then(|n| n.parse::<u64>().ok())
        })
        .sum()
}

fn status_kb(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

fn config(dir: &std::path::Path, servers: &[(&str, Vec<String>)]) -> String {
    let mut text = String::new();
    for (name, cmd) in servers {
        let args: Vec<String> = cmd[1..].iter().map(|a| format!("{a:?}")).collect();
        text.push_str(&format!(
            "[servers.{name}]\ncommand = {:?}\nargs = [{}]\n\n",
            cmd[0],
            args.join(", ")
        ));
    }
    let path = dir.join("config.toml");
    std::fs::write(&path, text).expect("write config");
    path.display().to_string()
}

fn real_servers() -> Option<Vec<(&'static str, Vec<String>)>> {
    let nm = std::env::var_os("MCPDECK_TEST_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo().join("tests/deps/node_modules"));
    let js = nm.join("@modelcontextprotocol/server-everything/dist/index.js");
    let v1 = common::repo().join(".deps/venv-v1/bin/python");
    let v2 = common::repo().join(".deps/venv-v2/bin/python");
    // The server's build does not change mcpdeck's figures: the optimized
    // one when it is there, else the test command's.
    let rmcp = std::env::var_os("MCPDECK_TEST_RMCP_SERVER")
        .map(PathBuf::from)
        .into_iter()
        .chain(["release", "debug"].map(|p| {
            common::repo().join(format!(
                "tests/servers/rmcp-server/target/{p}/rmcp-test-server"
            ))
        }))
        .find(|p| p.exists())
        .unwrap_or_default();
    if !(js.exists() && v1.exists() && v2.exists() && rmcp.exists()) {
        return None;
    }
    let script = |n: &str| {
        common::repo()
            .join("tests/servers")
            .join(n)
            .display()
            .to_string()
    };
    Some(vec![
        (
            "everything",
            vec!["node".into(), js.display().to_string(), "stdio".into()],
        ),
        (
            "pyv1",
            vec![v1.display().to_string(), script("py_v1_server.py")],
        ),
        (
            "pyv2",
            vec![v2.display().to_string(), script("py_v2_server.py")],
        ),
        ("rmcp", vec![rmcp.display().to_string()]),
    ])
}

/// A server's own time from spawn to its answer to `initialize`.
fn own_time(cmd: &[String]) -> Duration {
    let t = Instant::now();
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}});
    writeln!(stdin, "{req}").expect("write");
    let mut line = String::new();
    while out.read_line(&mut line).unwrap_or(0) > 0
        && !line.contains("\"id\":1")
        && !line.contains("\"id\": 1")
    {
        line.clear();
    }
    let d = t.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    d
}

fn process_figures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = common::mcpdeck_bin().display().to_string();
    // Idle CPU with 3 connected demo servers.
    let demo = |n: &'static str| {
        (
            n,
            vec![exe.clone(), "demo-server".into(), "--name".into(), n.into()],
        )
    };
    let cfg = config(dir.path(), &[demo("one"), demo("two"), demo("three")]);
    let t = common::pty::Tui::start(&cfg);
    t.wait_for("three 2026-07-28", 30);
    let pid = t.pid().expect("pid");
    std::thread::sleep(Duration::from_secs(1));
    let before = cpu_ns(pid);
    std::thread::sleep(Duration::from_secs(10));
    let idle = cpu_ns(pid) - before;
    println!(
        "idle for 10 s with 3 connected servers: {:.2} ms of CPU (target under 20 ms; {:.0} ms in all since launch)",
        idle as f64 / 1e6,
        cpu_ns(pid) as f64 / 1e6
    );
    t.quit();

    let Some(servers) = real_servers() else {
        println!(
            "the real test servers are not installed (run scripts/test.sh): memory and launch figures skipped"
        );
        return;
    };
    let cfg = config(dir.path(), &servers);
    // `$MCPDECK_BENCH_BIN`: a release build to measure (the binary users
    // run: its link lays out the code that runs at start together, with
    // names from the release profile: build.rs). `cargo bench` writes its
    // own build to target/release, so copy the release one elsewhere
    // first. Else this bench's own build, whose names differ.
    let bin = std::env::var_os("MCPDECK_BENCH_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(common::mcpdeck_bin);
    let started = Instant::now();
    let t = common::pty::Tui::spawn_bin(&bin, &["--config", &cfg], None, &[]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while t.screen().matches('●').count() < 4 {
        assert!(
            Instant::now() < deadline,
            "the servers did not connect:\n{}",
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let launch = started.elapsed();
    let pid = t.pid().expect("pid");
    std::thread::sleep(Duration::from_millis(500));
    let rss = status_kb(pid, "VmRSS:");
    let anon = status_kb(pid, "RssAnon:");
    let file = status_kb(pid, "RssFile:");
    t.quit();
    // The servers' own times, all started at once as mcpdeck starts them
    // (on two cores they slow each other down).
    let handles: Vec<_> = servers
        .iter()
        .map(|(_, c)| {
            let c = c.clone();
            std::thread::spawn(move || own_time(&c))
        })
        .collect();
    let slowest = handles
        .into_iter()
        .filter_map(|h| h.join().ok())
        .max()
        .unwrap_or_default();
    println!(
        "4 real servers (server-everything, Python SDK 1.30 and 2.3, rmcp), binary {}:",
        bin.display()
    );
    let mb = |kb: u64| kb as f64 / 1024.0;
    println!(
        "  mcpdeck resident: {:.1} MB (target under 10 MB): private (RssAnon) {:.1} MB, mapped from the binary and libraries (RssFile) {:.1} MB",
        mb(rss),
        mb(anon),
        mb(file)
    );
    println!(
        "  launch until all show connected: {:.0} ms; the slowest server's own time to answer (all started at once): {:.0} ms; difference {:.0} ms (target within 50 ms)",
        ms(launch),
        ms(slowest),
        ms(launch.saturating_sub(slowest))
    );

    // Peak memory while showing a 20 MB result.
    let py = common::repo()
        .join(".deps/venv-v1/bin/python")
        .display()
        .to_string();
    let cfg = config(
        dir.path(),
        &[(
            "big",
            vec![
                py,
                common::repo()
                    .join("tests/servers/hostile.py")
                    .display()
                    .to_string(),
                "--mode".into(),
                "big-line".into(),
            ],
        )],
    );
    let mut t = common::pty::Tui::start(&cfg);
    t.wait_for("big 2025-11-25", 30);
    t.keys("\t");
    t.keys("\x1b[B");
    t.keys("\r");
    t.wait_for("Arguments · big", 10);
    t.keys("\x13");
    t.wait_for("Result · big on big", 30);
    let pid = t.pid().expect("pid");
    println!(
        "  peak resident while showing a 20 MB result: {:.1} MB (target under 100 MB for 10 MB)",
        status_kb(pid, "VmHWM:") as f64 / 1024.0
    );
    t.quit();
}
