//! An elicitation form (MCP 2025-11-25 `requestedSchema`): one field per
//! property, typed inputs, live validation by the spec's formats.

use crossterm::event::{KeyCode, KeyEvent};
use serde_json::{Map, Number, Value};

use crate::tui::keymap::Key;

/// An elicitation in form mode.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    pub message: String,
    pub fields: Vec<Field>,
    /// The field with the cursor; past the fields, one of [`BUTTONS`].
    pub focus: usize,
    /// The answers as the form opened (defaults): what "typed something"
    /// is measured against.
    opened: Vec<Value>,
    /// Declining or cancelling would throw typed answers away: the form
    /// asks first, and this is what it asks about.
    pub confirm: Option<Leave>,
}

/// The buttons under an elicitation form, in order (Tab reaches them
/// after the last field).
pub const BUTTONS: [Leave; 3] = [Leave::Accept, Leave::Decline, Leave::Cancel];

/// The three ways out of an elicitation form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leave {
    Accept,
    Decline,
    Cancel,
}

impl Leave {
    pub fn label(self) -> &'static str {
        match self {
            Leave::Accept => "Accept",
            Leave::Decline => "Decline",
            Leave::Cancel => "Cancel",
        }
    }
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
    /// The whole text is selected (a prefilled default, or select-all):
    /// the next character typed replaces it, Backspace or Delete clears
    /// it, an arrow keeps it and moves the cursor.
    pub selected: bool,
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

pub(crate) fn text_of(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .map(str::to_string)
        .filter(|t| !t.is_empty())
}

/// JavaScript's `Number.MAX_SAFE_INTEGER`: Zod writes it (and its
/// negative) as the bounds of every `int()`; i64 and u64 extremes are
/// beyond it. A bound this far out bounds nothing a person types.
const NO_BOUND: f64 = 9_007_199_254_740_991.0;

/// Inclusive bounds in a few words: numbers as `1 to 10`, `≥ 1`, `≤ 10`;
/// counts (`words`: lengths, items) as `at least 2`, `at most 5`. A
/// bound at `Number.MAX_SAFE_INTEGER` or beyond is no bound.
pub fn bounds(min: Option<f64>, max: Option<f64>, words: bool) -> Option<String> {
    bounds_ex(min.map(|v| (v, false)), max.map(|v| (v, false)), words)
}

