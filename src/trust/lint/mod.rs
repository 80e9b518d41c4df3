//! The lint rules: everything a server shows the model, checked locally.
//!
//! Each definition (tool, prompt, resource, template, and the server's
//! `instructions`) is flattened into its texts, each with the field it
//! came from (`description`, `inputSchema.properties.path.default`, …) and
//! a role (a name, prose, or a value). Every text is checked for hidden
//! characters; names for look-alike letters; prose and values for what
//! they say to the model ([`text`]). The severity of what is said depends
//! on the whole definition: a phrase alone is medium, a phrase with an
//! `<IMPORTANT>` block, a secret or a destination is high.
//!
//! [`RULES`] lists every rule; the README's "Tool trust" section documents
//! them.

mod text;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{Finding, Kind, Severity};
use crate::mcp::session::Lists;
use crate::mcp::types::Tool;
use crate::sanitize::{self, Hidden};

pub use text::{Family, PHRASES, SECRETS, TAGS, WEAK_SECRETS};

/// One rule: a stable id, its highest severity, and what it catches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
}

const fn rule(id: &'static str, severity: Severity, summary: &'static str) -> Rule {
    Rule {
        id,
        severity,
        summary,
    }
}

/// Every rule, in the order of the README's table.
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
        "phrases aimed at the model (ignore previous instructions, do not tell the user, before using this tool you must, when another tool is called…): medium alone, high with a tag block, a secret, a destination or two kinds of phrase",
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
        "the same tool name on two servers: medium, high when the description instructs the model or names the other server",
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

    fn allows(&self, f: &Finding) -> bool {
        self.allow.iter().any(|a| a == f.rule)
            || self
                .allow_for
                .get(&f.name)
                .is_some_and(|list| list.iter().any(|a| a == f.rule))
    }
}

/// What a text is, for the rules that apply to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The definition's own name.
    Name,
    /// A parameter, property or argument name.
    ParamName,
    /// Prose: titles, descriptions, instructions.
    Prose,
    /// A value: defaults, enums, examples, URIs.
    Value,
}

struct Text {
    field: String,
    text: String,
    role: Role,
}

/// A definition flattened into its texts.
struct Def<'a> {
    kind: Kind,
    name: String,
    texts: Vec<Text>,
    tool: Option<&'a Tool>,
    /// Free-text parameters (and prompt arguments).
    params: Vec<Param>,
}

/// A free-text parameter: its name, where its description is, and what
/// that says.
struct Param {
    name: String,
    field: String,
    description: Option<String>,
}

impl Def<'_> {
    fn push(&mut self, field: impl Into<String>, text: &str, role: Role) {
        self.texts.push(Text {
            field: field.into(),
            text: text.to_string(),
            role,
        });
    }

    fn push_opt(&mut self, field: &str, v: Option<&Value>, role: Role) {
        if let Some(s) = v.and_then(Value::as_str) {
            self.push(field, s, role);
        }
    }
}

/// Walk a JSON schema: property names, descriptions, titles, defaults,
/// enums, examples, nested schemas.
fn walk_schema(
    def: &mut Def<'_>,
    path: &str,
    schema: &Value,
    depth: usize,
    findings: &mut Vec<Pending>,
) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    if depth > 32 {
        return;
    }
    for key in ["description", "title"] {
        def.push_opt(&format!("{path}.{key}"), obj.get(key), Role::Prose);
    }
    if let Some(d) = obj.get("default") {
        walk_values(def, &format!("{path}.default"), d, 0);
        shell_default(&format!("{path}.default"), d, findings);
    }
    for key in ["const", "examples", "enum"] {
        if let Some(v) = obj.get(key) {
            walk_values(def, &format!("{path}.{key}"), v, 0);
        }
    }
    let props = obj.get("properties").and_then(Value::as_object);
    if let Some(props) = props {
        for (name, sub) in props {
            let field = format!("{path}.properties.{name}");
            def.push(format!("{field} (name)"), name, Role::ParamName);
            let ty = sub.get("type");
            let free_text = ty.is_none() || ty.and_then(Value::as_str) == Some("string");
            if free_text && path.starts_with("inputSchema") {
                def.params.push(Param {
                    name: name.clone(),
                    field: format!("{field}.description"),
                    description: sub
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                });
            }
            walk_schema(def, &field, sub, depth + 1, findings);
        }
    }
    // Unbounded objects: nested ones with no properties that take any key;
    // the top level only when it says so (`additionalProperties: true`).
    let is_object = obj.get("type").and_then(Value::as_str) == Some("object");
    let no_props = props.is_none_or(|p| p.is_empty())
        && obj.get("patternProperties").is_none()
        && obj.get("$ref").is_none()
        && obj.get("anyOf").is_none()
        && obj.get("oneOf").is_none()
        && obj.get("allOf").is_none();
    let additional = obj.get("additionalProperties");
    let open = match additional {
        None => depth > 0,
        Some(Value::Bool(true)) => true,
        Some(Value::Object(o)) => o.is_empty() && depth > 0,
        _ => false,
    };
    if is_object && no_props && open && path.starts_with("inputSchema") {
        findings.push(Pending {
            rule: "unbounded-object",
            severity: Severity::Low,
            field: path.to_string(),
            message: "this object parameter has no properties and takes any keys: the model may put anything in it".into(),
            evidence: format!("{}: {}", path, compact(schema)),
        });
    }
    for key in [
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
    ] {
        if let Some(sub) = obj.get(key)
            && sub.is_object()
        {
            walk_schema(def, &format!("{path}.{key}"), sub, depth + 1, findings);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(list) = obj.get(key).and_then(Value::as_array) {
            for (i, sub) in list.iter().enumerate() {
                walk_schema(def, &format!("{path}.{key}[{i}]"), sub, depth + 1, findings);
            }
        }
    }
    for key in ["$defs", "definitions", "patternProperties"] {
        if let Some(map) = obj.get(key).and_then(Value::as_object) {
            for (name, sub) in map {
                walk_schema(
                    def,
                    &format!("{path}.{key}.{name}"),
                    sub,
                    depth + 1,
                    findings,
                );
            }
        }
    }
}

