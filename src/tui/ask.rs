//! The screens where the person answers a server's request: an
//! elicitation form (MCP 2025-11-25 `requestedSchema`), a URL elicitation,
//! and a sampling request (`sampling/createMessage`) answered by hand.
//!
//! Plain data and pure transitions, like the rest of `app`: a key goes in,
//! the screen changes, and an answer comes out as
//! `Effect::Manager(Command::AnswerServerRequest)`. Everything a server
//! sent is sanitized when it is drawn.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::{TextArea, WrapMode};
use serde_json::{Map, Number, Value, json};

use super::app::{AskView, Effect, State};
use super::keymap::Action;
use crate::mcp::jsonrpc::RpcError;
use crate::mcp::manager::Command;

/// The model name a hand-written sampling reply carries.
pub const HUMAN_MODEL: &str = "mcpdeck-human";

/// The error a declined sampling request gets.
pub const SAMPLING_DECLINED: &str = "the user declined the sampling request";

/// The screen of the request at the front of the queue.
pub enum AskScreen {
    Form(Form),
    Url(UrlAsk),
    Sampling(Box<Sampling>),
    /// A request this client cannot show (an unknown elicitation mode or
    /// method): it can only be declined or cancelled.
    Other {
        text: String,
    },
}

/// An elicitation in form mode.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    pub message: String,
    pub fields: Vec<Field>,
    /// The field with the cursor.
    pub focus: usize,
}

/// One property of the `requestedSchema`.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The property's name: the key in the answer's `content`.
    pub key: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub required: bool,
    pub input: Input,
}

/// A line of text being typed, with the cursor (in characters).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LineEdit {
    pub text: String,
    pub cursor: usize,
}

/// One option of a choice: the value sent and the label shown.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub value: Value,
    pub label: String,
}

/// What a field holds, by the kind of property.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    Text {
        line: LineEdit,
        /// `email`, `uri`, `date`, `date-time` are checked; others shown.
        format: Option<String>,
        min_len: Option<u64>,
        max_len: Option<u64>,
    },
    Number {
        line: LineEdit,
        integer: bool,
        min: Option<f64>,
        max: Option<f64>,
    },
    /// `None`: not answered (an optional field without a default).
    Bool(Option<bool>),
    /// A single-select enum (`enum`, `enum` + `enumNames`, `oneOf` consts).
    One {
        options: Vec<Choice>,
        sel: Option<usize>,
    },
    /// A multi-select enum (`type: array`, `items.enum` / `items.anyOf`).
    Many {
        options: Vec<Choice>,
        picked: Vec<bool>,
        /// The option under the cursor.
        at: usize,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
    /// Anything else (not in the spec's flat schema): typed as JSON.
    Json {
        line: LineEdit,
        /// The schema's type, checked on the parsed value.
        ty: Option<String>,
    },
}

/// An elicitation in URL mode.
#[derive(Debug, Clone, PartialEq)]
pub struct UrlAsk {
    pub message: String,
    /// The URL as sent (drawn sanitized).
    pub url: String,
    /// The URL parsed, when it is one: what is opened and copied.
    pub parsed: Option<url::Url>,
    pub elicitation_id: Option<String>,
}

impl UrlAsk {
    /// Whether `o` may open it: an http(s) URL only (never a file, a
    /// custom scheme, or anything an opener would run).
    pub fn openable(&self) -> Option<&url::Url> {
        self.parsed
            .as_ref()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
    }
}

/// What a line of the sampling request is, for its style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Heading,
    Label,
    Text,
    Muted,
}

/// A sampling request being answered by hand.
pub struct Sampling {
    /// The request as lines for a person (sanitized when drawn).
    pub request: Vec<(LineKind, String)>,
    pub scroll: usize,
    pub reply: TextArea<'static>,
    /// Keys go to the reply (else they scroll the request).
    pub in_reply: bool,
}

