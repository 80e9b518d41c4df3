//! The raw frame log: every frame in both directions, with time and
//! direction, in a ring buffer bounded by count and by bytes. The UI and
//! `--trace` read it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use super::finding::truncate;
use super::jsonrpc::Id;
use super::netlog::NetLog;

pub use super::change::{ChangeSignal, ChangeWatcher};

/// Which way a frame went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Client to server.
    Out,
    /// Server to client.
    In,
}

impl Direction {
    pub fn arrow(self) -> &'static str {
        match self {
            Direction::Out => "C->S",
            Direction::In => "S->C",
        }
    }
}

/// One recorded frame.
#[derive(Debug, Clone)]
pub struct Frame {
    pub seq: u64,
    pub server: Arc<str>,
    pub dir: Direction,
    pub at: SystemTime,
    /// Time since the log was created.
    pub elapsed: Duration,
    /// The frame's text, cut to the per-frame limit. The frame owns it:
    /// a frame the session already holds as a `String` is kept without a
    /// copy ([`FrameLog::record_owned`]).
    pub text: String,
    /// The frame's full size in bytes.
    pub size: usize,
    pub method: Option<Arc<str>>,
    pub id: Option<Id>,
    /// For a response: time since its request was sent.
    pub latency: Option<Duration>,
    /// See [`FrameMeta::json`].
    pub json: bool,
}

impl Frame {
    pub fn truncated(&self) -> bool {
        self.text.len() < self.size
    }
}

/// What a frame is about, filled in by the session that records it.
#[derive(Debug, Default, Clone)]
pub struct FrameMeta {
    pub method: Option<Arc<str>>,
    pub id: Option<Id>,
    pub latency: Option<Duration>,
    /// The text is known to be valid JSON (the session parsed it, or made
    /// it): a recording takes it as it is, without checking it again.
    pub json: bool,
}

/// A callback that sees every frame whole (before any cut), e.g. `--trace`.
pub type Tap = Box<dyn Fn(&Frame, &str) + Send + Sync>;

struct Inner {
    frames: VecDeque<Arc<Frame>>,
    bytes: usize,
    next_seq: u64,
}

/// The bounded, shared frame log.
pub struct FrameLog {
    inner: Mutex<Inner>,
    /// HTTP exchanges, beside the frames they carried.
    net: Arc<NetLog>,
    max_frames: usize,
    max_bytes: usize,
    per_frame: usize,
    start: Instant,
    tap: Option<Tap>,
    /// Bumped on every frame, so a viewer can sleep until one comes.
    changed: Arc<ChangeSignal>,
}

/// Default limits.
pub const DEFAULT_MAX_BYTES: usize = 64 * 1024 * 1024;
pub const DEFAULT_PER_FRAME: usize = 4 * 1024 * 1024;

impl FrameLog {
    pub fn new(max_frames: usize) -> Self {
        Self::with_limits(max_frames, DEFAULT_MAX_BYTES, DEFAULT_PER_FRAME)
    }

    pub fn with_limits(max_frames: usize, max_bytes: usize, per_frame: usize) -> Self {
        FrameLog {
            inner: Mutex::new(Inner {
                frames: VecDeque::new(),
                bytes: 0,
                next_seq: 0,
            }),
            net: Arc::new(NetLog::new(max_frames.clamp(1, 10_000))),
            max_frames: max_frames.max(1),
            max_bytes,
            per_frame,
            start: Instant::now(),
            tap: None,
            changed: Arc::new(ChangeSignal::default()),
        }
    }

    /// A watcher marked changed whenever a frame is recorded: a live view
    /// awaits it rather than polling (an idle mcpdeck uses no CPU).
    pub fn subscribe(&self) -> ChangeWatcher {
        ChangeSignal::watch(&self.changed)
    }

    /// Install a tap that sees each frame whole, as it is recorded.
    pub fn with_tap(mut self, tap: Tap) -> Self {
        self.tap = Some(tap);
        self
    }

    /// The log of HTTP exchanges (empty for stdio servers).
    pub fn net(&self) -> &Arc<NetLog> {
        &self.net
    }

    /// The most of one frame the log keeps.
    pub fn per_frame(&self) -> usize {
        self.per_frame
    }

    pub fn start(&self) -> Instant {
        self.start
    }

    /// Record a frame (a copy of `raw`, cut to the per-frame limit) and
    /// return it.
    pub fn record(
        &self,
        server: &Arc<str>,
        dir: Direction,
        raw: &str,
        meta: FrameMeta,
    ) -> Arc<Frame> {
        let text = truncate(raw, self.per_frame).to_string();
        self.push(server, dir, text, raw.len(), meta, raw, None)
    }

    /// [`FrameLog::record`] of a frame from a recording: its time since the
    /// start is the recorded one, not now (`mcpdeck open`).
    pub fn record_at(
        &self,
        server: &Arc<str>,
        dir: Direction,
        raw: &str,
        meta: FrameMeta,
        elapsed: Duration,
    ) -> Arc<Frame> {
        let text = truncate(raw, self.per_frame).to_string();
        self.push(server, dir, text, raw.len(), meta, raw, Some(elapsed))
    }

    /// Record a frame the caller owns: kept as it is, without a copy,
    /// unless it is over the per-frame limit (then a cut copy is kept).
    pub fn record_owned(
        &self,
        server: &Arc<str>,
        dir: Direction,
        text: String,
        meta: FrameMeta,
    ) -> Arc<Frame> {
        if text.len() > self.per_frame {
            return self.record(server, dir, &text, meta);
        }
        let size = text.len();
        let frame = self.push(server, dir, text, size, meta, "", None);
        if let Some(tap) = &self.tap {
            tap(&frame, &frame.text);
        }
        frame
    }

