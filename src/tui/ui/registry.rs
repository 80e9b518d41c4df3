//! The MCP Registry browser: the search field, the results (name,
//! version, a deprecated mark, the description's first line), the
//! selected entry's detail (status, repository, each package and remote
//! with what it would run or which inputs it still needs, the inputs, the
//! lint notes), and the form to try or add it. A pure render of `&State`;
//! everything the registry sent goes through the sanitizer here.

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::{SPINNER, block, clean, fit, list_offset, wrap_words};
use crate::registry::Input;
use crate::registry::launch::{self, Choice, Given, LaunchError};
use crate::tui::app::State;
use crate::tui::keymap::{Action, Keymap};
use crate::tui::registry::form::Row;
use crate::tui::registry::{
    Focus, Form, Item, Purpose, RegistryView, Source, inputs_of, way_label, ways,
};
use crate::tui::theme::Role;

fn muted() -> Style {
    Role::Muted.style()
}

fn spinner(s: &State) -> &'static str {
    SPINNER[s.spinner % SPINNER.len()]
}

/// An age in whole units: `40 s`, `17 min`, `5 h`, `3 days`.
pub fn ago(d: std::time::Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..7200 => format!("{} min", s / 60),
        7200..172_800 => format!("{} h", s / 3600),
        _ => format!("{} days", s / 86_400),
    }
}

/// The view's areas: the search field, the results, the detail.
pub fn areas(s: &State, main: Rect) -> (Rect, Rect, Rect) {
    let [search, rest] = Layout::vertical([Constraint::Length(3), Constraint::Min(3)]).areas(main);
    if rest.width >= 110 {
        let [list, detail] =
            Layout::horizontal([Constraint::Percentage(48), Constraint::Min(20)]).areas(rest);
        return (search, list, detail);
    }
    let v = &s.registry;
    let said = unreachable_text(v).map_or(0, |t| {
        wrap_words(&t, rest.width.saturating_sub(2).max(1) as usize).len()
    });
    let rows = v.items.len() + said;
    let (list, detail) = super::browse::areas(rest, rows);
    (search, list, detail)
}

/// The rows of the detail that fit, and its screen lines.
pub fn detail_geometry(s: &State) -> (usize, usize) {
    let (_, _, detail) = areas(s, s.areas.main);
    let width = detail.width.saturating_sub(2) as usize;
    let total = s
        .registry
        .selected()
        .map_or(0, |i| detail_lines(i, &s.keymap, width).len());
    (detail.height.saturating_sub(2) as usize, total)
}

pub fn render(s: &State, f: &mut Frame, area: Rect) {
    let (search, list, detail) = areas(s, area);
    render_search(s, f, search);
    render_list(s, f, list);
    render_detail(s, f, detail);
    if let Some(form) = &s.registry.form {
        render_form(s, form, f, area);
    }
}

fn render_search(s: &State, f: &mut Frame, area: Rect) {
    let v = &s.registry;
    let focused = v.focus == Focus::Search && v.form.is_none();
    let base = if v.base.is_empty() {
        crate::tui::registry::base_url(s)
    } else {
        v.base.clone()
    };
    let mut outer = block(
        format!(
            "MCP Registry · {}",
            clean(&crate::mcp::netlog::shown_url(&base))
        ),
        focused,
    );
    if v.pending.is_some() {
        outer = outer.title(
            Line::styled(
                format!("{} asking the registry ", spinner(s)),
                Role::Warn.style(),
            )
            .alignment(Alignment::Right),
        );
    }
    let inner = outer.inner(area);
    f.render_widget(outer, area);
    let width = inner.width as usize;
    let line = if focused {
        let mut l = super::input_line(&v.query, width.saturating_sub(1));
        if v.query.is_empty() {
            l.push_span(Span::styled(
                " type words of a server's name (empty: every server)",
                muted(),
            ));
        }
        l
    } else if v.query.is_empty() {
        Line::styled(
            fit(
                &format!(
                    "(every server) · {} searches",
                    s.keymap.label(Action::Filter)
                ),
                width,
            ),
            muted(),
        )
    } else {
        Line::raw(fit(&clean(&v.query), width))
    };
    f.render_widget(Paragraph::new(line), inner);
}

