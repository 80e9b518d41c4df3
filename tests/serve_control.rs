//! `mcpdeck serve`'s control socket: owner-only in the runtime directory,
//! `status` (servers, tools, agent, calls), `watch` (the agent's frames and
//! the servers', calls), `deny` through the socket arriving at the agent as
//! `list_changed`, errors that keep the connection, `mcpdeck serves`
//! (stale sockets removed), a refused directory, and the socket gone when
//! serve exits.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::*;

/// A `[servers.NAME]` table running the built-in demo server.
fn demo(name: &str, extra: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = {bin:?}\nargs = [\"demo-server\", \"--name\", \"{name}\", \"--era\", \"initialize\"]\n{extra}\n",
        bin = mcpdeck_bin().display().to_string()
    )
}

/// Lines of a reader, on a thread, as JSON.
fn json_lines(r: impl std::io::Read + Send + 'static) -> Receiver<Value> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(line) = line else { return };
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("a line that is not JSON ({e}): {line}"));
            if tx.send(v).is_err() {
                return;
            }
        }
    });
    rx
}

/// The next value `want` accepts (others are skipped), or a panic naming
/// `what` and what came.
fn wait_for(rx: &Receiver<Value>, what: &str, want: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + limit(30);
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(v) if want(&v) => return v,
            Ok(v) => seen.push(v),
            Err(RecvTimeoutError::Timeout) => panic!("no {what}; seen: {seen:#?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("closed before {what}; seen: {seen:#?}"),
        }
    }
}

/// `mcpdeck --config CONFIG serve ARGS…` with XDG_RUNTIME_DIR=`runtime`,
/// driven as an agent line by line.
struct Serve {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    stderr: Arc<Mutex<String>>,
    next_id: i64,
}

impl Serve {
    fn start(config: &Path, runtime: &Path, args: &[&str]) -> Serve {
        let mut child = Command::new(mcpdeck_bin())
            .arg("--config")
            .arg(config)
            .arg("serve")
            .args(args)
            .env("XDG_RUNTIME_DIR", runtime)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mcpdeck serve");
        let lines = json_lines(child.stdout.take().expect("stdout"));
        let stderr = Arc::new(Mutex::new(String::new()));
        let err = child.stderr.take().expect("stderr");
        let keep = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let mut s = keep.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        Serve {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            next_id: 0,
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn send(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        )
        .expect("write");
        stdin.flush().expect("flush");
        id
    }

    fn notify(&mut self, method: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "method": method})).expect("write");
        stdin.flush().expect("flush");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        let r = wait_for(&self.lines, &format!("the answer to {method}"), |v| {
            v["id"] == json!(id) && v.get("method").is_none()
        });
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    fn tool_names(&mut self) -> Vec<String> {
        let r = self.request("tools/list", json!({}));
        r["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .collect()
    }

    /// Close stdin; serve exits 0.
    fn finish(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + limit(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "serve exited {status}\n{}", self.stderr());
                return;
            }
            assert!(
                Instant::now() < deadline,
                "serve did not exit after stdin closed\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        drop(self.stdin.take());
        common::reap(&mut self.child, true);
    }
}

