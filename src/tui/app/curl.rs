//! Copy a call to an HTTP server as `curl` (the copy-as-curl key): a
//! script for a POSIX shell that makes the same `tools/call` with nothing
//! but curl. Stateless-era servers get one request with the era's headers
//! and `_meta`; initialize-era servers get the handshake first (initialize,
//! its `Mcp-Session-Id` kept, `notifications/initialized`), then the call.
//!
//! No secret is ever in it: a `${VAR}` the config holds stays a shell
//! variable (the shell expands it as mcpdeck does), a secret header or
//! query value written in the config becomes `$MCPDECK_…`, and a server
//! logged in with OAuth gets `Authorization: Bearer $MCPDECK_TOKEN`. The
//! script's first lines name each variable to set.

use serde_json::{Value, json};

use crate::config::TransportConfig;
use crate::mcp::netlog::{is_secret_header, is_secret_query};

/// What a curl of one server needs, secrets already replaced by
/// variables: made from the config (`HttpView::from_config`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CurlBase {
    /// The URL, as a double-quoted shell word's content.
    pub url: String,
    /// Headers, values as double-quoted shell words' content.
    pub headers: Vec<(String, String)>,
    /// The variables introduced for secrets, and what each holds.
    pub vars: Vec<(String, String)>,
}

/// A variable name for a header or query name: `MCPDECK_X_API_KEY`.
fn var_name(prefix: &str, name: &str) -> String {
    let mut v = String::from(prefix);
    for c in name.chars() {
        v.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        });
    }
    v
}

/// `text` for inside a double-quoted shell word: `\`, `"` and `` ` ``
/// escaped, and `$` too unless it starts a `${NAME}` (a config
/// reference, which the shell expands as mcpdeck does).
pub fn dq(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let c = text[i..].chars().next().unwrap_or('\0');
        match c {
            '\\' | '"' | '`' => {
                out.push('\\');
                out.push(c);
            }
            '$' => {
                let reference = b.get(i + 1) == Some(&b'{')
                    && text[i + 2..].find('}').is_some_and(|end| {
                        let name = &text[i + 2..i + 2 + end];
                        !name.is_empty()
                            && name.bytes().all(|x| x.is_ascii_alphanumeric() || x == b'_')
                            && !name.as_bytes()[0].is_ascii_digit()
                    });
                if !reference {
                    out.push('\\');
                }
                out.push('$');
            }
            _ => out.push(c),
        }
        i += c.len_utf8();
    }
    out
}

/// A `${NAME}` reference to a variable introduced here.
fn var_ref(name: &str) -> String {
    format!("${{{name}}}")
}

impl CurlBase {
    pub fn from_config(transport: &TransportConfig) -> Option<CurlBase> {
        let TransportConfig::Http { url, headers, .. } = transport else {
            return None;
        };
        let mut base = CurlBase::default();
        // User info: a variable.
        let mut url = url.clone();
        if let Some(start) = url.find("://").map(|i| i + 3) {
            let end = url[start..]
                .find(['/', '?', '#'])
                .map_or(url.len(), |i| start + i);
            if let Some(at) = url[start..end].rfind('@').map(|i| start + i) {
                base.vars
                    .push(("MCPDECK_USERINFO".into(), "the URL's user:password".into()));
                url.replace_range(start..at, &var_ref("MCPDECK_USERINFO"));
            }
        }
        // Secret query values written out: variables.
        let mut text = String::new();
        match url.find('?') {
            Some(q) => {
                let end = url[q..].find('#').map_or(url.len(), |i| q + i);
                text.push_str(&dq(&url[..=q]));
                let pairs: Vec<String> = url[q + 1..end]
                    .split('&')
                    .map(|pair| match pair.split_once('=') {
                        Some((k, v)) if is_secret_query(k) && !v.contains("${") => {
                            let name = var_name("MCPDECK_Q_", k);
                            base.vars
                                .push((name.clone(), format!("the query parameter {k}")));
                            format!("{}={}", dq(k), var_ref(&name))
                        }
                        _ => dq(pair),
                    })
                    .collect();
                text.push_str(&pairs.join("&"));
                text.push_str(&dq(&url[end..]));
            }
            None => text = dq(&url),
        }
        // The user info reference was put in before quoting: keep it.
        base.url = text;
        for (name, value) in headers {
            let shown = if is_secret_header(name) && !value.contains("${") {
                let var = var_name("MCPDECK_", name);
                base.vars.push((var.clone(), format!("the {name} header")));
                // `Bearer abc` keeps its scheme.
                match value.split_once(' ') {
                    Some((scheme, _))
                        if scheme.eq_ignore_ascii_case("bearer")
                            || scheme.eq_ignore_ascii_case("basic") =>
                    {
                        format!("{} {}", dq(scheme), var_ref(&var))
                    }
                    _ => var_ref(&var),
                }
            } else {
                dq(value)
            };
            base.headers.push((name.clone(), shown));
        }
        Some(base)
    }
}

