//! The skills view: the listing (label, description, files, badge), the
//! selected skill's entry (or why it is invalid, or why it failed), and
//! once loaded its files and the one selected. A pure render of `&State`;
//! everything a server sent is sanitized here.

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use serde_json::Value;

use super::{SPINNER, block, clean, fit, list_offset};
use crate::mcp::skills::{Files, Skill};
use crate::tui::app::State;
use crate::tui::keymap::Action;
use crate::tui::result::Prepared;
use crate::tui::skills::{
    FileRow, FileState, Focus, Load, SkillsView, badge, file_rows, files_text,
};
use crate::tui::theme::Role;

fn muted() -> Style {
    Role::Muted.style()
}

/// The view's areas: the list, a loaded skill's files (`None` when the
/// selected skill is not loaded), and the detail or the file shown.
pub fn areas(s: &State, main: Rect) -> (Rect, Option<Rect>, Rect) {
    let v = &s.skills;
    let (list, bottom) = super::browse::areas(main, v.rows().len());
    let Some(load) = v.loaded() else {
        return (list, None, bottom);
    };
    let n = file_rows(load.entry()).len() + usize::from(load.entry().listed().is_none());
    let most = (bottom.height / 2).max(3);
    let height = (n.min(u16::MAX as usize / 2) as u16 + 2).clamp(3, most);
    let [files, contents] =
        Layout::vertical([Constraint::Length(height), Constraint::Min(3)]).areas(bottom);
    (list, Some(files), contents)
}

/// The rows of the file shown that fit (under its status line), and the
/// text's width.
pub fn contents_geometry(s: &State) -> (usize, u16) {
    let (_, _, contents) = areas(s, s.areas.main);
    (
        contents.height.saturating_sub(3) as usize,
        contents.width.saturating_sub(2),
    )
}

/// The text of the file shown, when it was read and verified.
pub fn shown_lines(v: &SkillsView) -> Option<&Prepared> {
    let Some(Load::Loaded {
        entry, text, files, ..
    }) = v.loaded()
    else {
        return None;
    };
    let f = v.file()?;
    if f.uri == entry.uri {
        return Some(text);
    }
    match files.get(&f.uri) {
        Some(FileState::Read { text: Some(p), .. }) => Some(p),
        _ => None,
    }
}

pub fn render(s: &State, f: &mut Frame, area: Rect) {
    let (list, files, bottom) = areas(s, area);
    render_list(s, f, list);
    match (files, s.skills.loaded()) {
        (Some(files), Some(load)) => {
            render_files(s, load, f, files);
            render_file(s, load, f, bottom);
        }
        _ => render_entry(s, f, bottom),
    }
}

fn spinner(s: &State) -> &'static str {
    SPINNER[s.spinner % SPINNER.len()]
}

fn size(n: u64) -> String {
    crate::text::human_size(n.min(usize::MAX as u64) as usize)
}

