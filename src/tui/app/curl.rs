//! Copy a call to an HTTP server as `curl` (the copy-as-curl key): a
//! script for a POSIX shell (bash, dash, zsh) that makes the same
//! `tools/call` with nothing but curl. Stateless-era servers get one
//! request with the era's headers and `_meta`; initialize-era servers get
//! the handshake first (initialize, its `Mcp-Session-Id` kept,
//! `notifications/initialized`), then the call.
//!
//! No secret is ever in it. The URL and headers are taken from the config
//! file as written (the driver reads them: the loaded config has its
//! `${VAR}`s filled in already). A `${VAR}` there stays a shell variable
//! (the shell expands it as mcpdeck does); a secret header or query value
//! written out becomes `${MCPDECK_…}`; a server logged in with OAuth gets
//! `Authorization: Bearer ${MCPDECK_TOKEN}`. The script's first lines name
//! each variable to set.
//!
//! Every word is quoted so that nothing a server or a config holds can run
//! when the script is pasted: literal text in single quotes (no expansion,
//! no history expansion), references alone in double quotes, and comment
//! lines of plain characters only (an interactive zsh without
//! `interactivecomments` reads a comment's quotes).

use serde_json::{Value, json};

use crate::mcp::netlog::{is_secret_header, is_secret_query};

/// A piece of a shell word: text taken literally, or a reference to an
/// environment variable (`${NAME}` or `${NAME:-default}`, as written).
#[derive(Debug, Clone, PartialEq)]
pub enum Seg {
    Lit(String),
    Var(String),
}

/// What a curl of one server needs, secrets already replaced by
/// variables.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CurlBase {
    pub url: Vec<Seg>,
    /// Each header's name and value.
    pub headers: Vec<(String, Vec<Seg>)>,
    /// The variables introduced for secrets, and what each holds.
    pub vars: Vec<(String, String)>,
}

/// What the copy-as-curl key hands the driver: the call, and how the
/// server speaks. The driver reads the server's URL and headers from the
/// config file as written and makes the script ([`script_for`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CurlCall {
    pub server: String,
    pub tool: String,
    pub args: Value,
    pub version: String,
    pub stateless: bool,
    pub oauth: bool,
}

/// Plain characters only, for a comment line.
fn plain(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || " -_.,:/".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A config string as written, in pieces: `${NAME}` and `${NAME:-default}`
/// (a default without `$`, quotes, backslash or backtick) are references;
/// `$$` is a `$`; everything else is literal.
pub fn parse_raw(text: &str) -> Vec<Seg> {
    let mut out: Vec<Seg> = Vec::new();
    let mut lit = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        lit.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(more) = after.strip_prefix('$') {
            lit.push('$');
            rest = more;
            continue;
        }
        if let Some(body) = after.strip_prefix('{')
            && let Some(end) = body.find('}')
        {
            let inner = &body[..end];
            // `${secret:NAME}`: the value is in mcpdeck's credential store;
            // the script takes it from a variable the person sets.
            if let Some(name) = inner.strip_prefix("secret:")
                && crate::config::is_secret_name(name)
            {
                if !lit.is_empty() {
                    out.push(Seg::Lit(std::mem::take(&mut lit)));
                }
                out.push(Seg::Var(var_ref(&secret_var(name))));
                rest = &body[end + 1..];
                continue;
            }
            let (name, default) = match inner.split_once(":-") {
                Some((n, d)) => (n, Some(d)),
                None => (inner, None),
            };
            let name_ok = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let default_ok = default.is_none_or(|d| !d.contains(['$', '"', '\\', '`', '\'']));
            if name_ok && default_ok {
                if !lit.is_empty() {
                    out.push(Seg::Lit(std::mem::take(&mut lit)));
                }
                out.push(Seg::Var(format!("${{{inner}}}")));
                rest = &body[end + 1..];
                continue;
            }
        }
        lit.push('$');
        rest = after;
    }
    lit.push_str(rest);
    if !lit.is_empty() {
        out.push(Seg::Lit(lit));
    }
    out
}

