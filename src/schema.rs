//! JSON Schema checks of tool arguments (`inputSchema`) and structured
//! results (`outputSchema`), with errors by path for a person to read;
//! [`skeleton`] arguments to start editing from (or to send blind, as the
//! smoke test does); and [`rows`], a schema flattened for a person to read.
//!
//! [`skeleton`] and [`rows`] are pure and UI-agnostic. They read schemas as
//! real servers send them (draft-07 or 2020-12), follow local `$ref`s
//! (`#`, `#/$defs/X`, `#/definitions/X`, any local JSON pointer), merge
//! `allOf`, and never panic: recursion, nesting and total work are bounded,
//! and whatever they do not understand is skipped.

use std::cell::Cell;

use serde_json::{Map, Number, Value};

/// One way an instance breaks its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer into the instance; empty for the root.
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            self.path.as_str()
        };
        write!(f, "{path}: {}", self.message)
    }
}

/// Check `instance` against `schema`. `Err` means the schema itself could
/// not be compiled (the server sent a broken schema).
pub fn check(schema: &Value, instance: &Value) -> Result<Vec<Violation>, String> {
    let validator = jsonschema::validator_for(schema)
        .map_err(|e| format!("the schema is not valid JSON Schema: {e}"))?;
    Ok(validator
        .iter_errors(instance)
        .map(|e| Violation {
            path: e.instance_path().to_string(),
            message: e.to_string(),
        })
        .collect())
}

/// How many levels of schema (properties, array items, alternatives) the
/// walkers descend before giving up on a branch. Recursive `$ref`s are
/// caught earlier, by name; this is the backstop for everything else.
const MAX_DEPTH: usize = 16;
/// Schema nodes one call may visit, so that schemas whose `$ref`s fan out
/// (a DAG of definitions, each used twice) cannot blow up exponentially.
const BUDGET: usize = 20_000;
/// Rows one call of [`rows`] returns at most (plus a "truncated" marker).
const MAX_ROWS: usize = 2_000;
/// Elements [`skeleton`] generates at most for an array's `minItems`.
const MAX_ITEMS: u64 = 64;
/// Characters [`skeleton`] pads a string to at most for its `minLength`.
const MAX_STRING: u64 = 4_096;
/// An enum whose values, joined, are at most this long is shown as the row's
/// `ty` (`"a"|"b"`); a longer one as its base type plus an `enum:` detail.
const ENUM_TY_MAX: usize = 48;
/// Longest value (default, examples, enum list) quoted in a detail.
const DETAIL_MAX: usize = 80;

type Obj = Map<String, Value>;

/// A value a person can start editing, and a smoke test can send, for
/// `schema` (usually a tool's `inputSchema`).
///
/// Per schema, in this order: its `default`; else its `const`; else the
/// first of its `examples` (or an OpenAPI-style `example`); else its first
/// `enum` value; else a value of its type (a `type` array picks the first
/// type that is not `"null"`; without `type`, the type is guessed from the
/// keywords present, and a schema that says nothing gives `null`):
///
/// - object: every **required** property, plus the optional properties that
///   have a `default` (with it), in the schema's `properties` order. Other
///   optional properties are left out, so that a blind call sends only what
///   the server asks for and a person sees what they must fill in; a
///   `minProperties` is topped up with further properties in order. A
///   required name missing from `properties` gets a skeleton of
///   `additionalProperties` (or `null`).
/// - string: `""`, or a placeholder for the common `format`s (`date-time`,
///   `date`, `time`, `uri`, `email`, `uuid`, `hostname`, `ipv4`, …), padded
///   with `x` to `minLength` and cut to `maxLength`. With a `pattern`, a few
///   simple candidates (`a`, `0`, `A`, repeated) are tried and the first
///   that matches is used; a pattern none of them matches is not satisfied.
/// - integer / number: 0 (`0.0` for number) when it lies within
///   `minimum`/`maximum` (and `exclusiveMinimum`/`exclusiveMaximum`), else
///   the nearest valid bound; moved to a `multipleOf` where one fits.
/// - boolean: `false`; null: `null`.
/// - array: `[]`, or `minItems` elements (at most 64) made from
///   `prefixItems` (or draft-07 tuple `items`) then `items`; a `contains`
///   makes at least one element from that schema. `uniqueItems` is not
///   honoured when `minItems` > 1.
///
/// `anyOf`/`oneOf` take the first alternative that is not `{"type":"null"}`
/// (nor a reference back into a schema being expanded), falling back to a
/// null alternative; `allOf` parts are merged (properties and required
/// united; otherwise the first word on a keyword wins, the schema's own
/// keywords first). Local `$ref`s are followed against `schema` as root.
///
/// A reference back into a schema already being expanded, nesting deeper
/// than 16 levels, and anything past the work budget give `null`. The result
/// validates against the schema whenever that is feasible with these rules
/// (see the tests); `pattern`, `uniqueItems`, `not`, `oneOf` exclusivity and
/// `dependentRequired` are the known gaps.
pub fn skeleton(schema: &Value) -> Value {
    let walker = Walker::new(schema);
    let mut chain = vec![ROOT_KEY.to_string()];
    walker.skeleton(schema, 0, &mut chain)
}

/// One line of a schema, flattened for a person to read. See [`rows`].
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaRow {
    /// Indentation: 0 for top-level properties, +1 per level of nesting.
    pub depth: usize,
    /// The property name; `"[]"` for array items (`"[0]"`, `"[1]"` for
    /// tuple positions); `"(any of 1)"` / `"(one of 2)"` for alternatives;
    /// `"*"` for `additionalProperties`, `/re/` for `patternProperties`;
    /// `"…"` for the marker row that ends a truncated listing.
    pub name: String,
    /// A short type: `string`, `integer`, `number`, `boolean`, `null`,
    /// `object`, `array<string>`, `[string, integer]` (tuple),
    /// `string|null`, `"a"|"b"` (enum), `const 3`, `ref Foo` (a reference to
    /// an object definition), `ref Foo (recursive)`, `any`.
    pub ty: String,
    /// Listed in the parent object's `required`.
    pub required: bool,
    /// The schema's `description`, trimmed; `None` when absent or blank.
    pub description: Option<String>,
    /// Further facts, in a fixed order, e.g. `default: 5`, `enum: a, b, c`,
    /// `examples: "x", "y"`, `min 1`, `max 10 (exclusive)`,
    /// `multiple of 5`, `minLength: 1`, `maxLength: 9`, `format: uri`,
    /// `pattern: ^a`, `minItems: 1`, `maxItems: 3`, `unique items`,
    /// `minProperties: 1`, `no additional properties` /
    /// `additional properties allowed` (only when the schema says so),
    /// `deprecated`, `read-only`, `write-only`, `title: …` (when it says more
    /// than the name), `ref: Foo` (when `ty` does not show it),
    /// `unresolved reference`.
    pub details: Vec<String>,
}

