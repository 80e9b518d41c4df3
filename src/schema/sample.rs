//! [`arguments`]: arguments worth sending to a tool that nobody described,
//! for the smoke test (and any later batch or load mode).
//!
//! Where [`skeleton`](super::skeleton) gives a person something to edit,
//! this tries to give the server something it will accept, and says where
//! each argument came from. Per schema node, in this order:
//! 1. the caller's own value (`--args`, `--args-file`), top level only;
//! 2. the schema's `default`, then its `examples` (or `example`), its
//!    `const`, then its first `enum` value, each only if it validates;
//! 3. a value quoted in the `description` after "e.g.", "for example" or
//!    "such as" (`"IANA timezone (e.g., 'America/New_York')"`), if it
//!    validates;
//! 4. a value that satisfies the schema: a `format` (date-time, date, time,
//!    email, uri, uuid, ipv4, ipv6, hostname, …), a `pattern` (strings
//!    generated from the regex, with a fixed seed so runs repeat),
//!    `minLength`/`maxLength`, `minimum`/`maximum`/`exclusive*`/
//!    `multipleOf`, arrays with `minItems` (distinct items under
//!    `uniqueItems`), nested required objects, and for `oneOf`/`anyOf` the
//!    first branch whose value validates.
//!
//! The whole result is validated against the schema (formats included)
//! before it is returned; a schema this cannot satisfy is an error that
//! says why, never a call with arguments that were bound to fail.

use std::cell::RefCell;

use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::{Map, Value, json};

use super::skeleton::{integer_skeleton, length_bounds, number_skeleton};
use super::walk::{ROOT_KEY, Walker, infer_type, main_type, merge_key, required_names};
use super::{MAX_DEPTH, MAX_ITEMS, Obj, Violation};

/// Where an argument's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The caller's own (`--args`, `--args-file`).
    Given,
    Default,
    Example,
    Const,
    Enum,
    /// Quoted in the description after "e.g.", "for example", "such as".
    Description,
    /// Made to satisfy a `format`.
    Format,
    /// Generated from a `pattern`.
    Pattern,
    /// A plain string guessed from the parameter's name (`repo_path`: `.`).
    Name,
    /// Made from the type and its bounds.
    Schema,
}

impl Source {
    pub fn label(self) -> &'static str {
        match self {
            Source::Given => "given",
            Source::Default => "default",
            Source::Example => "examples",
            Source::Const => "const",
            Source::Enum => "enum",
            Source::Description => "description",
            Source::Format => "format",
            Source::Pattern => "pattern",
            Source::Name => "name",
            Source::Schema => "schema",
        }
    }
}

/// Arguments for a tool, and where each top-level one came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Arguments {
    /// Always a JSON object.
    pub value: Value,
    /// Each top-level argument's name and source, in the object's order.
    pub sources: Vec<(String, Source)>,
    /// The result does not satisfy the schema (only possible when the
    /// caller gave values of their own: those are sent as given).
    pub violations: Vec<Violation>,
}

/// Why no arguments could be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SampleError {
    #[error("the inputSchema is not valid JSON Schema: {0}")]
    BrokenSchema(String),
    #[error("the inputSchema does not describe an object")]
    NotAnObject,
    #[error("{}", describe(.0))]
    Unsatisfied(Vec<Violation>),
}

fn describe(v: &[Violation]) -> String {
    let mut s = v
        .iter()
        .take(3)
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    if v.len() > 3 {
        s.push_str(&format!("; and {} more", v.len() - 3));
    }
    s
}

/// Arguments for a tool whose `inputSchema` is `schema`, starting from the
/// caller's `given` values (kept as they are; only missing required
/// properties are made). See the module docs for the order of sources.
pub fn arguments(schema: &Value, given: &Map<String, Value>) -> Result<Arguments, SampleError> {
    let root_validator = validator(schema).map_err(SampleError::BrokenSchema)?;
    let sampler = Sampler::new(schema);
    let mut chain = vec![ROOT_KEY.to_string()];
    let mut flat = sampler.walker.flatten(schema, &chain);
    chain.extend(flat.refs.iter().cloned());
    sampler.walker.settle_alternatives(&mut flat, &chain);
    let m = &flat.map;
    match main_type(m).or_else(|| infer_type(m)) {
        Some("object") | None => {}
        Some(_) => return Err(SampleError::NotAnObject),
    }
    let mut out = Obj::new();
    let mut sources = Vec::new();
    for (k, v) in given {
        out.insert(k.clone(), v.clone());
        sources.push((k.clone(), Source::Given));
    }
    sampler.fill_object(m, &mut out, &mut sources, 0, &mut chain);
    let value = Value::Object(out);
    let violations: Vec<Violation> = root_validator
        .iter_errors(&value)
        .map(|e| Violation {
            path: e.instance_path().to_string(),
            message: e.to_string(),
        })
        .collect();
    if !violations.is_empty() && given.is_empty() {
        return Err(SampleError::Unsatisfied(violations));
    }
    Ok(Arguments {
        value,
        sources,
        violations,
    })
}