fn render_list(s: &State, f: &mut Frame, area: Rect) {
    let v = &s.skills;
    let rows = v.rows();
    let total = v.listing.as_ref().map_or(0, |l| l.skills.len());
    let counts = if v.filter.is_empty() && !v.filtering {
        total.to_string()
    } else {
        format!("{} of {total}", rows.len())
    };
    let filter = if v.filter.is_empty() && !v.filtering {
        String::new()
    } else {
        format!(" /{}", clean(&v.filter))
    };
    let mut title = format!("Skills · {} ({counts}){filter}", clean(&v.server));
    if v.listing.as_ref().is_some_and(|l| l.truncated) {
        title.push_str(&format!(
            " · stopped after {} pages",
            crate::mcp::skills::MAX_PAGES
        ));
    }
    let mut outer = block(title, v.focus == Focus::List);
    if v.listing_req.is_some() && v.listing.is_some() {
        outer = outer.title(
            Line::styled(format!("{} listing ", spinner(s)), Role::Warn.style())
                .alignment(Alignment::Right),
        );
    }
    let inner = outer.inner(area);
    f.render_widget(outer, area);
    let Some(listing) = v.listing.as_ref().filter(|_| !rows.is_empty()) else {
        f.render_widget(
            Paragraph::new(empty_lines(s)).wrap(Wrap { trim: false }),
            inner,
        );
        return;
    };
    let width = inner.width as usize;
    let height = inner.height as usize;
    let sel = v.sel.min(rows.len() - 1);
    let offset = list_offset(sel, height.saturating_sub(1).max(1));
    // Columns: the label, the files, the description, the badge.
    let longest = |f: &dyn Fn(usize) -> usize| rows.iter().map(|i| f(*i)).max().unwrap_or(0);
    let label_w = longest(&|i| clean(&v.label(i)).chars().count()).clamp(8, (width / 4).max(8));
    let files_w = if width >= 56 {
        longest(&|i| files_text(&listing.skills[i]).chars().count()).min(16)
    } else {
        0
    };
    let badge_w = longest(&|i| badge(v, &listing.skills[i]).map_or(0, |b| b.chars().count()))
        .min((width / 3).max(10));
    let mut lines = Vec::new();
    let bold = Style::default().add_modifier(Modifier::BOLD);
    for (at, i) in rows.iter().enumerate().skip(offset) {
        if lines.len() >= height {
            break;
        }
        let k = &listing.skills[*i];
        let mut spans = vec![
            Span::styled(fit(&clean(&v.label(*i)), label_w), bold),
            Span::raw(" "),
        ];
        if files_w > 0 {
            spans.push(Span::styled(
                fit(&files_text(k), files_w),
                Role::Accent.style(),
            ));
            spans.push(Span::raw(" "));
        }
        let used = label_w + 1 + if files_w > 0 { files_w + 1 } else { 0 };
        let rest = width.saturating_sub(used + if badge_w > 0 { badge_w + 1 } else { 0 });
        spans.push(Span::styled(fit(&clean(&k.description), rest), muted()));
        if badge_w > 0 {
            spans.push(Span::raw(" "));
            let b = badge(v, k).unwrap_or_default();
            let role = if b.starts_with('✓') {
                Role::Ok
            } else if b.starts_with('!') {
                Role::Warn
            } else {
                Role::Error
            };
            spans.push(Span::styled(fit(&b, badge_w), role.style()));
        }
        let mut line = Line::from(spans);
        if at == sel {
            line = line.patch_style(Role::Selected.style());
        }
        lines.push(line);
        if at == sel {
            let mut about = clean(&k.uri);
            if files_w == 0 {
                about.push_str(&format!(" · {}", files_text(k)));
            }
            lines.push(Line::styled(
                format!("    {}", fit(&about, width.saturating_sub(4))),
                muted(),
            ));
        }
    }
    f.render_widget(Paragraph::new(lines), inner);
}

fn empty_lines(s: &State) -> Vec<Line<'static>> {
    let v = &s.skills;
    let name = clean(&v.server);
    if let Some(e) = &v.list_error {
        let again = s.keymap.key_label(Action::Reconnect).unwrap_or_default();
        return vec![
            Line::styled(
                format!("✗ skills/list failed: {}", clean(e)),
                Role::Error.style(),
            ),
            Line::styled(format!("{again} lists again."), muted()),
        ];
    }
    match &v.listing {
        None if v.listing_req.is_some() => vec![Line::styled(
            format!("{} asking {name} for its skills (skills/list)…", spinner(s)),
            Role::Warn.style(),
        )],
        None => vec![Line::styled("Not listed yet.", muted())],
        Some(_) if !v.filter.is_empty() => vec![Line::styled(
            format!("Nothing matches /{}.", clean(&v.filter)),
            muted(),
        )],
        Some(_) => vec![
            Line::raw(format!("{name} lists no skills.")),
            Line::styled(
                "A listing may be partial: a skill can still be loaded by the URI of its SKILL.md (mcpdeck skill SERVER URI).",
                muted(),
            ),
        ],
    }
}

/// The value of a frontmatter field, on one line.
fn field_text(v: &Value) -> String {
    match v {
        Value::String(t) => clean(t),
        other => clean(&other.to_string()),
    }
}

