//! The invariants the fuzz targets check, one function per target. Each
//! takes the fuzzer's bytes and panics (an `assert!`) when an invariant
//! breaks; a panic inside mcpdeck is a crash as well.
//!
//! `tests/properties.rs` includes this very file (`#[path]`), so the
//! property tests of an ordinary `cargo test` run check the same
//! invariants on stable, without the fuzzer.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use mcpdeck::config::{self, ConfigEditor, ServerConfig};
use mcpdeck::mcp::auth::challenge::{self, BearerChallenge};
use mcpdeck::mcp::jsonrpc::{self, Id, Message};
use mcpdeck::mcp::transport::sse_parse::{SseItem, SseParser};
use mcpdeck::mcp::{Finding, Severity};
use mcpdeck::{schema, uritemplate};
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------- frame

/// `parse_frame` on any bytes (read lossily as UTF-8): it never panics;
/// every batch item it skips has an error finding; a request never has a
/// null id; and every message it returns, written back as a well-formed
/// frame, parses to the same message.
pub fn frame(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let parsed = jsonrpc::parse_frame(&text);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        assert!(
            parsed.messages.is_empty() && parsed.findings.is_empty(),
            "an empty frame gives nothing: {parsed:?}"
        );
        return;
    }
    for finding in &parsed.findings {
        assert_eq!(
            finding.raw_len,
            text.len(),
            "a finding keeps the frame's length"
        );
    }
    let items = match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Array(items)) => items.len(),
        Ok(_) => 1,
        Err(_) => {
            assert!(
                parsed.messages.is_empty(),
                "a frame that is not JSON gives no message: {:?}",
                parsed.messages
            );
            // Either an error finding, or the id of the request it fails
            // (the session makes the finding, naming the request).
            let salvaged = parsed.unusable.len() == 1 && parsed.unusable[0].fails;
            assert!(
                has_error(&parsed.findings) || salvaged,
                "a frame that is not JSON gives an error finding or names its request: {parsed:?}"
            );
            return;
        }
    };
    assert!(
        parsed.unusable.iter().all(|u| !u.fails),
        "a JSON frame fails no request at once: {:?}",
        parsed.unusable
    );
    let taken = parsed.messages.len() + parsed.unusable.len();
    assert!(
        taken <= items,
        "{taken} messages and unusable answers out of {items} JSON values"
    );
    if taken < items {
        assert!(
            has_error(&parsed.findings),
            "a skipped JSON value has an error finding: {:?}",
            parsed.findings
        );
    }
    for message in &parsed.messages {
        if let Message::Request { id, .. } = message {
            assert_ne!(id, &Id::Null, "a request with a null id is a notification");
        }
        let again = jsonrpc::parse_frame(&frame_text(message));
        assert_eq!(
            again.messages.as_slice(),
            std::slice::from_ref(message),
            "a message written back as a frame parses to itself"
        );
    }
}

fn has_error(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

/// `message` as a well-formed JSON-RPC 2.0 frame.
fn frame_text(message: &Message) -> String {
    let mut obj = Map::new();
    obj.insert("jsonrpc".into(), json!("2.0"));
    match message {
        Message::Request { id, method, params } => {
            obj.insert("id".into(), id.to_value());
            obj.insert("method".into(), json!(method));
            if let Some(p) = params {
                obj.insert("params".into(), p.clone());
            }
        }
        Message::Notification { method, params } => {
            obj.insert("method".into(), json!(method));
            if let Some(p) = params {
                obj.insert("params".into(), p.clone());
            }
        }
        Message::Response { id, outcome } => {
            obj.insert("id".into(), id.to_value());
            match outcome {
                Ok(result) => obj.insert("result".into(), result.clone()),
                Err(error) => obj.insert("error".into(), error.to_value()),
            };
        }
    }
    Value::Object(obj).to_string()
}

// ---------------------------------------------------------------- sse

/// The fuzz target's input: the first byte says how many of the next
/// bytes are chunk sizes (0–15); the rest is the stream.
pub fn sse(data: &[u8]) {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 16).min(rest.len());
    let (sizes, body) = rest.split_at(n);
    sse_split(body, sizes);
}

