//! The running serves (a popup over the panes) and the serve attached to
//! (full screen): a header (pid, agent, calls, config), its servers, the
//! selected server's tools as its agent gets them (● visible, ✗ refused
//! by a rule, ◌ withheld by --pinned), and its calls, newest last.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, List, ListItem, ListState, Paragraph};

use crate::tui::app::State;
use crate::tui::attach::{Focus, ToolState};
use crate::tui::keymap::Action;
use crate::tui::theme::Role;

use super::*;

/// The list of running serves, over the middle of the screen.
pub(super) fn render_list(s: &State, f: &mut Frame, area: Rect) {
    let list = &s.serves;
    let width = area.width.saturating_sub(4).clamp(20, 110);
    let inner = width.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    if list.loading {
        lines.push(Line::from(Span::styled(
            "looking for running serves…",
            Role::Warn.style(),
        )));
    } else if let Some(e) = &list.error {
        lines.push(Line::from(Span::styled(clean(e), Role::Error.style())));
    } else if list.rows.is_empty() {
        lines.push(Line::from("No `mcpdeck serve` is running."));
        lines.push(Line::from(Span::styled(
            "An agent runs one with `mcpdeck serve SERVER…`; its socket goes in",
            Role::Muted.style(),
        )));
        lines.push(Line::from(Span::styled(
            fit_end(
                &clean(&crate::serve::control::socket_dir().display().to_string()),
                inner,
            ),
            Role::Muted.style(),
        )));
    } else {
        let pid_w = list
            .rows
            .iter()
            .map(|r| r.pid.to_string().len())
            .max()
            .unwrap_or(3)
            .max(3);
        let agent_w = list
            .rows
            .iter()
            .map(|r| r.agent.chars().count())
            .max()
            .unwrap_or(5)
            .clamp(5, (inner / 4).clamp(5, 24));
        lines.push(Line::from(Span::styled(
            fit_end(
                &format!(
                    "  {:<pid_w$}  {:<agent_w$}  {:>5}  SERVERS · CONFIG",
                    "PID", "AGENT", "CALLS"
                ),
                inner,
            ),
            Role::Muted.style(),
        )));
        for (i, r) in list.rows.iter().enumerate() {
            let mark = if i == list.sel { "▶ " } else { "  " };
            let rest = match &r.error {
                Some(e) => format!("(no answer: {e})"),
                None => format!("{} · {}", r.servers, r.config),
            };
            let text = format!(
                "{mark}{:<pid_w$}  {:<agent_w$}  {:>5}  {}",
                r.pid,
                fit(&r.agent, agent_w),
                r.calls,
                clean(&rest)
            );
            let style = if i == list.sel {
                Role::Selected.style()
            } else if r.error.is_some() {
                Role::Muted.style()
            } else {
                Style::default()
            };
            lines.push(Line::from(Span::styled(fit_end(&text, inner), style)));
        }
    }
    let height = (lines.len() as u16 + 2).min(area.height);
    let rect = centered(area, width, height);
    f.render_widget(Clear, rect);
    let title = format!(
        "Running serves ({}) · {} attach · {} close",
        list.rows.len(),
        s.keymap.label(Action::Open),
        s.keymap.label(Action::Back)
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(
            fit_end(&title, width.saturating_sub(2) as usize),
            Role::Accent.style().add_modifier(Modifier::BOLD),
        ))
        .border_style(Role::Accent.style());
    f.render_widget(Paragraph::new(lines).block(block), rect);
}

