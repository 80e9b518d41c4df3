//! The JSON-RPC 2.0 envelope: a lenient parse of each frame.
//!
//! Every frame a server sends goes through [`parse_frame`]. It never fails:
//! whatever is wrong with a frame becomes a [`Finding`], and whatever can be
//! kept is kept (a response with the wrong `jsonrpc` is still delivered, a
//! response whose id came back as a string is still matched).

use serde_json::{Map, Value, json};
use std::fmt;

use super::finding::{Finding, Severity};

/// A JSON-RPC request id. Servers may use strings or integers (including 0)
/// for their own requests; ours are always integers from a counter.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Id {
    Num(i64),
    Str(String),
    /// `null`, seen only on error responses to unparseable requests.
    Null,
    /// A number that is not an i64 (a float, or too large): kept as sent,
    /// so a request with it can still be answered.
    Other(serde_json::Number),
}

impl Id {
    pub fn to_value(&self) -> Value {
        match self {
            Id::Num(n) => json!(n),
            Id::Str(s) => json!(s),
            Id::Null => Value::Null,
            Id::Other(n) => Value::Number(n.clone()),
        }
    }

    fn from_value(v: &Value) -> Option<Id> {
        match v {
            Value::Number(n) => Some(
                n.as_i64()
                    .map(Id::Num)
                    .unwrap_or_else(|| Id::Other(n.clone())),
            ),
            Value::String(s) => Some(Id::Str(s.clone())),
            Value::Null => Some(Id::Null),
            _ => None,
        }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Num(n) => write!(f, "{n}"),
            Id::Str(s) => write!(f, "{s:?}"),
            Id::Null => f.write_str("null"),
            Id::Other(n) => write!(f, "{n}"),
        }
    }
}

/// A JSON-RPC error object, kept whole: code, message and data.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.code, self.message)?;
        if let Some(data) = &self.data
            && !data.is_null()
            && data != &Value::String(String::new())
        {
            write!(f, " (data: {})", data)?;
        }
        Ok(())
    }
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("code".into(), json!(self.code));
        m.insert("message".into(), json!(self.message));
        if let Some(d) = &self.data {
            m.insert("data".into(), d.clone());
        }
        Value::Object(m)
    }

    /// Lenient read of an `error` member.
    fn from_value(v: &Value, findings: &mut Vec<String>) -> RpcError {
        let Some(obj) = v.as_object() else {
            findings.push(format!("`error` is not an object: {}", short(v)));
            return RpcError::new(-32603, format!("malformed error: {}", short(v)));
        };
        let code = match obj.get("code").and_then(Value::as_i64) {
            Some(c) => c,
            None => {
                findings.push("`error.code` is missing or not an integer".into());
                -32603
            }
        };
        let message = match obj.get("message").and_then(Value::as_str) {
            Some(m) => m.to_string(),
            None => {
                findings.push("`error.message` is missing or not a string".into());
                String::from("(no message)")
            }
        };
        RpcError {
            code,
            message,
            data: obj.get("data").cloned(),
        }
    }
}

/// Standard and MCP error codes.
pub mod codes {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// 2026-07-28: HTTP header does not match the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// 2026-07-28: a client capability the request needs is missing.
    pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
    /// 2026-07-28: unsupported protocol version (`data.supported`).
    pub const UNSUPPORTED_VERSION: i64 = -32022;
}

/// One parsed message from the peer.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: Id,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    Response {
        id: Id,
        outcome: Result<Value, RpcError>,
    },
}

impl Message {
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request { method, .. } | Message::Notification { method, .. } => Some(method),
            Message::Response { .. } => None,
        }
    }
}

/// The result of reading one frame: the messages it held (a batch can hold
/// several) and the findings about it.
#[derive(Debug, Default)]
pub struct Parsed {
    pub messages: Vec<Message>,
    pub findings: Vec<Finding>,
    /// Responses that name a request but cannot be its answer.
    pub unusable: Vec<Unusable>,
}

