//! Reading a suite file: TOML checked key by key, every error at its line
//! and column with what to write instead, an unknown key named with the
//! closest known one.

use std::ops::Range;
use std::path::Path;

use regex::Regex;
use serde_json::{Map, Value as Json};
use toml_edit::{Document, Item, Key, Table, TableLike, Value};

use super::expect::{Check, Expect, JsonCheck, OPERATORS, TYPES};
use super::jsonpath;
use super::template;
use super::{Kind, Step, Suite, Target, slug};
use crate::config::{ConfigError, Diagnostic, syntax_message, unknown_key_message};

type Result<T> = std::result::Result<T, ConfigError>;

const TOP_KEYS: &[&str] = &["suite", "call", "read", "prompt"];
const SUITE_KEYS: &[&str] = &["name", "server", "target", "timeout", "ignore"];
const CALL_KEYS: &[&str] = &[
    "name", "server", "target", "tool", "args", "expect", "capture",
];
const READ_KEYS: &[&str] = &["name", "server", "target", "uri", "expect", "capture"];
const PROMPT_KEYS: &[&str] = &[
    "name", "server", "target", "prompt", "args", "expect", "capture",
];
const EXPECT_KEYS: &[&str] = &[
    "is_error",
    "error_code",
    "error_contains",
    "text",
    "text_contains",
    "text_matches",
    "structured",
    "json",
    "content_types",
    "output_schema_valid",
    "max_ms",
    "mime_type",
    "snapshot",
    "ignore",
];
/// The `expect` keys only some kinds take.
const CALL_ONLY: &[&str] = &[
    "is_error",
    "structured",
    "content_types",
    "output_schema_valid",
];
const READ_ONLY: &[&str] = &["mime_type"];

/// Read and parse the suite at `path`.
pub fn load(path: &Path) -> Result<Suite> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text, path)
}

/// Parse a suite's `text`, read from `path`.
pub fn parse(text: &str, path: &Path) -> Result<Suite> {
    let p = P { source: text, path };
    let doc = Document::parse(text).map_err(|e| p.err(e.span(), syntax_message(text, &e)))?;
    p.suite(doc.as_table())
}

struct P<'a> {
    source: &'a str,
    path: &'a Path,
}

/// Each key of a table with its span and item.
fn entries(t: &dyn TableLike) -> impl Iterator<Item = (&str, Option<Range<usize>>, &Item)> {
    t.iter()
        .map(move |(k, i)| (k, t.key(k).and_then(Key::span), i))
}

fn describe(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Table(_) => "a table",
        Item::ArrayOfTables(_) => "an array of tables",
        Item::Value(v) => match v {
            Value::String(_) => "a string",
            Value::Integer(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Boolean(_) => "a boolean",
            Value::Datetime(_) => "a date-time",
            Value::Array(_) => "an array",
            Value::InlineTable(_) => "a table",
        },
    }
}

/// A step's table, with where it is.
struct Found<'d> {
    kind: Kind,
    table: &'d Table,
    start: usize,
}

