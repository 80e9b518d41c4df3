//! The argument form of a tool, made from its `inputSchema`: one field per
//! property in the schema's order (required ones marked), typed inputs
//! (text, numbers checked as they are typed, yes/no, choices), objects as
//! nested groups, arrays whose items are added and removed, and each field
//! validated by its path. Plain data: keys come in, values go out; the
//! editor (`tui::app::editor`) and its render (`tui::ui::editor`) use it.
//!
//! What is sent: a field left empty is left out, unless it is required:
//! then an empty text is sent as `""`, an empty nullable field as `null`,
//! and any other empty required field is a problem. A default is shown as
//! a placeholder and is not sent unless it is typed, or the field is
//! required (a required field starts with its default). Every problem
//! blocks sending from the form (the raw JSON sends as it is).

mod build;
mod json;

use crossterm::event::KeyEvent;
use serde_json::{Map, Value};

use crate::tui::ask::{Choice, LineEdit};
pub(crate) use build::{escape_key, shown_path};
pub use json::{escape_invisible, json_text, slots};

/// Items one list holds at most in the form.
pub const MAX_ITEMS: usize = 256;

/// A tool's arguments as a form.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgForm {
    /// The top-level properties, in the schema's order.
    pub fields: Vec<Node>,
    /// The focused row, as indices from `fields` down (empty: none).
    pub focus: Vec<usize>,
    /// Problems by JSON pointer: fields that cannot be read, then schema
    /// violations (of the arguments the form would send).
    pub errors: Vec<(String, String)>,
    /// Every problem as a line (`/a: not a number`), for the list.
    pub problems: Vec<String>,
    schema: Value,
    /// The form as it opens: empty but for required fields' defaults.
    blank: Vec<Node>,
}

/// What the editor's reset key comes back to at the end of its round:
/// the form as it was (half-typed fields and all), or the JSON text.
#[derive(Debug, Clone, PartialEq)]
pub enum Draft {
    Form(Box<ArgForm>),
    Json(String),
}

/// One property, or one item of a list.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The property's name (the key sent); empty for a list's item.
    pub key: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub required: bool,
    /// `null` is allowed (a required nullable field left empty sends it).
    pub nullable: bool,
    pub default: Option<Value>,
    /// The first of `examples` (or `example`), shown as a placeholder.
    pub example: Option<Value>,
    /// What it takes, in a few words: `whole number, 1 to 100`.
    pub hint: String,
    pub kind: Kind,
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Text {
        line: LineEdit,
        format: Option<String>,
    },
    Number {
        line: LineEdit,
        integer: bool,
    },
    /// `None`: not set.
    Bool(Option<bool>),
    /// An enum, a const, or `oneOf`/`anyOf` of consts.
    Choice {
        options: Vec<Choice>,
        sel: Option<usize>,
    },
    /// Anything else (several types, free-form objects, tuples): JSON.
    Json {
        line: LineEdit,
    },
    /// A nested group.
    Object {
        fields: Vec<Node>,
    },
    /// A list; new items are copies of `proto`.
    Array {
        items: Vec<Node>,
        proto: Box<Node>,
    },
}

/// One row of the form as shown: a node, where it is, how deep.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Indices from the form's fields down to the node.
    pub at: Vec<usize>,
    /// Its JSON pointer in the arguments (`/config/tags/0`).
    pub path: String,
    pub depth: usize,
    /// Its index, when it is a list's item.
    pub item: Option<usize>,
}

/// How values are read: for sending (a field that cannot be read is a
/// problem), or as a draft to keep (such a field keeps its text).
#[derive(Clone, Copy, PartialEq)]
enum Read {
    Strict,
    Draft,
}

impl Node {
    /// The label shown: the property's name (what is sent).
    pub fn label(&self) -> &str {
        &self.key
    }

    /// The line typed into, for text, numbers and JSON.
    pub fn line(&self) -> Option<&LineEdit> {
        match &self.kind {
            Kind::Text { line, .. } | Kind::Number { line, .. } | Kind::Json { line } => Some(line),
            _ => None,
        }
    }

