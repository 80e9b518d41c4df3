//! The form of a registry entry's inputs, to try it (values kept in
//! memory) or to add it to the config (secrets to the credential store):
//! the way to run it when there are several, the name in the config (to
//! add), and one field per input of that way: secrets masked as they are
//! typed, choices as choices (← → or the first letter), defaults filled
//! in. The command line it would run is shown from what the fields hold
//! (`launch::shown`, secrets masked).

use crossterm::event::KeyEvent;

use super::{Item, RegistryFx, add_name, inputs_of, start_try, ways};
use crate::registry::Input;
use crate::registry::launch::{self, Choice, Given, LaunchError, Resolved};
use crate::sanitize;
use crate::tui::app::{Effect, State};
use crate::tui::keymap::Action;

/// What the form is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Connect for this session, not in the config.
    Try,
    /// Write it to the config.
    Add,
}

/// Where an input's value goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    Env,
    Header,
    /// A `{variable}` of a URL or of a value.
    Var,
    /// An argument, by its name.
    Arg,
}

impl FieldKind {
    pub fn label(self) -> &'static str {
        match self {
            FieldKind::Env => "env",
            FieldKind::Header => "header",
            FieldKind::Var => "variable",
            FieldKind::Arg => "argument",
        }
    }
}

/// One input's field (no `Debug`: it may hold a secret).
#[derive(Clone)]
pub struct Field {
    pub kind: FieldKind,
    pub input: Input,
    /// The text typed (a field without choices).
    pub value: String,
    /// The choice taken (a field with choices; `None`: none).
    pub choice: Option<usize>,
}

impl Field {
    fn new(kind: FieldKind, input: Input) -> Field {
        let choice = input
            .default
            .as_ref()
            .and_then(|d| input.choices.iter().position(|c| c == d));
        let value = if input.choices.is_empty() {
            input.default.clone().unwrap_or_default()
        } else {
            String::new()
        };
        Field {
            kind,
            input,
            value,
            choice,
        }
    }

    pub fn has_choices(&self) -> bool {
        !self.input.choices.is_empty()
    }

    /// The value it gives, if any (an empty text gives none: the input's
    /// default, or nothing).
    pub fn given(&self) -> Option<String> {
        if self.has_choices() {
            self.choice.and_then(|i| self.input.choices.get(i).cloned())
        } else {
            (!self.value.is_empty()).then(|| self.value.clone())
        }
    }
}

/// A row of the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// The way to run it (when there are several).
    Way,
    /// The name in the config (to add).
    Name,
    Field(usize),
}

/// The form (no `Debug`: its fields may hold secrets).
#[derive(Clone)]
pub struct Form {
    pub purpose: Purpose,
    pub item: Box<Item>,
    pub ways: Vec<Choice>,
    /// Index into `ways`.
    pub way: usize,
    /// The name in the config (to add).
    pub name: String,
    pub fields: Vec<Field>,
    /// Index into `rows()`.
    pub row: usize,
    pub error: Option<String>,
    /// The add is being written.
    pub busy: bool,
}

impl Form {
    pub fn new(s: &State, item: &Item, purpose: Purpose) -> Form {
        let all = ways(&item.entry);
        let way = item
            .default
            .as_ref()
            .ok()
            .and_then(|c| all.iter().position(|w| w == c))
            .unwrap_or(0);
        let mut form = Form {
            purpose,
            item: Box::new(item.clone()),
            ways: all,
            way,
            name: add_name(s, &item.entry),
            fields: Vec::new(),
            row: 0,
            error: None,
            busy: false,
        };
        form.fields = form.fields_for(&[]);
        // The first field that needs a value, else the first row.
        form.row = form
            .rows()
            .iter()
            .position(|r| match r {
                Row::Field(i) => {
                    let f = &form.fields[*i];
                    f.input.required && f.given().is_none()
                }
                _ => false,
            })
            .unwrap_or(0);
        form
    }

    pub fn choice(&self) -> Option<Choice> {
        self.ways.get(self.way).copied()
    }

