//! MCP Apps (`io.modelcontextprotocol/ui`): tools whose results a host can
//! show in an interactive HTML view. mcpdeck renders none of it; it reads
//! what a server declares and says what is wrong with it.
//!
//! - A tool names its view with `_meta.ui.resourceUri` (a `ui://` URI;
//!   older servers write `_meta["ui/resourceUri"]`), and may say who may
//!   call it with `_meta.ui.visibility` (`"model"`, `"app"`).
//! - The view is a resource: `text/html;profile=mcp-app`, an HTML document,
//!   with `_meta.ui` on its content (or its listing): `csp`
//!   (`connectDomains`, `resourceDomains`, `frameDomains`,
//!   `baseUriDomains`), `permissions` (`camera`, `microphone`,
//!   `geolocation`, `clipboardWrite`), `domain`, `prefersBorder`.

use serde_json::{Map, Value, json};

/// The extension's identifier.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of a view.
pub const MIME: &str = "text/html;profile=mcp-app";
const CSP_KEYS: [&str; 4] = [
    "connectDomains",
    "resourceDomains",
    "frameDomains",
    "baseUriDomains",
];
const PERMISSIONS: [&str; 4] = ["camera", "microphone", "geolocation", "clipboardWrite"];

/// What a tool says about its view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolUi {
    pub resource_uri: String,
    /// `_meta.ui.visibility`, when given.
    pub visibility: Option<Vec<String>>,
    /// It used the older flat key `_meta["ui/resourceUri"]`.
    pub flat_key: bool,
}

/// A tool's view, if it names one.
pub fn tool_ui(tool: &Value) -> Option<ToolUi> {
    let meta = tool.get("_meta")?;
    let ui = meta.get("ui");
    let nested = ui
        .and_then(|u| u.get("resourceUri"))
        .and_then(Value::as_str);
    let flat = meta.get("ui/resourceUri").and_then(Value::as_str);
    let uri = nested.or(flat)?;
    let visibility = ui
        .and_then(|u| u.get("visibility"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect()
        });
    Some(ToolUi {
        resource_uri: uri.to_string(),
        visibility,
        flat_key: nested.is_none(),
    })
}

/// What mcpdeck found about a view.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AppInfo {
    pub mime_type: Option<String>,
    /// The document's bytes.
    pub size: usize,
    pub html: bool,
    /// `_meta.ui` of the content, else of the listing.
    pub ui: Map<String, Value>,
    pub problems: Vec<String>,
}

impl AppInfo {
    pub fn to_json(&self, tool: &str, t: &ToolUi) -> Value {
        json!({
            "tool": tool,
            "resourceUri": t.resource_uri,
            "visibility": t.visibility,
            "resource": {
                "mimeType": self.mime_type,
                "size": self.size,
                "html": self.html,
            },
            "csp": self.ui.get("csp").cloned().unwrap_or(Value::Null),
            "permissions": self.ui.get("permissions").cloned().unwrap_or(Value::Null),
            "domain": self.ui.get("domain").cloned().unwrap_or(Value::Null),
            "prefersBorder": self.ui.get("prefersBorder").cloned().unwrap_or(Value::Null),
            "problems": self.problems,
        })
    }
}

/// Problems of the tool's own declaration.
pub fn tool_problems(t: &ToolUi) -> Vec<String> {
    let mut p = Vec::new();
    if !t.resource_uri.starts_with("ui://") {
        p.push(format!(
            "resourceUri {:?} is not a ui:// URI",
            t.resource_uri
        ));
    }
    if t.flat_key {
        p.push("the tool uses the older `_meta[\"ui/resourceUri\"]` key; hosts now read `_meta.ui.resourceUri`".into());
    }
    if let Some(v) = &t.visibility {
        for x in v {
            if x != "model" && x != "app" {
                p.push(format!("visibility {x:?} is neither \"model\" nor \"app\""));
            }
        }
        if v.is_empty() {
            p.push("visibility is empty: neither the model nor the view may call the tool".into());
        }
    }
    p
}

