//! `mcpdeck serve`: a raw newline-JSON client and the official Python SDK
//! clients through serve, in both eras, in front of one server (its own
//! names) or several (SERVER__NAME, mcpdeck://SERVER/URI); the policy with
//! globs and allow lists, changed live; progress, cancellation and the
//! servers' own requests forwarded; an upstream crash.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::*;

/// A `[servers.NAME]` table running the built-in demo server.
fn demo(name: &str, era: &str, extra: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = {bin:?}\nargs = [\"demo-server\", \"--name\", \"{name}\", \"--era\", \"{era}\"]\n{extra}\n",
        bin = mcpdeck_bin().display().to_string()
    )
}

/// mcpdeck serve, driven line by line.
struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    stderr: Arc<Mutex<String>>,
    /// Frames read while waiting for something else.
    seen: Vec<Value>,
    next_id: i64,
}

impl Agent {
    fn start(config: &Path, args: &[&str]) -> Agent {
        Agent::start_with(&[], config, args, &[])
    }

    /// `mcpdeck GLOBAL… --config CONFIG serve ARGS…` with `env`.
    fn start_with(global: &[&str], config: &Path, args: &[&str], env: &[(&str, &str)]) -> Agent {
        let mut cmd = Command::new(mcpdeck_bin());
        cmd.args(global)
            .arg("--config")
            .arg(config)
            .arg("serve")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn mcpdeck serve");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("serve wrote a line that is not JSON ({e}): {line}")
                });
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
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
        Agent {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            seen: Vec::new(),
            next_id: 0,
        }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn write(&mut self, frame: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{frame}").expect("write to serve");
        stdin.flush().expect("flush");
    }

    /// The next frame that `want` accepts; others are kept in `seen`.
    fn wait_for(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.seen.iter().position(&want) {
            return self.seen.remove(i);
        }
        let deadline = Instant::now() + limit(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) if want(&v) => return v,
                Ok(v) => self.seen.push(v),
                Err(RecvTimeoutError::Timeout) => panic!(
                    "no {what} from serve; frames seen: {:?}\nstderr:\n{}",
                    self.seen,
                    self.stderr()
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "serve closed stdout before {what}; frames seen: {:?}\nstderr:\n{}",
                    self.seen,
                    self.stderr()
                ),
            }
        }
    }

    /// Send a request; its id.
    fn send(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    fn response(&mut self, id: i64) -> Value {
        self.wait_for(&format!("response {id}"), |v| {
            v.get("id") == Some(&json!(id)) && v.get("method").is_none()
        })
    }

    /// A request's result (failing on an error).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        let r = self.response(id);
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    /// A request's error (failing on a result).
    fn request_error(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        let r = self.response(id);
        assert!(r.get("result").is_none(), "{method} did not fail: {r}");
        r["error"].clone()
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn notification(&mut self, method: &str) -> Value {
        self.wait_for(method, |v| {
            v.get("method").and_then(Value::as_str) == Some(method) && v.get("id").is_none()
        })
    }

    /// initialize + initialized, with these client capabilities.
    fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        let r = self.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": capabilities,
                   "clientInfo": {"name": "raw", "version": "0"}}),
        );
        self.notify("notifications/initialized", json!({}));
        r
    }

    fn tool_names(&mut self, params: Value) -> Vec<String> {
        let r = self.request("tools/list", params);
        names(&r["tools"], "name")
    }

    /// Close stdin and wait for serve to exit (and reap its servers).
    fn finish(mut self) -> String {
        drop(self.stdin.take());
        let deadline = Instant::now() + limit(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "serve exited {status}\n{}", self.stderr());
                return self.stderr();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("serve did not exit after stdin closed\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Agent {
    /// SIGTERM first (serve then stops and reaps its servers), SIGKILL if
    /// it does not go.
    fn drop(&mut self) {
        drop(self.stdin.take());
        common::reap(&mut self.child, true);
    }
}

fn names(list: &Value, key: &str) -> Vec<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.get(key).and_then(Value::as_str).map(str::to_string))
        .collect()
}

/// The stateless era's `_meta`.
fn modern(mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    });
    params
}

fn config_dir(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_file(dir.path(), "config.toml", text);
    (dir, path)
}

/// Replace the config as editors and mcpdeck do: a new file renamed over it.
fn rewrite(path: &Path, text: &str) {
    let tmp = path.with_extension("toml.new");
    std::fs::write(&tmp, text).expect("write");
    std::fs::rename(&tmp, path).expect("rename");
}

#[test]
fn raw_client_initialize_era_aggregates_several_servers() {
    let (_dir, config) = config_dir(&format!(
        "{}{}",
        demo(
            "a",
            "initialize",
            "deny_tools = [\"e*o\", \"render_?mage\"]"
        ),
        demo("b", "stateless", "allow_tools = [\"add\", \"slow_*\"]")
    ));
    let mut agent = Agent::start(&config, &["a", "b"]);
    let init = agent.initialize("2025-06-18", json!({}));
    assert_eq!(init["protocolVersion"], "2025-06-18");
    assert_eq!(init["serverInfo"]["name"], "mcpdeck");
    assert_eq!(init["capabilities"]["tools"]["listChanged"], true);
    assert!(init["capabilities"]["prompts"].is_object(), "{init}");
    let instructions = init["instructions"].as_str().unwrap_or_default();
    assert!(
        instructions.contains("## a\n") && instructions.contains("## b\n"),
        "{instructions}"
    );

    let tools = agent.tool_names(json!({}));
    assert!(tools.contains(&"a__add".to_string()), "{tools:?}");
    assert!(tools.contains(&"a__make_sound".to_string()), "{tools:?}");
    assert!(
        !tools.contains(&"a__echo".to_string()),
        "denied by e*o: {tools:?}"
    );
    assert!(!tools.contains(&"a__render_image".to_string()), "{tools:?}");
    let b: Vec<&String> = tools.iter().filter(|t| t.starts_with("b__")).collect();
    assert_eq!(b, ["b__add", "b__slow_task"], "allow_tools of b");

    let r = agent.request(
        "tools/call",
        json!({"name": "b__add", "arguments": {"a": 2, "b": 40}}),
    );
    assert_eq!(r["content"][0]["text"], "42", "{r}");
    assert_eq!(r["structuredContent"]["sum"], 42.0, "passed whole: {r}");

    // Refusals name their rule.
    let e = agent.request_error(
        "tools/call",
        json!({"name": "a__echo", "arguments": {"text": "x"}}),
    );
    assert_eq!(e["code"], -32602);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("deny_tools entry \"e*o\""),
        "{e}"
    );
    assert_eq!(
        e["data"]["rule"],
        json!({"list": "deny_tools", "pattern": "e*o"})
    );
    let e = agent.request_error(
        "tools/call",
        json!({"name": "b__echo", "arguments": {"text": "x"}}),
    );
    assert!(
        e["message"].as_str().unwrap().contains("allow_tools"),
        "{e}"
    );
    assert_eq!(e["data"]["rule"]["list"], "allow_tools");
    let e = agent.request_error("tools/call", json!({"name": "echo", "arguments": {}}));
    assert!(
        e["message"].as_str().unwrap().contains("unknown tool"),
        "{e}"
    );

    // Prompts and resources under mapped names, mapped back.
    let prompts = agent.request("prompts/list", json!({}));
    let prompts = names(&prompts["prompts"], "name");
    assert!(
        prompts.contains(&"a__greeting".to_string())
            && prompts.contains(&"b__review_code".to_string()),
        "{prompts:?}"
    );
    let got = agent.request(
        "prompts/get",
        json!({"name": "b__greeting", "arguments": {}}),
    );
    assert!(got["messages"].to_string().contains("greet"), "{got}");
    assert!(
        got.get("resultType").is_none() && got.get("_meta").is_none(),
        "no stateless envelope for this agent: {got}"
    );
    let resources = agent.request("resources/list", json!({}));
    let uris = names(&resources["resources"], "uri");
    assert!(
        uris.contains(&"mcpdeck://a/demo://readme".to_string()),
        "{uris:?}"
    );
    let templates = agent.request("resources/templates/list", json!({}));
    let templates = names(&templates["resourceTemplates"], "uriTemplate");
    assert!(
        templates.contains(&"mcpdeck://b/demo://greeting/{name}".to_string()),
        "{templates:?}"
    );
    let read = agent.request(
        "resources/read",
        json!({"uri": "mcpdeck://b/demo://greeting/Ada"}),
    );
    assert_eq!(
        read["contents"][0]["uri"], "mcpdeck://b/demo://greeting/Ada",
        "{read}"
    );
    assert!(
        read["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Ada"),
        "{read}"
    );
    let e = agent.request_error("resources/read", json!({"uri": "demo://readme"}));
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("mcpdeck://SERVER/URI"),
        "{e}"
    );
    let done = agent.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "a__review_code"},
               "argument": {"name": "language", "value": "py"}}),
    );
    assert!(
        done["completion"]["values"].to_string().contains("python"),
        "{done}"
    );

    let e = agent.request_error("no/such", json!({}));
    assert_eq!(e["code"], -32601);
    assert_eq!(agent.request("ping", json!({})), json!({}));
    agent.finish();
}

