//! The lint rules: everything a server shows the model, checked locally.
//!
//! Each definition (tool, prompt, resource, template, and the server's
//! `instructions`) is flattened into its texts, each with the field it
//! came from (`description`, `inputSchema.properties.path.default`, …) and
//! a role (a name, prose, or a value). Every text is checked for hidden
//! characters; names for look-alike letters; prose and values for what
//! they say to the model ([`text`]). The severity of what is said depends
//! on the whole definition: a phrase alone is medium, a phrase with an
//! `<IMPORTANT>` block, a secret, a destination, compliance pressure or a
//! phrase of another family is high; pressure alone is nothing.
//!
//! [`RULES`] lists every rule; the table in docs/trust.md ("Lint") documents
//! them.

mod cross;
mod hidden;
mod rules;
mod source;
mod text;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{Finding, Kind, Severity};
use crate::mcp::session::Lists;
use crate::mcp::types::Tool;
use crate::sanitize::{self, Hidden};

pub use cross::{Peer, cross_peers, cross_server};
pub use rules::{DEFAULT_MAX_DESCRIPTION, Options, RULES, Rule, is_rule, rule_ids};
pub use source::source_key;
pub use text::{Family, PHRASES, SECRETS, TAGS, WEAK_SECRETS};

use hidden::*;

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
        any_phrase: any(&|s| s.instructs()),
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

/// A signal's severity: high when the rest of the definition raises it.
fn raised(high: bool) -> Severity {
    if high {
        Severity::High
    } else {
        Severity::Medium
    }
}

fn said_findings(def: &Def<'_>, said: &Said, side_channel: bool, out: &mut Vec<Pending>) {
    let pressure = said.families.contains(&Family::Pressure);
    let orders = said
        .families
        .iter()
        .filter(|f| **f != Family::Pressure)
        .count();
    for (i, sig) in &said.per_text {
        let t = &def.texts[*i];
        // Pressure alone is no instruction: it raises one.
        if let Some((_, hit)) = sig
            .phrases
            .iter()
            .find(|p| p.0 != Family::Pressure)
            .filter(|_| orders > 0)
        {
            let high = said.any_tag
                || said.any_secret
                || said.any_exfil
                || orders >= 2
                || pressure
                || (said.any_weak_secret && side_channel);
            let mut why: Vec<&str> = sig.families().iter().map(|f| f.label()).collect();
            why.dedup();
            let mut also = Vec::new();
            if pressure && !sig.families().contains(&Family::Pressure) {
                also.push("pressed with compliance or policy");
            }
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
                severity: raised(high),
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
                severity: raised(high),
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
                severity: raised(high),
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

#[cfg(test)]
mod tests;
