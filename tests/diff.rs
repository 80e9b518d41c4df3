//! `mcpdeck diff`: pairs of real tool lists (server-everything's own
//! `tools --json`, and copies of it changed in the test for each breaking
//! kind), a live server against its own snapshot and pin file, a
//! recording written by hand, the three output formats, the exit codes.

mod common;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

struct Fixture {
    dir: tempfile::TempDir,
    marker: String,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        Fixture {
            dir: tempfile::tempdir().expect("tempdir"),
            marker: common::marker(&format!("diff-{name}")),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `node …/MARKER/everything.js stdio`: server-everything, started
    /// through a link whose path holds the marker.
    fn everything(&self) -> Vec<String> {
        let link = self.dir.path().join(&self.marker).join("everything.js");
        if !link.exists() {
            std::fs::create_dir_all(link.parent().expect("parent")).expect("mkdir");
            std::os::unix::fs::symlink(common::everything_js(), &link).expect("symlink");
        }
        vec!["node".into(), link.display().to_string(), "stdio".into()]
    }

    fn run(&self, args: &[&str]) -> common::Run {
        let pins = self.path("pins.json");
        common::mcpdeck_env(
            args,
            &[("MCPDECK_PINS", pins.to_str().expect("utf-8 path"))],
            common::limit(60),
        )
    }

    /// `mcpdeck ARGS… -- node everything.js stdio`.
    fn run_live(&self, args: &[&str]) -> common::Run {
        let cmd = self.everything();
        let mut all: Vec<&str> = args.to_vec();
        all.push("--");
        all.extend(cmd.iter().map(String::as_str));
        self.run(&all)
    }

    /// server-everything's `tools --json`, as the test captured it.
    fn snapshot(&self) -> Value {
        let run = self.run_live(&["tools", "--json"]);
        run.ok();
        let v: Value = serde_json::from_str(&run.stdout).expect("tools --json is JSON");
        assert!(v["tools"].as_array().is_some_and(|t| t.len() >= 10), "{v}");
        v
    }

    fn write(&self, name: &str, v: &Value) -> String {
        let p = self.path(name);
        std::fs::write(&p, serde_json::to_string_pretty(v).expect("json")).expect("write");
        p.display().to_string()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            common::assert_no_leak(&self.marker);
        }
    }
}

fn json_of(run: &common::Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\nstderr:\n{}", run.stdout, run.stderr))
}

/// The tool named `name` in a snapshot, to edit.
fn tool<'a>(snap: &'a mut Value, name: &str) -> &'a mut Value {
    snap["tools"]
        .as_array_mut()
        .and_then(|ts| ts.iter_mut().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("server-everything has no tool {name}"))
}

#[test]
fn live_server_against_its_own_snapshot_has_no_change() {
    let fx = Fixture::new("self");
    let snap = fx.snapshot();
    let file = fx.write("tools.json", &snap);
    let run = fx.run_live(&["diff", &file]);
    run.ok();
    assert!(run.stdout.contains(": no changes"), "{}", run.stdout);
    assert!(run.stdout.contains("(compared: tools)"), "{}", run.stdout);
    let run = fx.run_live(&["diff", &file, "--json"]);
    run.ok();
    let v = json_of(&run);
    assert_eq!(v["breaking"], 0);
    assert_eq!(v["nonBreaking"], 0);
    assert_eq!(v["changes"], json!([]));
    assert_eq!(v["compared"], json!(["tools"]));
}