#[test]
fn raw_client_stateless_era_one_server_is_transparent() {
    let (_dir, config) = config_dir(&demo("solo", "dual", "deny_tools = [\"fail\"]"));
    let mut agent = Agent::start(&config, &["solo"]);
    let d = agent.request("server/discover", modern(json!({})));
    assert_eq!(d["resultType"], "complete");
    assert_eq!(d["supportedVersions"], json!(["2026-07-28"]));
    assert!(d["ttlMs"].is_number() && d["cacheScope"].is_string(), "{d}");
    let info = &d["_meta"]["io.modelcontextprotocol/serverInfo"];
    assert_eq!(info["name"], "solo", "the server's own name: {d}");
    assert!(
        info["title"]
            .as_str()
            .unwrap()
            .contains("served by mcpdeck"),
        "{d}"
    );

    let list = agent.request("tools/list", modern(json!({})));
    assert_eq!(list["resultType"], "complete");
    assert!(list["ttlMs"].is_number(), "{list}");
    let tools = names(&list["tools"], "name");
    assert!(tools.contains(&"echo".to_string()), "same names: {tools:?}");
    assert!(!tools.contains(&"fail".to_string()), "{tools:?}");
    let r = agent.request(
        "tools/call",
        modern(json!({"name": "echo", "arguments": {"message": "hello"}})),
    );
    assert_eq!(r["resultType"], "complete");
    assert!(
        r["content"][0]["text"].as_str().unwrap().contains("hello"),
        "{r}"
    );
    let read = agent.request("resources/read", modern(json!({"uri": "demo://readme"})));
    assert_eq!(read["contents"][0]["uri"], "demo://readme");
    assert!(read["ttlMs"].is_number(), "{read}");

    let mut old = modern(json!({}));
    old["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let e = agent.request_error("tools/list", old);
    assert_eq!(e["code"], -32022);
    assert_eq!(e["data"]["supported"], json!(["2026-07-28"]));
    assert_eq!(e["data"]["requested"], "2099-01-01");

    // An initialize offering a version mcpdeck does not speak gets the newest.
    let init = agent.request(
        "initialize",
        json!({"protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}),
    );
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert_eq!(init["serverInfo"]["name"], "solo");
    agent.finish();
}

#[test]
fn a_deny_written_while_connected_arrives_as_list_changed() {
    let first = demo("a", "initialize", "") + &demo("b", "initialize", "enabled = false");
    let (_dir, config) = config_dir(&first);
    let mut agent = Agent::start(&config, &["--all"]);
    agent.initialize("2025-11-25", json!({}));
    let tools = agent.tool_names(json!({}));
    assert!(tools.contains(&"a__echo".to_string()), "{tools:?}");
    assert!(
        !tools.iter().any(|t| t.starts_with("b__")),
        "disabled: {tools:?}"
    );

    rewrite(
        &config,
        &(demo("a", "initialize", "deny_tools = [\"echo\", \"get_*\"]")
            + &demo("b", "initialize", "enabled = false")),
    );
    agent.notification("notifications/tools/list_changed");
    let tools = agent.tool_names(json!({}));
    assert!(!tools.contains(&"a__echo".to_string()), "{tools:?}");
    assert!(!tools.contains(&"a__get_weather".to_string()), "{tools:?}");
    assert!(tools.contains(&"a__add".to_string()), "{tools:?}");
    let e = agent.request_error(
        "tools/call",
        json!({"name": "a__echo", "arguments": {"text": "x"}}),
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("deny_tools entry \"echo\""),
        "{e}"
    );

    // A broken config is not applied: one warning naming line and column.
    rewrite(&config, "[servers.a]\ncommand = 3\n");
    let deadline = Instant::now() + limit(10);
    while !agent.stderr().contains("not applied") {
        assert!(Instant::now() < deadline, "no warning: {}", agent.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
    let warning = agent.stderr();
    assert!(warning.contains(":2:"), "line and column named: {warning}");
    let tools = agent.tool_names(json!({}));
    assert!(
        tools.contains(&"a__add".to_string()),
        "the old config stays: {tools:?}"
    );

    // A server enabled: it comes; the deny list of a goes.
    rewrite(
        &config,
        &(demo("a", "initialize", "") + &demo("b", "initialize", "")),
    );
    agent.notification("notifications/tools/list_changed");
    let deadline = Instant::now() + limit(20);
    loop {
        let tools = agent.tool_names(json!({}));
        if tools.contains(&"b__echo".to_string()) && tools.contains(&"a__echo".to_string()) {
            break;
        }
        assert!(Instant::now() < deadline, "b did not come: {tools:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    agent.finish();
}

#[test]
fn stateless_listen_gets_list_changed() {
    let (_dir, config) = config_dir(&demo("a", "dual", ""));
    let mut agent = Agent::start(&config, &["a"]);
    agent.request("tools/list", modern(json!({})));
    let listen = agent.send(
        "subscriptions/listen",
        modern(json!({"notifications": {"toolsListChanged": true}})),
    );
    let ack = agent.notification("notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        listen
    );
    // The honored filter is echoed under `notifications`, as the SDKs do.
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true}),
        "{ack}"
    );
    rewrite(&config, &demo("a", "dual", "allow_tools = [\"add\"]"));
    let changed = agent.notification("notifications/tools/list_changed");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        listen
    );
    let tools = names(
        &agent.request("tools/list", modern(json!({})))["tools"],
        "name",
    );
    assert_eq!(tools, ["add"]);
    agent.finish();
}

#[test]
fn progress_and_cancellation_are_forwarded() {
    let (_dir, config) = config_dir(&(demo("a", "initialize", "") + &demo("b", "stateless", "")));
    let mut agent = Agent::start(&config, &["a", "b"]);
    agent.initialize("2025-11-25", json!({}));
    for server in ["a", "b"] {
        let token = format!("tok-{server}");
        let id = agent.send(
            "tools/call",
            json!({"name": format!("{server}__slow_task"), "arguments": {"steps": 3, "delay_ms": 20},
                   "_meta": {"progressToken": token}}),
        );
        let progress = agent.wait_for("progress", |v| {
            v["method"] == "notifications/progress" && v["params"]["progressToken"] == json!(token)
        });
        assert!(progress["params"]["progress"].is_number(), "{progress}");
        let r = agent.response(id);
        assert!(r.get("result").is_some(), "{r}");
    }

    // Cancelled: no answer, and the server is told.
    let id = agent.send(
        "tools/call",
        json!({"name": "a__slow_task", "arguments": {"steps": 200, "delay_ms": 50},
               "_meta": {"progressToken": 7}}),
    );
    agent.wait_for("progress of 7", |v| {
        v["method"] == "notifications/progress" && v["params"]["progressToken"] == 7
    });
    agent.notify(
        "notifications/cancelled",
        json!({"requestId": id, "reason": "test"}),
    );
    // A later request is answered; the cancelled one never is.
    assert_eq!(agent.request("ping", json!({})), json!({}));
    let after = agent.request(
        "tools/call",
        json!({"name": "a__add", "arguments": {"a": 1, "b": 1}}),
    );
    assert_eq!(after["content"][0]["text"], "2");
    agent.finish();
}

#[test]
fn every_progress_notification_reaches_the_agent_in_order() {
    let (_dir, config) = config_dir(&demo("a", "initialize", ""));
    let mut agent = Agent::start(&config, &["a"]);
    agent.initialize("2025-11-25", json!({}));
    // Twelve steps with no pause: the notifications come in a burst.
    let id = agent.send(
        "tools/call",
        json!({"name": "slow_task", "arguments": {"steps": 12, "delay_ms": 0},
               "_meta": {"progressToken": "burst"}}),
    );
    let r = agent.response(id);
    assert!(r.get("result").is_some(), "{r}");
    let mut seen = Vec::new();
    while seen.len() < 12 {
        let p = agent.wait_for("progress", |v| {
            v["method"] == "notifications/progress" && v["params"]["progressToken"] == "burst"
        });
        seen.push(p["params"]["progress"].as_f64().unwrap_or(-1.0));
    }
    let expected: Vec<f64> = (1..=12).map(f64::from).collect();
    assert_eq!(seen, expected, "each progress, in order, none merged");
    agent.finish();
}

#[test]
fn cancellation_reaches_the_server() {
    let (_dir, config) = config_dir(&demo("a", "initialize", ""));
    let mut agent = Agent::start_with(&["--trace"], &config, &["a"], &[]);
    agent.initialize("2025-11-25", json!({}));
    let id = agent.send(
        "tools/call",
        json!({"name": "slow_task", "arguments": {"steps": 200, "delay_ms": 50}}),
    );
    // Once the call is out to the server, cancel it.
    let deadline = Instant::now() + limit(10);
    while !agent.stderr().lines().any(|l| l.contains("\"tools/call\"")) {
        assert!(
            Instant::now() < deadline,
            "the call did not go out: {}",
            agent.stderr()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    agent.notify("notifications/cancelled", json!({"requestId": id}));
    let deadline = Instant::now() + limit(10);
    while !agent
        .stderr()
        .lines()
        .any(|l| l.contains("notifications/cancelled"))
    {
        assert!(
            Instant::now() < deadline,
            "the server was not told: {}",
            agent.stderr()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(agent.request("ping", json!({})), json!({}));
    assert!(
        !agent.seen.iter().any(|v| v.get("id") == Some(&json!(id))),
        "a cancelled request gets no answer: {:?}",
        agent.seen
    );
    agent.finish();
}

fn everything(name: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = \"node\"\nargs = [{js:?}, \"stdio\"]\n",
        js = everything_js().display().to_string()
    )
}

#[test]
fn sampling_and_elicitation_are_answered_by_the_agent() {
    let (_dir, config) = config_dir(&(everything("ev") + &demo("d", "initialize", "")));
    let mut agent = Agent::start(&config, &["ev", "d"]);
    agent.initialize(
        "2025-11-25",
        json!({"sampling": {}, "elicitation": {"form": {}}, "roots": {"listChanged": true}}),
    );
    // The agent's roots are asked for and offered upstream.
    let roots = agent.wait_for("roots/list", |v| v["method"] == "roots/list");
    let dir = std::env::temp_dir();
    agent.write(&json!({"jsonrpc": "2.0", "id": roots["id"],
        "result": {"roots": [{"uri": format!("file://{}", dir.display()), "name": "tmp"}]}}));

    let tools = agent.tool_names(json!({}));
    assert!(
        tools.contains(&"ev__trigger-sampling-request".to_string()),
        "{tools:?}"
    );
    let id = agent.send(
        "tools/call",
        json!({"name": "ev__trigger-sampling-request", "arguments": {"prompt": "hi", "maxTokens": 5}}),
    );
    let ask = agent.wait_for("sampling/createMessage", |v| {
        v["method"] == "sampling/createMessage"
    });
    assert!(
        ask["params"]["messages"].to_string().contains("hi"),
        "{ask}"
    );
    agent.write(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {
        "role": "assistant", "content": {"type": "text", "text": "sampled-by-the-agent"},
        "model": "test-model", "stopReason": "endTurn"}}));
    let r = agent.response(id);
    assert!(
        r["result"].to_string().contains("sampled-by-the-agent"),
        "{r}"
    );

    let id = agent.send(
        "tools/call",
        json!({"name": "ev__trigger-elicitation-request", "arguments": {}}),
    );
    let ask = agent.wait_for("elicitation/create", |v| {
        v["method"] == "elicitation/create"
    });
    agent.write(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}}));
    let r = agent.response(id);
    assert!(
        r["result"].to_string().to_lowercase().contains("decline"),
        "{r}"
    );

    // The roots given by the agent reached the server.
    let r = agent.request(
        "tools/call",
        json!({"name": "ev__get-roots-list", "arguments": {}}),
    );
    assert!(
        r.to_string()
            .contains(&dir.display().to_string().trim_end_matches('/').to_string()),
        "{r}"
    );
    agent.finish();
}

#[test]
fn an_upstream_crash_in_flight_fails_only_its_own_calls() {
    let crash = format!(
        "[servers.crashy]\ncommand = \"python3\"\nargs = [{script:?}, \"crash\"]\n",
        script = repo()
            .join("tests/fixtures/core_server.py")
            .display()
            .to_string()
    );
    let (_dir, config) = config_dir(&(crash + &demo("ok", "initialize", "")));
    let mut agent = Agent::start(&config, &["crashy", "ok"]);
    agent.initialize("2025-11-25", json!({}));
    let tools = agent.tool_names(json!({}));
    assert!(tools.contains(&"crashy__boom".to_string()), "{tools:?}");
    let e = agent.request_error(
        "tools/call",
        json!({"name": "crashy__boom", "arguments": {}}),
    );
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("crashy"), "names the server: {e}");
    let r = agent.request(
        "tools/call",
        json!({"name": "ok__add", "arguments": {"a": 1, "b": 2}}),
    );
    assert_eq!(r["content"][0]["text"], "3");
    // Its tools now answer with its status.
    let deadline = Instant::now() + limit(10);
    loop {
        let e = agent.request_error(
            "tools/call",
            json!({"name": "crashy__boom", "arguments": {}}),
        );
        if e["data"]["status"] == "failed" {
            assert!(
                e["message"]
                    .as_str()
                    .unwrap()
                    .contains("server \"crashy\" is failed"),
                "{e}"
            );
            break;
        }
        assert!(Instant::now() < deadline, "{e}");
        std::thread::sleep(Duration::from_millis(50));
    }
    agent.finish();
}

