//! The status bar: the latest message, or hints from the keymap.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::{Mode, State};
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

pub(super) fn render_status(s: &State, f: &mut Frame, area: Rect) {
    let k = &s.keymap;
    let hint = if let Some(h) = ask::hint(s) {
        h
    } else {
        match s.mode {
            Mode::Editor => editor::hint(s),
            Mode::Filter => typing_hint(s, "type to filter"),
            Mode::Help => "the moves scroll the help · any other key closes it".to_string(),
            Mode::ConfirmQuit => format!("{} quits, any other key stays", k.label(Action::Confirm)),
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
            Mode::Resources => browse::hint(s, crate::tui::browse::Kind::Resources),
            Mode::Prompts => browse::hint(s, crate::tui::browse::Kind::Prompts),
            Mode::Normal => {
                let mut actions = vec![
                    Action::Open,
                    Action::Filter,
                    Action::ToggleServer,
                    Action::ToggleDeny,
                ];
                // The network view matters only when a server speaks HTTP.
                if s.servers.iter().any(|v| v.http.is_some()) {
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
                }
                k.hint(&actions)
            }
        }
    };
    // The latest message first: on a narrow screen the hints give way.
    let mut spans = Vec::new();
    if let Some(msg) = &s.status {
        spans.push(Span::styled(clean(msg), Role::Warn.style()));
        spans.push(Span::raw(" · "));
    }
    spans.push(Span::styled(hint, Role::Muted.style()));
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}
