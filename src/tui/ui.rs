//! Rendering: pure functions of `&State` into a ratatui frame. Everything a
//! server sent goes through `sanitize::visible` before it is drawn.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, List, ListItem, ListState, Paragraph, Wrap};

use super::app::{Mode, Pane, ServerView, State, url_text};
use super::keymap::Action;
use crate::config::HttpTransportKind;
use crate::mcp::manager::ServerStatus;
use crate::mcp::netlog::Exchange;
use crate::sanitize;

mod ask;
pub mod browse;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

fn clean(s: &str) -> String {
    sanitize::one_line(s)
}

fn block(title: String, focused: bool) -> Block<'static> {
    let style = if focused {
        Style::default()
            .fg(Color::Cyan)
            .add_modifier(Modifier::BOLD)
    } else {
        Style::default()
    };
    Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(title, style))
        .border_style(style)
}

/// Draw the whole screen, then apply the theme (`[theme]` and `NO_COLOR`).
pub fn render(s: &State, f: &mut Frame) {
    render_panes(s, f);
    s.theme.apply(f.buffer_mut());
}

/// Where each pane goes on a screen of this size (shared with the mouse
/// handling, so a click lands where the eye sees it).
pub struct Areas {
    pub main: Rect,
    pub status: Rect,
    pub servers: Rect,
    pub tools: Rect,
    pub detail: Rect,
    pub result: Rect,
}

pub fn layout(area: Rect, servers: usize) -> Areas {
    let [main, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let left_width = (main.width / 3).clamp(24, 48);
    let [left, right] =
        Layout::horizontal([Constraint::Length(left_width), Constraint::Min(20)]).areas(main);
    let servers_height = (servers as u16 + 2).clamp(3, (left.height / 2).max(3));
    let [servers, tools] =
        Layout::vertical([Constraint::Length(servers_height), Constraint::Min(3)]).areas(left);
    let [detail, result] =
        Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(right);
    Areas {
        main,
        status,
        servers,
        tools,
        detail,
        result,
    }
}

/// The first row a list shows, so that `sel` is visible in `height` rows.
pub fn list_offset(sel: usize, height: usize) -> usize {
    sel.saturating_sub(height.saturating_sub(1))
}

fn render_panes(s: &State, f: &mut Frame) {
    let area = f.area();
    let Areas {
        main,
        status,
        servers,
        tools,
        detail,
        result,
    } = layout(area, s.servers.len());

    // The help over a view keeps the view under it.
    let view = match s.mode {
        Mode::Help => s.help_back.and_then(crate::tui::browse::Kind::of_mode),
        m => crate::tui::browse::Kind::of_mode(m),
    };
    if let Some(kind) = view {
        browse::render(s, kind, f, main);
    } else if matches!(s.mode, Mode::Log | Mode::LogFilter) {
        render_log(s, f, main);
    } else if s.mode == Mode::Net {
        render_net(s, f, main);
    } else {
        render_servers(s, f, servers);
        render_tools(s, f, tools);
        if s.mode == Mode::Editor {
            render_editor(s, f, detail);
        } else {
            render_detail(s, f, detail);
        }
        render_result(s, f, result);
    }
    render_status(s, f, status);
    if s.servers.is_empty() && s.mode == Mode::Normal {
        render_empty(s, f, area);
    }
    match s.mode {
        Mode::AddServer => render_add(s, f, area),
        Mode::Help => render_help(s, f, area),
        Mode::ConfirmQuit => render_confirm(f, area),
        _ => {}
    }
    // A server's request goes over everything.
    ask::render(s, f, area);
}

fn badge(s: &State, v: &ServerView) -> Span<'static> {
    match &v.status {
        ServerStatus::Pending => Span::styled(
            SPINNER[s.spinner % SPINNER.len()].to_string(),
            Style::default().fg(Color::Yellow),
        ),
        ServerStatus::Connected => Span::styled("●", Style::default().fg(Color::Green)),
        ServerStatus::Failed { .. } => Span::styled("✗", Style::default().fg(Color::Red)),
        ServerStatus::NeedsAuth { .. } => Span::styled("🔒", Style::default().fg(Color::Yellow)),
        ServerStatus::Disabled => Span::styled("○", Style::default().fg(Color::DarkGray)),
        ServerStatus::Disconnected => Span::styled("◌", Style::default().fg(Color::DarkGray)),
    }
}

