//! [`rows`]: a schema flattened into rows for a person to read.

use serde_json::Value;

use super::walk::{
    ROOT_KEY, Walker, declared_types, direct_ref, infer_type, main_type, ref_name, required_names,
};
use super::{DETAIL_MAX, ENUM_TY_MAX, MAX_DEPTH, MAX_ROWS, Obj};

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

impl Walker<'_> {
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