/// A response that names a request (its id could be read) but cannot be
/// its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Unusable {
    pub id: Id,
    /// What is wrong with it, to follow "the answer …".
    pub why: String,
    /// The frame is garbled beyond use: the request fails at once. Else it
    /// completes nothing and the request waits for a valid answer.
    pub fails: bool,
}

/// Parse one frame (one line of stdio, one HTTP body or SSE event).
pub fn parse_frame(raw: &str) -> Parsed {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Parsed::default();
    }
    // A well-formed single message (nearly every frame) is read straight
    // into its parts; anything else goes the lenient way, with findings.
    if trimmed.starts_with('{')
        && let Some(message) = parse_well_formed(trimmed)
    {
        return Parsed {
            messages: vec![message],
            ..Parsed::default()
        };
    }
    parse_lenient(raw, trimmed)
}

/// The fields of a JSON-RPC message, read without building the frame as
/// a `Value` (its map of members would be built and dropped for nothing).
/// Unknown members are skipped, as by the lenient parse.
#[derive(serde::Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<&'a serde_json::value::RawValue>,
    #[serde(default, deserialize_with = "present_id")]
    id: Option<FastId>,
    #[serde(borrow, default)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

/// A member that is present, even as `null` (`Option<Value>` alone would
/// read `"result": null` as absent).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    <Value as serde::Deserialize>::deserialize(d).map(Some)
}

/// A present id (`null` fails the fast path: the lenient parse reads it
/// as a notification, with a finding).
fn present_id<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<FastId>, D::Error> {
    <FastId as serde::Deserialize>::deserialize(d).map(Some)
}

/// An id that is an integer or a string; anything else fails the fast
/// path (the lenient parse says what is wrong with it).
struct FastId(Id);

