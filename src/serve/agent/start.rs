//! Start-up: the agent's side opened (stdio, or HTTP with a context per
//! session), and each context built: its manager, in its agent's era with
//! its capabilities (`Base::context`), and the loop run until its agent
//! goes.

use super::*;

pub(in crate::serve) async fn run(
    config: Config,
    args: ServeArgs,
    trace: bool,
    config_path: Option<PathBuf>,
) -> Result<(), ServeError> {
    let naming = if args.all || args.servers.len() > 1 {
        Naming::Aggregated
    } else if args.servers.len() == 1 {
        Naming::Transparent
    } else {
        return Err(ServeError::Usage(
            "name the servers to serve (`mcpdeck serve SERVER…`), or serve every enabled one with `mcpdeck serve --all`".into(),
        ));
    };
    for name in &args.servers {
        if config.server(name).is_none() {
            let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
            let hint = crate::text::did_you_mean(&names, name).unwrap_or_default();
            return Err(ServeError::Usage(format!(
                "there is no server named {name:?} in the configuration{hint}"
            )));
        }
    }
    // A named server with an unset `${VAR}` is a config error, as for
    // every command that names it; with --all it is served as a server
    // that cannot start (failed, as serve says on stderr; its tools
    // missing).
    for name in &args.servers {
        if let Some(s) = config.server(name)
            && let Some(why) = s.unresolved()
        {
            return Err(ServeError::Usage(why));
        }
    }
    let served = served(&config, &args);
    for name in &args.servers {
        if config.server(name).is_some_and(|s| !s.enabled) {
            eprintln!(
                "mcpdeck serve: server {name:?} is disabled in the config; it is served once it is enabled"
            );
        }
    }
    crate::trace::warn_insecure(&served);
    let pins = if args.pinned {
        Some(load_pins()?)
    } else {
        None
    };
    let frames = crate::trace::frame_log(&config.settings, trace, &served);
    let transport = match &args.http {
        Some(addr) => format!("http {addr}"),
        None => "stdio".to_string(),
    };
    let control = Control::start(config_path.clone(), transport, frames.clone());
    let base = Arc::new(Base {
        follow: control.follow(),
        config,
        args: args.clone(),
        naming,
        config_path,
        frames,
    });
    let Some(addr) = &args.http else {
        let (in_tx, mut in_rx) = mpsc::unbounded_channel();
        let (out, out_rx) = mpsc::unbounded_channel();
        let writer = stdio(in_tx, out_rx);
        // The agent's first words, briefly awaited (control requests are
        // answered meanwhile): an `initialize` gets upstream sessions in
        // its era, declaring its capabilities.
        let mut control = control;
        let waiting = base.state(&base.config, pins.clone());
        let deadline = Instant::now() + FIRST_LINE_WAIT;
        let first = loop {
            tokio::select! {
                line = in_rx.recv() => match line {
                    Some(Ok(line)) if line.trim().is_empty() => continue,
                    Some(Ok(line)) => break Some(line),
                    Some(Err(e)) => return Err(ServeError::Io(e)),
                    None => break None,
                },
                _ = tokio::time::sleep_until(deadline) => break None,
                Some(request) = control.next() => control.answer(request, &waiting),
            }
        };
        let seed = first
            .as_deref()
            .and_then(|l| serde_json::from_str::<Value>(l).ok())
            .and_then(|f| Seed::of(&f));
        let result = base.context(seed, control, pins, in_rx, out, first).await;
        // What is written goes out before the end.
        let _ = writer.await;
        return result;
    };
    // HTTP: the shared context (stateless requests), and one for each
    // session, opened by its `initialize`.
    let (in_tx, in_rx) = mpsc::unbounded_channel();
    let (out, out_rx) = mpsc::unbounded_channel();
    let main = crate::serve::http::Door::new(in_tx, out_rx, true);
    let opener: crate::serve::http::Opener = {
        let base = base.clone();
        let pins = pins.clone();
        Arc::new(move |params: Option<&Value>| {
            let (in_tx, in_rx) = mpsc::unbounded_channel();
            let (out, out_rx) = mpsc::unbounded_channel();
            let door = crate::serve::http::Door::new(in_tx, out_rx, false);
            let seed = Seed::of_initialize(params);
            let (base, pins) = (base.clone(), pins.clone());
            tokio::spawn(async move {
                let control = base.follow.control();
                if let Err(e) = base
                    .context(Some(seed), control, pins, in_rx, out, None)
                    .await
                {
                    eprintln!("mcpdeck serve: a session ended: {e}");
                }
            });
            door
        })
    };
    let idle = (args.session_idle > 0).then(|| Duration::from_secs(args.session_idle));
    let task = crate::serve::http::start(addr, args.allow_remote, idle, main, opener).await?;
    let result = base.context(None, control, pins, in_rx, out, None).await;
    task.abort();
    result
}