fn render_servers(s: &State, f: &mut Frame, area: Rect) {
    let items: Vec<ListItem> = s
        .servers
        .iter()
        .map(|v| {
            let era = v
                .negotiated
                .as_ref()
                .map(|n| n.version.clone())
                .unwrap_or_else(|| v.status.label().to_string());
            let tools = if v.status == ServerStatus::Connected {
                format!(" {}t", v.lists.tools.len())
            } else {
                String::new()
            };
            // The last call's latency, else the last ping's.
            let latency = v
                .last_latency
                .or(v.ping)
                .map(|d| format!(" {}ms", d.as_millis()))
                .unwrap_or_default();
            let mut spans = vec![
                badge(s, v),
                Span::raw(" "),
                Span::styled(
                    clean(&v.name),
                    Style::default().add_modifier(Modifier::BOLD),
                ),
            ];
            // Before the rest, so a narrow pane still shows it.
            if v.http.as_ref().is_some_and(|h| h.insecure) {
                spans.push(Span::raw(" "));
                spans.push(insecure_badge());
            }
            spans.push(Span::styled(
                format!(" {era}{tools}{latency}"),
                Style::default().fg(Color::DarkGray),
            ));
            ListItem::new(Line::from(spans))
        })
        .collect();
    let mut state = ListState::default().with_selected(Some(s.server_sel));
    let list = List::new(items)
        .block(block(
            format!("Servers ({})", s.servers.len()),
            s.focus == Pane::Servers,
        ))
        .highlight_style(Style::default().add_modifier(Modifier::REVERSED));
    f.render_stateful_widget(list, area, &mut state);
}

fn render_tools(s: &State, f: &mut Frame, area: Rect) {
    let height = area.height.saturating_sub(2) as usize;
    // Only the visible window is built: fast with 10 000 tools.
    let offset = list_offset(s.tool_sel, height);
    let items: Vec<ListItem> = s
        .visible
        .iter()
        .skip(offset)
        .take(height.max(1))
        .filter_map(|(si, ti)| {
            let v = s.servers.get(*si)?;
            let t = v.lists.tools.get(*ti)?;
            let mut spans = Vec::new();
            if s.all_tools {
                spans.push(Span::styled(
                    format!("{}__", clean(&v.name)),
                    Style::default().fg(Color::DarkGray),
                ));
            }
            let denied = v.denied(&t.name);
            let name_style = if denied {
                Style::default()
                    .fg(Color::DarkGray)
                    .add_modifier(Modifier::CROSSED_OUT)
            } else {
                Style::default()
            };
            spans.push(Span::styled(clean(&t.name), name_style));
            if let Some(title) = t.title.as_deref().filter(|x| !x.is_empty() && *x != t.name) {
                spans.push(Span::styled(
                    format!(" {}", clean(title)),
                    Style::default().fg(Color::DarkGray),
                ));
            }
            for (on, label, color) in [
                (t.read_only(), " ro", Color::Green),
                (t.destructive(), " destructive", Color::Red),
                (t.open_world(), " open", Color::Blue),
                (denied, " denied", Color::Red),
            ] {
                if on {
                    spans.push(Span::styled(label, Style::default().fg(color)));
                }
            }
            Some(ListItem::new(Line::from(spans)))
        })
        .collect();
    let mut state = ListState::default().with_selected(Some(s.tool_sel - offset.min(s.tool_sel)));
    let scope = if s.all_tools {
        "all servers".to_string()
    } else {
        s.selected_server()
            .map(|v| clean(&v.name))
            .unwrap_or_default()
    };
    let filter = if s.filter.is_empty() && s.mode != Mode::Filter {
        String::new()
    } else {
        format!(" /{}", clean(&s.filter))
    };
    let title = format!("Tools · {scope} ({}){filter}", s.visible.len());
    let list = List::new(items)
        .block(block(title, s.focus == Pane::Tools))
        .highlight_style(Style::default().add_modifier(Modifier::REVERSED));
    f.render_stateful_widget(list, area, &mut state);
}

fn render_detail(s: &State, f: &mut Frame, area: Rect) {
    let mut lines: Vec<Line> = Vec::new();
    let title;
    if s.focus == Pane::Servers
        && let Some(v) = s.selected_server()
    {
        title = format!("Server · {}", clean(&v.name));
        server_lines(v, &mut lines);
    } else if let Some((_, t)) = s.selected_tool() {
        title = format!("Tool · {}", clean(&t.name));
        if let Some(x) = &t.title {
            lines.push(Line::styled(
                clean(x),
                Style::default().add_modifier(Modifier::BOLD),
            ));
        }
        if let Some(d) = &t.description {
            for l in sanitize::visible(d).lines() {
                lines.push(Line::raw(l.to_string()));
            }
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "Arguments",
            Style::default().add_modifier(Modifier::BOLD),
        ));
        match &t.input_schema {
            None => lines.push(Line::styled(
                "  (no inputSchema)",
                Style::default().fg(Color::Yellow),
            )),
            Some(schema) => schema_lines(schema, &mut lines),
        }
        if let Some(out) = &t.output_schema {
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                "Output",
                Style::default().add_modifier(Modifier::BOLD),
            ));
            schema_lines(out, &mut lines);
        }
    } else {
        title = "Detail".into();
        lines.push(Line::styled(
            "No tool selected.",
            Style::default().fg(Color::DarkGray),
        ));
    }
    let p = Paragraph::new(lines)
        .block(block(title, s.focus == Pane::Detail))
        .wrap(Wrap { trim: false })
        .scroll((s.detail_scroll.min(u16::MAX as usize) as u16, 0));
    f.render_widget(p, area);
}

