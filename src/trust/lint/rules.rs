//! The rule catalogue ([`RULES`]) and the options that silence rules
//! (`[servers.NAME.lint]`).

use super::*;

/// One rule: a stable id, its highest severity, and what it catches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
}

pub(super) const fn rule(id: &'static str, severity: Severity, summary: &'static str) -> Rule {
    Rule {
        id,
        severity,
        summary,
    }
}

/// Every rule, in the order of the table in docs/trust.md.
pub const RULES: &[Rule] = &[
    rule(
        "hidden-zero-width",
        Severity::High,
        "zero-width and other invisible characters (U+200B–U+200F, U+2060–U+2064, U+FEFF, fillers) outside emoji",
    ),
    rule(
        "hidden-tag-characters",
        Severity::High,
        "Unicode tag characters (U+E0000–U+E007F), which spell out invisible ASCII; the evidence decodes it",
    ),
    rule(
        "hidden-bidi",
        Severity::High,
        "bidi embeddings, overrides and isolates that reorder what a person reads",
    ),
    rule(
        "hidden-variation-selector",
        Severity::High,
        "variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF) outside emoji, a way to hide bytes",
    ),
    rule(
        "hidden-control",
        Severity::High,
        "terminal escape sequences and control characters in text",
    ),
    rule(
        "confusable-name",
        Severity::High,
        "a name mixing Latin with Cyrillic or Greek look-alikes (high for a tool, prompt or resource name, medium for a parameter)",
    ),
    rule(
        "model-instruction",
        Severity::High,
        "phrases aimed at the model (ignore previous instructions, do not tell the user, before using this tool you must, when another tool is called, add a BCC recipient…): medium alone, high with a tag block, a secret, a destination, two kinds of phrase or compliance pressure",
    ),
    rule(
        "instruction-tag",
        Severity::High,
        "<IMPORTANT>, <SYSTEM>, <instructions>-style blocks and HTML comments: medium alone, high around an instruction, a secret or a destination",
    ),
    rule(
        "secret-access",
        Severity::High,
        "secrets and dotfiles (~/.ssh, id_rsa, .env, ~/.aws/credentials, mcp.json, keychain, private key): medium alone, high with an instruction or a place to put them",
    ),
    rule(
        "exfiltration",
        Severity::High,
        "sending data to a URL, an e-mail address or a phone number: low alone, high with an instruction or a secret",
    ),
    rule(
        "cross-server-reference",
        Severity::High,
        "a description naming a tool of another configured server",
    ),
    rule(
        "tool-shadowing",
        Severity::High,
        "the same tool name on two servers: medium, high when the description instructs the model or names the other server; one server configured twice: nothing where identical, low where a definition differs",
    ),
    rule(
        "side-channel-parameter",
        Severity::High,
        "a free-text parameter named like a side channel (sidenote, note_to_ai, context, metadata…) that the description asks to fill with other data: high with secret or instruction wording, else low",
    ),
    rule(
        "shell-metacharacter-default",
        Severity::Medium,
        "a default value with shell metacharacters (;, |, $(, backticks, &&)",
    ),
    rule(
        "unbounded-object",
        Severity::Low,
        "an object parameter with no properties that accepts any keys",
    ),
    rule(
        "destructive-unannotated",
        Severity::Medium,
        "a destructive-sounding tool (delete, drop, send, pay, exec…) annotated readOnlyHint: true (medium), destructiveHint: false or not annotated (low)",
    ),
    rule(
        "description-too-long",
        Severity::Low,
        "a description longer than the limit (1024 characters unless configured)",
    ),
];

/// The ids of every rule, for messages.
pub fn rule_ids() -> Vec<&'static str> {
    RULES.iter().map(|r| r.id).collect()
}

/// Whether `id` names a rule.
pub fn is_rule(id: &str) -> bool {
    RULES.iter().any(|r| r.id == id)
}

/// The default of [`Options::max_description`].
pub const DEFAULT_MAX_DESCRIPTION: usize = 1024;

/// What the config says about linting one server.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Rule ids silenced for the whole server.
    pub allow: Vec<String>,
    /// Rule ids silenced for one tool (or prompt, template, resource) by name.
    pub allow_for: BTreeMap<String, Vec<String>>,
    /// The longest description that is not a finding, in characters;
    /// `None`: [`DEFAULT_MAX_DESCRIPTION`].
    pub max_description: Option<usize>,
}

impl Options {
    /// The options of `[servers.NAME.lint]`, with the `[settings]` default
    /// of the length limit.
    pub fn for_server(
        server: &crate::config::ServerConfig,
        settings: &crate::config::Settings,
    ) -> Options {
        let lint = &server.lint;
        Options {
            allow: lint.allow.clone(),
            allow_for: lint.allow_for.iter().cloned().collect(),
            max_description: Some(
                lint.max_description
                    .unwrap_or(settings.lint_max_description),
            ),
        }
    }

    pub(super) fn allows(&self, f: &Finding) -> bool {
        self.allow.iter().any(|a| a == f.rule)
            || self
                .allow_for
                .get(&f.name)
                .is_some_and(|list| list.iter().any(|a| a == f.rule))
    }
}
