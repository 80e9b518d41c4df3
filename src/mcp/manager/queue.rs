//! The bounded queues between sessions, the manager and the UI.
//!
//! One ordered queue per direction (a call's findings still arrive before
//! its result). What must never be lost (calls, statuses, lists, server
//! requests, a session's end) is always queued. What a server can send
//! without end (notifications, stderr lines, findings) is bounded per
//! server and kind: a progress notification replaces the one of the same
//! token still queued, a list change or resource update replaces the same
//! one still queued, and past [`DROPPABLE_BOUND`] the rest is dropped and
//! counted. The counts come out of the queue as one event per server
//! ([`Event::Dropped`]), at the place of the first drop, so the reader
//! learns how much it missed.
//!
//! Senders never wait (a session's reader calls them); the receiver has
//! the method names of tokio's receiver (`recv`, `try_recv`).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;
pub use tokio::sync::mpsc::error::{SendError, TryRecvError};

/// How many droppable events of one kind (notifications, stderr lines,
/// findings) one server may have queued; the rest is coalesced or dropped
/// and counted.
pub const DROPPABLE_BOUND: usize = 512;

/// What was dropped for one server since the last report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DropCounts {
    pub notifications: usize,
    pub stderr: usize,
    pub findings: usize,
}

impl DropCounts {
    pub fn total(&self) -> usize {
        self.notifications + self.stderr + self.findings
    }

    pub fn add(&mut self, other: DropCounts) {
        self.notifications += other.notifications;
        self.stderr += other.stderr;
        self.findings += other.findings;
    }

    /// In words: `1,234 notifications, 5 stderr lines dropped (storm)`.
    pub fn text(&self) -> String {
        let parts: Vec<String> = [
            (self.notifications, "notifications"),
            (self.stderr, "stderr lines"),
            (self.findings, "findings"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{} {what}", thousands(n)))
        .collect();
        if parts.is_empty() {
            return "nothing dropped".into();
        }
        format!("{} dropped (storm)", parts.join(", "))
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The droppable kinds, each bounded on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Notification = 0,
    Stderr = 1,
    Finding = 2,
}

/// How a queued item is treated.
pub enum Class<'a> {
    /// Always delivered.
    Critical,
    /// Bounded per server and kind; with a key, a newer item of the same
    /// key replaces the queued one (`lazy`: only once the bound is
    /// reached, so that until then every item is kept).
    Droppable {
        server: &'a str,
        kind: Kind,
        coalesce: Option<String>,
        lazy: bool,
    },
}

/// What the queue needs to know of its items.
pub trait Queued: Sized {
    fn class(&self) -> Class<'_>;
    /// The report of what was dropped for `server`.
    fn dropped(server: String, counts: DropCounts) -> Self;
}

/// How much went through a queue, for tests and diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// Items queued now (reports of drops included).
    pub queued: usize,
    /// The most items ever queued at once.
    pub peak: usize,
    /// Items replaced by a newer one of the same key.
    pub coalesced: usize,
    /// Items dropped (all servers, all kinds).
    pub dropped: usize,
}

enum Item<T> {
    Live(T),
    /// Replaced by a newer item of the same key.
    Gone,
    /// Where the drop counts of this server come out.
    Report(String),
}

struct Entry<T> {
    seq: u64,
    item: Item<T>,
    /// For a droppable item: its server, kind and key.
    bounded: Option<Box<(String, Kind, Option<String>)>>,
}

struct Inner<T> {
    entries: VecDeque<Entry<T>>,
    next_seq: u64,
    /// Live items and reports in `entries`.
    live: usize,
    gone: usize,
    /// Droppable items queued per server, by kind.
    per_server: HashMap<String, [usize; 3]>,
    /// The queued item of each coalescing key (server, key): its seq.
    keys: HashMap<(String, String), u64>,
    /// Drops not reported yet, per server (each has a report queued).
    drops: HashMap<String, DropCounts>,
    receiver_gone: bool,
    stats: QueueStats,
}

struct Shared<T> {
    inner: Mutex<Inner<T>>,
    ready: Notify,
    senders: AtomicUsize,
}

impl<T> Shared<T> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<T>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The sending side; clones share the queue.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// The receiving side.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
}

