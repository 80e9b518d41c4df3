//! From an `inputSchema` to the form's nodes: local `$ref`s followed,
//! `allOf` merged, nullable alternatives folded, and a plain reason for
//! every schema the form cannot express (the editor then opens in JSON).

use serde_json::{Map, Value};

use super::{Kind, Node};
use crate::schema::{declared_types, infer_type, is_null_only, merge_key};
use crate::tui::ask::{Choice, LineEdit, fmt_num, options, text_of};

/// Nesting the form follows before it gives up.
const MAX_DEPTH: usize = 12;
/// Nodes one form builds at most (a hostile schema must not make the
/// screen crawl).
const MAX_NODES: usize = 400;

type Obj = Map<String, Value>;

pub(super) struct Builder<'a> {
    root: &'a Value,
    nodes: usize,
}

/// A JSON pointer segment (RFC 6901).
pub(crate) fn escape_key(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `path` for a person: the root is `(root)`.
pub(crate) fn shown_path(path: &str) -> &str {
    if path.is_empty() { "(root)" } else { path }
}

impl<'a> Builder<'a> {
    pub(super) fn new(root: &'a Value) -> Self {
        Builder { root, nodes: 0 }
    }

    /// The root's fields: one per property, in the schema's order.
    pub(super) fn root_fields(&mut self) -> Result<Vec<Node>, String> {
        let mut chain = vec!["#".to_string()];
        let (m, refs) = self.flatten(self.root, &chain, "")?;
        chain.extend(refs);
        let m = self.settle(m, &mut chain, "")?.0;
        if let Some(t) = main_type(&m)
            && t != "object"
        {
            return Err(format!("the arguments are a {t}, not an object"));
        }
        if m.contains_key("patternProperties") {
            return Err("it uses patternProperties (names by pattern)".into());
        }
        let props = m.get("properties").and_then(Value::as_object);
        // `{"type": "object"}` alone is how tools without arguments say so:
        // an empty form. An explicit `additionalProperties` asks for names
        // the form cannot know.
        if props.is_none_or(|p| p.is_empty())
            && m.contains_key("additionalProperties")
            && open_ended(&m)
        {
            return Err("it declares no properties and takes any (additionalProperties)".into());
        }
        self.fields(&m, &mut chain, "", 0, true)
    }

    /// The fields of an object schema, in `properties` order. `present`:
    /// the object is always sent (the root, a required group, an item).
    fn fields(
        &mut self,
        m: &Obj,
        chain: &mut Vec<String>,
        path: &str,
        depth: usize,
        present: bool,
    ) -> Result<Vec<Node>, String> {
        let required: Vec<&str> = match m.get("required") {
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let empty = Obj::new();
        let props = m
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        if let Some(missing) = required.iter().find(|r| !props.contains_key(**r)) {
            return Err(format!(
                "{}: requires {missing:?}, which it does not describe",
                shown_path(path)
            ));
        }
        props
            .iter()
            .map(|(k, v)| {
                let here = format!("{path}/{}", escape_key(k));
                let req = required.contains(&k.as_str());
                self.node(k, v, req, present, &here, chain, depth + 1)
            })
            .collect()
    }

    /// One property (or an array's item, with `key` empty); `present`:
    /// its parent is always sent.
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        key: &str,
        schema: &Value,
        required: bool,
        present: bool,
        path: &str,
        chain: &mut Vec<String>,
        depth: usize,
    ) -> Result<Node, String> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(format!(
                "it is too large for a form (more than {MAX_NODES} fields)"
            ));
        }
        if depth > MAX_DEPTH {
            return Err(format!("{path}: nested too deep for a form"));
        }
        let base = chain.len();
        let (m, refs) = self.flatten(schema, chain, path)?;
        chain.extend(refs);
        let (m, nullable, mixed) = self.settle(m, chain, path)?;
        let present = present && required;
        let node = self.node_of(
            key, m, required, nullable, mixed, present, path, chain, depth,
        );
        chain.truncate(base);
        node
    }

    #[allow(clippy::too_many_arguments)]
    fn node_of(
        &mut self,
        key: &str,
        m: Obj,
        required: bool,
        nullable: bool,
        mixed: bool,
        present: bool,
        path: &str,
        chain: &mut Vec<String>,
        depth: usize,
    ) -> Result<Node, String> {
        if m.contains_key("patternProperties") {
            return Err(format!("{path}: uses patternProperties (names by pattern)"));
        }
        let types = declared_types(&m);
        let nullable = nullable || types.contains(&"null");
        let concrete: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
        let as_value = Value::Object(m.clone());
        let mut hint = Vec::new();
        let kind = if let Some(options) = options(&as_value) {
            Kind::Choice { options, sel: None }
        } else if let Some(c) = m.get("const") {
            Kind::Choice {
                options: vec![Choice {
                    value: c.clone(),
                    label: crate::tui::ask::label_of(c),
                }],
                sel: None,
            }
        } else if mixed || concrete.len() > 1 {
            let words = if concrete.len() > 1 {
                concrete.join(" or ")
            } else {
                "one of several types".into()
            };
            hint.push(format!("JSON: {words}"));
            json_kind()
        } else {
            match concrete.first().copied().or_else(|| infer_type(&m)) {
                Some("string") => {
                    let format = text_of(m.get("format"));
                    hint.extend(format.clone());
                    hint.extend(
                        range(&m, "minLength", "maxLength", false)
                            .map(|r| format!("{r} characters")),
                    );
                    if let Some(p) = m.get("pattern").and_then(Value::as_str) {
                        hint.push(format!("pattern {p}"));
                    }
                    Kind::Text {
                        line: LineEdit::default(),
                        format,
                    }
                }
                Some(t @ ("number" | "integer")) => {
                    let integer = t == "integer";
                    hint.push(if integer { "whole number" } else { "number" }.into());
                    hint.extend(range(&m, "minimum", "maximum", true));
                    if let Some(x) = m.get("multipleOf").and_then(Value::as_f64) {
                        hint.push(format!("multiple of {}", fmt_num(x)));
                    }
                    Kind::Number {
                        line: LineEdit::default(),
                        integer,
                    }
                }
                Some("boolean") => Kind::Bool(None),
                Some("object") => {
                    let props = m.get("properties").and_then(Value::as_object);
                    if props.is_none_or(|p| p.is_empty()) {
                        if open_ended(&m) && m.contains_key("additionalProperties") {
                            return Err(format!(
                                "{path}: declares no properties and takes any (additionalProperties)"
                            ));
                        }
                        // A free-form object: typed as JSON.
                        hint.push("JSON object".into());
                        json_kind()
                    } else {
                        let fields = self.fields(&m, chain, path, depth, present)?;
                        Kind::Object { fields }
                    }
                }
                Some("array") => {
                    let tuple = m.contains_key("prefixItems")
                        || m.get("items").is_some_and(Value::is_array);
                    if tuple {
                        hint.push("JSON array (a tuple)".into());
                        json_kind()
                    } else {
                        let items = m.get("items").cloned().unwrap_or(Value::Bool(true));
                        // An item is sent once added: its defaults are in.
                        let here = format!("{path}/-");
                        let proto = self.node("", &items, true, true, &here, chain, depth + 1)?;
                        hint.push(format!("list of {}", kind_word(&proto)));
                        hint.extend(
                            range(&m, "minItems", "maxItems", false).map(|r| format!("{r} items")),
                        );
                        Kind::Array {
                            items: Vec::new(),
                            proto: Box::new(proto),
                        }
                    }
                }
                _ => {
                    hint.push("JSON".into());
                    json_kind()
                }
            }
        };
        let default = m.get("default").cloned();
        let example = m
            .get("examples")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
            .or_else(|| m.get("example"))
            .cloned();
        let mut node = Node {
            key: key.to_string(),
            title: text_of(m.get("title")),
            description: text_of(m.get("description")),
            required,
            nullable,
            default,
            example,
            hint: hint.join(", "),
            kind,
        };
        // A field that is always sent starts with its default; any other
        // shows it as a placeholder.
        // Selected, so the first key typed replaces it.
        if present
            && let Some(d) = node.default.clone()
            && node.load(&d, path).is_ok()
        {
            node.select_lines();
        }
        Ok(node)
    }

    /// `schema` with its `$ref`s and `allOf` parts merged in (its own
    /// keywords first), and the references followed.
    fn flatten(
        &self,
        schema: &Value,
        chain: &[String],
        path: &str,
    ) -> Result<(Obj, Vec<String>), String> {
        let mut out = Obj::new();
        let mut refs = Vec::new();
        let mut seen = chain.to_vec();
        self.flatten_into(schema, &mut out, &mut refs, &mut seen, path, 0)?;
        Ok((out, refs))
    }

    fn flatten_into(
        &self,
        schema: &Value,
        out: &mut Obj,
        refs: &mut Vec<String>,
        seen: &mut Vec<String>,
        path: &str,
        depth: usize,
    ) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("{}: references nested too deep", shown_path(path)));
        }
        let map = match schema {
            Value::Object(m) => m,
            // `true`: anything; `false`: nothing (left to the validator).
            _ => return Ok(()),
        };
        for (k, v) in map {
            if !matches!(k.as_str(), "$ref" | "allOf" | "$defs" | "definitions") {
                merge_key(out, k, v);
            }
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let Some((key, target)) = self.resolve(reference) else {
                return Err(format!(
                    "{}: a $ref the form cannot follow ({reference})",
                    shown_path(path)
                ));
            };
            if seen.contains(&key) {
                return Err(format!(
                    "{}: a $ref cycle ({reference} refers back to itself)",
                    shown_path(path)
                ));
            }
            refs.push(key.clone());
            seen.push(key);
            self.flatten_into(target, out, refs, seen, path, depth + 1)?;
            seen.pop();
        }
        if let Some(parts) = map.get("allOf").and_then(Value::as_array) {
            for part in parts {
                self.flatten_into(part, out, refs, seen, path, depth + 1)?;
            }
        }
        Ok(())
    }

    /// Fold `anyOf`/`oneOf`: const alternatives stay (a choice); a null
    /// alternative makes the field nullable; a single other alternative is
    /// merged in; scalar alternatives make a JSON field (`mixed`); object
    /// alternatives cannot be shown.
    fn settle(
        &self,
        mut m: Obj,
        chain: &mut Vec<String>,
        path: &str,
    ) -> Result<(Obj, bool, bool), String> {
        let mut nullable = false;
        let mut mixed = false;
        for _ in 0..MAX_DEPTH {
            if options(&Value::Object(m.clone())).is_some() {
                break;
            }
            let (word, alternatives) = match (m.remove("anyOf"), m.remove("oneOf")) {
                (Some(a), other) => {
                    if let Some(o) = other {
                        m.insert("oneOf".into(), o);
                    }
                    ("anyOf", a)
                }
                (None, Some(o)) => ("oneOf", o),
                (None, None) => break,
            };
            let Value::Array(alternatives) = alternatives else {
                continue;
            };
            let mut flats = Vec::new();
            for a in &alternatives {
                flats.push(self.flatten(a, chain, path)?);
            }
            let (nulls, rest): (Vec<_>, Vec<_>) =
                flats.into_iter().partition(|(f, _)| is_null_only(f));
            nullable |= !nulls.is_empty();
            // One object and null is a nullable object; a choice between
            // object shapes is not something a form shows.
            if rest.len() > 1
                && rest
                    .iter()
                    .any(|(f, _)| main_type(f) == Some("object") || f.contains_key("properties"))
            {
                return Err(format!(
                    "{}: {word} with object alternatives",
                    shown_path(path)
                ));
            }
            match rest.len() {
                0 => {}
                1 => {
                    let (alt, refs) = rest.into_iter().next().unwrap_or_default();
                    chain.extend(refs);
                    for (k, v) in &alt {
                        merge_key(&mut m, k, v);
                    }
                }
                _ => {
                    // Alternatives that are all consts or enums of one type
                    // are still a choice.
                    let values: Option<Vec<Value>> = rest
                        .iter()
                        .map(|(f, _)| {
                            f.get("const")
                                .map(|c| vec![c.clone()])
                                .or_else(|| f.get("enum").and_then(Value::as_array).cloned())
                        })
                        .collect::<Option<Vec<_>>>()
                        .map(|v| v.concat());
                    match values {
                        Some(v) if !v.is_empty() => {
                            m.insert("enum".into(), Value::Array(v));
                        }
                        _ => {
                            let types: Vec<String> = rest
                                .iter()
                                .filter_map(|(f, _)| main_type(f).map(str::to_string))
                                .collect();
                            if !types.is_empty() && !m.contains_key("type") {
                                let mut t = types;
                                t.dedup();
                                m.insert("type".into(), Value::from(t));
                            }
                            mixed = true;
                        }
                    }
                }
            }
        }
        Ok((m, nullable, mixed))
    }

    /// A local reference: its key on a chain and its target.
    fn resolve(&self, reference: &str) -> Option<(String, &'a Value)> {
        let (base, fragment) = reference.split_once('#')?;
        if !base.is_empty() && self.root.get("$id").and_then(Value::as_str) != Some(base) {
            return None;
        }
        let pointer = crate::text::percent_decode(fragment);
        if pointer.is_empty() {
            return Some(("#".to_string(), self.root));
        }
        if !pointer.starts_with('/') {
            return None;
        }
        Some((format!("#{pointer}"), self.root.pointer(&pointer)?))
    }
}

