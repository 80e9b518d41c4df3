//! Pins: a fingerprint of each definition a server shows, and what changed
//! since.
//!
//! - [`fingerprint`] turns a server's lists into [`ServerPins`]: for each
//!   tool, prompt, resource and template its canonical JSON (the fields the
//!   model reads, keys sorted, no whitespace) and the sha256 of that, plus
//!   the server's `serverInfo` name and version;
//! - [`PinStore`] keeps them in `<data dir>/mcpdeck/pins.json`
//!   (`$MCPDECK_PINS` overrides), keyed by [`key_for`]: the server's name
//!   and a digest of how it is reached;
//! - [`compare`] says what was added, removed or changed, with a word diff
//!   of changed text and a diff of schemas by path ([`Change`]).
//!
//! What is fingerprinted, per kind (`_meta` and `icons` never are: `_meta`
//! is protocol bookkeeping that the model does not read and that servers
//! may vary between sessions, and icons are pictures for people):
//! - tool: `name`, `title`, `description`, `inputSchema`, `outputSchema`,
//!   `annotations`, `execution`;
//! - prompt: `name`, `title`, `description`, `arguments`;
//! - resource: `uri`, `name`, `title`, `description`, `mimeType`,
//!   `annotations` (not `size`, which changes with the content);
//! - template: `uriTemplate`, `name`, `title`, `description`, `mimeType`,
//!   `annotations`.

mod diff;
mod store;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::Kind;
use crate::config::{ServerConfig, TransportConfig};
use crate::mcp::session::Lists;
use crate::mcp::types::ServerInfo;

pub use diff::{
    Change, ChangeKind, FieldDiff, WordChange, compare, info_change, line_diff, render_words,
    values, word_diff,
};
pub use store::{PinError, PinStore};

/// The fields fingerprinted for each kind (see the module's doc).
const TOOL_FIELDS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "execution",
];
const PROMPT_FIELDS: &[&str] = &["name", "title", "description", "arguments"];
const RESOURCE_FIELDS: &[&str] = &[
    "uri",
    "name",
    "title",
    "description",
    "mimeType",
    "annotations",
];
const TEMPLATE_FIELDS: &[&str] = &[
    "uriTemplate",
    "name",
    "title",
    "description",
    "mimeType",
    "annotations",
];

/// Everything pinned of one server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerPins {
    /// The server's name in the config (`adhoc`, `remote` for ad-hoc targets).
    pub server: String,
    /// [`key_for`] of its config.
    pub key: String,
    /// The server's `serverInfo` when pinned; informational (a version bump
    /// with the same definitions is no change).
    #[serde(default)]
    pub server_info: Option<PinnedInfo>,
    /// When the pins were taken, RFC 3339 in UTC.
    #[serde(default)]
    pub pinned_at: String,
    /// Sorted by kind, then name.
    #[serde(default)]
    pub definitions: Vec<Definition>,
}

impl ServerPins {
    /// How many definitions of `kind` are pinned.
    pub fn count(&self, kind: Kind) -> usize {
        self.definitions.iter().filter(|d| d.kind == kind).count()
    }

    /// `3 tools, 1 prompt, 0 resources, 0 templates`.
    pub fn counts_text(&self) -> String {
        [Kind::Tool, Kind::Prompt, Kind::Resource, Kind::Template]
            .iter()
            .map(|&k| {
                let n = self.count(k);
                format!("{n} {}{}", k.label(), if n == 1 { "" } else { "s" })
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The server's `serverInfo` name and version, as pinned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedInfo {
    pub name: String,
    pub version: String,
}

/// One fingerprinted definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Definition {
    #[serde(serialize_with = "kind_out", deserialize_with = "kind_in")]
    pub kind: Kind,
    /// The tool, prompt or template name; a resource's URI.
    pub name: String,
    /// Lowercase hex sha256 of the canonical JSON text.
    pub sha256: String,
    /// The fingerprinted fields, keys sorted at every level.
    pub canonical: Value,
}

fn kind_out<S: Serializer>(kind: &Kind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.label())
}

fn kind_in<'de, D: Deserializer<'de>>(d: D) -> Result<Kind, D::Error> {
    let text = String::deserialize(d)?;
    kind_from_label(&text).ok_or_else(|| {
        serde::de::Error::custom(format!(
            "unknown kind {text:?} (expected tool, prompt, resource, template or server)"
        ))
    })
}

fn kind_from_label(label: &str) -> Option<Kind> {
    [
        Kind::Server,
        Kind::Tool,
        Kind::Prompt,
        Kind::Resource,
        Kind::Template,
    ]
    .into_iter()
    .find(|k| k.label() == label)
}

/// `value` with the keys of every object sorted (by code point).
pub fn canonicalize(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), canonicalize(&map[k]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonicalize).collect()),
        v => v.clone(),
    }
}

