//! Connecting the servers: each distinct one once, `--jobs` at a time,
//! each within `--timeout`, listed only, then stopped.

use super::*;

/// How connecting one server went.
#[derive(Debug, Clone)]
pub(super) enum Reach {
    Scanned {
        negotiated: Option<Box<Negotiated>>,
        lists: Arc<Lists>,
    },
    Failed(ConnectError),
    /// Nothing within the time limit.
    TimedOut(String),
}

/// The server processes of every attempt. Each attempt has a registry of
/// its own, since stopping a manager settles (and at last SIGKILLs) every
/// process of its registry, and the others are still working; the signal
/// handler's registry ([`crate::startup::CHILDREN`]) does not see them, so
/// when the scan is dropped (Ctrl-C) this kills what is left at once.
#[derive(Default)]
pub(super) struct Reaper(std::sync::Mutex<Vec<Arc<Children>>>);

impl Reaper {
    pub(super) fn registry(&self) -> Arc<Children> {
        let children = Children::new();
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(children.clone());
        children
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        for children in self.0.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            if children.count() > 0 {
                children.kill_now();
            }
        }
    }
}

/// Connect `servers`, `jobs` at a time, each within `limit`.
pub(super) async fn connect_all(
    settings: &Settings,
    servers: &[ServerConfig],
    limit: Duration,
    jobs: usize,
    trace: bool,
) -> Vec<Reach> {
    let reaper = Reaper::default();
    let permits = Arc::new(tokio::sync::Semaphore::new(jobs.max(1)));
    let attempts = servers.iter().map(|server| {
        let permits = permits.clone();
        let reaper = &reaper;
        async move {
            // The semaphore is never closed; without a permit, go on.
            let _permit = permits.acquire().await.ok();
            let children = reaper.registry();
            connect_one(settings, server.clone(), limit, trace, children).await
        }
    });
    let reaches = futures_util::future::join_all(attempts).await;
    let left: usize = reaper
        .0
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .map(|c| c.count())
        .sum();
    if left > 0 {
        eprintln!(
            "mcpdeck: warning: {left} server process(es) could not be reaped after SIGKILL; check `ps` for them"
        );
    }
    reaches
}

/// Connect one server, list everything, and stop it (reaped before this
/// returns, so at most `--jobs` server processes live at once).
pub(super) async fn connect_one(
    settings: &Settings,
    mut server: ServerConfig,
    limit: Duration,
    trace_frames: bool,
    children: Arc<Children>,
) -> Reach {
    let mut settings = settings.clone();
    settings.connect_timeout = limit;
    settings.request_timeout = limit;
    settings.shutdown_grace = settings.oneshot_grace;
    server.enabled = true;
    server.timeout = Some(limit);
    trace::warn_insecure(std::slice::from_ref(&server));
    let name = server.name.clone();
    let frames = trace::frame_log(&settings, trace_frames, std::slice::from_ref(&server));
    let (manager, mut events) = Manager::start_answering(
        settings.clone(),
        vec![server],
        frames,
        children,
        Answers::Nothing,
    );
    let settled = tokio::time::timeout(limit, async {
        while let Some(ev) = events.recv().await {
            // Findings about the frames are not what scan reports; --trace
            // shows them.
            if trace_frames {
                events::report(&ev);
            }
            if let Event::Status { server, status, .. } = &ev
                && *server == name
                && status.settled()
            {
                break;
            }
        }
    })
    .await;
    let snap = manager
        .snapshot()
        .await
        .into_iter()
        .find(|s| s.config.name == name);
    manager.shutdown().await;
    if trace_frames {
        events::drain(&mut events);
    }
    match snap {
        Some(s) if s.status == ServerStatus::Connected => Reach::Scanned {
            negotiated: s.negotiated.map(Box::new),
            lists: s.lists,
        },
        _ if settled.is_err() => Reach::TimedOut(format!(
            "no answer within {} (--timeout); nothing was listed",
            fmt_duration(limit)
        )),
        Some(s) => match s.status {
            ServerStatus::Failed(ConnectError::Timeout { message, .. }) => Reach::TimedOut(message),
            ServerStatus::Failed(e) | ServerStatus::NeedsAuth(e) => Reach::Failed(e),
            other => Reach::Failed(ConnectError::Internal(format!(
                "the server ended {} instead of connecting",
                other.label()
            ))),
        },
        None => Reach::Failed(ConnectError::Internal(
            "the server was lost by the manager".into(),
        )),
    }
}

/// Whether a stdio server's program is missing: a path that does not
/// exist, or a bare name on no directory of `PATH`.
pub(super) fn program_missing(server: &ServerConfig) -> bool {
    let TransportConfig::Stdio {
        command, env, cwd, ..
    } = &server.transport
    else {
        return false;
    };
    let program = Path::new(command);
    if command.contains('/') {
        let at = match cwd {
            Some(dir) if program.is_relative() => dir.join(program),
            _ => program.to_path_buf(),
        };
        return !at.exists();
    }
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| std::ffi::OsString::from(v))
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    !std::env::split_paths(&path).any(|dir| dir.join(program).is_file())
}
