//! What changed between two versions of a server's surface (its tools,
//! prompts, resources and resource templates), and whether each change
//! breaks a client: the engine behind `mcpdeck diff`.
//!
//! - [`Surface`]: the lists of one side, each present or not (a `tools
//!   --json` snapshot has tools only; only lists both sides have are
//!   compared);
//! - [`load`]: a surface from a file (a snapshot, a recording, a pin file),
//!   the kind told from the content;
//! - [`compare`]: the [`Change`]s from one surface to the other, each with a
//!   `kind`, `breaking`, a `path` and a message; schemas are walked by
//!   `schema`;
//! - [`render`]: the changes as text, JSON and Markdown.
//!
//! What is breaking (a client written against A fails against B):
//! - a removed tool, prompt or resource template (a removed *resource* is
//!   not: resources are content, and come and go with it);
//! - in an `inputSchema` (what the client sends), anything that accepts less
//!   than before: a new required parameter, an optional one become required,
//!   a type changed or narrowed, a new `enum`/`const`, an enum value removed,
//!   a lower maximum or higher minimum, a new or changed `pattern`/`format`,
//!   `additionalProperties` closed;
//! - in an `outputSchema` (what the client reads), anything that gives the
//!   client more or less than it relies on: a property removed, retyped or
//!   become optional, a new enum value, a wider bound;
//! - a prompt argument added as required, or become required; a template's
//!   `uriTemplate` changed;
//! - an annotation turned destructive (`destructiveHint` → true,
//!   `readOnlyHint` true → false), `execution.taskSupport` become `required`.
//!
//! Everything else is reported as non-breaking (additions, new optional
//! parameters, descriptions, titles, wider input types…). `_meta` and
//! `icons` are never compared.
//!
//! No UI imports: the CLI (`mcpdeck diff`) prints what this returns.

pub mod load;
pub mod render;
mod schema;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{Value, json};

pub use load::{LoadError, Loaded, load_file, load_text};

/// What a compared definition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Tool,
    Prompt,
    Resource,
    Template,
}

impl Category {
    pub const ALL: [Category; 4] = [
        Category::Tool,
        Category::Prompt,
        Category::Resource,
        Category::Template,
    ];

    /// `tool`, `prompt`, `resource`, `template`.
    pub fn label(self) -> &'static str {
        match self {
            Category::Tool => "tool",
            Category::Prompt => "prompt",
            Category::Resource => "resource",
            Category::Template => "template",
        }
    }

    /// The first segment of a change's path: `tools`, `prompts`, …
    pub fn plural(self) -> &'static str {
        match self {
            Category::Tool => "tools",
            Category::Prompt => "prompts",
            Category::Resource => "resources",
            Category::Template => "templates",
        }
    }

    /// The key of the list in a list result: `tools`, `prompts`,
    /// `resources`, `resourceTemplates`.
    pub fn list_key(self) -> &'static str {
        match self {
            Category::Template => "resourceTemplates",
            c => c.plural(),
        }
    }

    /// The list method: `tools/list`, …, `resources/templates/list`.
    pub fn method(self) -> &'static str {
        match self {
            Category::Tool => "tools/list",
            Category::Prompt => "prompts/list",
            Category::Resource => "resources/list",
            Category::Template => "resources/templates/list",
        }
    }

    /// The field that names an item (a resource's URI).
    fn key_fields(self) -> &'static [&'static str] {
        match self {
            Category::Tool | Category::Prompt => &["name"],
            Category::Resource => &["uri", "name"],
            Category::Template => &["name", "uriTemplate"],
        }
    }
}

/// The lists of one side; `None` for a list this side does not have (not
/// the same as an empty list, which has had everything removed).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Surface {
    pub tools: Option<Vec<Value>>,
    pub prompts: Option<Vec<Value>>,
    pub resources: Option<Vec<Value>>,
    pub templates: Option<Vec<Value>>,
}

impl Surface {
    pub fn get(&self, c: Category) -> Option<&Vec<Value>> {
        match c {
            Category::Tool => self.tools.as_ref(),
            Category::Prompt => self.prompts.as_ref(),
            Category::Resource => self.resources.as_ref(),
            Category::Template => self.templates.as_ref(),
        }
    }

    pub fn set(&mut self, c: Category, items: Vec<Value>) {
        let slot = match c {
            Category::Tool => &mut self.tools,
            Category::Prompt => &mut self.prompts,
            Category::Resource => &mut self.resources,
            Category::Template => &mut self.templates,
        };
        *slot = Some(items);
    }