/// A validator that also checks `format`.
fn validator(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| e.to_string())
}

struct Sampler<'a> {
    walker: Walker<'a>,
    root: &'a Value,
    /// A fixed seed: the same schema gives the same arguments on every run.
    rng: RefCell<StdRng>,
    /// The property names from the root down to the value being made.
    names: RefCell<Vec<String>>,
}

impl<'a> Sampler<'a> {
    fn new(root: &'a Value) -> Self {
        Sampler {
            walker: Walker::new(root),
            root,
            rng: RefCell::new(StdRng::seed_from_u64(0x6d63_7064_6563_6b21)),
            names: RefCell::new(Vec::new()),
        }
    }

    /// Whether `value` satisfies the (flattened) node `m`, whose local
    /// references still resolve against the root's definitions. A node
    /// that cannot be compiled on its own counts as satisfied: the final
    /// check against the whole schema has the last word.
    fn fits(&self, m: &Obj, value: &Value) -> bool {
        let mut node = m.clone();
        if let Some(root) = self.root.as_object() {
            for key in ["$defs", "definitions", "$id", "$schema"] {
                if let Some(v) = root.get(key)
                    && !node.contains_key(key)
                {
                    node.insert(key.to_string(), v.clone());
                }
            }
        }
        validator(&Value::Object(node)).map_or(true, |v| v.is_valid(value))
    }

    /// A value for `schema`, and where it came from. `variant` > 0 asks for
    /// a value different from variant 0 where the schema allows one (for
    /// `uniqueItems`).
    fn value(
        &self,
        schema: &Value,
        depth: usize,
        chain: &mut Vec<String>,
        variant: usize,
    ) -> Option<(Value, Source)> {
        if depth > MAX_DEPTH || !self.walker.spend() {
            return None;
        }
        let flat = self.walker.flatten(schema, chain);
        if flat.only_recursive() {
            return None;
        }
        let m = &flat.map;
        let before = chain.len();
        chain.extend(flat.refs.iter().cloned());
        let found = self
            .declared(m, variant)
            .or_else(|| self.described(m))
            .or_else(|| self.alternatives(m, depth, chain, variant))
            .or_else(|| self.typed(m, depth, chain, variant));
        chain.truncate(before);
        found
    }

    /// `default`, `examples`/`example`, `const`, `enum`: the first that
    /// validates (the `variant`-th enum value first, for distinct items).
    fn declared(&self, m: &Obj, variant: usize) -> Option<(Value, Source)> {
        let mut candidates: Vec<(&Value, Source)> = Vec::new();
        if variant == 0 {
            if let Some(v) = m.get("default") {
                candidates.push((v, Source::Default));
            }
            if let Some(Value::Array(ex)) = m.get("examples") {
                candidates.extend(ex.iter().map(|v| (v, Source::Example)));
            }
            if let Some(v) = m.get("example") {
                candidates.push((v, Source::Example));
            }
        }
        if let Some(v) = m.get("const") {
            candidates.push((v, Source::Const));
        }
        if let Some(Value::Array(values)) = m.get("enum")
            && !values.is_empty()
        {
            let start = variant % values.len();
            candidates.extend(
                values[start..]
                    .iter()
                    .chain(&values[..start])
                    .map(|v| (v, Source::Enum)),
            );
        }
        candidates
            .into_iter()
            .find(|(v, _)| self.fits(m, v))
            .map(|(v, s)| (v.clone(), s))
    }