    /// The fields of the way picked, keeping what was typed into fields of
    /// the same name.
    fn fields_for(&self, old: &[Field]) -> Vec<Field> {
        let Some(c) = self.choice() else {
            return Vec::new();
        };
        inputs_of(&self.item.entry, c)
            .into_iter()
            .map(|(kind, input)| {
                match old
                    .iter()
                    .find(|f| f.kind == kind && f.input.name == input.name)
                {
                    Some(f) => Field { input, ..f.clone() },
                    None => Field::new(kind, input),
                }
            })
            .collect()
    }

    pub fn rows(&self) -> Vec<Row> {
        let mut rows = Vec::new();
        if self.ways.len() > 1 {
            rows.push(Row::Way);
        }
        if self.purpose == Purpose::Add {
            rows.push(Row::Name);
        }
        rows.extend((0..self.fields.len()).map(Row::Field));
        rows
    }

    pub fn current(&self) -> Option<Row> {
        let rows = self.rows();
        rows.get(self.row.min(rows.len().saturating_sub(1)))
            .copied()
    }

    /// What the fields give, as the CLI's flags would (an argument's value
    /// by its name, as for a `{variable}`).
    pub fn given(&self) -> Given {
        let mut g = Given::default();
        for f in &self.fields {
            let Some(v) = f.given() else { continue };
            let pair = (f.input.name.clone(), v);
            match f.kind {
                FieldKind::Env => g.env.push(pair),
                FieldKind::Header => g.headers.push(pair),
                FieldKind::Var | FieldKind::Arg => g.vars.push(pair),
            }
        }
        g.args = g.vars.clone();
        g
    }

    /// The entry resolved with what the fields hold.
    pub fn resolve(&self) -> Result<Resolved, LaunchError> {
        let c = self
            .choice()
            .ok_or_else(|| LaunchError::Choice("nothing to run".into()))?;
        launch::resolve(&self.item.entry, c, &self.given())
    }

    fn set_way(&mut self, way: usize) {
        if way == self.way || way >= self.ways.len() {
            return;
        }
        self.way = way;
        let old = std::mem::take(&mut self.fields);
        self.fields = self.fields_for(&old);
        self.error = None;
    }
}

fn say(s: &mut State, note: impl Into<String>) {
    s.status = Some(note.into());
}

/// The next option after `at` whose label starts with `c` (any case).
fn jump(labels: &[String], at: Option<usize>, c: char) -> Option<usize> {
    let n = labels.len();
    let start = at.map_or(0, |i| i + 1);
    (0..n).map(|k| (start + k) % n).find(|&i| {
        labels[i]
            .chars()
            .next()
            .is_some_and(|f| f.to_lowercase().eq(c.to_lowercase()))
    })
}

/// A key in the form.
pub fn key(s: &mut State, k: KeyEvent, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let Some(form) = s.registry.form.as_mut() else {
        return false;
    };
    if form.busy {
        say(s, "adding… (the config is being written)");
        return true;
    }
    let row = form.current();
    // Text rows take what is typed (the raw keys of text entry, through
    // `edit_line`); on a choice, a letter picks the next option starting
    // with it (read through `edit_line` too, never a command).
    let mut typed = String::new();
    let is_text = match row {
        Some(Row::Name) => true,
        Some(Row::Field(i)) => !form.fields[i].has_choices(),
        _ => false,
    };
    if is_text {
        let text = match row {
            Some(Row::Name) => &mut form.name,
            Some(Row::Field(i)) => &mut form.fields[i].value,
            _ => &mut typed,
        };
        if crate::tui::app::edit_line(text, &k) {
            form.error = None;
            return true;
        }
    } else if crate::tui::app::edit_line(&mut typed, &k) {
        if let Some(c) = typed.chars().next() {
            match row {
                Some(Row::Way) => {
                    let labels: Vec<String> = form
                        .ways
                        .iter()
                        .map(|w| super::way_label(&form.item.entry, *w))
                        .collect();
                    if let Some(i) = jump(&labels, Some(form.way), c) {
                        form.set_way(i);
                    }
                }
                Some(Row::Field(i)) => {
                    let f = &mut form.fields[i];
                    if let Some(j) = jump(&f.input.choices, f.choice, c) {
                        f.choice = Some(j);
                    }
                }
                _ => {}
            }
        }
        return true;
    }
    let Some(a) = action else {
        return false;
    };
    let n = form.rows().len();
    match a {
        Action::Back => {
            s.registry.form = None;
            return true;
        }
        Action::Up | Action::PrevPane => {
            form.row = form.row.min(n.saturating_sub(1)).saturating_sub(1)
        }
        Action::Down | Action::NextPane => form.row = (form.row + 1).min(n.saturating_sub(1)),
        Action::Left | Action::Right => {
            let by: isize = if a == Action::Right { 1 } else { -1 };
            match row {
                Some(Row::Way) => {
                    let len = form.ways.len() as isize;
                    let next = (form.way as isize + by).rem_euclid(len.max(1)) as usize;
                    form.set_way(next);
                }
                Some(Row::Field(i)) if form.fields[i].has_choices() => {
                    // None, then each choice, around.
                    let f = &mut form.fields[i];
                    let len = f.input.choices.len() as isize + 1;
                    let at = f.choice.map_or(0, |c| c as isize + 1);
                    let next = (at + by).rem_euclid(len);
                    f.choice = (next > 0).then(|| next as usize - 1);
                }
                _ => return false,
            }
        }
        Action::ClearField => match row {
            Some(Row::Name) => form.name.clear(),
            Some(Row::Field(i)) => {
                form.fields[i].value.clear();
                form.fields[i].choice = None;
            }
            _ => return false,
        },
        Action::Open if form.row + 1 < n => form.row += 1,
        Action::Open | Action::Send => return submit(s, fx),
        Action::Help => {
            s.help_back = Some(crate::tui::app::Mode::Registry);
            s.mode = crate::tui::app::Mode::Help;
        }
        _ => return false,
    }
    if let Some(f) = s.registry.form.as_mut() {
        f.error = None;
    }
    true
}

