//! The result pane: the call in flight (progress, task status) or the last
//! call's outcome.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::app::{Pane, State};

use super::*;

/// A placeholder for the result pane before any result.
pub(super) fn result_placeholder(s: &State) -> Vec<Line<'static>> {
    match s.inflight() {
        Some(c) => inflight_lines(s, c),
        None => vec![Line::styled(
            format!(
                "No call yet: select a tool and press {}.",
                s.keymap.label(crate::tui::keymap::Action::Open)
            ),
            Role::Muted.style(),
        )],
    }
}

/// The in-flight lines: spinner, tool, server (and a task's status); then,
/// when the server reports progress, a line with the bar, the numbers, the
/// message and the rate.
pub(super) fn inflight_lines(s: &State, c: &crate::tui::app::InFlight) -> Vec<Line<'static>> {
    let back = s.keymap.label(crate::tui::keymap::Action::Back);
    // Esc cancels the call shown from the result pane only.
    let cancel = if s.focus == Pane::Result {
        format!("{back} cancels")
    } else {
        format!("{back} here cancels")
    };
    let mut head = format!(
        "{} calling {} on {}… ({cancel})",
        SPINNER[s.spinner % SPINNER.len()],
        clean(&c.tool),
        clean(&c.server),
    );
    if let Some(t) = &c.task {
        head.push_str(&format!(" · {}", clean(t)));
    }
    let mut lines = vec![Line::raw(head)];
    let Some(p) = &c.progress else {
        return lines;
    };
    let mut spans = Vec::new();
    if let Some(r) = p.ratio() {
        let cells = 20usize;
        let done = (r * cells as f64).round() as usize;
        spans.push(Span::styled("█".repeat(done), Role::Ok.style()));
        spans.push(Span::styled("░".repeat(cells - done), Role::Muted.style()));
        spans.push(Span::raw(" "));
    }
    spans.push(Span::raw(clean(&p.text())));
    lines.push(Line::from(spans));
    lines
}

pub(super) fn render_result(s: &State, f: &mut Frame, area: Rect) {
    let height = area.height.saturating_sub(2) as usize;
    let width = area.width.saturating_sub(2);
    let mut lines: Vec<Line> = Vec::new();
    // More than one call this session: a strip of them, the one shown
    // marked.
    if strip_shown(s) {
        lines.push(strip(s, width as usize));
    }
    // While a call runs and is shown, the pane is that call's.
    let title = if let Some(c) = s.inflight() {
        lines.extend(inflight_lines(s, c));
        format!(
            "Result · running {} on {}",
            clean(&c.tool),
            clean(&c.server)
        )
    } else if let Some(o) = &s.outcome {
        if let Some(hint) = step_up_hint(s) {
            lines.push(hint);
        }
        // Only the screen lines in view are cut from the prepared
        // outcome: a 20 MB result costs no more per frame than a short one.
        let room = height.saturating_sub(lines.len()).max(1);
        let total = o.lines.screen_len(width);
        let above = lines.len();
        lines.extend(o.lines.screen_lines_marked(
            width,
            s.result_scroll,
            room,
            s.result_search.marks(),
        ));
        // JSON that folds: the cursor's row (← and → act on it), while the
        // pane has the focus.
        if s.focus == Pane::Result && (o.folding.is_some() || !o.lines.folds().is_empty()) {
            let at = o.lines.row_start(width, o.cursor);
            if let Some(l) = at
                .checked_sub(s.result_scroll)
                .filter(|i| *i < room)
                .and_then(|i| lines.get_mut(above + i))
            {
                *l = std::mem::take(l).patch_style(Role::Selected.style());
            }
        }
        let (long, short) = if total > room {
            let first = s.result_scroll.min(total.saturating_sub(1)) + 1;
            let last = (s.result_scroll + room).min(total);
            (
                format!(" · lines {first}–{last} of {total}"),
                format!(" · {first}–{last}/{total}"),
            )
        } else {
            (String::new(), String::new())
        };
        // The position matters most when the title does not fit: the
        // server's name goes first, then the long form of the position.
        let (tool, server, time) = (
            clean(&o.tool),
            clean(&o.server),
            crate::text::fmt_duration(o.elapsed),
        );
        let room_w = area.width.saturating_sub(2) as usize;
        // A search says what it looks for and where it stands, before
        // anything else but the pane's name.
        let found = s.result_search.title(&s.result_search);
        [
            format!("Result · {tool} on {server} · {time}{long}{found}"),
            format!("Result · {tool} on {server} · {time}{short}{found}"),
            format!("Result · {tool} · {time}{short}{found}"),
            format!("Result{found}{short} · {tool}"),
        ]
        .into_iter()
        .find(|t| t.chars().count() <= room_w)
        .unwrap_or_else(|| format!("Result{found}"))
    } else {
        lines.extend(result_placeholder(s));
        "Result".into()
    };
    // The outcome is wrapped already; the in-flight and placeholder lines
    // are short and wrap here.
    let mut p = Paragraph::new(lines).block(block(title, s.focus == Pane::Result));
    if s.outcome.is_none() || s.inflight().is_some() {
        p = p.wrap(Wrap { trim: false });
    }
    f.render_widget(p, area);
}

/// Whether the result pane's first row is the strip of calls (from two
/// entries on).
pub fn strip_shown(s: &State) -> bool {
    s.entry_count() >= 2
}

