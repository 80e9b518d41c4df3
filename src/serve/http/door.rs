//! The stateless era's front door: what the 2026-07-28 revision asks a
//! server to refuse over HTTP, checked before serve sees the request.

use super::*;

/// What the stateless era's front door refuses: an HTTP status and the
/// JSON-RPC error (code, message, data).
#[derive(Debug, PartialEq)]
pub(super) struct Refusal {
    pub(super) status: &'static str,
    pub(super) code: i64,
    pub(super) message: String,
    pub(super) data: Option<Value>,
}

impl Refusal {
    fn new(status: &'static str, code: i64, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            code,
            message: message.into(),
            data: None,
        }
    }
}

/// The methods the stateless era has no more (a stateless request for
/// them is refused as unknown).
pub(super) const REMOVED_IN_STATELESS: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// The requests serve answers in the stateless era (the agent's
/// dispatch in `agent.rs`): any other is 404 at the door.
pub(super) const STATELESS_METHODS: &[&str] = &[
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "tools/call",
    "prompts/get",
    "resources/read",
    "completion/complete",
    "tasks/get",
    "tasks/result",
    "tasks/cancel",
    "tasks/list",
    "subscriptions/listen",
];

/// A standard header (`Mcp-Method`, `Mcp-Name`) is there and says what the
/// body says; else -32020 with 400.
pub(super) fn standard_header(head: &Head, name: &str, want: &str) -> Result<(), Refusal> {
    match head.header(name).and_then(header_value) {
        Some(v) if v == want => Ok(()),
        Some(v) => Err(Refusal::new(
            "400 Bad Request",
            crate::mcp::jsonrpc::codes::HEADER_MISMATCH,
            format!("{name} is {v:?} but the request says {want:?}"),
        )),
        None => Err(Refusal::new(
            "400 Bad Request",
            crate::mcp::jsonrpc::codes::HEADER_MISMATCH,
            format!("a 2026-07-28 request sends the {name} header ({want:?})"),
        )),
    }
}

/// A standard header's value: `=?base64?…?=` decoded.
pub(super) fn header_value(raw: &str) -> Option<String> {
    match raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(b64) => {
            use base64::Engine as _;
            let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(raw.to_string()),
    }
}

/// The 2026-07-28 rules for a request that came over HTTP (the front
/// door checks them before serve sees it): the `MCP-Protocol-Version`
/// header and `_meta`'s version agree and are known, `_meta` has the
/// client's capabilities, `Mcp-Method` (and `Mcp-Name` for a call, a read
/// or a prompt) match the body, and the method still exists in the era.
/// Requests of the initialize era (their version in the header, or none
/// in `_meta`) pass as they are.
pub(super) fn stateless_check(head: &Head, frame: &Value) -> Result<(), Refusal> {
    use crate::mcp::jsonrpc::codes;
    use crate::mcp::types::{INITIALIZE_VERSIONS, STATELESS_VERSION};
    let bad = "400 Bad Request";
    let header = head.header("mcp-protocol-version");
    let meta = frame.pointer("/params/_meta");
    let body_version = meta
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(Value::as_str);
    let stateless = match (header, body_version) {
        (Some(h), _) if h == STATELESS_VERSION => true,
        (Some(h), _) if INITIALIZE_VERSIONS.contains(&h) => {
            if let Some(b) = body_version.filter(|b| *b != h) {
                return Err(Refusal::new(
                    bad,
                    codes::HEADER_MISMATCH,
                    format!("MCP-Protocol-Version is {h} but _meta says {b}"),
                ));
            }
            false
        }
        (Some(h), _) => {
            // What `server/discover` says serve supports.
            let supported = [STATELESS_VERSION];
            let mut r = Refusal::new(
                bad,
                codes::UNSUPPORTED_VERSION,
                "Unsupported protocol version",
            );
            r.data = Some(serde_json::json!({"supported": supported, "requested": h}));
            return Err(r);
        }
        (None, Some(_)) => {
            return Err(Refusal::new(
                bad,
                codes::HEADER_MISMATCH,
                "a request with io.modelcontextprotocol/protocolVersion in _meta must send the MCP-Protocol-Version header too",
            ));
        }
        (None, None) => false,
    };
    let Some(method) = frame.get("method").and_then(Value::as_str) else {
        return Ok(());
    };
    if !stateless || frame.get("id").is_none() {
        return Ok(());
    }
    let Some(meta) = meta.filter(|m| m.is_object()) else {
        return Err(Refusal::new(
            bad,
            codes::INVALID_PARAMS,
            "a 2026-07-28 request carries params._meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities",
        ));
    };
    match body_version {
        None => {
            return Err(Refusal::new(
                bad,
                codes::INVALID_PARAMS,
                "params._meta has no io.modelcontextprotocol/protocolVersion",
            ));
        }
        Some(b) if b != STATELESS_VERSION => {
            return Err(Refusal::new(
                bad,
                codes::HEADER_MISMATCH,
                format!("MCP-Protocol-Version is {STATELESS_VERSION} but _meta says {b}"),
            ));
        }
        Some(_) => {}
    }
    if meta
        .get("io.modelcontextprotocol/clientCapabilities")
        .is_none()
    {
        return Err(Refusal::new(
            bad,
            codes::INVALID_PARAMS,
            "params._meta has no io.modelcontextprotocol/clientCapabilities ({} is enough)",
        ));
    }
    standard_header(head, "Mcp-Method", method)?;
    let named = match method {
        "tools/call" | "prompts/get" => frame.pointer("/params/name"),
        "resources/read" => frame.pointer("/params/uri"),
        _ => None,
    }
    .and_then(Value::as_str);
    if let Some(name) = named {
        standard_header(head, "Mcp-Name", name)?;
    }
    if REMOVED_IN_STATELESS.contains(&method) {
        return Err(Refusal::new(
            "404 Not Found",
            codes::METHOD_NOT_FOUND,
            format!("{method} is not part of protocol version {STATELESS_VERSION}"),
        ));
    }
    if !STATELESS_METHODS.contains(&method) {
        return Err(Refusal::new(
            "404 Not Found",
            codes::METHOD_NOT_FOUND,
            format!("mcpdeck serve does not offer {method}"),
        ));
    }
    Ok(())
}
