//! Spans over OTLP/HTTP, received by a real receiver
//! (tests/fixtures/otlp_receiver.py decodes each `ExportTraceServiceRequest`
//! with the official opentelemetry-proto package): names and attributes of
//! the handshake, lists, tool calls, errors; content capture off and on;
//! the trace context the server gets; an unreachable collector; and no
//! trace context at all when telemetry is off.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{
    HttpServer, everything_http, free_port, limit, mcpdeck_bin, py_v2, repo, run_limited,
};
use serde_json::Value;

/// The receiver, and the file it writes the spans to.
struct Receiver {
    server: HttpServer,
    out: PathBuf,
    _dir: tempfile::TempDir,
}

impl Receiver {
    fn start() -> Receiver {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("spans.jsonl");
        let mut cmd = Command::new(py_v2());
        cmd.arg(repo().join("tests/fixtures/otlp_receiver.py"))
            .arg(&out);
        let server = HttpServer::start_announced(cmd, "");
        Receiver {
            server,
            out,
            _dir: dir,
        }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.server.port)
    }

    fn spans(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.out).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }
}

/// mcpdeck with exactly these telemetry variables (none of the caller's).
fn run(args: &[&str], env: &[(&str, &str)], config: Option<&Path>) -> common::Run {
    let mut cmd = Command::new(mcpdeck_bin());
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, _) in std::env::vars() {
        if k.starts_with("OTEL_") {
            cmd.env_remove(k);
        }
    }
    let config = config
        .map(Path::to_path_buf)
        .unwrap_or_else(|| repo().join("tests/fixtures/empty.toml"));
    cmd.env("MCPDECK_CONFIG", config);
    for (k, v) in env {
        cmd.env(k, v);
    }
    run_limited(cmd, limit(90))
}

fn demo() -> Vec<String> {
    vec![mcpdeck_bin().display().to_string(), "demo-server".into()]
}

fn with_demo<'a>(args: &[&'a str], demo: &'a [String]) -> Vec<&'a str> {
    let mut all = args.to_vec();
    all.push("--");
    all.extend(demo.iter().map(String::as_str));
    all
}

fn named<'a>(spans: &'a [Value], name: &str) -> &'a Value {
    spans
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no span {name:?} in {spans:#?}"))
}

fn attr<'a>(span: &'a Value, key: &str) -> &'a Value {
    &span["attributes"][key]
}

#[test]
fn a_tool_call_gives_spans_for_the_handshake_the_list_and_the_call() {
    let rx = Receiver::start();
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.jsonl");
    let rec_s = rec.display().to_string();
    let endpoint = rx.endpoint();
    let demo = demo();
    let r = run(
        &with_demo(
            &["--record", &rec_s, "call", "echo", r#"{"message":"hi"}"#],
            &demo,
        ),
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
            ("OTEL_EXPORTER_OTLP_HEADERS", "x-test=header-secret-1"),
        ],
        None,
    );
    r.ok();
    assert!(!r.stderr.contains("header-secret-1"), "{}", r.stderr);
    let spans = rx.spans();
    let call = named(&spans, "tools/call echo");
    assert_eq!(call["kind"], "SPAN_KIND_CLIENT");
    assert_eq!(attr(call, "mcp.method.name"), "tools/call");
    assert_eq!(attr(call, "gen_ai.tool.name"), "echo");
    assert_eq!(attr(call, "gen_ai.operation.name"), "execute_tool");
    assert_eq!(attr(call, "network.transport"), "pipe");
    assert_eq!(
        attr(call, "mcp.server.name")
            .as_str()
            .map(|s| !s.is_empty()),
        Some(true)
    );
    assert!(
        attr(call, "jsonrpc.request.id").as_str().is_some(),
        "{call}"
    );
    assert!(
        attr(call, "mcp.protocol.version").as_str().is_some(),
        "{call}"
    );
    assert!(
        attr(call, "mcp.request.size").as_i64().unwrap_or(0) > 0,
        "{call}"
    );
    assert!(
        attr(call, "mcp.response.size").as_i64().unwrap_or(0) > 0,
        "{call}"
    );
    assert!(attr(call, "error.type").is_null(), "{call}");
    assert!(
        attr(call, "gen_ai.tool.call.arguments").is_null(),
        "capture is off: {call}"
    );
    assert!(
        attr(call, "gen_ai.tool.call.result").is_null(),
        "capture is off: {call}"
    );
    assert_eq!(call["resource"]["service.name"], "mcpdeck");
    assert_eq!(
        call["resource"]["service.version"],
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(call["headers"]["x-test"], "header-secret-1");
    // The handshake and the list have theirs.
    assert!(
        spans
            .iter()
            .any(|s| s["name"] == "server/discover" || s["name"] == "initialize"),
        "{spans:#?}"
    );
    assert_eq!(
        attr(named(&spans, "tools/list"), "mcp.method.name"),
        "tools/list"
    );

    // The server got the call's own trace context in params._meta.
    let text = std::fs::read_to_string(&rec).unwrap();
    let sent: Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["dir"] == "send" && l["frame"]["method"] == "tools/call")
        .unwrap_or_else(|| panic!("no tools/call frame in {text}"));
    let traceparent = sent["frame"]["params"]["_meta"]["traceparent"]
        .as_str()
        .unwrap_or_else(|| panic!("no traceparent in {sent}"));
    assert_eq!(
        traceparent,
        format!(
            "00-{}-{}-01",
            call["trace_id"].as_str().unwrap(),
            call["span_id"].as_str().unwrap()
        )
    );
    assert_eq!(
        attr(call, "jsonrpc.request.id").as_str(),
        Some(sent["frame"]["id"].to_string().as_str())
    );
}

