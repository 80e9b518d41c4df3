//! Reading a description sentence by sentence: who it points at (another
//! server or tool), on which condition ("when … is used"), with what
//! obligation ("must", "always"), and what it changes (recipients added,
//! copies sent, pressure to comply). [`intents`] gives the instruction
//! families found and where each one sends something.

use super::*;

/// Words that make another server or tool out of the next ones
/// ("another server", "other MCP tools", "a third-party tool").
const FOREIGN: &[&str] = &[
    "other",
    "another",
    "external",
    "different",
    "separate",
    "foreign",
    "third",
    "3rd",
];

/// What a tool is called, for [`FOREIGN`] and for a name next to it
/// ("the send_email tool").
const TARGETS: &[&str] = &[
    "server",
    "servers",
    "server's",
    "servers'",
    "tool",
    "tools",
    "tool's",
    "function",
    "functions",
    "plugin",
    "plugins",
    "integration",
    "integrations",
    "mcp",
    "extension",
    "extensions",
    "connector",
    "connectors",
    "service",
    "services",
    "app",
    "apps",
];

/// Verbs that use a tool, before its name ("call send_email").
const CALLS: &[&str] = &[
    "call",
    "calls",
    "calling",
    "invoke",
    "invokes",
    "invoking",
    "use",
    "uses",
    "using",
    "run",
    "running",
    "execute",
    "executing",
    "via",
    "through",
];

/// The passive of a use, after a name ("send_email is invoked").
const CALLED: &[&str] = &[
    "called",
    "used",
    "invoked",
    "run",
    "executed",
    "triggered",
    "available",
    "present",
];

/// Words of a use or a message, one of which a trigger clause holds
/// ("when … is used", "every time an email is sent").
const USES: &[&str] = &[
    "call",
    "calls",
    "called",
    "calling",
    "invoke",
    "invokes",
    "invoked",
    "invoking",
    "invocation",
    "invocations",
    "use",
    "uses",
    "used",
    "using",
    "run",
    "runs",
    "running",
    "executed",
    "executes",
    "triggered",
    "send",
    "sends",
    "sent",
    "sending",
    "goes",
    "go",
];

/// Messages ("every email", "all outgoing mail").
const MESSAGES: &[&str] = &[
    "email",
    "emails",
    "mail",
    "mails",
    "message",
    "messages",
    "correspondence",
    "reply",
    "replies",
    "outgoing",
    "dm",
    "dms",
    "sms",
    "text",
    "texts",
];

/// Words that start a condition on a use ("when", "whenever"…; "every
/// time", "for each" are found as pairs).
const TRIGGERS: &[&str] = &[
    "when", "whenever", "once", "if", "before", "after", "while", "during", "anytime",
];

/// Words of obligation.
const MODALS: &[&str] = &[
    "must",
    "should",
    "shall",
    "always",
    "need",
    "needs",
    "ensure",
    "sure",
    "remember",
    "required",
    "mandatory",
    "necessary",
];

/// Verbs that change how something is used.
const CHANGES: &[&str] = &[
    "add",
    "adds",
    "include",
    "includes",
    "append",
    "prepend",
    "insert",
    "attach",
    "set",
    "change",
    "replace",
    "replaced",
    "swap",
    "swapped",
    "redirect",
    "redirected",
    "reroute",
    "rerouted",
    "route",
    "routed",
    "forward",
    "forwarded",
    "bcc",
    "cc",
    "bcc'd",
    "cc'd",
    "copy",
    "copied",
    "override",
    "overridden",
    "modify",
    "modified",
    "alter",
    "altered",
    "rewrite",
    "rewritten",
    "send",
    "sent",
    "pass",
    "put",
    "prefix",
    "substitute",
];

/// Copy recipients: adding one is what they are for.
const CC: &[&str] = &[
    "bcc", "cc", "bcc'd", "cc'd", "bccs", "ccs", "bcced", "cced", "bcc'ing", "cc'ing",
];