/// Pieces as one shell word: literal text in single quotes, references in
/// double quotes, side by side.
pub fn word(segs: &[Seg]) -> String {
    if segs.is_empty() {
        return "''".into();
    }
    // Literal text next to literal text: one quoted run.
    let mut merged: Vec<Seg> = Vec::with_capacity(segs.len());
    for s in segs {
        match (merged.last_mut(), s) {
            (Some(Seg::Lit(a)), Seg::Lit(b)) => a.push_str(b),
            _ => merged.push(s.clone()),
        }
    }
    merged
        .iter()
        .map(|s| match s {
            Seg::Lit(t) => format!("'{}'", t.replace('\'', "'\\''")),
            Seg::Var(v) => format!("\"{v}\""),
        })
        .collect()
}

/// A variable name for a header or query name, not yet taken:
/// `MCPDECK_HEADER_X_API_KEY`.
fn var_name(prefix: &str, name: &str, taken: &[(String, String)]) -> String {
    let mut v = String::from(prefix);
    for c in name.chars() {
        v.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        });
    }
    let mut candidate = v.clone();
    let mut n = 2;
    while taken.iter().any(|(t, _)| *t == candidate) {
        candidate = format!("{v}_{n}");
        n += 1;
    }
    candidate
}

fn var_ref(name: &str) -> String {
    format!("${{{name}}}")
}

/// The script's variable for `${secret:NAME}`: `MCPDECK_SECRET_` and the
/// name, its letters and digits as they are and every other character as
/// `_` and its hex code (`gh.tok` → `MCPDECK_SECRET_gh_2Etok`), so that two
/// names never share a variable.
fn secret_var(name: &str) -> String {
    let mut v = String::from("MCPDECK_SECRET_");
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            v.push(c);
        } else {
            v.push_str(&format!("_{:02X}", c as u32));
        }
    }
    v
}

/// The secrets `text` refers to (`${secret:NAME}`), by name.
fn secret_refs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("${secret:") {
        // `$${secret:…}` is a literal: an odd run of `$` before the one
        // that opens it.
        let before = &text[..text.len() - rest.len() + i];
        let run = before.len() - before.trim_end_matches('$').len();
        let escaped = run % 2 == 1;
        let body = &rest[i + 9..];
        match body.find('}') {
            Some(end) => {
                let name = &body[..end];
                if !escaped && crate::config::is_secret_name(name) && !out.iter().any(|n| n == name)
                {
                    out.push(name.to_string());
                }
                rest = &body[end + 1..];
            }
            None => break,
        }
    }
    out
}

