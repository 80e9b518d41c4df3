//! The detail pane: the selected tool (its schema for a person) or server
//! (status, error and stderr, notifications, transport).

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::config::HttpTransportKind;
use crate::mcp::manager::ServerStatus;
use crate::sanitize;
use crate::tui::app::{Pane, ServerView, State, url_text};

use super::servers::insecure_badge;
use super::*;

pub(super) fn render_detail(s: &State, f: &mut Frame, area: Rect) {
    let (mut title, mut lines) = detail_content(s);
    // A search paints its matches in what is shown now (the detail can
    // change under it: a server's stderr grows).
    let search = &s.detail_search;
    if search.active() {
        let mut found = search.clone();
        let texts: Vec<String> = lines.iter().map(crate::tui::result::line_text).collect();
        found.run_rows(texts.iter().map(String::as_str), 0);
        found.current = search.current.min(found.hits.len().saturating_sub(1));
        lines = lines
            .into_iter()
            .enumerate()
            .map(|(i, l)| crate::tui::result::paint_line(l, i, found.marks()))
            .collect();
        title.push_str(&search.title(&found));
    }
    // The scroll stops at the last page (update bounds it too; a resize
    // may have shortened the content since).
    let width = area.width.saturating_sub(2);
    let height = area.height.saturating_sub(2) as usize;
    let p = Paragraph::new(lines).wrap(Wrap { trim: false });
    let total = wrapped_height(&p, width);
    let scroll = s.detail_scroll.min(total.saturating_sub(height.max(1)));
    let title = if total > height {
        format!(
            "{title} · {}–{} of {total}",
            scroll + 1,
            (scroll + height).min(total)
        )
    } else {
        title
    };
    let p = p
        .block(block(title, s.focus == Pane::Detail))
        .scroll((scroll.min(u16::MAX as usize) as u16, 0));
    f.render_widget(p, area);
}

/// The screen lines the detail's content takes at `width` columns.
pub fn detail_height(s: &State, width: u16) -> usize {
    let p = Paragraph::new(detail_content(s).1).wrap(Wrap { trim: false });
    wrapped_height(&p, width)
}

/// The detail's lines as shown (unwrapped), for its search.
pub fn detail_lines(s: &State) -> Vec<Line<'static>> {
    detail_content(s).1
}

/// The lines a wrapped paragraph (without its block) takes.
fn wrapped_height(p: &Paragraph, width: u16) -> usize {
    p.line_count(width.max(1))
}

