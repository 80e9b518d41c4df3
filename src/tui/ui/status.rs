//! The status bar: the latest message, or hints from the keymap.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::{Mode, Pane, State};
use crate::tui::keymap::Action;

use super::*;

/// The hint while a one-line text is typed: `type to filter · Enter keep ·
/// Esc clear`.
pub(super) fn typing_hint(s: &State, what: &str) -> String {
    format!(
        "{what} · {} keep · {} clear",
        s.keymap.label(Action::Open),
        s.keymap.label(Action::Back)
    )
}

/// A search is being typed in the pane that has the keys.
fn typing_search(s: &State) -> bool {
    match s.mode {
        Mode::Normal => match s.focus {
            Pane::Result => s.result_search.typing,
            Pane::Detail => s.detail_search.typing,
            _ => false,
        },
        Mode::Log => s.log.frame_search.typing,
        _ => false,
    }
}

pub(super) fn render_status(s: &State, f: &mut Frame, area: Rect) {
    let k = &s.keymap;
    let hint = if let Some(h) = ask::hint(s) {
        h
    } else {
        match s.mode {
            _ if typing_search(s) => {
                typing_hint(s, "type to search this pane (a capital: exact case)")
            }
            Mode::Log if s.log.frame_focus && s.log.frame_search.active() => format!(
                "{} · {} new search · {} clear the search",
                k.hint(&[Action::NextMatch, Action::PrevMatch]),
                k.label(Action::Filter),
                k.label(Action::Back),
            ),
            Mode::Normal
                if (s.focus == Pane::Result && s.result_search.active())
                    || (s.focus == Pane::Detail && s.detail_search.active()) =>
            {
                format!(
                    "{} · {} new search · {} clear the search",
                    k.hint(&[Action::NextMatch, Action::PrevMatch]),
                    k.label(Action::Filter),
                    k.label(Action::Back),
                )
            }
            Mode::Editor => editor::hint(s),
            Mode::Filter => typing_hint(s, "type to filter"),
            Mode::Help if s.help_typing => typing_hint(s, "type to search the keys"),
            Mode::Help => format!(
                "{} scroll · {} search · other keys close the help",
                k.hint_with(
                    &[(Action::Up, ""), (Action::Down, ""), (Action::PageDown, "")],
                    false
                )
                .replace("  · ", "/")
                .trim_end(),
                k.label(Action::Filter)
            ),
            Mode::ConfirmQuit => format!("{} quits, any other key stays", k.label(Action::Confirm)),
            Mode::Log if s.log.frame_focus => format!(
                "{} scroll · {} search the frame · {} zoom · {} list · {} back",
                k.hint_with(&[(Action::Up, ""), (Action::Down, "")], false)
                    .replace("  · ", "/")
                    .trim_end(),
                k.label(Action::Filter),
                k.label(Action::Zoom),
                k.label(Action::NextPane),
                k.label(Action::Back),
            ),
            Mode::Log => format!(
                "{} · {} method filter · {} this server / all · {} follow · {} back",
                k.hint(&[Action::Up, Action::Down]),
                k.label(Action::Filter),
                k.label(Action::AllTools),
                k.label(Action::End),
                k.label(Action::Back),
            ),
            Mode::LogFilter => typing_hint(s, "type a method"),
            Mode::Net => {
                let label = |a: Action| k.key_label(a).unwrap_or_default();
                let (up, down, tab, copy, back) = (
                    label(Action::Up),
                    label(Action::Down),
                    label(Action::NextPane),
                    label(Action::Copy),
                    label(Action::Back),
                );
                if s.net.detail_focus {
                    format!("{up}/{down} scroll · {tab} list · {copy} copy · {back} back")
                } else {
                    format!(
                        "{up}/{down} move · {} server/all · {} follow · {tab} details · {copy} copy · {back} back",
                        label(Action::AllTools),
                        label(Action::End),
                    )
                }
            }
            Mode::SuitePick => format!(
                "a suite file, relative to the folder shown · {}/{} one found · {} goes · {} cancels",
                k.label(Action::Up),
                k.label(Action::Down),
                k.label(Action::Open),
                k.label(Action::Back)
            ),
            Mode::Tests if s.tests.as_ref().is_some_and(|v| v.open) => format!(
                "{}/{} scroll · {} back to the steps",
                k.label(Action::Up),
                k.label(Action::Down),
                k.label(Action::Back)
            ),
            Mode::Tests => format!(
                "{}/{} move · {} open a step · {} run again · {} close",
                k.label(Action::Up),
                k.label(Action::Down),
                k.label(Action::Open),
                k.label(Action::Rerun),
                k.label(Action::Back)
            ),
            Mode::Roots => format!(
                "directories, quoted like a shell's words · empty: none · - alone: the global roots · {} saves · {} cancels",
                k.label(Action::Open),
                k.label(Action::Back)
            ),
            Mode::AddServer => format!(
                "{} next field · {} add · {} cancel",
                k.label(Action::NextPane),
                k.label(Action::Open),
                k.label(Action::Back)
            ),
            Mode::Login => match &s.login {
                Some(v) if v.running() => k.hint(&[Action::Back, Action::Copy]),
                _ => k.hint(&[Action::Login, Action::Back]),
            },
            Mode::Import => format!(
                "{} tick · {} all · {} import the ticked · {} cancel",
                k.label(Action::ToggleServer),
                k.label(Action::AllTools),
                k.label(Action::Open),
                k.label(Action::Back)
            ),
            Mode::Serves => attach::list_hint(s),
            Mode::History if s.history_typing => typing_hint(s, "type to filter the calls"),
            Mode::History if s.history_diff.is_some() => format!(
                "{} scroll · {} back to the list",
                k.hint_with(
                    &[(Action::Up, ""), (Action::Down, ""), (Action::PageDown, "")],
                    false
                )
                .replace("  · ", "/")
                .trim_end(),
                k.label(Action::Back)
            ),
            Mode::History => format!(
                "{} · {} show the result · {} run again · {} edit, run · {} mark · {} diff · {} filter · {} back",
                k.hint(&[Action::Up, Action::Down]),
                k.label(Action::Open),
                k.label(Action::Rerun),
                k.label(Action::EditRerun),
                k.label(Action::Mark),
                k.label(Action::DiffMarked),
                k.label(Action::Filter),
                k.label(Action::Back)
            ),
            Mode::Links => format!(
                "{} · {} read it · {} back to the result",
                k.hint(&[Action::Up, Action::Down]),
                k.label(Action::Open),
                k.label(Action::Back)
            ),
            Mode::Attached => attach::attached_hint(s),
            Mode::Resources => browse::hint(s, crate::tui::browse::Kind::Resources),
            Mode::Prompts => browse::hint(s, crate::tui::browse::Kind::Prompts),
            Mode::Skills => super::skills::hint(s),
            Mode::Registry => super::registry::hint(s),
            Mode::Normal => {
                let mut actions = vec![
                    Action::Open,
                    Action::Filter,
                    Action::ToggleServer,
                    Action::ToggleDeny,
                ];
                // The network view matters only when a server speaks HTTP
                // (and `n` is the next match in the result and the detail).
                if s.servers.iter().any(|v| v.http.is_some())
                    && !matches!(s.focus, Pane::Result | Pane::Detail)
                {
                    actions.push(Action::Network);
                }
                actions.extend([Action::Help, Action::Quit]);
                // The views of what the selected server offers besides tools.
                if let Some(v) = s.selected_server() {
                    // A server that waits for a login says how, first.
                    if matches!(v.status, crate::mcp::manager::ServerStatus::NeedsAuth(_)) {
                        actions.insert(0, Action::Login);
                    }
                    let has = |cap: &str, empty: bool| {
                        !empty || v.negotiated.as_ref().is_some_and(|n| n.has_capability(cap))
                    };
                    if has(
                        "resources",
                        v.lists.resources.is_empty() && v.lists.templates.is_empty(),
                    ) {
                        actions.push(Action::Resources);
                    }
                    if has("prompts", v.lists.prompts.is_empty()) {
                        actions.push(Action::Prompts);
                    }
                    if v.negotiated
                        .as_ref()
                        .is_some_and(|n| crate::mcp::skills::declared(&n.capabilities).is_some())
                    {
                        actions.push(Action::Skills);
                    }
                }
                if matches!(s.focus, Pane::Result | Pane::Detail) {
                    // There, `/` searches the pane, and `z` zooms it.
                    actions.insert(2, Action::Zoom);
                    let filter = k.label(Action::Filter);
                    k.hint(&actions)
                        .replace(&format!("{filter} filter"), &format!("{filter} search"))
                } else {
                    k.hint(&actions)
                }
            }
        }
    };
    // The latest message first: on a narrow screen the hints give way.
    // The help key stays at the right end at any width.
    // Only where `?` is a key, not a character being typed.
    let help = match s.mode {
        Mode::Normal | Mode::Log | Mode::Net | Mode::Attached | Mode::Serves
            if ask::hint(s).is_none() && !typing_search(s) =>
        {
            k.key_label(Action::Help)
                .map(|key| format!(" {key} help"))
                .unwrap_or_default()
        }
        _ => String::new(),
    };
    let width = area.width as usize;
    let help_w = help.chars().count();
    let room = width.saturating_sub(help_w);
    let mut left = String::new();
    let mut spans = Vec::new();
    let waiting = s
        .pending_open
        .as_ref()
        .map(|_| crate::tui::app::waiting_note(s));
    // Recording: always said, first.
    if let Some(r) = crate::record::Recorder::current() {
        let (text, role) = if r.failed() {
            ("● REC failed ", Role::Error)
        } else {
            ("● REC ", Role::Error)
        };
        left.push_str(text);
        spans.push(Span::styled(text, role.style()));
    }
    // Spans that could not be sent (said once; the log file has why).
    if crate::telemetry::failed() {
        let text = "● OTLP failed ";
        left.push_str(text);
        spans.push(Span::styled(text, Role::Error.style()));
    }
    // Server requests put aside: said until they are answered.
    let aside = s.asks.waiting_aside();
    if aside > 0 {
        let text = format!(
            "⚑ {aside} request{} ({}) ",
            if aside == 1 { "" } else { "s" },
            k.key_label(Action::Requests).unwrap_or_default()
        );
        left.push_str(&text);
        spans.push(Span::styled(text, Role::Warn.style()));
    }
    if let Some(msg) = waiting.as_ref().or(s.status.as_ref()) {
        let msg = clean(msg);
        let used = left.chars().count();
        if used + msg.chars().count() > room && area.y > 0 {
            // Too long for one line: the whole message, wrapped, over the
            // bottom of the panes (until the next message, or its time),
            // so a conflict or an error is read whole.
            let lines = wrap_words(&msg, (width.max(8)).saturating_sub(used).max(8));
            let rows = (lines.len() as u16).min(area.y).min(6);
            let top = area.y + 1 - rows;
            let over = Rect::new(area.x, top, area.width, rows);
            f.render_widget(ratatui::widgets::Clear, over);
            let text: Vec<Line> = lines
                .into_iter()
                .take(rows as usize)
                .enumerate()
                .map(|(i, l)| {
                    let pad = if i == 0 {
                        left.clone()
                    } else {
                        " ".repeat(used)
                    };
                    let mut row = vec![Span::raw(pad)];
                    row.push(Span::styled(l, Role::Warn.style()));
                    Line::from(row)
                })
                .collect();
            f.render_widget(Paragraph::new(text), over);
            return;
        }
        let msg = fit_end(&msg, room);
        left.push_str(&msg);
        spans.push(Span::styled(msg, Role::Warn.style()));
    }
    // The hints, without the help key when it is shown on the right.
    let hint = if help.is_empty() {
        hint
    } else {
        let own = format!("{} help", k.key_label(Action::Help).unwrap_or_default());
        hint.replace(&format!(" · {own}"), "")
            .replace(&format!("{own} · "), "")
    };
    let used = left.chars().count();
    if used + 3 < room {
        let sep = if used > 0 { " · " } else { "" };
        let hint = fit_end(&hint, room - used - sep.chars().count());
        spans.push(Span::raw(sep));
        spans.push(Span::styled(hint, Role::Muted.style()));
    }
    let used: usize = spans.iter().map(|s| s.width()).sum();
    if !help.is_empty() && used + help_w <= width {
        spans.push(Span::raw(" ".repeat(width - used - help_w)));
        spans.push(Span::styled(help, Role::Accent.style()));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// `text` in lines of at most `width` columns, broken between words where
/// it can be (a word longer than a line is cut).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let (lw, ww) = (line.chars().count(), word.chars().count());
        if lw > 0 && lw + 1 + ww > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > width {
            let head: String = line.chars().take(width).collect();
            let rest: String = line.chars().skip(width).collect();
            lines.push(head);
            line = rest;
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::wrap_words;

    #[test]
    fn long_messages_wrap_between_words() {
        assert_eq!(
            wrap_words("not saved: the file changed on disk", 12),
            ["not saved:", "the file", "changed on", "disk"]
        );
        assert_eq!(wrap_words("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap_words("", 4), [""]);
    }
}