    fn line_mut(&mut self) -> Option<&mut LineEdit> {
        match &mut self.kind {
            Kind::Text { line, .. } | Kind::Number { line, .. } | Kind::Json { line } => Some(line),
            _ => None,
        }
    }

    /// Whether keys type into it.
    pub fn is_text(&self) -> bool {
        self.line().is_some()
    }

    /// Whether the focus stops on it (groups do not: their fields do).
    pub fn focusable(&self) -> bool {
        !matches!(self.kind, Kind::Object { .. })
    }

    /// Whether nothing is filled in (recursively).
    pub fn is_empty(&self) -> bool {
        match &self.kind {
            Kind::Text { line, .. } | Kind::Number { line, .. } | Kind::Json { line } => {
                line.text.is_empty()
            }
            Kind::Bool(b) => b.is_none(),
            Kind::Choice { sel, .. } => sel.is_none(),
            Kind::Object { fields } => fields.iter().all(Node::is_empty),
            Kind::Array { items, .. } => items.is_empty(),
        }
    }

    fn children(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Object { fields } => Some(fields),
            Kind::Array { items, .. } => Some(items),
            _ => None,
        }
    }

    fn children_mut(&mut self) -> Option<&mut Vec<Node>> {
        match &mut self.kind {
            Kind::Object { fields } => Some(fields),
            Kind::Array { items, .. } => Some(items),
            _ => None,
        }
    }

    /// Select what its lines hold (a prefilled default): the first key
    /// typed replaces it.
    pub(crate) fn select_lines(&mut self) {
        if let Some(line) = self.line_mut() {
            line.select_all();
        }
        if let Some(children) = self.children_mut() {
            children.iter_mut().for_each(Node::select_lines);
        }
    }

    /// Empty it: no text, no choice, no items.
    fn clear(&mut self) {
        match &mut self.kind {
            Kind::Text { line, .. } | Kind::Number { line, .. } | Kind::Json { line } => {
                *line = LineEdit::default()
            }
            Kind::Bool(b) => *b = None,
            Kind::Choice { sel, .. } => *sel = None,
            Kind::Object { fields } => fields.iter_mut().for_each(Node::clear),
            Kind::Array { items, .. } => items.clear(),
        }
    }

    /// Show `v` in this node; `Err` says why the form cannot.
    pub(crate) fn load(&mut self, v: &Value, path: &str) -> Result<(), String> {
        let at = shown_path(path);
        // A required nullable field shows null as empty (it sends null).
        let null_ok = v.is_null()
            && self.nullable
            && self.required
            && matches!(
                self.kind,
                Kind::Number { .. } | Kind::Bool(_) | Kind::Choice { .. }
            );
        if null_ok {
            if let Kind::Choice { options, sel } = &mut self.kind {
                *sel = options.iter().position(|o| o.value.is_null());
            } else {
                self.clear();
            }
            return Ok(());
        }
        let required = self.required;
        match (&mut self.kind, v) {
            (Kind::Text { .. }, Value::String(s)) if s.is_empty() && !required => Err(format!(
                "{at}: an empty text in an optional field (the form leaves empty fields out)"
            )),
            (Kind::Text { line, .. }, Value::String(s)) => {
                *line = LineEdit::new(s.clone());
                Ok(())
            }
            (Kind::Number { line, .. }, Value::Number(n)) => {
                *line = LineEdit::new(n.to_string());
                Ok(())
            }
            // What the form wrote for a number it could not read (`4x`):
            // back as the text typed, still flagged. A string that is a
            // number (`"12"`) is a real mismatch, and stays in the JSON.
            (Kind::Number { line, integer }, Value::String(t))
                if !t.trim().is_empty() && number(t.trim(), *integer).is_err() =>
            {
                *line = LineEdit::new(t.clone());
                Ok(())
            }
            (Kind::Bool(b), Value::Bool(x)) => {
                *b = Some(*x);
                Ok(())
            }
            (Kind::Choice { options, sel }, v) => {
                match options.iter().position(|o| &o.value == v) {
                    Some(i) => {
                        *sel = Some(i);
                        Ok(())
                    }
                    None => Err(format!("{at}: {} is not one of the choices", short(v))),
                }
            }
            (Kind::Json { line }, v) => {
                *line = LineEdit::new(v.to_string());
                Ok(())
            }
            (Kind::Object { fields }, Value::Object(m)) => {
                fields.iter_mut().for_each(Node::clear);
                load_fields(fields, m, path)?;
                if !required && fields.iter().all(Node::is_empty) {
                    return Err(format!(
                        "{at}: an optional group with nothing filled in (the form leaves it out)"
                    ));
                }
                Ok(())
            }
            (Kind::Array { .. }, Value::Array(a)) if a.is_empty() && !required => Err(format!(
                "{at}: an empty list in an optional field (the form leaves it out)"
            )),
            (Kind::Array { items, proto }, Value::Array(a)) => {
                if a.len() > MAX_ITEMS {
                    return Err(format!("{at}: more than {MAX_ITEMS} items"));
                }
                let mut loaded = Vec::with_capacity(a.len());
                for (i, x) in a.iter().enumerate() {
                    let mut item = (**proto).clone();
                    item.clear();
                    item.load(x, &format!("{path}/{i}"))?;
                    loaded.push(item);
                }
                *items = loaded;
                Ok(())
            }
            (kind, v) => Err(format!(
                "{at}: {} where the form has {}",
                short(v),
                kind_name(kind)
            )),
        }
    }

    /// The value to send: `None` when it is left out.
    fn read(&self, path: &str, how: Read, errs: &mut Vec<(String, String)>) -> Option<Value> {
        let mut bad = |msg: &str| errs.push((path.to_string(), msg.to_string()));
        let empty_required = |bad: &mut dyn FnMut(&str), what: &str| {
            if self.nullable {
                Some(Value::Null)
            } else {
                bad(what);
                None
            }
        };
        match &self.kind {
            Kind::Text { line, format } => {
                if line.text.is_empty() {
                    return self.required.then(|| Value::String(String::new()));
                }
                if let Some(f) = format
                    && let Err(e) = crate::tui::ask::check_format(f, &line.text)
                {
                    bad(&e);
                    if how == Read::Strict {
                        return None;
                    }
                }
                Some(Value::String(line.text.clone()))
            }
            Kind::Number { line, integer } => {
                let t = line.text.trim();
                if t.is_empty() {
                    return if self.required {
                        empty_required(&mut bad, "required")
                    } else {
                        None
                    };
                }
                match number(t, *integer) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        bad(e);
                        (how == Read::Draft).then(|| Value::String(line.text.clone()))
                    }
                }
            }
            Kind::Bool(b) => match b {
                Some(b) => Some(Value::Bool(*b)),
                None if self.required => empty_required(&mut bad, "required: yes or no"),
                None => None,
            },
            Kind::Choice { options, sel } => match sel.and_then(|i| options.get(i)) {
                Some(o) => Some(o.value.clone()),
                None if self.required => empty_required(&mut bad, "required: choose one"),
                None => None,
            },
            Kind::Json { line } => {
                if line.text.trim().is_empty() {
                    return if self.required {
                        empty_required(&mut bad, "required")
                    } else {
                        None
                    };
                }
                match serde_json::from_str::<Value>(&line.text) {
                    Ok(v) => Some(v),
                    Err(_) => {
                        bad("not valid JSON");
                        (how == Read::Draft).then(|| Value::String(line.text.clone()))
                    }
                }
            }
            // An optional group with nothing filled in is left out (its
            // required fields included).
            Kind::Object { .. } if !self.required && self.is_empty() => None,
            Kind::Object { fields } => Some(Value::Object(read_fields(fields, path, how, errs))),
            Kind::Array { items, .. } => {
                let list: Vec<Value> = items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, n)| n.read(&format!("{path}/{i}"), how, errs))
                    .collect();
                (self.required || !items.is_empty()).then_some(Value::Array(list))
            }
        }
    }
}