/// The fields' values, checked: tried, or handed to the driver to add.
pub fn submit(s: &mut State, fx: &mut Vec<Effect>) -> bool {
    let Some(form) = s.registry.form.as_ref() else {
        return false;
    };
    let resolved = form.resolve();
    let r = match resolved {
        Ok(r) => r,
        Err(LaunchError::Missing(missing)) => {
            let names: Vec<String> = missing
                .iter()
                .map(|m| sanitize::one_line(&m.input.name))
                .collect();
            let first = missing.first().map(|m| m.input.name.clone());
            let Some(form) = s.registry.form.as_mut() else {
                return false;
            };
            if let Some(name) = first {
                let rows = form.rows();
                if let Some(at) = rows
                    .iter()
                    .position(|r| matches!(r, Row::Field(i) if form.fields[*i].input.name == name))
                {
                    form.row = at;
                }
            }
            form.error = Some(format!("still needed: {}", names.join(", ")));
            return true;
        }
        Err(e) => {
            if let Some(form) = s.registry.form.as_mut() {
                form.error = Some(sanitize::one_line(&e.to_string()));
            }
            return true;
        }
    };
    match form.purpose {
        Purpose::Try => {
            let entry = form.item.entry.clone();
            start_try(s, &entry, r, fx)
        }
        Purpose::Add => {
            let name = form.name.trim().to_string();
            let problem = crate::config::ConfigEditor::check_server_name(&name)
                .err()
                .or_else(|| {
                    s.servers
                        .iter()
                        .any(|v| v.name == name && !s.registry.is_tried(&name))
                        .then(|| {
                            format!(
                                "the config has a server named {name:?} already: pick another name"
                            )
                        })
                });
            let base = if s.registry.base.is_empty() {
                super::base_url(s)
            } else {
                s.registry.base.clone()
            };
            let path = s
                .config_path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            let Some(form) = s.registry.form.as_mut() else {
                return false;
            };
            if let Some(p) = problem {
                form.error = Some(sanitize::one_line(&p));
                form.row = form
                    .rows()
                    .iter()
                    .position(|r| *r == Row::Name)
                    .unwrap_or(0);
                return true;
            }
            form.busy = true;
            form.error = None;
            let entry = form.item.entry.clone();
            fx.push(Effect::Registry(RegistryFx::Add(Box::new(super::Add {
                base,
                entry,
                resolved: r,
                local: name.clone(),
            }))));
            say(
                s,
                format!(
                    "adding {} to {}…",
                    sanitize::one_line(&name),
                    sanitize::one_line(&path)
                ),
            );
            true
        }
    }
}