    /// A value quoted in the description, typed by the schema.
    fn described(&self, m: &Obj) -> Option<(Value, Source)> {
        let text = m.get("description").and_then(Value::as_str)?;
        let ty = main_type(m).or_else(|| infer_type(m));
        description_examples(text)
            .into_iter()
            .chain(quoted_words(text))
            .filter_map(|raw| typed_literal(&raw, ty))
            .find(|v| self.fits(m, v))
            .map(|v| (v, Source::Description))
    }

    /// For `anyOf`/`oneOf`: the first alternative whose value validates
    /// against the whole node.
    fn alternatives(
        &self,
        m: &Obj,
        depth: usize,
        chain: &mut Vec<String>,
        variant: usize,
    ) -> Option<(Value, Source)> {
        let key = ["oneOf", "anyOf"]
            .into_iter()
            .find(|k| m.contains_key(*k))?;
        let Some(Value::Array(alternatives)) = m.get(key) else {
            return None;
        };
        let mut base = m.clone();
        base.remove(key);
        for alt in alternatives {
            let flat = self.walker.flatten(alt, chain);
            if flat.only_recursive() {
                continue;
            }
            let mut merged = base.clone();
            for (k, v) in &flat.map {
                merge_key(&mut merged, k, v);
            }
            let before = chain.len();
            chain.extend(flat.refs.iter().cloned());
            let found = self
                .declared(&merged, variant)
                .or_else(|| self.alternatives(&merged, depth + 1, chain, variant))
                .or_else(|| self.typed(&merged, depth + 1, chain, variant));
            chain.truncate(before);
            if let Some((v, s)) = found
                && self.fits(m, &v)
            {
                return Some((v, s));
            }
        }
        None
    }

    /// A value of the node's type that meets its constraints.
    fn typed(
        &self,
        m: &Obj,
        depth: usize,
        chain: &mut Vec<String>,
        variant: usize,
    ) -> Option<(Value, Source)> {
        let ty = main_type(m).or_else(|| infer_type(m));
        let schema = |v: Value| Some((v, Source::Schema));
        match ty {
            Some("object") => {
                let mut out = Obj::new();
                let mut sources = Vec::new();
                self.fill_object(m, &mut out, &mut sources, depth, chain);
                schema(Value::Object(out))
            }
            Some("array") => schema(self.array(m, depth, chain)),
            Some("string") => self.string(m, variant),
            Some("integer") => schema(vary_number(m, integer_skeleton(m), variant)),
            Some("number") => schema(vary_number(m, number_skeleton(m), variant)),
            Some("boolean") => schema(Value::Bool(variant % 2 == 1)),
            Some("null") => schema(Value::Null),
            _ => None,
        }
    }

    /// Add every required property missing from `out` (and enough others
    /// for `minProperties`, and those `dependentRequired` asks for).
    fn fill_object(
        &self,
        m: &Obj,
        out: &mut Obj,
        sources: &mut Vec<(String, Source)>,
        depth: usize,
        chain: &mut Vec<String>,
    ) {
        let props = m.get("properties").and_then(Value::as_object);
        let mut wanted: Vec<String> = required_names(m).into_iter().map(String::from).collect();
        let min = m.get("minProperties").and_then(Value::as_u64).unwrap_or(0) as usize;
        let mut i = 0;
        while i < wanted.len() || (out.len() < min && i < wanted.len() + 1) {
            if i == wanted.len() {
                // Top up for minProperties with the next unused property.
                let Some(next) = props
                    .into_iter()
                    .flatten()
                    .map(|(k, _)| k)
                    .find(|k| !out.contains_key(*k) && !wanted.contains(k))
                else {
                    break;
                };
                wanted.push(next.clone());
            }
            let name = wanted[i].clone();
            i += 1;
            if !out.contains_key(&name) {
                let sub = props
                    .and_then(|p| p.get(&name))
                    .or_else(|| m.get("additionalProperties").filter(|a| a.is_object()));
                self.names.borrow_mut().push(name.clone());
                let (value, source) = match sub {
                    Some(sub) => self
                        .value(sub, depth + 1, chain, 0)
                        .unwrap_or((Value::Null, Source::Schema)),
                    None => (Value::Null, Source::Schema),
                };
                self.names.borrow_mut().pop();
                out.insert(name.clone(), value);
                sources.push((name.clone(), source));
            }
            if let Some(Value::Array(deps)) = m.get("dependentRequired").and_then(|d| d.get(&name))
            {
                for d in deps.iter().filter_map(Value::as_str) {
                    if !wanted.iter().any(|w| w == d) {
                        wanted.push(d.to_string());
                    }
                }
            }
        }
    }