/// The canonical text of a value: keys sorted, no whitespace.
pub fn canonical_text(value: &Value) -> String {
    // Serializing a `Value` cannot fail (its keys are strings).
    serde_json::to_string(&canonicalize(value)).unwrap_or_default()
}

/// Lowercase hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// The definition of one listed object: `fields` of `raw`, canonical.
fn definition(kind: Kind, name: String, raw: &Value, fields: &[&str]) -> Definition {
    let mut picked = Map::new();
    if let Some(obj) = raw.as_object() {
        for &f in fields {
            if let Some(v) = obj.get(f) {
                picked.insert(f.to_string(), v.clone());
            }
        }
    }
    let canonical = canonicalize(&Value::Object(picked));
    let text = serde_json::to_string(&canonical).unwrap_or_default();
    Definition {
        kind,
        name,
        sha256: sha256_hex(text.as_bytes()),
        canonical,
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// Fingerprint everything `lists` holds. Names repeated within a kind get
/// ` (2)`, ` (3)`… in list order, so that each definition has its own.
pub fn fingerprint(
    server: &str,
    key: &str,
    info: Option<&ServerInfo>,
    lists: &Lists,
) -> ServerPins {
    let mut defs = Vec::new();
    for t in &lists.tools {
        defs.push(definition(Kind::Tool, t.name.clone(), &t.raw, TOOL_FIELDS));
    }
    for p in &lists.prompts {
        if let Some(name) = str_of(p, "name") {
            defs.push(definition(Kind::Prompt, name.into(), p, PROMPT_FIELDS));
        }
    }
    for r in &lists.resources {
        if let Some(name) = str_of(r, "uri").or_else(|| str_of(r, "name")) {
            defs.push(definition(Kind::Resource, name.into(), r, RESOURCE_FIELDS));
        }
    }
    for t in &lists.templates {
        if let Some(name) = str_of(t, "name").or_else(|| str_of(t, "uriTemplate")) {
            defs.push(definition(Kind::Template, name.into(), t, TEMPLATE_FIELDS));
        }
    }
    // Repeated names: number them in list order.
    let mut seen: std::collections::HashMap<(Kind, String), usize> = Default::default();
    for d in &mut defs {
        let n = seen.entry((d.kind, d.name.clone())).or_insert(0);
        *n += 1;
        if *n > 1 {
            d.name = format!("{} ({n})", d.name);
        }
    }
    defs.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
    ServerPins {
        server: server.to_string(),
        key: key.to_string(),
        server_info: info.map(|i| PinnedInfo {
            name: i.name.clone(),
            version: i.version.clone(),
        }),
        pinned_at: rfc3339(std::time::SystemTime::now()),
        definitions: defs,
    }
}

/// The key of a server's pins: its name and a digest of how it is reached
/// (stdio: command, args and cwd; HTTP: the URL), e.g.
/// `everything#1f2e3d4c5b6a7988`. Environment variables and headers are
/// left out: they hold secrets that rotate without changing the server.
pub fn key_for(server: &ServerConfig) -> String {
    let transport = match &server.transport {
        TransportConfig::Stdio {
            command, args, cwd, ..
        } => serde_json::json!({
            "command": command,
            "args": args,
            "cwd": cwd.as_ref().map(|p| p.display().to_string()),
        }),
        TransportConfig::Http { url, .. } => serde_json::json!({ "url": url }),
    };
    let digest = sha256_hex(canonical_text(&transport).as_bytes());
    format!("{}#{}", server.name, &digest[..16])
}

/// `YYYY-MM-DDTHH:MM:SSZ`.
pub fn rfc3339(t: std::time::SystemTime) -> String {
    let (year, month, day, h, m, sec) = crate::text::civil_utc(crate::text::unix_secs(t));
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{sec:02}Z")
}

#[cfg(test)]
mod tests;