/// The selected skill's entry: why it is invalid, or why it failed, and
/// what the entry says. Nothing of a failed read is shown.
fn render_entry(s: &State, f: &mut Frame, area: Rect) {
    let v = &s.skills;
    let open = s.keymap.key_label(Action::Open).unwrap_or_default();
    let Some((i, k)) = v.selected() else {
        let p = Paragraph::new(Line::styled(
            format!(
                "Select a skill and press {open} to load it: its SKILL.md is read and verified against the entry (size, sha256, frontmatter); its other files are read one by one when asked."
            ),
            muted(),
        ))
        .wrap(Wrap { trim: false })
        .block(block("Skill".into(), false));
        f.render_widget(p, area);
        return;
    };
    let mut lines: Vec<Line> = Vec::new();
    if let Some(r) = v.reading.as_ref().filter(|r| r.entry.uri == k.uri) {
        let back = s.keymap.key_label(Action::Back).unwrap_or_default();
        lines.push(Line::styled(
            format!(
                "{} reading {}… ({back} cancels)",
                spinner(s),
                clean(r.entry.relative(&r.uri))
            ),
            Role::Warn.style(),
        ));
    }
    if !k.loadable() {
        lines.push(Line::styled(
            "✗ invalid: this entry is never loaded. What is wrong with it:",
            Role::Error.style(),
        ));
        for p in &k.problems {
            lines.push(Line::styled(
                format!("  • {}", clean(p)),
                Role::Error.style(),
            ));
        }
        lines.push(Line::raw(""));
    } else if let Some(Load::Failed { why, .. }) = v.loads.get(&k.uri) {
        let again = s.keymap.key_label(Action::Reconnect).unwrap_or_default();
        lines.push(Line::styled(
            format!("✗ failed: {}", clean(why)),
            Role::Error.style(),
        ));
        lines.push(Line::styled(
            format!(
                "Nothing of its content is shown. {open} tries again; {again} lists again (the entry may be stale)."
            ),
            muted(),
        ));
        lines.push(Line::raw(""));
    }
    lines.extend(entry_lines(k));
    if k.loadable() && !v.loads.contains_key(&k.uri) && v.reading.is_none() {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            format!(
                "{open} loads it: its SKILL.md only, verified against this entry; the other files are read one by one when asked."
            ),
            muted(),
        ));
    }
    let p = Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(block(format!("Skill · {}", clean(&v.label(i))), false));
    f.render_widget(p, area);
}

/// What an entry says: its URI, its files, its description and the
/// other frontmatter fields.
fn entry_lines(k: &Skill) -> Vec<Line<'static>> {
    let label = |t: &str| Span::styled(format!("{t:<12}"), muted());
    let mut lines = vec![Line::from(vec![label("uri"), Span::raw(clean(&k.uri))])];
    let files = match &k.files {
        Some(Files::Dynamic) => {
            "dynamic: the server publishes no digests, so its content cannot be verified".into()
        }
        _ => files_text(k),
    };
    lines.push(Line::from(vec![label("files"), Span::raw(files)]));
    if !k.description.is_empty() {
        lines.push(Line::from(vec![
            label("description"),
            Span::raw(clean(&k.description)),
        ]));
    }
    for (key, value) in &k.frontmatter {
        if key == "name" || key == "description" {
            continue;
        }
        lines.push(Line::from(vec![
            label(&clean(key)),
            Span::raw(field_text(value)),
        ]));
    }
    if k.frontmatter.contains_key("allowed-tools") {
        lines.push(Line::styled(
            "note: `allowed-tools` asks for wider permissions; over MCP it grants nothing without your explicit approval",
            Role::Warn.style(),
        ));
    }
    lines
}

/// How a file of a loaded skill stands: (words, role).
fn file_state(s: &State, load: &Load, row: &FileRow) -> (String, Role) {
    let Load::Loaded {
        entry,
        verified,
        files,
        ..
    } = load
    else {
        return (String::new(), Role::Muted);
    };
    if row.uri == entry.uri {
        return if *verified {
            ("✓ verified".into(), Role::Ok)
        } else {
            ("! dynamic".into(), Role::Warn)
        };
    }
    if s.skills.reading.as_ref().is_some_and(|r| r.uri == row.uri) {
        return (format!("{} reading", spinner(s)), Role::Warn);
    }
    match files.get(&row.uri) {
        Some(FileState::Read { text: Some(_), .. }) => ("✓ verified".into(), Role::Ok),
        Some(FileState::Read { text: None, .. }) => ("✓ verified · binary".into(), Role::Ok),
        Some(FileState::Failed(why)) => (format!("✗ failed: {}", clean(why)), Role::Error),
        None => ("not read".into(), Role::Muted),
    }
}

