//! The lint rules. (Being written: see issue 14.)

use super::Finding;
use crate::mcp::session::Lists;

/// What the config says about linting one server.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Rule ids silenced for the whole server.
    pub allow: Vec<String>,
    /// Rule ids silenced for one tool (or prompt, template, resource) by name.
    pub allow_for: std::collections::BTreeMap<String, Vec<String>>,
    /// The longest description that is not a finding, in characters.
    pub max_description: Option<usize>,
}

impl Options {
    /// The options of one server (stand-in until the lint engine lands).
    pub fn for_server(
        _server: &crate::config::ServerConfig,
        _settings: &crate::config::Settings,
    ) -> Options {
        Options::default()
    }
}

/// Lint everything one server shows the model.
pub fn lint_server(
    _server: &str,
    _lists: &Lists,
    _instructions: Option<&str>,
    _options: &Options,
) -> Vec<Finding> {
    Vec::new()
}

/// Rules across servers: a description naming another server's tool, and
/// the same tool name on two servers (shadowing).
pub fn cross_server(_servers: &[(&str, &Lists)]) -> Vec<Finding> {
    Vec::new()
}