#[test]
fn failures_are_marked_with_error_type() {
    let rx = Receiver::start();
    let endpoint = rx.endpoint();
    let env = [(
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        format!("{endpoint}/v1/traces"),
    )];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let demo = demo();
    let r = run(&with_demo(&["call", "fail", "{}"], &demo), &env, None);
    assert_ne!(r.code, 0, "{}", r.stderr);
    let r = run(
        &with_demo(&["read", "demo://no-such-thing"], &demo),
        &env,
        None,
    );
    assert_ne!(r.code, 0, "{}", r.stderr);
    let spans = rx.spans();
    let failed = named(&spans, "tools/call fail");
    assert_eq!(attr(failed, "error.type"), "tool_error", "{failed}");
    assert_eq!(failed["status"]["code"], 2, "{failed}");
    let read = named(&spans, "resources/read demo://no-such-thing");
    assert_eq!(attr(read, "mcp.resource.uri"), "demo://no-such-thing");
    let code = attr(read, "error.type")
        .as_str()
        .unwrap_or_else(|| panic!("{read}"));
    assert!(code.parse::<i64>().is_ok_and(|c| c < 0), "{read}");
    assert_eq!(attr(read, "rpc.response.status_code"), code);
}

#[test]
fn content_capture_masks_secrets_and_truncates() {
    let rx = Receiver::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[telemetry]\notlp_endpoint = \"{}\"\ncapture_content = true\n",
            rx.endpoint()
        ),
    )
    .unwrap();
    let long = "x".repeat(6000);
    let args = serde_json::json!({"api_key": "sk-arg-secret", "message": long}).to_string();
    let demo = demo();
    let r = run(
        &with_demo(&["call", "--no-validate", "echo", &args], &demo),
        &[],
        Some(&config),
    );
    r.ok();
    let spans = rx.spans();
    let call = named(&spans, "tools/call echo");
    let sent = attr(call, "gen_ai.tool.call.arguments")
        .as_str()
        .unwrap_or_else(|| panic!("{call}"));
    let head: String = sent.chars().take(200).collect();
    assert!(!sent.contains("sk-arg-secret"), "{head}");
    assert!(sent.contains("\"api_key\":\"••••••\""), "{head}");
    assert!(
        sent.ends_with("…[truncated]") && sent.len() < 4200,
        "{}",
        sent.len()
    );
    let result = attr(call, "gen_ai.tool.call.result")
        .as_str()
        .unwrap_or_else(|| panic!("{call}"));
    let head: String = result.chars().take(200).collect();
    assert!(
        result.ends_with("…[truncated]") && result.contains("xxx"),
        "{head}"
    );
}

