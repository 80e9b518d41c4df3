//! Adding an entry to the config: its server table (secrets as
//! `${secret:NAME}`, everything else literal), the secrets into the
//! credential store, one atomic comment-keeping write; and the lint rules
//! run over the entry's own text. Shared by `registry add` and the TUI's
//! registry browser.

use std::path::Path;

use serde_json::{Value, json};

use super::launch::{self, Launch, Resolved, SecretValue};
use super::model::Entry;
use crate::config::{CredentialStoreKind, HttpTransportKind, ServerConfig, TransportConfig};

/// The entry's own text checked with the lint rules (`mcpdeck lint`)
/// before anything runs: its title, description, status message and its
/// inputs' descriptions, as a prompt with arguments would be. Medium and
/// high findings are said (they do not stop a person who asked).
pub fn lint_notes(entry: &Entry) -> Vec<String> {
    let arguments: Vec<Value> = entry
        .texts()
        .into_iter()
        .filter_map(|(what, text)| {
            what.strip_prefix("input ")
                .map(|n| json!({"name": n, "description": text}))
        })
        .collect();
    let v = json!({
        "name": local_name(&entry.name),
        "title": entry.title,
        "description": entry.description,
        "arguments": arguments,
    });
    let lists = crate::mcp::session::Lists {
        prompts: vec![v],
        ..Default::default()
    };
    let found = crate::trust::lint::lint_server(
        &entry.name,
        &lists,
        entry.status_message.as_deref(),
        &crate::trust::lint::Options::default(),
    );
    found
        .iter()
        .filter(|f| f.severity >= crate::trust::Severity::Medium)
        .map(|f| {
            format!(
                "{} {} in the entry's {}: {}",
                f.severity.label(),
                f.rule,
                if f.field == "instructions" {
                    "statusMessage"
                } else {
                    f.field.as_str()
                },
                f.message
            )
        })
        .collect()
}

/// A server config for what an entry runs, under `name`; `secret_ref`
/// turns a secret input into the text the config holds for it.
pub fn server_config(
    name: &str,
    r: &launch::Resolved,
    secret_ref: &dyn Fn(&launch::SecretValue) -> String,
    literal: &dyn Fn(&str) -> String,
) -> ServerConfig {
    let text = |v: &str| -> String {
        match r.secrets.iter().find(|s| s.value == v) {
            Some(s) => secret_ref(s),
            None => literal(v),
        }
    };
    match &r.launch {
        Launch::Stdio { command, args, env } => {
            let mut s = ServerConfig::stdio(name, literal(command), &[]);
            if let TransportConfig::Stdio {
                args: a, env: e, ..
            } = &mut s.transport
            {
                *a = args.iter().map(|x| text(x)).collect();
                *e = env.iter().map(|(k, v)| (k.clone(), text(v))).collect();
            }
            s
        }
        Launch::Http { url, kind, headers } => {
            let mut s = ServerConfig::http(name, text(url));
            if let TransportConfig::Http {
                headers: h,
                transport: k,
                ..
            } = &mut s.transport
            {
                *h = headers.iter().map(|(a, b)| (a.clone(), text(b))).collect();
                *k = if kind == "sse" {
                    HttpTransportKind::Sse
                } else {
                    HttpTransportKind::StreamableHttp
                };
            }
            s
        }
    }
}

/// A name for the config from a registry name: its last part, made usable.
pub fn local_name(registry_name: &str) -> String {
    let last = registry_name.rsplit('/').next().unwrap_or(registry_name);
    let mut s: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    while s.contains("--") {
        s = s.replace("--", "-");
    }
    let s = s.trim_matches('-').to_string();
    if s.is_empty() {
        "registry-server".into()
    } else {
        s
    }
}

/// The secret name an input of `local` is stored under.
pub fn secret_name(local: &str, s: &SecretValue) -> String {
    crate::secret::name_for(&[local, &s.name])
}

/// The server table `registry add` writes: secrets as `${secret:NAME}`,
/// other values literal (`$` as `$$`).
pub fn config_entry(local: &str, r: &Resolved) -> ServerConfig {
    let literal = |v: &str| v.replace('$', "$$");
    server_config(
        local,
        r,
        &|s| format!("${{secret:{}}}", secret_name(local, s)),
        &literal,
    )
}

/// The server config of a `registry:` target (in memory, values as they
/// are).
pub fn memory_entry(local: &str, r: &Resolved) -> ServerConfig {
    server_config(local, r, &|s| s.value.clone(), &|v| v.to_string())
}

/// The secret names of `r`'s secrets for `local`: `LOCAL_INPUT`, made
/// unique within the entry (`_2`, …) and never one that holds another
/// value in the store (`taken`: the value a name holds now, if any).
pub fn secret_names(
    local: &str,
    r: &Resolved,
    taken: &dyn Fn(&str) -> Option<String>,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for s in &r.secrets {
        if out.iter().any(|(v, _)| *v == s.value) {
            continue;
        }
        let base = secret_name(local, s);
        let mut name = base.clone();
        let mut n = 2;
        while out.iter().any(|(_, k)| *k == name)
            || taken(&name).is_some_and(|held| held != s.value)
        {
            let suffix = format!("_{n}");
            let keep = crate::config::MAX_SECRET_NAME.saturating_sub(suffix.len());
            name = format!("{}{suffix}", &base[..base.len().min(keep)]);
            n += 1;
        }
        out.push((s.value.clone(), name));
    }
    out
}

/// Store the secrets of `r` and add `local` to the config at `path`, under
/// a comment naming the entry. A server of that name already in the config
/// is refused before anything is stored; the secrets are stored before the
/// config is written (a failure there writes nothing to the config).
pub fn add_to_config(
    path: &Path,
    entry: &Entry,
    r: &Resolved,
    local: &str,
    store: CredentialStoreKind,
    registry: &str,
) -> Result<Vec<String>, String> {
    crate::config::ConfigEditor::check_server_name(local)?;
    let mut file = crate::config::ConfigEditor::open(path).map_err(|e| e.to_string())?;
    if let Ok(current) = file.config()
        && current.server(local).is_some()
    {
        return Err(format!(
            "the config already has a server named {local:?}; give another name with --as NAME"
        ));
    }
    let mut names = Vec::new();
    if !r.secrets.is_empty() {
        let secrets = crate::secret::Secrets::open(store).map_err(|e| {
            format!("the credential store cannot be opened: {e}; nothing was added")
        })?;
        names = secret_names(local, r, &|n| {
            secrets
                .get(n)
                .ok()
                .flatten()
                .map(|v| v.expose().to_string())
        });
        for (value, name) in &names {
            secrets
                .set(name, value)
                .map_err(|e| format!("storing the secret {name}: {e}; nothing was added"))?;
        }
    }
    let literal = |v: &str| v.replace('$', "$$");
    let server = server_config(
        local,
        r,
        &|s| {
            let name = names
                .iter()
                .find(|(v, _)| *v == s.value)
                .map(|(_, n)| n.clone())
                .unwrap_or_else(|| secret_name(local, s));
            format!("${{secret:{name}}}")
        },
        &literal,
    );
    let comment = format!(
        "from the MCP Registry: {} {} ({})",
        entry.name,
        entry.version,
        crate::mcp::netlog::shown_url(registry)
    );
    file.import_servers(
        &[],
        &[crate::config::NewServer {
            server,
            comment: Some(comment),
        }],
    )
    .map_err(|e| e.to_string())?;
    Ok(names.into_iter().map(|(_, n)| n).collect())
}