/// Read what `resources/read` returned for the view `uri` (and its
/// listing entry, when the server lists it).
pub fn inspect(read: &Value, uri: &str, listed: Option<&Value>) -> AppInfo {
    let mut info = AppInfo::default();
    let contents = read.get("contents").and_then(Value::as_array);
    let Some(c) = contents.and_then(|cs| {
        cs.iter()
            .find(|c| c.get("uri").and_then(Value::as_str) == Some(uri))
            .or(cs.first())
    }) else {
        info.problems
            .push("resources/read returned no content for it".into());
        return info;
    };
    info.mime_type = c
        .get("mimeType")
        .and_then(Value::as_str)
        .map(str::to_string);
    let text = if let Some(t) = c.get("text").and_then(Value::as_str) {
        Some(t.to_string())
    } else if let Some(b) = c.get("blob").and_then(Value::as_str) {
        use base64::Engine as _;
        let clean: String = b.chars().filter(|c| !c.is_whitespace()).collect();
        match base64::engine::general_purpose::STANDARD_NO_PAD.decode(clean.trim_end_matches('=')) {
            Ok(bytes) => {
                info.size = bytes.len();
                String::from_utf8(bytes).ok()
            }
            Err(_) => {
                info.problems.push("its blob is not base64".into());
                None
            }
        }
    } else {
        info.problems
            .push("the content has neither text nor blob".into());
        None
    };
    if let Some(t) = &text {
        info.size = t.len();
        let head: String = t
            .chars()
            .take(2048)
            .collect::<String>()
            .to_ascii_lowercase();
        info.html = head.contains("<!doctype html") || head.contains("<html");
    }
    match info.mime_type.as_deref() {
        Some(m) if m.replace(' ', "").eq_ignore_ascii_case(MIME) => {}
        Some(m) => info.problems.push(format!(
            "mimeType {m:?}, not {MIME:?}: hosts will not render it as a view"
        )),
        None => info
            .problems
            .push(format!("no mimeType (a view is {MIME:?})")),
    }
    if info.size == 0 {
        info.problems.push("the document is empty".into());
    } else if text.is_some() && !info.html {
        info.problems
            .push("the document is not HTML (no <!doctype html> or <html> near its start)".into());
    }
    let from_content = c.get("_meta").and_then(|m| m.get("ui"));
    let from_listing = listed
        .and_then(|l| l.get("_meta"))
        .and_then(|m| m.get("ui"));
    match from_content.or(from_listing) {
        Some(Value::Object(ui)) => info.ui = ui.clone(),
        Some(_) => info.problems.push("_meta.ui is not an object".into()),
        None => {}
    }
    let ui = info.ui.clone();
    check_ui(&ui, &mut info.problems);
    info
}

fn check_ui(ui: &Map<String, Value>, problems: &mut Vec<String>) {
    match ui.get("csp") {
        None => {}
        Some(Value::Object(csp)) => {
            for (k, v) in csp {
                if !CSP_KEYS.contains(&k.as_str()) {
                    problems.push(format!(
                        "csp.{k} is not a CSP field hosts know ({})",
                        CSP_KEYS.join(", ")
                    ));
                    continue;
                }
                let Some(list) = v.as_array() else {
                    problems.push(format!("csp.{k} is not an array of origins"));
                    continue;
                };
                for d in list {
                    match d.as_str() {
                        Some(d) => {
                            if let Some(why) = origin_problem(d) {
                                problems.push(format!("csp.{k}: {d:?} {why}"));
                            }
                        }
                        None => problems.push(format!("csp.{k} holds a non-string {d}")),
                    }
                }
            }
        }
        Some(_) => problems.push("csp is not an object".into()),
    }
    match ui.get("permissions") {
        None => {}
        Some(Value::Object(p)) => {
            for k in p.keys() {
                if !PERMISSIONS.contains(&k.as_str()) {
                    problems.push(format!(
                        "permissions.{k} is not a permission hosts know ({})",
                        PERMISSIONS.join(", ")
                    ));
                }
            }
        }
        Some(_) => problems.push("permissions is not an object".into()),
    }
    if let Some(d) = ui.get("domain")
        && !d.is_string()
    {
        problems.push("domain is not a string".into());
    }
    if let Some(b) = ui.get("prefersBorder")
        && !b.is_boolean()
    {
        problems.push("prefersBorder is not a boolean".into());
    }
}

