//! Keys typed while a screen changes under the person's fingers.
//!
//! A key belongs to the screen that was on display when it was typed. The
//! terminal does not say when that was, so this goes by time. A request
//! screen (an elicitation, a sampling request) is the one screen that
//! comes and goes on its own: it opens when a server asks, the next
//! request replaces it once one is answered, and it goes away when its
//! server withdraws or disconnects. Keys typed within [`GUARD`] of such a
//! change, and the keys that follow them with no pause as long, were
//! typed for the screen before it: nobody reacts to a new screen that
//! fast, and a burst of typing aimed at a form must never land on the
//! main screen (where `a` opens "Add a server" and `d` denies a tool) nor
//! a main-screen burst on a request (where Enter accepts a URL). They are
//! dropped, the status bar says how many, and the first key after a
//! pause goes where it is aimed.
//!
//! A request the person answers with a key of their own (Esc, Ctrl-S, a
//! confirmed Ctrl-D) is their doing: they know what comes next, and a key
//! typed after it is meant for the screen behind. Only the keys already
//! on their way as it closed, within [`QUEUED`] of it (typed before it
//! could be seen to close: `Ctrl-D` and `a` in one burst), are dropped.
//! Inside a form letters only ever type, so no letter closes one. Other
//! screens (the argument editor, a view's form) open and close only at
//! the person's keys, and are not guarded.

use std::time::{Duration, Instant};

use crossterm::event::KeyEvent;

use super::State;
use crate::tui::keymap::Action;

/// The pause that ends a burst of typing aimed at the screen before.
pub const GUARD: Duration = Duration::from_millis(300);

/// After the person's own answer: keys closer to it than this were on
/// their way already (queued, pasted, repeated), not typed at what shows
/// next.
pub const QUEUED: Duration = Duration::from_millis(50);

/// Keys are being dropped: since when (the change, then each key
/// dropped), the pause that ends it, how many, and why (for the status
/// bar).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyGuard {
    last: Instant,
    pause: Duration,
    dropped: usize,
    why: String,
}

/// The request screen shown, by its request's id.
pub(super) fn screen_of(s: &State) -> Option<u64> {
    s.asks
        .screen
        .as_ref()
        .filter(|_| s.asks.is_open())
        .map(|(id, _)| *id)
}

/// Before a key: true when it is dropped (typed as the screen changed).
/// Ctrl-C always goes through.
pub(super) fn swallow(s: &mut State, k: &KeyEvent) -> bool {
    let (Some(g), Some(now)) = (s.key_guard.as_mut(), s.clock) else {
        return false;
    };
    if s.keymap.action(k) == Some(Action::ForceQuit) {
        return false;
    }
    if now.saturating_duration_since(g.last) >= g.pause {
        s.key_guard = None;
        return false;
    }
    g.last = now;
    g.dropped += 1;
    s.status = Some(format!(
        "{} typed as {} {} not used",
        match g.dropped {
            1 => "1 key".to_string(),
            n => format!("{n} keys"),
        },
        g.why,
        if g.dropped == 1 { "was" } else { "were" },
    ));
    true
}

/// After a message: when the request screen changed, keys are dropped
/// until a pause ([`QUEUED`] after the person's own answer, else
/// [`GUARD`]).
pub(super) fn watch(s: &mut State, before: Option<u64>, by_key: bool) {
    let now = screen_of(s);
    if now == before {
        return;
    }
    let (why, pause) = match (now, by_key) {
        // The person answered and nothing waits: their own doing.
        (None, true) => ("the request closed".to_string(), QUEUED),
        (None, false) => ("the request went away".to_string(), GUARD),
        // Brought back by the person (the requests key): theirs too.
        (Some(_), true) if before.is_none() => ("the request came back".to_string(), QUEUED),
        (Some(_), _) => {
            let server = s
                .asks
                .queue
                .front()
                .map(|a| crate::sanitize::one_line(&a.server))
                .unwrap_or_default();
            (format!("{server}'s request appeared"), GUARD)
        }
    };
    s.key_guard = s.clock.map(|last| KeyGuard {
        last,
        pause,
        dropped: 0,
        why,
    });
}
