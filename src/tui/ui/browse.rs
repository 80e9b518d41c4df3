//! The resources and prompts views: the list, the argument form with the
//! server's suggestions, and what was read or got. Pure renders of
//! `&State`; everything a server sent is sanitized here.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use serde_json::Value;

use super::{SPINNER, block, clean, list_offset};
use crate::mcp::manager::ServerStatus;
use crate::tui::app::{ServerView, State};
use crate::tui::browse::{self, ArgForm, Browse, Entry, Kind, Target, What};
use crate::tui::keymap::Action;

/// The most suggestions listed under a field.
const SHOWN_SUGGESTIONS: usize = 6;

fn muted() -> Style {
    Role::Muted.style()
}

fn view(s: &State, kind: Kind) -> &Browse {
    match kind {
        Kind::Resources => &s.resources,
        Kind::Prompts => &s.prompts,
    }
}

/// The list on top (as tall as its rows, at most two fifths of the
/// screen), the form or the contents below.
pub fn areas(main: Rect, rows: usize) -> (Rect, Rect) {
    let most = (main.height * 2 / 5).max(5);
    // Its rows, a line for the selected one's description, the borders.
    let height = (rows.min(u16::MAX as usize / 2) as u16 + 3).clamp(5, most);
    let [list, bottom] =
        Layout::vertical([Constraint::Length(height), Constraint::Min(3)]).areas(main);
    (list, bottom)
}

pub fn render(s: &State, kind: Kind, f: &mut Frame, area: Rect) {
    let b = view(s, kind);
    let list = browse::entries(s, kind);
    let (list_area, bottom) = areas(area, list.len());
    render_list(s, kind, &list, f, list_area);
    match &b.form {
        Some(form) => render_form(s, form, f, bottom),
        None => render_contents(s, kind, f, bottom),
    }
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|t| !t.is_empty())
}

/// Cut to `width` characters (with `…`), padded to it.
fn cell(t: &str, width: usize) -> String {
    super::fit(t, width)
}

/// `city*, state`
fn args_text(p: &Value) -> String {
    let args = browse::prompt_args(p);
    if args.is_empty() {
        return "–".into();
    }
    args.iter()
        .map(|(n, _, _, req)| format!("{}{}", clean(n), if *req { "*" } else { "" }))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a resource or template is called: its title, else its name.
fn label(x: &Value) -> String {
    clean(
        text(x, "title")
            .or_else(|| text(x, "name"))
            .unwrap_or("(no name)"),
    )
}

fn size_text(x: &Value) -> String {
    x.get("size")
        .and_then(Value::as_u64)
        .map(|n| crate::text::human_size(n as usize))
        .unwrap_or_default()
}

fn empty_lines(s: &State, kind: Kind, v: Option<&ServerView>) -> Vec<Line<'static>> {
    let b = view(s, kind);
    let Some(v) = v else {
        return vec![Line::styled("No server selected.", muted())];
    };
    let name = clean(&v.name);
    if v.status != ServerStatus::Connected {
        return vec![Line::styled(
            format!(
                "{name} is {}: nothing to list until it is connected.",
                v.status.label()
            ),
            Role::Warn.style(),
        )];
    }
    if !b.filter.is_empty() {
        return vec![Line::styled(
            format!("Nothing matches /{}.", clean(&b.filter)),
            muted(),
        )];
    }
    let (what, cap) = match kind {
        Kind::Resources => ("no resources and no resource templates", "resources"),
        Kind::Prompts => ("no prompts", "prompts"),
    };
    let mut lines = vec![Line::raw(format!("{name} lists {what}."))];
    if !v.negotiated.as_ref().is_some_and(|n| n.has_capability(cap)) {
        lines.push(Line::styled(
            format!("It does not declare the {cap} capability."),
            muted(),
        ));
    }
    lines
}