/// The Python SDK client script through serve: its JSON line.
fn sdk(
    python: PathBuf,
    mode: &str,
    tool: &str,
    args: &str,
    uri: Option<&str>,
    config: &Path,
    servers: &[&str],
) -> Value {
    let mut cmd = Command::new(python);
    cmd.arg(repo().join("tests/fixtures/serve/sdk_client.py"))
        .args([mode, tool, args])
        .args(uri)
        .arg("--")
        .arg(mcpdeck_bin())
        .arg("--config")
        .arg(config)
        .arg("serve")
        .args(servers)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let run = run_limited(cmd, limit(60));
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

#[test]
fn python_sdk_clients_through_serve() {
    let (_dir, config) =
        config_dir(&(demo("a", "dual", "deny_tools = [\"echo\"]") + &demo("b", "stateless", "")));
    for mode in ["auto", "legacy"] {
        let out = sdk(
            py_v2(),
            mode,
            "b__add",
            r#"{"a": 1, "b": 2}"#,
            Some("mcpdeck://a/demo://readme"),
            &config,
            &["a", "b"],
        );
        let version = if mode == "auto" {
            "2026-07-28"
        } else {
            "2025-11-25"
        };
        assert_eq!(out["protocolVersion"], version, "{out}");
        assert_eq!(out["serverName"], "mcpdeck");
        assert_eq!(out["text"], json!(["3"]), "{out}");
        let tools = names(
            &json!(
                out["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| json!({"name": t}))
                    .collect::<Vec<_>>()
            ),
            "name",
        );
        assert!(
            tools.contains(&"b__echo".to_string()) && !tools.contains(&"a__echo".to_string()),
            "{tools:?}"
        );
        assert!(
            out["read"][0].as_str().unwrap().contains("demo server"),
            "{out}"
        );
        // One server: its own names.
        let out = sdk(
            py_v2(),
            mode,
            "add",
            r#"{"a": 2, "b": 2}"#,
            Some("demo://readme"),
            &config,
            &["b"],
        );
        assert_eq!(out["serverName"], "b", "{out}");
        assert_eq!(out["text"], json!(["4"]), "{out}");
    }
    let out = sdk(
        py_v1(),
        "v1",
        "a__add",
        r#"{"a": 3, "b": 4}"#,
        Some("mcpdeck://b/demo://readme"),
        &config,
        &["a", "b"],
    );
    assert_eq!(out["protocolVersion"], "2025-11-25", "{out}");
    assert_eq!(out["text"], json!(["7"]), "{out}");
    let out = sdk(
        py_v1(),
        "v1",
        "echo",
        r#"{"message": "x"}"#,
        None,
        &config,
        &["b"],
    );
    assert_eq!(out["isError"], false, "{out}");
}

#[test]
fn serve_needs_servers_to_serve() {
    let (_dir, config) = config_dir(&demo("a", "initialize", ""));
    let run = mcpdeck(&["--config", config.to_str().unwrap(), "serve"], limit(20));
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("mcpdeck serve --all"), "{}", run.stderr);
    assert!(
        run.stdout.is_empty(),
        "stdout is the protocol: {}",
        run.stdout
    );
    let run = mcpdeck(
        &["--config", config.to_str().unwrap(), "serve", "nope"],
        limit(20),
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no server named \"nope\""),
        "{}",
        run.stderr
    );
}

