//! [`skeleton`](super::skeleton): a value for a schema, per keyword, that a
//! person can start editing from and the smoke test can send.

use serde_json::{Number, Value};

use super::walk::{Walker, main_type, required_names};
use super::{MAX_DEPTH, MAX_ITEMS, MAX_STRING, Obj};

impl Walker<'_> {
    pub(super) fn skeleton(&self, schema: &Value, depth: usize, chain: &mut Vec<String>) -> Value {
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

    pub(super) fn object_skeleton(&self, m: &Obj, depth: usize, chain: &mut Vec<String>) -> Value {
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

    pub(super) fn array_skeleton(&self, m: &Obj, depth: usize, chain: &mut Vec<String>) -> Value {
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
    let (min, max) = length_bounds(m);
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

pub(super) fn integer_skeleton(m: &Obj) -> Value {
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

pub(super) fn number_skeleton(m: &Obj) -> Value {
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

/// A string schema's `minLength` and `maxLength`, capped at what a
/// generated string may be.
pub(super) fn length_bounds(m: &Obj) -> (usize, Option<usize>) {
    let min = m
        .get("minLength")
        .and_then(Value::as_u64)
        .unwrap_or(0)
        .min(MAX_STRING) as usize;
    let max = m
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|n| n.min(MAX_STRING) as usize);
    (min, max)
}
