//! Drives `mcpdeck demo-server` as a child process with raw JSON-RPC lines.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

const TIMEOUT: Duration = Duration::from_secs(10);
const MODERN: &str = "2026-07-28";

const BUILTIN_TOOLS: &[&str] = &[
    "echo",
    "add",
    "get_weather",
    "render_image",
    "make_sound",
    "link_resource",
    "embed_resource",
    "slow_task",
    "fail",
    "log_messages",
    "everything_mixed",
];

fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_mcpdeck")
}

/// A running demo server. Dropping it kills and reaps the child.
struct Demo {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    stderr: Option<thread::JoinHandle<String>>,
    next_id: i64,
}

impl Demo {
    fn start(args: &[&str]) -> Demo {
        let mut child = Command::new(binary())
            .arg("demo-server")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mcpdeck demo-server");
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("server wrote a non-JSON line ({e}): {line}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stderr = thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        Demo {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            stderr: Some(stderr),
            next_id: 1000,
        }
    }

    fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        let mut line = serde_json::to_string(msg).unwrap();
        line.push('\n');
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn recv(&self, timeout: Duration) -> Option<Value> {
        self.lines.recv_timeout(timeout).ok()
    }

    /// Wait for the response with `id`; returns it and the messages seen before it.
    fn response_to(&self, id: &Value) -> (Value, Vec<Value>) {
        let deadline = Instant::now() + TIMEOUT;
        let mut other = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let msg = self
                .recv(left)
                .unwrap_or_else(|| panic!("no response to id {id}; saw {other:?}"));
            if msg.get("id") == Some(id) && msg.get("method").is_none() {
                return (msg, other);
            }
            other.push(msg);
        }
    }

    fn request_with_id(&mut self, id: Value, method: &str, params: Value) -> (Value, Vec<Value>) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response_to(&id)
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        self.request_with_id(json!(self.next_id), method, params).0
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let resp = self.request(method, params);
        assert!(resp.get("error").is_none(), "{method} failed: {resp}");
        resp["result"].clone()
    }

    fn error(&mut self, method: &str, params: Value) -> Value {
        let resp = self.request(method, params);
        assert!(resp.get("result").is_none(), "{method} should fail: {resp}");
        resp["error"].clone()
    }

    fn initialize(&mut self, version: &str) -> Value {
        let r = self.result(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {},
                   "clientInfo": {"name": "test", "version": "0"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    /// Close stdin and wait for the process to exit.
    fn close(mut self) -> (ExitStatus, String) {
        drop(self.stdin.take());
        let status = wait_timeout(&mut self.child, TIMEOUT).expect("server did not exit after EOF");
        let stderr = self.stderr.take().unwrap().join().unwrap();
        (status, stderr)
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_timeout(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return Some(s);
        }
        if Instant::now() >= deadline {
            return None;
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// `params` plus the 2026-07-28 `_meta` envelope.
fn env(params: Value) -> Value {
    env_with(params, json!({}))
}

fn env_with(mut params: Value, extra_meta: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    for (k, v) in extra_meta.as_object().unwrap() {
        meta[k] = v.clone();
    }
    params["_meta"] = meta;
    params
}

fn block_types(result: &Value) -> Vec<String> {
    result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("no content: {result}"))
        .iter()
        .map(|b| b["type"].as_str().unwrap().to_string())
        .collect()
}

fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn b64(s: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(s.as_str().expect("base64 string"))
        .expect("valid base64")
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Check a PNG: signature, chunk CRCs, IHDR, and that IDAT inflates (stored
/// deflate blocks, which is what the demo server writes) to the right size.
/// Returns (width, height).
fn check_png(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    let mut pos = 8;
    let mut dims = None;
    let mut idat = Vec::new();
    let mut saw_end = false;
    while pos < png.len() {
        let len = u32::from_be_bytes(png[pos..pos + 4].try_into().unwrap()) as usize;
        let kind = &png[pos + 4..pos + 8];
        let data = &png[pos + 8..pos + 8 + len];
        let crc = u32::from_be_bytes(png[pos + 8 + len..pos + 12 + len].try_into().unwrap());
        assert_eq!(crc, crc32(&png[pos + 4..pos + 8 + len]), "CRC of {kind:?}");
        match kind {
            b"IHDR" => {
                assert_eq!(len, 13);
                let w = u32::from_be_bytes(data[0..4].try_into().unwrap());
                let h = u32::from_be_bytes(data[4..8].try_into().unwrap());
                assert_eq!(&data[8..10], &[8, 2], "8-bit RGB");
                dims = Some((w, h));
            }
            b"IDAT" => idat.extend_from_slice(data),
            b"IEND" => saw_end = true,
            _ => {}
        }
        pos += 12 + len;
    }
    assert!(saw_end, "IEND");
    let (w, h) = dims.expect("IHDR");
    // zlib header, stored blocks, adler32
    assert_eq!((u32::from(idat[0]) * 256 + u32::from(idat[1])) % 31, 0);
    let mut raw = Vec::new();
    let mut i = 2;
    loop {
        let header = idat[i];
        assert_eq!(header & 0b110, 0, "stored block");
        let n = u16::from_le_bytes([idat[i + 1], idat[i + 2]]);
        assert_eq!(!n, u16::from_le_bytes([idat[i + 3], idat[i + 4]]));
        raw.extend_from_slice(&idat[i + 5..i + 5 + n as usize]);
        i += 5 + n as usize;
        if header & 1 == 1 {
            break;
        }
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &x in &raw {
        a = (a + u32::from(x)) % 65_521;
        b = (b + a) % 65_521;
    }
    assert_eq!(
        u32::from_be_bytes(idat[i..i + 4].try_into().unwrap()),
        (b << 16) | a
    );
    assert_eq!(
        raw.len(),
        h as usize * (1 + 3 * w as usize),
        "scanline bytes"
    );
    (w, h)
}

fn check_wav(wav: &[u8], expect_ms: u32) {
    let u16_at = |i: usize| u16::from_le_bytes(wav[i..i + 2].try_into().unwrap());
    let u32_at = |i: usize| u32::from_le_bytes(wav[i..i + 4].try_into().unwrap());
    assert_eq!(&wav[0..4], b"RIFF");
    assert_eq!(u32_at(4) as usize, wav.len() - 8);
    assert_eq!(&wav[8..12], b"WAVE");
    assert_eq!(&wav[12..16], b"fmt ");
    assert_eq!(u32_at(16), 16);
    assert_eq!(u16_at(20), 1, "PCM");
    assert_eq!(u16_at(22), 1, "mono");
    assert_eq!(u32_at(24), 8000, "sample rate");
    assert_eq!(u32_at(28), 16000, "byte rate");
    assert_eq!(u16_at(32), 2, "block align");
    assert_eq!(u16_at(34), 16, "bits per sample");
    assert_eq!(&wav[36..40], b"data");
    assert_eq!(u32_at(40), 8000 * expect_ms / 1000 * 2);
    assert_eq!(wav.len(), 44 + u32_at(40) as usize);
    assert!(wav[44..].iter().any(|&b| b != 0), "not silence");
}

fn list_all(demo: &mut Demo, method: &str, key: &str, modern: bool) -> Vec<String> {
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        if modern {
            params = env(params);
        }
        let r = demo.result(method, params);
        pages += 1;
        assert!(pages < 10_000, "pagination does not terminate");
        for item in r[key].as_array().unwrap() {
            let name = item.get("name").unwrap().as_str().unwrap().to_string();
            names.push(name);
        }
        match r.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_string()),
            None => return names,
        }
    }
}

#[test]
fn initialize_era_handshake_tools_and_content_types() {
    let mut d = Demo::start(&[]);
    let init = d.initialize("2025-06-18");
    assert_eq!(init["protocolVersion"], "2025-06-18");
    assert_eq!(init["serverInfo"]["name"], "mcpdeck-demo");
    for cap in ["tools", "resources", "prompts", "logging", "completions"] {
        assert!(
            init["capabilities"].get(cap).is_some(),
            "capability {cap}: {init}"
        );
    }
    assert!(init["instructions"].as_str().unwrap().len() > 40);
    assert!(
        init.get("resultType").is_none(),
        "legacy results carry no resultType"
    );

    let tools = d.result("tools/list", json!({}));
    let tools = tools["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, BUILTIN_TOOLS);
    for t in tools {
        assert!(
            t["title"].is_string() && t["description"].is_string(),
            "{t}"
        );
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert!(t["annotations"]["readOnlyHint"].is_boolean(), "{t}");
    }
    let by_name = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap().clone();
    assert!(by_name("add")["outputSchema"].is_object());
    assert!(by_name("get_weather")["outputSchema"].is_object());
    assert_eq!(
        by_name("get_weather")["inputSchema"]["properties"]["units"]["enum"],
        json!(["metric", "imperial"])
    );

    let call = |d: &mut Demo, name: &str, args: Value| {
        d.result("tools/call", json!({"name": name, "arguments": args}))
    };

    let r = call(&mut d, "echo", json!({"message": "hi"}));
    assert_eq!(block_types(&r), ["text"]);
    assert_eq!(text_of(&r), "echo: hi");
    assert_eq!(r["isError"], false);

    let r = call(&mut d, "add", json!({"a": 2, "b": 3}));
    assert_eq!(block_types(&r), ["text"]);
    assert_eq!(text_of(&r), "5");
    assert_eq!(r["structuredContent"], json!({"sum": 5}));
    let r = call(&mut d, "add", json!({"a": 1.5, "b": 2}));
    assert_eq!(r["structuredContent"]["sum"], 3.5);

    let r = call(
        &mut d,
        "get_weather",
        json!({"city": "Oslo", "units": "imperial"}),
    );
    assert_eq!(block_types(&r), ["text"]);
    let sc = &r["structuredContent"];
    assert_eq!(sc["city"], "Oslo");
    assert_eq!(sc["units"], "imperial");
    assert!(sc["temperature"].is_number() && sc["conditions"].is_string());
    let from_text: Value = serde_json::from_str(&text_of(&r)).unwrap();
    assert_eq!(
        &from_text, sc,
        "text block is the serialized structured content"
    );

    let r = call(&mut d, "render_image", json!({}));
    assert_eq!(block_types(&r), ["image"]);
    assert_eq!(r["content"][0]["mimeType"], "image/png");
    assert_eq!(check_png(&b64(&r["content"][0]["data"])), (16, 16));

    let r = call(&mut d, "make_sound", json!({}));
    assert_eq!(block_types(&r), ["audio"]);
    assert_eq!(r["content"][0]["mimeType"], "audio/wav");
    check_wav(&b64(&r["content"][0]["data"]), 200);

    let r = call(&mut d, "link_resource", json!({}));
    assert_eq!(block_types(&r), ["resource_link"]);
    let link = &r["content"][0];
    assert_eq!(link["uri"], "demo://readme");
    assert!(
        link["name"].is_string() && link["mimeType"].is_string() && link["description"].is_string()
    );

    let r = call(&mut d, "embed_resource", json!({}));
    assert_eq!(block_types(&r), ["resource", "resource"]);
    assert_eq!(r["content"][0]["resource"]["uri"], "demo://readme");
    assert!(r["content"][0]["resource"]["text"].is_string());
    check_png(&b64(&r["content"][1]["resource"]["blob"]));

    let r = call(&mut d, "slow_task", json!({"steps": 2, "delay_ms": 1}));
    assert_eq!(block_types(&r), ["text"]);
    assert_eq!(text_of(&r), "done after 2 steps");

    let r = call(&mut d, "fail", json!({"reason": "disk on fire"}));
    assert_eq!(block_types(&r), ["text"]);
    assert_eq!(r["isError"], true);
    assert!(text_of(&r).contains("disk on fire"));

    d.next_id += 1;
    let id = json!(d.next_id);
    let (resp, notes) = d.request_with_id(
        id,
        "tools/call",
        json!({"name": "log_messages", "arguments": {}}),
    );
    let levels: Vec<&str> = notes
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .map(|n| n["params"]["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["debug", "info", "warning", "error"]);
    assert_eq!(text_of(&resp["result"]), "sent 4 log messages");

    let r = call(&mut d, "everything_mixed", json!({}));
    assert_eq!(
        block_types(&r),
        ["text", "image", "audio", "resource_link", "resource"]
    );

    // Unknown tool: JSON-RPC error. Bad arguments: tool-level error naming the argument.
    let e = d.error("tools/call", json!({"name": "nope", "arguments": {}}));
    assert_eq!(e["code"], -32602);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("Unknown tool: nope")
    );
    let r = call(&mut d, "add", json!({"a": "two", "b": 3}));
    assert_eq!(r["isError"], true);
    assert!(text_of(&r).contains("'a'"), "{r}");
    let r = call(&mut d, "echo", json!({}));
    assert_eq!(r["isError"], true);
    assert!(text_of(&r).contains("'message'"), "{r}");
    let r = call(&mut d, "render_image", json!({"width": "wide"}));
    assert_eq!(r["isError"], true);
    assert!(text_of(&r).contains("'width'"), "{r}");

    let (status, _) = d.close();
    assert!(status.success());
}

#[test]
fn logging_set_level_filters_messages() {
    let mut d = Demo::start(&[]);
    d.initialize("2025-11-25");
    d.result("logging/setLevel", json!({"level": "warning"}));
    let (resp, notes) =
        d.request_with_id(json!("log"), "tools/call", json!({"name": "log_messages"}));
    let levels: Vec<&str> = notes
        .iter()
        .map(|n| n["params"]["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["warning", "error"]);
    assert_eq!(text_of(&resp["result"]), "sent 2 log messages");
    assert_eq!(
        d.error("logging/setLevel", json!({"level": "loud"}))["code"],
        -32602
    );
}

#[test]
fn requests_before_initialize_and_version_negotiation() {
    let mut d = Demo::start(&["--era", "initialize"]);
    assert_eq!(d.result("ping", json!({})), json!({}));
    assert_eq!(d.error("tools/list", json!({}))["code"], -32600);
    let e = d.error("server/discover", env(json!({})));
    assert_eq!(e["code"], -32601);
    // 2026-07-28 has no handshake: counter-offer the newest handshake version.
    let init = d.initialize(MODERN);
    assert_eq!(init["protocolVersion"], "2025-11-25");
    let init = d.initialize("1999-01-01");
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert_eq!(d.initialize("2024-11-05")["protocolVersion"], "2024-11-05");
    assert_eq!(
        d.result("tools/list", json!({}))["tools"]
            .as_array()
            .unwrap()
            .len(),
        11
    );
    assert_eq!(d.result("ping", json!({})), json!({}));
}

#[test]
fn stateless_era_discover_call_and_errors() {
    let mut d = Demo::start(&["--name", "stateless-demo"]);
    let disc = d.result("server/discover", env(json!({})));
    assert_eq!(disc["resultType"], "complete");
    assert_eq!(disc["supportedVersions"], json!([MODERN]));
    assert_eq!(disc["ttlMs"], 0);
    assert_eq!(disc["cacheScope"], "private");
    assert!(disc["instructions"].is_string());
    assert!(disc["capabilities"]["tools"].is_object());
    assert_eq!(
        disc["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "stateless-demo"
    );

    let r = d.result(
        "tools/call",
        env(json!({"name": "echo", "arguments": {"message": "modern"}})),
    );
    assert_eq!(text_of(&r), "echo: modern");
    assert_eq!(r["resultType"], "complete");
    assert!(r["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    assert!(r.get("ttlMs").is_none(), "tools/call is not cacheable");

    let l = d.result("tools/list", env(json!({})));
    assert_eq!(l["tools"].as_array().unwrap().len(), 11);
    assert_eq!(
        (l["ttlMs"].clone(), l["cacheScope"].clone()),
        (json!(0), json!("private"))
    );
    assert_eq!(l["resultType"], "complete");

    let r = d.result("resources/read", env(json!({"uri": "demo://readme"})));
    assert_eq!(r["ttlMs"], 0);
    assert_eq!(r["contents"][0]["mimeType"], "text/markdown");

    // Unsupported version.
    let mut p = env(json!({}));
    p["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let e = d.error("tools/list", p);
    assert_eq!(e["code"], -32022);
    assert_eq!(e["data"]["supported"], json!([MODERN]));
    assert_eq!(e["data"]["requested"], "2099-01-01");

    // Missing client capabilities.
    let e = d.error(
        "tools/list",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}),
    );
    assert_eq!(e["code"], -32602);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("io.modelcontextprotocol/clientCapabilities")
    );

    // Removed methods.
    assert_eq!(d.error("ping", env(json!({})))["code"], -32601);
    assert_eq!(
        d.error("logging/setLevel", env(json!({"level": "debug"})))["code"],
        -32601
    );

    // Logs only when the request asks for them.
    let (resp, notes) = d.request_with_id(
        json!(77),
        "tools/call",
        env(json!({"name": "log_messages"})),
    );
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(text_of(&resp["result"]), "sent 0 log messages");
    let (resp, notes) = d.request_with_id(
        json!(78),
        "tools/call",
        env_with(
            json!({"name": "log_messages"}),
            json!({"io.modelcontextprotocol/logLevel": "info"}),
        ),
    );
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert_eq!(text_of(&resp["result"]), "sent 3 log messages");

    // Resource not found is -32602 in 2026-07-28.
    let e = d.error("resources/read", env(json!({"uri": "demo://missing"})));
    assert_eq!(e["code"], -32602);
    assert_eq!(e["data"]["uri"], "demo://missing");
}

#[test]
fn dual_era_locking() {
    // Modern first: initialize is refused with -32022.
    let mut d = Demo::start(&[]);
    d.result("server/discover", env(json!({})));
    let e = d.error(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "t", "version": "0"}}),
    );
    assert_eq!(e["code"], -32022);
    assert_eq!(e["data"]["supported"], json!([MODERN]));
    assert_eq!(e["data"]["requested"], "2025-11-25");
    // A plain request without the envelope is missing its envelope keys.
    assert_eq!(d.error("tools/list", json!({}))["code"], -32602);
    drop(d);

    // An enveloped non-discover request also locks to the modern era.
    let mut d = Demo::start(&[]);
    d.result("tools/list", env(json!({})));
    assert_eq!(
        d.error("initialize", json!({"protocolVersion": "2025-11-25"}))["code"],
        -32022
    );
    drop(d);

    // Legacy first: enveloped requests are refused with -32600.
    let mut d = Demo::start(&[]);
    d.initialize("2025-11-25");
    let e = d.error("server/discover", env(json!({})));
    assert_eq!(e["code"], -32600);
    let e = d.error("tools/list", env(json!({})));
    assert_eq!(e["code"], -32600);
    assert_eq!(
        d.result("tools/list", json!({}))["tools"]
            .as_array()
            .unwrap()
            .len(),
        11
    );
    // Re-initialize with an unknown version: counter-offer.
    assert_eq!(d.initialize("1999-01-01")["protocolVersion"], "2025-11-25");
}

#[test]
fn era_flags() {
    let mut d = Demo::start(&["--era", "stateless"]);
    let e = d.error(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "t", "version": "0"}}),
    );
    assert_eq!(e["code"], -32022);
    assert_eq!(e["data"]["supported"], json!([MODERN]));
    assert_eq!(e["data"]["requested"], "2025-06-18");
    assert_eq!(
        d.result("server/discover", env(json!({})))["resultType"],
        "complete"
    );
    drop(d);

    let mut d = Demo::start(&["--era", "initialize"]);
    let e = d.error("server/discover", env(json!({})));
    assert_eq!(e["code"], -32601);
    d.initialize("2025-11-25");
    assert!(d.result("tools/list", json!({}))["tools"].is_array());
}

#[test]
fn progress_notifications() {
    for modern in [false, true] {
        let mut d = Demo::start(&[]);
        let params = json!({"name": "slow_task", "arguments": {"steps": 4, "delay_ms": 5},
                            "_meta": {"progressToken": "tok-1"}});
        let params = if modern {
            env_with(params, json!({"progressToken": "tok-1"}))
        } else {
            d.initialize("2025-11-25");
            params
        };
        let (resp, notes) = d.request_with_id(json!("slow"), "tools/call", params);
        let progress: Vec<&Value> = notes
            .iter()
            .filter(|n| n["method"] == "notifications/progress")
            .collect();
        assert_eq!(progress.len(), 4, "{notes:?}");
        for (i, n) in progress.iter().enumerate() {
            let p = &n["params"];
            assert_eq!(p["progressToken"], "tok-1");
            assert_eq!(p["progress"], i + 1);
            assert_eq!(p["total"], 4);
            assert_eq!(p["message"], format!("step {} of 4", i + 1));
        }
        assert_eq!(text_of(&resp["result"]), "done after 4 steps");

        // Without a token: no progress notifications.
        let p = json!({"name": "slow_task", "arguments": {"steps": 2, "delay_ms": 1}});
        let p = if modern { env(p) } else { p };
        let (_, notes) = d.request_with_id(json!(5), "tools/call", p);
        assert!(notes.is_empty(), "{notes:?}");
    }
}

#[test]
fn cancellation_and_concurrency() {
    let mut d = Demo::start(&[]);
    d.initialize("2025-11-25");
    let started = Instant::now();
    d.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "slow_task", "arguments": {"steps": 100, "delay_ms": 50},
                              "_meta": {"progressToken": 7}}}));
    // A quick request is answered while the slow one runs.
    let (resp, _) = d.request_with_id(
        json!(8),
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "fast"}}),
    );
    assert_eq!(text_of(&resp["result"]), "echo: fast");
    assert!(started.elapsed() < Duration::from_secs(2));
    // Wait for at least one progress notification, then cancel.
    let first = d.recv(TIMEOUT).expect("progress");
    assert_eq!(first["method"], "notifications/progress");
    d.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": 7, "reason": "test"}}),
    );
    // The server keeps serving; nothing more arrives for id 7.
    let (pong, _) = d.request_with_id(json!(9), "ping", json!({}));
    assert_eq!(pong["result"], json!({}));
    let deadline = Instant::now() + Duration::from_millis(400);
    let mut late_progress = 0;
    while let Some(msg) = d.recv(deadline.saturating_duration_since(Instant::now())) {
        assert_ne!(
            msg.get("id"),
            Some(&json!(7)),
            "cancelled request was answered: {msg}"
        );
        late_progress += 1;
    }
    assert!(late_progress <= 1, "progress kept coming after cancel");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "slow_task ran to completion"
    );
}