    /// The categories this side has.
    pub fn categories(&self) -> Vec<Category> {
        Category::ALL
            .into_iter()
            .filter(|&c| self.get(c).is_some())
            .collect()
    }

    /// A live server's lists (all four).
    pub fn from_lists(lists: &crate::mcp::session::Lists) -> Surface {
        Surface {
            tools: Some(lists.tools.iter().map(|t| t.raw.clone()).collect()),
            prompts: Some(lists.prompts.clone()),
            resources: Some(lists.resources.clone()),
            templates: Some(lists.templates.clone()),
        }
    }
}

/// One change from A to B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// e.g. `tool-removed`, `required-parameter-added`, `description-changed`.
    pub kind: &'static str,
    pub breaking: bool,
    pub category: Category,
    /// The tool, prompt or template name; a resource's URI.
    pub name: String,
    /// Where: `tools/search/inputSchema/properties/limit` (each segment
    /// escaped as in a JSON Pointer: `~` → `~0`, `/` → `~1`).
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Value>,
    /// What changed, in words.
    pub message: String,
}

/// The result of [`compare`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Diff {
    /// Breaking first, then by category, path and kind.
    pub changes: Vec<Change>,
    /// The categories both sides have.
    pub compared: Vec<Category>,
    /// The categories only one side has (not compared).
    pub skipped: Vec<Category>,
}

impl Diff {
    pub fn breaking(&self) -> usize {
        self.changes.iter().filter(|c| c.breaking).count()
    }

    pub fn non_breaking(&self) -> usize {
        self.changes.len() - self.breaking()
    }

    /// `{"changes":[…],"breaking":N,"nonBreaking":M,"compared":[…],"skipped":[…]}`.
    pub fn to_json(&self) -> Value {
        let names = |cs: &[Category]| cs.iter().map(|c| c.plural()).collect::<Vec<_>>();
        json!({
            "changes": self.changes,
            "breaking": self.breaking(),
            "nonBreaking": self.non_breaking(),
            "compared": names(&self.compared),
            "skipped": names(&self.skipped),
        })
    }
}

/// One segment of a path, escaped as in a JSON Pointer.
pub(crate) fn seg(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// The changes from `a` to `b`, over the lists both have.
pub fn compare(a: &Surface, b: &Surface) -> Diff {
    let mut diff = Diff::default();
    for c in Category::ALL {
        match (a.get(c), b.get(c)) {
            (Some(la), Some(lb)) => {
                diff.compared.push(c);
                compare_lists(c, la, lb, &mut diff.changes);
            }
            (None, None) => {}
            _ => diff.skipped.push(c),
        }
    }
    diff.changes.sort_by(|x, y| {
        (!x.breaking, x.category, &x.path, x.kind).cmp(&(!y.breaking, y.category, &y.path, y.kind))
    });
    diff
}

/// Items by their key; repeated keys numbered ` (2)`, ` (3)`… in list
/// order. Items without a key are left out.
fn keyed(c: Category, items: &[Value]) -> BTreeMap<String, &Value> {
    let mut out = BTreeMap::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for item in items {
        let Some(key) = c.key_fields().iter().find_map(|f| {
            item.get(*f)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        }) else {
            continue;
        };
        let n = seen.entry(key.to_string()).or_insert(0);
        *n += 1;
        let key = if *n > 1 {
            format!("{key} ({n})")
        } else {
            key.to_string()
        };
        out.insert(key, item);
    }
    out
}

/// Collects the changes of one item.
pub(crate) struct Sink<'a> {
    pub out: &'a mut Vec<Change>,
    pub category: Category,
    pub name: &'a str,
}

impl Sink<'_> {
    /// `tool "search"`.
    pub fn subject(&self) -> String {
        format!("{} {:?}", self.category.label(), self.name)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        kind: &'static str,
        breaking: bool,
        path: &str,
        before: Option<&Value>,
        after: Option<&Value>,
        message: String,
    ) {
        self.out.push(Change {
            kind,
            breaking,
            category: self.category,
            name: self.name.to_string(),
            path: path.to_string(),
            before: before.cloned(),
            after: after.cloned(),
            message,
        });
    }
}