impl CurlBase {
    /// From a server's `url` and `headers` as written in the config file.
    pub fn from_raw(url: &str, headers: &[(String, String)]) -> CurlBase {
        let mut base = CurlBase::default();
        for name in std::iter::once(url)
            .chain(headers.iter().map(|(_, v)| v.as_str()))
            .flat_map(secret_refs)
        {
            let var = secret_var(&name);
            if !base.vars.iter().any(|(v, _)| *v == var) {
                base.vars.push((
                    var,
                    format!("the secret {name}: mcpdeck secret get {name} --reveal"),
                ));
            }
        }
        let mut url = url.to_string();
        let mut userinfo = false;
        if let Some(start) = url.find("://").map(|i| i + 3) {
            let end = url[start..]
                .find(['/', '?', '#'])
                .map_or(url.len(), |i| start + i);
            if let Some(at) = url[start..end].rfind('@').map(|i| start + i) {
                userinfo = true;
                url.replace_range(start..=at, "\u{0}@");
            }
        }
        let push_url = |segs: &mut Vec<Seg>, text: &str| {
            // The user info's place holder becomes its variable.
            let mut parts = text.split('\u{0}');
            if let Some(first) = parts.next() {
                segs.extend(parse_raw(first));
            }
            for p in parts {
                segs.push(Seg::Var(var_ref("MCPDECK_USERINFO")));
                segs.extend(parse_raw(p));
            }
        };
        if userinfo {
            base.vars.push((
                "MCPDECK_USERINFO".into(),
                "the URL user and password".into(),
            ));
        }
        match url.find('?') {
            Some(q) => {
                let end = url[q..].find('#').map_or(url.len(), |i| q + i);
                push_url(&mut base.url, &url[..=q]);
                for (i, pair) in url[q + 1..end].split('&').enumerate() {
                    if i > 0 {
                        base.url.push(Seg::Lit("&".into()));
                    }
                    match pair.split_once('=') {
                        Some((k, v)) if is_secret_query(k) => {
                            let value = parse_raw(v);
                            base.url.extend(parse_raw(&format!("{k}=")));
                            if matches!(&value[..], [Seg::Var(_)]) {
                                base.url.extend(value);
                            } else {
                                let name = var_name("MCPDECK_QUERY_", k, &base.vars);
                                base.vars
                                    .push((name.clone(), format!("the query parameter {k}")));
                                base.url.push(Seg::Var(var_ref(&name)));
                            }
                        }
                        _ => base.url.extend(parse_raw(pair)),
                    }
                }
                base.url.extend(parse_raw(&url[end..]));
            }
            None => push_url(&mut base.url, &url),
        }
        for (name, value) in headers {
            let segs = parse_raw(value);
            let shown = if is_secret_header(name) {
                let scheme = value.split_once(' ').map(|(s, _)| s).filter(|s| {
                    s.eq_ignore_ascii_case("bearer") || s.eq_ignore_ascii_case("basic")
                });
                let kept = match (&segs[..], scheme) {
                    ([Seg::Var(_)], _) => true,
                    ([Seg::Lit(l), Seg::Var(_)], Some(s)) => l.trim_end() == s,
                    _ => false,
                };
                if kept {
                    segs
                } else {
                    let var = var_name("MCPDECK_HEADER_", name, &base.vars);
                    base.vars.push((var.clone(), format!("the {name} header")));
                    let mut v = Vec::new();
                    if let Some(s) = scheme {
                        v.push(Seg::Lit(format!("{s} ")));
                    }
                    v.push(Seg::Var(var_ref(&var)));
                    v
                }
            } else {
                segs
            };
            base.headers.push((name.clone(), shown));
        }
        base
    }
}

/// A server's `url` and `headers` as written in the config file `text`
/// (`[servers.NAME]` or an inline table), or why not.
pub fn raw_http(text: &str, server: &str) -> Result<(String, Vec<(String, String)>), String> {
    let doc = parse_config(text)?;
    let table = server_table(&doc, server)?;
    let url = table
        .get("url")
        .and_then(|u| u.as_str())
        .ok_or_else(|| format!("{server} has no url in the config file"))?
        .to_string();
    let mut headers = Vec::new();
    if let Some(h) = table.get("headers").and_then(|h| h.as_table_like()) {
        for (k, v) in h.iter() {
            if let Some(v) = v.as_str() {
                headers.push((k.to_string(), v.to_string()));
            }
        }
    }
    Ok((url, headers))
}

/// The config file's text as a document (comments and all), or why not.
pub(super) fn parse_config(text: &str) -> Result<toml_edit::DocumentMut, String> {
    text.parse()
        .map_err(|e| format!("the config file does not parse: {e}"))
}

/// The table of `server` in the config document (`[servers.NAME]` or an
/// inline table), as written.
pub(super) fn server_table<'a>(
    doc: &'a toml_edit::DocumentMut,
    server: &str,
) -> Result<&'a dyn toml_edit::TableLike, String> {
    doc.get("servers")
        .and_then(|s| s.as_table_like())
        .and_then(|s| s.get(server))
        .and_then(|s| s.as_table_like())
        .ok_or_else(|| format!("{server} is not in the config file"))
}

/// The script for `call`, the server's URL and headers from the config
/// file as written (`config_text`).
pub fn script_for(call: &CurlCall, config_text: &str) -> Result<String, String> {
    let (url, headers) = raw_http(config_text, &call.server)?;
    let base = CurlBase::from_raw(&url, &headers);
    Ok(script(
        &base,
        &call.tool,
        &call.args,
        &call.version,
        call.stateless,
        call.oauth,
    ))
}