/// `schema` (a tool's `inputSchema` or `outputSchema`) flattened into rows,
/// one per property, depth-first in `properties` order.
///
/// Nested objects give child rows (depth + 1). An array whose items have
/// structure gives a `"[]"` row (depth + 1) and then the items' rows
/// (depth + 2); an array of scalars is summed up in `ty` alone
/// (`array<string>`). `$ref`s are followed; a reference back into a
/// definition already being expanded gives one row with `ty`
/// `"ref Name (recursive)"` and no children. `anyOf`/`oneOf` are folded
/// into `ty` (`integer|null`, `Cat|Dog`), and the alternatives that have
/// properties are also listed as child rows `"(any of 1)"`, … with their
/// properties below them. `allOf` parts are merged into one object.
/// A schema-valued `additionalProperties` gives a `"*"` row.
///
/// A schema that is not an object, or has no properties (nor alternatives
/// with properties), gives an empty `Vec`: the caller shows "no arguments".
/// Nesting deeper than 16 levels is not shown; a listing longer than 2000
/// rows, or that runs out of the work budget, ends with a `"…"` row.
pub fn rows(schema: &Value) -> Vec<SchemaRow> {
    let walker = Walker::new(schema);
    let mut chain = vec![ROOT_KEY.to_string()];
    let flat = walker.flatten(schema, &chain);
    chain.extend(flat.refs.iter().cloned());
    let mut out = Vec::new();
    walker.children(&flat.map, 0, &mut chain, &mut out);
    if walker.truncated.get() {
        out.truncate(MAX_ROWS);
        out.push(SchemaRow {
            depth: 0,
            name: "…".to_string(),
            ty: "truncated".to_string(),
            required: false,
            description: Some("the schema is too large or too deep to show in full".to_string()),
            details: Vec::new(),
        });
    }
    out
}

/// The key under which the root schema sits on a chain of references.
const ROOT_KEY: &str = "#";

/// A schema with its `$ref` and `allOf` merged in.
#[derive(Default)]
struct Flat {
    map: Obj,
    /// Keys of the references followed.
    refs: Vec<String>,
    /// Keys of references not followed because they lead back into a schema
    /// being expanded.
    recursive: Vec<String>,
    /// References that do not resolve (remote, anchors, missing).
    missing: Vec<String>,
}

impl Flat {
    /// The schema is nothing but a reference that leads back into a schema
    /// being expanded.
    fn only_recursive(&self) -> bool {
        self.refs.is_empty() && !self.recursive.is_empty()
    }

    /// The schema is nothing but a reference that does not resolve.
    fn only_missing(&self) -> bool {
        self.refs.is_empty() && !self.missing.is_empty()
    }
}

struct Walker<'a> {
    root: &'a Value,
    budget: Cell<usize>,
    truncated: Cell<bool>,
}

impl<'a> Walker<'a> {
    fn new(root: &'a Value) -> Self {
        Walker {
            root,
            budget: Cell::new(BUDGET),
            truncated: Cell::new(false),
        }
    }

    /// Take one unit of work; `false` once the budget is spent.
    fn spend(&self) -> bool {
        match self.budget.get() {
            0 => {
                self.truncated.set(true);
                false
            }
            n => {
                self.budget.set(n - 1);
                true
            }
        }
    }

    /// Resolve a local reference: a key that names it on a chain, and the
    /// schema it points to.
    fn resolve(&self, reference: &str) -> Option<(String, &'a Value)> {
        let (base, fragment) = reference.split_once('#')?;
        if !base.is_empty() && self.root.get("$id").and_then(Value::as_str) != Some(base) {
            return None;
        }
        let pointer = crate::text::percent_decode(fragment);
        if pointer.is_empty() {
            return Some((ROOT_KEY.to_string(), self.root));
        }
        if !pointer.starts_with('/') {
            return None;
        }
        let target = self.root.pointer(&pointer)?;
        Some((format!("#{pointer}"), target))
    }

    /// `schema` with its `$ref` and `allOf` parts merged in (its own keywords
    /// first). References on `chain` are not followed.
    fn flatten(&self, schema: &Value, chain: &[String]) -> Flat {
        let mut flat = Flat::default();
        let mut seen = chain.to_vec();
        self.flatten_into(schema, &mut flat, &mut seen, 0);
        flat
    }

    fn flatten_into(&self, schema: &Value, flat: &mut Flat, seen: &mut Vec<String>, depth: usize) {
        if depth > MAX_DEPTH || !self.spend() {
            return;
        }
        let Some(map) = schema.as_object() else {
            return;
        };
        for (k, v) in map {
            if !matches!(k.as_str(), "$ref" | "allOf" | "$defs" | "definitions") {
                merge_key(&mut flat.map, k, v);
            }
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            match self.resolve(reference) {
                Some((key, _)) if seen.contains(&key) => flat.recursive.push(key),
                Some((key, target)) => {
                    flat.refs.push(key.clone());
                    seen.push(key);
                    self.flatten_into(target, flat, seen, depth + 1);
                    seen.pop();
                }
                None => flat.missing.push(reference.to_string()),
            }
        }
        if let Some(parts) = map.get("allOf").and_then(Value::as_array) {
            for part in parts {
                self.flatten_into(part, flat, seen, depth + 1);
            }
        }
    }

    /// Merge the first suitable `anyOf`/`oneOf` alternative into `flat`
    /// (repeatedly, as alternatives may bring their own).
    fn settle_alternatives(&self, flat: &mut Flat, chain: &[String]) {
        for _ in 0..MAX_DEPTH {
            let alternatives = match flat.map.remove("anyOf") {
                Some(a) => a,
                None => match flat.map.remove("oneOf") {
                    Some(a) => a,
                    None => return,
                },
            };
            let Value::Array(alternatives) = alternatives else {
                continue;
            };
            let mut here = chain.to_vec();
            here.extend(flat.refs.iter().cloned());
            let mut flats: Vec<Flat> = alternatives
                .iter()
                .map(|a| self.flatten(a, &here))
                .collect();
            let usable = |i: &usize| alternatives[*i].is_object() && !flats[*i].only_recursive();
            let n = alternatives.len();
            let chosen = (0..n)
                .find(|i| usable(i) && !is_null_only(&flats[*i].map))
                .or_else(|| (0..n).find(usable))
                .or((n > 0).then_some(0));
            let Some(i) = chosen else {
                continue;
            };
            let alt = flats.swap_remove(i);
            for (k, v) in &alt.map {
                merge_key(&mut flat.map, k, v);
            }
            flat.refs.extend(alt.refs);
            flat.recursive.extend(alt.recursive);
            flat.missing.extend(alt.missing);
        }
    }