fn compare_lists(c: Category, a: &[Value], b: &[Value], out: &mut Vec<Change>) {
    let ka = keyed(c, a);
    let kb = keyed(c, b);
    for (name, item) in &ka {
        let path = format!("{}/{}", c.plural(), seg(name));
        let mut sink = Sink {
            out: &mut *out,
            category: c,
            name,
        };
        match kb.get(name) {
            None => {
                let kind = match c {
                    Category::Tool => "tool-removed",
                    Category::Prompt => "prompt-removed",
                    Category::Resource => "resource-removed",
                    Category::Template => "template-removed",
                };
                let message = format!("{} was removed", sink.subject());
                sink.push(kind, c != Category::Resource, &path, None, None, message);
            }
            Some(after) => match c {
                Category::Tool => tool(&mut sink, &path, item, after),
                Category::Prompt => prompt(&mut sink, &path, item, after),
                Category::Resource => resource(&mut sink, &path, item, after),
                Category::Template => template(&mut sink, &path, item, after),
            },
        }
    }
    for name in kb.keys().filter(|n| !ka.contains_key(*n)) {
        let path = format!("{}/{}", c.plural(), seg(name));
        let kind = match c {
            Category::Tool => "tool-added",
            Category::Prompt => "prompt-added",
            Category::Resource => "resource-added",
            Category::Template => "template-added",
        };
        let mut sink = Sink {
            out: &mut *out,
            category: c,
            name,
        };
        let message = format!("{} was added", sink.subject());
        sink.push(kind, false, &path, None, None, message);
    }
}

