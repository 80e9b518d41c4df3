//! MCP data views: tools, content blocks, results. Each keeps the raw
//! `Value` it came from, so nothing a server sent is lost; unknown fields
//! and unknown kinds stay available.

use serde_json::{Value, json};
use std::fmt;

use super::finding::{Finding, Severity};

/// The stateless protocol revision.
pub const STATELESS_VERSION: &str = "2026-07-28";
/// Initialize-era versions we speak, newest first.
pub const INITIALIZE_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The two protocol eras.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// 2026-07-28: no handshake, `_meta` on every request.
    Stateless,
    /// 2024-11-05 … 2025-11-25: `initialize` handshake.
    Initialize,
}

impl Era {
    pub fn label(self) -> &'static str {
        match self {
            Era::Stateless => "stateless",
            Era::Initialize => "initialize",
        }
    }
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// `serverInfo` / `io.modelcontextprotocol/serverInfo`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerInfo {
    pub name: String,
    pub title: Option<String>,
    pub version: String,
    pub raw: Value,
}

impl ServerInfo {
    pub fn from_value(v: &Value) -> Self {
        ServerInfo {
            name: str_field(v, "name").unwrap_or_default(),
            title: str_field(v, "title"),
            version: str_field(v, "version").unwrap_or_default(),
            raw: v.clone(),
        }
    }
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// A tool as listed, with typed views of the fields that matter.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub input_schema: Option<Value>,
    pub output_schema: Option<Value>,
    pub annotations: Option<Value>,
    /// The tool object exactly as the server sent it.
    pub raw: Value,
}

impl Tool {
    /// Read one entry of a `tools` array. A tool without a usable name is
    /// dropped (with a finding); any other flaw is a finding and the tool is
    /// kept.
    pub fn parse(v: &Value, findings: &mut Vec<Finding>) -> Option<Tool> {
        let raw_text = || v.to_string();
        let Some(obj) = v.as_object() else {
            findings.push(Finding::frame(
                Severity::Error,
                "a tools/list entry is not an object; it was skipped",
                &raw_text(),
            ));
            return None;
        };
        let Some(name) = obj
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        else {
            findings.push(Finding::frame(
                Severity::Error,
                "a tool has no `name`; it was skipped",
                &raw_text(),
            ));
            return None;
        };
        let input_schema = match obj.get("inputSchema") {
            Some(s) if s.is_object() => Some(s.clone()),
            Some(other) => {
                findings.push(Finding::frame(
                    Severity::Warning,
                    format!("tool `{name}`: `inputSchema` is {} instead of an object; arguments are not validated", super::jsonrpc::kind(other)),
                    &raw_text(),
                ));
                None
            }
            None => {
                findings.push(Finding::frame(
                    Severity::Warning,
                    format!("tool `{name}` has no `inputSchema` (required by the spec); arguments are not validated"),
                    &raw_text(),
                ));
                None
            }
        };
        let output_schema = obj.get("outputSchema").filter(|s| s.is_object()).cloned();
        Some(Tool {
            name: name.to_string(),
            title: obj
                .get("title")
                .and_then(Value::as_str)
                .or_else(|| {
                    obj.get("annotations")
                        .and_then(|a| a.get("title"))
                        .and_then(Value::as_str)
                })
                .map(str::to_string),
            description: obj
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            input_schema,
            output_schema,
            annotations: obj.get("annotations").cloned(),
            raw: v.clone(),
        })
    }

    fn hint(&self, key: &str) -> Option<bool> {
        self.annotations.as_ref()?.get(key)?.as_bool()
    }

    pub fn read_only(&self) -> bool {
        self.hint("readOnlyHint") == Some(true)
    }

    /// Per spec the default of destructiveHint is true, but only when the
    /// tool is not read-only; we mark a tool destructive only when it says so.
    pub fn destructive(&self) -> bool {
        self.hint("destructiveHint") == Some(true) && !self.read_only()
    }

    pub fn open_world(&self) -> bool {
        self.hint("openWorldHint") == Some(true)
    }

    /// A compact signature from the input schema: `(city: string, units?: "metric"|"imperial")`.
    pub fn signature(&self) -> String {
        let Some(schema) = &self.input_schema else {
            return "(…)".to_string();
        };
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return "()".to_string();
        };
        let parts: Vec<String> = props
            .iter()
            .map(|(k, p)| {
                let opt = if required.contains(&k.as_str()) {
                    ""
                } else {
                    "?"
                };
                format!("{k}{opt}: {}", schema_type(p))
            })
            .collect();
        format!("({})", parts.join(", "))
    }
}