#[test]
fn pinned_withholds_tools_until_they_match_their_pins() {
    let (dir, config) = config_dir(&demo("a", "initialize", ""));
    let pins = dir.path().join("pins.json");
    let pins_env = pins.to_str().unwrap().to_string();
    let env = [("MCPDECK_PINS", pins_env.as_str())];
    let mut agent = Agent::start_with(&[], &config, &["a", "--pinned"], &env);
    agent.initialize("2025-11-25", json!({}));
    assert_eq!(
        agent.tool_names(json!({})),
        Vec::<String>::new(),
        "nothing pinned yet"
    );
    let e = agent.request_error(
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
    );
    assert!(
        e["message"].as_str().unwrap().contains("mcpdeck pin a"),
        "{e}"
    );

    let run = mcpdeck_env(
        &["--config", config.to_str().unwrap(), "pin", "a"],
        &env,
        limit(30),
    );
    run.ok();
    agent.notification("notifications/tools/list_changed");
    let tools = agent.tool_names(json!({}));
    assert!(
        tools.contains(&"echo".to_string()) && tools.contains(&"add".to_string()),
        "{tools:?}"
    );

    // echo's pin no longer matches: echo is withheld.
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(&pins).unwrap()).unwrap();
    let text = file.to_string();
    assert!(text.contains("\"echo\""), "{text}");
    for server in file["servers"]
        .as_object_mut()
        .into_iter()
        .flat_map(|m| m.values_mut())
    {
        for d in server["definitions"].as_array_mut().into_iter().flatten() {
            if d["name"] == "echo" {
                d["sha256"] = json!("0".repeat(64));
            }
        }
    }
    rewrite(&pins, &file.to_string());
    agent.notification("notifications/tools/list_changed");
    let tools = agent.tool_names(json!({}));
    assert!(
        !tools.contains(&"echo".to_string()) && tools.contains(&"add".to_string()),
        "{tools:?}"
    );
    let e = agent.request_error(
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "x"}}),
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("changed since it was pinned"),
        "{e}"
    );
    agent.finish();
}

#[test]
fn a_stateless_agent_answers_server_requests_as_input_required() {
    let (_dir, config) = config_dir(&everything("ev"));
    let mut agent = Agent::start(&config, &["ev"]);
    let with_sampling = |params: Value| {
        let mut p = modern(params);
        p["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
            json!({"sampling": {}, "elicitation": {"form": {}}});
        p
    };
    let call =
        json!({"name": "trigger-sampling-request", "arguments": {"prompt": "hi", "maxTokens": 5}});
    let first = agent.request("tools/call", with_sampling(call.clone()));
    assert_eq!(first["resultType"], "input_required", "{first}");
    let requests = first["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.len(), 1, "{first}");
    let (key, asked) = requests.iter().next().unwrap();
    assert_eq!(asked["method"], "sampling/createMessage");
    assert!(
        asked["params"]["messages"].to_string().contains("hi"),
        "{asked}"
    );
    let mut retry = call.clone();
    retry["inputResponses"] = json!({key.clone(): {
        "role": "assistant", "content": {"type": "text", "text": "stateless-sample"},
        "model": "m", "stopReason": "endTurn"}});
    retry["requestState"] = first["requestState"].clone();
    let done = agent.request("tools/call", with_sampling(retry.clone()));
    assert_eq!(done["resultType"], "complete", "{done}");
    assert!(done.to_string().contains("stateless-sample"), "{done}");
    // The same requestState again names nothing waiting.
    let e = agent.request_error("tools/call", with_sampling(retry));
    assert_eq!(e["code"], -32602, "{e}");
    // Without the capability, the server's request is refused.
    let r = agent.request("tools/call", modern(call));
    assert_eq!(r["resultType"], "complete", "{r}");
    agent.finish();
}

fn py_server(name: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = {py:?}\nargs = [{script:?}]\n",
        py = py_v2().display().to_string(),
        script = repo()
            .join("tests/servers/py_v2_server.py")
            .display()
            .to_string()
    )
}

#[test]
fn logging_and_resource_updates_are_forwarded_with_mapped_names() {
    // The Python server declares resource subscriptions in the stateless
    // era only: pinned there, an initialize-era agent's subscription goes
    // as `subscriptions/listen` (by default the agent's era is spoken
    // upstream, where this server offers none).
    let (_dir, config) = config_dir(
        &(py_server("py") + "protocol = \"stateless\"\n" + &demo("d", "initialize", "")),
    );
    let mut agent = Agent::start(&config, &["py", "d"]);
    agent.initialize("2025-11-25", json!({}));
    agent.request("logging/setLevel", json!({"level": "debug"}));
    agent.request(
        "tools/call",
        json!({"name": "d__log_messages", "arguments": {}}),
    );
    let log = agent.wait_for("a log message of d", |v| {
        v["method"] == "notifications/message"
            && v["params"]["logger"]
                .as_str()
                .is_some_and(|l| l.starts_with('d'))
    });
    assert!(
        log["params"]["data"].to_string().contains("log_messages"),
        "{log}"
    );

    agent.request(
        "resources/subscribe",
        json!({"uri": "mcpdeck://py/config://app"}),
    );
    let r = agent.request(
        "tools/call",
        json!({"name": "py__echo", "arguments": {"text": "x"}}),
    );
    assert_eq!(r["content"][0]["text"], "echo: x", "{r}");
    let updated = agent.notification("notifications/resources/updated");
    assert_eq!(
        updated["params"]["uri"], "mcpdeck://py/config://app",
        "{updated}"
    );
    agent.request(
        "resources/unsubscribe",
        json!({"uri": "mcpdeck://py/config://app"}),
    );
    agent.finish();
}

/// A server of tests/fixtures/serve (stdlib Python), named `name`, with
/// `extra` lines in its table.
fn fixture_server(name: &str, file: &str, extra: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = \"python3\"\nargs = [{script:?}]\n{extra}",
        script = repo()
            .join("tests/fixtures/serve")
            .join(file)
            .display()
            .to_string()
    )
}

#[test]
fn upstream_list_changed_is_passed_on_filtered() {
    let (_dir, config) = config_dir(&fixture_server(
        "ch",
        "changing_server.py",
        "deny_tools = [\"secret_*\"]\n",
    ));
    let mut agent = Agent::start(&config, &["ch"]);
    agent.initialize("2025-11-25", json!({}));
    assert_eq!(agent.tool_names(json!({})), ["grow", "grow_secret"]);
    // A denied tool came: the agent's view is the same, it is not told.
    let r = agent.request(
        "tools/call",
        json!({"name": "grow_secret", "arguments": {}}),
    );
    assert_eq!(r["content"][0]["text"], "secret_1");
    let r = agent.request("tools/call", json!({"name": "grow", "arguments": {}}));
    assert_eq!(r["content"][0]["text"], "extra_1");
    agent.notification("notifications/tools/list_changed");
    assert_eq!(
        agent.tool_names(json!({})),
        ["grow", "grow_secret", "extra_1"]
    );
    agent.request("ping", json!({}));
    let more: Vec<&Value> = agent
        .seen
        .iter()
        .filter(|v| v["method"] == "notifications/tools/list_changed")
        .collect();
    assert!(
        more.is_empty(),
        "one change the agent sees, one notification: {more:?}"
    );
    agent.finish();
}