    fn array(&self, m: &Obj, depth: usize, chain: &mut Vec<String>) -> Value {
        let (prefix, rest) = match (m.get("prefixItems"), m.get("items")) {
            (Some(Value::Array(p)), rest) => (p.as_slice(), rest),
            (_, Some(Value::Array(p))) => (p.as_slice(), m.get("additionalItems")),
            (_, rest) => (&[][..], rest),
        };
        let contains = m.get("contains").filter(|c| c.is_object());
        let min_contains = match contains {
            Some(_) => m.get("minContains").and_then(Value::as_u64).unwrap_or(1),
            None => 0,
        };
        let count = m
            .get("minItems")
            .and_then(Value::as_u64)
            .unwrap_or(0)
            .max(min_contains)
            .min(MAX_ITEMS) as usize;
        let unique = m.get("uniqueItems").and_then(Value::as_bool) == Some(true);
        let mut items = Vec::with_capacity(count);
        for i in 0..count {
            let sub = match (prefix.get(i), contains) {
                (Some(s), _) => Some(s),
                (None, Some(c)) if (i as u64) < min_contains.max(1) => Some(c),
                (None, _) => rest.filter(|r| r.is_object()),
            };
            let variant = if unique { i } else { 0 };
            let v = sub
                .and_then(|s| self.value(s, depth + 1, chain, variant))
                .map_or(Value::Null, |(v, _)| v);
            items.push(v);
        }
        Value::Array(items)
    }

    fn string(&self, m: &Obj, variant: usize) -> Option<(Value, Source)> {
        let (min, max) = length_bounds(m);
        let fits_len = |s: &str| {
            let n = s.chars().count();
            n >= min && max.is_none_or(|max| n <= max)
        };
        let suffix = if variant == 0 {
            String::new()
        } else {
            variant.to_string()
        };
        if let Some(format) = m.get("format").and_then(Value::as_str)
            && let Some(v) = format_value(format, variant)
            && fits_len(&v)
        {
            return Some((Value::String(v), Source::Format));
        }
        if let Some(pattern) = m.get("pattern").and_then(Value::as_str) {
            return self
                .patterned(m, pattern, min, max, variant)
                .map(|s| (Value::String(s), Source::Pattern));
        }
        let named = self.names.borrow().last().and_then(|n| by_name(n));
        let (mut s, source) = match named {
            Some(guess) if fits_len(guess) && variant == 0 => (guess.to_string(), Source::Name),
            _ => (format!("x{suffix}"), Source::Schema),
        };
        let len = s.chars().count();
        if len < min {
            s.extend(std::iter::repeat_n('x', min - len));
        }
        if let Some(max) = max {
            s = s.chars().take(max).collect();
        }
        Some((Value::String(s), source))
    }

    /// A string that matches `pattern` and the length limits: generated
    /// from the regex (anchors dropped, classes kept to printable ASCII
    /// where they allow it), checked with the validator's own engine.
    fn patterned(
        &self,
        m: &Obj,
        pattern: &str,
        min: usize,
        max: Option<usize>,
        variant: usize,
    ) -> Option<String> {
        let mut probe = Obj::new();
        for key in ["pattern", "minLength", "maxLength", "format"] {
            if let Some(v) = m.get(key) {
                probe.insert(key.to_string(), v.clone());
            }
        }
        let check = validator(&Value::Object(probe)).ok()?;
        let ok = |s: &str| check.is_valid(&Value::String(s.to_string()));
        let generator = pattern_generator(pattern, max.unwrap_or(32).max(min) as u32)?;
        let mut rng = self.rng.borrow_mut();
        let mut seen = 0;
        for _ in 0..256 {
            let s: String = rand::RngExt::sample(&mut *rng, &generator);
            if ok(&s) {
                if seen == variant {
                    return Some(s);
                }
                seen += 1;
            }
        }
        None
    }
}