/// TLS verification is off for this server.
fn insecure_badge() -> Span<'static> {
    Span::styled(
        "⚠ insecure",
        Style::default()
            .fg(Color::Yellow)
            .add_modifier(Modifier::BOLD),
    )
}

fn server_lines(v: &ServerView, lines: &mut Vec<Line<'static>>) {
    if let ServerStatus::NeedsAuth(reason) = &v.status {
        // The same words and symbol as the servers pane: 🔒 needs auth.
        lines.push(Line::styled(
            format!("status: 🔒 {}", v.status.label()),
            Style::default().fg(Color::Yellow),
        ));
        lines.push(Line::styled(
            format!("reason: {}", clean(&reason.to_string())),
            Style::default().fg(Color::Yellow),
        ));
    } else {
        lines.push(Line::raw(format!("status: {}", v.status.label())));
    }
    if let Some(h) = &v.http {
        // With `auto`, the connection tells which one answered.
        let kind = match (h.kind, v.negotiated.as_ref().map(|n| n.transport)) {
            (HttpTransportKind::Auto, Some("http")) => "streamable HTTP (auto-detected)",
            (HttpTransportKind::Auto, Some("sse")) => "legacy HTTP+SSE (auto-detected)",
            _ => h.kind_label(),
        };
        lines.push(Line::raw(format!("transport: {kind}")));
        lines.push(Line::raw(format!("url: {}", url_text(&h.url))));
        for (name, value) in &h.headers {
            // Masked when the view was built; shown_header again is a no-op
            // on masked values and keeps this line safe on its own.
            let (name, value) = crate::mcp::netlog::shown_header(name, value);
            lines.push(Line::raw(format!("header: {}: {value}", clean(&name))));
        }
        if let Some(ca) = &h.ca_file {
            lines.push(Line::raw(format!("ca_file: {}", clean(ca))));
        }
        if h.insecure {
            lines.push(Line::from(vec![
                insecure_badge(),
                Span::styled(
                    ": TLS certificates are not verified (insecure = true)",
                    Style::default().fg(Color::Yellow),
                ),
            ]));
        }
    }
    if let Some(n) = &v.negotiated {
        lines.push(Line::raw(format!("era: {} ({})", n.era, n.version)));
        lines.push(Line::raw(format!(
            "server: {} {}",
            clean(&n.server_info.name),
            clean(&n.server_info.version)
        )));
        lines.push(Line::raw(format!("detected by: {}", clean(&n.detection))));
    }
    let mut latency = Vec::new();
    if let Some(d) = v.ping {
        latency.push(format!("ping {}", crate::text::fmt_duration(d)));
    }
    if let Some(d) = v.last_latency {
        latency.push(format!("last call {}", crate::text::fmt_duration(d)));
    }
    if !latency.is_empty() {
        lines.push(Line::raw(format!("latency: {}", latency.join(" · "))));
    }
    if let Some(l) = &v.log_level {
        lines.push(Line::raw(format!("log level: {l} and above")));
    }
    if let ServerStatus::Failed(reason) = &v.status {
        let stderr_tail = reason.stderr_tail();
        lines.push(Line::styled(
            format!("error: {}", clean(&reason.to_string())),
            Style::default().fg(Color::Red),
        ));
        if !stderr_tail.is_empty() {
            lines.push(Line::styled(
                "stderr:",
                Style::default().add_modifier(Modifier::BOLD),
            ));
            for l in stderr_tail {
                lines.push(Line::raw(format!("  {}", clean(l))));
            }
        }
    }
    if v.findings > 0 {
        lines.push(Line::styled(
            format!("{} findings", v.findings),
            Style::default().fg(Color::Yellow),
        ));
    }
    if !v.notices.is_empty() {
        lines.push(Line::styled(
            "notifications and findings (newest first):",
            Style::default().add_modifier(Modifier::BOLD),
        ));
        for n in v.notices.iter().rev().take(8) {
            lines.push(Line::styled(format!("  {}", clean(n)), level_style(n)));
        }
    }
    // A failed server's tail is shown above; a running server's stderr here.
    if !matches!(v.status, ServerStatus::Failed(_)) && !v.stderr.is_empty() {
        lines.push(Line::styled(
            "stderr (newest last):",
            Style::default().add_modifier(Modifier::BOLD),
        ));
        for l in v.stderr.iter().skip(v.stderr.len().saturating_sub(12)) {
            lines.push(Line::styled(
                format!("  {}", clean(l)),
                Style::default().fg(Color::DarkGray),
            ));
        }
    }
}