fn render_list(s: &State, kind: Kind, list: &[Entry], f: &mut Frame, area: Rect) {
    let b = view(s, kind);
    let v = browse::server_of(s, kind);
    let server = v.map(|v| clean(&v.name)).unwrap_or_default();
    let total = v.map_or(0, |v| match kind {
        Kind::Resources => v.lists.resources.len() + v.lists.templates.len(),
        Kind::Prompts => v.lists.prompts.len(),
    });
    let counts = match (kind, v) {
        _ if !b.filter.is_empty() || b.filtering => format!("{} of {total}", list.len()),
        (Kind::Resources, Some(v)) if !v.lists.templates.is_empty() => format!(
            "{} + {} template{}",
            v.lists.resources.len(),
            v.lists.templates.len(),
            if v.lists.templates.len() == 1 {
                ""
            } else {
                "s"
            }
        ),
        _ => total.to_string(),
    };
    let filter = if b.filter.is_empty() && !b.filtering {
        String::new()
    } else {
        format!(" /{}", clean(&b.filter))
    };
    let name = match kind {
        Kind::Resources => "Resources",
        Kind::Prompts => "Prompts",
    };
    let focused = !b.contents_focus && b.form.is_none();
    let mut outer = block(format!("{name} · {server} ({counts}){filter}"), focused);
    if kind == Kind::Resources && v.is_some_and(|v| !v.subs.on.is_empty()) {
        outer = outer.title(
            Line::from(vec![
                Span::styled("◉ subscribed ", Role::Ok.style()),
                Span::styled("✱ updated ", Role::Warn.style()),
            ])
            .alignment(Alignment::Right),
        );
    }
    let inner = outer.inner(area);
    f.render_widget(outer, area);
    let Some(v) = v.filter(|_| !list.is_empty()) else {
        f.render_widget(
            Paragraph::new(empty_lines(s, kind, v)).wrap(Wrap { trim: false }),
            inner,
        );
        return;
    };
    let width = inner.width as usize;
    let height = inner.height as usize;
    let sel = b.sel.min(list.len() - 1);
    // Room for the selected row's description under it.
    let offset = list_offset(sel, height.saturating_sub(1).max(1));
    let mut lines = Vec::new();
    let columns = Columns::new(v, list, width);
    for (i, e) in list.iter().enumerate().skip(offset) {
        if lines.len() >= height {
            break;
        }
        let Some(x) = browse::entry_value(v, *e) else {
            continue;
        };
        let mut line = Line::from(columns.row(v, *e, x));
        if i == sel {
            line = line.patch_style(Role::Selected.style());
        }
        lines.push(line);
        if i == sel {
            let about = about(*e, x);
            if !about.is_empty() {
                lines.push(Line::styled(
                    format!("    {}", super::fit(&about, width.saturating_sub(4))),
                    muted(),
                ));
            }
        }
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The selected row's second line: its description and what it takes.
fn about(e: Entry, x: &Value) -> String {
    let description = text(x, "description").map(clean);
    match e {
        Entry::Resource(_) => {
            let mut parts: Vec<String> = text(x, "mimeType").map(clean).into_iter().collect();
            let size = size_text(x);
            if !size.is_empty() {
                parts.push(size);
            }
            parts.extend(description);
            if parts.is_empty() {
                clean(text(x, "uri").unwrap_or(""))
            } else {
                parts.join(" · ")
            }
        }
        Entry::Template(_) => {
            let vars = crate::uritemplate::variables(text(x, "uriTemplate").unwrap_or(""));
            let mut t = format!("template · variables: {}", clean(&vars.join(", ")));
            if let Some(d) = description {
                t.push_str(" · ");
                t.push_str(&d);
            }
            t
        }
        Entry::Prompt(_) => {
            let mut parts = Vec::new();
            if let Some(t) = text(x, "title") {
                parts.push(clean(t));
            }
            parts.extend(description);
            if parts.is_empty() {
                "(no description)".into()
            } else {
                parts.join(" · ")
            }
        }
    }
}

/// The column widths of a list at this width.
struct Columns {
    width: usize,
    label: usize,
    mime: usize,
    size: usize,
    args: usize,
}

impl Columns {
    fn new(v: &ServerView, list: &[Entry], width: usize) -> Columns {
        let longest = |f: &dyn Fn(&Value) -> String| {
            list.iter()
                .filter_map(|e| browse::entry_value(v, *e))
                .map(|x| f(x).chars().count())
                .max()
                .unwrap_or(0)
        };
        if list.first().is_some_and(|e| matches!(e, Entry::Prompt(_))) {
            let name =
                longest(&|x| clean(text(x, "name").unwrap_or(""))).clamp(8, (width / 3).max(8));
            let args = longest(&args_text).clamp(1, (width / 3).max(1));
            return Columns {
                width,
                label: name,
                mime: 0,
                size: 0,
                args,
            };
        }
        let label = longest(&label).clamp(8, (width / 4).max(8));
        // The URI comes first: the mime type and the size get a column
        // only on a wide screen (the selected row's second line has them).
        let mime = if width >= 90 {
            longest(&|x| clean(text(x, "mimeType").unwrap_or(""))).min(16)
        } else {
            0
        };
        let size = if width >= 60 {
            longest(&size_text).min(10)
        } else {
            0
        };
        Columns {
            width,
            label,
            mime,
            size,
            args: 0,
        }
    }

    fn row(&self, v: &ServerView, e: Entry, x: &Value) -> Vec<Span<'static>> {
        let bold = Style::default().add_modifier(Modifier::BOLD);
        if let Entry::Prompt(_) = e {
            let name = cell(&clean(text(x, "name").unwrap_or("(no name)")), self.label);
            let args = cell(&args_text(x), self.args);
            let rest = self.width.saturating_sub(self.label + self.args + 2);
            let title = text(x, "title")
                .or_else(|| text(x, "description"))
                .map(clean)
                .unwrap_or_default();
            return vec![
                Span::styled(name, bold),
                Span::raw(" "),
                Span::styled(args, Role::Accent.style()),
                Span::raw(" "),
                Span::styled(cell(&title, rest), muted()),
            ];
        }
        let (uri, size) = match e {
            Entry::Template(_) => (text(x, "uriTemplate").unwrap_or(""), String::new()),
            _ => (text(x, "uri").unwrap_or(""), size_text(x)),
        };
        let (flag, flag_style) = match text(x, "uri").filter(|_| matches!(e, Entry::Resource(_))) {
            Some(u) if v.subs.asking.contains_key(u) => ("…  ", muted()),
            Some(u) if v.subs.updated.contains(u) => ("✱  ", Role::Warn.style()),
            Some(u) if v.subs.on.contains(u) => ("◉  ", Role::Ok.style()),
            // A template: `{}` like its variables.
            _ if matches!(e, Entry::Template(_)) => ("{} ", Role::Accent.style()),
            _ => ("   ", Style::default()),
        };
        let fixed = 3
            + self.label
            + 1
            + if self.mime > 0 { self.mime + 1 } else { 0 }
            + if self.size > 0 { self.size + 1 } else { 0 };
        let uri_width = self.width.saturating_sub(fixed).max(8);
        let mut spans = vec![
            Span::styled(flag, flag_style),
            Span::styled(cell(&label(x), self.label), bold),
            Span::raw(" "),
            Span::raw(cell(&clean(uri), uri_width)),
        ];
        if self.mime > 0 {
            spans.push(Span::raw(" "));
            spans.push(Span::styled(
                cell(&clean(text(x, "mimeType").unwrap_or("")), self.mime),
                Role::Accent.style(),
            ));
        }
        if self.size > 0 {
            spans.push(Span::raw(" "));
            spans.push(Span::styled(
                format!("{size:>width$}", width = self.size),
                muted(),
            ));
        }
        spans
    }
}

/// The label column of a form: the longest label, within a third.
fn label_width(form: &ArgForm, width: usize) -> usize {
    let longest = form
        .fields
        .iter()
        .map(|f| clean(f.label()).chars().count() + usize::from(f.required))
        .max()
        .unwrap_or(0);
    (longest + 4).clamp(12, (width / 3).max(12))
}

fn render_form(s: &State, form: &ArgForm, f: &mut Frame, area: Rect) {
    let send = s.keymap.key_label(Action::Send).unwrap_or_default();
    let title = match &form.target {
        Target::Template { name, .. } => format!("Read · {} · {send} reads", clean(name)),
        Target::Prompt { name, .. } => format!("Prompt · {} · {send} gets", clean(name)),
    };
    let outer = block(title, true);
    let inner = outer.inner(area);
    f.render_widget(outer, area);
    let width = inner.width as usize;
    let mut header = Vec::new();
    match &form.target {
        Target::Template { template, .. } => {
            header.push(Line::from(vec![
                Span::styled("template  ", muted()),
                Span::raw(super::fit(&clean(template), width.saturating_sub(10))),
            ]));
            let preview = match form.preview() {
                Some(Ok(uri)) => Span::styled(
                    super::fit(&clean(&uri), width.saturating_sub(10)),
                    Style::default().add_modifier(Modifier::BOLD),
                ),
                Some(Err(e)) => Span::styled(clean(&e), Role::Error.style()),
                None => Span::raw(""),
            };
            header.push(Line::from(vec![
                Span::styled("URI       ", muted()),
                preview,
            ]));
        }
        Target::Prompt { description, .. } => {
            if let Some(d) = description {
                header.push(Line::styled(super::fit(&clean(d), width), muted()));
            }
        }
    }
    let [head_area, fields_area, footer] = Layout::vertical([
        Constraint::Length(header.len() as u16 + 1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    f.render_widget(Paragraph::new(header), head_area);

    let label_w = label_width(form, width);
    let mut lines: Vec<Line> = Vec::new();
    let (mut focus_start, mut focus_end) = (0, 0);
    for (i, field) in form.fields.iter().enumerate() {
        let focused = i == form.focus;
        if focused {
            focus_start = lines.len();
        }
        let mut block = super::ask::field_lines(field, focused, width, label_w);
        if focused {
            // Right under the value, before the description.
            let rest = block.split_off(1.min(block.len()));
            block.extend(suggestion_lines(form, label_w, width));
            block.extend(rest);
        }
        lines.extend(block);
        if focused {
            focus_end = lines.len();
        }
    }
    // Scrolled so the focused field and its suggestions show.
    let height = fields_area.height as usize;
    let offset = focus_end.saturating_sub(height).min(focus_start);
    f.render_widget(
        Paragraph::new(lines).scroll((offset.min(u16::MAX as usize) as u16, 0)),
        fields_area,
    );

    let mut spans = match form.content() {
        Ok(_) => vec![Span::styled("✓ ready", Role::Ok.style())],
        Err(n) => vec![Span::styled(
            format!(
                "✗ {n} field{} need{} attention",
                if n == 1 { "" } else { "s" },
                if n == 1 { "s" } else { "" }
            ),
            Role::Error.style(),
        )],
    };
    spans.push(Span::styled(
        if form.completions {
            "  · suggestions from the server as you type"
        } else {
            "  · the server offers no completions"
        },
        muted(),
    ));
    f.render_widget(Paragraph::new(Line::from(spans)), footer);
}

/// The focused field's suggestions, under its value.
fn suggestion_lines(form: &ArgForm, label_w: usize, width: usize) -> Vec<Line<'static>> {
    let Some(g) = form.suggestions() else {
        return Vec::new();
    };
    // The marker before the value column, the values in it.
    let indent = " ".repeat(label_w.saturating_sub(2));
    let room = width.saturating_sub(label_w).max(4);
    if let Some(e) = &g.error {
        return vec![Line::styled(
            format!(
                "{indent}  ✗ no suggestions: {}",
                super::fit(&clean(e), room)
            ),
            Role::Error.style(),
        )];
    }
    // A window around the one picked.
    let at = g.at.unwrap_or(0);
    let first = at.saturating_sub(SHOWN_SUGGESTIONS - 1);
    let mut lines: Vec<Line> = g
        .values
        .iter()
        .enumerate()
        .skip(first)
        .take(SHOWN_SUGGESTIONS)
        .map(|(i, value)| {
            let picked = g.at == Some(i);
            let style = if picked {
                Role::Accent.style().add_modifier(Modifier::REVERSED)
            } else {
                Role::Accent.style()
            };
            Line::from(vec![
                Span::raw(indent.clone()),
                Span::styled(if picked { "› " } else { "  " }, style),
                Span::styled(
                    super::fit(&clean(value), room).trim_end().to_string(),
                    style,
                ),
            ])
        })
        .collect();
    let hidden = g.values.len().saturating_sub(first + SHOWN_SUGGESTIONS) + first;
    let mut more = Vec::new();
    if hidden > 0 {
        more.push(format!("{hidden} more listed"));
    }
    if let Some(m) = g.more() {
        more.push(format!("the server has {m}"));
    }
    if !more.is_empty() {
        lines.push(Line::styled(
            format!("{indent}  … {}", more.join(" · ")),
            muted(),
        ));
    }
    lines
}

fn render_contents(s: &State, kind: Kind, f: &mut Frame, area: Rect) {
    let b = view(s, kind);
    let title = match &b.shown {
        Some(x) => {
            let (head, label) = match &x.what {
                What::Read { uri } => ("Contents", uri),
                What::Prompt { name } => ("Prompt", name),
            };
            let mut t = format!("{head} · {}", clean(label));
            if x.server != b.server {
                t.push_str(&format!(" on {}", clean(&x.server)));
            }
            if x.updates > 0 {
                t.push_str(&format!(" · updated {}×", x.updates));
            }
            t
        }
        None => match kind {
            Kind::Resources => "Contents".into(),
            Kind::Prompts => "Messages".into(),
        },
    };
    let height = area.height.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    if let Some(p) = &b.pending {
        let back = s.keymap.key_label(Action::Back).unwrap_or_default();
        lines.push(Line::styled(
            format!(
                "{} {} {}… ({back} cancels)",
                SPINNER[s.spinner % SPINNER.len()],
                p.what.verb(),
                clean(p.what.label())
            ),
            Role::Warn.style(),
        ));
    }
    // What was read is wrapped already (by screen line, at the pane's
    // width); the other lines are short and wrap here.
    let wrapped = b.shown.is_some();
    match &b.shown {
        Some(x) => {
            let room = height.saturating_sub(lines.len()).max(1);
            let width = area.width.saturating_sub(2);
            let total = x.lines.screen_len(width);
            let scroll = b.scroll.min(total.saturating_sub(room));
            lines.extend(x.lines.screen_lines(width, scroll, room));
        }
        None if b.pending.is_none() => {
            let open = s.keymap.key_label(Action::Open).unwrap_or_default();
            lines.push(Line::styled(
                match kind {
                    Kind::Resources => format!(
                        "Select a resource and press {open} to read it; on a template, {open} opens a form for its variables."
                    ),
                    Kind::Prompts => format!(
                        "Select a prompt and press {open}: a form for its arguments, then its messages."
                    ),
                },
                muted(),
            ));
        }
        None => {}
    }
    let mut p = Paragraph::new(lines).block(block(title, b.contents_focus));
    if !wrapped {
        p = p.wrap(Wrap { trim: false });
    }
    f.render_widget(p, area);
}

/// The status bar's hint in a view.
pub fn hint(s: &State, kind: Kind) -> String {
    let b = view(s, kind);
    let k = &s.keymap;
    if b.filtering {
        return super::status::typing_hint(s, "type to filter");
    }
    let verb = match kind {
        Kind::Resources => "read",
        Kind::Prompts => "get",
    };
    if let Some(form) = &b.form {
        let pick = form.suggestions().is_some_and(|g| !g.values.is_empty());
        return k.hint_with(
            &[
                (Action::Send, verb),
                (
                    Action::NextPane,
                    if pick {
                        "pick a suggestion"
                    } else {
                        "next field"
                    },
                ),
                (Action::Down, "next field"),
                (Action::Back, "back"),
                (Action::ClearField, "clear"),
            ],
            form.typing(),
        );
    }
    if b.contents_focus {
        return k.hint_with(
            &[
                (Action::Down, "scroll"),
                (Action::PageDown, "page"),
                (Action::Copy, "copy"),
                (Action::NextPane, "list"),
                (Action::Back, "back"),
            ],
            false,
        );
    }
    let mut items = vec![(Action::Open, verb), (Action::Filter, "filter")];
    if kind == Kind::Resources && browse::server_of(s, kind).is_some_and(browse::can_subscribe) {
        items.push((Action::Subscribe, "subscribe"));
    }
    if let Some(x) = &b.shown {
        items.push((Action::NextPane, "contents"));
        if !x.media.is_empty() {
            items.push((Action::Save, "save"));
        }
        items.push((Action::Copy, "copy"));
    }
    items.push((Action::Back, "back"));
    items.push(match kind {
        Kind::Resources => (Action::Prompts, "prompts"),
        Kind::Prompts => (Action::Resources, "resources"),
    });
    k.hint_with(&items, false)
}
