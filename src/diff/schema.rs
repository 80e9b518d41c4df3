//! Two JSON Schemas compared, keyword by keyword, into [`Change`]s.
//!
//! One rule covers both directions: each change either *narrows* what the
//! schema accepts (fewer types, a new enum, a lower maximum…), *widens* it,
//! or changes it in a way that cannot be told. An input schema (what the
//! client sends) breaks clients when it narrows; an output schema (what the
//! client reads) when it widens. A change that cannot be told breaks both.
//!
//! Walked: `properties` (with `required`), `items` (and tuple `items` /
//! `prefixItems`), `additionalProperties`, `anyOf`/`oneOf`/`allOf` branch
//! by branch, and local `$ref`s to `#/$defs/…` or `#/definitions/…`
//! (resolved in each side's root schema; a cycle is walked once).
//!
//! [`Change`]: super::Change

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::{Map, Value};

use super::{Sink, seg};

/// What the schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    /// A tool's `inputSchema`: what the client sends.
    Input,
    /// A tool's `outputSchema`: what the client reads.
    Output,
}

/// How a keyword's change moves what the schema accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    Narrowed,
    Widened,
    /// Cannot be told: breaking either way.
    Changed,
}

/// Keywords not compared at all (bookkeeping) or compared elsewhere.
const SKIPPED: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$defs",
    "definitions",
    "$ref",
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "title",
    "description",
    "default",
    "uniqueItems",
    "pattern",
    "format",
    "multipleOf",
];

/// Upper bounds (a lower value narrows) and lower bounds (a higher one does).
const UPPER: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "maxContains",
];
const LOWER: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
    "minContains",
];

/// Keywords whose change mcpdeck cannot judge and that constrain values:
/// any change is treated as breaking.
const CONSTRAINING: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "contains",
    "propertyNames",
    "patternProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// How deep nested schemas are walked.
const MAX_DEPTH: usize = 64;

struct Walker<'s, 'a> {
    sink: &'s mut Sink<'a>,
    dir: Dir,
    root_a: &'s Value,
    root_b: &'s Value,
    /// `$ref` pairs already walked (a recursive schema is walked once).
    refs: HashSet<(String, String)>,
    /// Whether both roots have the same `$defs` and `definitions`.
    same_defs: bool,
}

/// Whether a `$ref` is anywhere in `v`.
fn has_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("$ref") || m.values().any(has_ref),
        Value::Array(items) => items.iter().any(has_ref),
        _ => false,
    }
}

/// Compare a tool's `inputSchema` or `outputSchema`; `path` is where it is.
pub(crate) fn walk_root(sink: &mut Sink, dir: Dir, path: &str, a: &Value, b: &Value) {
    if a == b {
        return;
    }
    let mut w = Walker {
        sink,
        dir,
        root_a: a,
        root_b: b,
        refs: HashSet::new(),
        same_defs: a.get("$defs") == b.get("$defs") && a.get("definitions") == b.get("definitions"),
    };
    w.walk(a, b, path, &Where::root(dir), 0);
}

/// Where a nested schema is, for messages: `parameter "filter.since"`.
#[derive(Clone)]
struct Where {
    dir: Dir,
    /// Property names and `[]` for items, dotted.
    dotted: String,
}

impl Where {
    fn root(dir: Dir) -> Where {
        Where {
            dir,
            dotted: String::new(),
        }
    }

    fn child(&self, name: &str) -> Where {
        let dotted = if self.dotted.is_empty() {
            name.to_string()
        } else if name.starts_with('[') {
            format!("{}{name}", self.dotted)
        } else {
            format!("{}.{name}", self.dotted)
        };
        Where {
            dir: self.dir,
            dotted,
        }
    }