/// The detail's title and lines: the selected server (while the servers
/// pane has the focus, or had it before the detail), else the tool.
fn detail_content(s: &State) -> (String, Vec<Line<'static>>) {
    let mut lines: Vec<Line<'static>> = Vec::new();
    let title;
    let server_detail = match s.focus {
        Pane::Servers => true,
        Pane::Detail => s.detail_server,
        Pane::Tools => s.detail_server && s.selected_tool().is_none(),
        Pane::Result => false,
    };
    if server_detail && let Some(v) = s.selected_server() {
        title = format!("Server · {}", clean(&v.name));
        let width = match s.areas.detail.width {
            0 => 52,
            w => w.saturating_sub(2) as usize,
        };
        let stats = s.latency.server_rows(&v.name);
        let roots = Roots {
            dirs: s.server_roots(v),
            home: s.home.as_deref(),
            flag: s.roots_flag,
            offers: s.settings.capabilities,
        };
        server_lines(v, &s.keymap, &stats, &roots, s.clock, width, &mut lines);
        if s.registry.is_tried(&v.name) {
            use crate::tui::keymap::Action;
            lines.insert(
                0,
                Line::styled(
                    format!(
                        "tried from the MCP Registry: for this session only, not in the config ({} then {} adds it)",
                        s.keymap.label(Action::Registry),
                        s.keymap.label(Action::AddServer)
                    ),
                    Role::Warn.style(),
                ),
            );
        }
    } else if let Some((_, t)) = s.selected_tool() {
        title = format!("Tool · {}", clean(&t.name));
        if let Some(x) = &t.title {
            lines.push(Line::styled(
                clean(x),
                Style::default().add_modifier(Modifier::BOLD),
            ));
        }
        // What tool trust found comes first: a poisoned description can
        // be long, and the findings say what to look for in it.
        if let Some((v, _)) = s.selected_tool() {
            trust_lines(v, &t.name, &s.keymap, &mut lines);
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
            None => lines.push(Line::styled("  (no inputSchema)", Role::Warn.style())),
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
        if let (Some(ui), Some((v, _))) = (crate::mcp::apps::tool_ui(&t.raw), s.selected_tool()) {
            super::app_view::app_lines(&ui, &v.lists.resources, &mut lines);
        }
    } else {
        title = "Detail".into();
        lines.push(Line::styled(
            if s.all_tools || s.selected_server().is_some() {
                "No tool selected."
            } else {
                "No server selected."
            },
            Role::Muted.style(),
        ));
    }
    let width = match s.areas.detail.width {
        0 => 52,
        w => w.saturating_sub(2) as usize,
    };
    (title, hang(lines, width))
}

/// Long indented lines (list items, findings, schema descriptions) wrapped
/// under their own text rather than at column 0: each continuation starts
/// at the line's indent. Lines without an indent are left to the
/// paragraph's wrapping.
pub(super) fn hang(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    use unicode_width::UnicodeWidthChar;
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let chars: Vec<(char, Style)> = line
            .spans
            .iter()
            .flat_map(|sp| {
                let style = line.style.patch(sp.style);
                sp.content.chars().map(move |c| (c, style))
            })
            .collect();
        let lead = chars.iter().take_while(|(c, _)| *c == ' ').count();
        let w = |c: char| UnicodeWidthChar::width(c).unwrap_or(0);
        let total: usize = chars.iter().map(|(c, _)| w(*c)).sum();
        if lead == 0 || total <= width || lead + 8 > width {
            out.push(line);
            continue;
        }
        let mut start = 0;
        let mut first = true;
        while start < chars.len() {
            let room = if first { width } else { width - lead };
            // As many characters as fit; back to the last space if the
            // rest goes on.
            let (mut end, mut used) = (start, 0);
            while end < chars.len() && used + w(chars[end].0) <= room {
                used += w(chars[end].0);
                end += 1;
            }
            // Never break inside the first row's indent (a row of spaces).
            let floor = if first { lead } else { start };
            if end < chars.len()
                && chars[end].0 != ' '
                && let Some(space) = (floor + 1..end).rev().find(|&i| chars[i].0 == ' ')
            {
                end = space;
            }
            if end == start {
                end = start + 1;
            }
            let mut spans: Vec<Span<'static>> = Vec::new();
            if !first {
                spans.push(Span::raw(" ".repeat(lead)));
            }
            let mut run = String::new();
            let mut style = chars[start].1;
            for &(c, st) in &chars[start..end] {
                if st != style && !run.is_empty() {
                    spans.push(Span::styled(std::mem::take(&mut run), style));
                }
                style = st;
                run.push(c);
            }
            if !run.is_empty() {
                spans.push(Span::styled(run, style));
            }
            out.push(Line::from(spans));
            // The space at a break is not carried to the next row.
            start = end;
            while start < chars.len() && chars[start].0 == ' ' {
                start += 1;
            }
            first = false;
        }
    }
    out
}

