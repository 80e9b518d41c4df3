//! The quit confirmation while a call is in flight.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use crate::tui::app::State;
use crate::tui::keymap::Action;

use super::*;

pub(super) fn render_confirm(s: &State, f: &mut Frame, area: Rect) {
    let what = match s.running.len() {
        1 => "A call is in flight.".to_string(),
        n => format!("{n} calls are in flight."),
    };
    let question = format!(
        "{what} Quit anyway? ({}/n)",
        s.keymap.label(Action::Confirm)
    );
    popup(f, area, 44, "Quit", vec![Line::raw(question)]);
}