    fn text(&self) -> String {
        match (self.dir, self.dotted.is_empty()) {
            (Dir::Input, true) => "the input".into(),
            (Dir::Output, true) => "the output".into(),
            (Dir::Input, false) => format!("parameter {:?}", self.dotted),
            (Dir::Output, false) => format!("output property {:?}", self.dotted),
        }
    }
}

/// The set of types a schema allows; `None` for any.
fn types(s: &Map<String, Value>) -> Option<BTreeSet<String>> {
    match s.get("type")? {
        Value::String(t) => Some(BTreeSet::from([t.clone()])),
        Value::Array(ts) => Some(
            ts.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
        ),
        _ => None,
    }
}

/// `anyOf`/`oneOf` whose branches each only name a type (as Pydantic
/// writes `Optional[str]`: `[{"type": "string"}, {"type": "null"}]`) is
/// the same as a `type` list: made one, so that both spellings compare.
fn type_union(mut m: Map<String, Value>) -> Map<String, Value> {
    if m.contains_key("type") {
        return m;
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = m.get(key) else {
            continue;
        };
        let mut union: Vec<Value> = Vec::new();
        let only_types = !branches.is_empty()
            && branches.iter().all(|b| {
                let Some(o) = b.as_object() else {
                    return false;
                };
                if o.len() != 1 {
                    return false;
                }
                match o.get("type") {
                    Some(Value::String(t)) => union.push(Value::String(t.clone())),
                    Some(Value::Array(ts)) if ts.iter().all(Value::is_string) => {
                        union.extend(ts.iter().cloned())
                    }
                    _ => return false,
                }
                true
            });
        if only_types {
            m.remove(key);
            m.insert("type".into(), Value::Array(union));
            return m;
        }
    }
    m
}

/// Whether every type in `inner` is allowed by `outer` (`number` allows
/// `integer`; `None` is any type).
fn covers(outer: &Option<BTreeSet<String>>, inner: &Option<BTreeSet<String>>) -> bool {
    match (outer, inner) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(o), Some(i)) => i
            .iter()
            .all(|t| o.contains(t) || (t == "integer" && o.contains("number"))),
    }
}

fn types_value(t: &Option<BTreeSet<String>>) -> Value {
    match t {
        None => Value::String("any".into()),
        Some(set) if set.len() == 1 => {
            Value::String(set.iter().next().cloned().unwrap_or_default())
        }
        Some(set) => Value::Array(set.iter().cloned().map(Value::String).collect()),
    }
}

fn canonical(v: &Value) -> String {
    crate::trust::pin::canonical_text(v)
}

impl Walker<'_, '_> {
    fn subject(&self) -> String {
        self.sink.subject()
    }

    /// Whether two schemas are the same: equal text, and no `$ref` in them
    /// points into definitions that differ.
    fn same(&self, a: &Value, b: &Value) -> bool {
        a == b && (self.same_defs || !has_ref(a))
    }

    /// Whether `effect` breaks a client, in this direction.
    fn breaks(&self, effect: Effect) -> bool {
        matches!(
            (effect, self.dir),
            (Effect::Changed, _) | (Effect::Narrowed, Dir::Input) | (Effect::Widened, Dir::Output)
        )
    }