/// Wait for serve's socket to appear.
fn socket_of(runtime: &Path, pid: u32) -> PathBuf {
    let path = runtime.join("mcpdeck").join(format!("serve-{pid}.sock"));
    let deadline = Instant::now() + limit(20);
    while !path.exists() {
        assert!(Instant::now() < deadline, "no socket at {}", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
    path
}

/// One connection to the control socket.
struct Control {
    stream: UnixStream,
    lines: Receiver<Value>,
}

impl Control {
    fn connect(path: &Path) -> Control {
        let stream = UnixStream::connect(path).expect("connect to the control socket");
        let lines = json_lines(stream.try_clone().expect("clone"));
        Control { stream, lines }
    }

    fn write(&mut self, line: &str) {
        writeln!(self.stream, "{line}").expect("write to the socket");
    }

    fn ask(&mut self, request: Value) -> Value {
        self.write(&request.to_string());
        self.next(&format!("the answer to {request}"))
    }

    fn next(&self, what: &str) -> Value {
        wait_for(&self.lines, what, |_| true)
    }

    fn status(&mut self) -> Value {
        let a = self.ask(json!({"op": "status"}));
        assert_eq!(a["ok"], true, "{a}");
        a["status"].clone()
    }
}

fn tool_state(status: &Value, server: &str, tool: &str) -> Option<Value> {
    status["servers"]
        .as_array()?
        .iter()
        .find(|s| s["name"] == server)?["tools"]
        .as_array()?
        .iter()
        .find(|t| t["name"] == tool)
        .cloned()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).expect("stat").permissions().mode() & 0o777
}

#[test]
fn status_watch_and_deny_through_the_socket() {
    let dir = tempfile::tempdir().expect("tempdir");
    let runtime = tempfile::tempdir().expect("tempdir");
    let config = write_file(
        dir.path(),
        "config.toml",
        &format!("# the user's own comment\n{}", demo("a", "")),
    );
    let mut serve = Serve::start(&config, runtime.path(), &["a"]);
    let socket = socket_of(runtime.path(), serve.pid());
    assert_eq!(mode(&runtime.path().join("mcpdeck")), 0o700);
    assert_eq!(mode(&socket), 0o600);

    serve.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "test-agent", "version": "1.2"}}),
    );
    serve.notify("notifications/initialized");
    assert!(serve.tool_names().contains(&"echo".to_string()));

    let mut ctl = Control::connect(&socket);
    let status = ctl.status();
    assert_eq!(status["pid"], serve.pid());
    assert_eq!(status["agent"]["clientInfo"]["name"], "test-agent");
    assert_eq!(status["agent"]["era"], "initialize");
    assert_eq!(status["agent"]["version"], "2025-11-25");
    assert_eq!(
        status["config"].as_str(),
        Some(config.to_str().expect("utf-8"))
    );
    let echo = tool_state(&status, "a", "echo").expect("echo in the status");
    assert_eq!(echo["state"], "visible", "{status}");
    assert_eq!(status["servers"][0]["status"], "connected");

    // Bad requests: an error each, and the connection stays.
    let e = ctl.ask(json!({"op": "explode"}));
    assert!(e["error"].as_str().unwrap().contains("unknown op"), "{e}");
    ctl.write("this is not json");
    let e = ctl.next("the answer to a line that is not JSON");
    assert!(e["error"].as_str().unwrap().contains("not JSON"), "{e}");
    let e = ctl.ask(json!({"op": "deny", "server": "a"}));
    assert!(e["error"].as_str().unwrap().contains("\"tool\""), "{e}");
    let e = ctl.ask(json!({"op": "deny", "server": "nope", "tool": "echo"}));
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("no server named \"nope\""),
        "{e}"
    );
    assert_eq!(ctl.status()["pid"], serve.pid());

    // watch: the agent's call, both sides, and its record.
    let watch = Control::connect(&socket);
    let mut w = watch;
    let ok = w.ask(json!({"op": "watch"}));
    assert_eq!(ok["watching"], true, "{ok}");
    let r = serve.request(
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "through the deck"}}),
    );
    assert_eq!(r["isError"], json!(false), "{r}");
    let agent_side = wait_for(&w.lines, "the agent's tools/call frame", |v| {
        v["event"] == "frame"
            && v["side"] == "agent"
            && v["dir"] == "C->S"
            && v["text"].as_str().is_some_and(|t| t.contains("tools/call"))
    });
    assert!(
        agent_side["text"]
            .as_str()
            .unwrap()
            .contains("through the deck")
    );
    wait_for(&w.lines, "the upstream tools/call frame", |v| {
        v["event"] == "frame"
            && v["side"] == "upstream"
            && v["server"] == "a"
            && v["text"].as_str().is_some_and(|t| t.contains("tools/call"))
    });
    wait_for(&w.lines, "the answer to the agent", |v| {
        v["event"] == "frame"
            && v["side"] == "agent"
            && v["dir"] == "S->C"
            && v["text"]
                .as_str()
                .is_some_and(|t| t.contains("through the deck"))
    });
    let call = wait_for(&w.lines, "the call's record, finished", |v| {
        v["event"] == "call" && v["call"]["outcome"] == "ok"
    });
    assert_eq!(call["call"]["tool"], "echo");
    assert_eq!(call["call"]["server"], "a");
    let calls = ctl.status()["calls"].clone();
    assert_eq!(calls[0]["tool"], "echo", "{calls}");

    // deny through the socket: the file is edited (comment kept), the
    // agent is told, the tool is gone.
    let a = ctl.ask(json!({"op": "deny", "server": "a", "tool": "echo"}));
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(a["changed"], true, "{a}");
    let text = std::fs::read_to_string(&config).expect("read config");
    assert!(text.starts_with("# the user's own comment\n"), "{text}");
    assert!(text.contains("deny_tools = [\"echo\"]"), "{text}");
    wait_for(&serve.lines, "notifications/tools/list_changed", |v| {
        v["method"] == "notifications/tools/list_changed"
    });
    let tools = serve.tool_names();
    assert!(!tools.contains(&"echo".to_string()), "{tools:?}");
    assert!(tools.contains(&"add".to_string()), "{tools:?}");
    let status = wait_for(&w.lines, "a status with echo refused", |v| {
        v["event"] == "status"
            && tool_state(&v["status"], "a", "echo").is_some_and(|t| t["state"] == "refused")
    });
    let echo = tool_state(&status["status"], "a", "echo").unwrap();
    assert!(
        echo["rule"].as_str().unwrap().contains("deny_tools"),
        "{echo}"
    );
    // Again: nothing to change, said so.
    let a = ctl.ask(json!({"op": "deny", "server": "a", "tool": "echo"}));
    assert_eq!(a["changed"], false, "{a}");
    let a = ctl.ask(json!({"op": "allow", "server": "a", "tool": "echo"}));
    assert_eq!(a["changed"], true, "{a}");
    wait_for(&serve.lines, "list_changed after allow", |v| {
        v["method"] == "notifications/tools/list_changed"
    });
    assert!(serve.tool_names().contains(&"echo".to_string()));

    // mcpdeck serves finds it.
    let runtime_dir = runtime.path().to_str().expect("utf-8");
    let run = mcpdeck_env(
        &["serves", "--json"],
        &[("XDG_RUNTIME_DIR", runtime_dir)],
        limit(20),
    );
    run.ok();
    let listed: Value = serde_json::from_str(&run.stdout).expect("serves --json is JSON");
    let me = listed["serves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["pid"] == serve.pid())
        .cloned()
        .unwrap_or_else(|| panic!("serve not listed: {listed}"));
    assert_eq!(me["status"]["servers"][0]["name"], "a");
    let run = mcpdeck_env(&["serves"], &[("XDG_RUNTIME_DIR", runtime_dir)], limit(20));
    run.ok();
    assert!(
        run.stdout.contains(&serve.pid().to_string()),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("test-agent 1.2"), "{}", run.stdout);

    drop(w);
    drop(ctl);
    serve.finish();
    assert!(!socket.exists(), "the socket is removed when serve exits");
}