    fn skeleton(&self, schema: &Value, depth: usize, chain: &mut Vec<String>) -> Value {
        if depth > MAX_DEPTH || !self.spend() {
            return Value::Null;
        }
        let mut flat = self.flatten(schema, chain);
        self.settle_alternatives(&mut flat, chain);
        let m = &flat.map;
        if let Some(v) = m.get("default").or_else(|| m.get("const")) {
            return v.clone();
        }
        if let Some(v) = m
            .get("examples")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            return v.clone();
        }
        if let Some(v) = m.get("example") {
            return v.clone();
        }
        if let Some(v) = m
            .get("enum")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            return v.clone();
        }
        let before = chain.len();
        chain.extend(flat.refs.iter().cloned());
        let value = match main_type(m) {
            Some("object") => self.object_skeleton(m, depth, chain),
            Some("array") => self.array_skeleton(m, depth, chain),
            Some("string") => string_skeleton(m),
            Some("integer") => integer_skeleton(m),
            Some("number") => number_skeleton(m),
            Some("boolean") => Value::Bool(false),
            _ => Value::Null,
        };
        chain.truncate(before);
        value
    }

    fn object_skeleton(&self, m: &Obj, depth: usize, chain: &mut Vec<String>) -> Value {
        let required = required_names(m);
        let props = m.get("properties").and_then(Value::as_object);
        let mut out = Obj::new();
        for (name, sub) in props.into_iter().flatten() {
            if required.contains(&name.as_str()) {
                out.insert(name.clone(), self.skeleton(sub, depth + 1, chain));
            } else if let Some(default) = self.flatten(sub, chain).map.get("default") {
                out.insert(name.clone(), default.clone());
            }
        }
        for name in required {
            if !out.contains_key(name) {
                let value = match m.get("additionalProperties") {
                    Some(extra @ Value::Object(_)) => self.skeleton(extra, depth + 1, chain),
                    _ => Value::Null,
                };
                out.insert(name.to_string(), value);
            }
        }
        let min = m.get("minProperties").and_then(Value::as_u64).unwrap_or(0);
        for (name, sub) in props.into_iter().flatten() {
            if out.len() as u64 >= min {
                break;
            }
            if !out.contains_key(name) {
                out.insert(name.clone(), self.skeleton(sub, depth + 1, chain));
            }
        }
        Value::Object(out)
    }

    fn array_skeleton(&self, m: &Obj, depth: usize, chain: &mut Vec<String>) -> Value {
        let (prefix, rest) = match (m.get("prefixItems"), m.get("items")) {
            (Some(Value::Array(p)), rest) => (p.as_slice(), rest),
            (_, Some(Value::Array(p))) => (p.as_slice(), m.get("additionalItems")),
            (_, rest) => (&[][..], rest),
        };
        let contains = m.get("contains").filter(|c| c.is_object());
        let mut count = m.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let min_contains = match contains {
            Some(_) => m.get("minContains").and_then(Value::as_u64).unwrap_or(1),
            None => 0,
        };
        count = count.max(min_contains).min(MAX_ITEMS);
        let items = (0..count as usize)
            .map(|i| match (prefix.get(i), contains) {
                (Some(s), _) => self.skeleton(s, depth + 1, chain),
                (None, Some(c)) => self.skeleton(c, depth + 1, chain),
                (None, None) => match rest {
                    Some(s) => self.skeleton(s, depth + 1, chain),
                    None => Value::Null,
                },
            })
            .collect();
        Value::Array(items)
    }

    /// Child rows of a flattened schema: its properties, `additionalProperties`
    /// and `patternProperties`, array items, and alternatives with structure.
    fn children(&self, m: &Obj, depth: usize, chain: &mut Vec<String>, out: &mut Vec<SchemaRow>) {
        if depth > MAX_DEPTH {
            let structured = [
                "properties",
                "patternProperties",
                "prefixItems",
                "anyOf",
                "oneOf",
            ]
            .iter()
            .any(|k| m.contains_key(*k))
                || m.get("items").is_some_and(|i| !i.is_boolean())
                || m.get("additionalProperties").is_some_and(Value::is_object);
            if structured {
                self.truncated.set(true);
            }
            return;
        }
        let required = required_names(m);
        if let Some(props) = m.get("properties").and_then(Value::as_object) {
            for (name, sub) in props {
                let req = required.contains(&name.as_str());
                self.row(name, sub, req, depth, false, chain, out);
            }
        }
        if let Some(Value::Object(patterns)) = m.get("patternProperties") {
            for (pattern, sub) in patterns {
                self.row(
                    &format!("/{pattern}/"),
                    sub,
                    false,
                    depth,
                    false,
                    chain,
                    out,
                );
            }
        }
        if let Some(extra @ Value::Object(o)) = m.get("additionalProperties")
            && !o.is_empty()
        {
            self.row("*", extra, false, depth, false, chain, out);
        }
        match (m.get("prefixItems"), m.get("items")) {
            (Some(Value::Array(tuple)), _) | (None, Some(Value::Array(tuple))) => {
                for (i, sub) in tuple.iter().enumerate() {
                    self.row(&format!("[{i}]"), sub, false, depth, true, chain, out);
                }
            }
            (_, Some(items @ Value::Object(_))) => {
                self.row("[]", items, false, depth, true, chain, out);
            }
            _ => {}
        }
        for (key, label) in [("anyOf", "any of"), ("oneOf", "one of")] {
            if let Some(Value::Array(alternatives)) = m.get(key) {
                for (i, alt) in alternatives.iter().enumerate() {
                    let name = format!("({label} {})", i + 1);
                    self.row(&name, alt, false, depth, true, chain, out);
                }
            }
        }
    }

    /// Push the row for one (sub)schema and then its children. With
    /// `only_if_children`, the row is left out when it has no children (and
    /// is not a recursive reference): array items and alternatives of plain
    /// types are already summed up in the parent's `ty`.
    #[allow(clippy::too_many_arguments)]
    fn row(
        &self,
        name: &str,
        schema: &Value,
        required: bool,
        depth: usize,
        only_if_children: bool,
        chain: &mut Vec<String>,
        out: &mut Vec<SchemaRow>,
    ) {
        if out.len() >= MAX_ROWS {
            self.truncated.set(true);
            return;
        }
        if !self.spend() {
            return;
        }
        let reference = direct_ref(schema);
        let flat = self.flatten(schema, chain);
        let m = &flat.map;
        let description = m
            .get("description")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_string);
        let mut row = SchemaRow {
            depth,
            name: name.to_string(),
            ty: String::new(),
            required,
            description,
            details: Vec::new(),
        };
        if let Some(r) = reference
            && flat.only_recursive()
        {
            row.ty = format!("ref {} (recursive)", ref_name(r));
            row.details = details(m, name, None, &row.ty);
            out.push(row);
            return;
        }
        if let Some(r) = reference
            && flat.only_missing()
        {
            row.ty = format!("ref {}", ref_name(r));
            row.details = details(m, name, None, &row.ty);
            row.details.push("unresolved reference".to_string());
            out.push(row);
            return;
        }
        row.ty = self.label_with(m, reference, false, depth, chain);
        row.details = details(m, name, reference, &row.ty);
        let before = chain.len();
        chain.extend(flat.refs.iter().cloned());
        let mut below = Vec::new();
        self.children(m, depth + 1, chain, &mut below);
        chain.truncate(before);
        if only_if_children && below.is_empty() {
            return;
        }
        out.push(row);
        out.extend(below);
        out.truncate(MAX_ROWS);
    }

    /// A short type for `schema`. `nested` labels appear inside another
    /// label (`array<…>`, alternatives), where a reference to an object
    /// definition is shown by its bare name.
    fn label(&self, schema: &Value, nested: bool, depth: usize, chain: &[String]) -> String {
        if depth > MAX_DEPTH || !self.spend() {
            return "…".to_string();
        }
        match schema {
            Value::Bool(false) => return "never".to_string(),
            Value::Object(_) => {}
            _ => return "any".to_string(),
        }
        let reference = direct_ref(schema);
        let flat = self.flatten(schema, chain);
        if let Some(r) = reference
            && (flat.only_recursive() || flat.only_missing())
        {
            let name = ref_name(r);
            return if nested { name } else { format!("ref {name}") };
        }
        let mut here = chain.to_vec();
        here.extend(flat.refs.iter().cloned());
        self.label_with(&flat.map, reference, nested, depth, &here)
    }

    fn label_with(
        &self,
        m: &Obj,
        reference: Option<&str>,
        nested: bool,
        depth: usize,
        chain: &[String],
    ) -> String {
        if let Some(c) = m.get("const") {
            return format!("const {}", clip(&c.to_string(), ENUM_TY_MAX));
        }
        if let Some(label) = enum_label(m) {
            return label;
        }
        if let Some(r) = reference
            && main_type(m) == Some("object")
        {
            let name = ref_name(r);
            return if nested { name } else { format!("ref {name}") };
        }
        let types = declared_types(m);
        if !types.is_empty() {
            let labels: Vec<String> = types
                .iter()
                .map(|t| match *t {
                    "array" => self.array_label(m, depth, chain),
                    other => other.to_string(),
                })
                .collect();
            return labels.join("|");
        }
        let mut alternatives = Vec::new();
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(alts)) = m.get(key) {
                alternatives.extend(alts.iter());
            }
        }
        if !alternatives.is_empty() {
            let mut labels: Vec<String> = Vec::new();
            for alt in alternatives {
                let label = self.label(alt, true, depth + 1, chain);
                if !labels.contains(&label) {
                    labels.push(label);
                }
            }
            return labels.join("|");
        }
        match infer_type(m) {
            Some("array") => self.array_label(m, depth, chain),
            Some(t) => t.to_string(),
            None => "any".to_string(),
        }
    }

    fn array_label(&self, m: &Obj, depth: usize, chain: &[String]) -> String {
        match (m.get("prefixItems"), m.get("items")) {
            (Some(Value::Array(tuple)), _) | (None, Some(Value::Array(tuple))) => {
                let labels: Vec<String> = tuple
                    .iter()
                    .map(|s| self.label(s, true, depth + 1, chain))
                    .collect();
                format!("[{}]", labels.join(", "))
            }
            (_, Some(items @ Value::Object(_))) => {
                format!("array<{}>", self.label(items, true, depth + 1, chain))
            }
            _ => "array".to_string(),
        }
    }
}