/// A generator for strings that match `pattern`: `^`/`$` and other
/// assertions are dropped (a generated string is the whole subject, so
/// leading and trailing anchors hold), and each character class is narrowed
/// to printable ASCII when it has any.
fn pattern_generator(pattern: &str, max_repeat: u32) -> Option<rand_regex::Regex> {
    use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Repetition};
    fn tame(h: Hir) -> Hir {
        match h.into_kind() {
            HirKind::Look(_) => Hir::empty(),
            HirKind::Class(Class::Unicode(c)) => {
                let mut ascii = ClassUnicode::new([ClassUnicodeRange::new(' ', '~')]);
                ascii.intersect(&c);
                Hir::class(Class::Unicode(if ascii.ranges().is_empty() {
                    c
                } else {
                    ascii
                }))
            }
            HirKind::Repetition(r) => Hir::repetition(Repetition {
                sub: Box::new(tame(*r.sub)),
                ..r
            }),
            HirKind::Capture(c) => tame(*c.sub),
            HirKind::Concat(hs) => Hir::concat(hs.into_iter().map(tame).collect()),
            HirKind::Alternation(hs) => Hir::alternation(hs.into_iter().map(tame).collect()),
            HirKind::Class(c) => Hir::class(c),
            HirKind::Literal(l) => Hir::literal(l.0),
            HirKind::Empty => Hir::empty(),
        }
    }
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    rand_regex::Regex::with_hir(tame(hir), max_repeat.min(64)).ok()
}

/// A plain string worth trying for a parameter called `name`, when its
/// schema says nothing more: the current directory for a path, `HEAD` for a
/// revision, a word for free text.
fn by_name(name: &str) -> Option<&'static str> {
    let n = name.to_ascii_lowercase().replace('-', "_");
    let last = n.rsplit('_').next().unwrap_or(&n);
    let ends = |words: &[&str]| words.contains(&last) || words.contains(&n.as_str());
    Some(
        if ends(&["path", "dir", "directory", "folder", "cwd", "root"]) {
            "."
        } else if ends(&["url", "uri", "endpoint", "href", "link"]) {
            "https://example.com/"
        } else if ends(&["email", "mail"]) {
            "user@example.com"
        } else if ends(&["timezone", "tz"]) {
            "UTC"
        } else if ends(&["lang", "language", "locale"]) {
            "en"
        } else if ends(&["revision", "rev", "ref", "commit", "sha"]) {
            "HEAD"
        } else if ends(&["date"]) {
            "2026-01-01"
        } else if ends(&["time"]) {
            "12:00"
        } else if ends(&[
            "query", "q", "search", "text", "message", "msg", "prompt", "content", "input", "term",
            "keyword", "keywords",
        ]) {
            "test"
        } else if ends(&["name", "title", "label", "id", "key"]) {
            "example"
        } else {
            return None;
        },
    )
}

/// A value for a `format` the validator checks (`None` for other formats).
fn format_value(format: &str, variant: usize) -> Option<String> {
    let n = variant % 10;
    Some(match format {
        "date-time" => format!("2026-01-0{}T12:00:00Z", n.max(1)),
        "date" => format!("2026-01-0{}", n.max(1)),
        "time" => format!("12:00:0{n}Z"),
        "duration" => format!("PT{}S", n + 1),
        "email" | "idn-email" => format!("user{}@example.com", suffix(variant)),
        "uri" | "iri" | "url" => format!("https://example.com/{}", suffix(variant)),
        "uri-reference" | "iri-reference" => format!("/example{}", suffix(variant)),
        "uri-template" => "https://example.com/{id}".to_string(),
        "uuid" => format!("00000000-0000-4000-8000-{:012}", variant),
        "hostname" | "idn-hostname" => format!("host{}.example.com", suffix(variant)),
        "ipv4" => format!("192.0.2.{}", (variant % 250) + 1),
        "ipv6" => format!("2001:db8::{:x}", variant + 1),
        "json-pointer" => format!("/example{}", suffix(variant)),
        "relative-json-pointer" => format!("{n}"),
        "regex" => ".*".to_string(),
        _ => return None,
    })
}

fn suffix(variant: usize) -> String {
    if variant == 0 {
        String::new()
    } else {
        variant.to_string()
    }
}