/// A new bounded queue.
pub fn channel<T: Queued>() -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        inner: Mutex::new(Inner {
            entries: VecDeque::new(),
            next_seq: 0,
            live: 0,
            gone: 0,
            per_server: HashMap::new(),
            keys: HashMap::new(),
            drops: HashMap::new(),
            receiver_gone: false,
            stats: QueueStats::default(),
        }),
        ready: Notify::new(),
        senders: AtomicUsize::new(1),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared },
    )
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.shared.senders.fetch_add(1, Ordering::Relaxed);
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        if self.shared.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.shared.ready.notify_one();
        }
    }
}

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> std::fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}

impl<T> Inner<T> {
    fn push(&mut self, item: Item<T>, bounded: Option<Box<(String, Kind, Option<String>)>>) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.entries.push_back(Entry { seq, item, bounded });
        self.live += 1;
        self.stats.peak = self.stats.peak.max(self.live);
        seq
    }

    /// Count a drop for `server`, queueing its report if none is waiting.
    fn drop_one(&mut self, server: &str, kind: Kind) {
        self.stats.dropped += 1;
        let counts = match self.drops.get_mut(server) {
            Some(c) => c,
            None => {
                self.push(Item::Report(server.to_string()), None);
                self.drops.entry(server.to_string()).or_default()
            }
        };
        match kind {
            Kind::Notification => counts.notifications += 1,
            Kind::Stderr => counts.stderr += 1,
            Kind::Finding => counts.findings += 1,
        }
    }

    /// Mark the entry `seq` replaced; the queue is compacted once replaced
    /// entries outnumber the live ones (so replacing stays bounded too).
    fn replace(&mut self, seq: u64) -> bool {
        let Ok(i) = self.entries.binary_search_by_key(&seq, |e| e.seq) else {
            return false;
        };
        let entry = &mut self.entries[i];
        if !matches!(entry.item, Item::Live(_)) {
            return false;
        }
        entry.item = Item::Gone;
        self.live -= 1;
        self.gone += 1;
        if self.gone > 64 && self.gone > self.live {
            self.entries.retain(|e| !matches!(e.item, Item::Gone));
            self.gone = 0;
        }
        true
    }

    fn pop(&mut self) -> Option<T>
    where
        T: Queued,
    {
        while let Some(entry) = self.entries.pop_front() {
            match entry.item {
                Item::Gone => self.gone -= 1,
                Item::Report(server) => {
                    self.live -= 1;
                    let counts = self.drops.remove(&server).unwrap_or_default();
                    return Some(T::dropped(server, counts));
                }
                Item::Live(item) => {
                    self.live -= 1;
                    if let Some(b) = entry.bounded {
                        let (server, kind, key) = *b;
                        if let Some(n) = self.per_server.get_mut(&server) {
                            n[kind as usize] = n[kind as usize].saturating_sub(1);
                            if n.iter().all(|&k| k == 0) {
                                self.per_server.remove(&server);
                            }
                        }
                        if let Some(key) = key {
                            let k = (server, key);
                            if self.keys.get(&k) == Some(&entry.seq) {
                                self.keys.remove(&k);
                            }
                        }
                    }
                    return Some(item);
                }
            }
        }
        None
    }
}