/// A number as typed: an integer field takes whole numbers only.
fn number(t: &str, integer: bool) -> Result<Value, &'static str> {
    if let Ok(n) = t.parse::<i64>() {
        return Ok(Value::from(n));
    }
    if let Ok(n) = t.parse::<u64>() {
        return Ok(Value::from(n));
    }
    let f: Option<f64> = t.parse().ok().filter(|f: &f64| f.is_finite());
    match f {
        Some(_) if integer => Err("not a whole number"),
        Some(f) => serde_json::Number::from_f64(f)
            .map(Value::Number)
            .ok_or("not a number"),
        None if integer => Err("not a whole number"),
        None => Err("not a number"),
    }
}

fn kind_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Text { .. } => "a text",
        Kind::Number { integer: true, .. } => "a whole number",
        Kind::Number { .. } => "a number",
        Kind::Bool(_) => "yes/no",
        Kind::Choice { .. } => "a choice",
        Kind::Json { .. } => "JSON",
        Kind::Object { .. } => "an object",
        Kind::Array { .. } => "a list",
    }
}

/// A value in a few characters, for messages.
fn short(v: &Value) -> String {
    let t = v.to_string();
    if t.chars().count() > 40 {
        t.chars().take(39).collect::<String>() + "…"
    } else {
        t
    }
}