/// Move a number by `variant` steps (of `multipleOf`, else 1) while it
/// stays within its bounds, so that distinct items stay distinct.
fn vary_number(m: &Obj, base: Value, variant: usize) -> Value {
    if variant == 0 {
        return base;
    }
    let Some(b) = base.as_f64() else {
        return base;
    };
    let step = m
        .get("multipleOf")
        .and_then(Value::as_f64)
        .filter(|s| *s > 0.0)
        .unwrap_or(1.0);
    let within = |v: f64| {
        let lo_ok = m
            .get("minimum")
            .and_then(Value::as_f64)
            .is_none_or(|l| v >= l)
            && m.get("exclusiveMinimum")
                .and_then(Value::as_f64)
                .is_none_or(|l| v > l);
        let hi_ok = m
            .get("maximum")
            .and_then(Value::as_f64)
            .is_none_or(|h| v <= h)
            && m.get("exclusiveMaximum")
                .and_then(Value::as_f64)
                .is_none_or(|h| v < h);
        lo_ok && hi_ok
    };
    let up = b + step * variant as f64;
    let down = b - step * variant as f64;
    let v = if within(up) {
        up
    } else if within(down) {
        down
    } else {
        return base;
    };
    if base.is_i64() || base.is_u64() {
        json!(v as i64)
    } else {
        serde_json::Number::from_f64(v).map_or(base, Value::Number)
    }
}

/// Values quoted in a description after "e.g.", "for example" or "such
/// as", in order: each quoted string ('…', "…", `…`, ‘…’, “…”) that
/// follows the marker, or else the word right after it.
pub fn description_examples(text: &str) -> Vec<String> {
    const MARKERS: [&str; 5] = ["e.g.", "e.g", "for example", "such as", "eg."];
    let lower = text.to_lowercase();
    // Lowercasing can change byte offsets outside ASCII: only trust
    // positions where the two strings still line up.
    if lower.len() != text.len() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut from = 0;
    while from < lower.len() {
        let Some((at, marker)) = MARKERS
            .iter()
            .filter_map(|mk| lower[from..].find(mk).map(|i| (from + i, *mk)))
            .min_by_key(|(i, mk)| (*i, usize::MAX - mk.len()))
        else {
            break;
        };
        let mut rest = &text[at + marker.len()..];
        from = at + marker.len();
        rest = rest.trim_start_matches(|c: char| c == ',' || c == ':' || c.is_whitespace());
        let mut found_quoted = false;
        while let Some(open) = rest.chars().next() {
            let close = match open {
                '\'' => '\'',
                '"' => '"',
                '`' => '`',
                '‘' => '’',
                '“' => '”',
                _ => break,
            };
            let body = &rest[open.len_utf8()..];
            let Some(end) = body.find(close) else {
                break;
            };
            if end > 0 {
                out.push(body[..end].to_string());
                found_quoted = true;
            }
            rest = body[end + close.len_utf8()..]
                .trim_start_matches(|c: char| c == ',' || c == ';' || c.is_whitespace());
            if let Some(r) = rest
                .strip_prefix("or ")
                .or_else(|| rest.strip_prefix("and "))
            {
                rest = r.trim_start();
            }
        }
        if !found_quoted {
            let word: String = rest
                .chars()
                .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | ';' | ')' | ']'))
                .collect();
            let word = word.trim_end_matches(['.', ':']);
            if !word.is_empty() {
                out.push(word.to_string());
            }
        }
    }
    out
}

/// Short quoted words anywhere in a description (`'local'`, `"asc"`), a
/// last resort after the values marked as examples.
fn quoted_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(['\'', '"', '`']) {
        let quote = rest[open..].chars().next().unwrap_or('"');
        let body = &rest[open + 1..];
        let Some(end) = body.find(quote) else {
            break;
        };
        let word = &body[..end];
        if !word.is_empty() && word.len() <= 64 && !word.contains(char::is_whitespace) {
            out.push(word.to_string());
        }
        rest = &body[end + 1..];
    }
    out
}