/// Each breaking kind, from a copy of the real list edited for it: the
/// one change found, with its path; exit 1.
#[test]
fn each_breaking_kind_over_real_tool_lists() {
    let fx = Fixture::new("kinds");
    let base = fx.snapshot();
    let a = fx.write("a.json", &base);
    type Edit = fn(&mut Value);
    let cases: Vec<(&str, &str, Edit)> = vec![
        ("tool-removed", "tools/echo", |s| {
            if let Some(ts) = s["tools"].as_array_mut() {
                ts.retain(|t| t["name"] != "echo");
            }
        }),
        (
            "required-parameter-added",
            "tools/echo/inputSchema/properties/prefix",
            |s| {
                let t = tool(s, "echo");
                t["inputSchema"]["properties"]["prefix"] = json!({"type": "string"});
                t["inputSchema"]["required"] = json!(["message", "prefix"]);
            },
        ),
        (
            "parameter-now-required",
            "tools/get-annotated-message/inputSchema/properties/includeImage",
            |s| {
                tool(s, "get-annotated-message")["inputSchema"]["required"] =
                    json!(["messageType", "includeImage"]);
            },
        ),
        (
            "parameter-type-changed",
            "tools/get-resource-links/inputSchema/properties/count/type",
            |s| {
                tool(s, "get-resource-links")["inputSchema"]["properties"]["count"]["type"] =
                    json!("integer");
            },
        ),
        (
            "constraint-narrowed",
            "tools/get-resource-links/inputSchema/properties/count/maximum",
            |s| {
                tool(s, "get-resource-links")["inputSchema"]["properties"]["count"]["maximum"] =
                    json!(5);
            },
        ),
        (
            "enum-value-removed",
            "tools/get-annotated-message/inputSchema/properties/messageType/enum",
            |s| {
                tool(s, "get-annotated-message")["inputSchema"]["properties"]["messageType"]["enum"] =
                    json!(["error", "success"]);
            },
        ),
        (
            "enum-added",
            "tools/echo/inputSchema/properties/message/enum",
            |s| {
                tool(s, "echo")["inputSchema"]["properties"]["message"]["enum"] = json!(["hello"]);
            },
        ),
        (
            "additional-properties-closed",
            "tools/get-sum/inputSchema/additionalProperties",
            |s| tool(s, "get-sum")["inputSchema"]["additionalProperties"] = json!(false),
        ),
        (
            "output-property-removed",
            "tools/get-structured-content/outputSchema/properties/humidity",
            |s| {
                let o = &mut tool(s, "get-structured-content")["outputSchema"];
                if let Some(p) = o["properties"].as_object_mut() {
                    p.remove("humidity");
                }
                o["required"] = json!(["temperature", "conditions"]);
            },
        ),
        (
            "output-type-changed",
            "tools/get-structured-content/outputSchema/properties/temperature/type",
            |s| {
                tool(s, "get-structured-content")["outputSchema"]["properties"]["temperature"]["type"] =
                    json!("string");
            },
        ),
        (
            "annotation-destructive",
            "tools/echo/annotations/destructiveHint",
            |s| tool(s, "echo")["annotations"]["destructiveHint"] = json!(true),
        ),
        (
            "annotation-destructive",
            "tools/get-sum/annotations/readOnlyHint",
            |s| tool(s, "get-sum")["annotations"]["readOnlyHint"] = json!(false),
        ),
    ];
    for (i, (kind, path, edit)) in cases.into_iter().enumerate() {
        let mut changed = base.clone();
        edit(&mut changed);
        let b = fx.write(&format!("b{i}.json"), &changed);
        let run = fx.run(&["diff", &a, &b, "--json"]);
        assert_eq!(
            run.code, 1,
            "{kind}: exit {}\n{}{}",
            run.code, run.stdout, run.stderr
        );
        let v = json_of(&run);
        assert_eq!(v["breaking"], 1, "{kind}: {v:#}");
        assert_eq!(v["nonBreaking"], 0, "{kind}: {v:#}");
        let c = &v["changes"][0];
        assert_eq!(c["kind"], *kind, "{v:#}");
        assert_eq!(c["breaking"], true, "{v:#}");
        assert_eq!(c["path"], *path, "{v:#}");
        assert!(
            c["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{v:#}"
        );
    }
}

#[test]
fn non_breaking_changes_exit_0() {
    let fx = Fixture::new("nonbreaking");
    let base = fx.snapshot();
    let mut changed = base.clone();
    tool(&mut changed, "echo")["description"] = json!("Echoes the input back, unchanged");
    tool(&mut changed, "echo")["inputSchema"]["properties"]["times"] =
        json!({"type": "integer", "description": "How often"});
    tool(&mut changed, "get-resource-links")["inputSchema"]["properties"]["count"]["maximum"] =
        json!(20);
    if let Some(ts) = changed["tools"].as_array_mut() {
        ts.push(json!({"name": "brand-new", "inputSchema": {"type": "object"}}));
    }
    let (a, b) = (fx.write("a.json", &base), fx.write("b.json", &changed));
    let run = fx.run(&["diff", &a, &b, "--json"]);
    run.ok();
    let v = json_of(&run);
    assert_eq!(v["breaking"], 0, "{v:#}");
    let kinds: Vec<&str> = v["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["kind"].as_str())
        .collect();
    assert_eq!(
        kinds,
        [
            "tool-added",
            "description-changed",
            "optional-parameter-added",
            "constraint-widened"
        ],
        "{v:#}"
    );
    assert_eq!(v["nonBreaking"], 4);
}

#[test]
fn text_and_markdown_put_breaking_changes_first() {
    let fx = Fixture::new("formats");
    let base = fx.snapshot();
    let mut changed = base.clone();
    tool(&mut changed, "echo")["description"] = json!("Echo | with a `pipe`");
    if let Some(ts) = changed["tools"].as_array_mut() {
        ts.retain(|t| t["name"] != "get-sum");
    }
    let (a, b) = (fx.write("a.json", &base), fx.write("b.json", &changed));

    let run = fx.run(&["diff", &a, &b]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let t = &run.stdout;
    assert!(
        t.lines()
            .next()
            .is_some_and(|l| l.ends_with("b.json: 1 breaking change, 1 non-breaking change")),
        "{t}"
    );
    let (breaking, other) = (t.find("Breaking:"), t.find("Non-breaking:"));
    assert!(
        matches!((breaking, other), (Some(x), Some(y)) if x < y),
        "{t}"
    );
    assert!(t.contains("tool \"get-sum\" was removed"), "{t}");

    let run = fx.run(&["diff", &a, &b, "--markdown"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let md = &run.stdout;
    assert!(
        md.starts_with("### ❌ mcpdeck diff: 1 breaking change, 1 non-breaking change\n"),
        "{md}"
    );
    // The rows of the table, after its header and rule.
    let rows: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| |"))
        .collect();
    assert!(md.contains("\n| | Change | Where | What |\n|---|"), "{md}");
    assert_eq!(rows.len(), 2, "{md}");
    assert!(
        rows[0].contains("`tool-removed`") && rows[0].contains("breaking"),
        "{md}"
    );
    assert!(rows[1].contains("`description-changed`"), "{md}");

    // No change: a green header and no table.
    let run = fx.run(&["diff", &a, &a, "--markdown"]);
    run.ok();
    assert!(
        run.stdout.starts_with("### ✅ mcpdeck diff: no changes"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("|---"), "{}", run.stdout);
}

#[test]
fn pin_file_against_the_live_server() {
    let fx = Fixture::new("pin");
    let pin = fx.run_live(&["pin"]);
    pin.ok();
    let pins = fx.path("pins.json").display().to_string();
    let run = fx.run_live(&["diff", &pins, "--json"]);
    run.ok();
    let v = json_of(&run);
    assert_eq!(v["changes"], json!([]), "{v:#}");
    assert_eq!(
        v["compared"],
        json!(["tools", "prompts", "resources", "templates"])
    );

    // The pins against a snapshot without one of the tools: only tools are
    // compared, and the removal breaks.
    let mut snap = fx.snapshot();
    if let Some(ts) = snap["tools"].as_array_mut() {
        ts.retain(|t| t["name"] != "echo");
    }
    let b = fx.write("b.json", &snap);
    let run = fx.run(&["diff", &pins, &b, "--json"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let v = json_of(&run);
    assert_eq!(v["breaking"], 1, "{v:#}");
    assert_eq!(v["changes"][0]["kind"], "tool-removed");
    assert_eq!(v["skipped"], json!(["prompts", "resources", "templates"]));
}

/// A recording in the `--record` format, written by hand: a header, then
/// frames; the tools come in two pages.
fn recording(path: &Path, tools: &[Value]) {
    let (first, second) = tools.split_at(tools.len() / 2);
    let line = |dir: &str, frame: Value| {
        json!({"t": 0.5, "ts": "2026-11-24T21:00:00Z", "server": "everything", "dir": dir, "frame": frame})
            .to_string()
    };
    let lines = [
        json!({"mcpdeck_recording": 1, "version": "0.1.0", "started": "2026-11-24T21:00:00Z",
               "servers": [{"name": "everything", "transport": "stdio", "command": "node"}]})
        .to_string(),
        line(
            "send",
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
        ),
        line(
            "recv",
            json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25"}}),
        ),
        line(
            "send",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
        ),
        line(
            "recv",
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": first, "nextCursor": "2"}}),
        ),
        line(
            "send",
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": "2"}}),
        ),
        line(
            "recv",
            json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": second}}),
        ),
    ];
    std::fs::write(path, lines.join("\n") + "\n").expect("write recording");
}

#[test]
fn recording_as_input() {
    let fx = Fixture::new("recording");
    let snap = fx.snapshot();
    let tools = snap["tools"].as_array().cloned().unwrap_or_default();
    let rec = fx.path("session.jsonl");
    recording(&rec, &tools);
    let rec = rec.display().to_string();
    let file = fx.write("tools.json", &snap);
    let run = fx.run(&["diff", &rec, &file, "--json"]);
    run.ok();
    assert_eq!(json_of(&run)["changes"], json!([]));

    // Against the live server too (only the tools were recorded).
    let run = fx.run_live(&["diff", &rec]);
    run.ok();
    assert!(run.stdout.contains("no changes"), "{}", run.stdout);

    // A recording without the last page's tools: they were removed.
    let cut = fx.path("cut.jsonl");
    recording(&cut, &tools[..tools.len() - 1]);
    let run = fx.run(&["diff", &file, &cut.display().to_string(), "--json"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let v = json_of(&run);
    assert_eq!(v["changes"][0]["kind"], "tool-removed", "{v:#}");
    assert_eq!(v["changes"][0]["name"], tools[tools.len() - 1]["name"]);

    // --server names a server the recording does not have.
    let run = fx.run(&["diff", &rec, &file, "--server", "other"]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("recorded: everything"),
        "{}",
        run.stderr
    );
}

#[test]
fn two_live_servers_given_as_commands() {
    let fx = Fixture::new("live2");
    let cmd = fx.everything().join(" ");
    let run = fx.run(&["diff", "--a-cmd", &cmd, "--b-cmd", &cmd, "--json"]);
    run.ok();
    let v = json_of(&run);
    assert_eq!(v["changes"], json!([]), "{v:#}");
    assert_eq!(
        v["compared"],
        json!(["tools", "prompts", "resources", "templates"])
    );
}

#[test]
fn usage_input_and_connection_errors_have_their_codes() {
    let fx = Fixture::new("errors");
    let good = fx.write("good.json", &json!({"tools": []}));
    let bad = fx.write("bad.json", &json!({"hello": "world"}));

    // One side only.
    let run = fx.run(&["diff", &good]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("diff needs two sides"),
        "{}",
        run.stderr
    );

    // A file of the wrong kind names the file and what was expected.
    let run = fx.run(&["diff", &good, &bad]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("bad.json"), "{}", run.stderr);
    assert!(run.stderr.contains("snapshot"), "{}", run.stderr);
    assert!(run.stderr.contains("recording"), "{}", run.stderr);
    assert!(run.stderr.contains("pin file"), "{}", run.stderr);

    // A word that is neither a file nor a server.
    let run = fx.run(&["diff", &good, "no-such-thing"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("\"no-such-thing\""), "{}", run.stderr);

    // Two files with no list in common: nothing compared is no pass.
    let prompts = fx.write("prompts.json", &json!({"prompts": []}));
    let run = fx.run(&["diff", &good, &prompts]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("nothing to compare"), "{}", run.stderr);
    assert!(run.stderr.contains("has tools"), "{}", run.stderr);

    // --json and --markdown together.
    let run = fx.run(&["diff", &good, &good, "--json", "--markdown"]);
    assert_eq!(run.code, 2, "{}", run.stderr);

    // A server that cannot start: the connect code (3).
    let run = fx.run(&["diff", &good, "--", "/nonexistent/mcp-server"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("could not start"), "{}", run.stderr);
}

#[test]
fn url_side_against_a_stdio_snapshot() {
    let fx = Fixture::new("url");
    let file = fx.write("tools.json", &fx.snapshot());
    let server = common::everything_http("streamableHttp");
    let run = fx.run(&["diff", &file, &server.url, "--json"]);
    run.ok();
    let v = json_of(&run);
    assert_eq!(v["changes"], json!([]), "{v:#}");
    assert_eq!(v["compared"], json!(["tools"]));
}

/// The Python SDK's server (mcp 1.30, Pydantic schemas): a "next release"
/// edited from its real list, and the live server against its own pins
/// (tools, prompts, resources and templates).
#[test]
fn python_sdk_server_lists() {
    let fx = Fixture::new("py");
    let script = common::server_script("py_v1_server.py")
        .display()
        .to_string();
    let py = common::py_v1().display().to_string();
    let live = |args: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--", &py, "-X", &fx.marker, &script]);
        fx.run(&all)
    };
    let run = live(&["tools", "--json"]);
    run.ok();
    let base = json_of(&run);
    let mut next = base.clone();
    {
        let out = &mut tool(&mut next, "get_weather")["outputSchema"];
        out["properties"]["temperature_c"]["type"] = json!("integer");
        if let Some(p) = out["properties"].as_object_mut() {
            p.remove("conditions");
        }
        out["required"] = json!(["city", "temperature_c"]);
    }
    tool(&mut next, "slow")["inputSchema"]["properties"]["steps"]["maximum"] = json!(10);
    tool(&mut next, "echo")["inputSchema"]["properties"]["upper"] =
        json!({"title": "Upper", "type": "boolean", "default": false});
    let (a, b) = (fx.write("a.json", &base), fx.write("b.json", &next));
    let run = fx.run(&["diff", &a, &b, "--json"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let v = json_of(&run);
    let found: Vec<(String, bool)> = v["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                format!(
                    "{} {}",
                    c["kind"].as_str().unwrap_or("?"),
                    c["path"].as_str().unwrap_or("?")
                ),
                c["breaking"] == true,
            )
        })
        .collect();
    let want: Vec<(String, bool)> = [
        (
            "output-property-removed tools/get_weather/outputSchema/properties/conditions",
            true,
        ),
        (
            "constraint-narrowed tools/slow/inputSchema/properties/steps/maximum",
            true,
        ),
        (
            "optional-parameter-added tools/echo/inputSchema/properties/upper",
            false,
        ),
        (
            "output-type-narrowed tools/get_weather/outputSchema/properties/temperature_c/type",
            false,
        ),
    ]
    .into_iter()
    .map(|(s, b)| (s.to_string(), b))
    .collect();
    assert_eq!(found, want, "{v:#}");

    // Pinned, then compared live: the same, in all four lists.
    live(&["pin"]).ok();
    let pins = fx.path("pins.json").display().to_string();
    let run = live(&["diff", &pins, "--json"]);
    run.ok();
    let v = json_of(&run);
    assert_eq!(v["changes"], json!([]), "{v:#}");
    assert_eq!(
        v["compared"],
        json!(["tools", "prompts", "resources", "templates"])
    );
}

#[test]
fn configured_server_by_name() {
    let fx = Fixture::new("named");
    let file = fx.write("tools.json", &fx.snapshot());
    let cmd = fx.everything();
    let config = fx.path("config.toml");
    std::fs::write(
        &config,
        format!(
            "[servers.everything]\ncommand = {:?}\nargs = [{:?}, {:?}]\n",
            cmd[0], cmd[1], cmd[2]
        ),
    )
    .expect("write config");
    let run = common::mcpdeck_env(
        &["diff", "everything", &file, "--json"],
        &[("MCPDECK_CONFIG", config.to_str().expect("utf-8 path"))],
        common::limit(60),
    );
    run.ok();
    let v = json_of(&run);
    assert_eq!(v["changes"], json!([]), "{v:#}");
    assert_eq!(v["compared"], json!(["tools"]));
}

#[test]
fn one_side_from_stdin() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let fx = Fixture::new("stdin");
    let a = fx.write(
        "a.json",
        &json!({"tools": [{"name": "x", "inputSchema": {}}]}),
    );
    let mut child = Command::new(common::mcpdeck_bin())
        .args(["diff", &a, "-", "--json"])
        .env(
            "MCPDECK_CONFIG",
            common::repo().join("tests/fixtures/empty.toml"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcpdeck");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(br#"{"tools": []}"#)
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["changes"][0]["kind"], "tool-removed");

    let run = fx.run(&["diff", "-", "-"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("only one side"), "{}", run.stderr);
}
