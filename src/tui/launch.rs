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
pub async fn launch(config: &Config) -> Result<(), LaunchError> {
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
    let (manager, rx) = Manager::start_full(
        config.settings.clone(),
        config.servers.clone(),
        Arc::new(FrameLog::new(config.settings.frame_log)),
        CHILDREN.clone(),
        true,
    );
    let result = super::terminal::run(config.clone(), keymap, theme, manager.clone(), rx).await;
    manager.shutdown().await;
    result.map_err(LaunchError::Terminal)
}
