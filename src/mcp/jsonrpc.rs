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
}

/// Parse one frame (one line of stdio, one HTTP body or SSE event).
pub fn parse_frame(raw: &str) -> Parsed {
    let mut out = Parsed::default();
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return out;
    }
    let value: Value = match serde_json::from_str(trimmed) {
        Ok(v) => v,
        Err(e) => {
            out.findings.push(Finding::frame(
                Severity::Error,
                format!("a line from the server is not JSON ({e}); it was skipped"),
                raw,
            ));
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
    match obj.get("jsonrpc") {
        Some(Value::String(s)) if s == "2.0" => {}
        Some(other) => problems.push(format!("`jsonrpc` is {} instead of \"2.0\"", short(other))),
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
                    Some(Message::Response { id, outcome })
                }
            }
        }
    };
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
    fn wrong_or_missing_jsonrpc_keeps_the_message() {
        let (m, f) = one(r#"{"jsonrpc":"1.0","id":1,"result":{}}"#);
        assert!(matches!(m, Message::Response { outcome: Ok(_), .. }));
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("\"1.0\""));
        assert_eq!(f[0].severity, Severity::Warning);
        let (_, f) = one(r#"{"id":1,"result":{}}"#);
        assert!(f[0].message.contains("missing"));
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