#[test]
fn serves_removes_the_socket_of_a_serve_that_is_gone() {
    let runtime = tempfile::tempdir().expect("tempdir");
    let dir = runtime.path().join("mcpdeck");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    // A pid above pid_max is never a process.
    let max: u32 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(4_194_304);
    let stale = dir.join(format!("serve-{}.sock", max + 1));
    drop(std::os::unix::net::UnixListener::bind(&stale).expect("bind"));
    assert!(stale.exists());
    let run = mcpdeck_env(
        &["serves", "--json"],
        &[("XDG_RUNTIME_DIR", runtime.path().to_str().unwrap())],
        limit(20),
    );
    run.ok();
    let listed: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(listed["serves"], json!([]), "{listed}");
    assert!(!stale.exists(), "the stale socket is removed");
}

#[test]
fn a_directory_writable_by_others_is_refused_and_serve_runs_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let runtime = tempfile::tempdir().expect("tempdir");
    let sockets = runtime.path().join("mcpdeck");
    std::fs::create_dir(&sockets).unwrap();
    std::fs::set_permissions(&sockets, std::fs::Permissions::from_mode(0o777)).unwrap();
    let config = write_file(dir.path(), "config.toml", &demo("a", ""));
    let mut serve = Serve::start(&config, runtime.path(), &["a"]);
    serve.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "t", "version": "0"}}),
    );
    assert!(serve.tool_names().contains(&"echo".to_string()));
    let err = serve.stderr();
    assert_eq!(err.matches("no control socket").count(), 1, "{err}");
    assert!(err.contains("writable by others"), "{err}");
    assert!(
        std::fs::read_dir(&sockets).unwrap().next().is_none(),
        "no socket in a refused directory"
    );
    let run = mcpdeck_env(
        &["serves"],
        &[("XDG_RUNTIME_DIR", runtime.path().to_str().unwrap())],
        limit(20),
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("writable by others"), "{}", run.stderr);
    serve.finish();
}