fn walk_values(def: &mut Def<'_>, field: &str, v: &Value, depth: usize) {
    if depth > 16 {
        return;
    }
    match v {
        Value::String(s) => def.push(field, s, Role::Value),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                walk_values(def, &format!("{field}[{i}]"), x, depth + 1);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                def.push(format!("{field}.{k} (key)"), k, Role::Value);
                walk_values(def, &format!("{field}.{k}"), x, depth + 1);
            }
        }
        _ => {}
    }
}

fn shell_default(field: &str, v: &Value, findings: &mut Vec<Pending>) {
    let mut strings = Vec::new();
    collect_strings(v, &mut strings, 0);
    for s in strings {
        if let Some(meta) = [";", "|", "$(", "`", "&&"].iter().find(|m| s.contains(**m)) {
            let at = s.find(meta).unwrap_or(0);
            findings.push(Pending {
                rule: "shell-metacharacter-default",
                severity: Severity::Medium,
                field: field.to_string(),
                message: format!(
                    "this default holds the shell metacharacter `{meta}`: a value the model sends unasked may run more than one command"
                ),
                evidence: evidence(&s, at, at + meta.len()),
            });
            return;
        }
    }
}

fn collect_strings(v: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 16 {
        return;
    }
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out, depth + 1)),
        Value::Object(o) => o.values().for_each(|x| collect_strings(x, out, depth + 1)),
        _ => {}
    }
}

fn compact(v: &Value) -> String {
    let s = v.to_string();
    cap(&sanitize::one_line(&s), 160)
}

/// A finding before it knows its server, kind and name.
struct Pending {
    rule: &'static str,
    severity: Severity,
    field: String,
    message: String,
    evidence: String,
}