/// Merge one keyword into a flattened schema: `properties` and `required`
/// are united (a property defined twice must satisfy both definitions);
/// for any other keyword the value already there wins.
fn merge_key(out: &mut Obj, key: &str, value: &Value) {
    match (key, out.get_mut(key)) {
        (_, None) => {
            out.insert(key.to_string(), value.clone());
        }
        ("properties", Some(Value::Object(have))) => {
            if let Value::Object(add) = value {
                for (name, schema) in add {
                    match have.get_mut(name) {
                        Some(existing) => {
                            let first = existing.take();
                            *existing = Value::Object(Obj::from_iter([(
                                "allOf".to_string(),
                                Value::Array(vec![first, schema.clone()]),
                            )]));
                        }
                        None => {
                            have.insert(name.clone(), schema.clone());
                        }
                    }
                }
            }
        }
        ("required", Some(Value::Array(have))) => {
            if let Value::Array(add) = value {
                for name in add {
                    if !have.contains(name) {
                        have.push(name.clone());
                    }
                }
            }
        }
        _ => {}
    }
}

/// The reference a schema stands for: its `$ref`, or the single `$ref` of a
/// one-part `allOf` (how pydantic v1 and others attach a description or
/// default to a reference).
fn direct_ref(schema: &Value) -> Option<&str> {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        return Some(r);
    }
    match schema.get("allOf") {
        Some(Value::Array(parts)) if parts.len() == 1 => {
            parts[0].get("$ref").and_then(Value::as_str)
        }
        _ => None,
    }
}

/// The readable name of a reference: the last segment of its pointer.
fn ref_name(reference: &str) -> String {
    let fragment = reference.rsplit_once('#').map_or(reference, |(_, f)| f);
    let decoded = crate::text::percent_decode(fragment);
    match decoded.rsplit('/').next() {
        Some(last) if !last.is_empty() => last.replace("~1", "/").replace("~0", "~"),
        _ if reference.contains('#') && fragment.is_empty() => "root".to_string(),
        _ => reference.to_string(),
    }
}

/// The names in `required`, strings only.
fn required_names(m: &Obj) -> Vec<&str> {
    match m.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The `type` keyword as a list; empty when absent or malformed.
fn declared_types(m: &Obj) -> Vec<&str> {
    match m.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The type to generate a value of: the first declared type that is not
/// `"null"` (or `"null"` if that is all), else one guessed from keywords.
fn main_type(m: &Obj) -> Option<&str> {
    let types = declared_types(m);
    types
        .iter()
        .copied()
        .find(|t| *t != "null")
        .or_else(|| types.first().copied())
        .or_else(|| infer_type(m))
}

/// A type guessed from the keywords of an untyped schema.
fn infer_type(m: &Obj) -> Option<&'static str> {
    let has = |keys: &[&str]| keys.iter().any(|k| m.contains_key(*k));
    if has(&[
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "minProperties",
        "maxProperties",
    ]) {
        Some("object")
    } else if has(&[
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "contains",
    ]) {
        Some("array")
    } else if has(&["minLength", "maxLength", "pattern", "format"]) {
        Some("string")
    } else if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        Some("number")
    } else {
        None
    }
}

/// Whether a flattened schema admits only `null`.
fn is_null_only(m: &Obj) -> bool {
    let types = declared_types(m);
    (!types.is_empty() && types.iter().all(|t| *t == "null"))
        || m.get("const") == Some(&Value::Null)
        || matches!(m.get("enum"), Some(Value::Array(e)) if !e.is_empty() && e.iter().all(Value::is_null))
}

/// `"a"|"b"` for a short enum; `None` for none or a long one.
fn enum_label(m: &Obj) -> Option<String> {
    let Some(Value::Array(values)) = m.get("enum") else {
        return None;
    };
    if values.is_empty() {
        return None;
    }
    let joined = values
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("|");
    (joined.chars().count() <= ENUM_TY_MAX).then_some(joined)
}

fn string_skeleton(m: &Obj) -> Value {
    let placeholder = match m.get("format").and_then(Value::as_str) {
        Some("date-time") => "2026-01-01T00:00:00Z",
        Some("date") => "2026-01-01",
        Some("time") => "00:00:00Z",
        Some("duration") => "P1D",
        Some("uri" | "url" | "iri" | "uri-reference" | "iri-reference") => "https://example.com",
        Some("uri-template") => "https://example.com/{id}",
        Some("email" | "idn-email") => "user@example.com",
        Some("uuid") => "00000000-0000-0000-0000-000000000000",
        Some("hostname" | "idn-hostname") => "example.com",
        Some("ipv4") => "127.0.0.1",
        Some("ipv6") => "::1",
        Some("regex") => ".*",
        _ => "",
    };
    let min = m
        .get("minLength")
        .and_then(Value::as_u64)
        .unwrap_or(0)
        .min(MAX_STRING) as usize;
    let max = m
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|n| n.min(MAX_STRING) as usize);
    let fit = |s: &str, pad: char| -> String {
        let mut s: String = s.to_string();
        let len = s.chars().count();
        if len < min {
            s.extend(std::iter::repeat_n(pad, min - len));
        }
        if let Some(max) = max {
            s = s.chars().take(max).collect();
        }
        s
    };
    let first = fit(placeholder, 'x');
    let Some(pattern) = m.get("pattern").and_then(Value::as_str) else {
        return Value::String(first);
    };
    // Best effort: try a few simple strings against the pattern (with the
    // length limits), using the same regex engine as the validator.
    let mut probe = Obj::new();
    probe.insert("pattern".to_string(), Value::String(pattern.to_string()));
    for key in ["minLength", "maxLength"] {
        if let Some(v) = m.get(key) {
            probe.insert(key.to_string(), v.clone());
        }
    }
    let Ok(validator) = jsonschema::validator_for(&Value::Object(probe)) else {
        return Value::String(first);
    };
    let mut candidates = vec![first.clone()];
    for word in ["example", "a-b", "a_b", "a.b", "a1"] {
        candidates.push(fit(word, 'x'));
    }
    for unit in ["a", "0", "A", "x"] {
        for n in 1..=12 {
            candidates.push(fit(&unit.repeat(n), unit.chars().next().unwrap_or('x')));
        }
    }
    candidates
        .into_iter()
        .find(|c| validator.is_valid(&Value::String(c.clone())))
        .map_or(Value::String(first), Value::String)
}

/// One side of a numeric range: the value and whether it is exclusive.
type Bound = Option<(f64, bool)>;

