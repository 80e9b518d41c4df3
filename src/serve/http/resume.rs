//! Resumable event streams: a session's request stream is kept while its
//! answer is pending, and a client that left comes back for what it
//! missed with `Last-Event-ID`.

use super::*;

/// How many events of a resumable stream are kept for a resume.
pub(super) const KEPT_EVENTS: usize = 1024;
/// How long a request whose client went away waits for it to resume
/// before it is cancelled.
pub(super) const AWAY: Duration = Duration::from_secs(300);
/// How long a finished stream is kept for a late resume.
pub(super) const KEPT_AFTER: Duration = Duration::from_secs(60);

/// A resumable event stream (a request's, for a client of 2025-11-25 or
/// later in a session): what was sent on it, and who writes it now.
pub(super) struct Kept {
    pub(super) session: String,
    /// (sequence, line), the last [`KEPT_EVENTS`].
    pub(super) events: std::collections::VecDeque<(u64, String)>,
    /// The connection writing it now (none while the client is away).
    pub(super) writer: Option<mpsc::UnboundedSender<(String, String)>>,
    /// The answer went out.
    pub(super) done: bool,
    /// Since when nobody writes it (the client went away).
    pub(super) away: Option<std::time::Instant>,
    /// Which connection writes it now (each resume is the next one).
    pub(super) generation: u64,
}

impl Kept {
    /// Connection `generation` is gone (`None`: the one writing now). An
    /// earlier connection's late end does not undo a resume.
    pub(super) fn leave(&mut self, generation: Option<u64>) {
        if generation.is_some_and(|g| g != self.generation) {
            return;
        }
        self.writer = None;
        if !self.done {
            self.away = Some(std::time::Instant::now());
        }
    }
}

/// A resumable stream's event id: its number and the event's sequence.
pub(super) fn event_id(stream: u64, seq: u64) -> String {
    format!("s{stream}-{seq}")
}

/// The stream and sequence of a `Last-Event-ID`, if it is one of
/// [`event_id`]'s.
pub(super) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.trim().strip_prefix('s')?.split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

impl Guard {
    /// Resumable stream `number`, if it is `session`'s.
    pub(super) fn kept(
        &self,
        number: u64,
        session: Option<&str>,
    ) -> Option<Arc<std::sync::Mutex<Kept>>> {
        let all = self.streams.lock().unwrap_or_else(|p| p.into_inner());
        let kept = all.get(&number)?;
        let same =
            session.is_some_and(|s| kept.lock().unwrap_or_else(|p| p.into_inner()).session == s);
        same.then(|| kept.clone())
    }
}

/// The lines for one resumable request: each kept, and handed to the
/// connection that writes the stream now. Ends with the answer, or when
/// the client stays away too long (the request is then cancelled).
pub(super) async fn keep(
    asked: Asked,
    mut lines: mpsc::UnboundedReceiver<String>,
    kept: Arc<std::sync::Mutex<Kept>>,
    number: u64,
    door: Door,
) {
    let mut seq = 0u64;
    let mut tick = tokio::time::interval(Duration::from_secs(5));
    loop {
        tokio::select! {
            line = lines.recv() => {
                // The context ended (its session, say).
                let Some(line) = line else { break };
                let (line, _, done) = asked.outgoing(line);
                seq += 1;
                let mut k = kept.lock().unwrap_or_else(|p| p.into_inner());
                if k.events.len() >= KEPT_EVENTS {
                    k.events.pop_front();
                }
                k.events.push_back((seq, line.clone()));
                if let Some(w) = &k.writer
                    && w.send((event_id(number, seq), line)).is_err()
                {
                    k.leave(None);
                }
                if done {
                    k.done = true;
                    // Its writer ends the stream once this is out.
                    k.writer = None;
                    break;
                }
            }
            _ = tick.tick() => {
                let (away, session) = {
                    let k = kept.lock().unwrap_or_else(|p| p.into_inner());
                    (k.away.is_some_and(|t| t.elapsed() > AWAY), k.session.clone())
                };
                let ended = !asked
                    .guard
                    .sessions
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .contains_key(&session);
                if away || ended {
                    asked.cancel(&door, "the HTTP client did not come back for the answer");
                    break;
                }
            }
        }
    }
    // The context may end now (its session's end): only the stream's
    // record is kept a while, for a late resume.
    drop(door);
    tokio::time::sleep(KEPT_AFTER).await;
    asked
        .guard
        .streams
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&number);
}

/// Write a resumable stream's events as they come, until the answer is
/// out or the client goes (the request lives on, for a resume).
pub(super) async fn write_kept(
    read: &mut (impl tokio::io::AsyncRead + Unpin),
    mut write: impl tokio::io::AsyncWrite + Unpin,
    events: &mut mpsc::UnboundedReceiver<(String, String)>,
    kept: &std::sync::Mutex<Kept>,
    generation: u64,
) -> Option<()> {
    let mut closed = [0u8; 1];
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Some((id, line)) => {
                    if write.write_all(sse_event(id, &line).as_bytes()).await.is_err() {
                        kept.lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .leave(Some(generation));
                        return None;
                    }
                }
                // The answer is out (or another connection took over).
                None => {
                    let _ = write.shutdown().await;
                    return Some(());
                }
            },
            n = read.read(&mut closed) => {
                if matches!(n, Ok(0) | Err(_)) {
                    kept.lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .leave(Some(generation));
                    return None;
                }
            }
        }
    }
}

/// `GET` with a `Last-Event-ID` of a kept stream: the events after it,
/// then the rest as they come.
pub(super) async fn resume(
    stream: TcpStream,
    kept: Arc<std::sync::Mutex<Kept>>,
    number: u64,
    seen: u64,
) -> Option<()> {
    let (mut read, mut write) = stream.into_split();
    let (to_writer, mut writes) = mpsc::unbounded_channel();
    let (missed, done, generation) = {
        let mut k = kept.lock().unwrap_or_else(|p| p.into_inner());
        k.generation += 1;
        let missed: Vec<(u64, String)> = k
            .events
            .iter()
            .filter(|(seq, _)| *seq > seen)
            .cloned()
            .collect();
        if !k.done {
            // The one writer now (an earlier one, if any, ends).
            k.writer = Some(to_writer);
            k.away = None;
        }
        (missed, k.done, k.generation)
    };
    write.write_all(sse_head(&[]).as_bytes()).await.ok()?;
    for (seq, line) in missed {
        let id = event_id(number, seq);
        write
            .write_all(sse_event(id, &line).as_bytes())
            .await
            .ok()?;
    }
    if done {
        let _ = write.shutdown().await;
        return Some(());
    }
    write_kept(&mut read, write, &mut writes, &kept, generation).await
}