/// At most `max` characters, with `…` when cut.
fn cap(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The text around `start..end`, invisible characters made visible, on
/// one line, at most 160 characters. The context is chosen in the raw
/// text and the whole is made visible at once, so an emoji is never split
/// from its selector.
fn evidence(s: &str, start: usize, end: usize) -> String {
    let start = floor(s, start.min(s.len()));
    let end = floor(s, end.min(s.len()).max(start));
    let mut text = String::new();
    for context in [40, 18, 0] {
        let before: Vec<(usize, char)> = s[..start].char_indices().collect();
        let from = before
            .len()
            .checked_sub(context)
            .map(|i| before.get(i).map_or(start, |b| b.0))
            .unwrap_or(0);
        let to = s[end..]
            .char_indices()
            .nth(context)
            .map(|(i, _)| end + i)
            .unwrap_or(s.len());
        text = format!(
            "{}{}{}",
            if from > 0 { "…" } else { "" },
            sanitize::one_line(&s[from..to]),
            if to < s.len() { "…" } else { "" }
        );
        if text.chars().count() <= 160 {
            return text;
        }
    }
    cap(&text, 160)
}

fn floor(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Hidden characters and control characters in one text.
fn hidden_findings(t: &Text, out: &mut Vec<Pending>) {
    let hidden = sanitize::hidden_chars(&t.text);
    let mut by_kind: BTreeMap<u8, Vec<(usize, char)>> = BTreeMap::new();
    for (at, c, kind) in &hidden {
        let k = match kind {
            Hidden::ZeroWidth => 0,
            Hidden::Tag => 1,
            Hidden::Bidi => 2,
            Hidden::VariationSelector => 3,
        };
        by_kind.entry(k).or_default().push((*at, *c));
    }
    for (k, hits) in by_kind {
        let (first, c) = hits[0];
        let n = hits.len();
        let (rule, message) = match k {
            0 => (
                "hidden-zero-width",
                format!(
                    "{n} invisible character{} (first U+{:04X}): a person reading this sees nothing there, the model reads it",
                    plural(n),
                    c as u32
                ),
            ),
            1 => {
                let decoded = sanitize::decode_tags(hits.iter().map(|h| h.1));
                (
                    "hidden-tag-characters",
                    format!(
                        "{n} Unicode tag character{} spell out text no one sees: \"{}\"",
                        plural(n),
                        cap(&sanitize::one_line(&decoded), 200)
                    ),
                )
            }
            2 => (
                "hidden-bidi",
                format!(
                    "{n} bidi control{} (first U+{:04X}): the text a person reads is not the order the model reads",
                    plural(n),
                    c as u32
                ),
            ),
            _ => {
                // Each selector can carry a byte (U+FE00–FE0F: 0–15,
                // U+E0100–E01EF: 16–255): show them when they spell text.
                let bytes: Vec<u8> = hits
                    .iter()
                    .filter_map(|h| match h.1 as u32 {
                        n @ 0xFE00..=0xFE0F => u8::try_from(n - 0xFE00).ok(),
                        n @ 0xE0100..=0xE01EF => u8::try_from(n - 0xE0100 + 16).ok(),
                        _ => None,
                    })
                    .collect();
                let spelled = String::from_utf8(bytes)
                    .ok()
                    .filter(|t| t.len() >= 3 && t.chars().all(|c| c.is_ascii_graphic() || c == ' '))
                    .map(|t| format!("; as bytes they spell \"{}\"", cap(&t, 120)))
                    .unwrap_or_default();
                (
                    "hidden-variation-selector",
                    format!(
                        "{n} variation selector{} outside an emoji (first U+{:04X}): invisible, and a known way to smuggle bytes{spelled}",
                        plural(n),
                        c as u32
                    ),
                )
            }
        };
        let evidence = if k == 1 {
            // The decoded message is the evidence: show all of it we can.
            let last = hits.last().map(|h| h.0 + 4).unwrap_or(first);
            let before: String = t.text[..first]
                .chars()
                .rev()
                .take(20)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            cap(
                &format!(
                    "{}{}",
                    sanitize::one_line(&before),
                    sanitize::one_line(&t.text[first..floor(&t.text, last.min(t.text.len()))])
                ),
                160,
            )
        } else {
            evidence(&t.text, first, first + c.len_utf8())
        };
        out.push(Pending {
            rule,
            severity: Severity::High,
            field: t.field.clone(),
            message,
            evidence,
        });
    }
    // Escapes and control characters (a CR before LF is a line end).
    let bytes = t.text.as_bytes();
    if let Some((at, c)) = t.text.char_indices().find(|&(i, c)| {
        c.is_control() && c != '\n' && c != '\t' && !(c == '\r' && bytes.get(i + 1) == Some(&b'\n'))
    }) {
        let what = if c == '\u{1b}' || c == '\u{9b}' {
            "a terminal escape sequence"
        } else {
            "a control character"
        };
        out.push(Pending {
            rule: "hidden-control",
            severity: Severity::High,
            field: t.field.clone(),
            message: format!(
                "{what} (U+{:04X}): it can rewrite what a terminal shows, hiding or faking text",
                c as u32
            ),
            evidence: evidence(&t.text, at, at + c.len_utf8()),
        });
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn is_cyrillic_or_greek(c: char) -> bool {
    matches!(c, '\u{0370}'..='\u{03FF}' | '\u{0400}'..='\u{04FF}' | '\u{0500}'..='\u{052F}' | '\u{1F00}'..='\u{1FFF}')
}

/// Letters of Cyrillic and Greek that look like Latin ones.
const LOOK_ALIKES: &str = "аеорсухіјѕһԁԛԝуАВЕКМНОРСТХІЈЅοαρτνικΑΒΕΖΗΙΚΜΝΟΡΤΥΧ";

/// A name mixing Latin letters with Cyrillic or Greek ones, or written
/// only in look-alikes, in one word.
fn confusable(name: &str) -> Option<(usize, usize)> {
    let mut words: Vec<(usize, &str)> = Vec::new();
    let mut from: Option<usize> = None;
    for (i, c) in name
        .char_indices()
        .chain(std::iter::once((name.len(), ' ')))
    {
        match (c.is_alphanumeric() && i < name.len(), from) {
            (true, None) => from = Some(i),
            (false, Some(f)) => {
                words.push((f, &name[f..i]));
                from = None;
            }
            _ => {}
        }
    }
    for (at, word) in words {
        let latin = word.chars().any(|c| c.is_ascii_alphabetic());
        let other: Vec<char> = word.chars().filter(|&c| is_cyrillic_or_greek(c)).collect();
        if other.is_empty() {
            continue;
        }
        let all_alike = !latin
            && other.len() == word.chars().filter(|c| c.is_alphabetic()).count()
            && other.iter().all(|c| LOOK_ALIKES.contains(*c))
            && name.chars().any(|c| c.is_ascii_alphabetic());
        if latin || all_alike {
            return Some((at, at + word.len()));
        }
    }
    None
}

fn name_findings(def: &Def<'_>, t: &Text, out: &mut Vec<Pending>) {
    if let Some((s, e)) = confusable(&t.text) {
        let letters: Vec<String> = t.text[s..e]
            .chars()
            .filter(|&c| is_cyrillic_or_greek(c))
            .map(|c| format!("{c} U+{:04X}", c as u32))
            .collect();
        let severity = if t.role == Role::Name {
            Severity::High
        } else {
            Severity::Medium
        };
        out.push(Pending {
            rule: "confusable-name",
            severity,
            field: t.field.clone(),
            message: format!(
                "the {} \"{}\" mixes Latin with look-alike letters ({}): it poses as another name",
                if t.role == Role::Name {
                    def.kind.label()
                } else {
                    "parameter"
                },
                sanitize::one_line(&t.text),
                letters.join(", ")
            ),
            evidence: evidence(&t.text, s, e),
        });
    }
}

/// The texts of a definition, and what they say together.
struct Said {
    per_text: Vec<(usize, text::Signals)>,
    any_phrase: bool,
    any_tag: bool,
    any_secret: bool,
    any_weak_secret: bool,
    secret_sent: bool,
    secret_passed: bool,
    any_exfil: bool,
    families: BTreeSet<Family>,
}

fn said(def: &Def<'_>) -> Said {
    let mut per_text = Vec::new();
    for (i, t) in def.texts.iter().enumerate() {
        if matches!(t.role, Role::Prose | Role::Value) {
            let mut sig = text::analyse(&t.text);
            // "When this tool is called, it returns…" describes the tool
            // itself, not another one.
            let own = def.name.to_lowercase();
            sig.phrases.retain(|(family, hit)| {
                let what = hit.what.to_lowercase();
                *family != Family::OtherTool
                    || !(what.contains("this tool")
                        || what.contains("this function")
                        || (!own.is_empty() && what.contains(&own)))
            });
            per_text.push((i, sig));
        }
    }
    let any = |f: &dyn Fn(&text::Signals) -> bool| per_text.iter().any(|(_, s)| f(s));
    Said {
        any_phrase: any(&|s| !s.phrases.is_empty()),
        any_tag: any(&|s| !s.tags.is_empty()),
        any_secret: any(&|s| !s.secrets.is_empty()),
        any_weak_secret: any(&|s| !s.weak_secrets.is_empty()),
        secret_sent: any(&|s| s.secret_sent),
        secret_passed: any(&|s| s.secret_passed),
        any_exfil: any(&|s| !s.exfil.is_empty()),
        families: per_text
            .iter()
            .flat_map(|(_, s)| s.phrases.iter().map(|p| p.0))
            .collect(),
        per_text,
    }
}

fn said_findings(def: &Def<'_>, said: &Said, side_channel: bool, out: &mut Vec<Pending>) {
    for (i, sig) in &said.per_text {
        let t = &def.texts[*i];
        if let Some((_, hit)) = sig.phrases.first() {
            let high = said.any_tag
                || said.any_secret
                || said.any_exfil
                || said.families.len() >= 2
                || (said.any_weak_secret && side_channel);
            let mut why: Vec<&str> = sig.families().iter().map(|f| f.label()).collect();
            why.dedup();
            let mut also = Vec::new();
            if said.any_tag {
                also.push("inside an instruction tag block");
            }
            if said.any_secret {
                also.push("next to a secret");
            }
            if said.any_exfil {
                also.push("next to a destination for data");
            }
            out.push(Pending {
                rule: "model-instruction",
                severity: if high {
                    Severity::High
                } else {
                    Severity::Medium
                },
                field: t.field.clone(),
                message: format!(
                    "text aimed at the model, not at the person: it {}{}",
                    why.join("; "),
                    if also.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", also.join(", "))
                    }
                ),
                evidence: evidence(&t.text, hit.start, hit.end),
            });
        }
        if let Some(hit) = sig.tags.first() {
            let high = said.any_phrase || said.any_secret || said.any_exfil;
            out.push(Pending {
                rule: "instruction-tag",
                severity: if high {
                    Severity::High
                } else {
                    Severity::Medium
                },
                field: t.field.clone(),
                message: format!(
                    "a {} block: a marker of text meant for the model only{}",
                    sanitize::one_line(&hit.what),
                    if high { ", and it gives orders" } else { "" }
                ),
                evidence: evidence(&t.text, hit.start, hit.start + hit.what.len()),
            });
        }
        if let Some(hit) = sig.secrets.first() {
            let high = said.any_phrase
                || said.any_tag
                || said.any_exfil
                || said.secret_passed
                || side_channel;
            out.push(Pending {
                rule: "secret-access",
                severity: if high {
                    Severity::High
                } else {
                    Severity::Medium
                },
                field: t.field.clone(),
                message: format!(
                    "names a secret or dotfile (\"{}\"){}",
                    sanitize::one_line(&hit.what),
                    if high {
                        ", and asks for it to be read or passed on"
                    } else {
                        ": a tool rarely needs the model to read it"
                    }
                ),
                evidence: evidence(&t.text, hit.start, hit.end),
            });
        }
        if let Some(hit) = sig.exfil.first() {
            let high = said.any_phrase || said.any_tag || said.any_secret || said.secret_sent;
            out.push(Pending {
                rule: "exfiltration",
                severity: if high { Severity::High } else { Severity::Low },
                field: t.field.clone(),
                message: format!(
                    "asks for data to be sent to \"{}\"{}",
                    sanitize::one_line(&hit.what),
                    if high {
                        ", together with instructions or secrets"
                    } else {
                        ""
                    }
                ),
                evidence: evidence(&t.text, hit.start, hit.end),
            });
        }
    }
}

/// Parameter names that make a quiet side channel.
const SIDE_CHANNELS: &[&str] = &[
    "sidenote",
    "note",
    "notes",
    "notetoai",
    "notefortheai",
    "context",
    "metadata",
    "meta",
    "extra",
    "extrainfo",
    "feedback",
    "reasoning",
    "debug",
    "debuginfo",
    "comment",
    "comments",
    "memo",
    "remarks",
    "annotation",
    "hidden",
    "internal",
    "scratchpad",
    "additionalcontext",
];

fn side_channel_findings(def: &Def<'_>, said: &Said, out: &mut Vec<Pending>) -> bool {
    let description = def
        .texts
        .iter()
        .filter(|t| t.field == "description")
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = false;
    for Param {
        name,
        field,
        description: desc,
    } in &def.params
    {
        let norm: String = name
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect();
        if !SIDE_CHANNELS.contains(&norm.as_str()) {
            continue;
        }
        let in_tool = text::asks_to_fill(&description, name);
        let in_param = desc.as_deref().is_some_and(text::describes_filling);
        if !(in_tool || in_param) {
            continue;
        }
        found = true;
        let high = said.any_secret || said.any_phrase || said.any_tag || said.any_weak_secret;
        let (src_field, src) = if in_tool {
            ("description".to_string(), description.as_str())
        } else {
            (field.clone(), desc.as_deref().unwrap_or(""))
        };
        let lower = src.to_ascii_lowercase();
        let evidence = match lower.find(&name.to_ascii_lowercase()) {
            Some(at) => evidence(src, at, (at + name.len()).min(src.len())),
            // The parameter's own description asks: name it, then the ask.
            None => cap(
                &format!("{}: {}", sanitize::one_line(name), sanitize::one_line(src)),
                160,
            ),
        };
        out.push(Pending {
            rule: "side-channel-parameter",
            severity: if high { Severity::High } else { Severity::Low },
            field: src_field,
            message: format!(
                "the free-text parameter \"{}\" is named like a side channel and the description asks to fill it with other data{}",
                sanitize::one_line(name),
                if high {
                    " (secrets or instructions): data leaves through it"
                } else {
                    ""
                }
            ),
            evidence,
        });
    }
    found
}

/// Words of a tool name that sound destructive.
const DESTRUCTIVE: &[&str] = &[
    "delete",
    "remove",
    "rm",
    "drop",
    "destroy",
    "erase",
    "wipe",
    "purge",
    "truncate",
    "kill",
    "terminate",
    "exec",
    "execute",
    "send",
    "pay",
    "transfer",
    "purchase",
    "buy",
    "withdraw",
    "overwrite",
    "revoke",
    "uninstall",
    "shutdown",
];

fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn destructive_findings(tool: &Tool, out: &mut Vec<Pending>) {
    let words = name_words(&tool.name);
    let Some(word) = words.iter().find(|w| DESTRUCTIVE.contains(&w.as_str())) else {
        return;
    };
    let hint = |k: &str| {
        tool.annotations
            .as_ref()
            .and_then(|a| a.get(k))
            .and_then(Value::as_bool)
    };
    let (severity, message) = if hint("readOnlyHint") == Some(true) {
        (
            Severity::Medium,
            format!(
                "the name says \"{word}\" but the tool is annotated readOnlyHint: true: a client may run it without asking"
            ),
        )
    } else if hint("destructiveHint") == Some(false) {
        (
            Severity::Low,
            format!("the name says \"{word}\" but the tool is annotated destructiveHint: false"),
        )
    } else if hint("destructiveHint").is_none() && hint("readOnlyHint").is_none() {
        (
            Severity::Low,
            format!(
                "the name says \"{word}\" and the tool has no destructiveHint or readOnlyHint: say what it does to the world"
            ),
        )
    } else {
        return;
    };
    let ann = tool
        .annotations
        .as_ref()
        .map(compact)
        .unwrap_or_else(|| "no annotations".into());
    out.push(Pending {
        rule: "destructive-unannotated",
        severity,
        field: "annotations".into(),
        message,
        evidence: cap(&format!("{}: {ann}", sanitize::one_line(&tool.name)), 160),
    });
}

fn length_findings(def: &Def<'_>, max: usize, out: &mut Vec<Pending>) {
    for t in &def.texts {
        if t.field != "description" {
            continue;
        }
        let n = t.text.chars().count();
        if n > max {
            let tail: String = t.text.chars().skip(max).take(60).collect();
            out.push(Pending {
                rule: "description-too-long",
                severity: Severity::Low,
                field: t.field.clone(),
                message: format!(
                    "the description has {n} characters, over the limit of {max}: long text is where instructions hide, and it costs context"
                ),
                evidence: cap(&format!("…{}", sanitize::one_line(&tail)), 160),
            });
        }
    }
}

fn tool_def<'a>(t: &'a Tool, findings: &mut Vec<Pending>) -> Def<'a> {
    let mut d = Def {
        kind: Kind::Tool,
        name: t.name.clone(),
        texts: Vec::new(),
        tool: Some(t),
        params: Vec::new(),
    };
    d.push("name", &t.name, Role::Name);
    if let Some(s) = &t.title {
        d.push("title", s, Role::Prose);
    }
    if let Some(s) = &t.description {
        d.push("description", s, Role::Prose);
    }
    if let Some(a) = &t.annotations {
        d.push_opt("annotations.title", a.get("title"), Role::Prose);
    }
    if let Some(s) = &t.input_schema {
        walk_schema(&mut d, "inputSchema", s, 0, findings);
    }
    if let Some(s) = &t.output_schema {
        walk_schema(&mut d, "outputSchema", s, 0, findings);
    }
    d
}

fn value_def<'a>(kind: Kind, v: &Value) -> Def<'a> {
    let name_key = match kind {
        Kind::Resource => "uri",
        Kind::Template => "uriTemplate",
        _ => "name",
    };
    let name = v
        .get("name")
        .and_then(Value::as_str)
        .filter(|_| kind == Kind::Prompt)
        .or_else(|| v.get(name_key).and_then(Value::as_str))
        .unwrap_or("")
        .to_string();
    let mut d = Def {
        kind,
        name,
        texts: Vec::new(),
        tool: None,
        params: Vec::new(),
    };
    match kind {
        Kind::Prompt => d.push_opt("name", v.get("name"), Role::Name),
        _ => {
            d.push_opt(name_key, v.get(name_key), Role::Value);
            d.push_opt("name", v.get("name"), Role::Prose);
        }
    }
    d.push_opt("title", v.get("title"), Role::Prose);
    d.push_opt("description", v.get("description"), Role::Prose);
    if let Some(args) = v.get("arguments").and_then(Value::as_array) {
        for (i, a) in args.iter().enumerate() {
            let arg = a.get("name").and_then(Value::as_str).unwrap_or("");
            let field = format!("arguments[{i}]");
            d.push_opt(&format!("{field}.name"), a.get("name"), Role::ParamName);
            d.push_opt(&format!("{field}.title"), a.get("title"), Role::Prose);
            d.push_opt(
                &format!("{field}.description"),
                a.get("description"),
                Role::Prose,
            );
            d.params.push(Param {
                name: arg.to_string(),
                field: format!("{field}.description"),
                description: a
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            });
        }
    }
    d
}

fn lint_def(def: &Def<'_>, mut pending: Vec<Pending>, options: &Options) -> Vec<Pending> {
    for t in &def.texts {
        hidden_findings(t, &mut pending);
        if matches!(t.role, Role::Name | Role::ParamName) {
            name_findings(def, t, &mut pending);
        }
    }
    let said = said(def);
    let mut side = Vec::new();
    let side_channel = side_channel_findings(def, &said, &mut side);
    said_findings(def, &said, side_channel, &mut pending);
    pending.extend(side);
    if let Some(tool) = def.tool {
        destructive_findings(tool, &mut pending);
    }
    if def.kind != Kind::Server {
        length_findings(
            def,
            options.max_description.unwrap_or(DEFAULT_MAX_DESCRIPTION),
            &mut pending,
        );
    }
    pending
}

fn finish(
    server: &str,
    def: &Def<'_>,
    pending: Vec<Pending>,
    options: &Options,
    out: &mut Vec<Finding>,
) {
    for p in pending {
        let f = Finding {
            server: server.to_string(),
            kind: def.kind,
            name: def.name.clone(),
            rule: p.rule,
            severity: p.severity,
            message: p.message,
            evidence: p.evidence,
            field: p.field,
        };
        if !options.allows(&f) {
            out.push(f);
        }
    }
}

/// Lint everything one server shows the model.
pub fn lint_server(
    server: &str,
    lists: &Lists,
    instructions: Option<&str>,
    options: &Options,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(i) = instructions {
        let mut def = Def {
            kind: Kind::Server,
            name: server.to_string(),
            texts: Vec::new(),
            tool: None,
            params: Vec::new(),
        };
        def.push("instructions", i, Role::Prose);
        let pending = lint_def(&def, Vec::new(), options);
        finish(server, &def, pending, options, &mut out);
    }
    for t in &lists.tools {
        let mut pending = Vec::new();
        let def = tool_def(t, &mut pending);
        let pending = lint_def(&def, pending, options);
        finish(server, &def, pending, options, &mut out);
    }
    for (kind, list) in [
        (Kind::Prompt, &lists.prompts),
        (Kind::Resource, &lists.resources),
        (Kind::Template, &lists.templates),
    ] {
        for v in list {
            let def = value_def(kind, v);
            let pending = lint_def(&def, Vec::new(), options);
            finish(server, &def, pending, options, &mut out);
        }
    }
    sort(&mut out);
    out
}

/// High first, then by kind, name, field, rule.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (
            a.kind,
            &a.name,
            std::cmp::Reverse(a.severity),
            &a.field,
            a.rule,
        )
            .cmp(&(
                b.kind,
                &b.name,
                std::cmp::Reverse(b.severity),
                &b.field,
                b.rule,
            ))
    });
}

