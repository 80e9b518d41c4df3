//! A `SKILL.md`'s YAML frontmatter as JSON, and its comparison with an
//! entry's `frontmatter`, field by field.
//!
//! The YAML is read by `saphyr-parser` (YAML 1.2, events), and turned into
//! JSON here with the 1.2 core schema: plain `null`/`~`/empty, booleans,
//! integers (decimal, `0o`, `0x`), floats (`.inf`, `.nan`); quoted and
//! block scalars and `!!str` are strings; anchors and aliases resolve.

use saphyr_parser::{Event, Parser, ScalarStyle};
use serde_json::{Map, Number, Value};

use super::{SkillError, fail};

/// At most this deep (a frontmatter is a few fields).
const MAX_DEPTH: usize = 64;
/// At most this many values in all, aliases counted as the copies they
/// make (a few lines of aliases of aliases can otherwise expand to
/// gigabytes: the "billion laughs").
const MAX_VALUES: usize = 10_000;

/// The values in `v`, itself included, counting up to `cap`.
fn size(v: &Value, cap: usize) -> usize {
    match v {
        Value::Array(a) => a
            .iter()
            .fold(1, |n, x| if n > cap { n } else { n + size(x, cap) }),
        Value::Object(m) => m
            .values()
            .fold(1, |n, x| if n > cap { n } else { n + size(x, cap) }),
        _ => 1,
    }
}

/// The frontmatter of a `SKILL.md` as a JSON object: the YAML between a
/// first line `---` and the next line `---` (or `...`).
pub fn frontmatter(markdown: &str) -> Result<Map<String, Value>, SkillError> {
    read_frontmatter(markdown)
}

fn read_frontmatter(markdown: &str) -> Result<Map<String, Value>, SkillError> {
    let text = markdown.strip_prefix('\u{feff}').unwrap_or(markdown);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end() != "---" {
        return fail("it does not begin with a `---` frontmatter block");
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        let t = line.trim_end();
        if t == "---" || t == "..." {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return fail("its frontmatter block has no closing `---`");
    }
    match yaml_to_json(&yaml)? {
        Value::Object(m) => Ok(m),
        Value::Null => fail("its frontmatter is empty"),
        other => fail(format!(
            "its frontmatter is not a mapping (it is {})",
            kind(&other)
        )),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a sequence",
        Value::Object(_) => "a mapping",
    }
}

enum Frame {
    Seq(Vec<Value>, usize),
    Map(Map<String, Value>, Option<String>, usize),
}

/// One YAML document as JSON (`Null` when there is none).
fn yaml_to_json(yaml: &str) -> Result<Value, SkillError> {
    let mut anchors: std::collections::HashMap<usize, Value> = Default::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut done: Option<Value> = None;
    let mut values = 0usize;
    for item in Parser::new_from_str(yaml) {
        let (event, span) = item.map_err(|e| {
            format!(
                "its frontmatter is not valid YAML: {} at line {} column {}",
                e.info(),
                e.marker().line() + 1,
                e.marker().col() + 1
            )
        })?;
        let line = span.start.line() + 1;
        let value = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => continue,
            Event::DocumentStart(_) => {
                if done.is_some() {
                    return fail("its frontmatter holds more than one YAML document");
                }
                continue;
            }
            Event::SequenceStart(anchor, _) => {
                if stack.len() >= MAX_DEPTH {
                    return fail("its frontmatter is nested too deep");
                }
                stack.push(Frame::Seq(Vec::new(), anchor));
                continue;
            }
            Event::MappingStart(anchor, _) => {
                if stack.len() >= MAX_DEPTH {
                    return fail("its frontmatter is nested too deep");
                }
                stack.push(Frame::Map(Map::new(), None, anchor));
                continue;
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq(v, anchor)) => {
                    let v = Value::Array(v);
                    if anchor > 0 {
                        anchors.insert(anchor, v.clone());
                    }
                    v
                }
                _ => return fail("its frontmatter's YAML is unbalanced"),
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map(m, _, anchor)) => {
                    let v = Value::Object(m);
                    if anchor > 0 {
                        anchors.insert(anchor, v.clone());
                    }
                    v
                }
                _ => return fail("its frontmatter's YAML is unbalanced"),
            },
            Event::Alias(id) => {
                let v = anchors.get(&id).ok_or_else(|| {
                    format!("its frontmatter has an unknown alias at line {line}")
                })?;
                values += size(v, MAX_VALUES);
                if values > MAX_VALUES {
                    return fail(format!(
                        "its frontmatter expands to more than {MAX_VALUES} values (aliases of aliases at line {line}): refused"
                    ));
                }
                v.clone()
            }
            Event::Scalar(text, style, anchor, tag) => {
                let as_string = tag
                    .as_deref()
                    .is_some_and(|t| t.is_yaml_core_schema() && t.suffix == "str");
                let v = if style == ScalarStyle::Plain && !as_string {
                    resolve_plain(&text)
                } else {
                    Value::String(text.into_owned())
                };
                if anchor > 0 {
                    anchors.insert(anchor, v.clone());
                }
                v
            }
        };
        values += 1;
        if values > MAX_VALUES {
            return fail(format!(
                "its frontmatter has more than {MAX_VALUES} values: refused"
            ));
        }
        // Place the finished value.
        match stack.last_mut() {
            None => done = Some(value),
            Some(Frame::Seq(items, _)) => items.push(value),
            Some(Frame::Map(map, key, _)) => match key.take() {
                None => {
                    let k = match value {
                        Value::String(s) => s,
                        Value::Null => "null".into(),
                        Value::Bool(b) => b.to_string(),
                        Value::Number(n) => n.to_string(),
                        _ => {
                            return fail(format!(
                                "its frontmatter has a key that is not a scalar at line {line}"
                            ));
                        }
                    };
                    if map.contains_key(&k) {
                        return fail(format!(
                            "its frontmatter has the key {k:?} twice (line {line})"
                        ));
                    }
                    *key = Some(k);
                }
                Some(k) => {
                    map.insert(k, value);
                }
            },
        }
    }
    Ok(done.unwrap_or(Value::Null))
}