#[test]
fn pagination_covers_everything_once() {
    let mut d = Demo::start(&["--page-size", "3", "--tools", "7"]);
    d.initialize("2025-11-25");
    let names = list_all(&mut d, "tools/list", "tools", false);
    assert_eq!(names.len(), 18);
    assert_eq!(
        names.iter().collect::<HashSet<_>>().len(),
        18,
        "duplicates: {names:?}"
    );
    assert_eq!(&names[..11], BUILTIN_TOOLS);
    assert_eq!(names[11], "tool_0001");
    assert_eq!(names[17], "tool_0007");
    let first = d.result("tools/list", json!({}));
    assert_eq!(first["tools"].as_array().unwrap().len(), 3);
    assert!(first["nextCursor"].is_string());

    assert_eq!(
        list_all(&mut d, "resources/list", "resources", false).len(),
        2
    );
    assert_eq!(list_all(&mut d, "prompts/list", "prompts", false).len(), 2);

    let e = d.error("tools/list", json!({"cursor": "not-a-cursor"}));
    assert_eq!(e["code"], -32602);
    drop(d);

    let mut d = Demo::start(&["--page-size", "3"]);
    let names = list_all(&mut d, "tools/list", "tools", true);
    assert_eq!(names, BUILTIN_TOOLS);
}