/// The SSE parser gives the same items (events and oddities), the same
/// last event id and the same retry time whatever the chunks the stream
/// arrives in: whole, byte by byte, or cut by `sizes` (each a chunk length,
/// 0 for an empty chunk, cycled).
pub fn sse_split(body: &[u8], sizes: &[u8]) {
    let whole = sse_run(std::iter::once(body));
    let bytes = sse_run(body.chunks(1));
    assert_eq!(whole, bytes, "byte-by-byte feeding changes the stream");
    if sizes.is_empty() {
        return;
    }
    let mut chunks = Vec::new();
    let mut at = 0;
    for &size in sizes.iter().cycle() {
        if at >= body.len() {
            break;
        }
        let end = (at + usize::from(size)).min(body.len());
        chunks.push(&body[at..end]);
        at = end;
        if chunks.len() > body.len() * 2 + 16 {
            // Only zero sizes: the rest as one chunk.
            chunks.push(&body[at..]);
            break;
        }
    }
    let split = sse_run(chunks.iter().copied());
    assert_eq!(whole, split, "these chunks change the stream: {chunks:?}");
}

type SseOutcome = (
    Vec<SseItem>,
    Option<String>,
    Option<std::time::Duration>,
    u64,
);

fn sse_run<'a>(chunks: impl Iterator<Item = &'a [u8]>) -> SseOutcome {
    let mut parser = SseParser::new();
    let mut out = Vec::new();
    for chunk in chunks {
        parser.feed(chunk, &mut out);
    }
    parser.finish(&mut out);
    let events = out
        .iter()
        .filter(|item| matches!(item, SseItem::Event { .. }))
        .count();
    assert_eq!(parser.events(), events as u64, "the event count is right");
    (
        out,
        parser.last_event_id().map(str::to_owned),
        parser.retry(),
        parser.events(),
    )
}

// ---------------------------------------------------------------- config

/// Loading never panics. A file that loads, edited with [`ConfigEditor`]
/// (disable/enable its first server, deny then allow a tool, add a
/// server), stays loadable after every edit, keeps every comment line, and
/// the toggles set back give the file back byte for byte.
pub fn config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = config::load_str(&text, None, &|_| Some("v".to_owned()));
    let _ = config::load_str(&text, None, &|_| None);
    let Ok(dir) = scratch_dir() else {
        return;
    };
    let path = dir.path().join("config.toml");
    if fs::write(&path, text.as_bytes()).is_err() {
        return;
    }
    let Ok(mut editor) = ConfigEditor::open(&path) else {
        return;
    };
    let Ok(loaded) = editor.config() else {
        return; // not a valid file: nothing to edit
    };
    // The editor checks the structure only (`${VAR}`s empty, as
    // `editor.config()`); a file that also loads for real must go on
    // loading for real.
    let no_vars = |_: &str| Some(String::new());
    let loads = config::load_str(&text, Some(&path), &no_vars).is_ok();
    let comments: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| line.starts_with('#'))
        .collect();
    let check = |editor: &ConfigEditor, what: &str| -> config::Config {
        let on_disk = read(&path);
        assert_eq!(
            on_disk,
            editor.baseline(),
            "{what}: the file is what the editor wrote"
        );
        let loaded = match editor.config() {
            Ok(c) => c,
            Err(e) => panic!("{what}: the edited file is no longer valid: {e}\n{on_disk}"),
        };
        if loads && let Err(e) = config::load_str(&on_disk, Some(&path), &no_vars) {
            panic!("{what}: the edited file no longer loads: {e}\n{on_disk}");
        }
        let lines: HashSet<&str> = on_disk.lines().map(str::trim).collect();
        for comment in &comments {
            assert!(
                lines.contains(comment),
                "{what}: the comment {comment:?} was lost:\n{on_disk}"
            );
        }
        loaded
    };

    if let Some(server) = loaded.servers.first() {
        let name = server.name.clone();
        let before = read(&path);
        if editor.set_enabled(&name, !server.enabled).is_ok() {
            let now = check(&editor, "set_enabled");
            let edited = now.server(&name).map(|s| s.enabled);
            assert_eq!(edited, Some(!server.enabled), "set_enabled took effect");
            if editor.set_enabled(&name, server.enabled).is_ok() {
                check(&editor, "set_enabled back");
                assert_eq!(read(&path), before, "enabled set back gives the file back");
            }
        }
        let tool = "fuzz-tool-zz";
        let listed = server.deny_tools.iter().any(|t| t == tool);
        let before = read(&path);
        if !listed && editor.deny_tool(&name, tool).is_ok() {
            let now = check(&editor, "deny_tool");
            let denied = now.server(&name).is_some_and(|s| s.is_tool_denied(tool));
            assert!(denied, "deny_tool took effect");
            if editor.allow_tool(&name, tool).is_ok() {
                check(&editor, "allow_tool");
                assert_eq!(read(&path), before, "deny then allow gives the file back");
            }
        }
    }

    let mut added = ServerConfig::stdio("fuzz-added", "node", &["a b", "${NOT_A_VAR}", "$"]);
    added.deny_tools = vec!["x".to_owned()];
    if loaded.server(&added.name).is_none() && editor.add_server(&added).is_ok() {
        let now = check(&editor, "add_server");
        match now.server(&added.name) {
            Some(found) => assert_eq!(found, &added, "the added server reads back as given"),
            None => panic!("add_server: the server is not in the file"),
        }
    }
}