impl<'de> serde::Deserialize<'de> for FastId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = FastId;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer or a string")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<FastId, E> {
                Ok(FastId(Id::Num(v)))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<FastId, E> {
                i64::try_from(v)
                    .map(|n| FastId(Id::Num(n)))
                    .map_err(|_| E::custom("id out of range"))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<FastId, E> {
                Ok(FastId(Id::Str(v.to_string())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<FastId, E> {
                Ok(FastId(Id::Str(v)))
            }
        }
        d.deserialize_any(V)
    }
}

/// A frame that is one well-formed message, or `None` (then the lenient
/// parse reads it and says what is off).
fn parse_well_formed(text: &str) -> Option<Message> {
    let e: Envelope = serde_json::from_str(text).ok()?;
    if e.jsonrpc?.get() != "\"2.0\"" {
        return None;
    }
    match (e.method, e.id) {
        (Some(method), id) => {
            if e.params
                .as_ref()
                .is_some_and(|p| !p.is_object() && !p.is_array())
                || e.result.is_some()
                || e.error.is_some()
            {
                return None;
            }
            let method = method.into_owned();
            Some(match id {
                Some(FastId(id)) => Message::Request {
                    id,
                    method,
                    params: e.params,
                },
                None => Message::Notification {
                    method,
                    params: e.params,
                },
            })
        }
        (None, Some(FastId(id))) => {
            let outcome = match (e.result, e.error) {
                (Some(result), None) => Ok(result),
                (None, Some(error)) => {
                    let mut problems = Vec::new();
                    let error = RpcError::from_value(&error, &mut problems);
                    if !problems.is_empty() {
                        return None;
                    }
                    Err(error)
                }
                _ => return None,
            };
            Some(Message::Response { id, outcome })
        }
        (None, None) => None,
    }
}

/// The lenient parse: every frame, whatever is wrong with it.
fn parse_lenient(raw: &str, trimmed: &str) -> Parsed {
    let mut out = Parsed::default();
    let value: Value = match serde_json::from_str(trimmed) {
        Ok(v) => v,
        Err(e) => {
            match salvage_id(trimmed) {
                // A garbled answer whose id can still be read fails its
                // request at once (the session says so), rather than
                // leaving it to time out.
                Some(id) => out.unusable.push(Unusable {
                    id,
                    why: format!("is not valid JSON ({e})"),
                    fails: true,
                }),
                None => out.findings.push(Finding::frame(
                    Severity::Error,
                    format!("a line from the server is not JSON ({e}); it was skipped"),
                    raw,
                )),
            }
            return out;
        }
    };
    match value {
        Value::Array(items) => {
            if items.is_empty() {
                out.findings.push(Finding::frame(
                    Severity::Error,
                    "an empty JSON-RPC batch",
                    raw,
                ));
            }
            for item in items {
                parse_value(item, raw, &mut out);
            }
        }
        other => parse_value(other, raw, &mut out),
    }
    out
}

fn parse_value(value: Value, raw: &str, out: &mut Parsed) {
    let Value::Object(mut obj) = value else {
        out.findings.push(Finding::frame(
            Severity::Error,
            format!(
                "a frame is JSON but not a JSON-RPC object ({}); it was skipped",
                kind(&value)
            ),
            raw,
        ));
        return;
    };
    let mut problems: Vec<String> = Vec::new();
    // A wrong version (not a missing one) makes a response unusable.
    let mut wrong_version = None;
    match obj.get("jsonrpc") {
        Some(Value::String(s)) if s == "2.0" => {}
        Some(other) => {
            let why = format!("`jsonrpc` is {} instead of \"2.0\"", short(other));
            if obj.contains_key("method") {
                problems.push(why);
            } else {
                wrong_version = Some(why);
            }
        }
        None => problems.push("`jsonrpc` is missing (must be \"2.0\")".into()),
    }
    let method = obj.get("method").cloned();
    let raw_id = obj.get("id").cloned();
    let id = match &raw_id {
        None => None,
        Some(v) => match Id::from_value(v) {
            Some(id) => Some(id),
            None => {
                problems.push(format!(
                    "`id` must be a string or an integer, found {}",
                    short(v)
                ));
                None
            }
        },
    };

    let message = match method {
        Some(Value::String(method)) => {
            let params = obj.remove("params");
            if let Some(p) = &params
                && !p.is_object()
                && !p.is_array()
            {
                problems.push(format!(
                    "`params` of {method} is {}, not an object",
                    kind(p)
                ));
            }
            match id {
                Some(Id::Null) => {
                    problems.push(format!(
                        "request {method} has a null id; treated as a notification"
                    ));
                    Some(Message::Notification { method, params })
                }
                Some(id) => Some(Message::Request { id, method, params }),
                None if raw_id.is_some() => None,
                None => Some(Message::Notification { method, params }),
            }
        }
        Some(other) => {
            problems.push(format!(
                "`method` is {}, not a string; the frame was skipped",
                short(&other)
            ));
            None
        }
        None => {
            let result = obj.remove("result");
            let error = obj.remove("error");
            match id {
                None => {
                    problems.push(if raw_id.is_some() {
                        "a response with an unusable id; it was skipped".into()
                    } else {
                        "a frame with neither `method` nor `id`; it was skipped".into()
                    });
                    None
                }
                Some(id) => {
                    let outcome = match (result, error) {
                        (Some(_), Some(err)) => {
                            problems.push(
                                "a response carries both `result` and `error`; the error was used"
                                    .into(),
                            );
                            Err(RpcError::from_value(&err, &mut problems))
                        }
                        (None, Some(err)) => Err(RpcError::from_value(&err, &mut problems)),
                        (Some(res), None) => Ok(res),
                        (None, None) => {
                            problems.push("a response has neither `result` nor `error`".into());
                            Err(RpcError::new(
                                codes::INTERNAL_ERROR,
                                "malformed response from the server: neither result nor error",
                            ))
                        }
                    };
                    match wrong_version.take() {
                        Some(why) => {
                            // Completes nothing: the session says so, naming
                            // the request it claims to answer.
                            out.unusable.push(Unusable {
                                id,
                                why: format!("has {why}"),
                                fails: false,
                            });
                            None
                        }
                        None => Some(Message::Response { id, outcome }),
                    }
                }
            }
        }
    };
    if let Some(why) = wrong_version {
        problems.push(why);
    }
    for p in problems {
        let sev = if message.is_some() {
            Severity::Warning
        } else {
            Severity::Error
        };
        out.findings.push(Finding::frame(sev, p, raw));
    }
    if let Some(m) = message {
        out.messages.push(m);
    }
}

/// The id of a response that is not valid JSON (cut short, garbled),
/// when its top-level `"id"` member can still be read: the members are
/// skipped by their brackets and quotes, without being parsed. A frame
/// with a `"method"` member is a request or a notification of the
/// server's (its ids are not ours): `None`.
pub fn salvage_id(text: &str) -> Option<Id> {
    salvage(text).ok().flatten()
}

/// The id at the end of an overlong frame (see [`salvage_id_at_end`]),
/// unless its start shows a request or notification of the server's.
pub fn salvage_id_of_long(head: &str, tail: &str) -> Option<Id> {
    match salvage(head) {
        Ok(Some(id)) => Some(id),
        Ok(None) => salvage_id_at_end(tail),
        Err(NotAResponse) => None,
    }
}

/// A frame that names a `method`: not an answer of the server's.
struct NotAResponse;

fn salvage(text: &str) -> Result<Option<Id>, NotAResponse> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return Ok(None);
    }
    i += 1;
    let mut id = None;
    loop {
        i = skip_ws(b, i);
        let key_start = i;
        let Some(end) = skip_string(b, i) else {
            return Ok(id);
        };
        i = end;
        let key = &text[key_start..i];
        if key == "\"method\"" {
            return Err(NotAResponse);
        }
        i = skip_ws(b, i);
        if b.get(i) != Some(&b':') {
            return Ok(id);
        }
        i = skip_ws(b, i + 1);
        if key == "\"id\"" {
            let Some((found, end)) = read_id(text, i) else {
                return Ok(None);
            };
            id = Some(found);
            i = end;
        } else {
            match skip_value(b, i) {
                Some(end) => i = end,
                // Cut short inside this member: what was read decides.
                None => return Ok(id),
            }
        }
        i = skip_ws(b, i);
        if b.get(i) != Some(&b',') {
            return Ok(id);
        }
        i += 1;
    }
}

