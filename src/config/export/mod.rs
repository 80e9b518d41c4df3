//! `mcpdeck export`: mcpdeck's servers in another client's format.
//!
//! - [`clients`]: the eight clients and their user files.
//! - [`source`]: the servers as written in mcpdeck's config (`${VAR}`
//!   references kept).
//! - [`render`] builds each server's entry in the client's shape (a JSON
//!   value; for Codex the same value becomes a TOML table), the Claude Code
//!   deny rules, and a warning for everything that does not carry over.
//! - [`write`] merges the entries into the client's file: only the server
//!   table changes (JSONC through a CST, TOML through toml_edit), written
//!   atomically, with a backup of the file as it was.

pub mod clients;
mod codex;
mod jsonc;
pub mod source;
mod write;

use serde_json::{Map, Value, json};

pub use clients::{Client, VarSyntax};
pub use source::{Seg, Source, SourceTransport, Text, sources};
pub use write::{FileReport, WriteReport, write};

use crate::config::HttpTransportKind;

/// mcpdeck's config at `path`, checked but with no `${VAR}` needing a
/// value (every reference reads as empty; [`sources`] reads the strings
/// as written). For `main` to load the config of `export` with, so that
/// exporting does not need the secrets the config refers to.
pub fn load_unexpanded(
    path: &std::path::Path,
) -> Result<crate::config::Config, crate::config::ConfigError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| crate::config::ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    super::validate_structure(&text, path)
}

/// What export produces for one client.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub client: Client,
    /// Each exported server's name and entry, in config order.
    pub entries: Vec<(String, Value)>,
    /// Claude Code only: `mcp__SERVER__TOOL` rules for `permissions.deny`.
    pub deny_rules: Vec<String>,
    /// What did not carry over, and servers that were skipped.
    pub warnings: Vec<String>,
}

/// Renders `servers` for `client`. `named`: the servers were named on the
/// command line (a disabled server is then exported even to a client
/// without a disabled flag, where it becomes enabled).
pub fn render(client: Client, servers: &[Source], named: bool) -> Rendered {
    let mut out = Rendered {
        client,
        entries: Vec::new(),
        deny_rules: Vec::new(),
        warnings: Vec::new(),
    };
    for server in servers {
        if let Some(entry) = entry(client, server, named, &mut out) {
            out.entries.push((server.name.clone(), entry));
        }
    }
    out
}

/// Whether the client's file can mark a server disabled.
fn has_disabled_flag(client: Client) -> bool {
    matches!(client, Client::Windsurf | Client::Zed | Client::Codex)
}