/// A tool's lint findings (with their evidence, made visible) and how it
/// differs from its pin, with the keys that act on them.
fn trust_lines(
    v: &ServerView,
    tool: &str,
    keys: &crate::tui::keymap::Keymap,
    lines: &mut Vec<Line<'static>>,
) {
    use crate::trust::Severity;
    use crate::tui::keymap::Action;
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let findings: Vec<_> = v.trust.tool_findings(tool).collect();
    if let Some(change) = v.trust.tool_change(tool) {
        let since = v.trust.pinned_at.as_deref().unwrap_or("?");
        lines.push(Line::from(vec![
            Span::styled(
                format!("Not as pinned ({})", clean(since)),
                bold.patch(Role::Warn.style()),
            ),
            Span::styled(
                format!(
                    " · {} accepts (pins the server as it is now)",
                    keys.label(Action::AcceptPins)
                ),
                Role::Muted.style(),
            ),
        ]));
        for l in change.render_text() {
            lines.push(Line::raw(format!("  {}", clean(&l))));
        }
        lines.push(Line::raw(""));
    }
    if !findings.is_empty() {
        // The key that acts on the findings, on their header line: it is
        // seen without scrolling.
        let verb = if v.denied(tool) { "allows" } else { "denies" };
        lines.push(Line::from(vec![
            Span::styled(format!("Findings ({})", findings.len()), bold),
            Span::styled(
                format!(" · {} {verb} this tool", keys.label(Action::ToggleDeny)),
                Role::Muted.style(),
            ),
        ]));
        for f in findings {
            let role = match f.severity {
                Severity::High => Role::Error,
                Severity::Medium => Role::Warn,
                Severity::Low => Role::Muted,
            };
            lines.push(Line::from(vec![
                Span::styled(
                    format!("  {} ", f.severity.label().to_uppercase()),
                    role.style().add_modifier(Modifier::BOLD),
                ),
                Span::raw(format!("{} · {}", clean(f.rule), clean(&f.field))),
            ]));
            lines.push(Line::raw(format!("    {}", clean(&f.message))));
            lines.push(Line::styled(
                format!("    evidence: {}", clean(&f.evidence)),
                Role::Muted.style(),
            ));
        }
        lines.push(Line::raw(""));
    }
}

/// The server's tool trust in a line or two: its findings by severity and
/// whether (and since when) its definitions are pinned.
fn trust_summary(
    v: &ServerView,
    keys: &crate::tui::keymap::Keymap,
    lines: &mut Vec<Line<'static>>,
) {
    use crate::tui::keymap::Action;
    if v.status != ServerStatus::Connected {
        return;
    }
    let (high, medium, low) = v.trust.counts();
    let role = if high > 0 {
        Role::Error
    } else if medium > 0 {
        Role::Warn
    } else {
        Role::Muted
    };
    let lint = if high + medium + low == 0 {
        "lint: nothing found".to_string()
    } else {
        format!("lint: {high} high · {medium} medium · {low} low")
    };
    let accept = keys.label(Action::AcceptPins);
    let (pins, pins_role) = match &v.trust.pinned_at {
        None => (format!("not pinned ({accept} pins it)"), Role::Muted),
        Some(at) if v.trust.changes.is_empty() => {
            (format!("as pinned on {}", clean(at)), Role::Muted)
        }
        Some(at) => (
            format!(
                "{} not as pinned on {} ({accept} accepts)",
                v.trust.changes.len(),
                clean(at)
            ),
            Role::Warn,
        ),
    };
    lines.push(Line::from(vec![
        Span::styled(lint, role.style()),
        Span::raw(" · "),
        Span::styled(pins, pins_role.style()),
    ]));
    for f in v.trust.server_findings() {
        lines.push(Line::styled(
            format!(
                "  {} {} ({} {}): {}",
                f.severity.label(),
                clean(f.rule),
                f.kind.label(),
                clean(&f.name),
                clean(&f.evidence)
            ),
            role.style(),
        ));
    }
    // What no tool row shows: removed tools, and prompts and resources.
    for c in v.trust.changes.iter().filter(|c| {
        c.kind != crate::trust::Kind::Tool || c.what == crate::trust::pin::ChangeKind::Removed
    }) {
        for l in c.render_text() {
            lines.push(Line::styled(format!("  {}", clean(&l)), Role::Warn.style()));
        }
    }
}

