//! A [`Surface`] from a file, its kind told from its content:
//! - a recording (`mcpdeck --record`): JSON Lines whose first line holds
//!   `"mcpdeck_recording"`; each later line `{"server", "dir": "send"|"recv",
//!   "frame": <a JSON-RPC message>}`. The last complete answer to each list
//!   method is taken (every page: a request without a cursor starts a list,
//!   the pages after it follow its `nextCursor`);
//! - a pin file (`mcpdeck pin`): `{"version": 1, "servers": {KEY: …}}`,
//!   each definition's `canonical` object;
//! - a snapshot: `{"tools": […]}` as `mcpdeck tools --json` prints it (also
//!   `prompts`, `resources`, `resourceTemplates` keys, a list result, a
//!   JSON-RPC response holding one, or a bare array of tools).
//!
//! A recording or pin file with several servers needs `server` (the name,
//! or for a pin file its key).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use serde_json::Value;

use super::{Category, Surface};
use crate::trust::pin::ServerPins;

/// Why a file could not be read as a surface.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("could not read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// The file is not of a kind `diff` reads, or is damaged.
    #[error("{path}: {detail}")]
    Bad { path: String, detail: String },
    /// The file holds several servers and none was picked.
    #[error("{path} holds {what} of several servers ({}); pick one with --server NAME", names.join(", "))]
    WhichServer {
        path: String,
        what: &'static str,
        names: Vec<String>,
    },
}

/// A surface read from a file, and what the file was.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub surface: Surface,
    /// `snapshot`, `recording` or `pin file`.
    pub kind: &'static str,
    /// The server it is of, when the file said.
    pub server: Option<String>,
    /// Lines of a recording that were skipped, with why (for a warning).
    pub warnings: Vec<String>,
}

const EXPECTED: &str = "expected a `mcpdeck tools --json` snapshot ({\"tools\": […]}), a recording (`--record`, JSON Lines) or a pin file ({\"version\": 1, \"servers\": {…}})";

/// Read `path` and tell its kind.
pub fn load_file(path: &Path, server: Option<&str>) -> Result<Loaded, LoadError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: shown.clone(),
        source,
    })?;
    let text = String::from_utf8(bytes).map_err(|_| LoadError::Bad {
        path: shown.clone(),
        detail: format!("not UTF-8 text; {EXPECTED}"),
    })?;
    load_text(&shown, &text, server)
}

/// [`load_file`] of text already read; `shown` names it in errors.
pub fn load_text(shown: &str, text: &str, server: Option<&str>) -> Result<Loaded, LoadError> {
    let bad = |detail: String| LoadError::Bad {
        path: shown.to_string(),
        detail,
    };
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if let Ok(Value::Object(head)) = serde_json::from_str::<Value>(first)
        && head.contains_key("mcpdeck_recording")
    {
        return recording(shown, text, server);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        if text.trim().is_empty() {
            bad(format!("the file is empty; {EXPECTED}"))
        } else {
            bad(format!(
                "not valid JSON (line {} column {}); {EXPECTED}",
                e.line(),
                e.column()
            ))
        }
    })?;
    if let Some(obj) = value.as_object()
        && obj.contains_key("version")
        && obj.get("servers").is_some_and(Value::is_object)
    {
        return pins(shown, &value, server);
    }
    let surface = snapshot(&value).map_err(bad)?;
    Ok(Loaded {
        surface,
        kind: "snapshot",
        server: None,
        warnings: Vec::new(),
    })
}

/// The items of one list, each checked to be an object with its key.
fn items(c: Category, list: &Value) -> Result<Vec<Value>, String> {
    let Some(arr) = list.as_array() else {
        return Err(format!("`{}` is not an array", c.list_key()));
    };
    for (i, item) in arr.iter().enumerate() {
        let named = c
            .key_fields()
            .iter()
            .any(|f| item.get(*f).and_then(Value::as_str).is_some());
        if !named {
            return Err(format!(
                "{}[{i}] has no {} (each {} is an object with a {:?})",
                c.list_key(),
                c.key_fields().join(" or "),
                c.label(),
                c.key_fields()[0],
            ));
        }
    }
    Ok(arr.clone())
}