/// What is wrong with a CSP origin, if anything.
fn origin_problem(d: &str) -> Option<&'static str> {
    if d == "*" || d == "https://*" || d == "http://*" {
        return Some("allows every origin");
    }
    let Some((scheme, rest)) = d.split_once("://") else {
        return Some("is not an origin (scheme://host)");
    };
    let host = rest.split(['/', ':']).next().unwrap_or_default();
    if host.is_empty() {
        return Some("has no host");
    }
    if rest.trim_end_matches('/').contains('/') {
        return Some("has a path; CSP sources here are origins");
    }
    let local = matches!(host, "localhost" | "127.0.0.1" | "[::1]");
    match scheme {
        "https" | "wss" => None,
        "http" | "ws" if local => None,
        "http" | "ws" => Some("is not TLS (http/ws to a non-local host)"),
        _ => Some("has a scheme other than https, wss, http or ws"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_names_its_view_either_way() {
        let t = json!({"name": "t", "_meta": {"ui": {"resourceUri": "ui://a/view.html", "visibility": ["model", "app"]}}});
        let u = tool_ui(&t).expect("has a view");
        assert_eq!(u.resource_uri, "ui://a/view.html");
        assert!(tool_problems(&u).is_empty());
        let old = json!({"name": "t", "_meta": {"ui/resourceUri": "ui://a/v"}});
        let u = tool_ui(&old).expect("flat key");
        assert!(u.flat_key);
        assert_eq!(tool_problems(&u).len(), 1);
        assert_eq!(tool_ui(&json!({"name": "t"})), None);
        let bad = json!({"_meta": {"ui": {"resourceUri": "https://x", "visibility": ["user"]}}});
        let p = tool_problems(&tool_ui(&bad).expect("view"));
        assert_eq!(p.len(), 2, "{p:?}");
    }

    #[test]
    fn a_good_view_has_no_problems_and_a_bad_one_says_each() {
        let good = json!({"contents": [{"uri": "ui://a/v", "mimeType": "text/html;profile=mcp-app",
            "text": "<!DOCTYPE html><html><body>hi</body></html>",
            "_meta": {"ui": {"csp": {"connectDomains": ["https://api.example.com", "http://localhost:3000"]},
                              "permissions": {"clipboardWrite": {}}, "prefersBorder": true}}}]});
        let i = inspect(&good, "ui://a/v", None);
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        assert!(i.html);
        assert_eq!(i.size, 43);
        let bad = json!({"contents": [{"uri": "ui://a/v", "mimeType": "text/html", "text": "plain words",
            "_meta": {"ui": {"csp": {"connectDomains": ["*", "http://evil.example", "example.com"], "scriptDomains": []},
                              "permissions": {"usb": {}}, "prefersBorder": "yes"}}}]});
        let i = inspect(&bad, "ui://a/v", None);
        for want in [
            "mimeType",
            "not HTML",
            "every origin",
            "not TLS",
            "not an origin",
            "scriptDomains",
            "usb",
            "prefersBorder",
        ] {
            assert!(
                i.problems.iter().any(|p| p.contains(want)),
                "{want}: {:?}",
                i.problems
            );
        }
        // The listing's _meta.ui counts when the content has none.
        let plain =
            json!({"contents": [{"uri": "ui://a/v", "mimeType": MIME, "text": "<html></html>"}]});
        let listed = json!({"uri": "ui://a/v", "_meta": {"ui": {"domain": "a.example"}}});
        let i = inspect(&plain, "ui://a/v", Some(&listed));
        assert_eq!(i.ui.get("domain"), Some(&json!("a.example")));
        assert!(inspect(&json!({}), "ui://a/v", None).problems[0].contains("no content"));
    }
}