/// A description's literal as a value of the schema's type.
fn typed_literal(raw: &str, ty: Option<&str>) -> Option<Value> {
    match ty {
        Some("string") | None => Some(Value::String(raw.to_string())),
        Some("integer") => raw.parse::<i64>().ok().map(Value::from),
        Some("number") => raw
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        Some("boolean") => raw.parse::<bool>().ok().map(Value::Bool),
        Some("array" | "object") => serde_json::from_str(raw).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(schema: Value) -> Arguments {
        arguments(&schema, &Map::new()).expect("arguments")
    }

    #[test]
    fn description_examples_are_found() {
        assert_eq!(
            description_examples(
                "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' otherwise."
            ),
            ["America/New_York", "Europe/London"]
        );
        assert_eq!(
            description_examples("A city, for example Paris."),
            ["Paris"]
        );
        assert_eq!(
            description_examples("Units such as \"metric\" or \"imperial\""),
            ["metric", "imperial"]
        );
        assert_eq!(description_examples("Count, e.g. 42"), ["42"]);
        assert!(description_examples("Nothing to see here").is_empty());
    }

    #[test]
    fn the_order_of_sources() {
        let a = args(json!({"type": "object", "properties": {
            "d": {"type": "string", "default": "dflt", "examples": ["ex"]},
            "e": {"type": "string", "examples": ["ex"], "enum": ["ex", "other"]},
            "c": {"const": 3},
            "n": {"enum": ["first", "second"]},
            "t": {"type": "string", "description": "IANA zone (e.g., 'America/New_York')"},
            "f": {"type": "string", "format": "email"},
            "p": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2}$"},
            "i": {"type": "integer", "minimum": 5, "multipleOf": 5},
            "opt": {"type": "string"}
        }, "required": ["d", "e", "c", "n", "t", "f", "p", "i"]}));
        let v = &a.value;
        assert_eq!(v["d"], "dflt");
        assert_eq!(v["e"], "ex");
        assert_eq!(v["c"], 3);
        assert_eq!(v["n"], "first");
        assert_eq!(v["t"], "America/New_York");
        assert_eq!(v["f"], "user@example.com");
        assert_eq!(v["i"], 5);
        assert!(v.get("opt").is_none(), "optional arguments are not sent");
        let p = v["p"].as_str().unwrap();
        assert_eq!(p.len(), 6, "{p}");
        let src: Vec<(&str, &str)> = a
            .sources
            .iter()
            .map(|(n, s)| (n.as_str(), s.label()))
            .collect();
        assert_eq!(
            src,
            [
                ("d", "default"),
                ("e", "examples"),
                ("c", "const"),
                ("n", "enum"),
                ("t", "description"),
                ("f", "format"),
                ("p", "pattern"),
                ("i", "schema")
            ]
        );
    }

    #[test]
    fn plain_strings_are_guessed_from_their_names() {
        let a = args(json!({"type": "object", "properties": {
            "repo_path": {"type": "string"},
            "message": {"type": "string"},
            "revision": {"type": "string"},
            "short": {"type": "string", "maxLength": 1},
            "other": {"type": "string"}
        }, "required": ["repo_path", "message", "revision", "short", "other"]}));
        assert_eq!(
            a.value,
            json!({"repo_path": ".", "message": "test", "revision": "HEAD", "short": "x", "other": "x"})
        );
        assert_eq!(a.sources[0].1, Source::Name);
        assert_eq!(a.sources[3].1, Source::Schema);
    }

    #[test]
    fn a_default_that_breaks_the_schema_is_not_used() {
        let a = args(json!({"type": "object", "properties": {
            "n": {"type": "integer", "default": "five", "minimum": 2}
        }, "required": ["n"]}));
        assert_eq!(a.value["n"], 2);
    }

    #[test]
    fn given_values_win_and_the_rest_is_made() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "integer", "minimum": 1}
        }, "required": ["a", "b"]});
        let mut given = Map::new();
        given.insert("a".into(), json!("mine"));
        let a = arguments(&schema, &given).unwrap();
        assert_eq!(a.value, json!({"a": "mine", "b": 1}));
        assert_eq!(a.sources[0], ("a".to_string(), Source::Given));
        // Given values that break the schema are kept, with the violations.
        given.insert("b".into(), json!("x"));
        let a = arguments(&schema, &given).unwrap();
        assert_eq!(a.value["b"], "x");
        assert_eq!(a.violations.len(), 1);
    }

    #[test]
    fn alternatives_take_the_first_branch_that_validates() {
        let a = args(json!({"type": "object", "properties": {
            "x": {"oneOf": [
                {"type": "string", "pattern": "^$", "minLength": 1},
                {"type": "integer", "minimum": 7}
            ]}
        }, "required": ["x"]}));
        assert_eq!(a.value["x"], 7);
    }

    #[test]
    fn nested_objects_and_arrays() {
        let a = args(json!({"type": "object", "properties": {
            "filter": {"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]},
                         "minItems": 2, "uniqueItems": true},
                "limit": {"$ref": "#/$defs/limit"}
            }, "required": ["tags", "limit"]}
        }, "required": ["filter"], "$defs": {"limit": {"type": "integer", "exclusiveMinimum": 0, "maximum": 10}}}));
        assert_eq!(a.value, json!({"filter": {"tags": ["a", "b"], "limit": 1}}));
    }

    #[test]
    fn an_impossible_schema_is_an_error() {
        let err = arguments(
            &json!({"type": "object", "properties": {"x": {"type": "string", "minLength": 5, "maxLength": 2}}, "required": ["x"]}),
            &Map::new(),
        )
        .unwrap_err();
        assert!(matches!(err, SampleError::Unsatisfied(_)), "{err}");
        assert!(err.to_string().contains("/x"), "{err}");
        let err = arguments(&json!({"type": "string"}), &Map::new()).unwrap_err();
        assert_eq!(err, SampleError::NotAnObject);
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        const FORMATS: [&str; 12] = [
            "date-time",
            "date",
            "time",
            "duration",
            "email",
            "uri",
            "uri-reference",
            "uuid",
            "ipv4",
            "ipv6",
            "hostname",
            "json-pointer",
        ];
        const PIECES: [&str; 10] = [
            "[a-z]{3}",
            "[0-9]{2,4}",
            "\\d+",
            "[A-Z][a-z]*",
            "-",
            "(foo|bar)",
            "_?",
            "[^\\s]{1,3}",
            "\\w{2}",
            "\\.",
        ];

        fn leaf() -> impl Strategy<Value = Value> {
            prop_oneof![
                (0..FORMATS.len()).prop_map(|i| json!({"type": "string", "format": FORMATS[i]})),
                (proptest::collection::vec(0..PIECES.len(), 1..5), any::<bool>()).prop_map(
                    |(ix, anchored)| {
                        let body: String = ix.iter().map(|i| PIECES[*i]).collect();
                        let p = if anchored { format!("^{body}$") } else { body };
                        json!({"type": "string", "pattern": p})
                    }
                ),
                (0u64..20, 0u64..20).prop_map(|(min, extra)| json!({
                    "type": "string", "minLength": min, "maxLength": min + extra
                })),
                (-1000i64..1000, 0i64..1000, 1i64..10, any::<bool>()).prop_map(
                    |(lo, width, step, exclusive)| {
                        let hi = lo + width + step * 2 + 2;
                        if exclusive {
                            json!({"type": "integer", "exclusiveMinimum": lo, "exclusiveMaximum": hi, "multipleOf": step})
                        } else {
                            json!({"type": "integer", "minimum": lo, "maximum": hi, "multipleOf": step})
                        }
                    }
                ),
                (-100.0f64..100.0, 0.001f64..50.0).prop_map(|(lo, width)| json!({
                    "type": "number", "exclusiveMinimum": lo, "maximum": lo + width
                })),
                proptest::collection::vec("[a-z]{1,6}", 1..6)
                    .prop_map(|v| json!({"type": "string", "enum": v})),
                Just(json!({"type": "boolean"})),
            ]
        }

        fn schema() -> impl Strategy<Value = Value> {
            leaf().prop_recursive(3, 24, 4, |inner| {
                prop_oneof![
                    proptest::collection::vec(inner.clone(), 1..4).prop_map(|props| {
                        let mut p = Map::new();
                        let mut required = Vec::new();
                        for (i, s) in props.into_iter().enumerate() {
                            p.insert(format!("p{i}"), s);
                            required.push(json!(format!("p{i}")));
                        }
                        json!({"type": "object", "properties": p, "required": required})
                    }),
                    (inner, 0u64..4).prop_map(|(items, min)| json!({
                        "type": "array", "items": items, "minItems": min
                    })),
                ]
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

            /// Whatever the schema asks of a required argument, the
            /// arguments made for it validate (formats included).
            #[test]
            fn made_arguments_validate(arg in schema()) {
                let tool = json!({"type": "object", "properties": {"arg": arg}, "required": ["arg"]});
                let made = arguments(&tool, &Map::new());
                prop_assert!(made.is_ok(), "{tool}: {:?}", made.err());
                let made = made.unwrap();
                let v = validator(&tool).unwrap();
                prop_assert!(v.is_valid(&made.value), "{tool} -> {}", made.value);
                prop_assert!(made.violations.is_empty());
            }
        }
    }
}