/// The serve attached to, in `area`.
pub(super) fn render_attached(s: &State, f: &mut Frame, area: Rect) {
    let Some(a) = &s.attached else { return };
    let calls_h = (area.height / 3).clamp(4, 14);
    let [header, top, calls] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(calls_h),
    ])
    .areas(area);
    // The header: who, and whether it is still there.
    let mut spans = vec![Span::styled(
        format!("serve {}", a.pid),
        Role::Accent.style().add_modifier(Modifier::BOLD),
    )];
    if let Some(why) = &a.gone {
        spans.push(Span::styled(
            format!("  ⚠ {}", clean(why)),
            Role::Alert.style().add_modifier(Modifier::BOLD),
        ));
    } else if !a.connected {
        spans.push(Span::styled("  attaching…", Role::Warn.style()));
    } else {
        let mut rest = format!(
            "  agent {} · {} calls · {}",
            clean(&a.agent),
            a.call_count,
            clean(&a.config)
        );
        if a.dropped > 0 {
            rest.push_str(&format!(" · {} events missed", a.dropped));
        }
        spans.push(Span::styled(rest, Role::Muted.style()));
    }
    let used: usize = spans.iter().map(|s| s.width()).sum();
    if used > header.width as usize {
        let text: String = spans.iter().map(|s| s.content.to_string()).collect();
        spans = vec![Span::styled(
            fit_end(&text, header.width as usize),
            Role::Accent.style(),
        )];
    }
    f.render_widget(Paragraph::new(Line::from(spans)), header);

    let left_w = (top.width / 3).clamp(16, 40);
    let [servers, tools] =
        Layout::horizontal([Constraint::Length(left_w), Constraint::Min(10)]).areas(top);
    render_served_servers(s, f, servers);
    render_served_tools(s, f, tools);
    render_calls(s, f, calls);
}

fn render_served_servers(s: &State, f: &mut Frame, area: Rect) {
    let Some(a) = &s.attached else { return };
    let width = area.width.saturating_sub(2) as usize;
    let items: Vec<ListItem> = a
        .servers
        .iter()
        .map(|v| {
            let (badge, role) = if v.disabled {
                ("○", Role::Muted)
            } else if v.status == "connected" {
                ("●", Role::Ok)
            } else if v.status.starts_with("failed") || v.status.starts_with("needs") {
                ("✗", Role::Error)
            } else {
                ("◌", Role::Warn)
            };
            let extra = if v.disabled {
                " disabled".to_string()
            } else {
                let shown = v
                    .tools
                    .iter()
                    .filter(|t| t.state == ToolState::Visible)
                    .count();
                format!(" {shown}/{}t", v.tools.len())
            };
            let name = fit_end(
                &clean(&v.name),
                width.saturating_sub(2 + extra.chars().count()).max(1),
            );
            ListItem::new(Line::from(vec![
                Span::styled(badge, role.style()),
                Span::raw(" "),
                Span::styled(name, Style::default().add_modifier(Modifier::BOLD)),
                Span::styled(extra, Role::Muted.style()),
            ]))
        })
        .collect();
    let mut state =
        ListState::default().with_selected((!a.servers.is_empty()).then_some(a.server_sel));
    let list = List::new(items)
        .block(block(
            format!("Served ({})", a.servers.len()),
            a.focus == Focus::Servers,
        ))
        .highlight_style(Role::Selected.style());
    f.render_stateful_widget(list, area, &mut state);
}

