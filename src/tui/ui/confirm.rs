//! The quit confirmation while a call is in flight.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::*;

pub(super) fn render_confirm(f: &mut Frame, area: Rect) {
    popup(
        f,
        area,
        44,
        "Quit",
        vec![Line::raw("A call is in flight. Quit anyway? (y/n)")],
    );
}