/// A plain scalar under the YAML 1.2 core schema.
fn resolve_plain(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    let digits = |t: &str, radix: u32| !t.is_empty() && t.chars().all(|c| c.is_digit(radix));
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits(body, 10) {
        if let Ok(i) = s.parse::<i64>() {
            return Value::Number(i.into());
        }
        if let Ok(u) = s.trim_start_matches('+').parse::<u64>() {
            return Value::Number(u.into());
        }
    }
    if let Some(h) = s.strip_prefix("0x").filter(|h| digits(h, 16))
        && let Ok(u) = u64::from_str_radix(h, 16)
    {
        return Value::Number(u.into());
    }
    if let Some(o) = s.strip_prefix("0o").filter(|o| digits(o, 8))
        && let Ok(u) = u64::from_str_radix(o, 8)
    {
        return Value::Number(u.into());
    }
    if is_float(s)
        && let Ok(f) = s.parse::<f64>()
        && let Some(n) = Number::from_f64(f)
    {
        return Value::Number(n);
    }
    // .inf and .nan have no JSON form: kept as written.
    Value::String(s.to_string())
}

/// `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
fn is_float(s: &str) -> bool {
    let b = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exp) = match b.find(['e', 'E']) {
        Some(i) => (&b[..i], Some(&b[i + 1..])),
        None => (b, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((a, c)) => {
            (a.chars().all(|x| x.is_ascii_digit()) && c.chars().all(|x| x.is_ascii_digit()))
                && !(a.is_empty() && c.is_empty())
        }
        None => !mantissa.is_empty() && mantissa.chars().all(|x| x.is_ascii_digit()),
    };
    let exp_ok = exp.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && e.chars().all(|x| x.is_ascii_digit())
    });
    mantissa_ok && exp_ok
}

/// Equal as frontmatter: numbers by value, strings up to trailing
/// whitespace (a folded or literal block scalar keeps its last line break,
/// which servers that render frontmatter often strip: FastMCP 4.2 does).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x.trim_end() == y.trim_end(),
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(a), Some(b), _, _) => a == b,
                (_, _, Some(a), Some(b)) => a == b,
                _ if x.is_f64() || y.is_f64() => x.as_f64() == y.as_f64(),
                _ => x == y,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn short(v: &Value) -> String {
    let t = v.to_string();
    if t.chars().count() > 80 {
        format!("{}…", t.chars().take(80).collect::<String>())
    } else {
        t
    }
}

/// The fields whose values differ between an entry's frontmatter and the
/// file's (the names only: the file's values are unverified content).
pub fn differing_fields(entry: &Map<String, Value>, file: &Map<String, Value>) -> Vec<String> {
    let mut out: Vec<String> = entry
        .iter()
        .filter(|(k, v)| file.get(*k).is_none_or(|w| !same(v, w)))
        .map(|(k, _)| k.clone())
        .collect();
    out.extend(file.keys().filter(|k| !entry.contains_key(*k)).cloned());
    out
}

/// The differences between an entry's frontmatter and the one parsed from
/// the file, one line each (empty: identical).
pub fn compare(entry: &Map<String, Value>, file: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in entry {
        match file.get(k) {
            None => out.push(format!("`{k}` is in the entry but not in SKILL.md")),
            Some(w) if !same(v, w) => out.push(format!(
                "`{k}`: the entry says {}, SKILL.md says {}",
                short(v),
                short(w)
            )),
            _ => {}
        }
    }
    for k in file.keys() {
        if !entry.contains_key(k) {
            out.push(format!("`{k}` is in SKILL.md but not in the entry"));
        }
    }
    out
}