/// How long a stdio serve waits for its agent's first line before it
/// connects upstream anyway (in the era the servers prefer).
const FIRST_LINE_WAIT: Duration = Duration::from_secs(1);

/// What every context of one serve shares.
struct Base {
    config: Config,
    args: ServeArgs,
    naming: Naming,
    config_path: Option<PathBuf>,
    /// One frame log for every context (`--trace`, watchers).
    frames: std::sync::Arc<crate::mcp::framelog::FrameLog>,
    /// The control socket's watchers, for the contexts without it.
    follow: crate::serve::control::Follow,
}

/// What an agent's `initialize` says that its upstream sessions follow:
/// the initialize era, and its client capabilities (no more).
#[derive(Debug, Clone)]
struct Seed {
    capabilities: Value,
}

impl Seed {
    /// From the agent's first frame, if it is an `initialize`.
    fn of(frame: &Value) -> Option<Seed> {
        (frame.get("method").and_then(Value::as_str) == Some("initialize"))
            .then(|| Seed::of_initialize(frame.get("params")))
    }

    /// From an `initialize`'s params.
    fn of_initialize(params: Option<&Value>) -> Seed {
        Seed {
            capabilities: params
                .and_then(|p| p.get("capabilities"))
                .filter(|c| c.is_object())
                .cloned()
                .unwrap_or_else(|| json!({})),
        }
    }

    /// The capabilities declared upstream: the agent's, as far as mcpdeck
    /// can answer them (roots, sampling, elicitation in its modes).
    fn declared(&self) -> crate::mcp::session::Declared {
        let caps = &self.capabilities;
        let elicitation = caps.get("elicitation");
        crate::mcp::session::Declared {
            roots: caps.get("roots").is_some(),
            sampling: caps.get("sampling").is_some(),
            // `{}` is form mode (the revisions before modes).
            elicitation_form: elicitation.is_some_and(|e| {
                e.as_object()
                    .is_some_and(|o| o.is_empty() || o.contains_key("form"))
            }),
            elicitation_url: elicitation.and_then(|e| e.get("url")).is_some(),
        }
    }
}

impl Base {
    /// What a context serves, before anything is connected.
    fn state(&self, config: &Config, pins: Option<PinStore>) -> ServeState {
        ServeState {
            naming: self.naming,
            servers: served(config, &self.args)
                .into_iter()
                .map(Upstream::new)
                .collect(),
            pins,
            calls: Default::default(),
            last_call: 0,
        }
    }