/// The curl script for a call of `tool` with `args` (JSON text) to an
/// HTTP server: `stateless` for the 2026 era, else the initialize era at
/// `version`; `oauth` when its requests carry a token from a login.
pub fn script(
    base: &CurlBase,
    tool: &str,
    args: &Value,
    version: &str,
    stateless: bool,
    oauth: bool,
) -> String {
    let mut vars = base.vars.clone();
    let mut headers: Vec<String> = vec![
        "-H 'Content-Type: application/json'".into(),
        "-H 'Accept: application/json, text/event-stream'".into(),
    ];
    if oauth
        && !base
            .headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("authorization"))
    {
        vars.push((
            "MCPDECK_TOKEN".into(),
            "the server's OAuth access token (mcpdeck keeps it in the OS keyring and never shows it)"
                .into(),
        ));
        headers.push("-H \"Authorization: Bearer ${MCPDECK_TOKEN}\"".into());
    }
    for (n, v) in &base.headers {
        headers.push(format!("-H \"{}: {v}\"", dq(n)));
    }
    let sq = super::keys::sh_quote;
    let mut out = String::new();
    for (name, what) in &vars {
        out.push_str(&format!("# set {name}: {what}\n"));
    }
    out.push_str(&format!("URL=\"{}\"\n", base.url));
    let h = headers.join(" ");
    if stateless {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "curl", "version": "1"},
        });
        let body = json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": args, "_meta": meta},
        });
        out.push_str(&format!(
            "curl -sS -N \"$URL\" {h} -H {} -H 'Mcp-Method: tools/call' -H {} --data-binary {}\n",
            sq(&format!("MCP-Protocol-Version: {version}")),
            sq(&format!("Mcp-Name: {tool}")),
            sq(&body.to_string())
        ));
        return out;
    }
    let init = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "curl", "version": "1"},
        },
    });
    let call = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": args},
    });
    out.push_str(&format!(
        "SID=$(curl -sS -o /dev/null -D - \"$URL\" {h} --data-binary {} | tr -d '\\r' | sed -n 's/^[Mm][Cc][Pp]-[Ss][Ee][Ss][Ss][Ii][Oo][Nn]-[Ii][Dd]: *//p')\n",
        sq(&init.to_string())
    ));
    let session = "${SID:+-H \"Mcp-Session-Id: $SID\"}";
    let version_h = sq(&format!("MCP-Protocol-Version: {version}"));
    out.push_str(&format!(
        "curl -sS -o /dev/null \"$URL\" {h} {session} -H {version_h} --data-binary '{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}'\n"
    ));
    out.push_str(&format!(
        "curl -sS -N \"$URL\" {h} {session} -H {version_h} --data-binary {}\n",
        sq(&call.to_string())
    ));
    out
}

/// The copy-as-curl key: the result's call as a curl script, or why not.
pub(super) fn command(s: &super::State) -> Result<String, String> {
    let one = crate::sanitize::one_line;
    let o = s
        .outcome
        .as_ref()
        .filter(|_| s.inflight().is_none())
        .ok_or("no call yet to copy as curl")?;
    let v = s
        .servers
        .iter()
        .find(|v| v.name == o.server)
        .ok_or_else(|| format!("{} is not a server of this config", one(&o.server)))?;
    let base = v
        .http
        .as_ref()
        .and_then(|h| h.curl.as_ref())
        .ok_or_else(|| {
            format!(
                "{} is a stdio server: curl needs an HTTP one ({} copies the call as an mcpdeck command)",
                one(&o.server),
                s.keymap.label(crate::tui::keymap::Action::CopyCommand)
            )
        })?;
    let args: Value = o
        .args
        .as_deref()
        .and_then(|a| serde_json::from_str(a).ok())
        .ok_or("the arguments of this call are not known (not in the log)")?;
    let n = v.negotiated.as_ref();
    let stateless = n.is_some_and(|n| n.era == crate::mcp::types::Era::Stateless);
    let version = n
        .map(|n| n.version.clone())
        .unwrap_or_else(|| crate::mcp::types::INITIALIZE_VERSIONS[0].to_string());
    Ok(script(
        base,
        &o.tool,
        &args,
        &version,
        stateless,
        v.auth.is_some(),
    ))
}