/// [`bounds`] with exclusive ones (`(value, exclusive)`): `> 0`, `< 1`.
pub fn bounds_ex(
    min: Option<(f64, bool)>,
    max: Option<(f64, bool)>,
    words: bool,
) -> Option<String> {
    let real = |b: Option<(f64, bool)>| b.filter(|(v, _)| v.is_finite() && v.abs() < NO_BOUND);
    let (min, max) = (real(min), real(max));
    let lower = |(v, ex): (f64, bool)| match (ex, words) {
        (true, _) => format!("> {}", fmt_num(v)),
        (false, true) => format!("at least {}", fmt_num(v)),
        (false, false) => format!("≥ {}", fmt_num(v)),
    };
    let upper = |(v, ex): (f64, bool)| match (ex, words) {
        (true, _) => format!("< {}", fmt_num(v)),
        (false, true) => format!("at most {}", fmt_num(v)),
        (false, false) => format!("≤ {}", fmt_num(v)),
    };
    match (min, max) {
        (Some((a, false)), Some((b, false))) => Some(format!("{} to {}", fmt_num(a), fmt_num(b))),
        (Some(a), Some(b)) => Some(format!("{}, {}", lower(a), upper(b))),
        (Some(a), None) => Some(lower(a)),
        (None, Some(b)) => Some(upper(b)),
        (None, None) => None,
    }
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
    /// Whether a key edits a line: characters and the editing keys are the
    /// field's own business, not commands (raw keys, outside the keymap:
    /// see [`LineEdit::key`]).
    pub fn edits(k: &KeyEvent) -> bool {
        is_typing(k)
            || matches!(
                k.code,
                KeyCode::Backspace
                    | KeyCode::Delete
                    | KeyCode::Left
                    | KeyCode::Right
                    | KeyCode::Home
                    | KeyCode::End
            )
    }

    pub fn new(text: String) -> LineEdit {
        let cursor = text.chars().count();
        LineEdit {
            text,
            cursor,
            selected: false,
        }
    }

    /// A line prefilled with a default: selected, so the first character
    /// typed replaces it (`42` then `4.5` is `4.5`, not `424.5`).
    pub fn prefilled(text: String) -> LineEdit {
        let mut line = LineEdit::new(text);
        line.select_all();
        line
    }

    /// Select the whole text (nothing to select in an empty line).
    pub fn select_all(&mut self) -> bool {
        self.selected = !self.text.is_empty();
        self.cursor = self.text.chars().count();
        self.selected
    }

    /// Empty the line; false when it was empty already.
    pub fn clear(&mut self) -> bool {
        let changed = !self.text.is_empty();
        *self = LineEdit::default();
        changed
    }

    pub(super) fn byte(&self, at: usize) -> usize {
        self.text
            .char_indices()
            .nth(at)
            .map_or(self.text.len(), |(i, _)| i)
    }

    /// Apply a text-entry key; false when the key is not one.
    ///
    /// Raw keys, outside the keymap: this is text entry, the same in every
    /// text field as in any text box (a character is typed; Backspace,
    /// Del, ← →, Home End edit the line), not commands. In a field they
    /// win over the moves (← is the cursor's, not the focus's), and were
    /// they actions a rebinding could make a letter a command mid-word.
    /// The help lists them among the fixed typing keys.
    pub fn key(&mut self, k: &KeyEvent) -> bool {
        if self.selected {
            self.selected = false;
            match k.code {
                // Typing replaces the selection; deleting deletes it.
                KeyCode::Char(_) if is_typing(k) => {
                    self.text.clear();
                    self.cursor = 0;
                }
                KeyCode::Backspace | KeyCode::Delete => {
                    self.clear();
                    return true;
                }
                KeyCode::Left | KeyCode::Home => {
                    self.cursor = 0;
                    return true;
                }
                KeyCode::Right | KeyCode::End => return true,
                _ => {
                    self.selected = true;
                    return false;
                }
            }
        }
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

/// A key that types a character (no Ctrl, no Alt): the keymap's own
/// test, so the code and the hints (`Keymap::hint_with`) agree on what a
/// text field takes as typing.
pub(crate) fn is_typing(k: &KeyEvent) -> bool {
    Key::from_event(k).is_typed()
}

/// The most fields a form shows (flat elicitation schemas are small).
pub(super) const MAX_FIELDS: usize = 200;

/// The most options a choice offers.
pub(super) const MAX_OPTIONS: usize = 500;

/// The options of an enum schema: `enum` (+ `enumNames`), or
/// `oneOf`/`anyOf` of `{const, title}`.
pub(crate) fn options(schema: &Value) -> Option<Vec<Choice>> {
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

/// Type-ahead in a choice: the next option after `from` (wrapping) whose
/// label starts with `c`, case aside; `None` when no label does.
pub(crate) fn jump_to(options: &[Choice], from: Option<usize>, c: char) -> Option<usize> {
    let n = options.len();
    let starts = |o: &Choice| {
        o.label
            .trim_start()
            .chars()
            .next()
            .is_some_and(|f| f.to_lowercase().eq(c.to_lowercase()))
    };
    let start = from.map_or(0, |i| i + 1);
    (0..n)
        .map(|k| (start + k) % n)
        .find(|&i| starts(&options[i]))
}

/// Type-ahead in a yes/no: `y` is yes, `n` is no.
pub(crate) fn yes_no(c: char) -> Option<bool> {
    match c.to_ascii_lowercase() {
        'y' => Some(true),
        'n' => Some(false),
        _ => None,
    }
}

pub(crate) fn label_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(super) fn type_of(schema: &Value) -> Option<&str> {
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
                    line: LineEdit::prefilled(
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
                    line: LineEdit::prefilled(
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

    /// The answer as it stands, raw (the text typed, the choice made),
    /// to tell whether anything was typed.
    fn answer(&self) -> Value {
        match &self.input {
            Input::Text { line, .. } | Input::Number { line, .. } | Input::Json { line, .. } => {
                Value::String(line.text.clone())
            }
            Input::Bool(b) => b.map_or(Value::Null, Value::Bool),
            Input::One { sel, .. } => sel.map_or(Value::Null, Value::from),
            Input::Many { picked, .. } => Value::from(picked.clone()),
        }
    }

    /// Empty it: no text, no answer, no choice, nothing ticked. False
    /// when it was empty.
    pub(super) fn clear(&mut self) -> bool {
        match &mut self.input {
            Input::Text { line, .. } | Input::Number { line, .. } | Input::Json { line, .. } => {
                line.clear()
            }
            Input::Bool(b) => b.take().is_some(),
            Input::One { sel, .. } => sel.take().is_some(),
            Input::Many { picked, .. } => {
                let any = picked.iter().any(|p| *p);
                picked.iter_mut().for_each(|p| *p = false);
                any
            }
        }
    }

    /// A letter on a field not typed into: the next choice (or option)
    /// starting with it, or yes / no. False when it does nothing.
    pub(super) fn jump(&mut self, c: char) -> bool {
        match &mut self.input {
            Input::One { options, sel } => match jump_to(options, *sel, c) {
                Some(i) if *sel != Some(i) => {
                    *sel = Some(i);
                    true
                }
                _ => false,
            },
            Input::Many { options, at, .. } => match jump_to(options, Some(*at), c) {
                Some(i) if *at != i => {
                    *at = i;
                    true
                }
                _ => false,
            },
            Input::Bool(b) => match yes_no(c) {
                Some(v) if *b != Some(v) => {
                    *b = Some(v);
                    true
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// What is wrong with the field as it stands.
    pub fn error(&self) -> Option<String> {
        self.value().err()
    }

    /// Space: flip, pick the next choice, tick the option under the cursor.
    pub(super) fn toggle(&mut self) -> bool {
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
    pub(super) fn cycle(&mut self, by: isize) -> bool {
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

pub(super) fn json_input(default: Option<&Value>, ty: Option<&str>) -> Input {
    Input::Json {
        line: LineEdit::prefilled(default.map(|d| d.to_string()).unwrap_or_default()),
        ty: ty.map(str::to_string),
    }
}

/// The basic checks of the spec's string formats.
pub(crate) fn check_format(format: &str, text: &str) -> Result<(), String> {
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

pub(super) fn is_email(t: &str) -> bool {
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

pub(super) fn digits(t: &str) -> Option<u32> {
    (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        .then(|| t.parse().ok())
        .flatten()
}

pub(super) fn is_date(t: &str) -> bool {
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
pub(super) fn is_date_time(t: &str) -> bool {
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
        let fields: Vec<Field> = schema
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
        let opened = fields.iter().map(Field::answer).collect();
        Form {
            message: text_of(params.get("message")).unwrap_or_default(),
            fields,
            focus: 0,
            opened,
            confirm: None,
        }
    }

    /// Whether any answer differs from what the form opened with.
    pub fn changed(&self) -> bool {
        self.fields
            .iter()
            .map(Field::answer)
            .ne(self.opened.iter().cloned())
    }

    /// The button with the focus, if the focus is past the fields.
    pub fn button(&self) -> Option<Leave> {
        self.focus
            .checked_sub(self.fields.len())
            .and_then(|i| BUTTONS.get(i).copied())
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

    /// Over the fields, then the buttons (clamped).
    pub(super) fn move_focus(&mut self, by: isize) {
        let n = self.fields.len() + BUTTONS.len();
        self.focus = (self.focus as isize)
            .saturating_add(by)
            .clamp(0, n as isize - 1) as usize;
    }
}