/// The id at the very end of a frame's text (`…,"id":7}`): for a frame too
/// long to keep whole, whose last bytes are all that is left of its end.
/// Only an `"id"` member that closes the top-level object counts.
pub fn salvage_id_at_end(tail: &str) -> Option<Id> {
    let mut search = tail.len();
    while let Some(at) = tail[..search].rfind("\"id\"") {
        search = at;
        let b = tail.as_bytes();
        let mut i = skip_ws(b, at + 4);
        if b.get(i) != Some(&b':') {
            continue;
        }
        i = skip_ws(b, i + 1);
        let Some((id, end)) = read_id(tail, i) else {
            continue;
        };
        let rest = tail[end..].trim();
        if rest == "}" {
            return Some(id);
        }
    }
    None
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

/// Past the string that starts at `i` (a `"`), or `None` if it is not
/// one or does not end.
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    loop {
        match b.get(j)? {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
}

/// Past the value that starts at `i`, by its brackets and quotes.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match b.get(j)? {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while b
                .get(j)
                .is_some_and(|c| !matches!(c, b',' | b'}' | b']') && !c.is_ascii_whitespace())
            {
                j += 1;
            }
            (j < b.len()).then_some(j)
        }
    }
}

/// An integer or string id at `i`, and where it ends.
fn read_id(text: &str, i: usize) -> Option<(Id, usize)> {
    let b = text.as_bytes();
    match b.get(i)? {
        b'"' => {
            let end = skip_string(b, i)?;
            let s: String = serde_json::from_str(&text[i..end]).ok()?;
            Some((Id::Str(s), end))
        }
        c if c.is_ascii_digit() || *c == b'-' => {
            let mut end = i + 1;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            // A number cut short or followed by more of itself is no id.
            if b.get(end).is_none_or(|c| matches!(c, b'.' | b'e' | b'E')) {
                return None;
            }
            let n: i64 = text[i..end].parse().ok()?;
            Some((Id::Num(n), end))
        }
        _ => None,
    }
}