fn schema_lines(schema: &serde_json::Value, lines: &mut Vec<Line<'static>>) {
    let rows = crate::schema::rows(schema);
    if rows.is_empty() {
        lines.push(Line::styled(
            "  (none)",
            Style::default().fg(Color::DarkGray),
        ));
    }
    for r in rows {
        let indent = "  ".repeat(r.depth + 1);
        let mut spans = vec![
            Span::raw(indent),
            Span::styled(
                clean(&r.name),
                Style::default().add_modifier(Modifier::BOLD),
            ),
        ];
        if r.required {
            spans.push(Span::styled("*", Style::default().fg(Color::Red)));
        }
        spans.push(Span::styled(
            format!("  {}", clean(&r.ty)),
            Style::default().fg(Color::Cyan),
        ));
        if !r.details.is_empty() {
            spans.push(Span::styled(
                format!("  {}", clean(&r.details.join(", "))),
                Style::default().fg(Color::DarkGray),
            ));
        }
        lines.push(Line::from(spans));
        if let Some(d) = &r.description {
            lines.push(Line::styled(
                format!("{}  {}", "  ".repeat(r.depth + 1), clean(d)),
                Style::default().fg(Color::DarkGray),
            ));
        }
    }
}

fn render_editor(s: &State, f: &mut Frame, area: Rect) {
    let Some(e) = &s.editor else { return };
    let problems = e.problems.len().clamp(1, 6) as u16;
    let [text, below] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(problems + 2)]).areas(area);
    let send = s.keymap.key_label(Action::Send).unwrap_or_default();
    let title = format!(
        "Arguments · {} on {} · {send} sends",
        clean(&e.tool),
        clean(&e.server)
    );
    let mut area_widget = e.text.clone();
    area_widget.set_block(block(title, true));
    f.render_widget(&area_widget, text);
    let lines: Vec<Line> = if e.problems.is_empty() {
        vec![Line::styled(
            "✓ valid against the inputSchema",
            Style::default().fg(Color::Green),
        )]
    } else {
        e.problems
            .iter()
            .take(6)
            .map(|p| Line::styled(format!("✗ {}", clean(p)), Style::default().fg(Color::Red)))
            .collect()
    };
    f.render_widget(
        Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title("Validation")),
        below,
    );
}

/// A placeholder for the result pane before any result.
fn result_placeholder(s: &State) -> Vec<Line<'static>> {
    match &s.inflight {
        Some(c) => inflight_lines(s, c),
        None => vec![Line::styled(
            "No call yet: select a tool and press Enter.",
            Style::default().fg(Color::DarkGray),
        )],
    }
}

/// The colour of a notice by its log level (`[error] …`).
fn level_style(notice: &str) -> Style {
    let level = notice
        .strip_prefix('[')
        .and_then(|r| r.split_once(']'))
        .map(|(l, _)| l);
    match level {
        Some("debug") => Style::default().fg(Color::DarkGray),
        Some("info" | "notice") => Style::default(),
        Some("warning") => Style::default().fg(Color::Yellow),
        Some("error" | "critical" | "alert" | "emergency") => Style::default().fg(Color::Red),
        _ if notice.starts_with("error:") => Style::default().fg(Color::Red),
        _ if notice.starts_with("warning:") => Style::default().fg(Color::Yellow),
        _ => Style::default(),
    }
}

/// The in-flight lines: spinner, tool, server (and a task's status); then,
/// when the server reports progress, a line with the bar, the numbers, the
/// message and the rate.
fn inflight_lines(s: &State, c: &crate::tui::app::InFlight) -> Vec<Line<'static>> {
    let mut head = format!(
        "{} calling {} on {}… (Esc cancels)",
        SPINNER[s.spinner % SPINNER.len()],
        clean(&c.tool),
        clean(&c.server)
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
        spans.push(Span::styled(
            "█".repeat(done),
            Style::default().fg(Color::Green),
        ));
        spans.push(Span::styled(
            "░".repeat(cells - done),
            Style::default().fg(Color::DarkGray),
        ));
        spans.push(Span::raw(" "));
    }
    spans.push(Span::raw(clean(&p.text())));
    lines.push(Line::from(spans));
    lines
}

fn render_result(s: &State, f: &mut Frame, area: Rect) {
    let title = match &s.outcome {
        Some(o) => format!(
            "Result · {} on {} · {} ms",
            clean(&o.tool),
            clean(&o.server),
            o.elapsed.as_millis()
        ),
        None => "Result".into(),
    };
    // Only the visible window of the prepared lines is handed to ratatui:
    // a 10 MB result costs no more per frame than a short one.
    let height = area.height.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    if let Some(c) = &s.inflight
        && s.outcome.is_some()
    {
        lines.extend(
            inflight_lines(s, c)
                .into_iter()
                .map(|l| l.style(Style::default().fg(Color::Yellow))),
        );
    }
    match &s.outcome {
        None => lines.extend(result_placeholder(s)),
        Some(o) => lines.extend(
            (s.result_scroll..s.result_scroll + height.max(1)).filter_map(|i| o.lines.line(i)),
        ),
    }
    let p = Paragraph::new(lines)
        .block(block(title, s.focus == Pane::Result))
        .wrap(Wrap { trim: false });
    f.render_widget(p, area);
}