impl AskScreen {
    /// The screen for a request.
    pub fn new(ask: &AskView) -> AskScreen {
        let p = &ask.params;
        match ask.method.as_str() {
            "elicitation/create" => match p.get("mode").and_then(Value::as_str) {
                None | Some("form") => AskScreen::Form(Form::new(p)),
                Some("url") => AskScreen::Url(UrlAsk::new(p)),
                Some(other) => AskScreen::Other {
                    text: format!(
                        "An elicitation in mode {other:?}, which mcpdeck does not know.\n\n{}",
                        pretty(p)
                    ),
                },
            },
            "sampling/createMessage" => AskScreen::Sampling(Box::new(Sampling::new(p))),
            other => AskScreen::Other {
                text: format!("A request mcpdeck does not know: {other}\n\n{}", pretty(p)),
            },
        }
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

fn text_of(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .map(str::to_string)
        .filter(|t| !t.is_empty())
}

/// A number as a person writes it: `42`, `3.14`.
pub fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

impl LineEdit {
    pub fn new(text: String) -> LineEdit {
        let cursor = text.chars().count();
        LineEdit { text, cursor }
    }

    fn byte(&self, at: usize) -> usize {
        self.text
            .char_indices()
            .nth(at)
            .map_or(self.text.len(), |(i, _)| i)
    }

    /// Apply a text-entry key; false when the key is not one.
    pub fn key(&mut self, k: &KeyEvent) -> bool {
        let len = self.text.chars().count();
        match k.code {
            KeyCode::Char(c) if is_typing(k) => {
                let at = self.byte(self.cursor);
                self.text.insert(at, c);
                self.cursor += 1;
            }
            KeyCode::Backspace if self.cursor > 0 => {
                self.cursor -= 1;
                let at = self.byte(self.cursor);
                self.text.remove(at);
            }
            KeyCode::Delete if self.cursor < len => {
                let at = self.byte(self.cursor);
                self.text.remove(at);
            }
            KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Right => self.cursor = (self.cursor + 1).min(len),
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = len,
            KeyCode::Backspace | KeyCode::Delete => {}
            _ => return false,
        }
        true
    }
}

/// A key that types a character (no Ctrl, no Alt).
pub(crate) fn is_typing(k: &KeyEvent) -> bool {
    matches!(k.code, KeyCode::Char(_))
        && !k
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

/// The most fields a form shows (flat elicitation schemas are small).
const MAX_FIELDS: usize = 200;
/// The most options a choice offers.
const MAX_OPTIONS: usize = 500;

/// The options of an enum schema: `enum` (+ `enumNames`), or
/// `oneOf`/`anyOf` of `{const, title}`.
fn options(schema: &Value) -> Option<Vec<Choice>> {
    if let Some(list) = schema.get("enum").and_then(Value::as_array) {
        let names = schema
            .get("enumNames")
            .and_then(Value::as_array)
            .filter(|n| n.len() == list.len());
        return Some(
            list.iter()
                .take(MAX_OPTIONS)
                .enumerate()
                .map(|(i, v)| Choice {
                    value: v.clone(),
                    label: names
                        .and_then(|n| n[i].as_str())
                        .map(str::to_string)
                        .unwrap_or_else(|| label_of(v)),
                })
                .collect(),
        );
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(list) = schema.get(key).and_then(Value::as_array)
            && !list.is_empty()
            && list.iter().all(|o| o.get("const").is_some())
        {
            return Some(
                list.iter()
                    .take(MAX_OPTIONS)
                    .map(|o| {
                        let value = o.get("const").cloned().unwrap_or(Value::Null);
                        Choice {
                            label: text_of(o.get("title")).unwrap_or_else(|| label_of(&value)),
                            value,
                        }
                    })
                    .collect(),
            );
        }
    }
    None
}

fn label_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        // ["string", "null"]: the first that is not null.
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

impl Field {
    /// A field for one property, prefilled with its default.
    pub fn new(key: &str, schema: &Value, required: bool) -> Field {
        let default = schema.get("default");
        let u = |k: &str| schema.get(k).and_then(Value::as_u64);
        let f = |k: &str| schema.get(k).and_then(Value::as_f64);
        let ty = type_of(schema);
        let input = if ty == Some("array") {
            match schema.get("items").and_then(options) {
                Some(options) => {
                    let picked = options
                        .iter()
                        .map(|o| {
                            default
                                .and_then(Value::as_array)
                                .is_some_and(|d| d.contains(&o.value))
                        })
                        .collect();
                    Input::Many {
                        options,
                        picked,
                        at: 0,
                        min_items: u("minItems"),
                        max_items: u("maxItems"),
                    }
                }
                None => json_input(default, ty),
            }
        } else if let Some(options) = options(schema) {
            let sel = default.and_then(|d| options.iter().position(|o| &o.value == d));
            Input::One { options, sel }
        } else {
            match ty {
                Some("string") => Input::Text {
                    line: LineEdit::new(
                        default
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                    ),
                    format: text_of(schema.get("format")),
                    min_len: u("minLength"),
                    max_len: u("maxLength"),
                },
                Some(t @ ("number" | "integer")) => Input::Number {
                    line: LineEdit::new(
                        default
                            .and_then(|d| d.as_number())
                            .map(Number::to_string)
                            .unwrap_or_default(),
                    ),
                    integer: t == "integer",
                    min: f("minimum"),
                    max: f("maximum"),
                },
                Some("boolean") => Input::Bool(default.and_then(Value::as_bool)),
                _ => json_input(default, ty),
            }
        };
        Field {
            key: key.to_string(),
            title: text_of(schema.get("title")),
            description: text_of(schema.get("description")),
            required,
            input,
        }
    }

    /// The title, else the property's name.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.key)
    }

    /// Whether keys type into this field.
    pub fn is_text(&self) -> bool {
        self.line().is_some()
    }

    pub fn line(&self) -> Option<&LineEdit> {
        match &self.input {
            Input::Text { line, .. } | Input::Number { line, .. } | Input::Json { line, .. } => {
                Some(line)
            }
            _ => None,
        }
    }

    pub(crate) fn line_mut(&mut self) -> Option<&mut LineEdit> {
        match &mut self.input {
            Input::Text { line, .. } | Input::Number { line, .. } | Input::Json { line, .. } => {
                Some(line)
            }
            _ => None,
        }
    }

    /// The value to send: `Ok(None)` when empty (omitted), `Err` with
    /// what is wrong.
    pub fn value(&self) -> Result<Option<Value>, String> {
        let value = match &self.input {
            Input::Text {
                line,
                format,
                min_len,
                max_len,
            } => {
                if line.text.is_empty() {
                    None
                } else {
                    let n = line.text.chars().count() as u64;
                    if let Some(min) = min_len.filter(|m| n < *m) {
                        return Err(format!("at least {min} characters"));
                    }
                    if let Some(max) = max_len.filter(|m| n > *m) {
                        return Err(format!("at most {max} characters"));
                    }
                    if let Some(f) = format {
                        check_format(f, &line.text)?;
                    }
                    Some(Value::String(line.text.clone()))
                }
            }
            Input::Number {
                line,
                integer,
                min,
                max,
            } => {
                let t = line.text.trim();
                if t.is_empty() {
                    None
                } else {
                    let (v, as_f64) = if *integer {
                        let n: i64 = t.parse().map_err(|_| "a whole number".to_string())?;
                        (Value::from(n), n as f64)
                    } else if let Ok(n) = t.parse::<i64>() {
                        (Value::from(n), n as f64)
                    } else {
                        let n: f64 = t
                            .parse()
                            .ok()
                            .filter(|n: &f64| n.is_finite())
                            .ok_or_else(|| "a number".to_string())?;
                        (Number::from_f64(n).map_or(Value::Null, Value::Number), n)
                    };
                    if let Some(m) = min.filter(|m| as_f64 < *m) {
                        return Err(format!("at least {}", fmt_num(m)));
                    }
                    if let Some(m) = max.filter(|m| as_f64 > *m) {
                        return Err(format!("at most {}", fmt_num(m)));
                    }
                    Some(v)
                }
            }
            Input::Bool(b) => b.map(Value::Bool),
            Input::One { options, sel } => {
                sel.and_then(|i| options.get(i)).map(|o| o.value.clone())
            }
            Input::Many {
                options,
                picked,
                min_items,
                max_items,
                ..
            } => {
                let chosen: Vec<Value> = options
                    .iter()
                    .zip(picked)
                    .filter(|(_, p)| **p)
                    .map(|(o, _)| o.value.clone())
                    .collect();
                let n = chosen.len() as u64;
                if n == 0 {
                    None
                } else {
                    if let Some(min) = min_items.filter(|m| n < *m) {
                        return Err(format!("choose at least {min}"));
                    }
                    if let Some(max) = max_items.filter(|m| n > *m) {
                        return Err(format!("choose at most {max}"));
                    }
                    Some(Value::Array(chosen))
                }
            }
            Input::Json { line, ty } => {
                if line.text.trim().is_empty() {
                    None
                } else {
                    let v: Value = serde_json::from_str(&line.text)
                        .map_err(|_| "not valid JSON".to_string())?;
                    let fits = match ty.as_deref() {
                        Some("array") => v.is_array(),
                        Some("object") => v.is_object(),
                        Some("string") => v.is_string(),
                        Some("number") => v.is_number(),
                        Some("integer") => v.is_i64() || v.is_u64(),
                        Some("boolean") => v.is_boolean(),
                        Some("null") => v.is_null(),
                        _ => true,
                    };
                    if !fits {
                        return Err(format!(
                            "must be JSON of type {}",
                            ty.as_deref().unwrap_or("?")
                        ));
                    }
                    Some(v)
                }
            }
        };
        if value.is_none() && self.required {
            return Err(match &self.input {
                Input::One { .. } => "required: choose one".into(),
                Input::Many { .. } => "required: choose at least one".into(),
                _ => "required".into(),
            });
        }
        Ok(value)
    }

    /// What is wrong with the field as it stands.
    pub fn error(&self) -> Option<String> {
        self.value().err()
    }

    /// Space: flip, pick the next choice, tick the option under the cursor.
    fn toggle(&mut self) -> bool {
        let required = self.required;
        match &mut self.input {
            Input::Bool(b) => {
                // An optional field without an answer can go back to none.
                *b = match *b {
                    None => Some(true),
                    Some(true) => Some(false),
                    Some(false) if required => Some(true),
                    Some(false) => None,
                };
                true
            }
            Input::One { .. } => self.cycle(1),
            Input::Many { picked, at, .. } => {
                if let Some(p) = picked.get_mut(*at) {
                    *p = !*p;
                }
                true
            }
            _ => false,
        }
    }

    /// ←/→: the previous/next choice (an optional one passes by "none"),
    /// the option cursor of a multi-select, yes/no.
    fn cycle(&mut self, by: isize) -> bool {
        let required = self.required;
        match &mut self.input {
            Input::One { options, sel } => {
                let n = options.len();
                if n == 0 {
                    return false;
                }
                // Positions: 0 = none (optional only), then the options.
                let none = usize::from(!required);
                let len = (n + none) as isize;
                let pos = match *sel {
                    Some(i) => (i + none) as isize,
                    // A required choice starts before its first option.
                    None if required && by > 0 => -1,
                    None => 0,
                };
                let next = (pos + by).rem_euclid(len) as usize;
                *sel = if next < none { None } else { Some(next - none) };
                true
            }
            Input::Many { options, at, .. } => {
                let n = options.len() as isize;
                if n > 0 {
                    *at = (*at as isize + by).clamp(0, n - 1) as usize;
                }
                true
            }
            Input::Bool(b) => {
                *b = Some(!b.unwrap_or(false));
                true
            }
            _ => false,
        }
    }
}

fn json_input(default: Option<&Value>, ty: Option<&str>) -> Input {
    Input::Json {
        line: LineEdit::new(default.map(|d| d.to_string()).unwrap_or_default()),
        ty: ty.map(str::to_string),
    }
}

/// The basic checks of the spec's string formats.
fn check_format(format: &str, text: &str) -> Result<(), String> {
    let ok = match format {
        "email" => is_email(text),
        "uri" => url::Url::parse(text).is_ok(),
        "date" => is_date(text),
        "date-time" => is_date_time(text),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(match format {
            "email" => "not an email address".into(),
            "uri" => "not a URI (e.g. https://example.com)".into(),
            "date" => "not a date (YYYY-MM-DD)".into(),
            _ => "not a date-time (YYYY-MM-DDTHH:MM:SSZ)".into(),
        })
    }
}

fn is_email(t: &str) -> bool {
    let Some((local, domain)) = t.rsplit_once('@') else {
        return false;
    };
    !local.is_empty()
        && !t.chars().any(char::is_whitespace)
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains('@')
}

fn digits(t: &str) -> Option<u32> {
    (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        .then(|| t.parse().ok())
        .flatten()
}

fn is_date(t: &str) -> bool {
    let parts: Vec<&str> = t.split('-').collect();
    let [y, m, d] = parts[..] else { return false };
    let (Some(y), Some(m), Some(d)) = (digits(y), digits(m), digits(d)) else {
        return false;
    };
    if parts[0].len() != 4 || parts[1].len() != 2 || parts[2].len() != 2 {
        return false;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// RFC 3339: `2025-11-25T10:30:00Z`, `…:00.5+01:00`.
fn is_date_time(t: &str) -> bool {
    let Some((date, time)) = t.split_once(['T', 't']) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let (clock, zone) = if let Some(c) = time.strip_suffix(['Z', 'z']) {
        (c, None)
    } else if let Some(i) = time.rfind(['+', '-']) {
        (&time[..i], Some(&time[i + 1..]))
    } else {
        return false;
    };
    let clock = match clock.split_once('.') {
        Some((c, frac)) if !frac.is_empty() && frac.bytes().all(|b| b.is_ascii_digit()) => c,
        Some(_) => return false,
        None => clock,
    };
    let hms: Vec<&str> = clock.split(':').collect();
    let two = |s: &str, max: u32| s.len() == 2 && digits(s).is_some_and(|v| v <= max);
    let clock_ok = hms.len() == 3 && two(hms[0], 23) && two(hms[1], 59) && two(hms[2], 60);
    let zone_ok = zone.is_none_or(|z| {
        let hm: Vec<&str> = z.split(':').collect();
        hm.len() == 2 && two(hm[0], 23) && two(hm[1], 59)
    });
    clock_ok && zone_ok
}

/// The fields' values by key (empty optional ones left out), or how many
/// fields are wrong.
pub(crate) fn content_of(fields: &[Field]) -> Result<Map<String, Value>, usize> {
    let mut content = Map::new();
    let mut bad = 0;
    for f in fields {
        match f.value() {
            Ok(Some(v)) => {
                content.insert(f.key.clone(), v);
            }
            Ok(None) => {}
            Err(_) => bad += 1,
        }
    }
    if bad > 0 { Err(bad) } else { Ok(content) }
}

impl Form {
    pub fn new(params: &Value) -> Form {
        let schema = params.get("requestedSchema");
        let required: Vec<&str> = schema
            .and_then(|s| s.get("required"))
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let fields = schema
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .map(|props| {
                // Bounded: a hostile schema must not make the screen crawl.
                props
                    .iter()
                    .take(MAX_FIELDS)
                    .map(|(k, v)| Field::new(k, v, required.contains(&k.as_str())))
                    .collect()
            })
            .unwrap_or_default();
        Form {
            message: text_of(params.get("message")).unwrap_or_default(),
            fields,
            focus: 0,
        }
    }

    /// The `content` to accept with, or how many fields are wrong.
    pub fn content(&self) -> Result<Map<String, Value>, usize> {
        content_of(&self.fields)
    }

    pub fn focused(&self) -> Option<&Field> {
        self.fields.get(self.focus)
    }

    /// Whether keys type into the focused field.
    pub fn typing(&self) -> bool {
        self.focused().is_some_and(Field::is_text)
    }

    fn move_focus(&mut self, by: isize) {
        let n = self.fields.len();
        if n > 0 {
            self.focus = (self.focus as isize + by).clamp(0, n as isize - 1) as usize;
        }
    }
}

impl UrlAsk {
    pub fn new(params: &Value) -> UrlAsk {
        let url = params
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        UrlAsk {
            message: text_of(params.get("message")).unwrap_or_default(),
            parsed: url::Url::parse(&url).ok(),
            url,
            elicitation_id: text_of(params.get("elicitationId")),
        }
    }
}

/// A content block in a few words: text as it is, media by type and size.
fn block_text(b: &Value) -> String {
    let ty = b.get("type").and_then(Value::as_str).unwrap_or("?");
    let size = |k: &str| {
        b.get(k)
            .and_then(Value::as_str)
            .map(|d| {
                // The decoded size, from the base64 length.
                let d = d.trim();
                let pad = d.bytes().rev().take_while(|b| *b == b'=').count();
                crate::text::human_size((d.len() * 3 / 4).saturating_sub(pad))
            })
            .unwrap_or_else(|| "no data".into())
    };
    let mime = b.get("mimeType").and_then(Value::as_str).unwrap_or("?");
    match ty {
        "text" => b
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        "image" | "audio" => format!("[{ty} {mime}, {}]", size("data")),
        "tool_use" => format!(
            "[tool use: {} {}]",
            b.get("name").and_then(Value::as_str).unwrap_or("?"),
            b.get("input").map(Value::to_string).unwrap_or_default()
        ),
        "tool_result" => {
            let inner = b
                .get("content")
                .and_then(Value::as_array)
                .map(|c| c.iter().map(block_text).collect::<Vec<_>>().join(" "))
                .unwrap_or_default();
            format!("[tool result] {inner}")
        }
        "resource_link" | "resource" => format!(
            "[{ty} {}]",
            b.get("uri")
                .or_else(|| b.get("resource").and_then(|r| r.get("uri")))
                .and_then(Value::as_str)
                .unwrap_or("?")
        ),
        other => format!("[{other}]"),
    }
}

impl Sampling {
    pub fn new(p: &Value) -> Sampling {
        use LineKind::*;
        let mut lines = Vec::new();
        let mut push = |k: LineKind, t: String| {
            for l in t.lines() {
                lines.push((k, l.to_string()));
            }
            if t.is_empty() {
                lines.push((k, String::new()));
            }
        };
        if let Some(sys) = text_of(p.get("systemPrompt")) {
            push(Heading, "System prompt".into());
            push(Text, sys);
            push(Text, String::new());
        }
        let messages = p
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        push(Heading, format!("Messages ({})", messages.len()));
        for m in &messages {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("?");
            push(Label, format!("{role}:"));
            let blocks = match m.get("content") {
                Some(Value::Array(list)) => list.clone(),
                Some(b) => vec![b.clone()],
                None => vec![],
            };
            for b in &blocks {
                push(Text, block_text(b));
            }
        }
        push(Text, String::new());
        let mut facts = Vec::new();
        if let Some(n) = p.get("maxTokens") {
            facts.push(format!("max tokens {n}"));
        }
        if let Some(t) = p.get("temperature").and_then(Value::as_f64) {
            facts.push(format!("temperature {}", fmt_num(t)));
        }
        if let Some(c) = p.get("includeContext").and_then(Value::as_str) {
            facts.push(format!("context {c}"));
        }
        if let Some(s) = p.get("stopSequences").and_then(Value::as_array)
            && !s.is_empty()
        {
            let s: Vec<String> = s.iter().map(Value::to_string).collect();
            facts.push(format!("stop at {}", s.join(", ")));
        }
        if !facts.is_empty() {
            push(Muted, facts.join(" · "));
        }
        if let Some(prefs) = p.get("modelPreferences") {
            let hints: Vec<&str> = prefs
                .get("hints")
                .and_then(Value::as_array)
                .map(|h| {
                    h.iter()
                        .filter_map(|x| x.get("name").and_then(Value::as_str))
                        .collect()
                })
                .unwrap_or_default();
            let mut t = Vec::new();
            if !hints.is_empty() {
                t.push(format!("model hints {}", hints.join(", ")));
            }
            for (k, w) in [
                ("costPriority", "cost"),
                ("speedPriority", "speed"),
                ("intelligencePriority", "intelligence"),
            ] {
                if let Some(v) = prefs.get(k).and_then(Value::as_f64) {
                    t.push(format!("{w} {}", fmt_num(v)));
                }
            }
            if !t.is_empty() {
                push(Muted, t.join(" · "));
            }
        }
        if let Some(tools) = p.get("tools").and_then(Value::as_array) {
            let names: Vec<&str> = tools
                .iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .collect();
            push(
                Muted,
                format!(
                    "tools offered {} (a hand-written reply uses none)",
                    names.join(", ")
                ),
            );
        }
        let mut reply = TextArea::default();
        reply.set_wrap_mode(WrapMode::WordOrGlyph);
        reply.set_placeholder_text("Type the reply the model would give…");
        Sampling {
            request: lines,
            scroll: 0,
            reply,
            in_reply: true,
        }
    }

    pub fn reply_text(&self) -> String {
        self.reply.lines().join("\n")
    }
}

/// Keep `s.ask` on the front of the queue.
pub fn sync(s: &mut State) {
    let same = matches!((&s.ask, s.asks.front()), (Some((id, _)), Some(a)) if *id == a.id);
    if !same {
        s.ask = s.asks.front().map(|a| (a.id, AskScreen::new(a)));
    }
}

/// Answer the request at the front and show the next one.
fn answer(s: &mut State, result: Result<Value, RpcError>, fx: &mut Vec<Effect>, what: &str) {
    let Some(a) = s.asks.pop_front() else { return };
    s.status = Some(match s.asks.len() {
        0 => format!("{} on {}: {what}", a.method, a.server),
        n => format!("{} on {}: {what}; {n} more waiting", a.method, a.server),
    });
    fx.push(Effect::Manager(Command::AnswerServerRequest {
        id: a.id,
        result,
    }));
    sync(s);
}

fn action_value(action: &str) -> Value {
    json!({ "action": action })
}

/// A key while a request is shown: nothing reaches the panes.
pub fn key(s: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let action = s.keymap.ask_action(&k);
    match s.ask.as_ref().map(|(_, screen)| screen) {
        None => false,
        Some(AskScreen::Form(_)) => form_key(s, k, action, fx),
        Some(AskScreen::Url(_)) => url_key(s, action, fx),
        Some(AskScreen::Sampling(_)) => sampling_key(s, k, action, fx),
        Some(AskScreen::Other { .. }) => match action {
            Some(Action::Decline) => {
                decline_other(s, fx);
                true
            }
            Some(Action::Back) => {
                let elicitation = s
                    .asks
                    .front()
                    .is_some_and(|a| a.method.starts_with("elicitation/"));
                if elicitation {
                    answer(s, Ok(action_value("cancel")), fx, "cancelled");
                } else {
                    decline_other(s, fx);
                }
                true
            }
            _ => false,
        },
    }
}

fn decline_other(s: &mut State, fx: &mut Vec<Effect>) {
    let elicitation = s
        .asks
        .front()
        .is_some_and(|a| a.method.starts_with("elicitation/"));
    let result = if elicitation {
        Ok(action_value("decline"))
    } else {
        Err(RpcError::new(
            -32601,
            "mcpdeck does not handle this request",
        ))
    };
    answer(s, result, fx, "declined");
}

fn form(s: &mut State) -> Option<&mut Form> {
    match s.ask.as_mut() {
        Some((_, AskScreen::Form(f))) => Some(f),
        _ => None,
    }
}

fn form_key(s: &mut State, k: KeyEvent, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let Some(f) = form(s) else { return false };
    // Text entry first: in a text field, a character is a character and
    // the editing keys edit (so `d` types a d; Ctrl-D declines).
    let editing = is_typing(&k)
        || matches!(
            k.code,
            KeyCode::Backspace
                | KeyCode::Delete
                | KeyCode::Left
                | KeyCode::Right
                | KeyCode::Home
                | KeyCode::End
        );
    if editing && let Some(line) = f.fields.get_mut(f.focus).and_then(Field::line_mut) {
        line.key(&k);
        return true;
    }
    let Some(a) = action else { return false };
    match a {
        Action::Send => match f.content() {
            Ok(content) => {
                answer(
                    s,
                    Ok(json!({ "action": "accept", "content": content })),
                    fx,
                    "accepted",
                );
            }
            Err(bad) => {
                // Go to the first field that needs attention.
                if let Some(i) = f.fields.iter().position(|x| x.error().is_some()) {
                    f.focus = i;
                }
                s.status = Some(format!(
                    "not sent: {bad} field{} need{} attention",
                    if bad == 1 { "" } else { "s" },
                    if bad == 1 { "s" } else { "" }
                ));
            }
        },
        Action::Decline => answer(s, Ok(action_value("decline")), fx, "declined"),
        Action::Back => answer(s, Ok(action_value("cancel")), fx, "cancelled"),
        Action::Down | Action::NextPane | Action::Accept => f.move_focus(1),
        Action::Up | Action::PrevPane => f.move_focus(-1),
        Action::PageDown => f.move_focus(5),
        Action::PageUp => f.move_focus(-5),
        Action::Home => f.focus = 0,
        Action::End => f.move_focus(isize::MAX / 2),
        Action::Toggle => {
            if let Some(field) = f.fields.get_mut(f.focus) {
                field.toggle();
            }
        }
        Action::Left | Action::Right => {
            if let Some(field) = f.fields.get_mut(f.focus) {
                field.cycle(if a == Action::Right { 1 } else { -1 });
            }
        }
        _ => return false,
    }
    true
}

fn url_key(s: &mut State, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let Some((_, AskScreen::Url(u))) = s.ask.as_ref() else {
        return false;
    };
    match action {
        Some(Action::Accept | Action::Send) => {
            answer(s, Ok(action_value("accept")), fx, "accepted (done)");
        }
        Some(Action::Decline) => answer(s, Ok(action_value("decline")), fx, "declined"),
        Some(Action::Back) => answer(s, Ok(action_value("cancel")), fx, "cancelled"),
        Some(Action::OpenUrl) => match u.openable() {
            Some(url) => {
                let url = url.to_string();
                s.status = Some(format!(
                    "opening {} in the browser…",
                    crate::sanitize::one_line(&url)
                ));
                fx.push(Effect::OpenUrl(url));
            }
            None => {
                s.status =
                    Some("only http(s) URLs are opened; copy it instead if you trust it".into());
            }
        },
        Some(Action::Copy) => {
            let text = u
                .parsed
                .as_ref()
                .map(url::Url::to_string)
                .unwrap_or_else(|| crate::sanitize::strip(&u.url).into_owned());
            super::app::copy(s, text, fx);
        }
        _ => return false,
    }
    true
}

fn sampling(s: &mut State) -> Option<&mut Sampling> {
    match s.ask.as_mut() {
        Some((_, AskScreen::Sampling(x))) => Some(x),
        _ => None,
    }
}

fn sampling_key(s: &mut State, k: KeyEvent, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let Some(x) = sampling(s) else { return false };
    let declined = || Err(RpcError::new(-1, SAMPLING_DECLINED));
    // The request scrolls from anywhere with the page keys.
    let rows = x.request.len();
    match action {
        Some(Action::Send) => {
            let text = x.reply_text();
            if text.trim().is_empty() {
                s.status = Some("type a reply first (or decline)".into());
            } else {
                let result = json!({
                    "role": "assistant",
                    "content": {"type": "text", "text": text},
                    "model": HUMAN_MODEL,
                    "stopReason": "endTurn",
                });
                answer(s, Ok(result), fx, "reply sent");
            }
            return true;
        }
        Some(Action::Back) => {
            answer(s, declined(), fx, "declined");
            return true;
        }
        Some(Action::Decline) if !(x.in_reply && is_typing(&k)) => {
            answer(s, declined(), fx, "declined");
            return true;
        }
        Some(Action::NextPane | Action::PrevPane) => {
            x.in_reply = !x.in_reply;
            return true;
        }
        Some(Action::PageUp) => {
            x.scroll = x.scroll.saturating_sub(5);
            return true;
        }
        Some(Action::PageDown) => {
            x.scroll = (x.scroll + 5).min(rows.saturating_sub(1));
            return true;
        }
        _ => {}
    }
    if x.in_reply {
        return x.reply.input(k);
    }
    match action {
        Some(Action::Up) => x.scroll = x.scroll.saturating_sub(1),
        Some(Action::Down) => x.scroll = (x.scroll + 1).min(rows.saturating_sub(1)),
        Some(Action::Home) => x.scroll = 0,
        Some(Action::End) => x.scroll = rows.saturating_sub(1),
        Some(Action::Accept) => x.in_reply = true,
        _ => return false,
    }
    true
}

/// Drop the requests of a server that is no longer connected. Each is
/// answered with an error, so the manager forgets it too.
pub fn drop_server(s: &mut State, server: &str, fx: &mut Vec<Effect>) -> bool {
    let before = s.asks.len();
    let mut kept = std::collections::VecDeque::new();
    for a in s.asks.drain(..) {
        if a.server == server {
            fx.push(Effect::Manager(Command::AnswerServerRequest {
                id: a.id,
                result: Err(RpcError::new(-32603, "the server disconnected")),
            }));
        } else {
            kept.push_back(a);
        }
    }
    s.asks = kept;
    let dropped = before - s.asks.len();
    if dropped == 0 {
        return false;
    }
    s.status = Some(format!(
        "{server} is no longer connected: {dropped} request{} dropped",
        if dropped == 1 { "" } else { "s" }
    ));
    sync(s);
    true
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_json_field_must_have_the_schema_type() {
        let mut f = Field::new("tags", &serde_json::json!({"type": "array"}), true);
        if let Some(l) = f.line_mut() {
            l.text = "5".into();
        }
        assert_eq!(f.value(), Err("must be JSON of type array".to_string()));
        if let Some(l) = f.line_mut() {
            l.text = "[1, 2]".into();
        }
        assert_eq!(f.value(), Ok(Some(serde_json::json!([1, 2]))));
    }

    use super::*;

    #[test]
    fn formats_are_checked_as_the_spec_names_them() {
        for ok in ["a@b.co", "first.last+tag@example.org"] {
            assert!(is_email(ok), "{ok}");
        }
        for bad in ["", "a@", "@b.co", "a@b", "a b@c.de", "a@.com", "a@b.com."] {
            assert!(!is_email(bad), "{bad}");
        }
        for ok in ["2024-02-29", "1999-12-31"] {
            assert!(is_date(ok), "{ok}");
        }
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "2024-1-01",
            "24-01-01",
            "2024-01-32",
            "x",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
        for ok in [
            "2025-11-25T10:30:00Z",
            "2025-11-25t10:30:00.123+01:00",
            "2025-11-25T23:59:60-05:30",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for bad in [
            "2025-11-25",
            "2025-11-25T10:30Z",
            "2025-11-25T24:00:00Z",
            "2025-11-25T10:30:00",
            "2025-11-25T10:30:00.Z",
            "2025-11-25T10:30:00+1:00",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
        assert!(check_format("uri", "https://example.com/x").is_ok());
        assert!(check_format("uri", "not a uri").is_err());
        assert!(
            check_format("color", "anything").is_ok(),
            "unknown formats pass"
        );
    }

    #[test]
    fn fields_follow_the_schema() {
        let f = Field::new("n", &json!({"type": "number", "default": 2}), false);
        assert_eq!(f.value(), Ok(Some(json!(2))));
        let f = Field::new("n", &json!({"type": ["integer", "null"]}), true);
        assert_eq!(f.value(), Err("required".into()));
        // An optional choice cycles through "none"; a required one does not.
        let mut f = Field::new("c", &json!({"type": "string", "enum": ["a", "b"]}), false);
        assert_eq!(f.value(), Ok(None));
        f.cycle(-1);
        assert_eq!(f.value(), Ok(Some(json!("b"))));
        f.cycle(1);
        assert_eq!(f.value(), Ok(None));
        let mut f = Field::new("c", &json!({"type": "string", "enum": ["a", "b"]}), true);
        f.cycle(1);
        assert_eq!(f.value(), Ok(Some(json!("a"))));
        // An optional yes/no without a default can go back to no answer.
        let mut f = Field::new("b", &json!({"type": "boolean"}), false);
        let seen: Vec<_> = (0..3)
            .map(|_| {
                f.toggle();
                f.value().unwrap()
            })
            .collect();
        assert_eq!(seen, vec![Some(json!(true)), Some(json!(false)), None]);
        // Nested objects are not in the spec: typed as JSON.
        let f = Field::new("o", &json!({"type": "object", "default": {"k": 1}}), false);
        assert!(f.is_text());
        assert_eq!(f.value(), Ok(Some(json!({"k": 1}))));
        // Typed text: the cursor moves by characters, not bytes.
        let mut l = LineEdit::new("né".into());
        let k = |c| KeyEvent::new(c, KeyModifiers::NONE);
        l.key(&k(KeyCode::Left));
        l.key(&k(KeyCode::Char('x')));
        l.key(&k(KeyCode::End));
        l.key(&k(KeyCode::Backspace));
        assert_eq!(l.text, "nx");
    }
}