/// The roots offered to a server, for its detail.
pub(super) struct Roots<'a> {
    pub dirs: &'a [std::path::PathBuf],
    /// The user's home directory (a root that is it gets a warning).
    pub home: Option<&'a std::path::Path>,
    /// They come from `--roots` (not the config).
    pub flag: bool,
    /// The client capabilities declared to the server (`capabilities`,
    /// `--capabilities`).
    pub offers: crate::mcp::session::Declared,
}

/// What the client declares, for a person: `roots, sampling, elicitation
/// (form, url)`.
fn offered(d: &crate::mcp::session::Declared) -> String {
    let mut parts: Vec<String> = Vec::new();
    if d.roots {
        parts.push("roots".into());
    }
    if d.sampling {
        parts.push("sampling".into());
    }
    match (d.elicitation_form, d.elicitation_url) {
        (true, true) => parts.push("elicitation (form, url)".into()),
        (true, false) => parts.push("elicitation (form)".into()),
        (false, true) => parts.push("elicitation (url)".into()),
        (false, false) => {}
    }
    if parts.is_empty() {
        "nothing (capabilities = \"none\")".into()
    } else {
        parts.join(", ")
    }
}

/// The roots lines: what is offered (a root that is `/` or the home
/// directory with a warning badge), and when the server last asked.
fn roots_lines(v: &ServerView, roots: &Roots, lines: &mut Vec<Line<'static>>) {
    lines.push(Line::from(vec![
        Span::raw("client offers: "),
        Span::raw(offered(&roots.offers)),
    ]));
    if !roots.offers.roots {
        lines.push(Line::from(vec![
            Span::raw("roots: "),
            Span::styled(
                "not offered (the roots capability is not declared)",
                Role::Muted.style(),
            ),
        ]));
        return;
    }
    if roots.dirs.is_empty() {
        lines.push(Line::from(vec![
            Span::raw("roots: "),
            Span::styled("none offered (none configured)", Role::Muted.style()),
        ]));
    } else {
        let from = if roots.flag { " (--roots)" } else { "" };
        let mut spans = vec![Span::raw(format!("roots{from}: "))];
        for (i, dir) in roots.dirs.iter().enumerate() {
            if i > 0 {
                spans.push(Span::raw(", "));
            }
            spans.push(Span::raw(clean(&dir.display().to_string())));
            if let Some(why) = crate::config::ServerConfig::wide_root(dir, roots.home) {
                spans.push(Span::raw(" "));
                spans.push(Span::styled(
                    format!("⚠ {why}"),
                    Role::Warn.style().add_modifier(Modifier::BOLD),
                ));
            }
        }
        lines.push(Line::from(spans));
    }
    // A server that never connected had nothing to ask.
    if v.roots_asked.is_none() && v.status != ServerStatus::Connected {
        return;
    }
    let asked = match v.roots_asked {
        Some((at, n)) => format!(
            "roots last asked: {} ({n} given)",
            crate::text::fmt_utc_time(crate::text::unix_secs(at))
        ),
        None => "roots last asked: never".into(),
    };
    lines.push(Line::styled(asked, Role::Muted.style()));
}

