//! The import screen: what other clients' files hold, grouped by file,
//! a box each; the selected server's warnings and the TOML it adds.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::config::TransportConfig;
use crate::tui::app::{ImportRow, State};

use super::*;

/// What a server runs, in one line: `stdio: npx -y pkg` or `http: URL`.
fn what(row: &ImportRow) -> String {
    match &row.item.server.transport {
        TransportConfig::Stdio { command, args, .. } => {
            let mut t = format!("stdio: {command}");
            for a in args {
                t.push(' ');
                t.push_str(a);
            }
            t
        }
        TransportConfig::Http { url, transport, .. } => {
            let kind = if *transport == crate::config::HttpTransportKind::Sse {
                "sse"
            } else {
                "http"
            };
            format!("{kind}: {}", crate::mcp::netlog::shown_url(url))
        }
    }
}

/// The server as the preview may show it: secret-looking header and
/// environment values masked (a `${VAR}` reference is shown: it holds no
/// secret), secrets in the URL masked.
fn masked(server: &crate::config::ServerConfig) -> crate::config::ServerConfig {
    use crate::mcp::netlog::{is_secret_header, mask_value, shown_url};
    let hide = |pairs: &mut Vec<(String, String)>| {
        for (name, value) in pairs.iter_mut() {
            if is_secret_header(name) && !value.contains("${") {
                *value = mask_value(value);
            }
        }
    };
    let mut server = server.clone();
    match &mut server.transport {
        TransportConfig::Stdio { env, .. } => hide(env),
        TransportConfig::Http { url, headers, .. } => {
            hide(headers);
            *url = shown_url(url);
        }
    }
    server
}

pub(super) fn render_import(s: &State, f: &mut Frame, area: Rect) {
    let Some(v) = &s.import else { return };
    let [list_area, detail_area] = if area.width >= 100 {
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area)
    } else {
        Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(area)
    };
    // The list: a header per file, a row per server.
    let width = list_area.width.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    let mut sel_line = 0;
    let mut last_file: Option<(&str, &std::path::Path)> = None;
    for (i, row) in v.rows.iter().enumerate() {
        let file = (row.item.client.label(), row.item.path.as_path());
        if last_file != Some(file) {
            if last_file.is_some() {
                lines.push(Line::raw(""));
            }
            lines.push(Line::styled(
                fit_end(
                    &format!("{} · {}", file.0, clean(&file.1.display().to_string())),
                    width,
                ),
                Style::default().add_modifier(Modifier::BOLD),
            ));
            last_file = Some(file);
        }
        if i == v.sel {
            sel_line = lines.len();
        }
        let boxed = match (row.already, row.checked) {
            (true, _) => "[=]",
            (false, true) => "[x]",
            (false, false) => "[ ]",
        };
        let mut spans = vec![
            Span::raw(format!("{boxed} ")),
            Span::styled(
                clean(&row.item.name),
                Style::default().add_modifier(Modifier::BOLD),
            ),
        ];
        if row.already {
            spans.push(Span::styled(" in the config already", Role::Muted.style()));
        } else if !row.item.warnings.is_empty() {
            spans.push(Span::styled(
                format!(" ⚠{}", row.item.warnings.len()),
                Role::Warn.style(),
            ));
        }
        let used: usize = spans.iter().map(|s| s.width()).sum();
        spans.push(Span::styled(
            fit_end(
                &format!("  {}", clean(&what(row))),
                width.saturating_sub(used),
            ),
            Role::Muted.style(),
        ));
        let mut line = Line::from(spans);
        if i == v.sel {
            line = line.style(Role::Selected.style());
        }
        lines.push(line);
    }
    if v.loading {
        lines.push(Line::styled(
            "looking through the other clients' files…",
            Role::Warn.style(),
        ));
    } else if v.rows.is_empty() {
        lines.push(Line::styled(
            format!(
                "No servers found in {} file{} of Claude Desktop, Claude Code, VS Code, Cursor, Windsurf, Zed, Codex or Gemini CLI.",
                v.files,
                if v.files == 1 { "" } else { "s" }
            ),
            Role::Muted.style(),
        ));
        lines.push(Line::styled(
            "`mcpdeck import PATH` reads any other file (a registry server.json too).",
            Role::Muted.style(),
        ));
    }
    if !v.errors.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            format!("{} could not be read:", v.errors.len()),
            Role::Error.style().add_modifier(Modifier::BOLD),
        ));
        for e in &v.errors {
            lines.push(Line::styled(format!("✗ {}", clean(e)), Role::Error.style()));
        }
    }
    let height = list_area.height.saturating_sub(2) as usize;
    let offset = list_offset(sel_line, height);
    let ticked = v.rows.iter().filter(|r| r.checked && !r.already).count();
    let title = format!(
        "Import · {} found in {} file{} · {ticked} ticked",
        v.rows.len(),
        v.files,
        if v.files == 1 { "" } else { "s" }
    );
    f.render_widget(
        Paragraph::new(lines)
            .block(block(title, true))
            .wrap(Wrap { trim: false })
            .scroll((offset.min(u16::MAX as usize) as u16, 0)),
        list_area,
    );

    // The selected server: its warnings, then the TOML it adds.
    let mut detail: Vec<Line> = Vec::new();
    let title = match v.rows.get(v.sel) {
        Some(row) => {
            for w in &row.item.warnings {
                detail.push(Line::styled(format!("⚠ {}", clean(w)), Role::Warn.style()));
            }
            if !row.item.warnings.is_empty() {
                detail.push(Line::raw(""));
            }
            if row.already {
                detail.push(Line::styled(
                    "The config has this server already: nothing to add.",
                    Role::Muted.style(),
                ));
            }
            let new = crate::config::NewServer {
                server: masked(&row.item.server),
                comment: Some(format!(
                    "imported from {}: {}",
                    row.item.client.label(),
                    row.item.path.display()
                )),
            };
            match crate::config::import_preview(&new) {
                Ok(toml) => {
                    for l in toml.lines() {
                        let style = if l.starts_with('#') {
                            Role::Muted.style()
                        } else if l.starts_with('[') {
                            Role::Accent.style()
                        } else {
                            Style::default()
                        };
                        detail.push(Line::styled(clean(l), style));
                    }
                }
                Err(e) => detail.push(Line::styled(
                    format!("✗ {}", clean(&e)),
                    Role::Error.style(),
                )),
            }
            let target = s
                .config_path
                .as_ref()
                .map(|p| clean(&p.display().to_string()))
                .unwrap_or_else(|| "the config".into());
            format!("{} · added to {target}", clean(&row.item.name))
        }
        None => "What would be added".to_string(),
    };
    f.render_widget(
        Paragraph::new(detail)
            .block(block(title, false))
            .wrap(Wrap { trim: false }),
        detail_area,
    );
}