    /// Add a frame to the ring; `raw` (the whole frame) goes to the tap,
    /// unless empty (the caller taps it).
    // One private constructor for the three public ways in (`record`,
    // `record_owned`, `record_at`): its arguments are the frame's parts.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &self,
        server: &Arc<str>,
        dir: Direction,
        text: String,
        size: usize,
        meta: FrameMeta,
        raw: &str,
        elapsed: Option<Duration>,
    ) -> Arc<Frame> {
        let mut frame = Frame {
            seq: 0,
            server: server.clone(),
            dir,
            at: SystemTime::now(),
            elapsed: elapsed.unwrap_or_else(|| self.start.elapsed()),
            text,
            size,
            method: meta.method,
            id: meta.id,
            latency: meta.latency,
            json: meta.json,
        };
        let frame = {
            let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            frame.seq = inner.next_seq;
            inner.next_seq += 1;
            let frame = Arc::new(frame);
            inner.bytes += frame.text.len();
            inner.frames.push_back(frame.clone());
            while inner.frames.len() > self.max_frames
                || (inner.bytes > self.max_bytes && inner.frames.len() > 1)
            {
                if let Some(old) = inner.frames.pop_front() {
                    inner.bytes -= old.text.len();
                }
            }
            frame
        };
        self.changed.bump();
        if let Some(tap) = &self.tap
            && !raw.is_empty()
        {
            tap(&frame, raw);
        }
        frame
    }

    /// A copy of the frames now held, oldest first.
    pub fn snapshot(&self) -> Vec<Arc<Frame>> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.frames.iter().cloned().collect()
    }

    /// Frames with a sequence number of at least `seq`.
    pub fn since(&self, seq: u64) -> Vec<Arc<Frame>> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        // Sequence numbers only grow along the ring: find the first one
        // wanted instead of looking at every frame (the TUI asks on every
        // update).
        let from = inner.frames.partition_point(|f| f.seq < seq);
        inner.frames.range(from..).cloned().collect()
    }

    /// The sequence number of the newest frame (changes when one arrives).
    pub fn last_seq(&self) -> Option<u64> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.frames.back().map(|f| f.seq)
    }

    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .frames
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::fmt::Debug for FrameLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameLog")
            .field("len", &self.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_is_bounded_by_count_and_bytes() {
        let log = FrameLog::with_limits(3, 1000, 100);
        let s: Arc<str> = Arc::from("s");
        for i in 0..5 {
            log.record(
                &s,
                Direction::Out,
                &format!("frame {i}"),
                FrameMeta::default(),
            );
        }
        let snap = log.snapshot();
        assert_eq!(snap.len(), 3);
        assert_eq!(&*snap[0].text, "frame 2");
        assert_eq!(snap[2].seq, 4);

        let log = FrameLog::with_limits(100, 250, 100);
        for _ in 0..5 {
            log.record(&s, Direction::In, &"x".repeat(300), FrameMeta::default());
        }
        let snap = log.snapshot();
        assert_eq!(snap.len(), 2, "250 bytes hold two 100-byte cuts");
        assert!(snap[0].truncated());
        assert_eq!(snap[0].size, 300);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_new_frame_wakes_a_subscriber() {
        let log = FrameLog::new(10);
        let mut rx = log.subscribe();
        assert!(!rx.has_changed());
        log.record(&Arc::from("a"), Direction::In, "{}", FrameMeta::default());
        assert!(rx.has_changed());
        rx.changed().await.unwrap();
        assert!(!rx.has_changed());
        // HTTP exchanges wake the network view's subscriber the same way.
        let mut net = log.net().subscribe();
        assert!(!net.has_changed());
        let exchange = log.net().begin(
            &Arc::from("a"),
            "POST",
            "http://127.0.0.1/mcp".into(),
            "tools/list".into(),
            Vec::new(),
        );
        assert!(net.has_changed());
        net.changed().await.unwrap();
        exchange.finish();
        assert!(net.has_changed());
    }

    #[test]
    fn an_owned_frame_is_kept_without_a_copy_unless_it_is_too_long() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let seen2 = seen.clone();
        let log = FrameLog::with_limits(10, 1000, 8).with_tap(Box::new(move |_, raw| {
            seen2.lock().unwrap().push(raw.to_string());
        }));
        let text = String::from("{\"a\":1}");
        let at = text.as_ptr();
        let f = log.record_owned(&Arc::from("a"), Direction::In, text, FrameMeta::default());
        assert_eq!(f.text.as_ptr(), at, "the frame's own bytes are kept");
        assert!(!f.truncated());
        let f = log.record_owned(
            &Arc::from("a"),
            Direction::In,
            "0123456789abc".to_string(),
            FrameMeta::default(),
        );
        assert_eq!(f.text, "01234567");
        assert_eq!(f.size, 13);
        // The tap sees both whole, once each.
        assert_eq!(*seen.lock().unwrap(), ["{\"a\":1}", "0123456789abc"]);
    }

    #[test]
    fn tap_sees_the_whole_frame() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let seen2 = seen.clone();
        let log = FrameLog::with_limits(10, 1000, 4).with_tap(Box::new(move |f, raw| {
            seen2
                .lock()
                .unwrap()
                .push((f.dir, raw.to_string(), f.text.to_string()));
        }));
        log.record(
            &Arc::from("a"),
            Direction::In,
            "abcdefgh",
            FrameMeta::default(),
        );
        let seen = seen.lock().unwrap();
        assert_eq!(
            seen[0],
            (Direction::In, "abcdefgh".to_string(), "abcd".to_string())
        );
    }
}
