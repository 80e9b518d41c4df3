//! What is being sent: the method, id and name of a message (for headers and
//! labels), the stateless era's `Mcp-Param-*` headers, and whether a body
//! answers a given request.

use base64::Engine as _;
use serde_json::Value;

/// What a frame we send is, read from its text.
pub(super) struct Outgoing {
    pub(super) id: Option<i64>,
    pub(super) method: Option<String>,
    /// `params.name` or `params.uri`.
    pub(super) name: Option<String>,
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]`
    pub(super) stateless_version: Option<String>,
    pub(super) arguments: Option<Value>,
}

impl Outgoing {
    pub(super) fn read(line: &str) -> Outgoing {
        let v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let method = v.get("method").and_then(Value::as_str).map(str::to_string);
        let id = v.get("id").and_then(Value::as_i64);
        let params = v.get("params");
        let name = params
            .and_then(|p| p.get("name").or_else(|| p.get("uri")))
            .and_then(Value::as_str)
            .map(str::to_string);
        let stateless_version = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let arguments = params.and_then(|p| p.get("arguments")).cloned();
        Outgoing {
            id: if method.is_some() { id } else { None },
            method,
            name,
            stateless_version,
            arguments,
        }
    }

    pub(super) fn label(&self) -> String {
        match (&self.method, self.id) {
            (Some(m), _) => m.clone(),
            (None, _) => "response".into(),
        }
    }
}

/// A header value for `Mcp-Param-*` / `Mcp-Name`: plain when it is
/// printable ASCII without edge spaces, else `=?base64?…?=`.
pub fn header_param(v: &Value) -> Option<String> {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => return None,
    };
    let plain = s.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !s.starts_with(' ')
        && !s.ends_with(' ')
        && !s.starts_with("=?");
    Some(if plain {
        s
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(s.as_bytes())
        )
    })
}

/// The `x-mcp-header` annotations of a tool's input schema:
/// `(property, header suffix)` pairs (the valid ones: a tool with an
/// invalid one is left out of the list, see [`header_problem`]).
pub fn param_headers(input_schema: &Value) -> Vec<(String, String)> {
    let Some(props) = input_schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .filter_map(|(k, p)| {
            let h = p.get("x-mcp-header")?.as_str()?;
            header_name_ok(h).then(|| (k.clone(), h.to_string()))
        })
        .collect()
}

/// Whether `h` can follow `Mcp-Param-` in a header name: an HTTP token
/// (RFC 9110 `tchar`s: visible ASCII but for separators), not empty.
fn header_name_ok(h: &str) -> bool {
    !h.is_empty()
        && h.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// What is wrong with a tool's `x-mcp-header` annotations (SEP-2243), if
/// anything: a name that is empty or not a header token (a space, a
/// colon, a control or non-ASCII character), one on a parameter that is
/// not a string, an integer or a boolean, or the same name twice (case
/// ignored). A client leaves such a tool out.
pub fn header_problem(input_schema: &Value) -> Option<String> {
    let props = input_schema.get("properties")?.as_object()?;
    let mut seen: Vec<(String, &str)> = Vec::new();
    for (name, p) in props {
        let Some(h) = p.get("x-mcp-header") else {
            continue;
        };
        let Some(h) = h.as_str() else {
            return Some(format!("the x-mcp-header of `{name}` is not a string"));
        };
        if !header_name_ok(h) {
            return Some(format!(
                "the x-mcp-header of `{name}` ({}) is not a header name (empty, or a space, colon, control or non-ASCII character)",
                crate::sanitize::one_line(&format!("{h:?}"))
            ));
        }
        if let Some(t) = p.get("type")
            && !matches!(t.as_str(), Some("string" | "integer" | "boolean"))
        {
            return Some(format!(
                "`{name}` carries x-mcp-header {h:?} but is of type {t}, not a string, integer or boolean"
            ));
        }
        let folded = h.to_ascii_lowercase();
        if let Some((_, other)) = seen.iter().find(|(f, _)| *f == folded) {
            return Some(format!(
                "x-mcp-header {h:?} of `{name}` is also the header of `{other}` (names are compared without case)"
            ));
        }
        seen.push((folded, name));
    }
    None
}

/// Whether an SSE data payload is the response to request `id`.
pub(super) fn answers_request(data: &str, id: i64) -> bool {
    #[derive(serde::Deserialize)]
    pub(super) struct Head {
        id: Option<Value>,
        method: Option<serde::de::IgnoredAny>,
        result: Option<serde::de::IgnoredAny>,
        error: Option<serde::de::IgnoredAny>,
    }
    let Ok(h) = serde_json::from_str::<Head>(data) else {
        return false;
    };
    if h.method.is_some() || (h.result.is_none() && h.error.is_none()) {
        return false;
    }
    match h.id {
        Some(Value::Number(n)) => n.as_i64() == Some(id) || n.as_f64() == Some(id as f64),
        Some(Value::String(s)) => s.parse::<i64>().ok() == Some(id),
        _ => false,
    }
}

/// Whether a JSON array body holds the response to request `id`.
pub(super) fn batch_answers(text: &str, id: i64) -> bool {
    if !text.trim_start().starts_with('[') {
        return false;
    }
    serde_json::from_str::<Vec<Value>>(text)
        .map(|items| {
            items.iter().any(|i| {
                i.get("method").is_none()
                    && (i.get("result").is_some() || i.get("error").is_some())
                    && i.get("id").and_then(Value::as_i64) == Some(id)
            })
        })
        .unwrap_or(false)
}