fn render_served_tools(s: &State, f: &mut Frame, area: Rect) {
    let Some(a) = &s.attached else { return };
    let width = area.width.saturating_sub(2) as usize;
    let server = a.selected_server();
    let items: Vec<ListItem> = server
        .map(|v| v.tools.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|t| {
            let (badge, role, why) = match t.state {
                ToolState::Visible if t.exposed != t.name => {
                    ("●", Role::Ok, format!("  as {}", t.exposed))
                }
                ToolState::Visible => ("●", Role::Ok, String::new()),
                ToolState::Refused => (
                    "✗",
                    Role::Error,
                    format!(
                        "  refused: {}",
                        t.rule.as_deref().unwrap_or("by the policy")
                    ),
                ),
                ToolState::Withheld => (
                    "◌",
                    Role::Warn,
                    format!("  withheld: {}", t.rule.as_deref().unwrap_or("--pinned")),
                ),
            };
            let name = fit_end(&clean(&t.name), width.saturating_sub(2).max(1));
            let room = width.saturating_sub(2 + name.chars().count());
            ListItem::new(Line::from(vec![
                Span::styled(badge, role.style()),
                Span::raw(" "),
                Span::styled(name, Style::default().add_modifier(Modifier::BOLD)),
                Span::styled(fit_end(&clean(&why), room), Role::Muted.style()),
            ]))
        })
        .collect();
    let count = items.len();
    let mut state = ListState::default().with_selected((count > 0).then_some(a.tool_sel));
    let title = match server {
        Some(v) => format!("Tools of {} as its agent gets them", clean(&v.name)),
        None => "Tools".to_string(),
    };
    let list = List::new(items)
        .block(block(fit_end(&title, width), a.focus == Focus::Tools))
        .highlight_style(Role::Selected.style());
    f.render_stateful_widget(list, area, &mut state);
}

fn render_calls(s: &State, f: &mut Frame, area: Rect) {
    let Some(a) = &s.attached else { return };
    let width = area.width.saturating_sub(2) as usize;
    let height = area.height.saturating_sub(2) as usize;
    let n = a.calls.len();
    let sel = a
        .call_sel
        .unwrap_or(n.saturating_sub(1))
        .min(n.saturating_sub(1));
    let offset = crate::tui::ui::list_offset(sel, height.max(1));
    let items: Vec<ListItem> = a
        .calls
        .iter()
        .skip(offset)
        .take(height.max(1))
        .map(|c| {
            let time = crate::trust::pin::rfc3339(
                std::time::UNIX_EPOCH + std::time::Duration::from_millis(c.at),
            );
            let time = time.get(11..19).unwrap_or_default().to_string();
            let elapsed = c
                .elapsed_ms
                .and_then(|ms| std::time::Duration::try_from_secs_f64(ms / 1e3).ok())
                .map(crate::text::fmt_duration)
                .unwrap_or_else(|| "…".into());
            let role = match c.outcome.as_str() {
                "ok" => Role::Ok,
                "in flight" => Role::Warn,
                _ => Role::Error,
            };
            let head = format!(
                "#{:<4} {time} {}/{} {elapsed} ",
                c.seq,
                clean(&c.server),
                clean(&c.tool)
            );
            let room = width.saturating_sub(head.chars().count());
            ListItem::new(Line::from(vec![
                Span::raw(fit_end(&head, width)),
                Span::styled(fit_end(&clean(&c.outcome), room), role.style()),
            ]))
        })
        .collect();
    let mut state = ListState::default()
        .with_selected((n > 0 && a.focus == Focus::Calls).then(|| sel - offset));
    let follow = if a.call_sel.is_none() {
        ", following"
    } else {
        ""
    };
    let list = List::new(items)
        .block(block(
            format!("Calls through serve ({}{follow})", a.call_count),
            a.focus == Focus::Calls,
        ))
        .highlight_style(Role::Selected.style());
    f.render_stateful_widget(list, area, &mut state);
}

/// The status bar's hint in the list.
pub(super) fn list_hint(s: &State) -> String {
    let k = &s.keymap;
    format!(
        "{} · {} attach · {} refresh · {} close",
        k.hint(&[Action::Up, Action::Down]),
        k.label(Action::Open),
        k.label(Action::Serves),
        k.label(Action::Back)
    )
}

/// The status bar's hint in the attached view.
pub(super) fn attached_hint(s: &State) -> String {
    let k = &s.keymap;
    format!(
        "{} pane · {} deny/allow · {} on/off · {} log · {} detach",
        k.label(Action::NextPane),
        k.label(Action::ToggleDeny),
        k.label(Action::ToggleServer),
        k.label(Action::ProtocolLog),
        k.label(Action::Back)
    )
}