/// `mcpdeck serve --http 127.0.0.1:0 …`: the agent (stdin unused) and
/// the address it listens on.
fn start_http(config: &Path, args: &[&str], env: &[(&str, &str)]) -> (Agent, String) {
    let mut all = vec!["--http", "127.0.0.1:0"];
    all.extend_from_slice(args);
    let agent = Agent::start_with(&[], config, &all, env);
    let deadline = Instant::now() + limit(20);
    loop {
        let err = agent.stderr();
        if let Some(at) = err
            .lines()
            .find_map(|l| l.strip_prefix("mcpdeck serve: listening on http://"))
        {
            return (agent, at.trim_end_matches("/mcp").to_string());
        }
        assert!(
            Instant::now() < deadline,
            "serve --http did not listen: {err}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One raw HTTP/1.1 POST: status line and body.
fn http_post(at: &str, headers: &[(&str, &str)], body: &str) -> (String, String) {
    let (head, body) = http_raw(
        at,
        "POST",
        "application/json, text/event-stream",
        headers,
        body,
    );
    (head.lines().next().unwrap_or_default().to_string(), body)
}

#[test]
fn http_serves_sdk_clients_and_checks_origin_and_token() {
    let (_dir, config) = config_dir(
        &(demo("a", "initialize", "deny_tools = [\"echo\"]") + &demo("b", "stateless", "")),
    );
    let (agent, at) = start_http(&config, &["a", "b"], &[]);
    let script = r#"
import anyio, json, sys
from mcp import Client
async def main(url, mode):
    async with Client(url, mode=mode) as c:
        tools = [t.name for t in (await c.list_tools()).tools]
        r = await c.call_tool("b__add", {"a": 20, "b": 22})
        print(json.dumps({"version": c.protocol_version, "tools": tools, "text": r.content[0].text}))
anyio.run(main, sys.argv[1], sys.argv[2])
"#;
    for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let mut cmd = Command::new(py_v2());
        cmd.args(["-c", script, &format!("http://{at}/mcp"), mode])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let run = run_limited(cmd, limit(60));
        assert_eq!(
            run.code,
            0,
            "{}\n{}\n{}",
            run.stdout,
            run.stderr,
            agent.stderr()
        );
        let out: Value = serde_json::from_str(run.stdout.trim()).expect("JSON");
        assert_eq!(out["version"], version, "{out}");
        assert_eq!(out["text"], "42", "{out}");
        let tools = names(
            &json!(
                out["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| json!({"name": t}))
                    .collect::<Vec<_>>()
            ),
            "name",
        );
        assert!(
            tools.contains(&"b__echo".to_string()) && !tools.contains(&"a__echo".to_string()),
            "{tools:?}"
        );
    }
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let (status, body) = http_post(&at, &[], ping);
    assert!(status.contains("200"), "{status} {body}");
    assert!(body.contains("\"result\""), "{body}");
    let (status, _) = http_post(&at, &[("Origin", "https://evil.example")], ping);
    assert!(status.contains("403"), "DNS rebinding: {status}");
    let (status, _) = http_post(&at, &[("Origin", "http://localhost:5173")], ping);
    assert!(status.contains("200"), "{status}");
    drop(agent);

    // --allow-remote: a bearer token on every request.
    let (agent, at) = start_http(
        &config,
        &["a", "--allow-remote"],
        &[("MCPDECK_SERVE_TOKEN", "s3cret")],
    );
    let (status, _) = http_post(&at, &[], ping);
    assert!(status.contains("401"), "{status}");
    let (status, _) = http_post(&at, &[("Authorization", "Bearer wrong")], ping);
    assert!(status.contains("401"), "{status}");
    let (status, body) = http_post(&at, &[("Authorization", "Bearer s3cret")], ping);
    assert!(status.contains("200"), "{status} {body}");
    drop(agent);

    // Not loopback without --allow-remote: refused before anything starts.
    let run = mcpdeck(
        &[
            "--config",
            config.to_str().unwrap(),
            "serve",
            "a",
            "--http",
            "0.0.0.0:0",
        ],
        limit(20),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--allow-remote"), "{}", run.stderr);
}

#[test]
fn task_augmented_calls_pass_through_with_their_task_ids_mapped() {
    // Aggregated (two servers): the task id the agent sees is SERVER__ID.
    let (_dir, config) = config_dir(&(everything("ev") + &demo("d", "initialize", "")));
    let mut agent = Agent::start(&config, &["ev", "d"]);
    let init = agent.initialize("2025-11-25", json!({}));
    assert_eq!(
        init["capabilities"]["tasks"]["requests"]["tools"]["call"],
        json!({}),
        "{init}"
    );
    assert!(
        init["capabilities"]["tasks"].get("list").is_none(),
        "tasks/list is not offered for several servers: {init}"
    );
    let created = agent.request(
        "tools/call",
        json!({"name": "ev__simulate-research-query", "arguments": {"topic": "serve"},
               "task": {"ttl": 60000}}),
    );
    let task = created["task"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_string();
    assert!(task.starts_with("ev__"), "{created}");
    let got = agent.request("tasks/get", json!({"taskId": task}));
    assert_eq!(got["taskId"], json!(task), "{got}");
    assert!(
        ["working", "completed"].contains(&got["status"].as_str().unwrap_or("")),
        "{got}"
    );
    // tasks/result waits for the end, and is the tool's result.
    let result = agent.request("tasks/result", json!({"taskId": task}));
    assert!(result["content"].to_string().contains("serve"), "{result}");
    let err = agent.request_error("tasks/get", json!({"taskId": "ev__nope"}));
    assert!(
        err["message"]
            .as_str()
            .unwrap_or("")
            .contains("unknown task"),
        "{err}"
    );
    let err = agent.request_error("tasks/list", json!({}));
    assert_eq!(err["code"], -32601, "{err}");
    agent.finish();

    // Transparent (one server): the server's own ids, and tasks/list.
    let (_dir, config) = config_dir(&everything("ev"));
    let mut agent = Agent::start(&config, &["ev"]);
    let init = agent.initialize("2025-11-25", json!({}));
    assert_eq!(init["capabilities"]["tasks"]["list"], json!({}), "{init}");
    let created = agent.request(
        "tools/call",
        json!({"name": "simulate-research-query", "arguments": {"topic": "one"},
               "task": {"ttl": 60000}}),
    );
    let task = created["task"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_string();
    assert!(!task.starts_with("ev__"), "{created}");
    let list = agent.request("tasks/list", json!({}));
    assert!(list.to_string().contains(&task), "{list}");
    let cancelled = agent.request("tasks/cancel", json!({"taskId": task}));
    assert_eq!(cancelled["taskId"], json!(task), "{cancelled}");
    agent.finish();
}

#[test]
fn two_http_agents_with_the_same_request_ids_get_their_own_answers() {
    let (_dir, config) = config_dir(&demo("d", "initialize", ""));
    let (agent, at) = start_http(&config, &["d"], &[]);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}"#;
    for _ in 0..2 {
        let (status, body) = http_post(&at, &[], init);
        assert!(status.contains("200"), "{status} {body}");
    }
    // Agent A: a slow call with id 7, still running when agent B asks
    // for the tool list with id 7 too.
    let a_at = at.clone();
    let slow = std::thread::spawn(move || {
        http_post(
            &a_at,
            &[],
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow_task","arguments":{"steps":4,"delay_ms":250}}}"#,
        )
    });
    std::thread::sleep(Duration::from_millis(300));
    let (status, body) = http_post(
        &at,
        &[],
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#,
    );
    assert!(status.contains("200"), "{status}");
    let list = sse_or_json(&body, 7);
    assert!(
        list["result"]["tools"].is_array(),
        "B got A's answer: {body}"
    );
    let (status, body) = slow.join().expect("agent A");
    assert!(status.contains("200"), "{status}");
    let call = sse_or_json(&body, 7);
    assert!(
        call["result"]["content"].is_array(),
        "A got B's answer: {body}"
    );
    assert!(call["result"].get("tools").is_none(), "{body}");
    drop(agent); // SIGTERM: over HTTP, stdin is not the agent
}

/// The answer with `id` in an HTTP body (JSON, or an SSE stream).
fn sse_or_json(body: &str, id: i64) -> Value {
    std::iter::once(body)
        .chain(body.lines().filter_map(|l| l.strip_prefix("data: ")))
        .filter_map(|t| serde_json::from_str::<Value>(t.trim()).ok())
        .find(|v| v["id"] == json!(id) && v.get("method").is_none())
        .unwrap_or_else(|| panic!("no answer {id} in {body}"))
}

#[test]
fn serve_all_serves_the_others_while_a_variable_is_unset_and_a_fix_brings_it() {
    let unset = |value: &str| {
        demo("a", "initialize", "")
            + &demo("h", "initialize", &format!("env = {{ T = \"{value}\" }}"))
    };
    let (_dir, config) = config_dir(&unset("${MCPDECK_TEST_UNSET_TOK_27}"));
    // Named, it is a config error (exit 2), with the place.
    let run = mcpdeck(
        &["--config", config.to_str().unwrap(), "serve", "a", "h"],
        limit(20),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "config.toml:8:13: server \"h\": the environment variable MCPDECK_TEST_UNSET_TOK_27 is not set"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    // --all: the others are served; h fails alone, said on stderr.
    let mut agent = Agent::start(&config, &["--all"]);
    agent.initialize("2025-11-25", json!({}));
    let tools = agent.tool_names(json!({}));
    assert!(tools.contains(&"a__echo".to_string()), "{tools:?}");
    assert!(!tools.iter().any(|t| t.starts_with("h__")), "{tools:?}");
    let said = agent.stderr();
    assert!(
        said.contains("server \"h\" failed: ")
            && said.contains("MCPDECK_TEST_UNSET_TOK_27 is not set"),
        "{said}"
    );
    // Given a default, h starts.
    rewrite(&config, &unset("${MCPDECK_TEST_UNSET_TOK_27:-x}"));
    let deadline = Instant::now() + limit(20);
    loop {
        let tools = agent.tool_names(json!({}));
        if tools.contains(&"h__echo".to_string()) && tools.contains(&"a__echo".to_string()) {
            break;
        }
        assert!(Instant::now() < deadline, "h did not come: {tools:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    agent.finish();
}

/// One raw HTTP/1.1 exchange with any method: the whole head and the body.
fn http_raw(
    at: &str,
    method: &str,
    accept: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (String, String) {
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(at).expect("connect");
    // An answer that never comes fails the test instead of hanging it.
    s.set_read_timeout(Some(limit(60))).expect("a read timeout");
    let mut req = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {at}\r\nContent-Type: application/json\r\nAccept: {accept}\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).expect("write");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("read");
    let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
    (head.to_string(), body.to_string())
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

#[test]
fn http_sessions_end_with_delete_and_event_streams_start_primed() {
    let (_dir, config) = config_dir(&demo("a", "initialize", ""));
    let (agent, at) = start_http(&config, &["a"], &[]);
    let json = "application/json";
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
    .to_string();
    let (head, body) = http_raw(&at, "POST", json, &[], &init);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    let first = header(&head, "mcp-session-id")
        .expect("a session id")
        .to_string();
    let (head, _) = http_raw(&at, "POST", json, &[], &init);
    let second = header(&head, "mcp-session-id")
        .expect("a session id")
        .to_string();
    assert_ne!(first, second, "each initialize is a session of its own");
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let with = |id: &str| [("Mcp-Session-Id", id.to_string())];
    let call = |method: &str, id: &str, body: &str| {
        let h = with(id);
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        http_raw(&at, method, json, &h, body)
    };
    let (head, body) = call("POST", &first, ping);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    // DELETE ends it: the id is 404 from then on, the other session lives.
    let (head, _) = call("DELETE", &first, "");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let (head, body) = call("POST", &first, ping);
    assert!(head.starts_with("HTTP/1.1 404"), "{head}\n{body}");
    assert!(body.contains("initialize again"), "{body}");
    let (head, _) = call("DELETE", &first, "");
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
    let (head, _) = call("POST", &second, ping);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let (head, body) = http_raw(&at, "DELETE", json, &[], "");
    assert!(head.starts_with("HTTP/1.1 400"), "{head}");
    assert!(body.contains("Mcp-Session-Id"), "{body}");
    let (head, _) = call("POST", "not-a-session", ping);
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
    // An answer as an event stream, for a client of 2025-11-25: a priming
    // event (an id, retry, no data) first, then the answer with an id of
    // its own. An older client gets the answer alone.
    let sse = "application/json, text/event-stream";
    let (_, old_body) = http_raw(
        &at,
        "POST",
        sse,
        &[("MCP-Protocol-Version", "2025-06-18")],
        ping,
    );
    assert!(
        old_body.starts_with("event: message\n") || old_body.starts_with("id: "),
        "{old_body:?}"
    );
    assert!(
        !old_body.contains("retry:"),
        "no priming for 2025-06-18: {old_body:?}"
    );
    assert_eq!(
        old_body.split("\n\n").filter(|e| !e.is_empty()).count(),
        1,
        "{old_body:?}"
    );
    let (head, body) = http_raw(
        &at,
        "POST",
        sse,
        &[("MCP-Protocol-Version", "2025-11-25")],
        ping,
    );
    assert!(head.contains("text/event-stream"), "{head}");
    let events: Vec<&str> = body.split("\n\n").filter(|e| !e.is_empty()).collect();
    assert_eq!(events.len(), 2, "{body:?}");
    let priming: Vec<&str> = events[0].lines().collect();
    assert!(priming[0].starts_with("id: "), "{body:?}");
    assert_eq!(&priming[1..], ["retry: 1000", "data:"], "{body:?}");
    let answer: Vec<&str> = events[1].lines().collect();
    assert!(
        answer[0].starts_with("id: ") && answer[0] != priming[0],
        "{body:?}"
    );
    assert!(
        answer[2].starts_with("data: {") && answer[2].contains("\"id\":2"),
        "{body:?}"
    );
    // The stateless era's front door: a request without its `_meta` is
    // 400 with -32602, a method the era removed 404 with -32601.
    let modern = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/list"),
    ];
    let (head, body) = http_raw(
        &at,
        "POST",
        json,
        &modern,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}"#,
    );
    assert!(head.starts_with("HTTP/1.1 400"), "{head}\n{body}");
    assert!(
        body.contains("-32602") && body.contains("\"id\":3"),
        "{body}"
    );
    let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let ping = format!(r#"{{"jsonrpc":"2.0","id":4,"method":"ping","params":{{"_meta":{meta}}}}}"#);
    let (head, body) = http_raw(
        &at,
        "POST",
        json,
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "ping"),
        ],
        &ping,
    );
    assert!(head.starts_with("HTTP/1.1 404"), "{head}\n{body}");
    assert!(body.contains("-32601"), "{body}");
    let list =
        format!(r#"{{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{{"_meta":{meta}}}}}"#);
    let (head, body) = http_raw(&at, "POST", json, &modern, &list);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    assert!(body.contains("\"echo\""), "{body}");
    drop(agent);
}

/// A POST whose answer is read as it comes: each SSE `data:` (or a JSON
/// body) as a frame, until the answer to the request.
struct Streamed {
    frames: Receiver<Value>,
    head: Arc<Mutex<String>>,
}

impl Streamed {
    fn post(at: &str, headers: &[(&str, &str)], body: &str) -> Streamed {
        let mut s = std::net::TcpStream::connect(at).expect("connect");
        let mut req = format!(
            "POST /mcp HTTP/1.1\r\nHost: {at}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(body);
        s.write_all(req.as_bytes()).expect("write");
        let (tx, frames) = channel();
        let head = Arc::new(Mutex::new(String::new()));
        let seen = head.clone();
        std::thread::spawn(move || {
            let mut r = BufReader::new(s);
            let mut in_head = true;
            let mut json = false;
            let mut line = String::new();
            while r.read_line(&mut line).unwrap_or(0) > 0 {
                let l = line.trim_end().to_string();
                line.clear();
                if in_head {
                    seen.lock().unwrap().push_str(&format!("{l}\n"));
                    json |= l.eq_ignore_ascii_case("content-type: application/json");
                    in_head = !l.is_empty();
                    continue;
                }
                let data = if json {
                    Some(l.as_str())
                } else {
                    l.strip_prefix("data: ")
                };
                if let Some(v) = data.and_then(|d| serde_json::from_str::<Value>(d).ok()) {
                    let _ = tx.send(v);
                }
            }
        });
        Streamed { frames, head }
    }

    fn next(&self, what: &str) -> Value {
        self.frames
            .recv_timeout(limit(30))
            .unwrap_or_else(|_| panic!("no {what}; head: {}", self.head.lock().unwrap()))
    }
}

#[test]
fn two_agents_of_different_eras_each_get_only_their_own_context() {
    // The Python SDK server speaks both eras; its `whoami` asks for a
    // person (elicitation) and the roots: by server requests in the
    // initialize era, by input_required in the stateless one.
    let (_dir, config) = config_dir(&py_server("py"));
    let (agent, at) = start_http(&config, &["py"], &[]);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {"form": {}}, "roots": {}},
        "clientInfo": {"name": "a", "version": "0"}}})
    .to_string();
    let (head, body) = http_raw(&at, "POST", "application/json", &[], &init);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    let a = header(&head, "mcp-session-id")
        .expect("a session")
        .to_string();
    let a_headers = [
        ("Mcp-Session-Id", a.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let (head, _) = http_raw(
        &at,
        "POST",
        "application/json",
        &a_headers,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert!(head.starts_with("HTTP/1.1 202"), "{head}");

    // Agent A (initialize era) calls whoami: the server's elicitation
    // comes to A, on its call's stream.
    let a_call = Streamed::post(
        &at,
        &a_headers,
        r#"{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"whoami","arguments":{}}}"#,
    );
    let ask = loop {
        let f = a_call.next("elicitation for agent A");
        if f["method"] == "elicitation/create" {
            break f;
        }
        assert!(f["method"].is_string(), "A's call ended early: {f}");
    };

    // Meanwhile agent B (stateless) calls whoami too: the server's
    // input_required comes back as the server sent it (its own keys and
    // state), and A's elicitation never reaches B.
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}, "roots": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "b", "version": "0"},
    });
    let b_headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "whoami"),
    ];
    let b_call = json!({"jsonrpc": "2.0", "id": "b-1", "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}, "_meta": meta}});
    let (head, body) = http_raw(
        &at,
        "POST",
        "application/json",
        &b_headers,
        &b_call.to_string(),
    );
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    let round: Value = serde_json::from_str(&body).expect("JSON");
    let result = &round["result"];
    assert_eq!(result["resultType"], "input_required", "{round}");
    let requests = result["inputRequests"].as_object().expect("inputRequests");
    assert!(
        requests.keys().all(|k| !k.starts_with("mcpdeck-")),
        "the server's own keys: {round}"
    );
    let state = result["requestState"].as_str().unwrap_or_default();
    assert!(
        !state.is_empty() && !state.starts_with("mcpdeck/"),
        "the server's own requestState: {round}"
    );
    // B answers each request the server made, and asks again.
    let mut responses = serde_json::Map::new();
    for (key, r) in requests {
        let answer = match r["method"].as_str() {
            Some("elicitation/create") => {
                json!({"action": "accept", "content": {"name": "Bea", "age": 7}})
            }
            Some("roots/list") => json!({"roots": [{"uri": "file:///b-root/", "name": "b"}]}),
            other => panic!("an input request of {other:?}: {round}"),
        };
        responses.insert(key.clone(), answer);
    }
    let retry = json!({"jsonrpc": "2.0", "id": "b-2", "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}, "_meta": meta,
            "inputResponses": responses, "requestState": state}});
    let (head, body) = http_raw(
        &at,
        "POST",
        "application/json",
        &b_headers,
        &retry.to_string(),
    );
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    assert!(body.contains("hello Bea (7)"), "{body}");
    assert!(
        body.contains("b-root"),
        "B's own roots went upstream: {body}"
    );

    // A answers its own elicitation; its call ends with its answer.
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"],
        "result": {"action": "accept", "content": {"name": "Al", "age": 40}}});
    let (head, _) = http_raw(
        &at,
        "POST",
        "application/json",
        &a_headers,
        &answer.to_string(),
    );
    assert!(head.starts_with("HTTP/1.1 202"), "{head}");
    let done = loop {
        let f = a_call.next("A's answer");
        if f["id"] == "a-1" {
            break f;
        }
        // Only A's own requests come on A's stream (roots, say).
        assert!(f["method"].is_string(), "{f}");
        if f["method"] == "roots/list" {
            let roots = json!({"jsonrpc": "2.0", "id": f["id"], "result": {"roots": []}});
            http_raw(
                &at,
                "POST",
                "application/json",
                &a_headers,
                &roots.to_string(),
            );
        }
    };
    let text = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("hello Al (40)"), "{done}");
    assert!(
        !text.contains("b-root"),
        "B's roots never reach A's call: {done}"
    );

    // A leaves; B's next call is answered as before, nothing of A's left.
    let (head, _) = http_raw(&at, "DELETE", "application/json", &a_headers, "");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let b_again = json!({"jsonrpc": "2.0", "id": "b-3", "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}, "_meta": meta}});
    let (head, body) = http_raw(
        &at,
        "POST",
        "application/json",
        &b_headers,
        &b_again.to_string(),
    );
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    assert!(body.contains("input_required"), "{body}");
    // A stateless agent that declares nothing is refused by the server
    // (serve declares upstream what the agent declared: -32021, HTTP 400).
    let bare = json!({"jsonrpc": "2.0", "id": "c-1", "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let (head, body) = http_raw(
        &at,
        "POST",
        "application/json",
        &b_headers,
        &bare.to_string(),
    );
    assert!(head.starts_with("HTTP/1.1 400"), "{head}\n{body}");
    let refused: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(refused["id"], "c-1", "{refused}");
    drop(agent);
}

#[test]
fn a_session_stream_left_mid_call_is_resumed_with_last_event_id() {
    let (_dir, config) = config_dir(&py_server("py"));
    let (agent, at) = start_http(&config, &["py"], &[]);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "a", "version": "0"}}})
    .to_string();
    let (head, body) = http_raw(&at, "POST", "application/json", &[], &init);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    let sid = header(&head, "mcp-session-id")
        .expect("a session")
        .to_string();
    let headers = [
        ("Mcp-Session-Id", sid.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    http_raw(
        &at,
        "POST",
        "application/json",
        &headers,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    // A slow call (twenty progress steps, 50 ms each); the client reads
    // the priming event and the first progress, then goes away.
    let mut s = std::net::TcpStream::connect(&at).expect("connect");
    let call = r#"{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"slow","arguments":{"steps":20},"_meta":{"progressToken":"p"}}}"#;
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: {at}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{call}",
        call.len()
    );
    s.write_all(req.as_bytes()).expect("write");
    let mut r = BufReader::new(s.try_clone().expect("clone"));
    let (mut last, mut progress_seen) = (String::new(), 0);
    let mut line = String::new();
    while progress_seen == 0 && r.read_line(&mut line).unwrap_or(0) > 0 {
        if let Some(id) = line.trim_end().strip_prefix("id: ") {
            last = id.to_string();
        }
        if line.contains("notifications/progress") {
            progress_seen += 1;
        }
        line.clear();
    }
    assert!(
        progress_seen == 1 && !last.is_empty(),
        "no progress with an id"
    );
    s.shutdown(std::net::Shutdown::Both).ok();
    drop(r);
    std::thread::sleep(Duration::from_millis(300));

    // Another session cannot take this stream: its Last-Event-ID is not
    // its own (a plain GET stream, with nothing of the call).
    let (head, _) = http_raw(&at, "POST", "application/json", &[], &init);
    let other = header(&head, "mcp-session-id")
        .expect("a session")
        .to_string();
    let mut s = std::net::TcpStream::connect(&at).expect("connect");
    let req = format!(
        "GET /mcp HTTP/1.1\r\nHost: {at}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {other}\r\nMCP-Protocol-Version: 2025-11-25\r\nLast-Event-ID: {last}\r\n\r\n"
    );
    s.write_all(req.as_bytes()).expect("write");
    s.set_read_timeout(Some(Duration::from_millis(1500))).ok();
    let mut seen = String::new();
    let _ = std::io::Read::read_to_string(&mut s, &mut seen);
    assert!(seen.starts_with("HTTP/1.1 200"), "{seen}");
    assert!(
        !seen.contains("progress") && !seen.contains("slow-1"),
        "another session's stream: {seen}"
    );
    // Back, with the last event id seen: the events missed, then the rest
    // as they come, and the answer under the agent's own id.
    let mut s = std::net::TcpStream::connect(&at).expect("connect");
    let req = format!(
        "GET /mcp HTTP/1.1\r\nHost: {at}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\nLast-Event-ID: {last}\r\n\r\n"
    );
    s.write_all(req.as_bytes()).expect("write");
    s.set_read_timeout(Some(limit(20))).ok();
    let mut r = BufReader::new(s);
    let mut steps = Vec::new();
    let mut answer = None;
    let mut ids = Vec::new();
    while r.read_line(&mut line).unwrap_or(0) > 0 {
        let l = line.trim_end().to_string();
        line.clear();
        if let Some(id) = l.strip_prefix("id: ") {
            ids.push(id.to_string());
        }
        let Some(data) = l.strip_prefix("data: ") else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(data) else {
            continue;
        };
        if v["method"] == "notifications/progress" {
            assert_eq!(v["params"]["progressToken"], "p", "{v}");
            steps.push(v["params"]["progress"].as_f64().unwrap_or_default());
        } else if v.get("id").is_some() {
            answer = Some(v);
            break;
        }
    }
    let answer = answer.expect("the answer after the resume");
    assert_eq!(answer["id"], "slow-1", "{answer}");
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("done after 20 steps")),
        "{answer}"
    );
    // Every step after the first, each once, in order.
    let want: Vec<f64> = (2..=20).map(f64::from).collect();
    assert_eq!(steps, want, "the progress missed and the rest");
    assert!(!ids.contains(&last), "only events after {last}: {ids:?}");
    drop(agent);
}