/// A short description of a property's type.
pub fn schema_type(p: &Value) -> String {
    if let Some(e) = p.get("enum").and_then(Value::as_array) {
        let vals: Vec<String> = e.iter().take(4).map(|v| v.to_string()).collect();
        let more = if e.len() > 4 { "|…" } else { "" };
        return format!("{}{more}", vals.join("|"));
    }
    if let Some(c) = p.get("const") {
        return c.to_string();
    }
    match p.get("type") {
        Some(Value::String(t)) if t == "array" => match p.get("items") {
            Some(items) => format!("{}[]", schema_type(items)),
            None => "array".into(),
        },
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ => {
            for key in ["anyOf", "oneOf"] {
                if let Some(alts) = p.get(key).and_then(Value::as_array) {
                    return alts.iter().map(schema_type).collect::<Vec<_>>().join("|");
                }
            }
            if p.get("$ref").is_some() {
                "ref".into()
            } else {
                "any".into()
            }
        }
    }
}

/// A content block of a tool result (or a prompt message).
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Text {
        text: String,
    },
    Image {
        mime: String,
        data: String,
    },
    Audio {
        mime: String,
        data: String,
    },
    ResourceLink {
        uri: String,
        name: Option<String>,
        mime: Option<String>,
        description: Option<String>,
    },
    Resource {
        uri: String,
        mime: Option<String>,
        text: Option<String>,
        blob: Option<String>,
    },
    /// A block of a type mcpdeck does not know, kept whole.
    Unknown {
        kind: String,
        raw: Value,
    },
}

impl Content {
    pub fn parse(v: &Value, findings: &mut Vec<Finding>) -> Content {
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let missing = |findings: &mut Vec<Finding>, field: &str| {
            findings.push(Finding::frame(
                Severity::Warning,
                format!("a `{kind}` content block has no `{field}`"),
                &v.to_string(),
            ));
        };
        match kind {
            "text" => {
                if s("text").is_none() {
                    missing(findings, "text");
                }
                Content::Text {
                    text: s("text").unwrap_or_default(),
                }
            }
            "image" | "audio" => {
                if s("data").is_none() {
                    missing(findings, "data");
                }
                if s("mimeType").is_none() {
                    missing(findings, "mimeType");
                }
                let mime = s("mimeType").unwrap_or_default();
                let data = s("data").unwrap_or_default();
                if kind == "image" {
                    Content::Image { mime, data }
                } else {
                    Content::Audio { mime, data }
                }
            }
            "resource_link" => {
                if s("uri").is_none() {
                    missing(findings, "uri");
                }
                Content::ResourceLink {
                    uri: s("uri").unwrap_or_default(),
                    name: s("name"),
                    mime: s("mimeType"),
                    description: s("description"),
                }
            }
            "resource" => {
                let r = v.get("resource").cloned().unwrap_or(Value::Null);
                if !r.is_object() {
                    missing(findings, "resource");
                }
                let rs = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_string);
                Content::Resource {
                    uri: rs("uri").unwrap_or_default(),
                    mime: rs("mimeType"),
                    text: rs("text"),
                    blob: rs("blob"),
                }
            }
            _ => {
                let shown = if kind.is_empty() {
                    "(missing)".to_string()
                } else {
                    kind.to_string()
                };
                findings.push(Finding::frame(
                    Severity::Warning,
                    format!("unknown content type `{shown}`; the block is shown raw"),
                    &v.to_string(),
                ));
                Content::Unknown {
                    kind: shown,
                    raw: v.clone(),
                }
            }
        }
    }

    /// Decoded size in bytes of base64 data.
    pub fn decoded_len(data: &str) -> usize {
        let trimmed = data.trim_end_matches('=');
        trimmed.len() * 3 / 4
    }
}

/// A `tools/call` result.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    pub content: Vec<Content>,
    pub is_error: bool,
    /// The result object as received.
    pub raw: Value,
}

