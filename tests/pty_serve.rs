//! The TUI attached to a running `mcpdeck serve`, in a real pseudo-terminal:
//! the list of running serves names it and its agent; Enter attaches; the
//! agent's call shows in the calls and, tagged, in the protocol log; `d`
//! denies a tool through serve's control socket, and serve's agent gets
//! `list_changed` and no longer sees the tool; serve exiting is said.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use common::pty::Tui;
use common::{limit, mcpdeck_bin, write_file};
use serde_json::{Value, json};

/// `mcpdeck serve a`, driven by the test as its agent.
struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    next_id: i64,
}

impl Agent {
    fn start(config: &Path, runtime: &Path) -> Agent {
        let mut child = Command::new(mcpdeck_bin())
            .arg("--config")
            .arg(config)
            .args(["serve", "a"])
            .env("XDG_RUNTIME_DIR", runtime)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcpdeck serve");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let Ok(v) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Agent {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 0,
        }
    }

    fn write(&mut self, v: Value) {
        let stdin = self.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{v}").expect("write");
        stdin.flush().expect("flush");
    }

    fn wait(&self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + limit(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) if want(&v) => return v,
                Ok(_) => {}
                Err(e) => panic!("no {what} from serve: {e}"),
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.write(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let r = self.wait(&format!("the answer to {method}"), |v| {
            v["id"] == json!(id) && v.get("method").is_none()
        });
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    fn tool_names(&mut self) -> Vec<String> {
        self.request("tools/list", json!({}))["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .collect()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        drop(self.stdin.take());
        // Its input closed, serve stops by itself.
        common::reap(&mut self.child, false);
    }
}

fn socket_of(runtime: &Path, pid: u32) -> PathBuf {
    let path = runtime.join("mcpdeck").join(format!("serve-{pid}.sock"));
    let deadline = Instant::now() + limit(20);
    while !path.exists() {
        assert!(Instant::now() < deadline, "no socket at {}", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
    path
}

#[test]
fn the_tui_lists_attaches_watches_and_denies_through_serve() {
    let dir = tempfile::tempdir().expect("tempdir");
    let runtime = tempfile::tempdir().expect("tempdir");
    let config = write_file(
        dir.path(),
        "config.toml",
        &format!(
            "[servers.a]\ncommand = {bin:?}\nargs = [\"demo-server\", \"--name\", \"a\", \"--era\", \"initialize\"]\n",
            bin = mcpdeck_bin().display().to_string()
        ),
    );
    let mut agent = Agent::start(&config, runtime.path());
    let pid = agent.child.id();
    socket_of(runtime.path(), pid);
    agent.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "pty-agent", "version": "9"}}),
    );
    agent.write(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert!(agent.tool_names().contains(&"echo".to_string()));

    let runtime_dir = runtime.path().to_str().expect("utf-8");
    let config_path = config.to_str().expect("utf-8");
    let mut tui = Tui::spawn(
        &["--config", config_path],
        Some(dir.path()),
        &[
            ("XDG_RUNTIME_DIR", runtime_dir),
            (
                "MCPDECK_PINS",
                dir.path().join("pins.json").to_str().unwrap(),
            ),
        ],
    );
    tui.wait_for("Tools · a", 20);

    // The list names the serve and its agent.
    tui.keys("w");
    let screen = tui.wait_for("pty-agent 9", 20);
    assert!(screen.contains(&pid.to_string()), "{screen}");
    assert!(screen.contains("Running serves (1)"), "{screen}");

    // Attached: its servers and tools; the agent's call comes live.
    tui.keys("\r");
    let screen = tui.wait_for("Calls through serve", 20);
    assert!(screen.contains(&format!("serve {pid}")), "{screen}");
    tui.wait_for("● echo", 20);
    let r = agent.request(
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "seen from the deck"}}),
    );
    assert_eq!(r["isError"], json!(false), "{r}");
    tui.wait_for("a/echo", 20);

    // Its frames, tagged, in the protocol log; Esc comes back.
    tui.keys("L");
    let screen = tui.wait_for(&format!("serve {pid}›agent C->S tools/call"), 20);
    assert!(
        screen.contains(&format!("serve {pid}›a C->S tools/call")),
        "{screen}"
    );
    tui.keys("\x1b");
    tui.wait_for("Calls through serve", 20);

    // d on the first tool (echo) denies it through serve.
    tui.keys("\t");
    tui.keys("d");
    tui.wait_for("refused: deny_tools", 20);
    agent.wait("notifications/tools/list_changed", |v| {
        v["method"] == "notifications/tools/list_changed"
    });
    let tools = agent.tool_names();
    assert!(!tools.contains(&"echo".to_string()), "{tools:?}");
    let text = std::fs::read_to_string(&config).expect("read config");
    assert!(text.contains("deny_tools = [\"echo\"]"), "{text}");

    // serve exits (its agent closed stdin): the view says so.
    drop(agent.stdin.take());
    tui.wait_for("exited", 20);
    tui.keys("\x1b");
    tui.wait_for("Tools · a", 20);
    tui.quit();
}
