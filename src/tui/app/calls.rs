//! Calls side by side. Every call of this session is an entry: running
//! ([`State::running`]) or finished ([`State::outcome`], the one shown, and
//! [`State::done`], the others). The result pane shows one entry
//! ([`State::shown`]): a call just started, unless another is picked with
//! the previous and next call keys. A call never waits for another; a call
//! that ends while another entry is shown says so on the status bar and
//! leaves the screen as it is.

use super::model::*;
use super::state::State;
use crate::tui::history::Status;

/// Finished entries kept with their results (older ones are in the
/// history, `H`).
pub const KEEP: usize = 16;
/// And at most this much result text among the ones put aside.
pub const KEEP_BYTES: usize = 64 << 20;

/// How an entry stands, for the strip and the status bar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mark {
    Running,
    Done(Status),
}

/// One entry, as the strip over the result shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryView {
    pub tag: u64,
    pub server: String,
    pub tool: String,
    pub mark: Mark,
    /// Running: the time so far (when the clock says); done: the call's.
    pub elapsed: Option<std::time::Duration>,
    /// Running with a known total: the fraction done.
    pub ratio: Option<f64>,
    /// The entry the result pane shows.
    pub shown: bool,
}

impl State {
    /// The running call the result pane shows, if it shows one.
    pub fn inflight(&self) -> Option<&InFlight> {
        let shown = self.shown?;
        self.running.iter().find(|c| c.tag == shown)
    }

    /// A running call by its tag.
    pub(super) fn running_mut(&mut self, tag: u64) -> Option<&mut InFlight> {
        self.running.iter_mut().find(|c| c.tag == tag)
    }

    /// Every entry, in the order the calls started.
    pub fn entries(&self) -> Vec<EntryView> {
        let mut v: Vec<EntryView> = self
            .running
            .iter()
            .map(|c| EntryView {
                tag: c.tag,
                server: c.server.clone(),
                tool: c.tool.clone(),
                mark: Mark::Running,
                elapsed: match (self.clock, c.started) {
                    (Some(now), Some(then)) => Some(now.saturating_duration_since(then)),
                    _ => None,
                },
                ratio: c.progress.as_ref().and_then(ProgressView::ratio),
                shown: self.shown == Some(c.tag),
            })
            .collect();
        v.extend(
            self.done
                .iter()
                .chain(self.outcome.iter())
                .map(|o| EntryView {
                    tag: o.tag,
                    server: o.server.clone(),
                    tool: o.tool.clone(),
                    mark: Mark::Done(o.status()),
                    elapsed: Some(o.elapsed),
                    ratio: None,
                    shown: self.shown == Some(o.tag),
                }),
        );
        v.sort_by_key(|e| e.tag);
        v
    }

    /// A call made elsewhere (a test, a bench) becomes a running entry,
    /// shown, as [`super::editor::start_call`]'s do.
    pub fn track(&mut self, call: InFlight) {
        begin(self, call);
    }

    /// How many entries there are (the strip shows from two).
    pub fn entry_count(&self) -> usize {
        self.running.len() + self.done.len() + usize::from(self.outcome.is_some())
    }
}

impl Outcome {
    pub fn status(&self) -> Status {
        crate::tui::history::status_of(&self.result)
    }

    /// The text it holds (the whole too, while folded).
    pub fn bytes(&self) -> usize {
        self.lines.bytes() + self.folding.as_ref().map_or(0, |f| f.whole.bytes())
    }
}

/// The outcome shown is put aside (its scroll kept): another entry is
/// about to be shown.
fn stash(s: &mut State) {
    if let Some(mut o) = s.outcome.take() {
        o.scroll = s.result_scroll;
        o.lines.shed();
        if let Some(f) = &o.folding {
            f.whole.shed();
        }
        s.done.push(o);
        s.done.sort_by_key(|o| o.tag);
        bound(s);
    }
    s.result_scroll = 0;
}

/// Keep at most [`KEEP`] finished entries put aside, and [`KEEP_BYTES`]
/// of their text: the one that ended first goes first (a long call that
/// ends now is kept, however early it started).
fn bound(s: &mut State) {
    while s.done.len() > KEEP
        || (s.done.len() > 1 && s.done.iter().map(Outcome::bytes).sum::<usize>() > KEEP_BYTES)
    {
        let Some(first) = s
            .done
            .iter()
            .enumerate()
            .min_by_key(|(_, o)| o.ended)
            .map(|(i, _)| i)
        else {
            break;
        };
        s.done.remove(first);
    }
}

/// A call starts: it is an entry, and the result pane shows it.
pub(super) fn begin(s: &mut State, call: InFlight) {
    stash(s);
    s.shown = Some(call.tag);
    s.running.push(call);
}

/// An outcome to show now (a call that ended while shown, a result from
/// the log or the history).
pub(super) fn show_new(s: &mut State, mut o: Outcome) {
    o.ended = s.next_tag();
    if s.outcome.as_ref().map(|x| x.tag) != Some(o.tag) {
        stash(s);
    }
    s.shown = Some(o.tag);
    s.result_scroll = 0;
    s.outcome = Some(o);
}

/// A call ended while another entry is shown: it waits among the others.
pub(super) fn keep_aside(s: &mut State, mut o: Outcome) {
    o.ended = s.next_tag();
    o.lines.shed();
    s.done.push(o);
    s.done.sort_by_key(|o| o.tag);
    bound(s);
}

/// Show the entry `by` places after (or before) the one shown; whether
/// anything changed.
pub(super) fn step(s: &mut State, by: isize) -> bool {
    let tags: Vec<u64> = s.entries().iter().map(|e| e.tag).collect();
    if tags.is_empty() {
        return false;
    }
    let at = s
        .shown
        .and_then(|t| tags.iter().position(|x| *x == t))
        .unwrap_or(tags.len() - 1);
    let to = super::model::step(at, by, tags.len());
    if to == at && s.shown == Some(tags[at]) {
        return false;
    }
    show(s, tags[to]);
    true
}

/// Show the entry with this tag.
pub(super) fn show(s: &mut State, tag: u64) {
    if s.shown == Some(tag) && (s.outcome.as_ref().map(|o| o.tag) == Some(tag)) {
        return;
    }
    // Taken out before the one shown is put aside, which may bound the
    // entries kept: the one asked for is never the one dropped.
    let target = s
        .done
        .iter()
        .position(|o| o.tag == tag)
        .map(|i| s.done.remove(i));
    stash(s);
    s.shown = Some(tag);
    if let Some(o) = target {
        s.result_scroll = o.scroll;
        s.outcome = Some(o);
    }
    s.relayout();
    super::find::search_again(s);
}
