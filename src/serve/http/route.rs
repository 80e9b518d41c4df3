//! A context's router: each frame it writes goes to the request it
//! answers or belongs to, to its listen stream, or to the session's open
//! streams (never, in the shared context, to another agent).

use super::*;

/// What the connections tell the router.
pub(super) enum Route {
    /// Send the frames for the agent's request `id` (its JSON text) here;
    /// `sse`: other frames too, while no GET stream is open.
    Wait {
        id: String,
        tx: mpsc::UnboundedSender<String>,
        sse: bool,
    },
    /// The client went away before the answer.
    Gone(String),
    /// A GET stream.
    Stream(mpsc::UnboundedSender<String>),
}

/// One agent context's way in: its lines, and the router of what it
/// sends.
#[derive(Clone)]
pub(in crate::serve) struct Door {
    pub(super) lines: Lines,
    pub(super) routes: mpsc::UnboundedSender<Route>,
}

impl Door {
    /// A door to the context that reads `lines` and writes `out`;
    /// `shared`: the stateless agents' context (see [`route`]).
    pub(in crate::serve) fn new(
        lines: Lines,
        out: mpsc::UnboundedReceiver<crate::serve::Out>,
        shared: bool,
    ) -> Door {
        let (routes, route_rx) = mpsc::unbounded_channel();
        // It ends when the context stops writing (its sender dropped).
        tokio::spawn(route(out, route_rx, shared));
        Door { lines, routes }
    }
}

/// Opens the context of a new session, from its `initialize` params.
pub(in crate::serve) type Opener = Arc<dyn Fn(Option<&Value>) -> Door + Send + Sync>;

/// The most server requests kept for a session's first GET stream (sent
/// before the agent opened one: `roots/list` at `initialized`, say).
pub(super) const HELD_FOR_STREAM: usize = 64;

/// The router: each frame for the agent to the request it answers, or to
/// the open streams. `shared`: the context of every stateless agent, where
/// a frame that belongs to no request (and to no listen stream) has no
/// agent to go to, and is dropped rather than shown to another.
pub(super) async fn route(
    mut out: mpsc::UnboundedReceiver<crate::serve::Out>,
    mut routes: mpsc::UnboundedReceiver<Route>,
    shared: bool,
) {
    let mut waiting: HashMap<String, (mpsc::UnboundedSender<String>, bool, u64)> = HashMap::new();
    let mut streams: Vec<mpsc::UnboundedSender<String>> = Vec::new();
    // Requests for the agent that came while it had no stream open.
    let mut held: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    let mut order = 0u64;
    loop {
        tokio::select! {
            // A request's Wait is sent before its line: taken first, its
            // answer always finds it.
            biased;
            r = routes.recv() => match r {
                Some(Route::Wait { id, tx, sse }) => {
                    order += 1;
                    waiting.insert(id, (tx, sse, order));
                }
                Some(Route::Gone(id)) => {
                    waiting.remove(&id);
                }
                Some(Route::Stream(tx)) => {
                    for line in held.drain(..) {
                        let _ = tx.send(line);
                    }
                    streams.push(tx);
                }
                None => return,
            },
            line = out.recv() => {
                let Some((line, about)) = line else { return };
                let frame: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
                let answer = frame.get("method").is_none();
                if answer
                    && let Some(id) = frame.get("id")
                    && let Some((tx, ..)) = waiting.remove(&id.to_string())
                {
                    let _ = tx.send(line);
                    continue;
                }
                // What belongs to a request (its progress, a server's request
                // made while it runs) goes on its stream, if it has one.
                if let Some((tx, true, _)) = about.as_ref().and_then(|a| waiting.get(&a.to_string())) {
                    let _ = tx.send(line);
                    continue;
                }
                // A `subscriptions/listen` stream's notification goes on
                // that stream only (gone with it: never on another).
                if let Some(sub) = frame.pointer(SUBSCRIPTION_ID) {
                    if let Some((tx, ..)) = waiting.get(&sub.to_string()) {
                        let _ = tx.send(line);
                    }
                    continue;
                }
                if shared {
                    continue;
                }
                streams.retain(|s| !s.is_closed());
                if !streams.is_empty() {
                    for s in &streams {
                        let _ = s.send(line.clone());
                    }
                    continue;
                }
                // No GET stream: the latest request with an SSE answer.
                waiting.retain(|_, (tx, ..)| !tx.is_closed());
                if let Some((tx, ..)) = waiting
                    .values()
                    .filter(|(_, sse, _)| *sse)
                    .max_by_key(|(.., n)| *n)
                {
                    let _ = tx.send(line);
                } else if frame.get("id").is_some() && held.len() < HELD_FOR_STREAM {
                    // A request for the agent, with nowhere to go yet: kept
                    // for its first GET stream.
                    held.push_back(line);
                }
            }
        }
    }
}