#[test]
fn an_idle_session_ends_after_session_idle() {
    // A name no other test uses: its server processes are counted.
    let name = format!("idle{}", std::process::id());
    let (_dir, config) = config_dir(&demo(&name, "initialize", ""));
    let (agent, at) = start_http(&config, &["--session-idle", "1", &name], &[]);
    let servers = || demo_processes(&name);
    let sid = http_session(&at, json!({}));
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let with = [("Mcp-Session-Id", sid.as_str())];
    // Used within the second: alive.
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(400));
        let (head, _) = http_raw(&at, "POST", "application/json", &with, ping);
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    }
    // The shared context's server and the session's own.
    assert_eq!(servers(), 2, "one upstream process per context");
    // Unused for over a second: ended, as after a DELETE, and its
    // upstream server with it.
    std::thread::sleep(Duration::from_millis(2500));
    let (head, body) = http_raw(&at, "POST", "application/json", &with, ping);
    assert!(head.starts_with("HTTP/1.1 404"), "{head}\n{body}");
    let deadline = Instant::now() + limit(10);
    while servers() > 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(servers(), 1, "the session's server is gone with it");
    drop(agent);
}

#[test]
fn a_server_giving_up_its_request_tells_the_agent_and_needs_no_answer() {
    let (_dir, config) = config_dir(&fixture_server("c", "cancelling_server.py", ""));
    let mut agent = Agent::start(&config, &["c"]);
    agent.initialize("2025-11-25", json!({"elicitation": {"form": {}}}));
    let call = agent.send(
        "tools/call",
        json!({"name": "ask_then_give_up", "arguments": {}}),
    );
    let ask = agent.wait_for("elicitation/create", |v| {
        v["method"] == "elicitation/create"
    });
    let cancelled = agent.notification("notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], ask["id"], "{cancelled}");
    assert_eq!(
        cancelled["params"]["reason"], "took too long",
        "{cancelled}"
    );
    let done = agent.response(call);
    assert_eq!(done["result"]["content"][0]["text"], "gave up", "{done}");
    // The agent answers anyway, late: serve does not pass it on (the
    // server gave the request up).
    agent.write(&json!({"jsonrpc": "2.0", "id": ask["id"],
        "result": {"action": "accept", "content": {"name": "late"}}}));
    let r = agent.request(
        "tools/call",
        json!({"name": "late_answers", "arguments": {}}),
    );
    assert_eq!(r["content"][0]["text"], "late answers: 0", "{r}");
    agent.finish();
}

/// Initialize a session over HTTP; its id.
fn http_session(at: &str, capabilities: Value) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "t", "version": "0"}}})
    .to_string();
    let (head, body) = http_raw(at, "POST", "application/json", &[], &init);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    header(&head, "mcp-session-id")
        .expect("a session")
        .to_string()
}