#[test]
fn png_and_wav_decode() {
    let mut d = Demo::start(&[]);
    d.initialize("2025-11-25");
    let r = d.result(
        "tools/call",
        json!({"name": "render_image", "arguments": {"width": 40, "height": 24, "color": "#ff8800"}}),
    );
    let png = b64(&r["content"][0]["data"]);
    assert_eq!(check_png(&png), (40, 24));

    // Capped at 512 and large enough to need several stored blocks.
    let r = d.result(
        "tools/call",
        json!({"name": "render_image", "arguments": {"width": 4000, "height": 300}}),
    );
    assert_eq!(check_png(&b64(&r["content"][0]["data"])), (512, 300));

    let r = d.result(
        "tools/call",
        json!({"name": "make_sound", "arguments": {"duration_ms": 750, "frequency": 880}}),
    );
    check_wav(&b64(&r["content"][0]["data"]), 750);
    let r = d.result(
        "tools/call",
        json!({"name": "make_sound", "arguments": {"duration_ms": 60000}}),
    );
    check_wav(&b64(&r["content"][0]["data"]), 5000);

    let r = d.result("resources/read", json!({"uri": "demo://logo.png"}));
    assert_eq!(r["contents"][0]["mimeType"], "image/png");
    assert_eq!(check_png(&b64(&r["contents"][0]["blob"])), (32, 32));
}