pub(super) fn server_lines(
    v: &ServerView,
    keys: &crate::tui::keymap::Keymap,
    stats: &[crate::record::stats::Row],
    roots: &Roots,
    clock: Option<std::time::Instant>,
    width: usize,
    lines: &mut Vec<Line<'static>>,
) {
    use crate::tui::keymap::Action;
    if let ServerStatus::NeedsAuth(reason) = &v.status {
        // The same words and symbol as the servers pane: 🔒 needs auth.
        lines.push(Line::styled(
            format!("status: 🔒 {}", v.status.label()),
            Role::Warn.style(),
        ));
        let why = match reason.auth() {
            Some(a) => a.message.clone(),
            None => reason.to_string(),
        };
        lines.push(Line::styled(
            format!("reason: {}", clean(&why)),
            Role::Warn.style(),
        ));
        // A 401 with no challenge: more likely an API key than OAuth.
        let challenged = reason
            .http()
            .is_some_and(|f| !f.www_authenticate.is_empty() || f.auth.is_some());
        if !challenged {
            lines.push(Line::styled(
                format!(
                    "no WWW-Authenticate challenge: the server may want an API key; set it in the config, [servers.{}] headers = {{ Authorization = \"Bearer ${{TOKEN}}\" }} (or the header its docs name)",
                    clean(&v.name)
                ),
                Role::Warn.style(),
            ));
        }
        lines.push(Line::styled(
            format!(
                "press {} to {} (OAuth: a browser opens; the login screen shows each step)",
                keys.label(Action::Login),
                if challenged {
                    "log in"
                } else {
                    "try an OAuth login anyway"
                }
            ),
            Role::Accent.style(),
        ));
    } else if v.status == ServerStatus::Pending {
        // How long, and what it is doing (from its frames).
        let waited = match (clock, v.pending_since) {
            (Some(now), Some(since)) => {
                format!(
                    " · {}",
                    crate::text::fmt_duration(now.saturating_duration_since(since))
                )
            }
            _ => String::new(),
        };
        let step = v.connect_step.clone().unwrap_or_else(|| {
            if v.http.is_some() {
                "connecting".into()
            } else {
                "starting the process".into()
            }
        });
        lines.push(Line::raw(format!(
            "status: pending{waited} · {}",
            clean(&step)
        )));
    } else {
        lines.push(Line::raw(format!("status: {}", v.status.label())));
    }
    // Why it failed comes first, where it is seen at any height.
    if let ServerStatus::Failed(reason) = &v.status {
        let stderr_tail = reason.stderr_tail();
        lines.push(Line::styled(
            format!("error: {}", clean(&reason.to_string())),
            Role::Error.style(),
        ));
        // The line that says what went wrong is most often the last one
        // (a traceback's exception): it comes first, where it is seen.
        if let Some(last) = stderr_tail.iter().rev().find(|l| !l.trim().is_empty()) {
            let label = if stderr_tail.len() == 1 {
                "stderr"
            } else {
                "last stderr line"
            };
            lines.push(Line::styled(
                format!("{label}: {}", clean(last.trim_end())),
                Role::Error.style().add_modifier(Modifier::BOLD),
            ));
        }
        // An unset `${VAR}`: nothing was run, and connecting again cannot
        // help; a fix of the config applies when it is read again.
        let unset = v.trust.config.as_ref().and_then(|c| c.unset.first());
        if unset.is_some() {
            lines.push(Line::styled(
                format!(
                    "nothing was started; a fix in the config applies when it is saved (or press {})",
                    keys.label(Action::Reload)
                ),
                Role::Accent.style(),
            ));
        } else {
            lines.push(Line::styled(
                format!("press {} to connect again", keys.label(Action::Reconnect)),
                Role::Accent.style(),
            ));
        }
        // What was run, to try it by hand (secrets masked, env values
        // never shown).
        if unset.is_none()
            && let Some(crate::config::TransportConfig::Stdio {
                command,
                args,
                env,
                cwd,
            }) = v.trust.config.as_ref().map(|c| &c.transport)
        {
            let mut words = vec![crate::text::shell_word(command)];
            words.extend(
                crate::record::masked_args(args)
                    .iter()
                    .map(|a| crate::text::shell_word(a)),
            );
            lines.push(Line::raw(format!("ran: {}", clean(&words.join(" ")))));
            let dir = match cwd {
                Some(d) => d.display().to_string(),
                None => "mcpdeck's own working directory".into(),
            };
            lines.push(Line::raw(format!("in: {}", clean(&dir))));
            if !env.is_empty() {
                let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
                lines.push(Line::raw(format!(
                    "env: {} (values not shown)",
                    clean(&names.join(", "))
                )));
            }
        }
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
                    Role::Warn.style(),
                ),
            ]));
        }
    }
    if let Some(a) = &v.auth {
        lines.push(Line::raw(format!("oauth issuer: {}", clean(&a.issuer))));
        lines.push(Line::raw(format!("oauth client: {}", clean(&a.client_id))));
        lines.push(Line::raw(format!(
            "oauth scopes: {}",
            if a.scopes.is_empty() {
                "(none named)".to_string()
            } else {
                clean(&a.scopes.join(" "))
            }
        )));
        let expiry = match a.expires_at {
            Some(at) => format!("expires {}", crate::text::fmt_utc(at)),
            None => "no expiry given".into(),
        };
        let refresh = if a.refreshable {
            "refreshed before it expires"
        } else {
            "no refresh token: log in again when it expires"
        };
        let bound = if a.dpop {
            "; DPoP-bound (a proof signed with mcpdeck's key on every request)"
        } else {
            ""
        };
        lines.push(Line::raw(format!(
            "oauth token: {expiry}; {refresh}{bound}"
        )));
        lines.push(Line::raw(format!("oauth kept in: {}", clean(&a.storage))));
        lines.push(Line::styled(
            format!(
                "press {} to log out (revoke and forget the token)",
                keys.label(Action::Logout)
            ),
            Role::Muted.style(),
        ));
    }
    if let Some(n) = &v.negotiated {
        lines.push(Line::raw(format!("era: {} ({})", n.era, n.version)));
        lines.push(Line::raw(format!(
            "server: {} {}",
            clean(&n.server_info.name),
            clean(&n.server_info.version)
        )));
        // One line: the whole sentence is in mcpdeck's log (and `mcpdeck
        // info` prints it).
        lines.push(Line::raw(cut(
            &format!("detected by: {}", clean(&n.detection)),
            width,
        )));
    }

    roots_lines(v, roots, lines);
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
        if stderr_tail.len() > 1 {
            lines.push(Line::styled(
                format!(
                    "stderr (the last {} lines, newest last):",
                    stderr_tail.len()
                ),
                Style::default().add_modifier(Modifier::BOLD),
            ));
            for l in stderr_tail {
                lines.push(Line::raw(format!("  {}", clean(l))));
            }
        }
    }
    trust_summary(v, keys, lines);
    if v.findings > 0 {
        lines.push(Line::styled(
            format!("{} findings", v.findings),
            Role::Warn.style(),
        ));
    }
    if v.previous_findings > 0 {
        lines.push(Line::styled(
            format!("{} findings of a previous session", v.previous_findings),
            Role::Muted.style(),
        ));
    }
    // A storm: what the manager could not keep.
    if v.dropped.total() > 0 {
        lines.push(Line::styled(v.dropped.text(), Role::Warn.style()));
    }
    // After what the server is and what was found; before the
    // notifications and stderr, which can be long.
    latency_table(stats, keys, width, &mut *lines);
    // SEP-2549: what the server said about reusing its results, one line
    // (lists that say the same are named together), after the latency
    // table. mcpdeck lists again on connect, on r and R, and on the
    // server's list_changed; never on a timer.
    if !v.lists.hints.is_empty() {
        let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
        for (method, h) in &v.lists.hints {
            let said = h.declared();
            match groups.iter_mut().find(|(d, _)| *d == said) {
                Some((_, m)) => m.push(method),
                None => groups.push((said, vec![method])),
            }
        }
        let text: Vec<String> = groups
            .iter()
            .map(|(said, methods)| format!("{} {said}", methods.join(", ")))
            .collect();
        lines.push(Line::raw(cut(
            &format!("caching: {}", text.join("; ")),
            width,
        )));
    }
    if !v.notices.is_empty() {
        lines.push(Line::styled(
            format!(
                "notifications and findings ({}, newest first):",
                v.notices.len()
            ),
            Style::default().add_modifier(Modifier::BOLD),
        ));
        for n in v.notices.iter().rev() {
            lines.push(Line::styled(format!("  {}", clean(n)), level_style(n)));
        }
    }
    // A failed server's tail is shown above; a running server's stderr
    // here, newest first like the notifications (the pane scrolls).
    if !matches!(v.status, ServerStatus::Failed(_)) && !v.stderr.is_empty() {
        lines.push(Line::styled(
            format!("stderr ({} lines, newest first):", v.stderr.len()),
            Style::default().add_modifier(Modifier::BOLD),
        ));
        for l in v.stderr.iter().rev() {
            lines.push(Line::styled(format!("  {}", clean(l)), Role::Muted.style()));
        }
    }
}