    /// Run one agent context until its lines end: its own manager (in the
    /// seed's era, with its capabilities, when there is one), its own
    /// pending requests, its own everything. `first`: a line already read.
    async fn context(
        &self,
        seed: Option<Seed>,
        control: Control,
        pins: Option<PinStore>,
        lines: mpsc::UnboundedReceiver<Result<String, String>>,
        out: mpsc::UnboundedSender<Out>,
        first: Option<String>,
    ) -> Result<(), ServeError> {
        // The config and pins as they are now: a session opened after an
        // edit (`mcpdeck deny`, a new pin) starts with it. One that does
        // not load leaves the last good one (the shared context says why).
        let config = match &self.config_path {
            Some(path) => crate::config::load(path).unwrap_or_else(|_| self.config.clone()),
            None => self.config.clone(),
        };
        let pins = if self.args.pinned {
            load_pins().ok().or(pins)
        } else {
            pins
        };
        let mut settings = config.settings.clone();
        if let Some(seed) = &seed {
            settings.capabilities = seed.declared();
            // Only the agent's roots (asked of it), unless `--roots` chose.
            if !crate::config::roots_flag_set() {
                settings.roots = Vec::new();
            }
        }
        let initialize_era = seed.is_some();
        let state = self.state(&config, pins);
        let settle = config.settings.connect_timeout + config.settings.probe_timeout;
        let (manager, events) = Manager::start_answering(
            settings,
            state
                .servers
                .iter()
                .map(|u| connection(&u.config, initialize_era))
                .collect(),
            self.frames.clone(),
            crate::startup::CHILDREN.clone(),
            Answers::Person,
        );
        let pin_file = state
            .pins
            .as_ref()
            .map(|p| Watched::new(p.path().to_path_buf()));
        let mut serve = Serve {
            state,
            manager,
            out,
            args: self.args.clone(),
            initialize_era,
            settled: false,
            settle_by: Instant::now() + settle,
            held: Vec::new(),
            next_tag: 0,
            pending: HashMap::new(),
            tags: HashMap::new(),
            progress: HashMap::new(),
            early: HashMap::new(),
            asks: HashMap::new(),
            server_asks: HashMap::new(),
            next_ask: 0,
            subs: Vec::new(),
            listens: Vec::new(),
            agent: AgentInfo::default(),
            shown: None,
            config: self.config_path.clone().map(Watched::new),
            pin_file,
            views_changed: false,
            announced: Vec::new(),
            forced: Vec::new(),
            control,
            tasks: HashMap::new(),
        };
        if let Some(line) = first {
            serve.line(&line);
        }
        let result = serve.run_loop(events, lines).await;
        serve.manager.shutdown().await;
        result
    }
}

/// Read the agent's lines from stdin; write its lines to stdout (the
/// writer's task, which ends when every line is out).
pub(super) fn stdio(
    lines: mpsc::UnboundedSender<Result<String, String>>,
    out: mpsc::UnboundedReceiver<Out>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut input = BufReader::new(tokio::io::stdin()).lines();
        loop {
            match input.next_line().await {
                Ok(Some(line)) => {
                    if lines.send(Ok(line)).is_err() {
                        return;
                    }
                }
                // The end: the loop sees the channel close.
                Ok(None) => return,
                Err(e) => {
                    let _ = lines.send(Err(format!("serve: reading stdin failed: {e}")));
                    return;
                }
            }
        }
    });
    tokio::spawn(write_lines(out))
}

/// The served servers of `config`: the named ones (or all) that are enabled.
pub(super) fn served(config: &Config, args: &ServeArgs) -> Vec<ServerConfig> {
    config
        .servers
        .iter()
        .filter(|s| s.enabled && (args.all || args.servers.contains(&s.name)))
        .cloned()
        .collect()
}

/// A server's config as the manager gets it: the policy is serve's, so a
/// change of policy never restarts the server. For an initialize-era
/// agent (`initialize_era`), a server left to choose its era (`protocol`
/// unset) speaks the initialize era, the agent's.
pub(super) fn connection(server: &ServerConfig, initialize_era: bool) -> ServerConfig {
    let protocol = match server.protocol.clone() {
        crate::config::ProtocolPin::Auto if initialize_era => {
            crate::config::ProtocolPin::InitializeFirst
        }
        other => other,
    };
    ServerConfig {
        deny_tools: Vec::new(),
        allow_tools: Vec::new(),
        lint: Default::default(),
        protocol,
        ..server.clone()
    }
}

pub(super) fn load_pins() -> Result<PinStore, ServeError> {
    PinStore::load_default().map_err(|e| ServeError::Usage(format!("--pinned: {e}")))
}

pub(super) async fn write_lines(mut rx: mpsc::UnboundedReceiver<Out>) {
    let mut stdout = tokio::io::stdout();
    while let Some((line, _)) = rx.recv().await {
        if stdout.write_all(line.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
            // The agent is gone; stdin's end stops the loop.
            return;
        }
    }
}
