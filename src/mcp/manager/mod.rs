//! The manager: one background task that owns every session. Commands go
//! in, events come out; nothing the UI does ever waits on a server.

mod auth;
mod call;
mod command;
mod connect;
mod events;
mod model;
pub mod queue;
mod spec;
mod task;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

use crate::config::{ServerConfig, Settings};
use crate::mcp::framelog::FrameLog;
use crate::mcp::session::{Asker, ClientPolicy, ServerRequest, SharedRoots};
use crate::mcp::session::{EventSink, ListSet};
use crate::mcp::transport::stdio::Children;

pub use model::{
    Answers, CallError, Command, Event, QUALIFIER, QualifiedTool, ServerSnapshot, ServerStatus,
    aggregate_tools, keep_every_progress, split_qualified,
};
pub use queue::{DropCounts, QueueStats};
pub use spec::session_spec;
pub use task::panic_is_caught;
use task::*;

/// The manager's events, as the UI receives them: a bounded queue with the
/// method names of tokio's receiver (see [`queue`]).
pub type EventReceiver = queue::Receiver<Event>;
/// The sending side of an [`EventReceiver`] (tests feed a UI with it).
pub type EventSender = queue::Sender<Event>;

/// A new event queue, as [`Manager::start`] makes (for tests that play the
/// manager's part).
pub fn event_channel() -> (EventSender, EventReceiver) {
    queue::channel()
}

/// The handle the UI and the CLI hold.
#[derive(Clone, Debug)]
pub struct Manager {
    tx: mpsc::UnboundedSender<Command>,
    frames: Arc<FrameLog>,
    children: Arc<Children>,
    /// The sessions' queue into the manager task.
    inbound: queue::Probe<Msg>,
}

impl Manager {
    /// Start the manager task with these servers; every enabled server
    /// connects at once, concurrently.
    pub fn start(
        settings: Settings,
        servers: Vec<ServerConfig>,
        frames: Arc<FrameLog>,
    ) -> (Manager, EventReceiver) {
        Self::start_with_children(settings, servers, frames, Children::new())
    }

    /// Like [`Manager::start`], registering every server process in
    /// `children` (so a signal handler can reap them).
    pub fn start_with_children(
        settings: Settings,
        servers: Vec<ServerConfig>,
        frames: Arc<FrameLog>,
        children: Arc<Children>,
    ) -> (Manager, EventReceiver) {
        Self::start_full(settings, servers, frames, children, false)
    }

    /// Like [`Manager::start_with_children`]; `interactive` hands every
    /// sampling and elicitation request to the UI (see [`Answers::Person`]).
    /// What is declared is `settings.capabilities`, for every manager.
    pub fn start_full(
        settings: Settings,
        servers: Vec<ServerConfig>,
        frames: Arc<FrameLog>,
        children: Arc<Children>,
        interactive: bool,
    ) -> (Manager, EventReceiver) {
        let answers = if interactive {
            Answers::Person
        } else {
            Answers::Nothing
        };
        Self::start_answering(settings, servers, frames, children, answers)
    }

    /// Start the manager; its sessions answer the servers' own requests as
    /// `answers` says.
    pub fn start_answering(
        settings: Settings,
        servers: Vec<ServerConfig>,
        frames: Arc<FrameLog>,
        children: Arc<Children>,
        answers: Answers,
    ) -> (Manager, EventReceiver) {
        Self::start_listing(settings, servers, frames, children, answers, ListSet::ALL)
    }

    /// Like [`Manager::start_answering`]; a connect (and a re-list after
    /// `list_changed`) asks only for the lists in `lists`.
    pub fn start_listing(
        settings: Settings,
        servers: Vec<ServerConfig>,
        frames: Arc<FrameLog>,
        children: Arc<Children>,
        answers: Answers,
        lists: ListSet,
    ) -> (Manager, EventReceiver) {
        let (tx, rx) = mpsc::unbounded_channel();
        let (ev_tx, ev_rx) = queue::channel();
        let asks: Asks = Arc::new(std::sync::Mutex::new((0, HashMap::new())));
        // The TUI's and serve's managers live on: they ping, and listen for
        // list changes; a one-shot command's do neither.
        let ping_on_connect = matches!(answers, Answers::Person);
        let listen_on_connect = ping_on_connect;
        // Every manager, the one-shot commands' as the TUI's, offers the
        // configured roots and nothing else (an empty list when there are
        // none); a server's own `roots` replace them for that server.
        let roots = SharedRoots::new(&settings.roots);
        // One declared set for every command (`--capabilities`): a
        // server's tools may depend on it.
        let declared = settings.capabilities;
        let client = match answers {
            Answers::Person => {
                let (events, asks) = (ev_tx.clone(), asks.clone());
                let ask = Asker(Arc::new(move |req: ServerRequest| {
                    let (reply, rx) = oneshot::channel();
                    let id = {
                        let mut a = asks.lock().unwrap_or_else(|p| p.into_inner());
                        a.0 += 1;
                        let id = a.0;
                        a.1.insert(id, reply);
                        id
                    };
                    let _ = events.send(Event::ServerRequest {
                        id,
                        server: req.server.to_string(),
                        method: req.method,
                        params: req.params,
                        related: req.related,
                        request_id: req.request_id,
                    });
                    rx
                }));
                let mut policy = ClientPolicy::headless(declared, roots);
                policy.ask = Some(ask);
                policy
            }
            Answers::Automatically => ClientPolicy::automatic(declared, roots),
            Answers::Nothing => ClientPolicy::headless(declared, roots),
        };
        // The sessions' readers call the sink: it never waits, and a storm
        // of notifications is coalesced or dropped (and counted) there.
        let (msg_tx, msg_rx) = queue::channel();
        let inbound = msg_rx.probe();
        let sink_tx = msg_tx.clone();
        let sink: EventSink = Arc::new(move |t| {
            let _ = sink_tx.send(Msg::Session(t));
        });
        let task = Task {
            settings,
            slots: Vec::new(),
            events: ev_tx,
            sink,
            msgs: msg_tx,
            frames: frames.clone(),
            children: children.clone(),
            calls: HashMap::new(),
            next_call: 0,
            generation: 0,
            closing: JoinSet::new(),
            tasks: JoinSet::new(),
            early_list_changed: HashSet::new(),
            lists,
            client,
            ping_on_connect,
            listen_on_connect,
            asks,
        };
        tokio::spawn(task.run(servers, rx, msg_rx));
        (
            Manager {
                tx,
                frames,
                children,
                inbound,
            },
            ev_rx,
        )
    }

    pub fn send(&self, cmd: Command) {
        let _ = self.tx.send(cmd);
    }

    pub fn frames(&self) -> &Arc<FrameLog> {
        &self.frames
    }

    /// The server processes not reaped yet.
    pub fn children(&self) -> &Arc<Children> {
        &self.children
    }

    /// What went through the queue from the sessions to the manager task
    /// (its length stays bounded under a storm of notifications).
    pub fn inbound_stats(&self) -> QueueStats {
        self.inbound.stats()
    }

    pub async fn snapshot(&self) -> Vec<ServerSnapshot> {
        let (tx, rx) = oneshot::channel();
        self.send(Command::Snapshot(tx));
        rx.await.unwrap_or_default()
    }

    /// Close every session, stop every attempt to connect, and wait until
    /// every server process is reaped.
    pub async fn shutdown(&self) {
        let (tx, rx) = oneshot::channel();
        self.send(Command::Shutdown(tx));
        let _ = rx.await;
    }
}