fn entry(client: Client, server: &Source, named: bool, out: &mut Rendered) -> Option<Value> {
    let name = &server.name;
    let title = client.label();
    if !server.enabled && !has_disabled_flag(client) {
        if !named {
            out.warnings.push(format!(
                "{name}: skipped: it is disabled and {title}'s file has no disabled flag (name it on the command line to export it, enabled)"
            ));
            return None;
        }
        out.warnings.push(format!(
            "{name}: disabled in mcpdeck, but {title}'s file has no disabled flag: it is exported enabled"
        ));
    }
    let mut warn = |w: String| out.warnings.push(w);
    let mut e = Map::new();
    match &server.transport {
        SourceTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            if client == Client::ClaudeCode || client == Client::VsCode {
                e.insert("type".into(), json!("stdio"));
            }
            let command = text(client, name, "command", command, &mut warn);
            e.insert("command".into(), json!(command));
            let args: Vec<Value> = args
                .iter()
                .map(|a| json!(text(client, name, "args", a, &mut warn)))
                .collect();
            e.insert("args".into(), Value::Array(args));
            if client == Client::Codex {
                codex::env(name, env, &mut e, &mut warn);
            } else if !env.is_empty() {
                e.insert("env".into(), pairs(client, name, "env", env, &mut warn));
            }
            if let Some(cwd) = cwd {
                if matches!(client, Client::VsCode | Client::Gemini | Client::Codex) {
                    e.insert(
                        "cwd".into(),
                        json!(text(client, name, "cwd", cwd, &mut warn)),
                    );
                } else {
                    warn(format!(
                        "{name}: {title} has no working directory setting: `cwd` is not carried (the server starts where {title} starts it)"
                    ));
                }
            }
        }
        SourceTransport::Http {
            url,
            headers,
            kind,
            tls,
            oauth,
        } => {
            if client == Client::ClaudeDesktop {
                warn(format!(
                    "{name}: skipped: Claude Desktop's file has no remote (HTTP) servers; add it in Claude Desktop under Settings > Connectors"
                ));
                return None;
            }
            if client == Client::Codex && *kind == HttpTransportKind::Sse {
                warn(format!(
                    "{name}: skipped: Codex CLI has no SSE transport (only streamable HTTP)"
                ));
                return None;
            }
            if client == Client::Zed && *kind == HttpTransportKind::Sse {
                warn(format!(
                    "{name}: Zed speaks streamable HTTP to `url`; this server is set to the legacy SSE transport and may not answer"
                ));
            }
            let sse = *kind == HttpTransportKind::Sse;
            if matches!(client, Client::ClaudeCode | Client::VsCode) {
                e.insert("type".into(), json!(if sse { "sse" } else { "http" }));
            }
            let url_key = match client {
                Client::Windsurf => "serverUrl",
                Client::Gemini if !sse => "httpUrl",
                _ => "url",
            };
            e.insert(
                url_key.into(),
                json!(text(client, name, "url", url, &mut warn)),
            );
            if client == Client::Codex {
                codex::headers(name, headers, &mut e, &mut warn);
            } else if !headers.is_empty() {
                e.insert(
                    "headers".into(),
                    pairs(client, name, "headers", headers, &mut warn),
                );
            }
            if *tls {
                warn(format!(
                    "{name}: `ca_file`/`insecure` are not carried: {title} uses its own TLS settings"
                ));
            }
            if let Some(oauth) = oauth {
                let mut mapped = Map::new();
                if client == Client::ClaudeCode {
                    if let Some(id) = &oauth.client_id {
                        mapped.insert("clientId".into(), json!(id));
                    }
                    if let Some(port) = oauth.callback_port {
                        mapped.insert("callbackPort".into(), json!(port));
                    }
                }
                let carried = !mapped.is_empty();
                if carried {
                    e.insert("oauth".into(), Value::Object(mapped));
                }
                warn(format!(
                    "{name}: its [servers.{name}.oauth] settings are {}not carried: {title} logs in by itself",
                    if carried {
                        "only partly (clientId, callbackPort) "
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    if !server.enabled && has_disabled_flag(client) {
        match client {
            Client::Windsurf => e.insert("disabled".into(), json!(true)),
            _ => e.insert("enabled".into(), json!(false)),
        };
    }
    // Every client's list takes exact names: patterns stay behind, with a
    // warning (`--via-serve` has mcpdeck enforce them).
    let is_pattern = |t: &&String| t.contains('*') || t.contains('?');
    let patterns: Vec<&String> = server.deny_tools.iter().filter(is_pattern).collect();
    if !patterns.is_empty() {
        out.warnings.push(format!(
            "{name}: {title}'s tool lists take exact names: the deny_tools patterns {} are not carried (export with --via-serve to have mcpdeck enforce them)",
            patterns.iter().map(|p| format!("{p:?}")).collect::<Vec<_>>().join(", ")
        ));
    }
    let exact: Vec<&String> = server
        .deny_tools
        .iter()
        .filter(|t| !is_pattern(t))
        .collect();
    if !server.allow_tools.is_empty() {
        let exact_allow: Vec<&String> = server
            .allow_tools
            .iter()
            .filter(|t| !is_pattern(t))
            .collect();
        if client == Client::Gemini && exact_allow.len() == server.allow_tools.len() {
            e.insert("includeTools".into(), json!(exact_allow));
        } else {
            out.warnings.push(format!(
                "{name}: allow_tools ({}) is not carried to {title} (export with --via-serve to have mcpdeck enforce it)",
                server.allow_tools.join(", ")
            ));
        }
    }
    if !exact.is_empty() {
        let tools = json!(exact);
        match client {
            Client::Windsurf => {
                e.insert("disabledTools".into(), tools);
            }
            Client::Codex => {
                e.insert("disabled_tools".into(), tools);
            }
            Client::Gemini => {
                e.insert("excludeTools".into(), tools);
            }
            Client::ClaudeCode => out.deny_rules.extend(
                exact
                    .iter()
                    .map(|tool| format!("mcp__{}__{}", claude_name(name), claude_name(tool))),
            ),
            _ => out.warnings.push(format!(
                "{name}: {title} has no per-tool deny list: deny_tools ({}) is not carried",
                exact
                    .iter()
                    .map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    if let Some(timeout) = server.timeout {
        match client {
            Client::Gemini => {
                e.insert("timeout".into(), json!(timeout.as_millis() as u64));
            }
            Client::Codex => {
                let secs = if timeout.subsec_nanos() == 0 {
                    json!(timeout.as_secs())
                } else {
                    json!(timeout.as_secs_f64())
                };
                e.insert("tool_timeout_sec".into(), secs);
            }
            _ => {}
        }
    }
    Some(Value::Object(e))
}

/// A server or tool name as Claude Code writes it in `mcp__SERVER__TOOL`:
/// characters other than letters, digits, `_` and `-` become `_`.
fn claude_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `text` in the client's variable syntax, warning where it cannot be
/// carried exactly.
fn text(client: Client, server: &str, key: &str, t: &Text, warn: &mut dyn FnMut(String)) -> String {
    let title = client.label();
    let mut s = String::new();
    for seg in &t.0 {
        match seg {
            Seg::Lit(lit) => s.push_str(lit),
            Seg::Secret(secret) => {
                // No other client reads mcpdeck's credential store: the
                // client's own variable of that name stands for it.
                let var = secret_variable(secret);
                let (written, set) = match client.var_syntax() {
                    VarSyntax::EnvColon => (format!("${{env:{var}}}"), format!("set {var}")),
                    VarSyntax::Dollar { .. } => (format!("${{{var}}}"), format!("set {var}")),
                    VarSyntax::None => (
                        format!("${{secret:{secret}}}"),
                        format!("replace it with the value in {title}'s file"),
                    ),
                };
                warn(format!(
                    "{server}: `${{secret:{secret}}}` in `{key}` is in mcpdeck's credential store, which {title} cannot read: it is written as `{written}`; {set} (`mcpdeck secret get {secret} --reveal` prints it), or export with --via-serve, where mcpdeck starts the server"
                ));
                s.push_str(&written);
            }
            Seg::Var { name, default } => match client.var_syntax() {
                VarSyntax::EnvColon => {
                    s.push_str(&format!("${{env:{name}}}"));
                    if let Some(d) = default {
                        warn(format!(
                            "{server}: {title} has no default values: `${{{name}:-{d}}}` in `{key}` is written as `${{env:{name}}}`; set {name}"
                        ));
                    }
                }
                VarSyntax::Dollar { defaults } => match default {
                    Some(d) if defaults => s.push_str(&format!("${{{name}:-{d}}}")),
                    Some(d) => {
                        s.push_str(&format!("${{{name}}}"));
                        warn(format!(
                            "{server}: {title} has no default values: `${{{name}:-{d}}}` in `{key}` is written as `${{{name}}}`; set {name}"
                        ));
                    }
                    None => s.push_str(&format!("${{{name}}}")),
                },
                VarSyntax::None => {
                    let written = match default {
                        Some(d) => format!("${{{name}:-{d}}}"),
                        None => format!("${{{name}}}"),
                    };
                    warn(format!(
                        "{server}: {title} does not expand variables: `{written}` in `{key}` is written as is; replace it with the value in {title}'s file"
                    ));
                    s.push_str(&written);
                }
            },
        }
    }
    s
}

/// The environment variable that stands for the secret `name` in another
/// client's file: its name with characters a variable cannot have as `_`.
fn secret_variable(name: &str) -> String {
    let mut var: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if var.starts_with(|c: char| c.is_ascii_digit()) {
        var.insert(0, '_');
    }
    var
}

fn pairs(
    client: Client,
    server: &str,
    key: &str,
    pairs: &[(String, Text)],
    warn: &mut dyn FnMut(String),
) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| (k.clone(), json!(text(client, server, key, v, warn))))
            .collect(),
    )
}

/// What `export` prints: the client's server table alone, as the client
/// writes it (JSON; TOML for Codex), ending with a newline.
pub fn to_text(rendered: &Rendered) -> String {
    match rendered.client {
        Client::Codex => codex::to_text(&rendered.entries),
        client => {
            let servers: Map<String, Value> = rendered.entries.iter().cloned().collect();
            let mut doc = Map::new();
            doc.insert(client.servers_key().into(), Value::Object(servers));
            // Serialising a Value cannot fail.
            let mut text = serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or_default();
            text.push('\n');
            text
        }
    }
}

/// Whether a client's entry already says what `new` says: keys with an
/// empty value (`"args": []`, `"env": {}`, null) are the same as no key
/// (Cursor writes a server without `args`), and a `"type": "stdio"` beside
/// a `command` is what a command means anyway. Anything else must be
/// equal.
pub(super) fn same_entry(old: &serde_json::Value, new: &serde_json::Value) -> bool {
    use serde_json::Value;
    fn meaningful(v: &Value) -> Option<serde_json::Map<String, Value>> {
        let object = v.as_object()?;
        let has_command = object.contains_key("command");
        Some(
            object
                .iter()
                .filter(|(k, v)| {
                    let empty = match v {
                        Value::Null => true,
                        Value::Array(a) => a.is_empty(),
                        Value::Object(o) => o.is_empty(),
                        _ => false,
                    };
                    let implied =
                        has_command && k.as_str() == "type" && v.as_str() == Some("stdio");
                    !(empty || implied)
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }
    match (meaningful(old), meaningful(new)) {
        (Some(a), Some(b)) => a == b,
        _ => old == new,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(name: &str, env: &[(&str, &str)]) -> Source {
        Source {
            name: name.into(),
            enabled: true,
            deny_tools: vec![],
            allow_tools: vec![],
            timeout: None,
            transport: SourceTransport::Stdio {
                command: Text::literal("node"),
                args: vec![Text::parse("${HOME}/s.js")],
                env: env
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), Text::parse(v)))
                    .collect(),
                cwd: None,
            },
        }
    }

    #[test]
    fn variables_take_each_clients_syntax() {
        let s = [stdio("a", &[("T", "${T:-x}")])];
        let arg = |c: Client| render(c, &s, false).entries[0].1["args"][0].clone();
        let env = |c: Client| render(c, &s, false).entries[0].1["env"]["T"].clone();
        assert_eq!(arg(Client::VsCode), "${env:HOME}/s.js");
        assert_eq!(arg(Client::Cursor), "${env:HOME}/s.js");
        assert_eq!(arg(Client::Windsurf), "${env:HOME}/s.js");
        assert_eq!(arg(Client::ClaudeCode), "${HOME}/s.js");
        assert_eq!(arg(Client::Gemini), "${HOME}/s.js");
        assert_eq!(env(Client::ClaudeCode), "${T:-x}");
        assert_eq!(env(Client::Gemini), "${T}");
        assert_eq!(env(Client::VsCode), "${env:T}");
        for c in [Client::ClaudeDesktop, Client::Zed] {
            assert_eq!(arg(c), "${HOME}/s.js");
            let w = render(c, &s, false).warnings;
            assert!(
                w.iter().any(|w| w.contains("does not expand variables")),
                "{w:?}"
            );
        }
        let w = render(Client::Gemini, &s, false).warnings;
        assert!(w.iter().any(|w| w.contains("no default values")), "{w:?}");
        assert!(render(Client::ClaudeCode, &s, false).warnings.is_empty());
    }

    #[test]
    fn the_config_loads_without_its_variables_and_keeps_the_references() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let unset = "MCPDECK_EXPORT_TEST_SURELY_UNSET";
        let text = format!(
            "[servers.r]\nurl = \"${{{unset}}}/mcp\"\nheaders = {{ Authorization = \"Bearer ${{{unset}}}\" }}\n"
        );
        std::fs::write(&path, text).unwrap();
        assert!(
            crate::config::load(&path).unwrap().servers[0]
                .unresolved()
                .is_some()
        );
        let config = load_unexpanded(&path).unwrap();
        let r = render(Client::ClaudeCode, &sources(&config).unwrap(), false);
        assert_eq!(r.entries[0].1["url"], format!("${{{unset}}}/mcp"));
        assert_eq!(
            r.entries[0].1["headers"]["Authorization"],
            format!("Bearer ${{{unset}}}")
        );
    }

    #[test]
    fn secrets_become_the_client_s_variables_with_a_warning() {
        let s = [stdio("a", &[("K", "${secret:gh.tok}")])];
        let env = |c: Client| render(c, &s, false).entries[0].1["env"]["K"].clone();
        assert_eq!(env(Client::VsCode), "${env:gh_tok}");
        assert_eq!(env(Client::ClaudeCode), "${gh_tok}");
        assert_eq!(env(Client::ClaudeDesktop), "${secret:gh.tok}");
        let w = render(Client::ClaudeCode, &s, false).warnings;
        assert_eq!(
            w,
            [
                "a: `${secret:gh.tok}` in `env` is in mcpdeck's credential store, which Claude Code cannot read: it is written as `${gh_tok}`; set gh_tok (`mcpdeck secret get gh.tok --reveal` prints it), or export with --via-serve, where mcpdeck starts the server"
            ]
        );
        assert_eq!(secret_variable("1-a"), "_1_a");
    }

    #[test]
    fn claude_code_deny_rules_use_its_tool_names() {
        let mut s = stdio("my.server", &[]);
        s.deny_tools = vec!["rm".into(), "a.b c".into()];
        let r = render(Client::ClaudeCode, &[s], false);
        assert_eq!(
            r.deny_rules,
            ["mcp__my_server__rm", "mcp__my_server__a_b_c"]
        );
    }

    #[test]
    fn disabled_servers_without_a_flag_are_skipped_unless_named() {
        let mut s = stdio("off", &[]);
        s.enabled = false;
        let s = [s];
        let r = render(Client::Cursor, &s, false);
        assert!(r.entries.is_empty());
        assert!(r.warnings[0].contains("skipped"), "{:?}", r.warnings);
        let r = render(Client::Cursor, &s, true);
        assert_eq!(r.entries.len(), 1);
        assert!(r.warnings[0].contains("exported enabled"));
        let r = render(Client::Zed, &s, false);
        assert_eq!(r.entries[0].1["enabled"], json!(false));
        let r = render(Client::Windsurf, &s, false);
        assert_eq!(r.entries[0].1["disabled"], json!(true));
    }
}
