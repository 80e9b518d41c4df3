//! The network view, full screen: HTTP exchanges with status, timing,
//! size and headers (secrets masked).

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState, Paragraph, Wrap};

use crate::mcp::netlog::Exchange;
use crate::tui::app::{State, url_text};
use crate::tui::keymap::Action;

use super::*;

/// The colour of an exchange's status: 2xx green, 3xx blue, 4xx yellow,
/// 5xx and failures red, none yet grey.
pub(super) fn status_style(e: &Exchange) -> Style {
    let color = match (e.status, &e.error) {
        (_, Some(_)) => Role::Error.color(),
        (Some(200..=299), _) => Role::Ok.color(),
        (Some(300..=399), _) => Role::Link.color(),
        (Some(400..=499), _) => Role::Warn.color(),
        (Some(_), _) => Role::Error.color(),
        (None, None) => Role::Muted.color(),
    };
    Style::default().fg(color)
}

/// An exchange's timing columns: time to headers, total.
pub(super) fn exchange_times(e: &Exchange) -> (String, String) {
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

pub(super) fn render_net(s: &State, f: &mut Frame, area: Rect) {
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
        let muted = Role::Muted.style();
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
                Role::Warn.style(),
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
    // Shared with the mouse: a click lands on the row drawn there.
    let (list_area, rows_area, detail_area) = crate::tui::app::net_areas(area, list.len());
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
    let head_area = Rect {
        height: inner.height.min(1),
        ..inner
    };
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
            Role::Muted.style().add_modifier(Modifier::BOLD),
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
            let muted = Role::Muted.style();
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
    let rows = List::new(items).highlight_style(Role::Selected.style());
    f.render_stateful_widget(rows, rows_area, &mut state);

    if let Some(e) = list.get(sel) {
        render_exchange(s, e, f, detail_area);
    }
}

/// The selected exchange: URL, what it carried, timing, note, error, and
/// both sets of headers (masked by the core; `shown_header` again is a
/// no-op on masked values and sanitizes the rest).
pub(super) fn render_exchange(s: &State, e: &Exchange, f: &mut Frame, area: Rect) {
    use crate::mcp::netlog::shown_header;
    use crate::text::fmt_duration;
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let muted = Role::Muted.style();
    let header_lines = |title: &str, headers: &[(String, String)], none: &str| {
        let mut lines = vec![Line::styled(title.to_string(), bold)];
        if headers.is_empty() {
            lines.push(Line::styled(format!("  {none}"), muted));
        }
        for (name, value) in headers {
            let (name, value) = shown_header(name, value);
            lines.push(Line::from(vec![
                Span::styled(format!("  {}:", clean(&name)), Role::Accent.style()),
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
            Role::Accent.style(),
        ));
    }
    if let Some(err) = &e.error {
        overview.push(Line::styled(
            format!("error: {}", clean(err)),
            Role::Error.style(),
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