fn render_status(s: &State, f: &mut Frame, area: Rect) {
    let k = &s.keymap;
    let hint = if let Some(h) = ask::hint(s) {
        h
    } else {
        match s.mode {
            Mode::Editor => k.hint(&[Action::Send, Action::Back]),
            Mode::Filter => "type to filter · Enter keep · Esc clear".to_string(),
            Mode::Help => "any key closes the help".to_string(),
            Mode::ConfirmQuit => "y quits, any other key stays".to_string(),
            Mode::Log => format!(
                "{} · / method filter · t this server / all · End follow · Esc back",
                k.hint(&[Action::Up, Action::Down])
            ),
            Mode::LogFilter => "type a method · Enter keep · Esc clear".to_string(),
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
            Mode::AddServer => "Tab next field · Enter add · Esc cancel".to_string(),
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
        spans.push(Span::styled(clean(msg), Style::default().fg(Color::Yellow)));
        spans.push(Span::raw(" · "));
    }
    spans.push(Span::styled(hint, Style::default().fg(Color::DarkGray)));
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn render_log(s: &State, f: &mut Frame, area: Rect) {
    let frames = s.log_frames();
    let [list_area, detail_area] =
        Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(area);
    let height = list_area.height.saturating_sub(2) as usize;
    let sel = s
        .log
        .sel
        .unwrap_or(frames.len().saturating_sub(1))
        .min(frames.len().saturating_sub(1));
    let offset = sel.saturating_sub(height.saturating_sub(1));
    let name_width = s
        .servers
        .iter()
        .map(|v| v.name.chars().count())
        .max()
        .unwrap_or(8)
        .clamp(4, 24);
    // Only the visible rows are built.
    let items: Vec<ListItem> = frames
        .iter()
        .skip(offset)
        .take(height.max(1))
        .map(|fr| {
            let bad = serde_json::from_str::<serde_json::Value>(&fr.text)
                .map(|v| v.get("jsonrpc").and_then(|j| j.as_str()) != Some("2.0"))
                .unwrap_or(!fr.truncated());
            let dir_style = match fr.dir {
                crate::mcp::framelog::Direction::Out => Style::default().fg(Color::Blue),
                crate::mcp::framelog::Direction::In => Style::default().fg(Color::Green),
            };
            let method = fr.method.as_deref().map(clean).unwrap_or_else(|| {
                if fr.id.is_some() {
                    "(response)".into()
                } else {
                    "(no method)".into()
                }
            });
            let id = fr
                .id
                .as_ref()
                .map(|i| format!(" #{}", clean(&i.to_string())))
                .unwrap_or_default();
            let latency = fr
                .latency
                .map(|d| format!(" {:.1}ms", d.as_secs_f64() * 1e3))
                .unwrap_or_default();
            let mut spans = vec![
                Span::styled(
                    format!("{:>9.3} ", fr.elapsed.as_secs_f64()),
                    Style::default().fg(Color::DarkGray),
                ),
                Span::raw(format!("{:<name_width$} ", clean(&fr.server))),
                Span::styled(format!("{} ", fr.dir.arrow()), dir_style),
                Span::styled(
                    format!("{method}{id}"),
                    Style::default().add_modifier(Modifier::BOLD),
                ),
                Span::styled(
                    format!("  {}{latency}", crate::text::human_size(fr.size)),
                    Style::default().fg(Color::DarkGray),
                ),
            ];
            if bad {
                spans.push(Span::styled(
                    "  malformed",
                    Style::default().fg(Color::White).bg(Color::Red),
                ));
            }
            ListItem::new(Line::from(spans))
        })
        .collect();
    let mut state = ListState::default().with_selected(if frames.is_empty() {
        None
    } else {
        Some(sel - offset)
    });
    let scope = if s.log.only_server {
        s.selected_server()
            .map(|v| clean(&v.name))
            .unwrap_or_default()
    } else {
        "all servers".into()
    };
    let filter = if s.log.method.is_empty() && s.mode != Mode::LogFilter {
        String::new()
    } else {
        format!(" /{}", clean(&s.log.method))
    };
    let follow = if s.log.sel.is_none() {
        " · following"
    } else {
        ""
    };
    let title = format!("Protocol log · {scope} ({}){filter}{follow}", frames.len());
    let list = List::new(items)
        .block(block(title, true))
        .highlight_style(Style::default().add_modifier(Modifier::REVERSED));
    f.render_stateful_widget(list, list_area, &mut state);

    let detail: Vec<Line> = match frames.get(sel) {
        None => vec![Line::styled(
            "No frames yet.",
            Style::default().fg(Color::DarkGray),
        )],
        Some(fr) => {
            let pretty = serde_json::from_str::<serde_json::Value>(&fr.text)
                .ok()
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or_else(|| fr.text.to_string());
            let mut lines: Vec<Line> = sanitize::visible(&pretty)
                .lines()
                .take(detail_area.height.saturating_sub(2) as usize + 1)
                .map(|l| Line::raw(l.to_string()))
                .collect();
            if fr.truncated() {
                lines.insert(
                    0,
                    Line::styled(
                        format!("(cut: {} of {} bytes kept)", fr.text.len(), fr.size),
                        Style::default().fg(Color::Yellow),
                    ),
                );
            }
            lines
        }
    };
    f.render_widget(
        Paragraph::new(detail).block(block("Frame".into(), false)),
        detail_area,
    );
}

/// The colour of an exchange's status: 2xx green, 3xx blue, 4xx yellow,
/// 5xx and failures red, none yet grey.
fn status_style(e: &Exchange) -> Style {
    let color = match (e.status, &e.error) {
        (_, Some(_)) => Color::Red,
        (Some(200..=299), _) => Color::Green,
        (Some(300..=399), _) => Color::Blue,
        (Some(400..=499), _) => Color::Yellow,
        (Some(_), _) => Color::Red,
        (None, None) => Color::DarkGray,
    };
    Style::default().fg(color)
}

/// Cut to `width` characters, with `…` when cut.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        format!("{text:<width$}")
    } else {
        let mut t: String = text.chars().take(width.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// An exchange's timing columns: time to headers, total.
fn exchange_times(e: &Exchange) -> (String, String) {
    use crate::text::fmt_duration;
    let headers = match e.headers_after {
        Some(d) => fmt_duration(d),
        None if e.done() => "–".into(),
        None => "…".into(),
    };
    let total = match (e.total, e.headers_after) {
        (Some(d), _) => fmt_duration(d),
        (None, Some(_)) => "open".into(),
        (None, None) => "…".into(),
    };
    (headers, total)
}

fn render_net(s: &State, f: &mut Frame, area: Rect) {
    let list = s.net_exchanges();
    let sel = s.net_index(&list);
    let scope = if s.net.only_server {
        s.selected_server()
            .map(|v| clean(&v.name))
            .unwrap_or_default()
    } else {
        "all servers".into()
    };
    let follow = if s.net.sel.is_none() && !list.is_empty() {
        " · following"
    } else {
        ""
    };
    let title = format!("Network · {scope} ({}){follow}", list.len());
    if list.is_empty() {
        let muted = Style::default().fg(Color::DarkGray);
        let key = |a: Action| s.keymap.key_label(a).unwrap_or_default();
        let mut lines = vec![
            Line::raw("No HTTP exchanges yet: network traffic of HTTP servers appears here."),
            Line::raw(""),
            Line::styled(
                "Each POST, GET stream and DELETE is listed with its status, timing, size and",
                muted,
            ),
            Line::styled("headers (secrets masked).", muted),
            Line::styled(
                format!(
                    "Stdio servers have no HTTP traffic: their frames are in the protocol log ({}).",
                    key(Action::ProtocolLog)
                ),
                muted,
            ),
        ];
        if s.net.only_server {
            lines.push(Line::styled(
                format!(
                    "Only {scope} is shown; {} shows all servers.",
                    key(Action::AllTools)
                ),
                Style::default().fg(Color::Yellow),
            ));
        }
        f.render_widget(
            Paragraph::new(lines)
                .block(block(title, true))
                .wrap(Wrap { trim: false }),
            area,
        );
        return;
    }
    // A short list leaves the rest to the details; a long one gets half.
    let list_height = (list.len() as u16 + 3).clamp(4, (area.height / 2).max(4));
    let [list_area, detail_area] =
        Layout::vertical([Constraint::Length(list_height), Constraint::Min(0)]).areas(area);
    let outer = block(title, !s.net.detail_focus);
    let inner = outer.inner(list_area);
    f.render_widget(outer, list_area);

    let name_width = list
        .iter()
        .map(|e| e.server.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, 16);
    // time, server, method, status, (label), headers, total, size.
    let fixed = 10 + (name_width + 1) + 7 + 4 + 1 + 16 + 8;
    // Capped, so the numbers stay next to what they measure.
    let label_width = (inner.width as usize).saturating_sub(fixed).clamp(6, 40);
    let [head_area, rows_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
    let head = format!(
        "{:>9} {:<name_width$} {:<6} {:>3} {} {:>7} {:>7} {:>8}",
        "time",
        "server",
        "method",
        "st",
        fit("label", label_width),
        "headers",
        "total",
        "size"
    );
    f.render_widget(
        Paragraph::new(Line::styled(
            head,
            Style::default()
                .fg(Color::DarkGray)
                .add_modifier(Modifier::BOLD),
        )),
        head_area,
    );
    let height = rows_area.height as usize;
    let sel = sel.unwrap_or(0);
    let offset = list_offset(sel, height);
    // Only the visible rows are built.
    let items: Vec<ListItem> = list
        .iter()
        .skip(offset)
        .take(height.max(1))
        .map(|e| {
            let status = match (e.status, &e.error) {
                (Some(c), _) => c.to_string(),
                (None, Some(_)) => "ERR".into(),
                (None, None) => "…".into(),
            };
            let (headers, total) = exchange_times(e);
            let muted = Style::default().fg(Color::DarkGray);
            ListItem::new(Line::from(vec![
                Span::styled(format!("{:>9.3} ", e.elapsed.as_secs_f64()), muted),
                Span::raw(format!("{} ", fit(&clean(&e.server), name_width))),
                Span::raw(format!("{:<6} ", e.http_method)),
                Span::styled(format!("{status:>3} "), status_style(e)),
                Span::styled(
                    format!("{} ", fit(&clean(&e.label), label_width)),
                    Style::default().add_modifier(Modifier::BOLD),
                ),
                Span::styled(format!("{headers:>7} {total:>7} "), muted),
                Span::styled(
                    format!("{:>8}", crate::text::human_size(e.bytes as usize)),
                    muted,
                ),
            ]))
        })
        .collect();
    let mut state = ListState::default().with_selected(Some(sel - offset.min(sel)));
    let rows = List::new(items).highlight_style(Style::default().add_modifier(Modifier::REVERSED));
    f.render_stateful_widget(rows, rows_area, &mut state);

    if let Some(e) = list.get(sel) {
        render_exchange(s, e, f, detail_area);
    }
}

/// The selected exchange: URL, what it carried, timing, note, error, and
/// both sets of headers (masked by the core; `shown_header` again is a
/// no-op on masked values and sanitizes the rest).
fn render_exchange(s: &State, e: &Exchange, f: &mut Frame, area: Rect) {
    use crate::mcp::netlog::shown_header;
    use crate::text::fmt_duration;
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let muted = Style::default().fg(Color::DarkGray);
    let header_lines = |title: &str, headers: &[(String, String)], none: &str| {
        let mut lines = vec![Line::styled(title.to_string(), bold)];
        if headers.is_empty() {
            lines.push(Line::styled(format!("  {none}"), muted));
        }
        for (name, value) in headers {
            let (name, value) = shown_header(name, value);
            lines.push(Line::from(vec![
                Span::styled(
                    format!("  {}:", clean(&name)),
                    Style::default().fg(Color::Cyan),
                ),
                Span::raw(format!(" {value}")),
            ]));
        }
        lines
    };
    let status = match (e.status, &e.error) {
        (Some(c), _) => c.to_string(),
        (None, Some(_)) => "failed".into(),
        (None, None) => "waiting for headers".into(),
    };
    let mut overview = vec![
        Line::from(vec![
            Span::styled(format!("{} ", e.http_method), bold),
            Span::raw(url_text(&e.url)),
        ]),
        Line::from(vec![
            Span::styled(status, status_style(e).add_modifier(Modifier::BOLD)),
            Span::raw(format!(" · {} · {}", clean(&e.label), clean(&e.server))),
        ]),
    ];
    let mut timing = Vec::new();
    if let Some(h) = e.headers_after {
        timing.push(format!("headers after {}", fmt_duration(h)));
    }
    match e.total {
        Some(t) => timing.push(format!("total {}", fmt_duration(t))),
        None if e.headers_after.is_some() => timing.push("still open".into()),
        None => {}
    }
    timing.push(crate::text::human_size(e.bytes as usize));
    if e.events > 0 {
        timing.push(format!("{} SSE events", e.events));
    }
    overview.push(Line::styled(timing.join(" · "), muted));
    if let Some(n) = &e.note {
        overview.push(Line::styled(
            format!("note: {}", clean(n)),
            Style::default().fg(Color::Cyan),
        ));
    }
    if let Some(err) = &e.error {
        overview.push(Line::styled(
            format!("error: {}", clean(err)),
            Style::default().fg(Color::Red),
        ));
    }
    let request = header_lines("Request headers", &e.request_headers, "(none)");
    let response = header_lines(
        "Response headers",
        &e.response_headers,
        if e.status.is_some() || e.done() {
            "(none)"
        } else {
            "(none yet)"
        },
    );
    let title = format!("Exchange #{}", e.seq);
    let focused = s.net.detail_focus;
    let scroll = (s.net.detail_scroll.min(u16::MAX as usize) as u16, 0);
    if area.width >= 100 {
        // Wide: the request on the left, the response on the right.
        let outer = block(title, focused);
        let inner = outer.inner(area);
        f.render_widget(outer, area);
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                .spacing(1)
                .areas(inner);
        overview.push(Line::raw(""));
        overview.extend(request);
        f.render_widget(
            Paragraph::new(overview)
                .wrap(Wrap { trim: false })
                .scroll(scroll),
            left,
        );
        f.render_widget(
            Paragraph::new(response)
                .wrap(Wrap { trim: false })
                .scroll(scroll),
            right,
        );
    } else {
        // Narrow: one column, no blank lines (the bold titles separate).
        overview.extend(request);
        overview.extend(response);
        f.render_widget(
            Paragraph::new(overview)
                .block(block(title, focused))
                .wrap(Wrap { trim: false })
                .scroll(scroll),
            area,
        );
    }
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

fn render_help(s: &State, f: &mut Frame, area: Rect) {
    let mut lines = Vec::new();
    let help = s.keymap.help();
    // The key column as wide as its longest entry: room for the words.
    let kw = help
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|(k, _)| k.chars().count()))
        .max()
        .unwrap_or(0)
        .clamp(6, 14);
    for (group, rows) in help {
        lines.push(Line::styled(
            group.title(),
            Style::default().add_modifier(Modifier::BOLD),
        ));
        for (keys, help) in rows {
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys:<kw$}  "), Style::default().fg(Color::Cyan)),
                Span::raw(help),
            ]));
        }
    }
    // Two columns when one does not fit (80×24 and the like).
    let room = area.height.saturating_sub(4) as usize;
    let columns = if lines.len() > room { 2 } else { 1 };
    let per_column = lines.len().div_ceil(columns);
    let width = if columns == 2 {
        area.width.saturating_sub(2)
    } else {
        70
    };
    let popup = centered(area, width, per_column as u16 + 2);
    f.render_widget(Clear, popup);
    let block = Block::default()
        .borders(Borders::ALL)
        .title("Keys (any key closes)");
    let inner = block.inner(popup);
    f.render_widget(block, popup);
    let parts =
        Layout::horizontal(vec![Constraint::Ratio(1, columns as u32); columns]).split(inner);
    for (i, chunk) in lines.chunks(per_column).enumerate() {
        if let Some(part) = parts.get(i) {
            f.render_widget(Paragraph::new(chunk.to_vec()), *part);
        }
    }
}