fn json_kind() -> Kind {
    Kind::Json {
        line: LineEdit::default(),
    }
}

/// What an item is, in a word: `string`, `object`, `choice`.
fn kind_word(n: &Node) -> &'static str {
    match &n.kind {
        Kind::Text { .. } => "text",
        Kind::Number { integer: true, .. } => "whole numbers",
        Kind::Number { .. } => "numbers",
        Kind::Bool(_) => "yes/no",
        Kind::Choice { .. } => "choices",
        Kind::Json { .. } => "JSON values",
        Kind::Object { .. } => "objects",
        Kind::Array { .. } => "lists",
    }
}

/// `1 to 100`, `≥ 1`, `> 0` (exclusive bounds with numbers); counts in
/// words (`at least 3`). Zod's `Number.MAX_SAFE_INTEGER` bounds are none.
fn range(m: &Obj, lo: &str, hi: &str, numbers: bool) -> Option<String> {
    let f = |k: &str| m.get(k).and_then(Value::as_f64);
    let (mut min, mut max) = (f(lo).map(|v| (v, false)), f(hi).map(|v| (v, false)));
    if numbers {
        // 2019+: numbers; draft-04: booleans on minimum/maximum.
        if let Some(v) = f("exclusiveMinimum") {
            min = Some((v, true));
        } else if m.get("exclusiveMinimum") == Some(&Value::Bool(true)) {
            min = min.map(|(v, _)| (v, true));
        }
        if let Some(v) = f("exclusiveMaximum") {
            max = Some((v, true));
        } else if m.get("exclusiveMaximum") == Some(&Value::Bool(true)) {
            max = max.map(|(v, _)| (v, true));
        }
    }
    crate::tui::ask::bounds_ex(min, max, !numbers)
}

/// The first declared type that is not null, else one guessed from the
/// keywords present.
fn main_type(m: &Obj) -> Option<&str> {
    declared_types(m)
        .into_iter()
        .find(|t| *t != "null")
        .or_else(|| infer_type(m))
}

/// Whether an object schema takes properties it does not name:
/// `additionalProperties` absent, `true` or a schema.
fn open_ended(m: &Obj) -> bool {
    !matches!(m.get("additionalProperties"), Some(Value::Bool(false)))
}