/// Where the results come from, for the list's title.
fn source_text(v: &RegistryView) -> String {
    match v.source {
        Some(Source::Cache(age)) => format!(" · cached {} ago", ago(age)),
        Some(Source::Network) => String::new(),
        None => String::new(),
    }
}

/// The unreachable registry, in words.
pub fn unreachable_text(v: &RegistryView) -> Option<String> {
    let e = v.error.as_ref()?;
    let why = clean(&e.why);
    Some(match e.cache_age {
        Some(age) => format!("✗ {why}; showing the cache of {} ago", ago(age)),
        None => format!("✗ {why}; nothing cached for this search"),
    })
}

fn render_list(s: &State, f: &mut Frame, area: Rect) {
    let v = &s.registry;
    let focused = v.focus == Focus::List && v.form.is_none();
    let count = if v.more {
        format!("{}+", v.items.len())
    } else {
        v.items.len().to_string()
    };
    let title = format!("Servers ({count}){}", source_text(v));
    let outer = block(title, focused);
    let inner = outer.inner(area);
    f.render_widget(outer, area);
    let width = inner.width as usize;
    let height = inner.height as usize;
    let mut lines: Vec<Line> = Vec::new();
    if let Some(t) = unreachable_text(v) {
        // Whole, with a row left for the list.
        let most = height.saturating_sub(1).max(1);
        for l in wrap_words(&t, width.max(1)).into_iter().take(most) {
            lines.push(Line::styled(l, Role::Error.style()));
        }
    }
    if v.items.is_empty() {
        let q = v
            .shown_query
            .as_deref()
            .filter(|q| !q.is_empty())
            .map(|q| format!(" for \"{}\"", clean(q)))
            .unwrap_or_default();
        let text = if v.pending.is_some() {
            format!("{} searching…", spinner(s))
        } else if v.error.is_some() {
            format!("{} asks again.", s.keymap.label(Action::Reconnect))
        } else if v.shown_query.is_some() {
            format!("Nothing found{q}.")
        } else {
            "Type to search.".into()
        };
        for l in wrap_words(&text, width.max(1)) {
            lines.push(Line::styled(l, muted()));
        }
        f.render_widget(Paragraph::new(lines), inner);
        return;
    }
    let room = height.saturating_sub(lines.len()).max(1);
    let sel = v.sel.min(v.items.len() - 1);
    let offset = list_offset(sel, room);
    let name_w = v
        .items
        .iter()
        .map(|i| clean(&i.entry.name).chars().count())
        .max()
        .unwrap_or(0)
        .clamp(8, (width * 3 / 5).max(8));
    let ver_w = v
        .items
        .iter()
        .map(|i| clean(&i.entry.version).chars().count())
        .max()
        .unwrap_or(0)
        .min(10);
    let bold = Style::default().add_modifier(Modifier::BOLD);
    for (at, item) in v.items.iter().enumerate().skip(offset).take(room) {
        let e = &item.entry;
        let mut spans = vec![
            Span::styled(fit(&clean(&e.name), name_w), bold),
            Span::raw(" "),
        ];
        let mut used = name_w + 1;
        if width >= name_w + ver_w + 12 {
            spans.push(Span::styled(fit(&clean(&e.version), ver_w), muted()));
            spans.push(Span::raw(" "));
            used += ver_w + 1;
        }
        if e.status == "deprecated" {
            let mark = "deprecated ";
            spans.push(Span::styled(mark, Role::Warn.style()));
            used += mark.chars().count();
        }
        let first = e
            .description
            .as_deref()
            .and_then(|d| d.lines().find(|l| !l.trim().is_empty()))
            .unwrap_or("");
        spans.push(Span::styled(
            fit(&clean(first.trim()), width.saturating_sub(used)),
            muted(),
        ));
        let mut line = Line::from(spans);
        if at == sel {
            line = line.patch_style(Role::Selected.style());
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// `--env NAME=…`'s marks: `env, required, secret, default x, one of a, b`.
fn marks(kind: &str, i: &Input) -> String {
    let mut m = vec![kind.to_string()];
    if i.required {
        m.push("required".into());
    }
    if i.secret {
        m.push("secret".into());
    }
    if let Some(d) = &i.default {
        m.push(format!("default {}", clean(d)));
    }
    if !i.choices.is_empty() {
        m.push(format!("one of {}", clean(&i.choices.join(", "))));
    }
    if let Some(f) = &i.format {
        m.push(format!("format {}", clean(f)));
    }
    m.join(", ")
}

/// Wrapped lines of one style: the text's own leading spaces kept on
/// each line, the continuation lines `indent` further in.
fn push(lines: &mut Vec<Line<'static>>, text: &str, style: Style, width: usize, indent: usize) {
    let body = text.trim_start_matches(' ');
    let lead = text.len() - body.len();
    let first = " ".repeat(lead);
    let rest = " ".repeat(lead + indent);
    let room = width.saturating_sub(lead + indent).max(8);
    for (n, l) in wrap_words(body, room).into_iter().enumerate() {
        let pad = if n == 0 { &first } else { &rest };
        lines.push(Line::styled(format!("{pad}{l}"), style));
    }
}

/// The selected entry's detail, wrapped at `width`.
pub fn detail_lines(item: &Item, keys: &Keymap, width: usize) -> Vec<Line<'static>> {
    let e = &item.entry;
    let mut lines = Vec::new();
    let w = width.max(10);
    push(
        &mut lines,
        &format!("{} {}", clean(&e.name), clean(&e.version)),
        Role::Accent.style().add_modifier(Modifier::BOLD),
        w,
        2,
    );
    if let Some(t) = &e.title {
        push(
            &mut lines,
            &format!("title: {}", clean(t)),
            Style::default(),
            w,
            2,
        );
    }
    let latest = if e.is_latest { ", latest" } else { "" };
    match e.status.as_str() {
        "deprecated" => push(
            &mut lines,
            &format!(
                "status: deprecated{latest}{}",
                e.status_message
                    .as_deref()
                    .map(|m| format!(": {}", clean(m)))
                    .unwrap_or_default()
            ),
            Role::Warn.style(),
            w,
            2,
        ),
        other => push(
            &mut lines,
            &format!(
                "status: {}{latest}{}",
                clean(other),
                e.status_message
                    .as_deref()
                    .map(|m| format!(" ({})", clean(m)))
                    .unwrap_or_default()
            ),
            Style::default(),
            w,
            2,
        ),
    }
    if let Some(r) = &e.repository {
        push(
            &mut lines,
            &format!("repository: {}", clean(r)),
            Style::default(),
            w,
            2,
        );
    }
    if let Some(site) = &e.website {
        push(
            &mut lines,
            &format!("website: {}", clean(site)),
            Style::default(),
            w,
            2,
        );
    }
    if let Some(d) = &e.description {
        lines.push(Line::raw(""));
        let text = crate::sanitize::visible(d).replace('\t', "␉");
        for para in text.lines() {
            push(&mut lines, para, Style::default(), w, 0);
        }
    }
    let all = ways(e);
    if all.is_empty() {
        lines.push(Line::raw(""));
        push(
            &mut lines,
            "neither packages nor remotes: nothing to run",
            Role::Warn.style(),
            w,
            2,
        );
    }
    for c in all {
        lines.push(Line::raw(""));
        let default = if item.default.as_ref().ok() == Some(&c) {
            "  (the default)"
        } else {
            ""
        };
        push(
            &mut lines,
            &format!("{}{default}", way_label(e, c)),
            Style::default().add_modifier(Modifier::BOLD),
            w,
            2,
        );
        if let Choice::Package(n) = c
            && let Some((rt, ok)) = item.runtimes.get(n - 1)
            && !rt.is_empty()
        {
            let note = if *ok { "" } else { " (not installed here)" };
            push(
                &mut lines,
                &format!("  runtime: {rt}{note}"),
                if *ok { muted() } else { Role::Warn.style() },
                w,
                2,
            );
        }
        match launch::resolve(e, c, &Given::default()) {
            Ok(r) => {
                for (n, l) in launch::shown(&r.launch, &r.secrets).lines().enumerate() {
                    let label = if n == 0 { "  runs: " } else { "        " };
                    push(
                        &mut lines,
                        &format!("{label}{}", l.trim_start()),
                        Role::Ok.style(),
                        w,
                        6,
                    );
                }
            }
            Err(LaunchError::Missing(missing)) => {
                push(
                    &mut lines,
                    "  needs, before it can run:",
                    Role::Warn.style(),
                    w,
                    2,
                );
                for m in missing {
                    let secret = if m.input.secret { " (secret)" } else { "" };
                    push(
                        &mut lines,
                        &format!("    {}{secret}", clean(&m.flag)),
                        Role::Warn.style(),
                        w,
                        2,
                    );
                }
            }
            Err(err) => push(
                &mut lines,
                &format!("  cannot run: {}", clean(&err.to_string())),
                Role::Error.style(),
                w,
                2,
            ),
        }
        for (kind, i) in inputs_of(e, c) {
            let about = i
                .description
                .as_deref()
                .map(|d| format!(": {}", clean(d)))
                .unwrap_or_default();
            push(
                &mut lines,
                &format!(
                    "  input {} ({}){about}",
                    clean(&i.name),
                    marks(kind.label(), &i)
                ),
                Style::default(),
                w,
                2,
            );
        }
    }
    for n in &item.notes {
        lines.push(Line::raw(""));
        push(
            &mut lines,
            &format!("lint: {}", clean(n)),
            Role::Warn.style(),
            w,
            2,
        );
    }
    lines.push(Line::raw(""));
    push(
        &mut lines,
        &format!(
            "{} tries it (this session only) · {} adds it to the config",
            keys.label(Action::TryServer),
            keys.label(Action::AddServer)
        ),
        muted(),
        w,
        0,
    );
    lines
}

fn render_detail(s: &State, f: &mut Frame, area: Rect) {
    let v = &s.registry;
    let focused = v.focus == Focus::Detail && v.form.is_none();
    let Some(item) = v.selected() else {
        let p = Paragraph::new(Line::styled(
            "The selected server's packages, remotes, inputs and status show here.",
            muted(),
        ))
        .wrap(ratatui::widgets::Wrap { trim: false })
        .block(block("Entry".into(), false));
        f.render_widget(p, area);
        return;
    };
    let width = area.width.saturating_sub(2) as usize;
    let rows = area.height.saturating_sub(2) as usize;
    let lines = detail_lines(item, &s.keymap, width);
    let last = lines.len().saturating_sub(rows.max(1));
    let top = v.detail_scroll.min(last);
    let title = if lines.len() > rows {
        format!(
            "Entry · {}–{} of {}",
            top + 1,
            (top + rows).min(lines.len()),
            lines.len()
        )
    } else {
        "Entry".to_string()
    };
    let shown: Vec<Line> = lines.into_iter().skip(top).take(rows).collect();
    f.render_widget(Paragraph::new(shown).block(block(title, focused)), area);
}

/// The form over the view: the way, the name, one row per input, what it
/// would run.
fn render_form(s: &State, form: &Form, f: &mut Frame, area: Rect) {
    let width = area.width.min(96);
    let inner = width.saturating_sub(2) as usize;
    let rows = form.rows();
    let cur = form.current();
    let label_w = rows
        .iter()
        .map(|r| match r {
            Row::Way => 3,
            Row::Name => 4,
            Row::Field(i) => {
                clean(&form.fields[*i].input.name).chars().count()
                    + usize::from(form.fields[*i].input.required)
            }
        })
        .max()
        .unwrap_or(4)
        .clamp(4, (inner / 3).max(4))
        + 2;
    let value_w = inner.saturating_sub(label_w + 1).max(4);
    let mut lines: Vec<Line> = Vec::new();
    // The focused row's line, kept in view when the form is taller than
    // the screen.
    let mut focus_line = 0;
    let e = &form.item.entry;
    if form.ways.len() == 1
        && let Some(c) = form.choice()
    {
        lines.push(Line::styled(fit(&way_label(e, c), inner), muted()));
    }
    for (at, r) in rows.iter().enumerate() {
        let active = Some(*r) == cur && at == form.row.min(rows.len().saturating_sub(1));
        let style = if active {
            Role::Selected.style()
        } else {
            Style::default()
        };
        let (label, value) = match r {
            Row::Way => {
                let c = form.choice().unwrap_or(Choice::Package(1));
                let text = format!(
                    "‹ {} › {}/{}",
                    way_label(e, c),
                    form.way + 1,
                    form.ways.len()
                );
                ("way".to_string(), text)
            }
            Row::Name => {
                let cursor = if active { "▏" } else { "" };
                ("name".to_string(), format!("{}{cursor}", clean(&form.name)))
            }
            Row::Field(i) => {
                let fld = &form.fields[*i];
                let star = if fld.input.required { "*" } else { "" };
                let label = format!("{}{star}", clean(&fld.input.name));
                let value = if fld.has_choices() {
                    let taken = fld
                        .choice
                        .and_then(|c| fld.input.choices.get(c))
                        .map(|c| clean(c))
                        .unwrap_or_else(|| "(none)".into());
                    if active {
                        format!("‹ {taken} ›")
                    } else {
                        taken
                    }
                } else {
                    let cursor = if active { "▏" } else { "" };
                    let shown = if fld.input.secret {
                        "•".repeat(fld.value.chars().count())
                    } else {
                        clean(&fld.value)
                    };
                    format!("{shown}{cursor}")
                };
                (label, value)
            }
        };
        // The end of a long value (where the cursor is) stays in view.
        let n = value.chars().count();
        let value = if n > value_w {
            let tail: String = value.chars().skip(n + 1 - value_w).collect();
            format!("…{tail}")
        } else {
            value
        };
        if active {
            focus_line = lines.len();
        }
        lines.push(Line::from(vec![
            Span::styled(fit(&label, label_w), Role::Accent.style()),
            Span::raw(" "),
            Span::styled(value, style),
        ]));
        // The focused input's marks and description, under it.
        if active && let Row::Field(i) = r {
            let fld = &form.fields[*i];
            let about = fld
                .input
                .description
                .as_deref()
                .map(|d| format!(": {}", clean(d)))
                .unwrap_or_default();
            let text = format!("{}{about}", marks(fld.kind.label(), &fld.input));
            for l in wrap_words(&text, inner.saturating_sub(2))
                .into_iter()
                .take(3)
            {
                lines.push(Line::styled(format!("  {l}"), muted()));
            }
        }
    }
    lines.push(Line::raw(""));
    match form.resolve() {
        Ok(r) => {
            for (n, l) in launch::shown(&r.launch, &r.secrets).lines().enumerate() {
                let label = if n == 0 { "runs: " } else { "      " };
                for w in wrap_words(&format!("{label}{}", l.trim_start()), inner) {
                    lines.push(Line::styled(w, Role::Ok.style()));
                }
            }
            if form.purpose == Purpose::Add {
                let name = form.name.trim();
                for sv in &r.secrets {
                    let to = crate::registry::add::secret_name(name, sv);
                    for w in wrap_words(
                        &format!(
                            "secret {} → the credential store as {}",
                            clean(&sv.name),
                            clean(&to)
                        ),
                        inner,
                    ) {
                        lines.push(Line::styled(w, muted()));
                    }
                }
                let path = s
                    .config_path
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                for w in wrap_words(
                    &format!("written to {} as [servers.{}]", clean(&path), clean(name)),
                    inner,
                ) {
                    lines.push(Line::styled(w, muted()));
                }
            }
        }
        Err(LaunchError::Missing(m)) => {
            let names: Vec<String> = m.iter().map(|m| clean(&m.input.name)).collect();
            for w in wrap_words(&format!("still needed: {}", names.join(", ")), inner) {
                lines.push(Line::styled(w, Role::Warn.style()));
            }
        }
        Err(err) => {
            for w in wrap_words(&format!("cannot run: {}", clean(&err.to_string())), inner) {
                lines.push(Line::styled(w, Role::Error.style()));
            }
        }
    }
    if let Some(err) = &form.error {
        for w in wrap_words(&format!("✗ {}", clean(err)), inner) {
            lines.push(Line::styled(w, Role::Error.style()));
        }
    }
    if form.busy {
        lines.push(Line::styled(
            format!("{} writing the config…", spinner(s)),
            Role::Warn.style(),
        ));
    }
    let verb = match form.purpose {
        Purpose::Try => "Try",
        Purpose::Add => "Add",
    };
    let title = format!(
        "{verb} {} {} ({} {}, {} cancels)",
        clean(&e.name),
        clean(&e.version),
        s.keymap.label(Action::Send),
        verb.to_lowercase(),
        s.keymap.label(Action::Back)
    );
    let height = (lines.len() as u16 + 2).min(area.height);
    let room = height.saturating_sub(2) as usize;
    let top = if lines.len() > room {
        // The focused row and its description in view.
        (focus_line + 4)
            .saturating_sub(room)
            .min(lines.len() - room)
    } else {
        0
    };
    let rect = super::centered(area, width, height);
    f.render_widget(Clear, rect);
    let b = Block::default()
        .borders(Borders::ALL)
        .title(super::fit_end(&title, inner));
    let shown: Vec<Line> = lines.into_iter().skip(top).collect();
    f.render_widget(Paragraph::new(shown).block(b), rect);
}

/// The status bar's hint in the view.
pub fn hint(s: &State) -> String {
    let k = &s.keymap;
    let v = &s.registry;
    if let Some(form) = &v.form {
        let verb = match form.purpose {
            Purpose::Try => "try",
            Purpose::Add => "add",
        };
        return format!(
            "{}/{} field · {}/{} choice · {} {verb} · {} cancel",
            k.label(Action::NextPane),
            k.label(Action::Down),
            k.label(Action::Left),
            k.label(Action::Right),
            k.label(Action::Send),
            k.label(Action::Back)
        );
    }
    match v.focus {
        Focus::Search => format!(
            "type to search · {}/{} move · {} to the list · {} close",
            k.label(Action::Up),
            k.label(Action::Down),
            k.label(Action::Open),
            k.label(Action::Back)
        ),
        Focus::List => format!(
            "{} try · {} add · {} search · {} detail · {} close · {} ask again",
            k.label(Action::TryServer),
            k.label(Action::AddServer),
            k.label(Action::Filter),
            k.label(Action::Open),
            k.label(Action::Back),
            k.label(Action::Reconnect)
        ),
        Focus::Detail => format!(
            "{}/{} scroll · {} try · {} add · {} back",
            k.label(Action::Up),
            k.label(Action::Down),
            k.label(Action::TryServer),
            k.label(Action::AddServer),
            k.label(Action::Back)
        ),
    }
}