impl CallResult {
    /// Read a result, keeping it whole as `raw` (no copy).
    pub fn parse(v: Value, findings: &mut Vec<Finding>) -> CallResult {
        let content = match v.get("content") {
            Some(Value::Array(items)) => {
                items.iter().map(|b| Content::parse(b, findings)).collect()
            }
            Some(other) => {
                findings.push(Finding::frame(
                    Severity::Warning,
                    format!(
                        "`content` of a tools/call result is {}, not an array",
                        super::jsonrpc::kind(other)
                    ),
                    &v.to_string(),
                ));
                Vec::new()
            }
            None => {
                if v.get("structuredContent").is_none() {
                    findings.push(Finding::frame(
                        Severity::Warning,
                        "a tools/call result has no `content`",
                        &v.to_string(),
                    ));
                }
                Vec::new()
            }
        };
        CallResult {
            content,
            is_error: v.get("isError").and_then(Value::as_bool).unwrap_or(false),
            raw: v,
        }
    }

    /// `structuredContent`, when present.
    pub fn structured(&self) -> Option<&Value> {
        self.raw.get("structuredContent")
    }
}

/// The `clientInfo` we send.
pub fn client_info() -> Value {
    json!({"name": "mcpdeck", "version": env!("CARGO_PKG_VERSION")})
}

/// A number as people write it: `3`, `2.50`.
fn plain_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:.2}")
    }
}

/// A progress notification's fields as text: `3/10 (30%) · step 3`.
pub fn progress_text(progress: f64, total: Option<f64>, message: Option<&str>) -> String {
    let mut t = match total {
        Some(total) if total > 0.0 => format!(
            "{}/{} ({:.0}%)",
            plain_number(progress),
            plain_number(total),
            (progress / total * 100.0).clamp(0.0, 100.0)
        ),
        _ => plain_number(progress),
    };
    if let Some(m) = message {
        t.push_str(&format!(" · {}", crate::sanitize::one_line(m)));
    }
    t
}

/// A `notifications/message` as one terminal-safe line: `[level] logger: data`.
pub fn log_line(p: &Value) -> String {
    let level = p.get("level").and_then(Value::as_str).unwrap_or("info");
    let logger = p
        .get("logger")
        .and_then(Value::as_str)
        .map(|l| format!("{l}: "))
        .unwrap_or_default();
    let data = match p.get("data") {
        Some(Value::String(t)) => t.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    crate::sanitize::one_line(&format!("[{level}] {logger}{data}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_without_input_schema_is_kept_with_a_finding() {
        let mut f = Vec::new();
        let t = Tool::parse(&json!({"name":"x","description":"d"}), &mut f).unwrap();
        assert_eq!(t.name, "x");
        assert!(t.input_schema.is_none());
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("no `inputSchema`"));
        assert!(Tool::parse(&json!({"description":"d"}), &mut f).is_none());
        assert_eq!(f.len(), 2);
    }

    #[test]
    fn signature_and_badges() {
        let mut f = Vec::new();
        let t = Tool::parse(
            &json!({"name":"w","inputSchema":{"type":"object","properties":{
                "city":{"type":"string"},"units":{"enum":["metric","imperial"]},
                "tags":{"type":"array","items":{"type":"string"}}},"required":["city"]},
                "annotations":{"readOnlyHint":true,"openWorldHint":true}}),
            &mut f,
        )
        .unwrap();
        assert_eq!(
            t.signature(),
            r#"(city: string, units?: "metric"|"imperial", tags?: string[])"#
        );
        assert!(t.read_only() && t.open_world() && !t.destructive());
        assert!(f.is_empty());
    }

    #[test]
    fn content_blocks_of_every_type() {
        let mut f = Vec::new();
        let r = CallResult::parse(
            json!({"content":[
                {"type":"text","text":"hi"},
                {"type":"image","data":"AAAA","mimeType":"image/png"},
                {"type":"audio","data":"AAAA","mimeType":"audio/wav"},
                {"type":"resource_link","uri":"demo://x","name":"x"},
                {"type":"resource","resource":{"uri":"demo://y","text":"t"}},
                {"type":"hologram","beam":1}
            ],"isError":true}),
            &mut f,
        );
        assert!(r.is_error);
        assert_eq!(r.content.len(), 6);
        assert!(matches!(&r.content[5], Content::Unknown { kind, .. } if kind == "hologram"));
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("hologram"));
        assert_eq!(Content::decoded_len("AAAA"), 3);
    }
}