fn load_fields(fields: &mut [Node], m: &Map<String, Value>, path: &str) -> Result<(), String> {
    for (k, v) in m {
        let here = format!("{path}/{}", escape_key(k));
        match fields.iter_mut().find(|f| f.key == *k) {
            Some(f) => f.load(v, &here)?,
            None => {
                return Err(format!(
                    "{here}: not in the schema, so the form cannot show it"
                ));
            }
        }
    }
    Ok(())
}

fn read_fields(
    fields: &[Node],
    path: &str,
    how: Read,
    errs: &mut Vec<(String, String)>,
) -> Map<String, Value> {
    let mut m = Map::new();
    for f in fields {
        if let Some(v) = f.read(&format!("{path}/{}", escape_key(&f.key)), how, errs) {
            m.insert(f.key.clone(), v);
        }
    }
    m
}

fn walk(
    nodes: &[Node],
    prefix: &[usize],
    path: &str,
    depth: usize,
    items: bool,
    out: &mut Vec<Row>,
) {
    for (i, n) in nodes.iter().enumerate() {
        let mut at = prefix.to_vec();
        at.push(i);
        let here = if items {
            format!("{path}/{i}")
        } else {
            format!("{path}/{}", escape_key(&n.key))
        };
        out.push(Row {
            at: at.clone(),
            path: here.clone(),
            depth,
            item: items.then_some(i),
        });
        match &n.kind {
            Kind::Object { fields } => walk(fields, &at, &here, depth + 1, false, out),
            Kind::Array { items, .. } => walk(items, &at, &here, depth + 1, true, out),
            _ => {}
        }
    }
}

fn node_in<'a>(nodes: &'a [Node], at: &[usize]) -> Option<&'a Node> {
    let (first, rest) = at.split_first()?;
    let n = nodes.get(*first)?;
    if rest.is_empty() {
        Some(n)
    } else {
        node_in(n.children()?, rest)
    }
}

fn node_in_mut<'a>(nodes: &'a mut [Node], at: &[usize]) -> Option<&'a mut Node> {
    let (first, rest) = at.split_first()?;
    let n = nodes.get_mut(*first)?;
    if rest.is_empty() {
        Some(n)
    } else {
        node_in_mut(n.children_mut()?, rest)
    }
}

impl ArgForm {
    /// The form of a schema, or why it has none (the schema uses what a
    /// form cannot express: object alternatives, `$ref` cycles,
    /// `patternProperties`, names it does not list).
    pub fn new(schema: &Value) -> Result<ArgForm, String> {
        let fields = build::Builder::new(schema).root_fields()?;
        let mut form = ArgForm {
            blank: fields.clone(),
            fields,
            focus: Vec::new(),
            errors: Vec::new(),
            problems: Vec::new(),
            schema: schema.clone(),
        };
        form.focus = form.first_focus();
        form.revalidate();
        Ok(form)
    }