#[test]
fn resources_prompts_and_completion() {
    let mut d = Demo::start(&[]);
    d.initialize("2025-11-25");
    let r = d.result("resources/list", json!({}));
    let uris: Vec<&str> = r["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["demo://readme", "demo://logo.png"]);
    let t = d.result("resources/templates/list", json!({}));
    assert_eq!(
        t["resourceTemplates"][0]["uriTemplate"],
        "demo://greeting/{name}"
    );
    let r = d.result("resources/read", json!({"uri": "demo://readme"}));
    assert!(r["contents"][0]["text"].as_str().unwrap().contains("demo"));
    let r = d.result("resources/read", json!({"uri": "demo://greeting/Ada"}));
    assert_eq!(r["contents"][0]["text"], "Hello, Ada!");
    assert_eq!(r["contents"][0]["uri"], "demo://greeting/Ada");
    let e = d.error("resources/read", json!({"uri": "demo://missing"}));
    assert_eq!(e["code"], -32002);
    assert_eq!(e["data"]["uri"], "demo://missing");

    let p = d.result("prompts/list", json!({}));
    let prompts = p["prompts"].as_array().unwrap();
    assert_eq!(prompts[0]["name"], "review_code");
    assert_eq!(prompts[0]["arguments"][0]["required"], true);
    assert_eq!(prompts[1]["name"], "greeting");
    let g = d.result(
        "prompts/get",
        json!({"name": "review_code", "arguments": {"code": "fn main() {}", "language": "rust"}}),
    );
    let msg = &g["messages"][0];
    assert_eq!(msg["role"], "user");
    assert_eq!(msg["content"]["type"], "text");
    assert!(
        msg["content"]["text"]
            .as_str()
            .unwrap()
            .contains("fn main() {}")
    );
    let g = d.result("prompts/get", json!({"name": "greeting"}));
    assert_eq!(g["messages"].as_array().unwrap().len(), 1);
    assert_eq!(
        d.error("prompts/get", json!({"name": "review_code"}))["code"],
        -32602
    );
    assert_eq!(
        d.error("prompts/get", json!({"name": "nope"}))["code"],
        -32602
    );

    let c = d.result(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "review_code"},
               "argument": {"name": "language", "value": "py"}}),
    );
    assert_eq!(c["completion"]["values"], json!(["python"]));
    let c = d.result(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "review_code"},
               "argument": {"name": "language", "value": ""}}),
    );
    assert_eq!(c["completion"]["values"].as_array().unwrap().len(), 4);
}