    /// The kind: `base` for input, `output-base` for output (kinds given
    /// per direction where the words differ).
    fn kind(&self, input: &'static str, output: &'static str) -> &'static str {
        match self.dir {
            Dir::Input => input,
            Dir::Output => output,
        }
    }

    /// Resolve a local `$ref` in `root`: `#/$defs/X`, `#/definitions/X`.
    fn resolve<'v>(root: &'v Value, s: &'v Value) -> (&'v Value, Option<String>) {
        let Some(r) = s.get("$ref").and_then(Value::as_str) else {
            return (s, None);
        };
        let target = r
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .filter(|t| t.is_object() || t.is_boolean());
        match target {
            Some(t) => (t, Some(r.to_string())),
            None => (s, None),
        }
    }

    fn walk(&mut self, a: &Value, b: &Value, path: &str, at: &Where, depth: usize) {
        // Equal text is the same schema, unless a `$ref` in it points
        // into definitions that differ.
        if self.same(a, b) || depth > MAX_DEPTH {
            return;
        }
        let (a, ra) = Self::resolve(self.root_a, a);
        let (b, rb) = Self::resolve(self.root_b, b);
        if ra.is_some() || rb.is_some() {
            let pair = (ra.unwrap_or_default(), rb.unwrap_or_default());
            if !self.refs.insert(pair) {
                return;
            }
            if a == b {
                return;
            }
        }
        let empty = Map::new();
        let never = {
            let mut m = Map::new();
            m.insert("not".into(), Value::Object(Map::new()));
            m
        };
        // `true` is any value, `false` none.
        let as_map = |v: &Value| -> Map<String, Value> {
            match v {
                Value::Object(m) => m.clone(),
                Value::Bool(false) => never.clone(),
                _ => empty.clone(),
            }
        };
        let (ma, mb) = (type_union(as_map(a)), type_union(as_map(b)));
        if !self.types(&ma, &mb, path, at) {
            // Unrelated types: what is nested no longer compares.
            return;
        }
        self.enums(&ma, &mb, path, at);
        self.bounds(&ma, &mb, path, at);
        self.simple(&ma, &mb, path, at);
        self.properties(&ma, &mb, path, at, depth);
        self.additional(&ma, &mb, path, at, depth);
        self.items(&ma, &mb, path, at, depth);
        for key in ["anyOf", "oneOf", "allOf"] {
            self.branches(key, &ma, &mb, path, at, depth);
        }
        self.others(&ma, &mb, path, at);
    }

    /// Compare `type`; false when the types are unrelated (neither side's
    /// types include the other's).
    fn types(
        &mut self,
        a: &Map<String, Value>,
        b: &Map<String, Value>,
        path: &str,
        at: &Where,
    ) -> bool {
        let (ta, tb) = (types(a), types(b));
        if ta == tb {
            return true;
        }
        let (widened, narrowed) = (covers(&tb, &ta), covers(&ta, &tb));
        let effect = if widened {
            Effect::Widened
        } else if narrowed {
            Effect::Narrowed
        } else {
            Effect::Changed
        };
        let breaking = self.breaks(effect);
        let kind = match (self.dir, breaking) {
            (Dir::Input, true) => "parameter-type-changed",
            (Dir::Input, false) => "parameter-type-widened",
            (Dir::Output, true) => "output-type-changed",
            (Dir::Output, false) => "output-type-narrowed",
        };
        let (va, vb) = (types_value(&ta), types_value(&tb));
        let how = match effect {
            Effect::Widened => "widened",
            Effect::Narrowed => "narrowed",
            Effect::Changed => "changed",
        };
        let message = format!(
            "{}: {}: type {how} from {va} to {vb}",
            self.subject(),
            at.text()
        );
        self.sink.push(
            kind,
            breaking,
            &format!("{path}/type"),
            Some(&va),
            Some(&vb),
            message,
        );
        widened || narrowed
    }

    fn enums(&mut self, a: &Map<String, Value>, b: &Map<String, Value>, path: &str, at: &Where) {
        // `const` is an enum of one.
        let values = |m: &Map<String, Value>, key: &str| -> Option<Vec<Value>> {
            match (key, m.get(key)) {
                ("enum", Some(Value::Array(vs))) => Some(vs.clone()),
                ("const", Some(v)) => Some(vec![v.clone()]),
                _ => None,
            }
        };
        for key in ["enum", "const"] {
            let (ea, eb) = (values(a, key), values(b, key));
            let p = format!("{path}/{key}");
            match (&ea, &eb) {
                (None, None) => {}
                (None, Some(_)) => {
                    let breaking = self.breaks(Effect::Narrowed);
                    let kind = if key == "enum" {
                        self.kind("enum-added", "output-enum-added")
                    } else {
                        self.kind("const-added", "output-const-added")
                    };
                    let message =
                        format!("{}: {}: now restricted by {key}", self.subject(), at.text());
                    self.sink
                        .push(kind, breaking, &p, None, b.get(key), message);
                }
                (Some(_), None) => {
                    let breaking = self.breaks(Effect::Widened);
                    let kind = if key == "enum" {
                        self.kind("enum-removed", "output-enum-removed")
                    } else {
                        self.kind("const-removed", "output-const-removed")
                    };
                    let message = format!(
                        "{}: {}: no longer restricted by {key}",
                        self.subject(),
                        at.text()
                    );
                    self.sink
                        .push(kind, breaking, &p, a.get(key), None, message);
                }
                (Some(va), Some(vb)) => {
                    let ca: BTreeMap<String, &Value> =
                        va.iter().map(|v| (canonical(v), v)).collect();
                    let cb: BTreeMap<String, &Value> =
                        vb.iter().map(|v| (canonical(v), v)).collect();
                    for (text, v) in ca.iter().filter(|(t, _)| !cb.contains_key(*t)) {
                        let breaking = self.breaks(Effect::Narrowed);
                        let kind = self.kind("enum-value-removed", "output-enum-value-removed");
                        let message =
                            format!("{}: {}: value {text} removed", self.subject(), at.text());
                        self.sink.push(kind, breaking, &p, Some(v), None, message);
                    }
                    for (text, v) in cb.iter().filter(|(t, _)| !ca.contains_key(*t)) {
                        let breaking = self.breaks(Effect::Widened);
                        let kind = self.kind("enum-value-added", "output-enum-value-added");
                        let message =
                            format!("{}: {}: value {text} added", self.subject(), at.text());
                        self.sink.push(kind, breaking, &p, None, Some(v), message);
                    }
                }
            }
        }
    }

    fn push_effect(
        &mut self,
        effect: Effect,
        key: &str,
        a: Option<&Value>,
        b: Option<&Value>,
        path: &str,
        at: &Where,
    ) {
        let breaking = self.breaks(effect);
        let kind = match (effect, self.dir) {
            (Effect::Narrowed, Dir::Input) => "constraint-narrowed",
            (Effect::Widened, Dir::Input) => "constraint-widened",
            (Effect::Narrowed, Dir::Output) => "output-constraint-narrowed",
            (Effect::Widened, Dir::Output) => "output-constraint-widened",
            (Effect::Changed, Dir::Input) => "constraint-changed",
            (Effect::Changed, Dir::Output) => "output-constraint-changed",
        };
        let show = |v: Option<&Value>| v.map_or("none".to_string(), canonical);
        let how = match effect {
            Effect::Narrowed => "narrowed",
            Effect::Widened => "widened",
            Effect::Changed => "changed",
        };
        let message = format!(
            "{}: {}: {key} {how}: {} → {}",
            self.subject(),
            at.text(),
            show(a),
            show(b)
        );
        self.sink.push(
            kind,
            breaking,
            &format!("{path}/{}", seg(key)),
            a,
            b,
            message,
        );
    }

    fn bounds(&mut self, a: &Map<String, Value>, b: &Map<String, Value>, path: &str, at: &Where) {
        for (keys, upper) in [(UPPER, true), (LOWER, false)] {
            for &key in keys {
                let (va, vb) = (a.get(key), b.get(key));
                if va == vb {
                    continue;
                }
                let effect = match (va, vb) {
                    (None, Some(_)) => Effect::Narrowed,
                    (Some(_), None) => Effect::Widened,
                    (Some(Value::Number(x)), Some(Value::Number(y))) => {
                        let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
                        if (y < x) == upper {
                            Effect::Narrowed
                        } else {
                            Effect::Widened
                        }
                    }
                    // Draft 4: exclusiveMaximum/exclusiveMinimum as booleans.
                    (Some(Value::Bool(x)), Some(Value::Bool(y))) => {
                        if *y && !*x {
                            Effect::Narrowed
                        } else {
                            Effect::Widened
                        }
                    }
                    _ => Effect::Changed,
                };
                self.push_effect(effect, key, va, vb, path, at);
            }
        }
    }

    /// `pattern`, `format`, `multipleOf`, `uniqueItems`.
    fn simple(&mut self, a: &Map<String, Value>, b: &Map<String, Value>, path: &str, at: &Where) {
        for key in ["pattern", "format", "multipleOf"] {
            let (va, vb) = (a.get(key), b.get(key));
            if va == vb {
                continue;
            }
            let effect = match (va, vb) {
                (None, Some(_)) => Effect::Narrowed,
                (Some(_), None) => Effect::Widened,
                _ => Effect::Changed,
            };
            self.push_effect(effect, key, va, vb, path, at);
        }
        let unique =
            |m: &Map<String, Value>| m.get("uniqueItems").and_then(Value::as_bool) == Some(true);
        if unique(a) != unique(b) {
            let effect = if unique(b) {
                Effect::Narrowed
            } else {
                Effect::Widened
            };
            self.push_effect(
                effect,
                "uniqueItems",
                a.get("uniqueItems"),
                b.get("uniqueItems"),
                path,
                at,
            );
        }
        for (key, kind) in [
            ("title", "title-changed"),
            ("description", "description-changed"),
            ("default", "default-changed"),
        ] {
            let (va, vb) = (a.get(key), b.get(key));
            if va != vb {
                let message = format!("{}: {}: {key} changed", self.subject(), at.text());
                self.sink
                    .push(kind, false, &format!("{path}/{key}"), va, vb, message);
            }
        }
    }

    fn properties(
        &mut self,
        a: &Map<String, Value>,
        b: &Map<String, Value>,
        path: &str,
        at: &Where,
        depth: usize,
    ) {
        let empty = Map::new();
        let pa = a
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let pb = b
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required = |m: &Map<String, Value>| -> BTreeSet<String> {
            m.get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        };
        let (ra, rb) = (required(a), required(b));
        let names: BTreeSet<&String> = pa
            .keys()
            .chain(pb.keys())
            .chain(ra.iter())
            .chain(rb.iter())
            .collect();
        // After the change, does the object refuse properties it does not list?
        let closed_b = b.get("additionalProperties") == Some(&Value::Bool(false));
        for name in names {
            let p = format!("{path}/properties/{}", seg(name));
            let here = at.child(name);
            let (sa, sb) = (pa.get(name), pb.get(name));
            let (qa, qb) = (ra.contains(name), rb.contains(name));
            let (was, is) = (sa.is_some() || qa, sb.is_some() || qb);
            match (was, is) {
                (false, true) => match self.dir {
                    Dir::Input if qb => {
                        let message = format!("{}: new required {}", self.subject(), here.text());
                        self.sink
                            .push("required-parameter-added", true, &p, None, sb, message);
                    }
                    Dir::Input => {
                        let message = format!("{}: new optional {}", self.subject(), here.text());
                        self.sink
                            .push("optional-parameter-added", false, &p, None, sb, message);
                    }
                    Dir::Output => {
                        let message = format!("{}: new {}", self.subject(), here.text());
                        self.sink
                            .push("output-property-added", false, &p, None, sb, message);
                    }
                },
                (true, false) => match self.dir {
                    Dir::Input => {
                        let why = if closed_b {
                            " (the schema now refuses it: additionalProperties is false)"
                        } else {
                            ""
                        };
                        let message =
                            format!("{}: {} was removed{why}", self.subject(), here.text());
                        self.sink
                            .push("parameter-removed", closed_b, &p, sa, None, message);
                    }
                    Dir::Output => {
                        let message = format!("{}: {} was removed", self.subject(), here.text());
                        self.sink
                            .push("output-property-removed", true, &p, sa, None, message);
                    }
                },
                (true, true) => {
                    // Only listed in `required` on one side: any value.
                    let any = Value::Bool(true);
                    let (sa, sb) = (sa.unwrap_or(&any), sb.unwrap_or(&any));
                    self.walk(sa, sb, &p, &here, depth + 1);
                    let change = match (qa, qb, self.dir) {
                        (false, true, Dir::Input) => {
                            Some(("parameter-now-required", true, "is now required"))
                        }
                        (true, false, Dir::Input) => {
                            Some(("parameter-now-optional", false, "is now optional"))
                        }
                        (true, false, Dir::Output) => Some((
                            "output-property-now-optional",
                            true,
                            "is no longer required (it may be missing)",
                        )),
                        (false, true, Dir::Output) => Some((
                            "output-property-now-required",
                            false,
                            "is now always present",
                        )),
                        _ => None,
                    };
                    if let Some((kind, breaking, what)) = change {
                        let message = format!("{}: {} {what}", self.subject(), here.text());
                        self.sink.push(kind, breaking, &p, None, None, message);
                    }
                }
                (false, false) => {}
            }
        }
    }

    fn additional(
        &mut self,
        a: &Map<String, Value>,
        b: &Map<String, Value>,
        path: &str,
        at: &Where,
        depth: usize,
    ) {
        let (va, vb) = (a.get("additionalProperties"), b.get("additionalProperties"));
        if va == vb && va.is_none_or(|v| self.same(v, v)) {
            return;
        }
        let p = format!("{path}/additionalProperties");
        let open = |v: Option<&Value>| matches!(v, None | Some(Value::Bool(true)));
        let closed = |v: Option<&Value>| v == Some(&Value::Bool(false));
        if va.is_some_and(Value::is_object) && vb.is_some_and(Value::is_object) {
            if let (Some(sa), Some(sb)) = (va, vb) {
                self.walk(sa, sb, &p, &at.child("[*]"), depth + 1);
            }
            return;
        }
        if open(va) && open(vb) {
            return;
        }
        let effect = if open(vb) || closed(va) {
            Effect::Widened
        } else {
            Effect::Narrowed
        };
        let breaking = self.breaks(effect);
        let kind = match (effect, self.dir) {
            (Effect::Narrowed, Dir::Input) => "additional-properties-closed",
            (_, Dir::Input) => "additional-properties-opened",
            (Effect::Narrowed, Dir::Output) => "output-additional-properties-closed",
            (_, Dir::Output) => "output-additional-properties-opened",
        };
        let how = if effect == Effect::Narrowed {
            "accepts fewer properties than it listed before"
        } else {
            "accepts more properties than before"
        };
        let message = format!(
            "{}: {}: additionalProperties changed; it {how}",
            self.subject(),
            at.text()
        );
        self.sink.push(kind, breaking, &p, va, vb, message);
    }

    fn items(
        &mut self,
        a: &Map<String, Value>,
        b: &Map<String, Value>,
        path: &str,
        at: &Where,
        depth: usize,
    ) {
        for key in ["items", "prefixItems"] {
            let (va, vb) = (a.get(key), b.get(key));
            if va == vb && va.is_none_or(|v| self.same(v, v)) {
                continue;
            }
            let p = format!("{path}/{key}");
            match (va, vb) {
                (Some(Value::Array(xa)), Some(Value::Array(xb))) => {
                    for (i, (sa, sb)) in xa.iter().zip(xb).enumerate() {
                        self.walk(
                            sa,
                            sb,
                            &format!("{p}/{i}"),
                            &at.child(&format!("[{i}]")),
                            depth + 1,
                        );
                    }
                    if xa.len() != xb.len() {
                        self.push_effect(Effect::Changed, key, va, vb, path, at);
                    }
                }
                (Some(sa), Some(sb)) if !sa.is_array() && !sb.is_array() => {
                    self.walk(sa, sb, &p, &at.child("[]"), depth + 1);
                }
                (None, Some(sb)) if !sb.is_array() => {
                    self.walk(&Value::Bool(true), sb, &p, &at.child("[]"), depth + 1);
                }
                (Some(sa), None) if !sa.is_array() => {
                    self.walk(sa, &Value::Bool(true), &p, &at.child("[]"), depth + 1);
                }
                _ => self.push_effect(Effect::Changed, key, va, vb, path, at),
            }
        }
    }

    fn branches(
        &mut self,
        key: &str,
        a: &Map<String, Value>,
        b: &Map<String, Value>,
        path: &str,
        at: &Where,
        depth: usize,
    ) {
        let list = |m: &Map<String, Value>| m.get(key).and_then(Value::as_array).cloned();
        let (la, lb) = (list(a), list(b));
        if la == lb
            && la
                .as_ref()
                .is_none_or(|l| l.iter().all(|v| self.same(v, v)))
        {
            return;
        }
        let p = format!("{path}/{key}");
        let texts = |l: &Option<Vec<Value>>| {
            l.as_ref()
                .map(|l| l.iter().map(canonical).collect::<BTreeSet<String>>())
        };
        if self.same_defs && texts(&la) == texts(&lb) {
            // The same branches, in another order.
            return;
        }
        match (la, lb) {
            (Some(la), Some(lb)) if la.len() == lb.len() => {
                for (i, (sa, sb)) in la.iter().zip(&lb).enumerate() {
                    self.walk(sa, sb, &format!("{p}/{i}"), at, depth + 1);
                }
            }
            (Some(la), Some(lb)) if key != "allOf" => {
                // A branch is one more way to be valid.
                let ca: BTreeSet<String> = la.iter().map(canonical).collect();
                let cb: BTreeSet<String> = lb.iter().map(canonical).collect();
                for v in la.iter().filter(|v| !cb.contains(&canonical(v))) {
                    let breaking = self.breaks(Effect::Narrowed);
                    let kind = self.kind("variant-removed", "output-variant-removed");
                    let message = format!(
                        "{}: {}: a {key} branch was removed",
                        self.subject(),
                        at.text()
                    );
                    self.sink.push(kind, breaking, &p, Some(v), None, message);
                }
                for v in lb.iter().filter(|v| !ca.contains(&canonical(v))) {
                    let breaking = self.breaks(Effect::Widened);
                    let kind = self.kind("variant-added", "output-variant-added");
                    let message = format!(
                        "{}: {}: a {key} branch was added",
                        self.subject(),
                        at.text()
                    );
                    self.sink.push(kind, breaking, &p, None, Some(v), message);
                }
            }
            (la, lb) => {
                let (va, vb) = (la.map(Value::Array), lb.map(Value::Array));
                self.push_effect(Effect::Changed, key, va.as_ref(), vb.as_ref(), path, at);
            }
        }
    }

    /// Every other keyword: constraining ones breaking, the rest not.
    fn others(&mut self, a: &Map<String, Value>, b: &Map<String, Value>, path: &str, at: &Where) {
        let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for key in keys {
            let k = key.as_str();
            if SKIPPED.contains(&k) || UPPER.contains(&k) || LOWER.contains(&k) {
                continue;
            }
            let (va, vb) = (a.get(k), b.get(k));
            if va == vb {
                continue;
            }
            if CONSTRAINING.contains(&k) {
                self.push_effect(Effect::Changed, k, va, vb, path, at);
            } else {
                let message = format!("{}: {}: {k} changed", self.subject(), at.text());
                self.sink.push(
                    "schema-changed",
                    false,
                    &format!("{path}/{}", seg(k)),
                    va,
                    vb,
                    message,
                );
            }
        }
    }
}