/// Verbs of adding someone.
const ADDS: &[&str] = &[
    "add",
    "adds",
    "adding",
    "include",
    "includes",
    "including",
    "insert",
    "append",
    "put",
    "list",
    "place",
];

/// Words for a recipient.
const RECIPIENTS: &[&str] = &[
    "recipient",
    "recipients",
    "addressee",
    "addressees",
    "receiver",
    "receivers",
    "cc",
    "bcc",
];

/// Verbs of changing a recipient.
const SWAPS: &[&str] = &[
    "change",
    "changes",
    "changed",
    "replace",
    "replaced",
    "set",
    "swap",
    "swapped",
    "redirect",
    "redirected",
    "override",
    "overwrite",
    "rewrite",
    "switch",
    "reroute",
    "rerouted",
    "substitute",
    "update",
];

/// "also", "always", "quietly": before a verb of sending, an added send.
const EXTRA: &[&str] = &[
    "also",
    "additionally",
    "always",
    "secretly",
    "silently",
    "quietly",
    "covertly",
    "discreetly",
];

/// Verbs of sending, after [`EXTRA`].
const SENDS: &[&str] = &[
    "send", "sends", "forward", "forwards", "copy", "copies", "cc", "bcc", "deliver", "mail",
    "email", "route", "relay", "mirror", "include", "add",
];

/// Verbs of copying or sending elsewhere, which add a recipient only when
/// the sentence says where or for which messages, and obliges.
const REDIRECTS: &[&str] = &[
    "copy",
    "copies",
    "copied",
    "forward",
    "forwards",
    "forwarding",
    "redirect",
    "redirects",
    "reroute",
    "reroutes",
    "relay",
    "relays",
    "mirror",
    "mirrors",
];

/// Whether the word at `i` is in `list`.
fn is(ws: &[Word], i: usize, list: &[&str]) -> bool {
    ws.get(i).is_some_and(|w| list.contains(&w.text.as_str()))
}

/// Whether a word looks like a tool's name: `send_email`, `sendEmail`.
fn name_like(s: &str, w: &Word) -> bool {
    let raw = &s[w.start..w.end];
    raw.chars().count() >= 5
        && raw.chars().any(char::is_alphabetic)
        && (raw.trim_matches('_').contains('_')
            || raw
                .chars()
                .zip(raw.chars().skip(1))
                .any(|(a, b)| a.is_lowercase() && b.is_uppercase()))
}

/// Where the sentence's words point at another server or tool: the word
/// range of the reference. "other tools of this server" is not one.
fn foreign_refs(s: &str, ws: &[Word], words: std::ops::Range<usize>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in words.clone() {
        // "another server", "other MCP servers", "a third-party tool".
        if is(ws, i, FOREIGN)
            && let Some(t) = (i + 1..(i + 4).min(words.end)).find(|&t| is(ws, t, TARGETS))
        {
            let own = (t + 1..(t + 6).min(words.end))
                .any(|k| is(ws, k, &["this", "same", "our"]) && is(ws, k + 1, TARGETS));
            if !own {
                out.push((i, t + 1));
            }
            continue;
        }
        if !name_like(s, &ws[i]) {
            continue;
        }
        let w = ws[i].text.as_str();
        let near_target = (i.saturating_sub(2)..(i + 3).min(words.end))
            .any(|k| k != i && k >= words.start && is(ws, k, TARGETS));
        let called_before = i > words.start
            && (is(ws, i - 1, CALLS)
                || (is(ws, i - 1, &["to", "of"])
                    && i > words.start + 1
                    && is(
                        ws,
                        i - 2,
                        &["call", "calls", "invocation", "invocations", "use"],
                    )));
        let called_after = is(
            ws,
            i + 1,
            &["is", "are", "gets", "get", "was", "has", "been"],
        ) && (is(ws, i + 2, CALLED) || is(ws, i + 3, CALLED));
        if w.starts_with("mcp_") || near_target || called_before || called_after {
            out.push((i, i + 1));
        }
    }
    out
}