/// A snapshot: an object with list keys (maybe inside a JSON-RPC
/// response's `result`), or a bare array of tools.
fn snapshot(value: &Value) -> Result<Surface, String> {
    let mut surface = Surface::default();
    if value.is_array() {
        surface.set(Category::Tool, items(Category::Tool, value)?);
        return Ok(surface);
    }
    let obj = value
        .get("result")
        .filter(|r| r.is_object())
        .unwrap_or(value);
    for c in Category::ALL {
        if let Some(list) = obj.get(c.list_key()) {
            surface.set(c, items(c, list)?);
        }
    }
    if surface.categories().is_empty() {
        return Err(format!(
            "no `tools`, `prompts`, `resources` or `resourceTemplates` list found; {EXPECTED}"
        ));
    }
    Ok(surface)
}

/// A pin file: the chosen server's definitions, as their canonical objects.
fn pins(shown: &str, value: &Value, server: Option<&str>) -> Result<Loaded, LoadError> {
    let bad = |detail: String| LoadError::Bad {
        path: shown.to_string(),
        detail,
    };
    if value.get("version") != Some(&Value::from(1)) {
        return Err(bad(format!(
            "a pin file of version {} (this mcpdeck reads version 1)",
            value.get("version").map_or("?".into(), Value::to_string)
        )));
    }
    let servers: BTreeMap<String, ServerPins> =
        serde_json::from_value(value.get("servers").cloned().unwrap_or_default()).map_err(|e| {
            bad(format!(
                "looks like a pin file but its servers could not be read ({e}); {EXPECTED}"
            ))
        })?;
    let chosen: Vec<&ServerPins> = match server {
        Some(name) => servers
            .iter()
            .filter(|(key, p)| p.server == name || *key == name)
            .map(|(_, p)| p)
            .collect(),
        None => servers.values().collect(),
    };
    let pins = match chosen.as_slice() {
        [one] => *one,
        [] => {
            let names: Vec<String> = servers.values().map(|p| p.server.clone()).collect();
            return Err(bad(match server {
                Some(name) => format!(
                    "no server {name:?} is pinned here (pinned: {})",
                    if names.is_empty() {
                        "none".into()
                    } else {
                        names.join(", ")
                    }
                ),
                None => "the pin file holds no servers".into(),
            }));
        }
        several => {
            return Err(LoadError::WhichServer {
                path: shown.to_string(),
                what: "pins",
                names: several.iter().map(|p| p.key.clone()).collect(),
            });
        }
    };
    let mut surface = Surface {
        tools: Some(Vec::new()),
        prompts: Some(Vec::new()),
        resources: Some(Vec::new()),
        templates: Some(Vec::new()),
    };
    for d in &pins.definitions {
        use crate::trust::Kind;
        let list = match d.kind {
            Kind::Tool => &mut surface.tools,
            Kind::Prompt => &mut surface.prompts,
            Kind::Resource => &mut surface.resources,
            Kind::Template => &mut surface.templates,
            Kind::Server => continue,
        };
        if let Some(list) = list {
            list.push(d.canonical.clone());
        }
    }
    Ok(Loaded {
        surface,
        kind: "pin file",
        server: Some(pins.server.clone()),
        warnings: Vec::new(),
    })
}

/// A list being gathered page by page.
#[derive(Default)]
struct Gathering {
    items: Vec<Value>,
}

/// What one server's recorded frames say.
#[derive(Default)]
struct Recorded {
    /// Requests sent, by id: the method and whether it carried a cursor.
    pending: HashMap<String, (Category, bool)>,
    /// The list being gathered, per category.
    open: HashMap<Category, Gathering>,
    /// The last complete list, per category.
    done: HashMap<Category, Vec<Value>>,
}

fn category_of(method: &str) -> Option<Category> {
    Category::ALL.into_iter().find(|c| c.method() == method)
}