fn read(path: &Path) -> String {
    match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    }
}

/// A temporary directory, in memory where the system has one (the editor
/// syncs every write to disk).
fn scratch_dir() -> std::io::Result<tempfile::TempDir> {
    let shm = PathBuf::from("/dev/shm");
    if shm.is_dir()
        && let Ok(dir) = tempfile::Builder::new()
            .prefix("mcpdeck-fuzz")
            .tempdir_in(&shm)
    {
        return Ok(dir);
    }
    tempfile::tempdir()
}

// ---------------------------------------------------------------- uritemplate

/// The input, cut at NUL bytes: a template, then name/value pairs. The
/// expander never panics; what expands is a valid template whose variables
/// all had values.
pub fn uritemplate(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\0');
    let template = parts.next().unwrap_or_default();
    let rest: Vec<&str> = parts.collect();
    let values: Vec<(&str, &str)> = rest
        .chunks(2)
        .map(|pair| (pair[0], pair.get(1).copied().unwrap_or_default()))
        .collect();
    let _ = uritemplate::is_template(template);
    let valid = uritemplate::validate(template).is_ok();
    let names = uritemplate::variables(template);
    if !valid {
        assert!(names.is_empty(), "an invalid template has no variables");
    }
    let expanded = uritemplate::expand(template, &values);
    if let Ok(uri) = &expanded {
        assert!(valid, "only a valid template expands");
        assert!(uri.is_ascii(), "an expansion is a URI (ASCII): {uri:?}");
        for name in &names {
            assert!(
                values.iter().any(|(k, _)| k == name),
                "{name} expanded without a value"
            );
        }
    }
    // Every variable given a value: a valid template always expands.
    let all: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "v/ä")).collect();
    let full = uritemplate::expand(template, &all);
    if valid {
        assert!(
            full.is_ok(),
            "a valid template with all values expands: {full:?}"
        );
    }
}

// ---------------------------------------------------------------- schema

/// Any JSON as a schema: the skeleton, the rows, the sample arguments and
/// the check of the skeleton against the schema never panic (nor loop:
/// the fuzzer's timeout catches that).
pub fn schema(data: &[u8]) {
    let Ok(schema) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let skeleton = schema::skeleton(&schema);
    let rows = schema::rows(&schema);
    assert!(rows.len() <= 2_001, "rows are bounded: {}", rows.len());
    let _ = schema::arguments(&schema, &Map::new());
    if let Some(given) = skeleton.as_object() {
        let _ = schema::arguments(&schema, given);
    }
    let _ = schema::check(&schema, &skeleton);
}

// ---------------------------------------------------------------- www-authenticate

/// Any header value (lines as several headers) parses without a panic;
/// every challenge has a scheme that is a token, and lowercase
/// parameter names.
pub fn www_authenticate(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for challenge in challenge::parse(&text) {
        assert!(!challenge.scheme.is_empty(), "a challenge has a scheme");
        assert!(
            !challenge.scheme.contains([' ', '\t', ',', '=', '"']),
            "the scheme is a token: {:?}",
            challenge.scheme
        );
        for (name, _) in &challenge.params {
            assert!(!name.is_empty(), "a parameter has a name");
            assert_eq!(
                name,
                &name.to_ascii_lowercase(),
                "parameter names are lowercased"
            );
        }
    }
    let headers: Vec<String> = text.lines().map(str::to_owned).collect();
    let bearer = BearerChallenge::from_headers(&headers);
    let _ = bearer.insufficient_scope();
}