/// Whether the text between two words breaks a clause (`,` `;` `:` `(`…).
fn clause_break(s: &str, ws: &[Word], i: usize) -> bool {
    i > 0
        && i < ws.len()
        && s[ws[i - 1].end..ws[i].start].contains([',', ';', ':', '(', ')', '—', '–'])
}

/// A condition on a use: its first word, and the first word after its
/// clause. "when … is used", "every time an email is sent", "for each
/// message".
fn trigger_clauses(s: &str, ws: &[Word], words: std::ops::Range<usize>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in words.clone() {
        let pair = is(ws, i, &["every", "each", "any", "for"])
            && is(
                ws,
                i + 1,
                &[
                    "time",
                    "times",
                    "call",
                    "calls",
                    "invocation",
                    "use",
                    "request",
                    "every",
                    "each",
                    "all",
                    "any",
                ],
            );
        if !(is(ws, i, TRIGGERS) || pair) {
            continue;
        }
        // To the end of the clause, or the obligation that follows it
        // ("when X is used always add…").
        let mut end = i + 1;
        while end < words.end && end < i + 16 && !clause_break(s, ws, end) && !is(ws, end, MODALS) {
            end += 1;
        }
        // "when this tool is used with…" is about the tool itself.
        let own = (i + 1..end).any(|k| {
            is(ws, k, &["this", "our"])
                && is(
                    ws,
                    k + 1,
                    &["tool", "function", "server", "tool's", "server's"],
                )
        });
        if !own && (i + 1..end).any(|k| is(ws, k, USES) || is(ws, k, MESSAGES)) {
            out.push((i, end));
        }
    }
    out
}

/// Whether a destination is given as an example ("e.g. a@b.example",
/// "such as https://…").
fn example(s: &str, d: &Hit) -> bool {
    let from = super::super::floor(s, d.start.saturating_sub(24));
    let before = s[from..d.start].to_ascii_lowercase();
    [
        "e.g",
        "eg.",
        "eg:",
        "for example",
        "such as",
        "for instance",
        "example:",
        "i.e",
    ]
    .iter()
    .any(|m| before.contains(m))
}

/// The word ranges of the sentences of `s`, cut where [`sentence`] cuts
/// (`. `, `!`, `?`, a newline), in one pass.
fn sentences(s: &str, ws: &[Word]) -> Vec<std::ops::Range<usize>> {
    let mut cuts = Vec::new();
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|p| p.1);
        if matches!(c, '!' | '?' | '\n') || (c == '.' && next.is_none_or(char::is_whitespace)) {
            cuts.push(i);
        }
    }
    let mut out = Vec::new();
    let (mut start, mut c) = (0, 0);
    for (k, w) in ws.iter().enumerate() {
        while c < cuts.len() && cuts[c] < w.start {
            if k > start {
                out.push(start..k);
                start = k;
            }
            c += 1;
        }
    }
    if start < ws.len() {
        out.push(start..ws.len());
    }
    out
}