/// The columns of numbers in the latency table: count (five), p50, p95,
/// p99, max (seven each) and errors (three), with a space between each.
const NUMBERS: usize = 41;

/// The latency table of a server: a row per method with count, p50, p95,
/// p99, max and errors (JSON-RPC errors and `isError` results), sized to
/// `width` columns: the method beside its numbers when there is room for
/// it, on a line of its own above them when not.
fn latency_table(
    rows: &[crate::record::stats::Row],
    keys: &crate::tui::keymap::Keymap,
    width: usize,
    lines: &mut Vec<Line<'static>>,
) {
    use crate::tui::keymap::Action;
    if rows.is_empty() {
        return;
    }
    let bold = Style::default().add_modifier(Modifier::BOLD);
    lines.push(Line::from(vec![
        Span::styled("Latency per method", bold),
        Span::styled(
            format!(" · {} resets", keys.label(Action::ResetStats)),
            Role::Muted.style(),
        ),
    ]));
    let methods: Vec<String> = rows.iter().map(|r| clean(&r.method)).collect();
    let longest = methods
        .iter()
        .map(|m| m.chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let room = width.saturating_sub(NUMBERS + 1);
    let beside = room >= 8;
    let mw = longest.min(room);
    // Too narrow for every column even on a line of its own: p99 goes.
    let narrow = width < NUMBERS + 1;
    let numbers = |n: &str, p50: &str, p95: &str, p99: &str, max: &str, err: &str| {
        if narrow {
            format!("{n:>5} {p50:>7} {p95:>7} {max:>7} {err:>3}")
        } else {
            format!("{n:>5} {p50:>7} {p95:>7} {p99:>7} {max:>7} {err:>3}")
        }
    };
    let head = numbers("n", "p50", "p95", "p99", "max", "err");
    lines.push(Line::styled(
        if beside {
            format!("{:<mw$} {head}", "method")
        } else {
            format!(" {head}")
        },
        Role::Muted.style(),
    ));
    let (mut errors, mut tool_errors) = (0u64, 0u64);
    for (r, method) in rows.iter().zip(methods) {
        errors += r.errors;
        tool_errors += r.tool_errors;
        let row = numbers(
            &compact(r.count),
            &short(r.p50),
            &short(r.p95),
            &short(r.p99),
            &short(r.max),
            &compact(r.errors + r.tool_errors),
        );
        let err_role = if r.errors + r.tool_errors > 0 {
            Role::Error.style()
        } else {
            Style::default()
        };
        if beside {
            lines.push(Line::from(vec![
                Span::styled(format!("{:<mw$} ", cut(&method, mw)), bold),
                Span::raw(row[..row.len() - 3].to_string()),
                Span::styled(row[row.len() - 3..].to_string(), err_role),
            ]));
        } else {
            lines.push(Line::styled(method, bold));
            lines.push(Line::from(vec![
                Span::raw(format!(" {}", &row[..row.len() - 3])),
                Span::styled(row[row.len() - 3..].to_string(), err_role),
            ]));
        }
    }
    if errors + tool_errors > 0 {
        lines.push(Line::styled(
            format!("err: {errors} JSON-RPC + {tool_errors} isError"),
            Role::Muted.style(),
        ));
    }
}

/// `text` in at most `width` columns (an ellipsis marks a cut).
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A count in at most five columns (`12345`, `123k`, `45M`).
fn compact(n: u64) -> String {
    match n {
        0..100_000 => n.to_string(),
        100_000..10_000_000 => format!("{}k", n / 1_000),
        _ => format!("{}M", n / 1_000_000),
    }
}

/// A latency in the table: the one style of [`crate::text::fmt_duration`]
/// (at most seven columns).
fn short(d: std::time::Duration) -> String {
    crate::text::fmt_duration(d)
}

pub(super) fn schema_lines(schema: &serde_json::Value, lines: &mut Vec<Line<'static>>) {
    let rows = crate::schema::rows(schema);
    if rows.is_empty() {
        lines.push(Line::styled("  (none)", Role::Muted.style()));
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
            spans.push(Span::styled("*", Role::Error.style()));
        }
        spans.push(Span::styled(
            format!("  {}", clean(&r.ty)),
            Role::Accent.style(),
        ));
        if !r.details.is_empty() {
            spans.push(Span::styled(
                format!("  {}", clean(&r.details.join(", "))),
                Role::Muted.style(),
            ));
        }
        lines.push(Line::from(spans));
        if let Some(d) = &r.description {
            lines.push(Line::styled(
                format!("{}  {}", "  ".repeat(r.depth + 1), clean(d)),
                Role::Muted.style(),
            ));
        }
    }
}