/// The strip of calls: `2/5 ‹ 1 ✓ echo 0.2s │ 2 ⠋ slow 3s 40% │ … ›`,
/// the shown one reversed; when they do not fit, the ones around the
/// shown one.
fn strip(s: &State, width: usize) -> Line<'static> {
    let entries = s.entries();
    let at = entries.iter().position(|e| e.shown).unwrap_or(0);
    // Whole names first; when not every entry fits, the others' names
    // are shortened, so more of them are seen.
    let full = strip_cells(s, &entries, usize::MAX);
    let (lo, hi, _) = strip_window(&full, at, width);
    let cells = if lo == 0 && hi == full.len() {
        full
    } else {
        strip_cells(s, &entries, 12)
    };
    let (lo, hi, used) = strip_window(&cells, at, width);
    let keys = strip_keys(s);
    let fits_keys = used + unicode_width::UnicodeWidthStr::width(keys.as_str()) <= width;
    let mut spans = vec![Span::styled(
        format!("{}/{} ", at + 1, entries.len()),
        Role::Muted.style(),
    )];
    spans.push(Span::styled(
        if lo > 0 { "‹" } else { "" },
        Role::Muted.style(),
    ));
    for (i, (text, style)) in cells[lo..hi].iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled("│", Role::Muted.style()));
        }
        spans.push(Span::styled(text.clone(), *style));
    }
    spans.push(Span::styled(
        if hi < cells.len() { "›" } else { "" },
        Role::Muted.style(),
    ));
    if fits_keys {
        spans.push(Span::styled(keys, Role::Muted.style()));
    }
    Line::from(spans)
}

/// ` [ ] calls`: the keys that move along the strip.
fn strip_keys(s: &State) -> String {
    format!(
        " {} {} calls",
        s.keymap
            .key_label(crate::tui::keymap::Action::PrevCall)
            .unwrap_or_default(),
        s.keymap
            .key_label(crate::tui::keymap::Action::NextCall)
            .unwrap_or_default()
    )
}

/// Each entry's cell: ` 2 ✓ echo 12 ms `, the shown one reversed; names
/// cut to `name_max` characters (the title names the shown one whole).
fn strip_cells(
    s: &State,
    entries: &[crate::tui::app::EntryView],
    name_max: usize,
) -> Vec<(String, ratatui::style::Style)> {
    use crate::tui::app::Mark;
    use crate::tui::history::Status;
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let (glyph, role) = match e.mark {
                Mark::Running => (SPINNER[s.spinner % SPINNER.len()], Role::Accent),
                Mark::Done(Status::Ok) => ("✓", Role::Ok),
                Mark::Done(Status::IsError) => ("✗", Role::Warn),
                Mark::Done(Status::Error) => ("✗", Role::Error),
                Mark::Done(Status::Cancelled) => ("⊘", Role::Muted),
            };
            let mut name = clean(&e.tool);
            if unicode_width::UnicodeWidthStr::width(name.as_str()) > name_max {
                let mut cut = String::new();
                let mut used = 0;
                for ch in name.chars() {
                    let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
                    if used + w + 1 > name_max {
                        break;
                    }
                    used += w;
                    cut.push(ch);
                }
                cut.push('…');
                name = cut;
            }
            let mut text = format!(" {} {glyph} {name}", i + 1);
            if let Some(d) = e.elapsed {
                text.push_str(&format!(" {}", crate::text::fmt_duration(d)));
            }
            if let Some(r) = e.ratio {
                text.push_str(&format!(" {:.0}%", r * 100.0));
            }
            text.push(' ');
            let mut style = role.style();
            if e.shown {
                style = style.add_modifier(ratatui::style::Modifier::REVERSED);
            }
            (text, style)
        })
        .collect()
}

/// The cells `lo..hi` that fit around the shown one (`at`) in `width`,
/// and the width they take.
fn strip_window(
    cells: &[(String, ratatui::style::Style)],
    at: usize,
    width: usize,
) -> (usize, usize, usize) {
    let w = |t: &str| unicode_width::UnicodeWidthStr::width(t);
    let head = w(&format!("{}/{} ", at + 1, cells.len())) + 2;
    let (mut lo, mut hi) = (at, (at + 1).min(cells.len()));
    let mut used = head + cells.get(at).map_or(0, |c| w(&c.0));
    loop {
        let mut grew = false;
        if hi < cells.len() && used + w(&cells[hi].0) < width {
            used += w(&cells[hi].0) + 1;
            hi += 1;
            grew = true;
        }
        if lo > 0 && used + w(&cells[lo - 1].0) < width {
            lo -= 1;
            used += w(&cells[lo].0) + 1;
            grew = true;
        }
        if !grew {
            break;
        }
    }
    (lo, hi, used)
}

/// Whether the result pane's first row is the login hint (the scroll
/// bound leaves it out).
pub fn step_up_hint_shown(s: &State) -> bool {
    s.inflight().is_none() && step_up_hint(s).is_some()
}

/// Over a call that failed for want of a login or of scope: what the login
/// key would do.
fn step_up_hint(s: &State) -> Option<Line<'static>> {
    let o = s.outcome.as_ref()?;
    let auth = o.result.as_ref().err()?.auth()?;
    let (server, scopes) = s.step_up.as_ref().filter(|(n, _)| *n == o.server)?;
    if auth.kind != crate::mcp::auth::AuthErrorKind::NeedsLogin {
        return None;
    }
    let key = s.keymap.label(crate::tui::keymap::Action::Login);
    let text = if scopes.is_empty() {
        format!(
            "🔒 {} needs a login: press {key} to log in, then call again",
            clean(server)
        )
    } else {
        format!(
            "🔒 step-up: {} asks for more scope; press {key} to authorize {:?}, then call again",
            clean(server),
            clean(&scopes.join(" "))
        )
    };
    Some(Line::styled(text, Role::Warn.style()))
}