/// The demo-server processes named `name`.
fn demo_processes(name: &str) -> usize {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("cmdline")).is_ok_and(|c| {
                let c = String::from_utf8_lossy(&c);
                c.contains("\0demo-server\0") && c.contains(&format!("\0{name}\0"))
            })
        })
        .count()
}

#[test]
fn a_session_with_a_get_stream_open_still_ends_with_delete() {
    let name = format!("getdel{}", std::process::id());
    let (_dir, config) = config_dir(&demo(&name, "initialize", ""));
    let (agent, at) = start_http(&config, &[&name], &[]);
    let sid = http_session(&at, json!({}));
    // A GET stream, open (the client keeps it).
    let mut get = std::net::TcpStream::connect(&at).expect("connect");
    let req = format!(
        "GET /mcp HTTP/1.1\r\nHost: {at}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
    );
    get.write_all(req.as_bytes()).expect("write");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        demo_processes(&name),
        2,
        "the shared context's and the session's"
    );
    let (head, _) = http_raw(
        &at,
        "DELETE",
        "application/json",
        &[("Mcp-Session-Id", &sid)],
        "",
    );
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    // The session's context ends, its server with it, and the stream.
    let deadline = Instant::now() + limit(10);
    while demo_processes(&name) > 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(demo_processes(&name), 1, "the session's server is gone");
    get.set_read_timeout(Some(limit(10))).ok();
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut get, &mut rest);
    assert!(
        rest.starts_with("HTTP/1.1 200"),
        "the stream ended: {rest:?}"
    );
    // A stream without a session: refused (a stateless agent has none).
    let (head, _) = http_raw(&at, "GET", "text/event-stream", &[], "");
    assert!(head.starts_with("HTTP/1.1 405"), "{head}");
    drop(agent);
}