/// What makes `result` unusable as the answer to `method`: a result that
/// lacks what the method exists to return. `None` when it may be used
/// (lesser faults are findings of the code that reads it). A result that
/// asks for input first (`resultType` other than "complete") is judged
/// when it completes.
pub fn answer_problem(method: &str, result: &Value) -> Option<String> {
    if result
        .get("resultType")
        .and_then(Value::as_str)
        .is_some_and(|t| t != "complete")
    {
        return None;
    }
    let needs = |member: &str, array: bool| -> Option<String> {
        let ok = match result.get(member) {
            Some(v) if array => v.is_array(),
            Some(v) => v.is_string(),
            None => false,
        };
        (!ok).then(|| {
            let what = if array { "an array" } else { "a string" };
            match result.get(member) {
                Some(v) => format!(
                    "has `{member}` as {} where {method} answers with {what}",
                    kind(v)
                ),
                None => format!("has no `{member}`, which a {method} result must have"),
            }
        })
    };
    // Methods whose answer may be empty: only an object is expected, and
    // anything else is a finding elsewhere, not a reason to wait on.
    let object_required = !matches!(
        method,
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe"
    );
    if object_required && !result.is_object() {
        return Some(format!(
            "is {}, where every {method} result is an object",
            kind(result)
        ));
    }
    match method {
        "initialize" => needs("protocolVersion", false),
        "tools/list" => needs("tools", true),
        "prompts/list" => needs("prompts", true),
        "resources/list" => needs("resources", true),
        "resources/templates/list" => needs("resourceTemplates", true),
        "resources/read" => needs("contents", true),
        "prompts/get" => needs("messages", true),
        _ => None,
    }
}

/// "a string", "an object"…: a value's JSON type, for messages.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A short rendering of a value for messages.
pub fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 80 {
        let mut end = 77;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &s[..end])
    } else {
        s
    }
}

#[derive(serde::Serialize)]
struct Out<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<IdRef<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a Value>,
}