#[test]
fn http_spans_carry_the_address_port_and_session() {
    let rx = Receiver::start();
    let server = everything_http("streamableHttp");
    let endpoint = rx.endpoint();
    let r = run(
        &["call", &server.url, "echo", r#"{"message":"hi"}"#],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str())],
        None,
    );
    r.ok();
    let spans = rx.spans();
    let call = named(&spans, "tools/call echo");
    assert_eq!(attr(call, "network.transport"), "tcp");
    assert_eq!(attr(call, "server.address"), "127.0.0.1");
    assert_eq!(
        attr(call, "server.port").as_i64(),
        Some(i64::from(server.port))
    );
    assert!(
        attr(call, "mcp.session.id")
            .as_str()
            .is_some_and(|s| !s.is_empty()),
        "{call}"
    );
}

#[test]
fn an_unreachable_collector_is_one_warning_and_changes_nothing_else() {
    let port = free_port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let demo = demo();
    let r = run(
        &with_demo(&["call", "echo", r#"{"message":"hi"}"#], &demo),
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "authorization=Bearer hdr-secret-2",
            ),
        ],
        None,
    );
    r.ok();
    assert_eq!(r.stdout.trim(), "echo: hi");
    assert_eq!(r.stderr.matches("telemetry:").count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("cannot send spans"), "{}", r.stderr);
    assert!(!r.stderr.contains("hdr-secret-2"), "{}", r.stderr);
}

#[test]
fn telemetry_off_leaves_the_frames_as_they_were() {
    let demo = demo();
    let r = run(
        &with_demo(&["--trace", "call", "echo", r#"{"message":"hi"}"#], &demo),
        &[],
        None,
    );
    r.ok();
    assert!(r.stderr.contains("tools/call"), "{}", r.stderr);
    assert!(!r.stderr.contains("traceparent"), "{}", r.stderr);
    // On, the same frames carry it (and the sink need not answer).
    let rx = Receiver::start();
    let endpoint = rx.endpoint();
    let r = run(
        &with_demo(&["--trace", "call", "echo", r#"{"message":"hi"}"#], &demo),
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str())],
        None,
    );
    r.ok();
    assert!(r.stderr.contains("\"traceparent\":\"00-"), "{}", r.stderr);
}

#[test]
fn a_bad_telemetry_key_is_an_error_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[telemetry]\notlp_endpiont = \"http://127.0.0.1:1\"\n",
    )
    .unwrap();
    let r = run(&["config", "check"], &[], Some(&config));
    assert_ne!(r.code, 0);
    assert!(
        r.stderr.contains("otlp_endpiont") && r.stderr.contains("otlp_endpoint"),
        "{}",
        r.stderr
    );
}

/// A stdio server that takes the handshake and lists one tool, then never
/// answers a call.
const MUTE_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if "id" not in m or "method" not in m:
        continue
    method = m["method"]
    if method == "initialize":
        result = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "mute", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "hang", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        continue
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": result}), flush=True)
"#;

#[test]
fn a_request_without_an_answer_still_ends_its_span() {
    let rx = Receiver::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[settings]\nrequest_timeout = 1\n\n[telemetry]\notlp_endpoint = \"{}\"\n",
            rx.endpoint()
        ),
    )
    .unwrap();
    let server = dir.path().join("mute.py");
    std::fs::write(&server, MUTE_SERVER).unwrap();
    let python = py_v2().display().to_string();
    let server = server.display().to_string();
    let r = run(
        &["call", "hang", "{}", "--", &python, &server],
        &[],
        Some(&config),
    );
    assert_ne!(r.code, 0, "{}", r.stderr);
    let spans = rx.spans();
    let hang = named(&spans, "tools/call hang");
    assert_eq!(attr(hang, "error.type"), "timeout", "{hang}");
    assert!(attr(hang, "mcp.response.size").is_null(), "{hang}");
}

/// `mcpdeck --record REC serve demo` driven by a raw agent whose
/// `tools/call` carries a W3C trace context and a key of its own in
/// `_meta`; returns the recording's upstream `tools/call` frame.
fn call_through_serve(env: &[(&str, &str)]) -> Value {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[servers.demo]\ncommand = {:?}\nargs = [\"demo-server\"]\n",
            mcpdeck_bin().display().to_string()
        ),
    )
    .unwrap();
    let rec = dir.path().join("rec.jsonl");
    let mut cmd = Command::new(mcpdeck_bin());
    cmd.arg("--config")
        .arg(&config)
        .arg("--record")
        .arg(&rec)
        .args(["serve", "demo"])
        .env("MCPDECK_ERA_MEMORY", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, _) in std::env::vars() {
        if k.starts_with("OTEL_") {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &str, id: u64| {
        writeln!(stdin, "{line}").unwrap();
        let mut got = String::new();
        loop {
            got.clear();
            assert!(
                out.read_line(&mut got).unwrap() > 0,
                "serve closed its output"
            );
            let v: Value = serde_json::from_str(&got).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    };
    ask(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"agent","version":"1"}}}"#,
        1,
    );
    let answer = ask(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"agent=1","x.example/note":"kept"}}}"#,
        2,
    );
    assert!(answer["result"]["content"].is_array(), "{answer}");
    drop(stdin);
    let _ = child.wait();
    let text = std::fs::read_to_string(&rec).unwrap();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["dir"] == "send" && l["frame"]["method"] == "tools/call")
        .unwrap_or_else(|| panic!("no upstream tools/call in {text}"))
}

#[test]
fn an_agents_trace_context_through_serve_is_the_parent_of_mcpdecks_span() {
    // Telemetry off: the agent's `_meta` reaches the server as it was sent.
    let sent = call_through_serve(&[]);
    let meta = &sent["frame"]["params"]["_meta"];
    assert_eq!(
        meta["traceparent"], "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "{sent}"
    );
    assert_eq!(meta["x.example/note"], "kept");
    assert_eq!(meta["tracestate"], "agent=1");

    // On: mcpdeck's span is a child of the agent's, in the agent's trace,
    // and the server gets mcpdeck's span as its parent.
    let rx = Receiver::start();
    let endpoint = rx.endpoint();
    let sent = call_through_serve(&[("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str())]);
    let spans = rx.spans();
    let call = named(&spans, "tools/call echo");
    assert_eq!(call["trace_id"], "0af7651916cd43dd8448eb211c80319c");
    assert_eq!(call["parent_span_id"], "b7ad6b7169203331");
    let meta = &sent["frame"]["params"]["_meta"];
    assert_eq!(
        meta["traceparent"].as_str().unwrap(),
        format!(
            "00-0af7651916cd43dd8448eb211c80319c-{}-01",
            call["span_id"].as_str().unwrap()
        )
    );
    assert_eq!(meta["x.example/note"], "kept");
}