/// The bounds of a numeric schema: (value, exclusive) for each side; the
/// tighter one when both an inclusive and an exclusive bound are given.
fn bounds(m: &Obj) -> (Bound, Bound) {
    let num = |k: &str| m.get(k).and_then(Value::as_f64);
    let flag = |k: &str| m.get(k).and_then(Value::as_bool).unwrap_or(false);
    let side = |plain: &str, exclusive: &str, lower: bool| {
        let inclusive = num(plain).map(|v| (v, flag(exclusive)));
        let strict = num(exclusive).map(|v| (v, true));
        match (inclusive, strict) {
            (Some(a), Some(b)) => {
                let b_tighter = if lower { b.0 >= a.0 } else { b.0 <= a.0 };
                Some(if b_tighter { b } else { a })
            }
            (a, b) => a.or(b),
        }
    };
    (
        side("minimum", "exclusiveMinimum", true),
        side("maximum", "exclusiveMaximum", false),
    )
}

/// Move `c` onto a multiple of `multipleOf` within `[lo, hi]`, if one is
/// close by; else leave it.
fn snap_to_multiple(m: &Obj, c: f64, lo: Option<f64>, hi: Option<f64>) -> f64 {
    let Some(step) = m
        .get("multipleOf")
        .and_then(Value::as_f64)
        .filter(|s| *s > 0.0)
    else {
        return c;
    };
    let inside = |v: f64| lo.is_none_or(|l| v >= l) && hi.is_none_or(|h| v <= h);
    [(c / step).ceil() * step, (c / step).floor() * step]
        .into_iter()
        .find(|v| v.is_finite() && inside(*v))
        .unwrap_or(c)
}

fn integer_skeleton(m: &Obj) -> Value {
    let (lo, hi) = bounds(m);
    let lo = lo.map(|(v, ex)| if ex { v.floor() + 1.0 } else { v.ceil() });
    let hi = hi.map(|(v, ex)| if ex { v.ceil() - 1.0 } else { v.floor() });
    let mut c = 0.0;
    if let Some(l) = lo
        && c < l
    {
        c = l;
    } else if let Some(h) = hi
        && c > h
    {
        c = h;
    }
    let c = snap_to_multiple(m, c, lo, hi);
    if c.abs() < 9.0e15 {
        Value::from(c as i64)
    } else {
        Number::from_f64(c).map_or(Value::from(0), Value::Number)
    }
}

fn number_skeleton(m: &Obj) -> Value {
    let (lo, hi) = bounds(m);
    let ok_lo = |v: f64| lo.is_none_or(|(l, ex)| if ex { v > l } else { v >= l });
    let ok_hi = |v: f64| hi.is_none_or(|(h, ex)| if ex { v < h } else { v <= h });
    let between = |l: f64, h: f64| l / 2.0 + h / 2.0;
    let mut c = 0.0;
    if !ok_lo(c) {
        if let Some((l, ex)) = lo {
            c = match (ex, hi) {
                (false, _) => l,
                (true, Some((h, _))) if h - l <= 2.0 => between(l, h),
                (true, _) => l + 1.0,
            };
        }
    } else if !ok_hi(c)
        && let Some((h, ex)) = hi
    {
        c = match (ex, lo) {
            (false, _) => h,
            (true, Some((l, _))) if h - l <= 2.0 => between(l, h),
            (true, _) => h - 1.0,
        };
    }
    let snapped = snap_to_multiple(m, c, None, None);
    let c = if ok_lo(snapped) && ok_hi(snapped) {
        snapped
    } else {
        c
    };
    Number::from_f64(c).map_or(Value::from(0), Value::Number)
}

/// Details of a row, in a fixed order (see [`SchemaRow::details`]).
fn details(m: &Obj, name: &str, reference: Option<&str>, ty: &str) -> Vec<String> {
    let mut out = Vec::new();
    let num = |k: &str| m.get(k).filter(|v| v.is_number()).map(Value::to_string);
    let exclusive_flag = |k: &str| m.get(k).and_then(Value::as_bool).unwrap_or(false);
    if let Some(d) = m.get("default") {
        out.push(format!("default: {}", clip(&d.to_string(), DETAIL_MAX)));
    }
    if let Some(Value::Array(values)) = m.get("enum")
        && !values.is_empty()
        && enum_label(m).is_none()
    {
        let list: Vec<String> = values.iter().map(plain).collect();
        out.push(format!("enum: {}", clip(&list.join(", "), DETAIL_MAX)));
    }
    let examples: Vec<String> = match (m.get("examples"), m.get("example")) {
        (Some(Value::Array(e)), _) => e.iter().map(Value::to_string).collect(),
        (_, Some(e)) => vec![e.to_string()],
        _ => Vec::new(),
    };
    if !examples.is_empty() {
        out.push(format!(
            "examples: {}",
            clip(&examples.join(", "), DETAIL_MAX)
        ));
    }
    for (plain_key, exclusive_key, word) in [
        ("minimum", "exclusiveMinimum", "min"),
        ("maximum", "exclusiveMaximum", "max"),
    ] {
        if let Some(v) = num(plain_key) {
            let ex = if exclusive_flag(exclusive_key) {
                " (exclusive)"
            } else {
                ""
            };
            out.push(format!("{word} {v}{ex}"));
        }
        if let Some(v) = num(exclusive_key) {
            out.push(format!("{word} {v} (exclusive)"));
        }
    }
    if let Some(v) = num("multipleOf") {
        out.push(format!("multiple of {v}"));
    }
    for key in ["minLength", "maxLength"] {
        if let Some(v) = num(key) {
            out.push(format!("{key}: {v}"));
        }
    }
    if let Some(f) = m.get("format").and_then(Value::as_str) {
        out.push(format!("format: {f}"));
    }
    if let Some(p) = m.get("pattern").and_then(Value::as_str) {
        out.push(format!("pattern: {}", clip(p, DETAIL_MAX)));
    }
    for key in ["minItems", "maxItems"] {
        if let Some(v) = num(key) {
            out.push(format!("{key}: {v}"));
        }
    }
    if m.get("uniqueItems") == Some(&Value::Bool(true)) {
        out.push("unique items".to_string());
    }
    for key in ["minProperties", "maxProperties"] {
        if let Some(v) = num(key) {
            out.push(format!("{key}: {v}"));
        }
    }
    match m.get("additionalProperties") {
        Some(Value::Bool(false)) => out.push("no additional properties".to_string()),
        Some(Value::Bool(true) | Value::Object(_)) => {
            out.push("additional properties allowed".to_string())
        }
        _ => {}
    }
    for (key, word) in [
        ("deprecated", "deprecated"),
        ("readOnly", "read-only"),
        ("writeOnly", "write-only"),
    ] {
        if m.get(key) == Some(&Value::Bool(true)) {
            out.push(word.to_string());
        }
    }
    let ref_label = reference.map(ref_name);
    if let Some(title) = m.get("title").and_then(Value::as_str)
        && !title.trim().is_empty()
        && normalized(title) != normalized(name)
        && ref_label.as_deref().map(normalized) != Some(normalized(title))
    {
        out.push(format!("title: {}", clip(title.trim(), DETAIL_MAX)));
    }
    if let Some(r) = ref_label
        && !ty.contains(r.as_str())
    {
        out.push(format!("ref: {r}"));
    }
    out
}

