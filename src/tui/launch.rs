//! Launching the TUI on a configuration: the keymap and theme from the
//! config (problems name the file), a manager whose servers a person
//! answers, and the event loop.

use std::sync::Arc;

use crate::config::Config;
use crate::mcp::framelog::FrameLog;
use crate::mcp::manager::Manager;
use crate::startup::CHILDREN;

/// Why the TUI could not run.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// `[keys]` or `[theme]` cannot be used; the message names the file.
    #[error("{0}")]
    Config(String),
    #[error("the terminal failed: {0}")]
    Terminal(#[from] std::io::Error),
}

/// The interactive TUI on the configured (or demo) servers.
pub async fn launch(config: &Config) -> Result<super::run::Ended, LaunchError> {
    let file = config
        .path
        .as_ref()
        .map(|p| format!("{}: ", p.display()))
        .unwrap_or_default();
    let keymap = super::keymap::Keymap::with_overrides(&config.keys)
        .map_err(|e| LaunchError::Config(format!("{file}{e}")))?;
    // The environment is read once, here.
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let theme = super::theme::Theme::from_config(&config.theme, no_color)
        .map_err(|e| LaunchError::Config(format!("{file}{e}")))?;
    // Frames are never printed in the TUI: stderr is the screen. A person
    // answers the servers' sampling and elicitation requests.
    // The frames also go to a recording while one is on (`--record`, or
    // the record key).
    crate::record::Recorder::quiet_stderr();
    // Spans (when on): the one export warning goes to the status bar.
    crate::telemetry::quiet_stderr();
    crate::telemetry::attach(&config.servers);
    if crate::record::Recorder::current().is_some() {
        crate::record::Recorder::global().attach(&config.servers);
    }
    let frames =
        FrameLog::new(config.settings.frame_log).with_tap(Box::new(crate::record::frame_tap));
    frames.net().set_tap(Box::new(crate::record::exchange_tap));
    let (manager, rx) = Manager::start_full(
        config.settings.clone(),
        config.servers.clone(),
        Arc::new(frames),
        CHILDREN.clone(),
        true,
    );
    let result = super::terminal::run(config.clone(), keymap, theme, manager.clone(), rx).await;
    manager.shutdown().await;
    result.map_err(LaunchError::Terminal)
}

/// `mcpdeck open FILE`: the TUI on a recording, with no server: the
/// protocol log holds the recorded frames (times are when they were
/// loaded; the recorded ones are in the file).
pub async fn open_recording(
    config: &Config,
    rec: crate::record::Recording,
) -> Result<(), LaunchError> {
    use crate::mcp::framelog::{Direction, FrameMeta};
    use crate::mcp::jsonrpc::Id;
    use crate::record::Dir;
    let mut config = config.clone();
    // The servers pane lists the recorded servers (none is started).
    config.servers = rec
        .servers
        .iter()
        .map(|s| {
            crate::config::ServerConfig::stdio(
                s.name.clone(),
                format!("(recorded) {}", s.target),
                &[],
            )
        })
        .collect();
    config.path = None;
    let log = FrameLog::new(config.settings.frame_log.max(rec.entries.len()));
    // Requests by (server, direction, id), for the responses' latency.
    let mut open = std::collections::HashMap::new();
    for e in &rec.entries {
        let dir = match e.dir {
            Dir::Send => Direction::Out,
            Dir::Recv => Direction::In,
            Dir::Http => continue,
        };
        let mut meta = FrameMeta::default();
        if let Some(f) = &e.frame {
            let id = f.get("id").filter(|i| !i.is_null());
            meta.id = id.and_then(|i| match i {
                serde_json::Value::Number(n) => {
                    Some(n.as_i64().map_or_else(|| Id::Other(n.clone()), Id::Num))
                }
                serde_json::Value::String(s) => Some(Id::Str(s.clone())),
                _ => None,
            });
            match (f.get("method").and_then(|m| m.as_str()), id) {
                (Some(m), Some(id)) => {
                    meta.method = Some(Arc::from(m));
                    open.insert(
                        (e.server.clone(), dir == Direction::Out, id.to_string()),
                        (m.to_string(), e.t),
                    );
                }
                (Some(m), None) => meta.method = Some(Arc::from(m)),
                (None, Some(id)) => {
                    let asked = dir == Direction::In;
                    if let Some((m, t0)) = open.remove(&(e.server.clone(), asked, id.to_string())) {
                        meta.method = Some(Arc::from(m.as_str()));
                        meta.latency = std::time::Duration::try_from_secs_f64(e.t - t0).ok();
                    }
                }
                (None, None) => {}
            }
        }
        // A hostile file may hold any number here: never a panic.
        let at = std::time::Duration::try_from_secs_f64(e.t).unwrap_or_default();
        log.record_at(&Arc::from(e.server.as_str()), dir, &e.text(), meta, at);
    }
    let keymap = super::keymap::Keymap::with_overrides(&config.keys)
        .map_err(|e| LaunchError::Config(e.to_string()))?;
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let theme = super::theme::Theme::from_config(&config.theme, no_color)
        .map_err(|e| LaunchError::Config(e.to_string()))?;
    let (manager, rx) = Manager::start_full(
        config.settings.clone(),
        Vec::new(),
        Arc::new(log),
        CHILDREN.clone(),
        true,
    );
    let names: Vec<&str> = rec.servers.iter().map(|s| s.name.as_str()).collect();
    let note = format!(
        "read-only recording of {}, {} frames: {} from {}",
        names.join(", "),
        rec.entries.iter().filter(|e| e.dir != Dir::Http).count(),
        rec.path.display(),
        rec.started
    );
    let result =
        super::terminal::run_with(config, keymap, theme, manager.clone(), rx, Some(note)).await;
    manager.shutdown().await;
    result.map(|_| ()).map_err(LaunchError::Terminal)
}