fn render_empty(s: &State, f: &mut Frame, area: Rect) {
    let path = s
        .config_path
        .as_ref()
        .map(|p| clean(&p.display().to_string()))
        .unwrap_or_else(|| "(no config file)".into());
    let add = s
        .keymap
        .key_label(Action::AddServer)
        .unwrap_or_else(|| "a".into());
    let lines = vec![
        Line::styled(
            "No servers yet",
            Style::default().add_modifier(Modifier::BOLD),
        ),
        Line::raw(""),
        Line::raw(format!(
            "Press {add} to add one: a name and the command that starts it."
        )),
        Line::raw(format!("It is written to {path}.")),
        Line::raw(""),
        Line::raw("Or write the file yourself: config.example.toml documents every option."),
        Line::raw("To look around first: mcpdeck --demo"),
    ];
    popup(f, area, 76, "Welcome to mcpdeck", lines);
}

/// A bordered box over the middle of the screen.
fn popup(f: &mut Frame, area: Rect, width: u16, title: &str, lines: Vec<Line>) {
    let rect = centered(area, width, lines.len() as u16 + 2);
    f.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title.to_string());
    f.render_widget(Paragraph::new(lines).block(block), rect);
}

fn render_add(s: &State, f: &mut Frame, area: Rect) {
    let form = &s.add;
    let field = |label: &str, value: &str, active: bool| {
        let style = if active {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
        };
        let cursor = if active { "▏" } else { "" };
        Line::from(vec![
            Span::raw(format!("{label:<9}")),
            Span::styled(format!("{}{cursor}", clean(value)), style),
        ])
    };
    let mut lines = vec![
        field("name", &form.name, form.field == 0),
        field("command or URL", &form.command, form.field == 1),
        Line::styled(
            "  e.g. npx -y @modelcontextprotocol/server-everything",
            Style::default().fg(Color::DarkGray),
        ),
    ];
    if let Some(e) = &form.error {
        lines.push(Line::styled(
            format!("✗ {}", clean(e)),
            Style::default().fg(Color::Red),
        ));
    }
    popup(f, area, 76, "Add a server (Enter adds, Esc cancels)", lines);
}

fn render_confirm(f: &mut Frame, area: Rect) {
    popup(
        f,
        area,
        44,
        "Quit",
        vec![Line::raw("A call is in flight. Quit anyway? (y/n)")],
    );
}