/// A value for a list in a detail: strings bare, anything else as JSON.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Lowercase letters and digits only, to tell a derived title
/// ("City" for "city", "Max Results" for "max_results") from one that says
/// something.
fn normalized(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// `s` cut to `max` characters, with an ellipsis when cut.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut cut: String = s.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn violations_name_their_paths() {
        let schema = json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"array","items":{"type":"string"}}},"required":["a"]});
        assert!(
            check(&schema, &json!({"a": 1, "b": ["x"]}))
                .unwrap()
                .is_empty()
        );
        let v = check(&schema, &json!({"b": ["x", 2]})).unwrap();
        assert_eq!(v.len(), 2, "{v:?}");
        assert!(
            v.iter()
                .any(|x| x.path.is_empty() && x.message.contains("\"a\""))
        );
        assert!(
            v.iter()
                .any(|x| x.path == "/b/1" && x.message.contains("string"))
        );
        assert!(v[0].to_string().contains(": "));
    }

    #[test]
    fn draft07_schemas_from_real_servers_compile() {
        let schema = json!({"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message":{"type":"string"}},"required":["message"]});
        assert_eq!(check(&schema, &json!({"message": "hi"})).unwrap(), vec![]);
        assert_eq!(check(&schema, &json!({})).unwrap().len(), 1);
    }

    #[test]
    fn a_broken_schema_is_an_error_not_a_panic() {
        assert!(check(&json!({"type": 12}), &json!({})).is_err());
    }

    /// Real and realistic tool schemas: server-everything (zod → draft-07),
    /// the Python SDK (pydantic, 2020-12) and hand-written ones.
    fn real_schemas() -> Vec<(&'static str, Value)> {
        let d7 = "http://json-schema.org/draft-07/schema#";
        vec![
            (
                "get-sum",
                json!({"type":"object","properties":{"a":{"type":"number","description":"First number"},"b":{"type":"number","description":"Second number"}},"required":["a","b"],"additionalProperties":false,"$schema":d7}),
            ),
            (
                "get-structured-content",
                json!({"type":"object","properties":{"location":{"type":"string","enum":["New York","Chicago","Los Angeles"],"description":"Choose city"}},"required":["location"],"additionalProperties":false,"$schema":d7}),
            ),
            (
                "get-structured-content output",
                json!({"type":"object","properties":{"temperature":{"type":"number","description":"Temperature in celsius"},"conditions":{"type":"string","description":"Weather conditions description"},"humidity":{"type":"number","description":"Humidity percentage"}},"required":["temperature","conditions","humidity"],"additionalProperties":false,"$schema":d7}),
            ),
            (
                "trigger-long-running-operation",
                json!({"type":"object","properties":{"duration":{"type":"number","default":10,"description":"Duration of the operation in seconds"},"steps":{"type":"number","default":5,"description":"Number of steps in the operation"}},"additionalProperties":false,"$schema":d7}),
            ),
            (
                "python get_weather",
                json!({"properties":{"city":{"title":"City","type":"string"}},"required":["city"],"title":"get_weatherArguments","type":"object"}),
            ),
            ("pydantic $defs", pydantic()),
            (
                "formats",
                json!({"$schema":d7,"type":"object","properties":{
                    "when":{"type":"string","format":"date-time"},
                    "day":{"type":"string","format":"date"},
                    "site":{"type":"string","format":"uri"},
                    "mail":{"type":"string","format":"email"},
                    "id":{"type":"string","format":"uuid"},
                    "host":{"type":"string","format":"hostname"},
                    "ip":{"type":"string","format":"ipv4"},
                    "code":{"type":"string","minLength":3,"maxLength":8},
                    "zip":{"type":"string","pattern":"^[0-9]{5}$"},
                    "slug":{"type":"string","pattern":"^[a-z][a-z0-9-]*$","minLength":4},
                    "upper":{"type":"string","pattern":"^[A-Z]{3}$"}},
                    "required":["when","day","site","mail","id","host","ip","code","zip","slug","upper"]}),
            ),
            (
                "arrays",
                json!({"type":"object","properties":{
                    "tags":{"type":"array","items":{"type":"string","minLength":1},"minItems":2},
                    "points":{"type":"array","minItems":1,"items":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"],"additionalProperties":false}},
                    "pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false,"minItems":2},
                    "must":{"type":"array","contains":{"const":"x"}},
                    "ids":{"type":"array","items":{"type":"integer"}}},
                    "required":["tags","points","pair","must","ids"]}),
            ),
            (
                "draft-07 tuple",
                json!({"$schema":d7,"type":"object","properties":{"rgb":{"type":"array","items":[{"type":"integer","minimum":0,"maximum":255},{"type":"integer","minimum":0},{"type":"integer"}],"additionalItems":false,"minItems":3}},"required":["rgb"]}),
            ),
            (
                "numbers",
                json!({"type":"object","properties":{
                    "page":{"type":"integer","minimum":1,"maximum":100},
                    "offset":{"type":"integer","minimum":-5,"maximum":5},
                    "ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
                    "temp":{"type":"number","maximum":-10.5},
                    "step":{"type":"integer","exclusiveMinimum":0,"multipleOf":5},
                    "big":{"type":"number","minimum":2.5},
                    "flag":{"type":"boolean"},
                    "nothing":{"type":"null"},
                    "version":{"const":3},
                    "mode":{"type":"string","examples":["fast","slow"]},
                    "note":{"type":["null","string"]}},
                    "required":["page","offset","ratio","temp","step","big","flag","nothing","version","mode","note"]}),
            ),
            (
                "draft-04 exclusive",
                json!({"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer","minimum":0,"exclusiveMinimum":true}},"required":["n"]}),
            ),
            (
                "nested objects",
                json!({"type":"object","properties":{"config":{"type":"object","properties":{"retries":{"type":"integer","minimum":0,"default":3},"server":{"type":"object","properties":{"host":{"type":"string"},"port":{"type":"integer","minimum":1,"maximum":65535}},"required":["host","port"],"additionalProperties":false},"labels":{"type":"object","additionalProperties":{"type":"string"}}},"required":["server","labels"],"additionalProperties":false}},"required":["config"]}),
            ),
            (
                "allOf with definitions",
                json!({"allOf":[{"$ref":"#/definitions/Base"},{"type":"object","properties":{"extra":{"type":"boolean"}},"required":["extra"]}],"definitions":{"Base":{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]}}}),
            ),
            (
                "oneOf union",
                json!({"type":"object","properties":{"shape":{"oneOf":[{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number","exclusiveMinimum":0}},"required":["kind","r"]},{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}]}},"required":["shape"]}),
            ),
            ("recursive tree", tree()),
            (
                "minProperties",
                json!({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"minProperties":1}),
            ),
            (
                "required but undeclared",
                json!({"type":"object","required":["x"],"additionalProperties":{"type":"integer"}}),
            ),
        ]
    }

    fn pydantic() -> Value {
        json!({
            "$defs": {
                "Address": {"properties": {"street": {"title": "Street", "type": "string"}, "zip": {"pattern": "^\\d{5}$", "title": "Zip", "type": "string"}}, "required": ["street", "zip"], "title": "Address", "type": "object"},
                "Unit": {"enum": ["celsius", "fahrenheit"], "title": "Unit", "type": "string"}
            },
            "properties": {
                "address": {"$ref": "#/$defs/Address"},
                "unit": {"$ref": "#/$defs/Unit", "default": "celsius"},
                "tags": {"items": {"type": "string"}, "minItems": 1, "title": "Tags", "type": "array"},
                "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "title": "Limit"},
                "count": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "title": "Count"},
                "billing": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "title": "Billing"}
            },
            "required": ["address", "tags", "count", "billing"],
            "title": "lookupArguments",
            "type": "object"
        })
    }

    fn tree() -> Value {
        json!({"$defs":{"Node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["name","children"]}},"type":"object","properties":{"root":{"$ref":"#/$defs/Node"}},"required":["root"]})
    }

    #[test]
    fn skeletons_of_real_schemas_validate() {
        for (name, schema) in real_schemas() {
            let value = skeleton(&schema);
            let violations = check(&schema, &value).unwrap();
            assert!(
                violations.is_empty(),
                "{name}: {value} breaks its schema: {violations:?}"
            );
        }
    }

    #[test]
    fn skeletons_are_what_a_person_expects() {
        let all: Vec<(&str, Value)> = real_schemas();
        let of = |name: &str| skeleton(&all.iter().find(|(n, _)| *n == name).unwrap().1);
        assert_eq!(of("get-sum"), json!({"a": 0.0, "b": 0.0}));
        assert_eq!(
            of("get-structured-content"),
            json!({"location": "New York"})
        );
        assert_eq!(
            of("trigger-long-running-operation"),
            json!({"duration": 10, "steps": 5})
        );
        assert_eq!(of("python get_weather"), json!({"city": ""}));
        // Optional properties only with a default; required Optional[int]
        // takes the non-null alternative.
        assert_eq!(
            of("pydantic $defs"),
            json!({"address": {"street": "", "zip": "00000"}, "unit": "celsius", "tags": [""], "limit": null, "count": 1, "billing": {"street": "", "zip": "00000"}})
        );
        assert_eq!(
            of("formats"),
            json!({"when": "2026-01-01T00:00:00Z", "day": "2026-01-01", "site": "https://example.com", "mail": "user@example.com", "id": "00000000-0000-0000-0000-000000000000", "host": "example.com", "ip": "127.0.0.1", "code": "xxx", "zip": "00000", "slug": "xxxx", "upper": "AAA"})
        );
        assert_eq!(
            of("arrays"),
            json!({"tags": ["x", "x"], "points": [{"x": 0.0, "y": 0.0}], "pair": ["", 0], "must": ["x"], "ids": []})
        );
        assert_eq!(of("draft-07 tuple"), json!({"rgb": [0, 0, 0]}));
        assert_eq!(
            of("numbers"),
            json!({"page": 1, "offset": 0, "ratio": 0.5, "temp": -10.5, "step": 5, "big": 2.5, "flag": false, "nothing": null, "version": 3, "mode": "fast", "note": ""})
        );
        assert_eq!(of("draft-04 exclusive"), json!({"n": 1}));
        assert_eq!(
            of("nested objects"),
            json!({"config": {"retries": 3, "server": {"host": "", "port": 1}, "labels": {}}})
        );
        assert_eq!(
            of("allOf with definitions"),
            json!({"id": 1, "extra": false})
        );
        assert_eq!(
            of("oneOf union"),
            json!({"shape": {"kind": "circle", "r": 1.0}})
        );
        assert_eq!(
            of("recursive tree"),
            json!({"root": {"name": "", "children": []}})
        );
        assert_eq!(of("minProperties"), json!({"a": ""}));
        assert_eq!(of("required but undeclared"), json!({"x": 0}));
        // A bare Optional[int] with default None (pydantic) is its default.
        assert_eq!(
            skeleton(&json!({"anyOf":[{"type":"integer"},{"type":"null"}],"default":null})),
            Value::Null
        );
        assert_eq!(
            skeleton(&json!({"anyOf":[{"type":"null"},{"type":"integer"}]})),
            json!(0)
        );
        assert_eq!(
            skeleton(&json!({"type":"string","maxLength":2,"format":"uuid"})),
            json!("00")
        );
    }

    fn row(depth: usize, name: &str, ty: &str, required: bool) -> SchemaRow {
        SchemaRow {
            depth,
            name: name.to_string(),
            ty: ty.to_string(),
            required,
            description: None,
            details: Vec::new(),
        }
    }

    fn with(mut r: SchemaRow, description: Option<&str>, details: &[&str]) -> SchemaRow {
        r.description = description.map(str::to_string);
        r.details = details.iter().map(|d| d.to_string()).collect();
        r
    }

    #[test]
    fn rows_of_server_everything_schemas() {
        let all = real_schemas();
        let of = |name: &str| rows(&all.iter().find(|(n, _)| *n == name).unwrap().1);
        assert_eq!(
            of("get-structured-content"),
            vec![with(
                row(
                    0,
                    "location",
                    "\"New York\"|\"Chicago\"|\"Los Angeles\"",
                    true
                ),
                Some("Choose city"),
                &[]
            )]
        );
        assert_eq!(
            of("trigger-long-running-operation"),
            vec![
                with(
                    row(0, "duration", "number", false),
                    Some("Duration of the operation in seconds"),
                    &["default: 10"]
                ),
                with(
                    row(0, "steps", "number", false),
                    Some("Number of steps in the operation"),
                    &["default: 5"]
                ),
            ]
        );
        // A derived title ("City" for "city") is not repeated.
        assert_eq!(
            of("python get_weather"),
            vec![row(0, "city", "string", true)]
        );
    }

    #[test]
    fn rows_follow_refs_and_fold_alternatives() {
        assert_eq!(
            rows(&pydantic()),
            vec![
                row(0, "address", "ref Address", true),
                row(1, "street", "string", true),
                with(row(1, "zip", "string", true), None, &["pattern: ^\\d{5}$"]),
                with(
                    row(0, "unit", "\"celsius\"|\"fahrenheit\"", false),
                    None,
                    &["default: \"celsius\"", "ref: Unit"]
                ),
                with(
                    row(0, "tags", "array<string>", true),
                    None,
                    &["minItems: 1"]
                ),
                with(
                    row(0, "limit", "integer|null", false),
                    None,
                    &["default: null"]
                ),
                row(0, "count", "integer|null", true),
                row(0, "billing", "Address|null", true),
                row(1, "(any of 1)", "ref Address", false),
                row(2, "street", "string", true),
                with(row(2, "zip", "string", true), None, &["pattern: ^\\d{5}$"]),
            ]
        );
        assert_eq!(
            rows(&tree()),
            vec![
                row(0, "root", "ref Node", true),
                row(1, "name", "string", true),
                row(1, "children", "array<Node>", true),
                row(2, "[]", "ref Node (recursive)", false),
            ]
        );
        let all = real_schemas();
        let of = |name: &str| rows(&all.iter().find(|(n, _)| *n == name).unwrap().1);
        assert_eq!(
            of("oneOf union"),
            vec![
                row(0, "shape", "object", true),
                row(1, "(one of 1)", "object", false),
                row(2, "kind", "const \"circle\"", true),
                with(row(2, "r", "number", true), None, &["min 0 (exclusive)"]),
                row(1, "(one of 2)", "object", false),
                row(2, "kind", "const \"square\"", true),
                row(2, "side", "number", true),
            ]
        );
        assert_eq!(
            of("arrays"),
            vec![
                with(
                    row(0, "tags", "array<string>", true),
                    None,
                    &["minItems: 2"]
                ),
                with(
                    row(0, "points", "array<object>", true),
                    None,
                    &["minItems: 1"]
                ),
                with(
                    row(1, "[]", "object", false),
                    None,
                    &["no additional properties"]
                ),
                row(2, "x", "number", true),
                row(2, "y", "number", true),
                with(
                    row(0, "pair", "[string, integer]", true),
                    None,
                    &["minItems: 2"]
                ),
                row(0, "must", "array", true),
                row(0, "ids", "array<integer>", true),
            ]
        );
        assert_eq!(
            of("nested objects"),
            vec![
                with(
                    row(0, "config", "object", true),
                    None,
                    &["no additional properties"]
                ),
                with(
                    row(1, "retries", "integer", false),
                    None,
                    &["default: 3", "min 0"]
                ),
                with(
                    row(1, "server", "object", true),
                    None,
                    &["no additional properties"]
                ),
                row(2, "host", "string", true),
                with(
                    row(2, "port", "integer", true),
                    None,
                    &["min 1", "max 65535"]
                ),
                with(
                    row(1, "labels", "object", true),
                    None,
                    &["additional properties allowed"]
                ),
                row(2, "*", "string", false),
            ]
        );
        assert_eq!(
            of("allOf with definitions"),
            vec![
                with(row(0, "id", "integer", true), None, &["min 1"]),
                row(0, "extra", "boolean", true),
            ]
        );
        let formats = of("formats");
        assert_eq!(formats[2].details, vec!["format: uri"]);
        assert_eq!(formats[7].details, vec!["minLength: 3", "maxLength: 8"]);
    }

    #[test]
    fn long_enums_and_other_details() {
        let schema = json!({"type":"object","properties":{
            "color":{"type":"string","enum":["red","green","blue","cyan","magenta","yellow","black","white"],"description":"  Pen colour\n"},
            "ratio":{"type":"number","minimum":0,"maximum":1,"multipleOf":0.25,"examples":[0.5]},
            "old":{"type":"string","deprecated":true,"readOnly":true,"title":"Legacy field"}}});
        assert_eq!(
            rows(&schema),
            vec![
                with(
                    row(0, "color", "string", false),
                    Some("Pen colour"),
                    &["enum: red, green, blue, cyan, magenta, yellow, black, white"]
                ),
                with(
                    row(0, "ratio", "number", false),
                    None,
                    &["examples: 0.5", "min 0", "max 1", "multiple of 0.25"]
                ),
                with(
                    row(0, "old", "string", false),
                    None,
                    &["deprecated", "read-only", "title: Legacy field"]
                ),
            ]
        );
    }

    #[test]
    fn schemas_without_properties_have_no_rows() {
        for schema in [
            json!({"type":"object"}),
            json!({"type":"object","properties":{}}),
            json!({"type":"string"}),
            json!({}),
        ] {
            assert_eq!(rows(&schema), vec![], "{schema}");
        }
    }

    #[test]
    fn odd_schemas_do_not_panic() {
        let odd = [
            json!(true),
            json!(false),
            json!(null),
            json!(7),
            json!("object"),
            json!([]),
            json!([{"type":"object"}]),
            json!({"type": 7}),
            json!({"type": [7, null]}),
            json!({"properties": []}),
            json!({"properties": {"a": 7, "b": [], "c": true, "d": false, "e": null}, "required": ["a", 1, null, "zz"]}),
            json!({"required": "a"}),
            json!({"$ref": "#/$defs/missing"}),
            json!({"$ref": 7}),
            json!({"$ref": "#/%zz/%"}),
            json!({"$ref": "#anchor"}),
            json!({"$ref": "https://example.com/schema.json#/$defs/X"}),
            json!({"$ref": "#"}),
            json!({"allOf": [{"$ref": "#"}]}),
            json!({"allOf": 7, "anyOf": {}, "oneOf": [7, true]}),
            json!({"anyOf": []}),
            json!({"anyOf": [{"$ref": "#"}]}),
            json!({"enum": []}),
            json!({"enum": 5, "const": null}),
            json!({"type": "array", "items": [], "minItems": 3}),
            json!({"type": "array", "items": 7, "prefixItems": 7, "minItems": 1_000_000_000u64}),
            json!({"type": "string", "minLength": 1_000_000_000_000u64, "maxLength": -1}),
            json!({"type": "string", "pattern": "(unclosed"}),
            json!({"type": "integer", "minimum": 1e300}),
            json!({"type": "integer", "minimum": 10, "maximum": 1}),
            json!({"type": "number", "exclusiveMinimum": 1e308, "exclusiveMaximum": 1.7e308}),
            json!({"type": "number", "multipleOf": 0, "minimum": "a"}),
            json!({"$defs": {"A": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}),
            json!({"$defs": {"A": {"allOf": [{"$ref": "#/$defs/A"}]}}, "properties": {"a": {"$ref": "#/$defs/A"}}}),
            json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "properties": {"a": {"$ref": "#/$defs/A"}}, "required": ["a"]}),
            json!({"type": "object", "properties": {"me": {"$ref": "#"}}, "required": ["me"]}),
            json!({"properties": {"x": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}, "required": ["x"]}),
        ];
        for schema in &odd {
            let _ = skeleton(schema);
            let _ = rows(schema);
        }
        assert_eq!(rows(&json!(true)), vec![]);
        assert_eq!(rows(&json!([])), vec![]);
        assert_eq!(rows(&json!({"type": 7})), vec![]);
        assert_eq!(rows(&json!({"properties": []})), vec![]);
        assert_eq!(rows(&json!({"$ref": "#/$defs/missing"})), vec![]);
        assert_eq!(skeleton(&json!({"$ref": "#/$defs/missing"})), Value::Null);
        assert_eq!(skeleton(&json!({"type": 7})), Value::Null);
        assert_eq!(skeleton(&json!(true)), Value::Null);
        let me = json!({"type": "object", "properties": {"me": {"$ref": "#"}}, "required": ["me"]});
        assert_eq!(skeleton(&me), json!({"me": null}));
        assert_eq!(rows(&me), vec![row(0, "me", "ref root (recursive)", true)]);
        let missing = json!({"properties": {"m": {"$ref": "#/$defs/Gone", "description": "lost"}}});
        assert_eq!(
            rows(&missing),
            vec![with(
                row(0, "m", "ref Gone", false),
                Some("lost"),
                &["unresolved reference"]
            )]
        );
        // Optional self-reference: the null alternative stops the recursion.
        let linked = json!({"$defs": {"L": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"anyOf": [{"$ref": "#/$defs/L"}, {"type": "null"}]}}, "required": ["v", "next"]}}, "$ref": "#/$defs/L"});
        let value = skeleton(&linked);
        assert_eq!(value, json!({"v": 0, "next": null}));
        assert_eq!(check(&linked, &value).unwrap(), vec![]);
    }

    #[test]
    fn fan_out_and_deep_nesting_are_bounded() {
        // 24 definitions, each using the next twice: 2^24 paths.
        let mut defs = Map::new();
        for i in 0..24 {
            let next = json!({"$ref": format!("#/$defs/D{}", i + 1)});
            defs.insert(
                format!("D{i}"),
                json!({"type": "object", "properties": {"l": next, "r": next}, "required": ["l", "r"]}),
            );
        }
        defs.insert("D24".to_string(), json!({"type": "string"}));
        let schema = json!({"$defs": defs, "$ref": "#/$defs/D0"});
        let started = std::time::Instant::now();
        let _ = skeleton(&schema);
        let listed = rows(&schema);
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        assert!(listed.len() <= MAX_ROWS + 1);
        assert_eq!(listed.last().unwrap().name, "…");

        // Leaves at the deepest level shown do not count as cut off.
        let mut exact = json!({"type": "string"});
        for _ in 0..=MAX_DEPTH {
            exact = json!({"type": "object", "properties": {"a": exact}});
        }
        let listed = rows(&exact);
        assert_eq!(listed.len(), MAX_DEPTH + 1);
        assert_eq!(listed.last().unwrap().ty, "string");

        // Properties nested 300 deep, with no $ref at all.
        let mut deep = json!({"type": "string"});
        for _ in 0..300 {
            deep = json!({"type": "object", "properties": {"a": deep}, "required": ["a"]});
        }
        let value = skeleton(&deep);
        let listed = rows(&deep);
        assert!(listed.iter().all(|r| r.depth <= MAX_DEPTH));
        assert_eq!(listed.last().unwrap().name, "…");
        let mut v = &value;
        let mut levels = 0;
        while let Some(inner) = v.get("a") {
            v = inner;
            levels += 1;
        }
        assert!(levels <= MAX_DEPTH + 1, "{levels}");
    }
}