#[test]
fn many_requests_at_once_in_one_session_each_get_their_own_answer() {
    let (_dir, config) = config_dir(&demo("a", "initialize", ""));
    let (agent, at) = start_http(&config, &["a"], &[]);
    let sid = http_session(&at, json!({}));
    // Progress flows meanwhile, on a call of its own.
    let busy = Streamed::post(
        &at,
        &[
            ("Mcp-Session-Id", sid.as_str()),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        r#"{"jsonrpc":"2.0","id":"busy","method":"tools/call","params":{"name":"slow_task","arguments":{"steps":100,"delay_ms":5},"_meta":{"progressToken":"b"}}}"#,
    );
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (at, sid) = (at.clone(), sid.clone());
            std::thread::spawn(move || {
                for n in 0..25 {
                    let id = format!("p-{t}-{n}");
                    let ping = json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();
                    let accept = if n % 2 == 0 {
                        "application/json"
                    } else {
                        "application/json, text/event-stream"
                    };
                    let (head, body) = http_raw(
                        &at,
                        "POST",
                        accept,
                        &[
                            ("Mcp-Session-Id", &sid),
                            ("MCP-Protocol-Version", "2025-11-25"),
                        ],
                        &ping,
                    );
                    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
                    assert!(body.contains(&format!("\"id\":\"{id}\"")), "{id}: {body}");
                    assert!(!body.contains("notifications/progress"), "{id}: {body}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a client thread");
    }
    let done = loop {
        let f = busy.next("the busy call's answer");
        if f["id"] == "busy" {
            break f;
        }
        assert_eq!(f["method"], "notifications/progress", "{f}");
    };
    assert!(done["result"].is_object(), "{done}");
    drop(agent);
}

#[test]
fn a_stateless_cancellation_never_reaches_another_agents_request() {
    let (_dir, config) = config_dir(&demo("a", "dual", ""));
    let (agent, at) = start_http(&config, &["a"], &[]);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "slow_task"),
    ];
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "slow_task", "arguments": {"steps": 4, "delay_ms": 100}, "_meta": meta}})
    .to_string();
    // Another agent's request with the same id is in flight.
    let other = {
        let (at, call) = (at.clone(), call.clone());
        std::thread::spawn(move || {
            let headers = [
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "slow_task"),
            ];
            http_raw(&at, "POST", "application/json", &headers, &call)
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    // A cancellation without a session names nothing of its own.
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1, "_meta": meta}})
    .to_string();
    let (head, _) = http_raw(
        &at,
        "POST",
        "application/json",
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "notifications/cancelled"),
        ],
        &cancel,
    );
    assert!(
        head.starts_with("HTTP/1.1 202") || head.starts_with("HTTP/1.1 4"),
        "{head}"
    );
    let (head, body) = other.join().expect("the other agent");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    assert!(
        body.contains("\"result\""),
        "answered, not cancelled: {body}"
    );
    let (_, body) = http_raw(&at, "POST", "application/json", &headers, &call);
    assert!(body.contains("\"result\""), "{body}");
    drop(agent);
}