impl Recorded {
    fn frame(&mut self, dir: &str, frame: &Value) {
        if let Value::Array(batch) = frame {
            for f in batch {
                self.frame(dir, f);
            }
            return;
        }
        let Some(id) = frame.get("id").filter(|i| !i.is_null()) else {
            return;
        };
        let id = id.to_string();
        let method = frame.get("method").and_then(Value::as_str);
        match (dir, method) {
            ("send", Some(m)) => {
                if let Some(c) = category_of(m) {
                    let cursor = frame
                        .get("params")
                        .and_then(|p| p.get("cursor"))
                        .is_some_and(|c| !c.is_null());
                    self.pending.insert(id, (c, cursor));
                }
            }
            ("recv", None) => {
                let Some((c, cursor)) = self.pending.remove(&id) else {
                    return;
                };
                let Some(result) = frame.get("result") else {
                    // An error: the list being gathered is lost.
                    self.open.remove(&c);
                    return;
                };
                if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
                    return;
                }
                let page: Vec<Value> = result
                    .get(c.list_key())
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let gathering = if cursor {
                    match self.open.get_mut(&c) {
                        Some(g) => g,
                        // A page whose first page was not recorded.
                        None => return,
                    }
                } else {
                    let g = self.open.entry(c).or_default();
                    *g = Gathering::default();
                    g
                };
                gathering.items.extend(page);
                let more = result
                    .get("nextCursor")
                    .is_some_and(|n| n.as_str().is_some_and(|s| !s.is_empty()));
                if !more && let Some(g) = self.open.remove(&c) {
                    self.done.insert(c, g.items);
                }
            }
            _ => {}
        }
    }
}

/// A recording: the last complete list results of the chosen server.
fn recording(shown: &str, text: &str, server: Option<&str>) -> Result<Loaded, LoadError> {
    // The lines are read as `replay` and `stats` read them; what a list
    // is (pages, errors) is worked out here.
    let rec =
        crate::record::Recording::read(Path::new(shown), text.as_bytes()).map_err(|detail| {
            LoadError::Bad {
                path: shown.into(),
                detail,
            }
        })?;
    let warnings: Vec<String> = rec
        .problems
        .iter()
        .map(|p| format!("{shown} {p}"))
        .collect();
    let mut servers: BTreeMap<String, Recorded> = BTreeMap::new();
    let mut all_names: BTreeSet<String> = BTreeSet::new();
    for e in &rec.entries {
        all_names.insert(e.server.clone());
        if server.is_some_and(|s| s != e.server) {
            continue;
        }
        let dir = match e.dir {
            crate::record::Dir::Send => "send",
            crate::record::Dir::Recv => "recv",
            crate::record::Dir::Http => continue,
        };
        if let Some(frame) = &e.frame {
            servers
                .entry(e.server.clone())
                .or_default()
                .frame(dir, frame);
        }
    }
    servers.retain(|_, r| !r.done.is_empty());
    let (name, rec) = match servers.len() {
        1 => servers.into_iter().next().ok_or_else(|| LoadError::Bad {
            path: shown.into(),
            detail: "no server".into(),
        })?,
        0 => {
            let which = match server {
                Some(s) if !all_names.contains(s) => format!(
                    "no frames of a server {s:?} (recorded: {})",
                    if all_names.is_empty() {
                        "none".to_string()
                    } else {
                        all_names.iter().cloned().collect::<Vec<_>>().join(", ")
                    }
                ),
                Some(s) => format!("no complete tools/list, prompts/list, resources/list or resources/templates/list answer of {s:?}"),
                None => "no complete tools/list, prompts/list, resources/list or resources/templates/list answer".to_string(),
            };
            return Err(LoadError::Bad {
                path: shown.into(),
                detail: format!(
                    "a recording with {which}; record a command that lists (e.g. `mcpdeck --record FILE tools …`)"
                ),
            });
        }
        _ => {
            return Err(LoadError::WhichServer {
                path: shown.into(),
                what: "lists",
                names: servers.keys().cloned().collect(),
            });
        }
    };
    let mut surface = Surface::default();
    for (c, items) in rec.done {
        surface.set(c, items);
    }
    Ok(Loaded {
        surface,
        kind: "recording",
        server: Some(name),
        warnings,
    })
}
