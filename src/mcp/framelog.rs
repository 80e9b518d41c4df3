//! The raw frame log: every frame in both directions, with time and
//! direction, in a ring buffer bounded by count and by bytes. The UI and
//! `--trace` read it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use super::finding::truncate;
use super::jsonrpc::Id;

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
    /// The frame's text, cut to the per-frame limit.
    pub text: Arc<str>,
    /// The frame's full size in bytes.
    pub size: usize,
    pub method: Option<String>,
    pub id: Option<Id>,
    /// For a response: time since its request was sent.
    pub latency: Option<Duration>,
}

impl Frame {
    pub fn truncated(&self) -> bool {
        self.text.len() < self.size
    }
}

/// What a frame is about, filled in by the session that records it.
#[derive(Debug, Default, Clone)]
pub struct FrameMeta {
    pub method: Option<String>,
    pub id: Option<Id>,
    pub latency: Option<Duration>,
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
    net: Arc<super::netlog::NetLog>,
    max_frames: usize,
    max_bytes: usize,
    per_frame: usize,
    start: Instant,
    tap: Option<Tap>,
    /// Marked changed on every frame, so a viewer can sleep until one comes.
    changed: tokio::sync::watch::Sender<()>,
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
            net: Arc::new(super::netlog::NetLog::new(max_frames.clamp(1, 10_000))),
            max_frames: max_frames.max(1),
            max_bytes,
            per_frame,
            start: Instant::now(),
            tap: None,
            changed: tokio::sync::watch::Sender::new(()),
        }
    }

    /// A receiver marked changed whenever a frame is recorded: a live view
    /// awaits it rather than polling (an idle mcpdeck uses no CPU).
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<()> {
        self.changed.subscribe()
    }

    /// Install a tap that sees each frame whole, as it is recorded.
    pub fn with_tap(mut self, tap: Tap) -> Self {
        self.tap = Some(tap);
        self
    }

    /// The log of HTTP exchanges (empty for stdio servers).
    pub fn net(&self) -> &Arc<super::netlog::NetLog> {
        &self.net
    }

    pub fn start(&self) -> Instant {
        self.start
    }

    /// Record a frame and return it.
    pub fn record(
        &self,
        server: &Arc<str>,
        dir: Direction,
        raw: &str,
        meta: FrameMeta,
    ) -> Arc<Frame> {
        let text: Arc<str> = Arc::from(truncate(raw, self.per_frame));
        let mut frame = Frame {
            seq: 0,
            server: server.clone(),
            dir,
            at: SystemTime::now(),
            elapsed: self.start.elapsed(),
            text,
            size: raw.len(),
            method: meta.method,
            id: meta.id,
            latency: meta.latency,
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
        self.changed.send_replace(());
        if let Some(tap) = &self.tap {
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
        inner
            .frames
            .iter()
            .filter(|f| f.seq >= seq)
            .cloned()
            .collect()
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
        assert!(!rx.has_changed().unwrap());
        log.record(&Arc::from("a"), Direction::In, "{}", FrameMeta::default());
        assert!(rx.has_changed().unwrap());
        rx.changed().await.unwrap();
        assert!(!rx.has_changed().unwrap());
        // HTTP exchanges wake the network view's subscriber the same way.
        let mut net = log.net().subscribe();
        assert!(!net.has_changed().unwrap());
        let exchange = log.net().begin(
            &Arc::from("a"),
            "POST",
            "http://127.0.0.1/mcp".into(),
            "tools/list".into(),
            Vec::new(),
        );
        assert!(net.has_changed().unwrap());
        net.changed().await.unwrap();
        exchange.finish();
        assert!(net.has_changed().unwrap());
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