/// Whether a tool name is distinctive enough that finding it in another
/// server's text means that text is about it: it has a separator or an
/// inner capital and is not too short.
fn distinctive(name: &str) -> bool {
    name.chars().count() >= 5
        && (name.contains(['_', '-', '.']) || name.chars().skip(1).any(|c| c.is_uppercase()))
}

/// Where `name` occurs in `text` as a whole word.
fn find_word(text: &str, name: &str) -> Option<usize> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let mut from = 0;
    while let Some(i) = text.get(from..).and_then(|r| r.find(name)) {
        let at = from + i;
        let end = at + name.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        if before.is_none_or(|c| !is_word(c)) && after.is_none_or(|c| !is_word(c)) {
            return Some(at);
        }
        from = end;
    }
    None
}

/// The places in `text` where a word may be a tool's name: the maximal
/// runs of name characters (letters, digits, `_`, `-`, `.`), a sentence's
/// full stop trimmed, and every `.`-separated part of a dotted run
/// (`a.files.read` holds `files.read` and `read`). In text order.
fn name_candidates(text: &str) -> Vec<(usize, &str)> {
    let is_name = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    let mut out = Vec::new();
    let mut run_start = None;
    fn push_run<'a>(text: &'a str, start: usize, end: usize, out: &mut Vec<(usize, &'a str)>) {
        let raw = &text[start..end];
        let lead = raw.len() - raw.trim_start_matches('.').len();
        let run = raw.trim_start_matches('.').trim_end_matches('.');
        let start = start + lead;
        if run.is_empty() {
            return;
        }
        let dots: Vec<usize> = run.match_indices('.').map(|(i, _)| i).collect();
        if dots.is_empty() || dots.len() > 8 {
            out.push((start, run));
            return;
        }
        // Every span between two cuts (the ends and the dots).
        let mut cuts = vec![0];
        cuts.extend(dots.iter().copied());
        cuts.push(run.len());
        for x in 0..cuts.len() {
            for y in x + 1..cuts.len() {
                let from = if x == 0 { 0 } else { cuts[x] + 1 };
                if from < cuts[y] {
                    out.push((start + from, &run[from..cuts[y]]));
                }
            }
        }
    }
    for (i, c) in text.char_indices() {
        match (is_name(c), run_start) {
            (true, None) => run_start = Some(i),
            (false, Some(st)) => {
                push_run(text, st, i, &mut out);
                run_start = None;
            }
            _ => {}
        }
    }
    if let Some(st) = run_start {
        push_run(text, st, text.len(), &mut out);
    }
    out
}