#[test]
fn capability_flags() {
    let mut d = Demo::start(&["--no-resources", "--no-prompts"]);
    let init = d.initialize("2025-11-25");
    let caps = &init["capabilities"];
    assert!(
        caps.get("resources").is_none() && caps.get("prompts").is_none(),
        "{caps}"
    );
    assert!(caps.get("completions").is_none());
    assert!(caps["tools"].is_object());
    assert_eq!(d.error("resources/list", json!({}))["code"], -32601);
    assert_eq!(d.error("prompts/list", json!({}))["code"], -32601);
    drop(d);

    let mut d = Demo::start(&["--no-prompts"]);
    let disc = d.result("server/discover", env(json!({})));
    assert!(disc["capabilities"].get("prompts").is_none());
    assert!(disc["capabilities"]["resources"].is_object());
}

#[test]
fn malformed_input_is_answered_and_survived() {
    let mut d = Demo::start(&[]);
    d.send_raw("this is not json");
    let e = d.recv(TIMEOUT).expect("parse error reply");
    assert_eq!(e["id"], Value::Null);
    assert_eq!(e["error"]["code"], -32700);
    d.send_raw("[1, 2]");
    assert_eq!(d.recv(TIMEOUT).unwrap()["error"]["code"], -32600);
    d.send_raw("");
    assert_eq!(d.initialize("2025-11-25")["protocolVersion"], "2025-11-25");
    assert_eq!(d.error("no/such/method", json!({}))["code"], -32601);
    // A huge line is fine.
    let big = "x".repeat(3_000_000);
    let r = d.result(
        "tools/call",
        json!({"name": "echo", "arguments": {"message": big}}),
    );
    assert_eq!(text_of(&r).len(), 3_000_006);
    let (status, _) = d.close();
    assert!(status.success());
}