fn render_files(s: &State, load: &Load, f: &mut Frame, area: Rect) {
    let v = &s.skills;
    let entry = load.entry();
    let rows = file_rows(entry);
    let title = format!("Files · {}", clean(&entry.path));
    let outer = block(title, v.focus == Focus::Files);
    let inner = outer.inner(area);
    f.render_widget(outer, area);
    let width = inner.width as usize;
    let height = inner.height as usize;
    let sel = v.file_sel.min(rows.len().saturating_sub(1));
    let path_w = rows
        .iter()
        .map(|r| clean(&r.path).chars().count())
        .max()
        .unwrap_or(0)
        .clamp(8, (width / 2).max(8));
    let size_w = 9;
    let mut lines = Vec::new();
    for (i, r) in rows
        .iter()
        .enumerate()
        .skip(list_offset(sel, height.max(1)))
        .take(height)
    {
        let (state, role) = file_state(s, load, r);
        let rest = width.saturating_sub(path_w + size_w + 2);
        let mut line = Line::from(vec![
            Span::raw(fit(&clean(&r.path), path_w)),
            Span::styled(
                format!(" {:>size_w$} ", r.size.map(size).unwrap_or_default()),
                muted(),
            ),
            Span::styled(fit(&state, rest), role.style()),
        ]);
        if i == sel {
            line = line.patch_style(Role::Selected.style());
        }
        lines.push(line);
    }
    if entry.listed().is_none() && lines.len() < height {
        lines.push(Line::styled(
            "dynamic: the server lists no other files (no digests)",
            muted(),
        ));
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The file selected in the files pane: its text once read and verified,
/// else how it stands (nothing of a failed read is shown).
fn render_file(s: &State, load: &Load, f: &mut Frame, area: Rect) {
    let v = &s.skills;
    let Load::Loaded {
        entry,
        verified,
        files,
        ..
    } = load
    else {
        return;
    };
    let Some(row) = v.file() else {
        return;
    };
    let open = s.keymap.key_label(Action::Open).unwrap_or_default();
    let title = format!("{} · {}", clean(&entry.name), clean(&row.path));
    let head: Line = if row.uri == entry.uri {
        if *verified {
            Line::styled(
                "✓ verified: size, sha256 and frontmatter match the entry",
                Role::Ok.style(),
            )
        } else {
            Line::styled(
                "! dynamic: read; only its frontmatter could be checked (no digests)",
                Role::Warn.style(),
            )
        }
    } else if s.skills.reading.as_ref().is_some_and(|r| r.uri == row.uri) {
        let back = s.keymap.key_label(Action::Back).unwrap_or_default();
        Line::styled(
            format!("{} reading… ({back} cancels)", spinner(s)),
            Role::Warn.style(),
        )
    } else {
        match files.get(&row.uri) {
            Some(FileState::Read { size: n, text }) => Line::styled(
                format!(
                    "✓ verified: size and sha256 match the entry{}",
                    if text.is_some() {
                        String::new()
                    } else {
                        format!(" · binary, {n} bytes (not shown)")
                    }
                ),
                Role::Ok.style(),
            ),
            Some(FileState::Failed(why)) => Line::styled(
                format!("✗ failed: {} · nothing of it is shown", clean(why)),
                Role::Error.style(),
            ),
            None => Line::styled(
                format!(
                    "not read{} · {open} reads it (resources/read), verified against the entry",
                    row.size
                        .map(|n| format!(" · {}", size(n)))
                        .unwrap_or_default()
                ),
                muted(),
            ),
        }
    };
    let outer = block(title, v.focus == Focus::Contents);
    let inner = outer.inner(area);
    f.render_widget(outer, area);
    let [head_area, body] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
    f.render_widget(Paragraph::new(head), head_area);
    if let Some(p) = shown_lines(v) {
        let room = body.height as usize;
        let total = p.screen_len(body.width);
        let scroll = v.scroll.min(total.saturating_sub(room));
        f.render_widget(
            Paragraph::new(p.screen_lines(body.width, scroll, room)),
            body,
        );
    }
}

/// The status bar's hint in the view.
pub fn hint(s: &State) -> String {
    let v = &s.skills;
    let k = &s.keymap;
    if v.filtering {
        return super::status::typing_hint(s, "type to filter");
    }
    let items: Vec<(Action, &str)> = match v.focus {
        Focus::Contents => vec![
            (Action::Down, "scroll"),
            (Action::PageDown, "page"),
            (Action::Copy, "copy"),
            (Action::Back, "files"),
        ],
        Focus::Files => {
            let read = v.file().is_some_and(|f| {
                v.loaded().is_some_and(|l| f.uri == l.entry().uri) || shown_lines(v).is_some()
            });
            vec![
                (Action::Open, if read { "show" } else { "read" }),
                (Action::NextPane, "contents"),
                (Action::Back, "skills"),
            ]
        }
        Focus::List => {
            let enter = match v.selected() {
                None => None,
                Some((_, k)) if !k.loadable() => None,
                Some(_) if v.loaded().is_some() => Some("files"),
                Some(_) => Some("load"),
            };
            let mut items = Vec::new();
            if let Some(e) = enter {
                items.push((Action::Open, e));
            }
            items.push((Action::Filter, "filter"));
            items.push((Action::Reconnect, "list again"));
            items.push((Action::Back, "back"));
            items.push((Action::Resources, "resources"));
            items
        }
    };
    k.hint_with(&items, false)
}