/// Rules across servers: a description naming another server's tool, and
/// the same tool name on two servers (shadowing).
///
/// Linear in the text and the tools: every name is looked up in one index
/// of all servers' tool names, so thousands of tools on many servers stay
/// fast (the TUI runs this whenever a list arrives).
pub fn cross_server(servers: &[(&str, &Lists)]) -> Vec<Finding> {
    use std::collections::HashMap;
    // Tool name -> the servers that have it.
    let mut owners: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, (_, lists)) in servers.iter().enumerate() {
        for t in &lists.tools {
            let v = owners.entry(t.name.as_str()).or_default();
            if v.last() != Some(&j) {
                v.push(j);
            }
        }
    }
    // Distinctive names that no word scan can find (a space, a slash…):
    // looked for one by one, as before.
    let odd: Vec<&str> = owners
        .keys()
        .copied()
        .filter(|n| {
            distinctive(n)
                && n.contains(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        })
        .collect();
    let mut out = Vec::new();
    for (i, (server, lists)) in servers.iter().enumerate() {
        for tool in &lists.tools {
            let texts: Vec<(&str, &str)> =
                [("title", &tool.title), ("description", &tool.description)]
                    .into_iter()
                    .filter_map(|(f, s)| s.as_deref().map(|s| (f, s)))
                    .collect();
            // Only asked when the name is shadowed (analysing every text
            // would cost more than the rest of this function).
            let instructs = || {
                texts
                    .iter()
                    .any(|(_, s)| !text::analyse(s).phrases.is_empty())
            };
            let mut instructs_memo: Option<bool> = None;
            // Shadowing: the same name on another server.
            for &j in owners.get(tool.name.as_str()).into_iter().flatten() {
                if j == i {
                    continue;
                }
                let other = servers[j].0;
                let names_other = texts.iter().any(|(_, s)| find_word(s, other).is_some());
                let high = names_other || *instructs_memo.get_or_insert_with(instructs);
                out.push(Finding {
                    server: server.to_string(),
                    kind: Kind::Tool,
                    name: tool.name.clone(),
                    rule: "tool-shadowing",
                    severity: if high { Severity::High } else { Severity::Medium },
                    message: format!(
                        "the server \"{}\" has a tool of the same name: the model may call the wrong one{}",
                        sanitize::one_line(other),
                        if high {
                            ", and this description gives the model instructions"
                        } else {
                            ""
                        }
                    ),
                    evidence: cap(
                        &format!(
                            "{}: {} and {}: {}",
                            sanitize::one_line(server),
                            sanitize::one_line(&tool.name),
                            sanitize::one_line(other),
                            sanitize::one_line(&tool.name)
                        ),
                        160,
                    ),
                    field: "name".into(),
                });
            }
            // Reach: a text naming another server's tool (the first place
            // each name is found, title before description).
            let mut seen: Vec<&str> = Vec::new();
            for (field, s) in &texts {
                let mut hits: Vec<(usize, &str)> = name_candidates(s)
                    .into_iter()
                    .filter_map(|(at, w)| owners.get_key_value(w).map(|(k, _)| (at, *k)))
                    .collect();
                hits.extend(
                    odd.iter()
                        .filter_map(|n| find_word(s, n).map(|at| (at, *n))),
                );
                for (at, name) in hits {
                    if name == tool.name || !distinctive(name) || seen.contains(&name) {
                        continue;
                    }
                    seen.push(name);
                    for &j in &owners[name] {
                        if j == i {
                            continue;
                        }
                        out.push(Finding {
                            server: server.to_string(),
                            kind: Kind::Tool,
                            name: tool.name.clone(),
                            rule: "cross-server-reference",
                            severity: Severity::High,
                            message: format!(
                                "names \"{}\", a tool of the server \"{}\": a tool's description has no business steering another server's tool",
                                sanitize::one_line(name),
                                sanitize::one_line(servers[j].0)
                            ),
                            evidence: evidence(s, at, at + name.len()),
                            field: (*field).into(),
                        });
                    }
                }
            }
        }
    }
    sort(&mut out);
    out.dedup();
    out
}

#[cfg(test)]
mod tests;