#[test]
fn eof_exits_promptly_with_slow_task_in_flight() {
    let mut d = Demo::start(&[]);
    d.initialize("2025-11-25");
    d.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "slow_task", "arguments": {"steps": 1000, "delay_ms": 10000}}}));
    let started = Instant::now();
    let (status, _) = d.close();
    assert!(status.success(), "{status:?}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn fail_start_exits_1_with_message() {
    let out = Command::new(binary())
        .args(["demo-server", "--fail-start"])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("demo-server: failed to open database: permission denied"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn thousands_of_tools() {
    let mut d = Demo::start(&["--tools", "2000"]);
    d.initialize("2025-11-25");
    let started = Instant::now();
    let r = d.result("tools/list", json!({}));
    let tools = r["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2011);
    assert_eq!(tools[2010]["name"], "tool_2000");
    assert!(started.elapsed() < Duration::from_secs(5));
    let r = d.result(
        "tools/call",
        json!({"name": "tool_2000", "arguments": {"value": "v"}}),
    );
    assert_eq!(text_of(&r), "tool_2000: v");
}

// --- Agent Skills (the io.modelcontextprotocol/skills extension) ----------

const SKILLS_EXT: &str = "io.modelcontextprotocol/skills";
const TOUR_SKILL: &str = "skill://demo-tour/SKILL.md";
const NOTES_SKILL: &str = "skill://docs/release-notes/SKILL.md";

/// `sha256:` and the lowercase hex SHA-256 of `bytes`.
fn sha256(bytes: &[u8]) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, bytes);
    let hex: String = d.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Every page of a list; `params` gets each page's cursor (and the envelope when `modern`).
fn all_pages(demo: &mut Demo, method: &str, params: Value, key: &str, modern: bool) -> Vec<Value> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let mut p = params.clone();
        if let Some(c) = &cursor {
            p["cursor"] = json!(c);
        }
        if modern {
            p = env(p);
        }
        let r = demo.result(method, p);
        items.extend(
            r[key]
                .as_array()
                .unwrap_or_else(|| panic!("no {key}: {r}"))
                .clone(),
        );
        match r.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_string()),
            None => return items,
        }
    }
    panic!("{method}: pagination does not terminate");
}

fn uris(items: &[Value]) -> Vec<&str> {
    items.iter().map(|i| i["uri"].as_str().unwrap()).collect()
}

#[test]
fn skills_extension_is_declared_in_both_eras() {
    let mut d = Demo::start(&[]);
    let init = d.initialize("2025-11-25");
    let caps = &init["capabilities"];
    assert_eq!(
        caps["extensions"][SKILLS_EXT],
        json!({"directoryRead": true}),
        "{caps}"
    );
    assert!(
        caps["resources"].is_object(),
        "skills need resources: {caps}"
    );
    assert!(
        init["instructions"].as_str().unwrap().contains(TOUR_SKILL),
        "{init}"
    );
    drop(d);

    let mut d = Demo::start(&[]);
    let disc = d.result("server/discover", env(json!({})));
    assert_eq!(
        disc["capabilities"]["extensions"][SKILLS_EXT]["directoryRead"],
        true
    );
    assert!(disc["capabilities"]["resources"].is_object());
    drop(d);

    // No resources, no skills.
    let mut d = Demo::start(&["--era", "stateless", "--no-resources"]);
    let disc = d.result("server/discover", env(json!({})));
    assert!(disc["capabilities"].get("extensions").is_none(), "{disc}");
    for method in ["skills/list", "skills/get", "resources/directory/read"] {
        let e = d.error(method, env(json!({"uri": TOUR_SKILL})));
        assert_eq!(e["code"], -32601, "{method}: {e}");
    }
}