impl<T: Queued> Sender<T> {
    /// Queue an item (never waits). A droppable item past its bound is
    /// dropped and counted, which is still `Ok`; `Err` only when the
    /// receiver is gone.
    pub fn send(&self, item: T) -> Result<(), SendError<T>> {
        let mut inner = self.shared.lock();
        if inner.receiver_gone {
            return Err(SendError(item));
        }
        let was_empty = inner.live == 0;
        match item.class() {
            Class::Critical => {
                inner.push(Item::Live(item), None);
            }
            Class::Droppable {
                server,
                kind,
                coalesce,
                lazy,
            } => {
                let server = server.to_string();
                if let Some(key) = coalesce {
                    let k = (server, key);
                    let coalesce_now = !lazy || inner.full(&k.0, kind);
                    if coalesce_now
                        && let Some(&seq) = inner.keys.get(&k)
                        && inner.replace(seq)
                    {
                        // The newer one takes the place of the older, at
                        // the back (after what came between them).
                        inner.stats.coalesced += 1;
                        let seq = inner.push(
                            Item::Live(item),
                            Some(Box::new((k.0.clone(), kind, Some(k.1.clone())))),
                        );
                        inner.keys.insert(k, seq);
                        drop(inner);
                        if was_empty {
                            self.shared.ready.notify_one();
                        }
                        return Ok(());
                    }
                    if !inner.admit(&k.0, kind) {
                        return Ok(());
                    }
                    let seq = inner.push(
                        Item::Live(item),
                        Some(Box::new((k.0.clone(), kind, Some(k.1.clone())))),
                    );
                    inner.keys.insert(k, seq);
                } else {
                    if !inner.admit(&server, kind) {
                        return Ok(());
                    }
                    inner.push(Item::Live(item), Some(Box::new((server, kind, None))));
                }
            }
        }
        drop(inner);
        if was_empty {
            self.shared.ready.notify_one();
        }
        Ok(())
    }
}

impl<T: Queued> Sender<T> {
    /// Add drops counted elsewhere (an earlier queue) to the next report
    /// of `server`, queueing one if none is waiting: however many come,
    /// at most one report per server is queued.
    pub fn add_dropped(&self, server: &str, counts: DropCounts) {
        if counts.total() == 0 {
            return;
        }
        let mut inner = self.shared.lock();
        if inner.receiver_gone {
            return;
        }
        let was_empty = inner.live == 0;
        match inner.drops.get_mut(server) {
            Some(c) => c.add(counts),
            None => {
                inner.push(Item::Report(server.to_string()), None);
                inner.drops.insert(server.to_string(), counts);
            }
        }
        drop(inner);
        if was_empty {
            self.shared.ready.notify_one();
        }
    }
}

impl<T> Inner<T> {
    /// Whether one more droppable item of `kind` fits for `server`;
    /// if not it is counted as dropped.
    /// Whether `server` has as many items of `kind` queued as it may.
    fn full(&self, server: &str, kind: Kind) -> bool {
        self.per_server
            .get(server)
            .is_some_and(|n| n[kind as usize] >= DROPPABLE_BOUND)
    }

    fn admit(&mut self, server: &str, kind: Kind) -> bool {
        let n = match self.per_server.get_mut(server) {
            Some(n) => n,
            None => self.per_server.entry(server.to_string()).or_default(),
        };
        if n[kind as usize] >= DROPPABLE_BOUND {
            self.drop_one(server, kind);
            return false;
        }
        n[kind as usize] += 1;
        true
    }
}

impl<T: Queued> Receiver<T> {
    /// The next item, waiting for one; `None` once every sender is gone
    /// and the queue is empty. Cancel-safe (an item is only taken when it
    /// is returned).
    pub async fn recv(&mut self) -> Option<T> {
        loop {
            if let Some(item) = self.shared.lock().pop() {
                return Some(item);
            }
            if self.shared.senders.load(Ordering::Acquire) == 0 {
                // A last item may have come with the last sender.
                return self.shared.lock().pop();
            }
            self.shared.ready.notified().await;
        }
    }