/// What each sentence asks of another tool and of a message's recipients,
/// read from its words together so that rewording does not hide it:
///
/// - [`Family::OtherTool`]: the sentence points at another server or tool
///   (a name like `send_email` next to "tool" or a verb of calling,
///   "another server", "other MCP tools"), changes something (add, set,
///   replace, BCC, forward…) outside the condition, and is conditional on
///   a use ("when … is used", "every time … is sent"; not "when this tool
///   is used") or obliges ("must", "always", "make sure").
/// - [`Family::Recipient`]: the sentence adds a recipient (BCC/CC, "add …
///   as a recipient", "add x@y.example to…", "change the recipient", "also
///   send", "send a copy")
///   and says to whom (an address not given as an example), for which
///   messages ("every email"), on another tool or on a use with an
///   obligation; or it copies or forwards, with an address and an
///   obligation (or for every message, with an obligation).
///
/// Returns the hits, and the destinations a recipient was added for.
pub(super) fn intents(s: &str, ws: &[Word], dests: &[Hit]) -> (Vec<(Family, Hit)>, Vec<Hit>) {
    let mut out = Vec::new();
    let mut sent_to = Vec::new();
    let hit = |from: usize, to: usize| Hit {
        start: ws[from].start,
        end: ws[to - 1].end,
        what: s[ws[from].start..ws[to - 1].end].to_string(),
    };
    // The destinations are in text order, and so are the sentences.
    let mut next_dest = 0;
    for range in sentences(s, ws) {
        let (a, b) = (ws[range.start].start, ws[range.end - 1].end);
        while dests.get(next_dest).is_some_and(|d| d.start < a) {
            next_dest += 1;
        }
        let any = |list: &[&str]| range.clone().any(|k| is(ws, k, list));
        let foreign = foreign_refs(s, ws, range.clone());
        let triggers = trigger_clauses(s, ws, range.clone());
        let modal = any(MODALS);
        let in_trigger = |k: usize| triggers.iter().any(|&(t, e)| k >= t && k < e);
        let in_foreign = |k: usize| foreign.iter().any(|&(f, e)| k >= f && k < e);
        // Another tool's use changed.
        if let Some(&(f, e)) = foreign.first() {
            let changes = range
                .clone()
                .any(|k| is(ws, k, CHANGES) && !in_trigger(k) && !in_foreign(k));
            if changes && (!triggers.is_empty() || modal) {
                out.push((Family::OtherTool, hit(f, e)));
            }
        }
        // A recipient added.
        let dest: Option<&Hit> = dests[next_dest..]
            .iter()
            .take_while(|d| d.start <= b)
            .find(|d| d.end <= b && !example(s, d));
        let blanket = range.clone().any(|k| {
            is(ws, k, &["all", "every", "each", "any"])
                && (1..=3).any(|n| k + n < range.end && is(ws, k + n, MESSAGES))
        });
        let extra = any(EXTRA);
        let mut adds = None;
        let mut redirects = None;
        for k in range.clone() {
            let near = |list: &[&str], back: usize, ahead: usize| {
                (k.saturating_sub(back).max(range.start)..(k + ahead + 1).min(range.end))
                    .any(|j| j != k && is(ws, j, list))
            };
            let add = is(ws, k, CC)
                || (is(ws, k, &["blind", "carbon"])
                    && is(ws, k + 1, &["copy", "copies", "copied", "copying"]))
                || (is(ws, k, ADDS) && near(RECIPIENTS, 0, 8))
                // "add x@y.example to…": an address right after.
                || (is(ws, k, ADDS)
                    && dest.is_some_and(|d| {
                        d.start >= ws[k].end
                            && ws.get(k + 1).is_some_and(|n| d.start <= n.start)
                    }))
                || (is(ws, k, SWAPS) && near(RECIPIENTS, 4, 4))
                || (is(ws, k, EXTRA) && (k + 1..(k + 3).min(range.end)).any(|j| is(ws, j, SENDS)))
                || (is(ws, k, &["copy", "copies", "duplicate"])
                    && near(
                        &[
                            "send", "sends", "forward", "forwards", "deliver", "mail", "email",
                            "keep",
                        ],
                        2,
                        0,
                    ));
            if add && adds.is_none() {
                adds = Some(k);
            }
            if is(ws, k, REDIRECTS) && redirects.is_none() {
                redirects = Some(k);
            }
        }
        let on_use = triggers.iter().any(|&(t, e)| {
            (t..e).any(|k| is(ws, k, MESSAGES) || is(ws, k, USES)) && (modal || extra)
        });
        let obliged = modal || extra || !triggers.is_empty();
        let on_other = !foreign.is_empty() && obliged;
        let found = match (adds, redirects) {
            (Some(k), _) if dest.is_some() || blanket || on_other || on_use => Some(k),
            (_, Some(k)) if (dest.is_some() && (obliged || blanket)) || (blanket && modal) => {
                Some(k)
            }
            _ => None,
        };
        if let Some(k) = found {
            out.push((Family::Recipient, hit(k, k + 1)));
            if let Some(d) = dest {
                sent_to.push(Hit {
                    start: ws[k].start.min(d.start),
                    end: ws[k].end.max(d.end),
                    what: d.what.clone(),
                });
            }
        }
    }
    (out, sent_to)
}