#[test]
fn skills_list_and_get_with_digests_that_match_the_files() {
    let mut d = Demo::start(&[]);
    let list = d.result("skills/list", env(json!({})));
    assert_eq!(list["resultType"], "complete");
    assert_eq!(
        (list["ttlMs"].clone(), list["cacheScope"].clone()),
        (json!(0), json!("private"))
    );
    assert!(list.get("nextCursor").is_none());
    let skills = list["skills"].as_array().unwrap();
    assert_eq!(uris(skills), [TOUR_SKILL, NOTES_SKILL]);

    let tour = &skills[0];
    assert_eq!(tour["frontmatter"]["name"], "demo-tour");
    assert!(tour["frontmatter"]["description"].as_str().unwrap().len() > 40);
    assert_eq!(
        uris(tour["resources"].as_array().unwrap()),
        [TOUR_SKILL, "skill://demo-tour/references/KEYS.md"]
    );
    let notes = &skills[1];
    let front = notes["frontmatter"].as_object().unwrap();
    assert_eq!(
        front.keys().collect::<Vec<_>>(),
        ["name", "description", "license", "metadata"]
    );
    assert_eq!(front["name"], "release-notes");
    assert_eq!(front["license"], "MIT");
    assert_eq!(
        front["metadata"],
        json!({"author": "mcpdeck", "version": "1.2"})
    );
    assert_eq!(
        uris(notes["resources"].as_array().unwrap()),
        [
            NOTES_SKILL,
            "skill://docs/release-notes/templates/release.md",
            "skill://docs/release-notes/templates/hotfix.md",
        ]
    );

    // Every listed file reads back with the listed size and digest.
    for skill in skills {
        for file in skill["resources"].as_array().unwrap() {
            let uri = file["uri"].as_str().unwrap();
            let r = d.result("resources/read", env(json!({"uri": uri})));
            assert_eq!(r["ttlMs"], 0);
            let contents = &r["contents"][0];
            assert_eq!(contents["uri"], uri);
            assert_eq!(contents["mimeType"], "text/markdown", "{uri}");
            let bytes = contents["text"].as_str().unwrap().as_bytes();
            assert_eq!(file["size"], bytes.len(), "{uri}");
            assert_eq!(file["digest"].as_str().unwrap(), sha256(bytes), "{uri}");
            if uri == skill["uri"] {
                let name = skill["frontmatter"]["name"].as_str().unwrap();
                assert!(
                    std::str::from_utf8(bytes)
                        .unwrap()
                        .starts_with(&format!("---\nname: {name}\n")),
                    "{uri}"
                );
            }
        }
    }
    let keys = d.result(
        "resources/read",
        env(json!({"uri": "skill://demo-tour/references/KEYS.md"})),
    );
    let text = keys["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains("Ctrl-S") && text.contains('↑'), "{text}");

    // skills/get gives the listed entry.
    for skill in skills {
        let r = d.result("skills/get", env(json!({"uri": skill["uri"]})));
        assert_eq!(r["resultType"], "complete");
        assert_eq!(r["ttlMs"], 0);
        assert_eq!(r["cacheScope"], "private");
        assert_eq!(&r["skill"], skill);
    }
    for uri in [
        "skill://nope/SKILL.md",
        "skill://release-notes/SKILL.md",
        "skill://docs/release-notes",
        "skill://demo-tour/references/KEYS.md",
    ] {
        let e = d.error("skills/get", env(json!({"uri": uri})));
        assert_eq!(e["code"], -32602, "{uri}: {e}");
        assert!(e["message"].as_str().unwrap().contains(uri), "{e}");
    }
    assert_eq!(d.error("skills/get", env(json!({})))["code"], -32602);

    // A skill file that is not served is an unknown resource.
    let e = d.error(
        "resources/read",
        env(json!({"uri": "skill://demo-tour/references/NOPE.md"})),
    );
    assert_eq!(e["code"], -32602);
    assert_eq!(
        d.error("resources/read", env(json!({"uri": "skill://demo-tour"})))["code"],
        -32602
    );
    // Skill files are not in resources/list.
    let r = d.result("resources/list", env(json!({})));
    assert_eq!(
        uris(r["resources"].as_array().unwrap()),
        ["demo://readme", "demo://logo.png"]
    );
}

#[test]
fn skills_in_the_initialize_era() {
    let mut d = Demo::start(&[]);
    d.initialize("2025-11-25");
    let list = d.result("skills/list", json!({}));
    assert!(list.get("resultType").is_none(), "{list}");
    assert_eq!(
        uris(list["skills"].as_array().unwrap()),
        [TOUR_SKILL, NOTES_SKILL]
    );
    let r = d.result("skills/get", json!({"uri": NOTES_SKILL}));
    assert_eq!(r["skill"], list["skills"][1]);
    assert_eq!(
        d.error("skills/get", json!({"uri": "skill://nope/SKILL.md"}))["code"],
        -32602
    );
    let r = d.result("resources/read", json!({"uri": TOUR_SKILL}));
    assert_eq!(r["contents"][0]["mimeType"], "text/markdown");
    let dir = d.result(
        "resources/directory/read",
        json!({"uri": "skill://demo-tour"}),
    );
    assert_eq!(
        uris(dir["resources"].as_array().unwrap()),
        [TOUR_SKILL, "skill://demo-tour/references"]
    );
    // The handshake era's resource-not-found code, as for other resources.
    let e = d.error(
        "resources/read",
        json!({"uri": "skill://demo-tour/NOPE.md"}),
    );
    assert_eq!(e["code"], -32002);
}

#[test]
fn skill_directories_list_their_direct_children() {
    let mut d = Demo::start(&[]);
    let read = |d: &mut Demo, uri: &str| -> Vec<Value> {
        let r = d.result("resources/directory/read", env(json!({"uri": uri})));
        assert_eq!(r["resultType"], "complete");
        assert!(r.get("nextCursor").is_none());
        r["resources"].as_array().unwrap().clone()
    };
    let summary = |items: &[Value]| -> Vec<(String, String, String)> {
        items
            .iter()
            .map(|i| {
                let s = |k: &str| i[k].as_str().unwrap().to_string();
                (s("uri"), s("name"), s("mimeType"))
            })
            .collect()
    };
    let row = |u: &str, n: &str, m: &str| (u.to_string(), n.to_string(), m.to_string());

    let root = read(&mut d, "skill://docs/release-notes");
    assert_eq!(
        summary(&root),
        [
            row(NOTES_SKILL, "release-notes", "text/markdown"),
            row(
                "skill://docs/release-notes/templates",
                "templates",
                "inode/directory"
            ),
        ]
    );
    assert!(root[0]["description"].is_string());
    assert!(root[1].get("size").is_none());
    let templates = read(&mut d, "skill://docs/release-notes/templates");
    assert_eq!(
        summary(&templates),
        [
            row(
                "skill://docs/release-notes/templates/hotfix.md",
                "hotfix.md",
                "text/markdown"
            ),
            row(
                "skill://docs/release-notes/templates/release.md",
                "release.md",
                "text/markdown"
            ),
        ]
    );
    for t in &templates {
        let r = d.result("resources/read", env(json!({"uri": t["uri"]})));
        assert_eq!(
            t["size"],
            r["contents"][0]["text"].as_str().unwrap().len(),
            "{t}"
        );
    }
    assert_eq!(
        summary(&read(&mut d, "skill://demo-tour")),
        [
            row(TOUR_SKILL, "demo-tour", "text/markdown"),
            row(
                "skill://demo-tour/references",
                "references",
                "inode/directory"
            ),
        ]
    );
    assert_eq!(
        uris(&read(&mut d, "skill://demo-tour/references")),
        ["skill://demo-tour/references/KEYS.md"]
    );
    // The prefix above the nested skill is a directory too.
    assert_eq!(
        summary(&read(&mut d, "skill://docs")),
        [row(
            "skill://docs/release-notes",
            "release-notes",
            "inode/directory"
        )]
    );

    for uri in [
        NOTES_SKILL,
        "skill://docs/release-notes/templates/release.md",
        "skill://docs/release-notes/",
        "skill://docs/release-notes/missing",
        "skill://",
        "demo://readme",
    ] {
        let e = d.error("resources/directory/read", env(json!({"uri": uri})));
        assert_eq!(e["code"], -32602, "{uri}: {e}");
    }
    assert_eq!(
        d.error("resources/directory/read", env(json!({})))["code"],
        -32602
    );
}

#[test]
fn skills_and_directories_paginate() {
    let mut d = Demo::start(&["--page-size", "1"]);
    let first = d.result("skills/list", env(json!({})));
    assert_eq!(first["skills"].as_array().unwrap().len(), 1);
    assert!(first["nextCursor"].is_string());
    let skills = all_pages(&mut d, "skills/list", json!({}), "skills", true);
    assert_eq!(uris(&skills), [TOUR_SKILL, NOTES_SKILL]);
    // An entry is never split: each page's entry lists all its files.
    assert_eq!(skills[1]["resources"].as_array().unwrap().len(), 3);

    let templates = json!({"uri": "skill://docs/release-notes/templates"});
    let children = all_pages(
        &mut d,
        "resources/directory/read",
        templates.clone(),
        "resources",
        true,
    );
    assert_eq!(
        uris(&children),
        [
            "skill://docs/release-notes/templates/hotfix.md",
            "skill://docs/release-notes/templates/release.md",
        ]
    );

    // A cursor belongs to its list: another directory's or skills/list's is refused.
    let mut p = templates.clone();
    let page = d.result("resources/directory/read", env(p.clone()));
    let cursor = page["nextCursor"].as_str().unwrap().to_string();
    let other = json!({"uri": "skill://docs/release-notes", "cursor": cursor});
    assert_eq!(
        d.error("resources/directory/read", env(other))["code"],
        -32602
    );
    assert_eq!(
        d.error("skills/list", env(json!({"cursor": cursor})))["code"],
        -32602
    );
    p["cursor"] = first["nextCursor"].clone();
    assert_eq!(d.error("resources/directory/read", env(p))["code"], -32602);
    drop(d);

    // The handshake era pages the same way.
    let mut d = Demo::start(&["--page-size", "1"]);
    d.initialize("2025-11-25");
    let skills = all_pages(&mut d, "skills/list", json!({}), "skills", false);
    assert_eq!(uris(&skills), [TOUR_SKILL, NOTES_SKILL]);
}
