//! The schema walker shared by [`super::skeleton`] and [`super::rows`]:
//! local `$ref` resolution, `allOf` merging, the choice among `anyOf` /
//! `oneOf` alternatives, and the work budget that keeps every walk bounded.

use std::cell::Cell;

use serde_json::Value;

use super::{BUDGET, MAX_DEPTH, Obj};

/// The key under which the root schema sits on a chain of references.
pub(super) const ROOT_KEY: &str = "#";

/// A schema with its `$ref` and `allOf` merged in.
#[derive(Default)]
pub(super) struct Flat {
    pub(super) map: Obj,
    /// Keys of the references followed.
    pub(super) refs: Vec<String>,
    /// Keys of references not followed because they lead back into a schema
    /// being expanded.
    pub(super) recursive: Vec<String>,
    /// References that do not resolve (remote, anchors, missing).
    pub(super) missing: Vec<String>,
}

impl Flat {
    /// The schema is nothing but a reference that leads back into a schema
    /// being expanded.
    pub(super) fn only_recursive(&self) -> bool {
        self.refs.is_empty() && !self.recursive.is_empty()
    }

    /// The schema is nothing but a reference that does not resolve.
    pub(super) fn only_missing(&self) -> bool {
        self.refs.is_empty() && !self.missing.is_empty()
    }
}

pub(super) struct Walker<'a> {
    pub(super) root: &'a Value,
    pub(super) budget: Cell<usize>,
    pub(super) truncated: Cell<bool>,
}

impl<'a> Walker<'a> {
    pub(super) fn new(root: &'a Value) -> Self {
        Walker {
            root,
            budget: Cell::new(BUDGET),
            truncated: Cell::new(false),
        }
    }

    /// Take one unit of work; `false` once the budget is spent.
    pub(super) fn spend(&self) -> bool {
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
    pub(super) fn resolve(&self, reference: &str) -> Option<(String, &'a Value)> {
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
    pub(super) fn flatten(&self, schema: &Value, chain: &[String]) -> Flat {
        let mut flat = Flat::default();
        let mut seen = chain.to_vec();
        self.flatten_into(schema, &mut flat, &mut seen, 0);
        flat
    }

    pub(super) fn flatten_into(
        &self,
        schema: &Value,
        flat: &mut Flat,
        seen: &mut Vec<String>,
        depth: usize,
    ) {
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
    pub(super) fn settle_alternatives(&self, flat: &mut Flat, chain: &[String]) {
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
}

/// Merge one keyword into a flattened schema: `properties` and `required`
/// are united (a property defined twice must satisfy both definitions);
/// for any other keyword the value already there wins.
pub(crate) fn merge_key(out: &mut Obj, key: &str, value: &Value) {
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
pub(super) fn direct_ref(schema: &Value) -> Option<&str> {
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
pub(super) fn ref_name(reference: &str) -> String {
    let fragment = reference.rsplit_once('#').map_or(reference, |(_, f)| f);
    let decoded = crate::text::percent_decode(fragment);
    match decoded.rsplit('/').next() {
        Some(last) if !last.is_empty() => last.replace("~1", "/").replace("~0", "~"),
        _ if reference.contains('#') && fragment.is_empty() => "root".to_string(),
        _ => reference.to_string(),
    }
}

/// The names in `required`, strings only.
pub(super) fn required_names(m: &Obj) -> Vec<&str> {
    match m.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The `type` keyword as a list; empty when absent or malformed.
pub(crate) fn declared_types(m: &Obj) -> Vec<&str> {
    match m.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The type to generate a value of: the first declared type that is not
/// `"null"` (or `"null"` if that is all), else one guessed from keywords.
pub(super) fn main_type(m: &Obj) -> Option<&str> {
    let types = declared_types(m);
    types
        .iter()
        .copied()
        .find(|t| *t != "null")
        .or_else(|| types.first().copied())
        .or_else(|| infer_type(m))
}

/// A type guessed from the keywords of an untyped schema.
pub(crate) fn infer_type(m: &Obj) -> Option<&'static str> {
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
pub(crate) fn is_null_only(m: &Obj) -> bool {
    let types = declared_types(m);
    (!types.is_empty() && types.iter().all(|t| *t == "null"))
        || m.get("const") == Some(&Value::Null)
        || matches!(m.get("enum"), Some(Value::Array(e)) if !e.is_empty() && e.iter().all(Value::is_null))
}