/// The curl script for a call of `tool` with `args` to an HTTP server:
/// `stateless` for the 2026 era, else the initialize era at `version`;
/// `oauth` when its requests carry a token from a login.
pub fn script(
    base: &CurlBase,
    tool: &str,
    args: &Value,
    version: &str,
    stateless: bool,
    oauth: bool,
) -> String {
    let sq = super::keys::sh_quote;
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
            "the OAuth access token of the server, kept by mcpdeck in the OS keyring".into(),
        ));
        headers.push("-H 'Authorization: Bearer '\"${MCPDECK_TOKEN}\"".into());
    }
    for (n, v) in &base.headers {
        let mut segs = vec![Seg::Lit(format!("{n}: "))];
        segs.extend(v.iter().cloned());
        headers.push(format!("-H {}", word(&segs)));
    }
    let mut out = String::new();
    for (name, what) in &vars {
        out.push_str(&format!("# set {}: {}\n", plain(name), plain(what)));
    }
    out.push_str(&format!("URL={}\n", word(&base.url)));
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
    // Two words when there is a session, none without (zsh does not split
    // one expansion into two).
    let session = "${SID:+-H} ${SID:+\"Mcp-Session-Id: $SID\"}";
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

/// The copy-as-curl key: the result's call, for the driver to make the
/// script of, or why not.
pub(super) fn command(s: &super::State) -> Result<CurlCall, String> {
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
    if v.http.is_none() {
        return Err(format!(
            "{} is a stdio server: curl needs an HTTP one ({} copies the call as an mcpdeck command)",
            one(&o.server),
            s.keymap.label(crate::tui::keymap::Action::CopyCommand)
        ));
    }
    // A DPoP-bound token (RFC 9449) needs a fresh proof signed with
    // mcpdeck's key on every request: a curl script cannot make one.
    if v.auth.as_ref().is_some_and(|a| a.dpop) {
        return Err(format!(
            "{}'s token is DPoP-bound: every request needs a fresh proof signed with mcpdeck's key, which a curl script cannot make ({} copies the call as an mcpdeck command)",
            one(&o.server),
            s.keymap.label(crate::tui::keymap::Action::CopyCommand)
        ));
    }
    let args: Value = o
        .args
        .as_deref()
        .and_then(|a| serde_json::from_str(a).ok())
        .ok_or("the arguments of this call are not known (not in the log)")?;
    let n = v.negotiated.as_ref();
    Ok(CurlCall {
        server: o.server.clone(),
        tool: o.tool.clone(),
        args,
        stateless: n.is_some_and(|n| n.era == crate::mcp::types::Era::Stateless),
        version: n
            .map(|n| n.version.clone())
            .unwrap_or_else(|| crate::mcp::types::INITIALIZE_VERSIONS[0].to_string()),
        oauth: v.auth.is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_references_stay_and_written_secrets_become_variables() {
        let base = CurlBase::from_raw(
            "https://me:pw@ex.com/s/${PATH_ID}/mcp?key=abc&x=1&token=${TOK}#f",
            &[
                ("Authorization".into(), "Bearer s3cret".into()),
                ("Cookie".into(), "a=lit; b=${B}".into()),
                ("X-Api-Key".into(), "${KEY}".into()),
                ("X-Note".into(), "price $$5".into()),
            ],
        );
        let url = word(&base.url);
        assert_eq!(
            url,
            "'https://'\"${MCPDECK_USERINFO}\"'@ex.com/s/'\"${PATH_ID}\"'/mcp?key='\"${MCPDECK_QUERY_KEY}\"'&x=1&token='\"${TOK}\"'#f'"
        );
        let h: Vec<String> = base.headers.iter().map(|(_, v)| word(v)).collect();
        assert_eq!(
            h,
            [
                "'Bearer '\"${MCPDECK_HEADER_AUTHORIZATION}\"",
                // A literal part of a secret is never kept.
                "\"${MCPDECK_HEADER_COOKIE}\"",
                "\"${KEY}\"",
                "'price $5'",
            ]
        );
        let names: Vec<&str> = base.vars.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "MCPDECK_USERINFO",
                "MCPDECK_QUERY_KEY",
                "MCPDECK_HEADER_AUTHORIZATION",
                "MCPDECK_HEADER_COOKIE"
            ]
        );
    }

    #[test]
    fn secret_references_become_variables_named_in_the_script() {
        let base = CurlBase::from_raw(
            "https://ex.com/mcp",
            &[
                ("X-Team".into(), "${secret:team_id}".into()),
                ("Authorization".into(), "Bearer ${secret:gh_TOKEN}".into()),
                ("X-Lit".into(), "$${secret:not_one}".into()),
            ],
        );
        let vars: Vec<&str> = base.vars.iter().map(|(v, _)| v.as_str()).collect();
        assert_eq!(
            vars,
            ["MCPDECK_SECRET_team_5Fid", "MCPDECK_SECRET_gh_5FTOKEN"]
        );
        assert!(
            base.vars[1]
                .1
                .contains("mcpdeck secret get gh_TOKEN --reveal")
        );
        assert_eq!(word(&base.headers[0].1), "\"${MCPDECK_SECRET_team_5Fid}\"");
        assert_eq!(
            word(&base.headers[1].1),
            "'Bearer '\"${MCPDECK_SECRET_gh_5FTOKEN}\""
        );
        assert_eq!(word(&base.headers[2].1), "'${secret:not_one}'");
        // Names that differ only in punctuation or case keep their own.
        assert_ne!(secret_var("gh.tok"), secret_var("gh_tok"));
        assert_ne!(secret_var("gh_tok"), secret_var("GH_TOK"));
        // `$$$` then the reference: a literal `$` and a real reference.
        assert_eq!(secret_refs("$$${secret:a}"), ["a"]);
        assert!(secret_refs("$${secret:a}").is_empty());
    }

    #[test]
    fn variable_names_never_collide() {
        let base = CurlBase::from_raw(
            "https://ex.com/mcp",
            &[
                ("X-Api-Key".into(), "a".into()),
                ("X_API_KEY".into(), "b".into()),
            ],
        );
        let names: Vec<&str> = base.vars.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["MCPDECK_HEADER_X_API_KEY", "MCPDECK_HEADER_X_API_KEY_2"]
        );
    }

    /// The script run by each shell there is, with a `curl` that prints its
    /// arguments: nothing a server or a config holds runs, and every
    /// argument arrives as it was meant.
    #[test]
    fn nothing_in_a_script_runs_but_curl() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let fake = bin.join("curl");
        std::fs::write(
            &fake,
            "#!/bin/sh\nfor a in \"$@\"; do printf '<%s>\\n' \"$a\"; done\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let pwned = dir.path().join("pwned");
        let evil = format!(
            "$(touch {p})'$(touch {p})'`touch {p}`!!\"",
            p = pwned.display()
        );
        let base = CurlBase::from_raw(
            &format!("http://127.0.0.1:1/mcp?q={}", evil.replace('&', "")),
            &[(format!("X-{}", "Name"), evil.clone())],
        );
        let script = script(
            &base,
            &evil,
            &serde_json::json!({"a": evil}),
            "2026-07-28",
            true,
            true,
        );
        for shell in ["sh", "bash", "dash", "zsh"] {
            let Ok(out) = std::process::Command::new(shell)
                .arg("-c")
                .arg(&script)
                .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
                .env("MCPDECK_TOKEN", "tok")
                .output()
            else {
                continue;
            };
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(!pwned.exists(), "{shell} ran a command:\n{script}");
            assert!(
                text.contains(&format!("<X-Name: {evil}>")),
                "{shell}: {text}"
            );
            assert!(
                text.contains(&format!("<Mcp-Name: {evil}>")),
                "{shell}: {text}"
            );
            assert!(
                text.contains("<Authorization: Bearer tok>"),
                "{shell}: {text}"
            );
        }
    }
}
