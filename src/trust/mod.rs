//! Tool trust: what servers tell the model, checked.
//!
//! - [`lint`]: rules over every text a server shows the model (names,
//!   titles, descriptions, schemas, `instructions`), each with an id, a
//!   severity, a message and the exact evidence;
//! - [`pin`]: fingerprints of each definition, kept in the data directory,
//!   and what changed since (added, removed, changed, with a word diff).
//!
//! No UI imports here: the CLI (`mcpdeck lint`, `pin`, `verify`, `scan`)
//! and the TUI both build on these.

pub mod lint;
pub mod pin;
pub mod sarif;

use serde::Serialize;

/// What a checked definition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The server itself (its `instructions`, its name).
    Server,
    Tool,
    Prompt,
    Resource,
    Template,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Server => "server",
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
            Kind::Template => "template",
        }
    }
}

/// How much a finding matters. Ordered: `Low < Medium < High`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Low,
    Medium,
    High,
}

impl Severity {
    pub fn label(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
        }
    }
}

/// One finding of a rule on one definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The server's name in the config (or the ad-hoc target's name).
    pub server: String,
    pub kind: Kind,
    /// The definition's name (tool, prompt, template name, resource URI);
    /// the server's name for [`Kind::Server`].
    pub name: String,
    /// The rule's id, e.g. `hidden-content`.
    pub rule: &'static str,
    pub severity: Severity,
    /// Why it matters, in words.
    pub message: String,
    /// The exact text that set the rule off, with invisible characters
    /// made visible (`⟨U+200B⟩`).
    pub evidence: String,
    /// Where in the definition: `description`,
    /// `inputSchema.properties.path.default`, `instructions`, …
    pub field: String,
}