#[derive(serde::Serialize)]
#[serde(untagged)]
enum IdRef<'a> {
    Num(i64),
    Str(&'a str),
    Null(Option<()>),
    Other(&'a serde_json::Number),
}

impl Out<'_> {
    fn text(&self) -> String {
        // Serializing plain values to a String cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

const BLANK: Out<'static> = Out {
    jsonrpc: "2.0",
    id: None,
    method: None,
    params: None,
    result: None,
    error: None,
};

/// Serialize a request (params by reference: no copy).
pub fn request(id: i64, method: &str, params: Option<&Value>) -> String {
    Out {
        id: Some(IdRef::Num(id)),
        method: Some(method),
        params,
        ..BLANK
    }
    .text()
}

/// Serialize a notification.
pub fn notification(method: &str, params: Option<&Value>) -> String {
    Out {
        method: Some(method),
        params,
        ..BLANK
    }
    .text()
}

/// Serialize a response to a server's request.
pub fn response(id: &Id, outcome: Result<Value, RpcError>) -> String {
    let id = match id {
        Id::Num(n) => IdRef::Num(*n),
        Id::Str(s) => IdRef::Str(s),
        Id::Null => IdRef::Null(None),
        Id::Other(n) => IdRef::Other(n),
    };
    match outcome {
        Ok(v) => Out {
            id: Some(id),
            result: Some(&v),
            ..BLANK
        }
        .text(),
        Err(e) => Out {
            id: Some(id),
            error: Some(&e.to_value()),
            ..BLANK
        }
        .text(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path gives what the lenient parse gives, for every frame
    /// it takes; the frames it refuses get the lenient parse's findings.
    #[test]
    fn the_fast_path_agrees_with_the_lenient_parse() {
        let mut frames: Vec<String> = vec![
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}"#.into(),
            r#"{"result":{"tools":[]},"jsonrpc":"2.0","id":2}"#.into(),
            r#"{"jsonrpc":"2.0","id":"a\"b","result":null}"#.into(),
            r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#.into(),
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1}}"#.into(),
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"nope","data":[1]}}"#.into(),
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":"x"}}"#.into(),
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"},"result":{}}"#.into(),
            r#"{"jsonrpc":"1.0","id":6,"result":{}}"#.into(),
            r#"{"id":7,"result":{}}"#.into(),
            r#"{"jsonrpc":"2.0","id":8}"#.into(),
            r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#.into(),
            r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#.into(),
            r#"{"jsonrpc":"2.0","id":99999999999999999999,"result":{}}"#.into(),
            r#"{"jsonrpc":"2.0","id":9,"id":10,"result":{}}"#.into(),
            r#"{"jsonrpc":"2.0","method":"m","params":3}"#.into(),
            r#"{"jsonrpc":"2.0","method":"m","params":null}"#.into(),
            r#"{"jsonrpc":"2.0","method":7}"#.into(),
            r#"{"jsonrpc":"2.0","method":"m\u0041","extra":{"a":[1,2]}}"#.into(),
            r#"{"jsonrpc":"2\u002e0","id":11,"result":1}"#.into(),
            r#"[{"jsonrpc":"2.0","id":12,"result":{}}]"#.into(),
            r#"{"jsonrpc":"2.0","id":13,"result":{}"#.into(),
            r#"{}"#.into(),
        ];
        for entry in std::fs::read_dir("../shared/protocol/transcripts")
            .into_iter()
            .flatten()
            .flatten()
        {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            for line in text.lines() {
                if let Some(i) = line.find("S->C ").or_else(|| line.find("C->S ")) {
                    frames.push(line[i + 5..].to_string());
                }
            }
        }
        let mut fast = 0;
        for f in &frames {
            let lenient = parse_lenient(f, f.trim());
            if let Some(m) = parse_well_formed(f.trim()) {
                fast += 1;
                assert!(lenient.findings.is_empty(), "{f}: {:?}", lenient.findings);
                assert_eq!(lenient.messages, vec![m], "{f}");
            }
            let p = parse_frame(f);
            assert_eq!(p.messages, lenient.messages, "{f}");
            let msgs = |v: &[Finding]| v.iter().map(|x| x.message.clone()).collect::<Vec<_>>();
            assert_eq!(msgs(&p.findings), msgs(&lenient.findings), "{f}");
        }
        assert!(fast >= 6, "the fast path took only {fast} frames");
    }

    fn one(raw: &str) -> (Message, Vec<Finding>) {
        let mut p = parse_frame(raw);
        assert_eq!(p.messages.len(), 1, "{raw}");
        (p.messages.remove(0), p.findings)
    }

    #[test]
    fn well_formed_messages_parse_without_findings() {
        let (m, f) = one(r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#);
        assert_eq!(
            m,
            Message::Request {
                id: Id::Num(0),
                method: "ping".into(),
                params: None
            }
        );
        assert!(f.is_empty());
        let (m, f) = one(r#"{"jsonrpc":"2.0","id":"abc","method":"roots/list","params":{}}"#);
        assert!(matches!(m, Message::Request { id: Id::Str(ref s), .. } if s == "abc"));
        assert!(f.is_empty());
        let (m, _) = one(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#);
        assert_eq!(m.method(), Some("notifications/tools/list_changed"));
        let (m, f) = one(
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"x","data":{"supported":["2026-07-28"]}}}"#,
        );
        match m {
            Message::Response {
                id,
                outcome: Err(e),
            } => {
                assert_eq!(id, Id::Num(7));
                assert_eq!(e.code, -32022);
                assert_eq!(e.data.unwrap()["supported"][0], "2026-07-28");
            }
            other => panic!("{other:?}"),
        }
        assert!(f.is_empty());
    }

    #[test]
    fn non_json_is_a_finding_with_the_raw_frame() {
        let p = parse_frame("Starting server on stdio...");
        assert!(p.messages.is_empty());
        assert_eq!(p.findings.len(), 1);
        assert_eq!(p.findings[0].severity, Severity::Error);
        assert!(p.findings[0].message.contains("not JSON"));
        assert_eq!(
            p.findings[0].raw.as_deref(),
            Some("Starting server on stdio...")
        );
    }

    #[test]
    fn a_wrong_jsonrpc_makes_a_response_unusable_and_a_missing_one_is_lenient() {
        // Present but not "2.0": the response answers nothing (the session
        // keeps the request waiting and says so, naming the request).
        let p = parse_frame(r#"{"jsonrpc":"1.0","id":1,"result":{}}"#);
        assert!(p.messages.is_empty());
        assert!(p.findings.is_empty());
        assert_eq!(
            p.unusable,
            vec![Unusable {
                id: Id::Num(1),
                why: "has `jsonrpc` is \"1.0\" instead of \"2.0\"".into(),
                fails: false,
            }]
        );
        // On a request or notification it is a finding; the message is kept.
        let (m, f) = one(r#"{"jsonrpc":"1.0","method":"notifications/progress"}"#);
        assert!(matches!(m, Message::Notification { .. }));
        assert!(f[0].message.contains("\"1.0\""));
        // Missing: lenient, with a finding.
        let (m, f) = one(r#"{"id":1,"result":{}}"#);
        assert!(matches!(m, Message::Response { outcome: Ok(_), .. }));
        assert!(f[0].message.contains("missing"));
    }

    #[test]
    fn a_garbled_answer_names_its_request_when_its_id_can_be_read() {
        for (raw, id) in [
            (
                r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"te"#,
                Some(Id::Num(7)),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a-1","result":{"#,
                Some(Id::Str("a-1".into())),
            ),
            (
                r#"{"result":{"x":"}{\"id\":9"},"id":12,"jsonrpc":"2.0""#,
                Some(Id::Num(12)),
            ),
            (r#"{"result":{"content":[1,2"#, None),
            (r#"{"jsonrpc":"2.0","id":7"#, None),
            (r#"{"jsonrpc":"2.0","id":7.5,"result":"#, None),
            // A request of the server's, cut short: its id is not ours.
            (r#"{"jsonrpc":"2.0","id":5,"method":"ping""#, None),
            (
                r#"{"method":"sampling/createMessage","id":5,"params":{"#,
                None,
            ),
            (r#"not json"#, None),
        ] {
            let p = parse_frame(raw);
            match id {
                Some(id) => {
                    assert!(p.findings.is_empty(), "{raw}");
                    assert_eq!(p.unusable.len(), 1, "{raw}");
                    assert_eq!(p.unusable[0].id, id, "{raw}");
                    assert!(p.unusable[0].fails);
                    assert!(p.unusable[0].why.starts_with("is not valid JSON"));
                }
                None => {
                    assert!(p.unusable.is_empty(), "{raw}");
                    assert!(p.findings[0].message.contains("not JSON"), "{raw}");
                }
            }
        }
        // The end of an overlong frame: only an id that closes the object.
        assert_eq!(
            salvage_id_at_end(r#"xxxx"}]},"jsonrpc":"2.0","id":41}"#),
            Some(Id::Num(41))
        );
        assert_eq!(salvage_id_at_end(r#"xx","id":41}]}"#), None);
        assert_eq!(
            salvage_id_at_end(r#"xx"}}, "id" : "q" }  "#),
            Some(Id::Str("q".into()))
        );
        // An overlong frame: the start decides when it can, the end else;
        // a server's own request (a method) names none of ours.
        let end = r#"xxx"}]},"jsonrpc":"2.0","id":41}"#;
        assert_eq!(
            salvage_id_of_long(r#"{"result":{"content":[{"text":"xx"#, end),
            Some(Id::Num(41))
        );
        assert_eq!(
            salvage_id_of_long(r#"{"jsonrpc":"2.0","id":3,"result":{"a":"#, end),
            Some(Id::Num(3))
        );
        assert_eq!(
            salvage_id_of_long(r#"{"method":"sampling/createMessage","params":{"#, end),
            None
        );
    }

    #[test]
    fn answers_that_lack_what_their_method_returns_are_unusable() {
        let bad = [
            ("initialize", json!({"capabilities": {}})),
            ("initialize", json!({"protocolVersion": 3})),
            ("tools/list", json!({"nextCursor": "x"})),
            ("tools/list", json!({"tools": {}})),
            ("prompts/list", json!({})),
            ("resources/read", json!({"contents": null})),
            ("tools/call", json!("text")),
        ];
        for (method, v) in bad {
            assert!(answer_problem(method, &v).is_some(), "{method} {v}");
        }
        let good = [
            ("initialize", json!({"protocolVersion": "2025-11-25"})),
            ("tools/list", json!({"tools": []})),
            ("tools/call", json!({"content": []})),
            (
                "tools/call",
                json!({"resultType": "input_required", "inputRequests": {}}),
            ),
            ("ping", json!(null)),
            ("ping", json!({})),
            ("some/extension", json!({})),
        ];
        for (method, v) in good {
            assert_eq!(answer_problem(method, &v), None, "{method} {v}");
        }
    }

    #[test]
    fn result_and_error_together_uses_the_error() {
        let (m, f) =
            one(r#"{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"m"}}"#);
        assert!(matches!(
            m,
            Message::Response {
                outcome: Err(RpcError { code: 1, .. }),
                ..
            }
        ));
        assert!(f[0].message.contains("both"));
    }

    #[test]
    fn response_without_result_or_error_completes_as_error() {
        let (m, f) = one(r#"{"jsonrpc":"2.0","id":3}"#);
        assert!(matches!(
            m,
            Message::Response {
                outcome: Err(_),
                ..
            }
        ));
        assert!(f[0].message.contains("neither"));
    }

    #[test]
    fn malformed_error_object_is_kept() {
        let (m, f) = one(r#"{"jsonrpc":"2.0","id":3,"error":"boom"}"#);
        match m {
            Message::Response {
                outcome: Err(e), ..
            } => assert!(e.message.contains("boom")),
            other => panic!("{other:?}"),
        }
        assert!(!f.is_empty());
    }

    #[test]
    fn batches_and_non_objects() {
        let p = parse_frame(r#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]"#);
        assert_eq!(p.messages.len(), 2);
        let p = parse_frame("42");
        assert!(p.messages.is_empty());
        assert!(p.findings[0].message.contains("not a JSON-RPC object"));
        let p = parse_frame(r#"{"jsonrpc":"2.0","id":{"x":1},"result":{}}"#);
        assert!(p.messages.is_empty());
        assert_eq!(p.findings.len(), 2);
    }

    #[test]
    fn serializers_round_trip() {
        let r = request(5, "tools/list", Some(&json!({"cursor":"c"})));
        let (m, f) = one(&r);
        assert!(f.is_empty());
        assert_eq!(
            m,
            Message::Request {
                id: Id::Num(5),
                method: "tools/list".into(),
                params: Some(json!({"cursor":"c"}))
            }
        );
        let r = response(
            &Id::Str("abc".into()),
            Err(RpcError::new(-32601, "Method not found")),
        );
        let (m, _) = one(&r);
        assert!(matches!(
            m,
            Message::Response {
                id: Id::Str(_),
                outcome: Err(RpcError { code: -32601, .. })
            }
        ));
        assert_eq!(
            notification("notifications/initialized", None),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        );
        assert_eq!(
            response(&Id::Num(0), Ok(json!({}))),
            r#"{"jsonrpc":"2.0","id":0,"result":{}}"#
        );
        // An odd id is echoed back as sent.
        let (m, f) = one(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#);
        assert!(f.is_empty());
        let Message::Request { id, .. } = m else {
            panic!("not a request")
        };
        assert_eq!(
            response(&id, Ok(json!({}))),
            r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#
        );
        assert_eq!(
            response(&Id::Null, Err(RpcError::new(-32700, "x"))),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#
        );
    }
}
