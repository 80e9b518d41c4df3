//! Rendering: pure functions of `&State` into a ratatui frame. Everything a
//! server sent goes through `sanitize::visible` before it is drawn.

use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::app::{Mode, State};
use crate::sanitize;

pub use crate::tui::layout::{Areas, layout, list_offset};
pub use detail::{detail_height, detail_lines};
pub use help::{help_geometry, help_lines};
pub use result::{step_up_hint_shown, strip_shown};

mod add;
mod app_view;
mod ask;
mod attach;
pub mod browse;
mod confirm;
mod detail;
mod editor;
mod help;
mod history;
mod import;
mod log;
mod login;
mod net;
pub mod registry;
mod result;
mod servers;
pub mod skills;
mod status;
mod suites;
mod tools;
mod welcome;

use add::{render_add, render_roots};
use confirm::render_confirm;
use detail::render_detail;
use editor::render_editor;
use help::render_help;
use import::render_import;
use log::render_log;
use login::render_login;
use net::render_net;
use result::render_result;
use servers::render_servers;
use status::render_status;
use tools::render_tools;
use welcome::render_empty;

pub(super) const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

pub(super) fn clean(s: &str) -> String {
    sanitize::one_line(s)
}

pub(super) fn block(title: String, focused: bool) -> Block<'static> {
    let style = if focused {
        Role::Accent.style().add_modifier(Modifier::BOLD)
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

pub(super) fn render_panes(s: &State, f: &mut Frame) {
    let area = f.area();
    let mut areas = layout(area, s.servers.len());
    if let Some(p) = s.zoomed_pane() {
        areas = crate::tui::layout::zoomed(areas, p);
    }
    let Areas {
        main,
        status,
        servers,
        tools,
        detail,
        result,
    } = areas;

    // The help over a view keeps the view under it.
    let view = match s.mode {
        Mode::Help => s.help_back.and_then(crate::tui::browse::Kind::of_mode),
        m => crate::tui::browse::Kind::of_mode(m),
    };
    if let Some(kind) = view {
        browse::render(s, kind, f, main);
    } else if s.mode == Mode::Skills || (s.mode == Mode::Help && s.help_back == Some(Mode::Skills))
    {
        skills::render(s, f, main);
    } else if s.mode == Mode::Registry
        || (s.mode == Mode::Help && s.help_back == Some(Mode::Registry))
    {
        registry::render(s, f, main);
    } else if matches!(s.mode, Mode::Log | Mode::LogFilter) {
        render_log(s, f, main);
    } else if s.mode == Mode::Net {
        render_net(s, f, main);
    } else if s.mode == Mode::History
        || (s.mode == Mode::Help && s.help_back == Some(Mode::History))
    {
        history::render_history(s, f, main);
    } else if s.mode == Mode::Tests || (s.mode == Mode::Help && s.help_back == Some(Mode::Tests)) {
        suites::render_tests(s, f, main);
    } else if s.mode == Mode::Attached
        || (s.mode == Mode::Help && s.help_back == Some(Mode::Attached))
    {
        attach::render_attached(s, f, main);
    } else if s.mode == Mode::Import || (s.mode == Mode::Help && s.help_back == Some(Mode::Import))
    {
        render_import(s, f, main);
    } else {
        // A zoomed pane alone (the others have no room).
        if servers.area() > 0 {
            render_servers(s, f, servers);
        }
        if tools.area() > 0 {
            render_tools(s, f, tools);
        }
        if s.mode == Mode::Editor {
            render_editor(s, f, detail);
        } else if detail.area() > 0 {
            render_detail(s, f, detail);
        }
        if result.area() > 0 {
            render_result(s, f, result);
        }
    }
    render_status(s, f, status);
    if s.servers.is_empty() && s.mode == Mode::Normal {
        render_empty(s, f, area);
    }
    match s.mode {
        Mode::AddServer => render_add(s, f, area),
        Mode::Roots => render_roots(s, f, area),
        Mode::SuitePick => suites::render_pick(s, f, area),
        Mode::Help => render_help(s, f, area),
        Mode::ConfirmQuit => render_confirm(s, f, area),
        Mode::Login => render_login(s, f, area),
        Mode::Serves => attach::render_list(s, f, main),
        Mode::Links => render_links(s, f, main),
        _ => {}
    }
    // A server's request goes over everything.
    ask::render(s, f, area);
}

/// The result's links to pick from (`f` on a result with several).
fn render_links(s: &State, f: &mut Frame, area: Rect) {
    let width = area.width.min(100);
    let inner = width.saturating_sub(2) as usize;
    let room = area.height.saturating_sub(2).max(1) as usize;
    let top = list_offset(s.links_sel, room);
    let lines: Vec<Line> = s
        .links
        .iter()
        .enumerate()
        .skip(top)
        .take(room)
        .map(|(i, (uri, label))| {
            let mut text = clean(uri);
            if !label.is_empty() {
                text.push_str("  ");
                text.push_str(&clean(label));
            }
            let text: String = text.chars().take(inner).collect();
            if i == s.links_sel {
                Line::styled(text, Role::Selected.style())
            } else {
                Line::raw(text)
            }
        })
        .collect();
    let title = format!("Links in the result ({})", s.links.len());
    popup(f, area, width, &title, lines);
}

pub(super) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// A one-line text field with its cursor at the end, the end of a long
/// value kept in view (`…` in front), in `inner` columns.
pub(super) fn input_line(value: &str, inner: usize) -> Line<'static> {
    let value = clean(value);
    let n = value.chars().count();
    let shown = if n + 1 > inner {
        let tail: String = value.chars().skip(n + 2 - inner.min(n + 1)).collect();
        format!("…{tail}")
    } else {
        value
    };
    Line::from(Span::styled(format!("{shown}▏"), Role::Selected.style()))
}