/// Non-breaking changes of plain text fields (`title`, `description`, …).
fn text_fields(sink: &mut Sink, path: &str, a: &Value, b: &Value, fields: &[(&str, &'static str)]) {
    for &(field, kind) in fields {
        let (fa, fb) = (a.get(field), b.get(field));
        if fa != fb {
            let message = format!("{}: {field} changed", sink.subject());
            sink.push(kind, false, &format!("{path}/{field}"), fa, fb, message);
        }
    }
}

fn tool(sink: &mut Sink, path: &str, a: &Value, b: &Value) {
    text_fields(
        sink,
        path,
        a,
        b,
        &[
            ("title", "title-changed"),
            ("description", "description-changed"),
        ],
    );
    let empty = json!({});
    let ia = a.get("inputSchema").unwrap_or(&empty);
    let ib = b.get("inputSchema").unwrap_or(&empty);
    schema::walk_root(
        sink,
        schema::Dir::Input,
        &format!("{path}/inputSchema"),
        ia,
        ib,
    );
    let opath = format!("{path}/outputSchema");
    match (a.get("outputSchema"), b.get("outputSchema")) {
        (Some(oa), Some(ob)) => schema::walk_root(sink, schema::Dir::Output, &opath, oa, ob),
        (None, Some(ob)) => {
            let message = format!("{}: an outputSchema was added", sink.subject());
            sink.push(
                "output-schema-added",
                false,
                &opath,
                None,
                Some(ob),
                message,
            );
        }
        (Some(oa), None) => {
            let message = format!(
                "{}: its outputSchema was removed (no structuredContent to rely on)",
                sink.subject()
            );
            sink.push(
                "output-schema-removed",
                true,
                &opath,
                Some(oa),
                None,
                message,
            );
        }
        (None, None) => {}
    }
    annotations(sink, path, a.get("annotations"), b.get("annotations"));
    execution(sink, path, a.get("execution"), b.get("execution"));
}

fn annotations(sink: &mut Sink, path: &str, a: Option<&Value>, b: Option<&Value>) {
    let empty = serde_json::Map::new();
    let ma = a.and_then(Value::as_object).unwrap_or(&empty);
    let mb = b.and_then(Value::as_object).unwrap_or(&empty);
    let keys: BTreeSet<&String> = ma.keys().chain(mb.keys()).collect();
    for k in keys {
        let (va, vb) = (ma.get(k), mb.get(k));
        if va == vb {
            continue;
        }
        let p = format!("{path}/annotations/{}", seg(k));
        let t = Some(&Value::Bool(true));
        let (kind, breaking, message) = match k.as_str() {
            "destructiveHint" if vb == t => (
                "annotation-destructive",
                true,
                format!(
                    "{}: now annotated destructive (destructiveHint true)",
                    sink.subject()
                ),
            ),
            "readOnlyHint" if va == t => (
                "annotation-destructive",
                true,
                format!(
                    "{}: no longer annotated read-only (readOnlyHint was true)",
                    sink.subject()
                ),
            ),
            _ => (
                "annotation-changed",
                false,
                format!("{}: annotation {k} changed", sink.subject()),
            ),
        };
        sink.push(kind, breaking, &p, va, vb, message);
    }
}

fn execution(sink: &mut Sink, path: &str, a: Option<&Value>, b: Option<&Value>) {
    if a == b {
        return;
    }
    let support = |v: Option<&Value>| {
        v.and_then(|e| e.get("taskSupport"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let (sa, sb) = (support(a), support(b));
    let p = format!("{path}/execution");
    if sb.as_deref() == Some("required") && sa.as_deref() != Some("required") {
        let message = format!(
            "{}: now requires task support (execution.taskSupport \"required\")",
            sink.subject()
        );
        sink.push("task-support-required", true, &p, a, b, message);
    } else {
        let message = format!("{}: execution changed", sink.subject());
        sink.push("execution-changed", false, &p, a, b, message);
    }
}

fn prompt(sink: &mut Sink, path: &str, a: &Value, b: &Value) {
    text_fields(
        sink,
        path,
        a,
        b,
        &[
            ("title", "title-changed"),
            ("description", "description-changed"),
        ],
    );
    let args = |v: &Value| -> BTreeMap<String, Value> {
        v.get("arguments")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|arg| {
                        let name = arg.get("name")?.as_str()?;
                        Some((name.to_string(), arg.clone()))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let required = |arg: &Value| arg.get("required").and_then(Value::as_bool) == Some(true);
    let (aa, ab) = (args(a), args(b));
    for (name, arg) in &ab {
        let p = format!("{path}/arguments/{}", seg(name));
        match aa.get(name) {
            None if required(arg) => {
                let message = format!("{}: new required argument {name:?}", sink.subject());
                sink.push(
                    "required-argument-added",
                    true,
                    &p,
                    None,
                    Some(arg),
                    message,
                );
            }
            None => {
                let message = format!("{}: new optional argument {name:?}", sink.subject());
                sink.push(
                    "optional-argument-added",
                    false,
                    &p,
                    None,
                    Some(arg),
                    message,
                );
            }
            Some(before) => {
                match (required(before), required(arg)) {
                    (false, true) => {
                        let message =
                            format!("{}: argument {name:?} is now required", sink.subject());
                        sink.push(
                            "argument-now-required",
                            true,
                            &p,
                            Some(before),
                            Some(arg),
                            message,
                        );
                    }
                    (true, false) => {
                        let message =
                            format!("{}: argument {name:?} is now optional", sink.subject());
                        sink.push(
                            "argument-now-optional",
                            false,
                            &p,
                            Some(before),
                            Some(arg),
                            message,
                        );
                    }
                    _ => {}
                }
                for field in ["title", "description"] {
                    if before.get(field) != arg.get(field) {
                        let message =
                            format!("{}: argument {name:?}: {field} changed", sink.subject());
                        sink.push(
                            if field == "title" {
                                "title-changed"
                            } else {
                                "description-changed"
                            },
                            false,
                            &format!("{p}/{field}"),
                            before.get(field),
                            arg.get(field),
                            message,
                        );
                    }
                }
            }
        }
    }
    for (name, arg) in aa.iter().filter(|(n, _)| !ab.contains_key(*n)) {
        let p = format!("{path}/arguments/{}", seg(name));
        let message = format!(
            "{}: argument {name:?} was removed (a client still sending it may be refused)",
            sink.subject()
        );
        sink.push("argument-removed", false, &p, Some(arg), None, message);
    }
}

fn resource(sink: &mut Sink, path: &str, a: &Value, b: &Value) {
    text_fields(
        sink,
        path,
        a,
        b,
        &[
            ("name", "name-changed"),
            ("title", "title-changed"),
            ("description", "description-changed"),
            ("mimeType", "mime-type-changed"),
            ("annotations", "annotation-changed"),
        ],
    );
}

fn template(sink: &mut Sink, path: &str, a: &Value, b: &Value) {
    let (ua, ub) = (a.get("uriTemplate"), b.get("uriTemplate"));
    if ua != ub {
        let message = format!(
            "{}: uriTemplate changed (URIs built from the old one may not resolve)",
            sink.subject()
        );
        sink.push(
            "uri-template-changed",
            true,
            &format!("{path}/uriTemplate"),
            ua,
            ub,
            message,
        );
    }
    text_fields(
        sink,
        path,
        a,
        b,
        &[
            ("title", "title-changed"),
            ("description", "description-changed"),
            ("mimeType", "mime-type-changed"),
            ("annotations", "annotation-changed"),
        ],
    );
}

#[cfg(test)]
mod tests;