    /// Every row, in order.
    pub fn rows(&self) -> Vec<Row> {
        let mut out = Vec::new();
        walk(&self.fields, &[], "", 0, false, &mut out);
        out
    }

    pub fn node(&self, at: &[usize]) -> Option<&Node> {
        node_in(&self.fields, at)
    }

    fn node_mut(&mut self, at: &[usize]) -> Option<&mut Node> {
        node_in_mut(&mut self.fields, at)
    }

    pub fn focused(&self) -> Option<&Node> {
        self.node(&self.focus)
    }

    /// Whether keys type into the focused field.
    pub fn typing(&self) -> bool {
        self.focused().is_some_and(Node::is_text)
    }

    /// The first problem at this path, if any.
    pub fn error_at(&self, path: &str) -> Option<&str> {
        self.errors
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, m)| m.as_str())
    }

    /// The row path of the focus (`/a/0`), if any.
    pub fn focus_path(&self) -> Option<String> {
        self.rows()
            .into_iter()
            .find(|r| r.at == self.focus)
            .map(|r| r.path)
    }

    fn first_focus(&self) -> Vec<usize> {
        self.rows()
            .into_iter()
            .find(|r| self.node(&r.at).is_some_and(Node::focusable))
            .map(|r| r.at)
            .unwrap_or_default()
    }

    /// The first row at or under `at` that takes the focus.
    fn first_focus_within(&self, at: &[usize]) -> Option<Vec<usize>> {
        self.rows()
            .into_iter()
            .find(|r| r.at.starts_with(at) && self.node(&r.at).is_some_and(Node::focusable))
            .map(|r| r.at)
    }

    /// Move the focus over the fields that take it, by `by` (clamped).
    pub fn move_focus(&mut self, by: isize) {
        let stops: Vec<Vec<usize>> = self
            .rows()
            .into_iter()
            .filter(|r| self.node(&r.at).is_some_and(Node::focusable))
            .map(|r| r.at)
            .collect();
        if stops.is_empty() {
            self.focus.clear();
            return;
        }
        let here = stops.iter().position(|a| *a == self.focus).unwrap_or(0) as isize;
        let to = (here + by).clamp(0, stops.len() as isize - 1) as usize;
        self.focus = stops[to].clone();
    }

    /// Focus the first field with a problem; false when none has one.
    pub fn focus_first_problem(&mut self) -> bool {
        let hit = self.rows().into_iter().find(|r| {
            self.node(&r.at).is_some_and(Node::focusable) && self.error_at(&r.path).is_some()
        });
        match hit {
            Some(r) => {
                self.focus = r.at;
                true
            }
            None => false,
        }
    }

    /// A text-entry key into the focused field; false when it is none.
    pub fn edit(&mut self, k: &KeyEvent) -> bool {
        let at = self.focus.clone();
        let changed = self
            .node_mut(&at)
            .and_then(Node::line_mut)
            .is_some_and(|line| line.key(k));
        if changed {
            self.revalidate();
        }
        changed
    }

    /// Space: flip a yes/no (an optional one passes by "not set"), or
    /// take the next choice.
    pub fn toggle(&mut self) -> bool {
        let at = self.focus.clone();
        let Some(n) = self.node_mut(&at) else {
            return false;
        };
        let required = n.required;
        let done = match &mut n.kind {
            Kind::Bool(b) => {
                *b = match *b {
                    None => Some(true),
                    Some(true) => Some(false),
                    Some(false) if required => Some(true),
                    Some(false) => None,
                };
                true
            }
            Kind::Choice { .. } => return self.cycle(1),
            _ => false,
        };
        if done {
            self.revalidate();
        }
        done
    }

    /// A letter on a field that is not typed into: the next choice whose
    /// label starts with it, or yes / no (`y`, `n`). False when it does
    /// nothing.
    pub fn jump(&mut self, c: char) -> bool {
        let at = self.focus.clone();
        let Some(n) = self.node_mut(&at) else {
            return false;
        };
        let done = match &mut n.kind {
            Kind::Choice { options, sel } => match crate::tui::ask::jump_to(options, *sel, c) {
                Some(i) if *sel != Some(i) => {
                    *sel = Some(i);
                    true
                }
                _ => false,
            },
            Kind::Bool(b) => match crate::tui::ask::yes_no(c) {
                Some(v) if *b != Some(v) => {
                    *b = Some(v);
                    true
                }
                _ => false,
            },
            _ => false,
        };
        if done {
            self.revalidate();
        }
        done
    }

    /// Empty the focused field: no text, yes/no not set, no choice. A
    /// list keeps its items (they are removed one by one). `Err` says why
    /// nothing was cleared.
    pub fn clear_focused(&mut self) -> Result<(), String> {
        let at = self.focus.clone();
        let Some(n) = self.node_mut(&at) else {
            return Err("no field has the focus".into());
        };
        if matches!(n.kind, Kind::Array { .. } | Kind::Object { .. }) {
            return Err("a list is emptied item by item".into());
        }
        if n.is_empty() {
            return Ok(());
        }
        n.clear();
        self.revalidate();
        Ok(())
    }

    /// Select the focused field's text (the next key typed replaces it).
    pub fn select_focused(&mut self) -> bool {
        let at = self.focus.clone();
        self.node_mut(&at)
            .and_then(Node::line_mut)
            .is_some_and(LineEdit::select_all)
    }

    /// ←/→: the previous/next choice (an optional one passes by "none"),
    /// or yes/no.
    pub fn cycle(&mut self, by: isize) -> bool {
        let at = self.focus.clone();
        let Some(n) = self.node_mut(&at) else {
            return false;
        };
        let required = n.required;
        let done = match &mut n.kind {
            Kind::Choice { options, sel } if !options.is_empty() => {
                let none = usize::from(!required);
                let len = (options.len() + none) as isize;
                let pos = match *sel {
                    Some(i) => (i + none) as isize,
                    None if required && by > 0 => -1,
                    None => 0,
                };
                let next = (pos + by).rem_euclid(len) as usize;
                *sel = if next < none { None } else { Some(next - none) };
                true
            }
            Kind::Bool(b) => {
                *b = Some(!b.unwrap_or(false));
                true
            }
            _ => false,
        };
        if done {
            self.revalidate();
        }
        done
    }

    /// The list around the focus, and where a new item goes: after the
    /// focused item, or at the end when a list's own row is focused.
    fn list_for_add(&self) -> Option<(Vec<usize>, usize)> {
        if let Some(Kind::Array { items, .. }) = self.focused().map(|n| &n.kind) {
            return Some((self.focus.clone(), items.len()));
        }
        self.item_around().map(|(list, i)| (list, i + 1))
    }

    /// The innermost list item holding the focus: the list and the index.
    fn item_around(&self) -> Option<(Vec<usize>, usize)> {
        (1..self.focus.len()).rev().find_map(|cut| {
            let list = &self.focus[..cut];
            matches!(self.node(list)?.kind, Kind::Array { .. })
                .then(|| (list.to_vec(), self.focus[cut]))
        })
    }

    /// Whether the focus is in a list's item (then it can be removed).
    pub fn in_list(&self) -> bool {
        self.item_around().is_some()
    }

    /// Add an item to the list around the focus and focus it. `Err` says
    /// why not.
    pub fn add_item(&mut self) -> Result<String, String> {
        let Some((list, index)) = self.list_for_add() else {
            return Err("the focused field is not in a list".into());
        };
        let Some(Node {
            kind: Kind::Array { items, proto },
            key,
            ..
        }) = self.node_mut(&list)
        else {
            return Err("the focused field is not in a list".into());
        };
        if items.len() >= MAX_ITEMS {
            return Err(format!("a list holds at most {MAX_ITEMS} items here"));
        }
        let key = key.clone();
        let index = index.min(items.len());
        items.insert(index, (**proto).clone());
        let mut at = list;
        at.push(index);
        self.focus = at.clone();
        // Into the new item's first field, for an object.
        if let Some(inside) = self.first_focus_within(&at) {
            self.focus = inside;
        }
        self.revalidate();
        Ok(format!("item {index} added to {}", key_or_list(&key)))
    }

    /// Remove the list item holding the focus. `Err` says why not.
    pub fn remove_item(&mut self) -> Result<String, String> {
        let Some((list, index)) = self.item_around() else {
            return Err("the focused field is not a list's item".into());
        };
        let Some(Node {
            kind: Kind::Array { items, .. },
            key,
            ..
        }) = self.node_mut(&list)
        else {
            return Err("the focused field is not a list's item".into());
        };
        if index >= items.len() {
            return Err("the focused field is not a list's item".into());
        }
        items.remove(index);
        let (left, key) = (items.len(), key.clone());
        let mut at = list.clone();
        if left > 0 {
            at.push(index.min(left - 1));
        }
        self.focus = match self.first_focus_within(&at) {
            Some(inside) if left > 0 => inside,
            _ => list,
        };
        self.revalidate();
        Ok(format!("item {index} removed from {}", key_or_list(&key)))
    }

    /// The arguments to send, or the fields that cannot be read.
    pub fn value(&self) -> Result<Map<String, Value>, Vec<(String, String)>> {
        let mut errs = Vec::new();
        let m = read_fields(&self.fields, "", Read::Strict, &mut errs);
        if errs.is_empty() { Ok(m) } else { Err(errs) }
    }

    /// The arguments as a draft: a field that cannot be read keeps its
    /// text (as a string), so nothing typed is lost.
    pub fn draft(&self) -> Map<String, Value> {
        read_fields(&self.fields, "", Read::Draft, &mut Vec::new())
    }

    /// Show these arguments in the form, or say why it cannot (then the
    /// form is unchanged).
    pub fn load(&mut self, v: &Value) -> Result<(), String> {
        let Value::Object(m) = v else {
            return Err("the arguments are not a JSON object".into());
        };
        let mut fields = self.blank.clone();
        fields.iter_mut().for_each(Node::clear);
        load_fields(&mut fields, m, "")?;
        self.fields = fields;
        if !self.focused().is_some_and(Node::focusable) {
            self.focus = self.first_focus();
        }
        self.revalidate();
        Ok(())
    }

    /// Back to the form as it opened (the skeleton: required fields'
    /// defaults, nothing else).
    pub fn reset(&mut self) {
        self.fields = self.blank.clone();
        self.focus = self.first_focus();
        self.revalidate();
    }

    /// Check the form: fields that cannot be read, then the arguments it
    /// would send against the schema, by path.
    pub fn revalidate(&mut self) {
        let mut local = Vec::new();
        let value = Value::Object(read_fields(&self.fields, "", Read::Strict, &mut local));
        self.problems = local
            .iter()
            .map(|(p, m)| format!("{}: {m}", shown_path(p)))
            .collect();
        self.errors = local.clone();
        match crate::schema::check(&self.schema, &value) {
            Ok(violations) => {
                for v in violations {
                    // "x is a required property" at the object, when the
                    // field says so itself.
                    let said = local.iter().any(|(p, _)| {
                        p.strip_prefix(&v.path)
                            .and_then(|rest| rest.strip_prefix('/'))
                            .is_some_and(|k| {
                                !k.contains('/')
                                    && v.message
                                        == format!(
                                            "{} is a required property",
                                            Value::String(k.replace("~1", "/").replace("~0", "~"))
                                        )
                            })
                    });
                    if !said {
                        self.problems.push(v.to_string());
                        self.errors.push((v.path, v.message));
                    }
                }
            }
            Err(e) => self.problems.push(format!("(not validated: {e})")),
        }
    }

    /// Whether sending is blocked (a field cannot be read, or the schema
    /// is broken by what would be sent).
    pub fn blocked(&self) -> bool {
        !self.errors.is_empty()
    }
}

fn key_or_list(key: &str) -> String {
    if key.is_empty() {
        "the list".into()
    } else {
        crate::sanitize::one_line(key)
    }
}

#[cfg(test)]
mod tests;