/// A list row's spans drawn as the selected row.
pub(super) fn selected_row(spans: Vec<Span<'static>>) -> Vec<Span<'static>> {
    spans
        .into_iter()
        .map(|sp| {
            let style = sp.style.patch(Role::Selected.style());
            Span::styled(sp.content, style)
        })
        .collect()
}

/// A bordered box over the middle of the screen.
pub(super) fn popup(f: &mut Frame, area: Rect, width: u16, title: &str, lines: Vec<Line>) {
    let rect = centered(area, width, lines.len() as u16 + 2);
    f.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title.to_string());
    f.render_widget(Paragraph::new(lines).block(block), rect);
}

/// A list's count for its title: `14`, or where the selection is when
/// the list is longer than its pane (`5/14`).
pub(super) fn position(selected: usize, len: usize, rows: usize) -> String {
    if len > rows && len > 0 {
        format!("{}/{len}", selected.min(len - 1) + 1)
    } else {
        len.to_string()
    }
}

/// `text` cut to `width` characters, with `…` when cut (no padding).
pub(super) fn fit_end(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else if width == 0 {
        String::new()
    } else {
        let mut t: String = text.chars().take(width - 1).collect();
        t.push('…');
        t
    }
}

/// Cut to `width` characters, with `…` when cut.
pub(super) fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        format!("{text:<width$}")
    } else {
        let mut t: String = text.chars().take(width.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// `text` broken into lines of at most `width` columns, at spaces where
/// it can be (a word longer than the width is cut).
pub(super) fn wrap_words(text: &str, width: usize) -> Vec<String> {
    use unicode_width::UnicodeWidthStr;
    let width = width.max(1);
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let sep = usize::from(!line.is_empty());
        if line.width() + sep + word.width() <= width {
            if sep == 1 {
                line.push(' ');
            }
            line.push_str(word);
            continue;
        }
        if !line.is_empty() {
            out.push(std::mem::take(&mut line));
        }
        // A word wider than the line is cut into pieces.
        let mut rest = word;
        while rest.width() > width {
            let mut cut = 0;
            let mut w = 0;
            for (i, c) in rest.char_indices() {
                let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
                if w + cw > width {
                    break;
                }
                w += cw;
                cut = i + c.len_utf8();
            }
            if cut == 0 {
                break;
            }
            out.push(rest[..cut].to_string());
            rest = &rest[cut..];
        }
        line.push_str(rest);
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::wrap_words;

    #[test]
    fn words_wrap_at_spaces_and_long_words_are_cut() {
        assert_eq!(
            wrap_words("go back, or cancel the call", 10),
            vec!["go back,", "or cancel", "the call"]
        );
        assert_eq!(wrap_words("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap_words("", 5), vec![""]);
        assert_eq!(wrap_words("a b", 80), vec!["a b"]);
    }
}