impl P<'_> {
    fn err(&self, span: Option<Range<usize>>, message: impl Into<String>) -> ConfigError {
        Diagnostic::new(self.source, Some(self.path), span, message).into()
    }

    fn line(&self, at: usize) -> usize {
        self.source[..at.min(self.source.len())]
            .matches('\n')
            .count()
            + 1
    }

    fn unknown(
        &self,
        key: &str,
        span: Option<Range<usize>>,
        place: &str,
        known: &[&str],
    ) -> ConfigError {
        self.err(span, unknown_key_message(key, place, known))
    }

    fn string(&self, item: &Item, what: &str) -> Result<String> {
        item.as_str().map(str::to_string).ok_or_else(|| {
            self.err(
                item.span(),
                format!("{what} must be a string, found {}", describe(item)),
            )
        })
    }

    fn boolean(&self, item: &Item, what: &str) -> Result<bool> {
        item.as_bool().ok_or_else(|| {
            self.err(
                item.span(),
                format!("{what} must be true or false, found {}", describe(item)),
            )
        })
    }

    fn suite(&self, top: &Table) -> Result<Suite> {
        let mut name = None;
        let mut default: Option<Target> = None;
        let mut timeout = None;
        let mut ignore = Vec::new();
        let mut found: Vec<Found> = Vec::new();
        for (key, span, item) in entries(top) {
            match key {
                "suite" => {
                    let Some(t) = item.as_table_like() else {
                        return Err(self.err(
                            span,
                            format!(
                                "`suite` must be a table ([suite]), found {}",
                                describe(item)
                            ),
                        ));
                    };
                    let mut server = None;
                    let mut target = None;
                    for (k, s, i) in entries(t) {
                        match k {
                            "name" => name = Some(self.string(i, "[suite] name")?),
                            "server" => server = Some((self.string(i, "[suite] server")?, s)),
                            "target" => target = Some((self.target(i, "[suite] target")?, s)),
                            "timeout" => timeout = Some(self.seconds(i, "[suite] timeout")?),
                            "ignore" => ignore = self.paths(i, "[suite] ignore")?,
                            other => return Err(self.unknown(other, s, "in [suite]", SUITE_KEYS)),
                        }
                    }
                    default = match (server, target) {
                        (Some(_), Some((_, s))) => {
                            return Err(
                                self.err(s, "give [suite] either `server` or `target`, not both")
                            );
                        }
                        (Some((n, _)), None) => Some(Target::Named(n)),
                        (None, Some((t, _))) => Some(t),
                        (None, None) => None,
                    };
                }
                "call" | "read" | "prompt" => {
                    let kind = match key {
                        "call" => Kind::Call,
                        "read" => Kind::Read,
                        _ => Kind::Prompt,
                    };
                    let Some(tables) = item.as_array_of_tables() else {
                        return Err(self.err(
                            span,
                            format!("`{key}` must be an array of tables: write each step as [[{key}]], found {}", describe(item)),
                        ));
                    };
                    for table in tables.iter() {
                        let start = table.span().map_or(0, |s| s.start);
                        found.push(Found { kind, table, start });
                    }
                }
                other => {
                    let mut message =
                        unknown_key_message(other, "at the top of a test file", TOP_KEYS);
                    message.push_str("; a step is a [[call]], [[read]] or [[prompt]] table");
                    return Err(self.err(span, message));
                }
            }
        }
        // Steps in the file's order, whatever their kind.
        found.sort_by_key(|f| f.start);
        let mut steps = Vec::new();
        let mut captured: Vec<String> = Vec::new();
        let mut snapshots: Vec<String> = Vec::new();
        for (i, f) in found.iter().enumerate() {
            let step = self.step(i + 1, f, default.as_ref(), &captured, &mut snapshots)?;
            captured.extend(step.capture.iter().map(|(n, _)| n.clone()));
            steps.push(step);
        }
        if steps.is_empty() {
            return Err(self.err(
                None,
                "no steps: add a [[call]] (tool = \"…\"), [[read]] (uri = \"…\") or [[prompt]] (prompt = \"…\") table",
            ));
        }
        Ok(Suite {
            path: self.path.to_path_buf(),
            name: name.unwrap_or_else(|| super::stem(self.path)),
            timeout,
            ignore,
            steps,
        })
    }

    fn seconds(&self, item: &Item, what: &str) -> Result<std::time::Duration> {
        let secs = item
            .as_float()
            .or_else(|| item.as_integer().map(|i| i as f64))
            .filter(|s| s.is_finite() && *s > 0.0 && *s <= 7.0 * 86400.0)
            .ok_or_else(|| {
                self.err(
                    item.span(),
                    format!("{what} is a number of seconds above 0 and at most a week, like 30"),
                )
            })?;
        Ok(std::time::Duration::from_secs_f64(secs))
    }

    fn target(&self, item: &Item, what: &str) -> Result<Target> {
        let t = match item {
            Item::Value(Value::String(s)) => {
                let s = s.value().trim();
                if s.starts_with("registry:") {
                    return Err(self.err(item.span(), format!("{what}: registry targets are not supported yet; add the server to the config and name it with `server`")));
                }
                if s.starts_with("http://") || s.starts_with("https://") {
                    Target::Named(s.to_string())
                } else {
                    let words = crate::text::split_command(s)
                        .map_err(|e| self.err(item.span(), format!("{what}: {e}")))?;
                    Target::Command(words)
                }
            }
            Item::Value(Value::Array(a)) => {
                let words: Option<Vec<String>> =
                    a.iter().map(|v| v.as_str().map(str::to_string)).collect();
                Target::Command(words.ok_or_else(|| self.err(item.span(), format!("{what}: a command is an array of strings, like [\"node\", \"server.js\"]")))?)
            }
            _ => {
                return Err(self.err(
                    item.span(),
                    format!("{what} is an http(s):// URL or a command (\"node server.js\" or [\"node\", \"server.js\"]), found {}", describe(item)),
                ));
            }
        };
        if matches!(&t, Target::Command(w) if w.is_empty()) {
            return Err(self.err(item.span(), format!("{what}: the command is empty")));
        }
        Ok(t)
    }

    fn paths(&self, item: &Item, what: &str) -> Result<Vec<jsonpath::Path>> {
        let Some(a) = item.as_array() else {
            return Err(self.err(
                item.span(),
                format!("{what} is an array of JSONPaths, like [\"$.structuredContent.time\"]"),
            ));
        };
        a.iter()
            .map(|v| match v.as_str() {
                Some(s) => self.path_at(s, v.span()),
                None => Err(self.err(v.span(), format!("{what}: each path is a string"))),
            })
            .collect()
    }

    /// A JSONPath written at `span` (a quoted string or key): an error
    /// points at the character.
    fn path_at(&self, s: &str, span: Option<Range<usize>>) -> Result<jsonpath::Path> {
        jsonpath::Path::parse(s).map_err(|e| {
            // Inside quotes, the path's characters start one byte in (a
            // bare or escaped key is pointed at whole).
            let at = span.clone().and_then(|sp| {
                let raw = self.source.get(sp.clone())?;
                let inner = raw.strip_prefix('"').or_else(|| raw.strip_prefix('\''))?;
                let off: usize = inner
                    .chars()
                    .take(e.at.saturating_sub(1))
                    .map(char::len_utf8)
                    .sum();
                let start = sp.start + 1 + off;
                Some(start..start + 1)
            });
            self.err(
                at.or(span),
                format!("{}; see docs/testing.md for the paths taken", e.message),
            )
        })
    }

    fn step(
        &self,
        number: usize,
        f: &Found,
        default: Option<&Target>,
        captured: &[String],
        snapshots: &mut Vec<String>,
    ) -> Result<Step> {
        let (kind, table) = (f.kind, f.table);
        let head = table.span();
        let label = kind.label();
        let keys = match kind {
            Kind::Call => CALL_KEYS,
            Kind::Read => READ_KEYS,
            Kind::Prompt => PROMPT_KEYS,
        };
        let place = format!("in a [[{label}]] step");
        let mut name = None;
        let mut server = None;
        let mut target = None;
        let mut subject = None;
        let mut args = Json::Object(Map::new());
        let mut expect = Expect::default();
        let mut capture = Vec::new();
        for (k, s, item) in entries(table) {
            match k {
                "name" => name = Some(self.string(item, "name")?),
                "server" => server = Some((self.string(item, "server")?, s)),
                "target" => target = Some((self.target(item, "target")?, s)),
                "tool" | "uri" | "prompt" if k == kind.subject_key() => {
                    let v = self.string(item, k)?;
                    if v.trim().is_empty() {
                        return Err(self.err(item.span(), format!("`{k}` is empty")));
                    }
                    self.references(item, captured)?;
                    subject = Some(v);
                }
                "args" if keys.contains(&"args") => {
                    let Some(t) = item.as_table_like() else {
                        return Err(self.err(
                            item.span(),
                            format!(
                                "`args` is a table, like args = {{ city = \"Paris\" }}, found {}",
                                describe(item)
                            ),
                        ));
                    };
                    self.references(item, captured)?;
                    args = self.table_json(t)?;
                }
                "expect" => {
                    let Some(t) = item.as_table_like() else {
                        return Err(self.err(item.span(), format!("`expect` is a table ([{label}.expect] or expect = {{ … }}), found {}", describe(item))));
                    };
                    expect = self.expect(t, kind)?;
                }
                "capture" => {
                    let Some(t) = item.as_table_like() else {
                        return Err(self.err(item.span(), "`capture` is a table of NAME = \"JSONPath\", like capture = { CITY = \"$.structuredContent.city\" }"));
                    };
                    for (n, ns, v) in entries(t) {
                        let valid = n
                            .chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                        if !valid || n == "env" {
                            return Err(self.err(ns, format!("capture name `{n}`: use letters, digits and `_`, starting with a letter (`env` is taken by {{{{env.NAME}}}})")));
                        }
                        let Some(path) = v.as_str() else {
                            return Err(self.err(v.span(), format!("capture {n} is a JSONPath string, like \"$.structuredContent.id\"")));
                        };
                        let span = v.as_value().and_then(Value::span);
                        capture.push((n.to_string(), self.path_at(path, span)?));
                    }
                }
                other => {
                    let mut message = unknown_key_message(other, &place, keys);
                    if ["tool", "uri", "prompt", "args"].contains(&other) {
                        message = format!(
                            "`{other}` does not belong in a [[{label}]] step; its keys are {}",
                            keys.iter()
                                .map(|k| format!("`{k}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        );
                    }
                    return Err(self.err(s, message));
                }
            }
        }
        let subject_key = kind.subject_key();
        let Some(subject) = subject else {
            return Err(self.err(
                head,
                format!("this [[{label}]] step has no `{subject_key}`: add {subject_key} = \"…\""),
            ));
        };
        let target = match (server, target) {
            (Some(_), Some((_, s))) => {
                return Err(self.err(s, "give a step either `server` or `target`, not both"));
            }
            (Some((n, _)), None) => Target::Named(n),
            (None, Some((t, _))) => t,
            (None, None) => default.cloned().ok_or_else(|| {
                self.err(head.clone(), format!("this [[{label}]] step names no server: add server = \"NAME\" (a configured server), target = \"URL or command\", or one of them under [suite] for every step"))
            })?,
        };
        let step_label = name.clone().unwrap_or_else(|| format!("{label} {subject}"));
        let mut snapshot = slug(&step_label);
        let base = snapshot.clone();
        let mut n = 2;
        // Two names that differ only in case are one file on macOS and
        // Windows.
        while snapshots.contains(&snapshot.to_lowercase()) {
            snapshot = format!("{base}-{n}");
            n += 1;
        }
        snapshots.push(snapshot.to_lowercase());
        Ok(Step {
            number,
            line: self.line(f.start),
            kind,
            name,
            target,
            subject,
            args,
            expect,
            capture,
            snapshot,
        })
    }

    /// Every `{{NAME}}` under `item` names an earlier capture or `env.`.
    fn references(&self, item: &Item, captured: &[String]) -> Result<()> {
        match item {
            Item::Value(v) => self.value_references(v, captured),
            Item::Table(t) => {
                for (k, s, i) in entries(t) {
                    self.string_references(k, s, captured)?;
                    self.references(i, captured)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn value_references(&self, v: &Value, captured: &[String]) -> Result<()> {
        match v {
            Value::String(s) => self.string_references(s.value(), v.span(), captured),
            Value::Array(a) => a
                .iter()
                .try_for_each(|x| self.value_references(x, captured)),
            Value::InlineTable(t) => {
                for (k, x) in t.iter() {
                    self.string_references(k, t.key(k).and_then(Key::span), captured)?;
                    self.value_references(x, captured)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn string_references(
        &self,
        s: &str,
        span: Option<Range<usize>>,
        captured: &[String],
    ) -> Result<()> {
        for name in template::references(s) {
            if let Some(var) = name.strip_prefix("env.") {
                if var.is_empty() {
                    return Err(self.err(span, "{{env.}} names no variable: write {{env.NAME}}"));
                }
                continue;
            }
            if !captured.iter().any(|c| c == name) {
                let known: Vec<&str> = captured.iter().map(String::as_str).collect();
                let hint = crate::text::did_you_mean(&known, name).unwrap_or_else(|| {
                    if known.is_empty() {
                        "; no earlier step captures anything: add capture = { NAME = \"$.path\" } to one".into()
                    } else {
                        format!(" (captured so far: {})", known.join(", "))
                    }
                });
                return Err(self.err(span, format!("{{{{{name}}}}}: no earlier step captures {name}{hint}; an environment variable is {{{{env.{name}}}}}")));
            }
        }
        Ok(())
    }

    fn table_json(&self, t: &dyn TableLike) -> Result<Json> {
        let mut m = Map::new();
        for (k, _, item) in entries(t) {
            m.insert(k.to_string(), self.item_json(item)?);
        }
        Ok(Json::Object(m))
    }

    fn item_json(&self, item: &Item) -> Result<Json> {
        match item {
            Item::Value(v) => self.value_json(v),
            Item::Table(t) => self.table_json(t),
            Item::ArrayOfTables(a) => a
                .iter()
                .map(|t| self.table_json(t))
                .collect::<Result<Vec<_>>>()
                .map(Json::Array),
            Item::None => Ok(Json::Null),
        }
    }

    fn value_json(&self, v: &Value) -> Result<Json> {
        Ok(match v {
            Value::String(s) => Json::String(s.value().clone()),
            Value::Integer(i) => Json::from(*i.value()),
            Value::Float(f) => serde_json::Number::from_f64(*f.value())
                .map(Json::Number)
                .ok_or_else(|| {
                    self.err(v.span(), "JSON has no inf or nan: give a finite number")
                })?,
            Value::Boolean(b) => Json::Bool(*b.value()),
            Value::Datetime(d) => Json::String(d.value().to_string()),
            Value::Array(a) => Json::Array(
                a.iter()
                    .map(|x| self.value_json(x))
                    .collect::<Result<_>>()?,
            ),
            Value::InlineTable(t) => self.table_json(t)?,
        })
    }

    fn regex(&self, item: &Item, what: &str) -> Result<Regex> {
        let s = self.string(item, what)?;
        Regex::new(&s).map_err(|e| {
            self.err(
                item.span(),
                format!(
                    "{what}: not a regex: {}",
                    e.to_string().lines().last().unwrap_or("invalid")
                ),
            )
        })
    }

    fn expect(&self, t: &dyn TableLike, kind: Kind) -> Result<Expect> {
        let mut e = Expect::default();
        let label = kind.label();
        for (k, s, item) in entries(t) {
            if CALL_ONLY.contains(&k) && kind != Kind::Call
                || READ_ONLY.contains(&k) && kind != Kind::Read
            {
                let only = if CALL_ONLY.contains(&k) {
                    "[[call]]"
                } else {
                    "[[read]]"
                };
                return Err(self.err(s, format!("`{k}` is for {only} steps, not [[{label}]]")));
            }
            match k {
                "is_error" => e.is_error = Some(self.boolean(item, "is_error")?),
                "error_code" => {
                    e.error_code = Some(item.as_integer().ok_or_else(|| {
                        self.err(item.span(), "error_code is an integer, like -32602")
                    })?)
                }
                "error_contains" => e.error_contains = Some(self.string(item, "error_contains")?),
                "text" => e.text = Some(self.string(item, "text")?),
                "text_contains" => {
                    e.text_contains = match item {
                        Item::Value(Value::Array(a)) => a
                            .iter()
                            .map(|v| {
                                v.as_str().map(str::to_string).ok_or_else(|| {
                                    self.err(v.span(), "text_contains: each item is a string")
                                })
                            })
                            .collect::<Result<_>>()?,
                        _ => vec![
                            self.string(item, "text_contains (a string or an array of strings)")?,
                        ],
                    }
                }
                "text_matches" => e.text_matches = Some(self.regex(item, "text_matches")?),
                "structured" => e.structured = Some(self.item_json(item)?),
                "content_types" => {
                    let a = item.as_array().ok_or_else(|| {
                        self.err(
                            item.span(),
                            "content_types is an array of block types, like [\"text\", \"image\"]",
                        )
                    })?;
                    e.content_types = Some(
                        a.iter()
                            .map(|v| {
                                v.as_str().map(str::to_string).ok_or_else(|| {
                                    self.err(v.span(), "content_types: each type is a string")
                                })
                            })
                            .collect::<Result<_>>()?,
                    );
                }
                "output_schema_valid" => {
                    e.output_schema_valid = Some(self.boolean(item, "output_schema_valid")?)
                }
                "max_ms" => {
                    e.max_ms = Some(
                        item.as_integer()
                            .and_then(|i| u64::try_from(i).ok())
                            .ok_or_else(|| {
                                self.err(
                                    item.span(),
                                    "max_ms is a whole number of milliseconds, like 500",
                                )
                            })?,
                    )
                }
                "mime_type" => e.mime_type = Some(self.string(item, "mime_type")?),
                "snapshot" => e.snapshot = self.boolean(item, "snapshot")?,
                "ignore" => e.ignore = self.paths(item, "ignore")?,
                "json" => {
                    let Some(t) = item.as_table_like() else {
                        return Err(self.err(item.span(), format!("`json` is a table of \"JSONPath\" = value or {{ operator = value }}, like [{label}.expect.json] \"$.structuredContent.city\" = \"Paris\"")));
                    };
                    for (path, ps, v) in entries(t) {
                        let path = self.path_at(path, ps)?;
                        e.json.push(JsonCheck {
                            checks: self.checks(v)?,
                            path,
                        });
                    }
                }
                other => {
                    return Err(self.unknown(
                        other,
                        s,
                        &format!("in [{label}.expect]"),
                        EXPECT_KEYS,
                    ));
                }
            }
        }
        Ok(e)
    }

    /// A path's value in `[expect.json]`: a table of operators, or a value
    /// to equal.
    fn checks(&self, item: &Item) -> Result<Vec<Check>> {
        let Some(t) = item.as_table_like() else {
            return Ok(vec![Check::Equal(self.item_json(item)?)]);
        };
        let ops = t.iter().filter(|(k, _)| OPERATORS.contains(k)).count();
        if ops == 0 && !t.is_empty() {
            return Ok(vec![Check::Equal(self.item_json(item)?)]);
        }
        if ops < t.len() {
            let k = t
                .iter()
                .map(|(k, _)| k)
                .find(|k| !OPERATORS.contains(k))
                .unwrap_or_default();
            let s = t.key(k).and_then(Key::span);
            return Err(self.err(
                s,
                format!(
                    "{}; to compare with a table, write {{ equal = {{ … }} }}",
                    unknown_key_message(k, "among a path's operators", OPERATORS)
                ),
            ));
        }
        if t.is_empty() {
            return Err(self.err(
                item.span(),
                format!("no operator: give one of {}", OPERATORS.join(", ")),
            ));
        }
        let mut out = Vec::new();
        for (k, _, v) in entries(t) {
            let number = || {
                v.as_float()
                    .or_else(|| v.as_integer().map(|i| i as f64))
                    .ok_or_else(|| self.err(v.span(), format!("`{k}` takes a number")))
            };
            out.push(match k {
                "equal" => Check::Equal(self.item_json(v)?),
                "type" => {
                    let t = self.string(v, "type")?;
                    if !TYPES.contains(&t.as_str()) {
                        return Err(self.err(
                            v.span(),
                            format!("type {t:?}: the types are {}", TYPES.join(", ")),
                        ));
                    }
                    Check::Type(t)
                }
                "contains" => Check::Contains(self.item_json(v)?),
                "matches" => Check::Matches(self.regex(v, "matches")?),
                "length" => Check::Length(
                    v.as_integer()
                        .and_then(|i| u64::try_from(i).ok())
                        .ok_or_else(|| self.err(v.span(), "`length` takes a whole number"))?,
                ),
                "gt" => Check::Gt(number()?),
                "gte" => Check::Gte(number()?),
                "lt" => Check::Lt(number()?),
                "lte" => Check::Lte(number()?),
                _ => Check::Exists(self.boolean(v, "exists")?),
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> Suite {
        parse(text, Path::new("dir/weather.mcpdeck.toml")).unwrap_or_else(|e| panic!("{e}"))
    }

    fn parse_err(text: &str) -> String {
        match parse(text, Path::new("w.mcpdeck.toml")) {
            Ok(_) => panic!("parsed: {text}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_whole_suite() {
        let s = parse_ok(
            r#"
[suite]
server = "weather"
ignore = ["$.structuredContent.time"]
timeout = 2.5

[[call]]
name = "Paris"
tool = "get_weather"
args = { city = "Paris", days = 2 }
capture = { TEMP = "$.structuredContent.temp" }
[call.expect]
text_contains = ["Paris", "°C"]
text_matches = '\d+'
structured = { city = "Paris" }
snapshot = true
[call.expect.json]
"$.structuredContent.temp" = { type = "number", gt = -50, lt = 60 }
"$.content[0].type" = "text"

[[read]]
target = "node server.js --flag"
uri = "weather://cities"
expect = { mime_type = "application/json", text_contains = "Paris" }

[[call]]
tool = "convert"
args = { celsius = "{{TEMP}}", home = "{{env.HOME}}" }
expect.is_error = false

[[prompt]]
target = ["python3", "srv.py"]
prompt = "forecast"
args = { city = "Paris" }
"#,
        );
        assert_eq!(s.name, "weather");
        assert_eq!(s.timeout, Some(std::time::Duration::from_millis(2500)));
        assert_eq!(s.ignore.len(), 1);
        let kinds: Vec<Kind> = s.steps.iter().map(|x| x.kind).collect();
        assert_eq!(kinds, [Kind::Call, Kind::Read, Kind::Call, Kind::Prompt]);
        assert_eq!(
            s.steps.iter().map(|x| x.line).collect::<Vec<_>>(),
            [7, 21, 26, 31]
        );
        let c = &s.steps[0];
        assert_eq!(c.target, Target::Named("weather".into()));
        assert_eq!(c.args, serde_json::json!({"city": "Paris", "days": 2}));
        assert_eq!(c.expect.text_contains, ["Paris", "°C"]);
        assert_eq!(c.expect.json.len(), 2);
        assert_eq!(c.expect.json[0].checks.len(), 3);
        assert!(matches!(c.expect.json[1].checks[0], Check::Equal(_)));
        assert_eq!(c.capture[0].0, "TEMP");
        assert_eq!(c.snapshot, "Paris");
        assert_eq!(
            s.steps[1].target,
            Target::Command(vec!["node".into(), "server.js".into(), "--flag".into()])
        );
        assert_eq!(
            s.steps[1].expect.mime_type.as_deref(),
            Some("application/json")
        );
        assert_eq!(s.steps[2].snapshot, "call-convert");
        assert_eq!(s.steps[2].expect.is_error, Some(false));
        assert_eq!(
            s.steps[3].target,
            Target::Command(vec!["python3".into(), "srv.py".into()])
        );
        assert_eq!(s.steps[3].label(), "prompt forecast");
    }

    #[test]
    fn tests_example_reads_and_names_every_key() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests.example.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        let suite = parse(&text, &path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(suite.steps.len(), 7);
        let lists: [&[&str]; 7] = [
            TOP_KEYS,
            SUITE_KEYS,
            CALL_KEYS,
            READ_KEYS,
            PROMPT_KEYS,
            EXPECT_KEYS,
            OPERATORS,
        ];
        let mut missing = Vec::new();
        for key in lists.iter().flat_map(|l| l.iter()) {
            let set = [
                format!("\n{key} = "),
                format!("\n# {key} = "),
                format!("{{ {key} = "),
                format!(", {key} = "),
                format!("[[{key}]]"),
                format!("[{key}]"),
                format!(".{key}]"),
            ];
            if !set.iter().any(|p| text.contains(p.as_str())) {
                missing.push(*key);
            }
        }
        assert!(
            missing.is_empty(),
            "tests.example.toml does not show {missing:?}"
        );
    }

    #[test]
    fn snapshot_names_are_unique() {
        let s = parse_ok(
            "[suite]\nserver = \"a\"\n[[call]]\ntool = \"echo\"\n[[call]]\ntool = \"echo\"\n[[call]]\nname = \"call echo\"\ntool = \"x\"\n[[call]]\nname = \"Call Echo\"\ntool = \"x\"\n",
        );
        let names: Vec<&str> = s.steps.iter().map(|x| x.snapshot.as_str()).collect();
        // Names that differ only in case are one file on macOS and Windows.
        assert_eq!(
            names,
            ["call-echo", "call-echo-2", "call-echo-3", "Call-Echo-4"]
        );
    }

    #[test]
    fn errors_have_a_place_and_a_fix() {
        let e = parse_err(
            "[[call]]\nserver = \"a\"\ntool = \"echo\"\n[call.expect]\ntext_contain = \"x\"\n",
        );
        assert!(e.starts_with("w.mcpdeck.toml:5:1: unknown key `text_contain` in [call.expect] — did you mean `text_contains`?"), "{e}");
        let e = parse_err("[[call]]\nserver = \"a\"\ntol = \"echo\"\n");
        assert!(
            e.contains(":3:1: unknown key `tol` in a [[call]] step — did you mean `tool`?"),
            "{e}"
        );
        let e = parse_err("[[call]]\ntool = \"echo\"\n");
        assert!(
            e.contains(":1:1: this [[call]] step names no server"),
            "{e}"
        );
        let e = parse_err("[[call]]\nserver = \"a\"\n");
        assert!(e.contains("has no `tool`"), "{e}");
        let e = parse_err("[[call]]\nserver = \"a\"\ntool = \"x\"\nargs = { a = \"{{CITY}}\" }\n");
        assert!(
            e.contains(":4:14: {{CITY}}: no earlier step captures CITY"),
            "{e}"
        );
        let e = parse_err(
            "[[call]]\nserver = \"a\"\ntool = \"x\"\ncapture = { CITY = \"$.a\" }\n[[call]]\nserver = \"a\"\ntool = \"x\"\nargs = { a = \"{{CTY}}\" }\n",
        );
        assert!(e.contains("did you mean \"CITY\"?"), "{e}");
        let e =
            parse_err("[[call]]\nserver = \"a\"\ntool = \"x\"\nexpect.json = { \"$.a[\" = 1 }\n");
        assert!(e.contains(":4:22: expected a selector"), "{e}");
        let e = parse_err(
            "[[call]]\nserver = \"a\"\ntool = \"x\"\nexpect.json = { \"$.a\" = { type = \"num\" } }\n",
        );
        assert!(e.contains("type \"num\": the types are"), "{e}");
        let e = parse_err(
            "[[call]]\nserver = \"a\"\ntool = \"x\"\nexpect.json = { \"$.a\" = { gt = 1, city = 2 } }\n",
        );
        assert!(
            e.contains("unknown key `city` among a path's operators"),
            "{e}"
        );
        let e =
            parse_err("[[read]]\nserver = \"a\"\nuri = \"x://y\"\nexpect = { is_error = true }\n");
        assert!(
            e.contains("`is_error` is for [[call]] steps, not [[read]]"),
            "{e}"
        );
        let e = parse_err(
            "[[call]]\nserver = \"a\"\ntool = \"x\"\nexpect = { text_matches = \"(\" }\n",
        );
        assert!(e.contains("text_matches: not a regex"), "{e}");
        let e = parse_err("[tests]\n");
        assert!(
            e.contains("unknown key `tests` at the top of a test file"),
            "{e}"
        );
        let e = parse_err("[suite]\nserver = \"a\"\n");
        assert!(e.contains("no steps"), "{e}");
        let e = parse_err("call = 1\n");
        assert!(e.contains("write each step as [[call]]"), "{e}");
        let e = parse_err("[[call]]\nserver = \"a\"\ntarget = \"b\"\ntool = \"x\"\n");
        assert!(e.contains("either `server` or `target`"), "{e}");
        let e = parse_err("[[call]]\nserver = \"a\"\ntool = \"x\"\n[[call]\n");
        assert!(e.contains("invalid TOML"), "{e}");
    }
}