/// The colour of a notice by its log level (`[error] …`).
pub(super) fn level_style(notice: &str) -> Style {
    let level = notice
        .strip_prefix('[')
        .and_then(|r| r.split_once(']'))
        .map(|(l, _)| l);
    match level {
        Some("debug") => Role::Muted.style(),
        Some("info" | "notice") => Style::default(),
        Some("warning") => Role::Warn.style(),
        Some("error" | "critical" | "alert" | "emergency") => Role::Error.style(),
        _ if notice.starts_with("error:") => Role::Error.style(),
        _ if notice.starts_with("warning:") => Role::Warn.style(),
        _ => Style::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn indented_lines_wrap_under_their_text() {
        let text = |l: &Line| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        };
        let lines = hang(
            vec![
                Line::raw("    the server asked for a root outside the allowed folders"),
                Line::raw("no indent is left to the paragraph's own wrapping here"),
            ],
            24,
        );
        let rows: Vec<String> = lines.iter().map(text).collect();
        assert_eq!(
            rows,
            [
                "    the server asked for",
                "    a root outside the",
                "    allowed folders",
                "no indent is left to the paragraph's own wrapping here",
            ]
        );
        // A word longer than the room is cut, never lost.
        let rows: Vec<String> = hang(vec![Line::raw("  abcdefghijklmnopqrstuvwxyz")], 12)
            .iter()
            .map(text)
            .collect();
        assert_eq!(rows.concat().replace(' ', ""), "abcdefghijklmnopqrstuvwxyz");
        assert!(rows.iter().all(|r| r.chars().count() <= 12), "{rows:?}");
        // A long first word after a deep indent: no row of spaces alone.
        let rows: Vec<String> = hang(vec![Line::raw("    /a/very/long/path/name x")], 14)
            .iter()
            .map(text)
            .collect();
        assert!(rows.iter().all(|r| !r.trim().is_empty()), "{rows:?}");
    }

    #[test]
    fn latencies_and_counts_fit_their_columns() {
        let us = Duration::from_micros;
        for v in [0, 716, 9_950, 999_500, 999_500_000, u64::MAX] {
            assert!(short(us(v)).chars().count() <= 7, "{v}");
        }
        for (n, want) in [
            (7, "7"),
            (99_999, "99999"),
            (123_456, "123k"),
            (45_000_000, "45M"),
        ] {
            assert_eq!(compact(n), want);
        }
        assert_eq!(cut("resources/templates/list", 10), "resources…");
        assert_eq!(cut("ping", 10), "ping");
    }
}