    /// The next item if one is queued.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        if let Some(item) = self.shared.lock().pop() {
            return Ok(item);
        }
        if self.shared.senders.load(Ordering::Acquire) == 0 {
            return self.shared.lock().pop().ok_or(TryRecvError::Disconnected);
        }
        Err(TryRecvError::Empty)
    }

    /// Items queued now (reports of drops included).
    pub fn len(&self) -> usize {
        self.shared.lock().live
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What went through the queue so far.
    pub fn stats(&self) -> QueueStats {
        let inner = self.shared.lock();
        QueueStats {
            queued: inner.live,
            ..inner.stats
        }
    }

    /// A handle that reads [`Receiver::stats`] from elsewhere.
    pub fn probe(&self) -> Probe<T> {
        Probe {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut inner = self.shared.lock();
        inner.receiver_gone = true;
        // Nothing will read them: free them now.
        inner.entries.clear();
        inner.keys.clear();
        inner.per_server.clear();
        inner.drops.clear();
        inner.live = 0;
        inner.gone = 0;
    }
}

/// Reads a queue's stats without receiving.
pub struct Probe<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Probe<T> {
    pub fn stats(&self) -> QueueStats {
        let inner = self.shared.lock();
        QueueStats {
            queued: inner.live,
            ..inner.stats
        }
    }
}

impl<T> Clone for Probe<T> {
    fn clone(&self) -> Self {
        Probe {
            shared: self.shared.clone(),
        }
    }
}

impl<T> std::fmt::Debug for Probe<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probe").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Ev {
        Call(u32),
        Log(&'static str, u32),
        Progress(&'static str, u32, u32),
        /// Progress that is kept whole until the bound (serve's).
        Every(&'static str, u32, u32),
        Dropped(String, DropCounts),
    }

    impl Queued for Ev {
        fn class(&self) -> Class<'_> {
            match self {
                Ev::Call(_) | Ev::Dropped(..) => Class::Critical,
                Ev::Log(s, _) => Class::Droppable {
                    server: s,
                    kind: Kind::Notification,
                    coalesce: None,
                    lazy: false,
                },
                Ev::Progress(s, token, _) => Class::Droppable {
                    server: s,
                    kind: Kind::Notification,
                    coalesce: Some(format!("progress {token}")),
                    lazy: false,
                },
                Ev::Every(s, token, _) => Class::Droppable {
                    server: s,
                    kind: Kind::Notification,
                    coalesce: Some(format!("progress {token}")),
                    lazy: true,
                },
            }
        }
        fn dropped(server: String, counts: DropCounts) -> Self {
            Ev::Dropped(server, counts)
        }
    }

    fn drain(rx: &mut Receiver<Ev>) -> Vec<Ev> {
        std::iter::from_fn(|| rx.try_recv().ok()).collect()
    }

    #[test]
    fn critical_items_are_never_dropped_and_keep_their_order() {
        let (tx, mut rx) = channel();
        for i in 0..10_000 {
            tx.send(Ev::Call(i)).expect("receiver alive");
        }
        let got = drain(&mut rx);
        assert_eq!(got.len(), 10_000);
        assert!(
            got.iter()
                .enumerate()
                .all(|(i, e)| *e == Ev::Call(i as u32))
        );
    }

    #[test]
    fn logs_past_the_bound_are_dropped_counted_and_reported_once() {
        let (tx, mut rx) = channel();
        tx.send(Ev::Call(0)).expect("alive");
        for i in 0..10_000 {
            tx.send(Ev::Log("a", i)).expect("alive");
        }
        tx.send(Ev::Log("b", 0)).expect("alive");
        tx.send(Ev::Call(1)).expect("alive");
        assert!(rx.len() <= DROPPABLE_BOUND + 4, "{}", rx.len());
        let got = drain(&mut rx);
        let logs = got.iter().filter(|e| matches!(e, Ev::Log("a", _))).count();
        let reports: Vec<_> = got
            .iter()
            .filter_map(|e| match e {
                Ev::Dropped(s, c) => Some((s.clone(), *c)),
                _ => None,
            })
            .collect();
        assert_eq!(logs, DROPPABLE_BOUND);
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].0, "a");
        assert_eq!(logs + reports[0].1.notifications, 10_000);
        // Another server's bound is its own; critical items all come, in order.
        assert!(got.contains(&Ev::Log("b", 0)));
        assert_eq!(got.first(), Some(&Ev::Call(0)));
        assert_eq!(got.last(), Some(&Ev::Call(1)));
        assert_eq!(rx.stats().dropped, 10_000 - DROPPABLE_BOUND);
        // Once drained, there is room again.
        tx.send(Ev::Log("a", 1)).expect("alive");
        assert_eq!(drain(&mut rx), vec![Ev::Log("a", 1)]);
    }

    #[test]
    fn lazy_progress_is_kept_whole_until_the_bound_then_the_latest_stands() {
        let (tx, mut rx) = channel::<Ev>();
        for i in 1..=600 {
            tx.send(Ev::Every("s", 1, i)).unwrap();
        }
        let mut got = Vec::new();
        while let Ok(Ev::Every(_, _, n)) = rx.try_recv() {
            got.push(n);
        }
        let mut expected: Vec<u32> = (1..DROPPABLE_BOUND as u32).collect();
        expected.push(600);
        assert_eq!(got, expected);
    }

    #[test]
    fn progress_of_a_token_coalesces_to_the_latest_after_what_came_between() {
        let (tx, mut rx) = channel();
        tx.send(Ev::Progress("a", 1, 0)).expect("alive");
        tx.send(Ev::Call(7)).expect("alive");
        for i in 1..100_000 {
            tx.send(Ev::Progress("a", 1, i)).expect("alive");
        }
        tx.send(Ev::Progress("a", 2, 5)).expect("alive");
        // Replaced entries are compacted away: the queue stays small.
        assert!(rx.stats().peak <= 3, "{:?}", rx.stats());
        assert!(rx.shared.lock().entries.len() <= 2 * 64 + 3);
        assert_eq!(
            drain(&mut rx),
            vec![
                Ev::Call(7),
                Ev::Progress("a", 1, 99_999),
                Ev::Progress("a", 2, 5)
            ]
        );
        assert_eq!(rx.stats().coalesced, 99_999);
        assert_eq!(rx.stats().dropped, 0);
    }

    #[tokio::test]
    async fn recv_waits_for_an_item_and_ends_when_the_senders_are_gone() {
        let (tx, mut rx) = channel::<Ev>();
        let tx2 = tx.clone();
        let t = tokio::spawn(async move {
            tokio::task::yield_now().await;
            tx2.send(Ev::Call(1)).expect("alive");
        });
        assert_eq!(rx.recv().await, Some(Ev::Call(1)));
        t.await.expect("sender task");
        tx.send(Ev::Call(2)).expect("alive");
        drop(tx);
        assert_eq!(rx.recv().await, Some(Ev::Call(2)));
        assert_eq!(rx.recv().await, None);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    }

    #[test]
    fn drops_counted_upstream_join_the_waiting_report() {
        let (tx, mut rx) = channel();
        let c = |n| DropCounts {
            notifications: n,
            ..DropCounts::default()
        };
        for _ in 0..1000 {
            tx.add_dropped("a", c(2));
        }
        tx.send(Ev::Call(1)).expect("alive");
        tx.add_dropped("a", c(1));
        assert_eq!(
            drain(&mut rx),
            vec![Ev::Dropped("a".into(), c(2001)), Ev::Call(1)]
        );
        // Not counted as this queue's own drops.
        assert_eq!(rx.stats().dropped, 0);
    }

    #[test]
    fn drop_counts_read_as_words() {
        let c = DropCounts {
            notifications: 1234,
            stderr: 5,
            findings: 0,
        };
        assert_eq!(
            c.text(),
            "1,234 notifications, 5 stderr lines dropped (storm)"
        );
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn a_send_after_the_receiver_is_gone_fails() {
        let (tx, rx) = channel::<Ev>();
        drop(rx);
        assert!(tx.send(Ev::Call(1)).is_err());
    }
}
