//! The rules across servers: a text naming another server's tool, and
//! the same tool name on two servers (shadowing). Names are looked up in
//! one index of every server's tool names. Two servers of one source
//! ([`super::source_key`]) are one server configured twice; servers of one
//! group (the demo's) are not checked against each other.

use super::*;

/// Whether a tool name is distinctive enough that finding it in another
/// server's text means that text is about it: it has a separator or an
/// inner capital and is not too short.
pub(super) fn distinctive(name: &str) -> bool {
    name.chars().count() >= 5
        && (name.contains(['_', '-', '.']) || name.chars().skip(1).any(|c| c.is_uppercase()))
}

/// Where `name` occurs in `text` as a whole word.
pub(super) fn find_word(text: &str, name: &str) -> Option<usize> {
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
pub(super) fn name_candidates(text: &str) -> Vec<(usize, &str)> {
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

/// One server, for the rules across servers.
#[derive(Debug, Clone, Copy)]
pub struct Peer<'a> {
    pub name: &'a str,
    pub lists: &'a Lists,
    /// Where its definitions come from ([`super::source_key`]): two servers
    /// of one source are one server configured twice, and identical
    /// definitions of theirs shadow nothing. `None`: a source of its own.
    pub source: Option<&'a str>,
    /// Servers of one group are not checked against each other at all
    /// (the built-in demo's: one binary and the test servers, side by
    /// side on purpose). `None`: no group.
    pub group: Option<&'a str>,
}

impl<'a> Peer<'a> {
    /// A server with a source of its own and no group.
    pub fn new(name: &'a str, lists: &'a Lists) -> Peer<'a> {
        Peer {
            name,
            lists,
            source: None,
            group: None,
        }
    }
}

/// Whether two tools are the same definition: name, title, description,
/// schemas and annotations.
fn same_definition(a: &Tool, b: &Tool) -> bool {
    a.name == b.name
        && a.title == b.title
        && a.description == b.description
        && a.input_schema == b.input_schema
        && a.output_schema == b.output_schema
        && a.annotations == b.annotations
}

/// Rules across servers, each server with a source of its own
/// ([`cross_peers`]).
pub fn cross_server(servers: &[(&str, &Lists)]) -> Vec<Finding> {
    let peers: Vec<Peer> = servers.iter().map(|(n, l)| Peer::new(n, l)).collect();
    cross_peers(&peers)
}

/// Rules across servers: a description naming another server's tool, and
/// the same tool name on two servers (shadowing). Servers of one group
/// are not checked against each other; two of one source (twins) shadow
/// each other only where their definitions differ, and then it is a low
/// note (two versions of one server), and they do not reach for each
/// other's tools.
///
/// Linear in the text and the tools: every name is looked up in one index
/// of all servers' tool names, so thousands of tools on many servers stay
/// fast (the TUI runs this whenever a list arrives).
pub fn cross_peers(servers: &[Peer<'_>]) -> Vec<Finding> {
    use std::collections::HashMap;
    // Tool name -> the servers that have it.
    let mut owners: HashMap<&str, Vec<usize>> = HashMap::new();
    // Each server's tools by name.
    let mut by_name: Vec<HashMap<&str, &Tool>> = Vec::with_capacity(servers.len());
    for (j, peer) in servers.iter().enumerate() {
        let mut mine = HashMap::new();
        for t in &peer.lists.tools {
            let v = owners.entry(t.name.as_str()).or_default();
            if v.last() != Some(&j) {
                v.push(j);
            }
            mine.entry(t.name.as_str()).or_insert(t);
        }
        by_name.push(mine);
    }
    let apart =
        |i: usize, j: usize| servers[i].group.is_some() && servers[i].group == servers[j].group;
    let twins =
        |i: usize, j: usize| servers[i].source.is_some() && servers[i].source == servers[j].source;
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
    for (i, peer) in servers.iter().enumerate() {
        let server = peer.name;
        for tool in &peer.lists.tools {
            let texts: Vec<(&str, &str)> =
                [("title", &tool.title), ("description", &tool.description)]
                    .into_iter()
                    .filter_map(|(f, s)| s.as_deref().map(|s| (f, s)))
                    .collect();
            // Only asked when the name is shadowed (analysing every text
            // would cost more than the rest of this function).
            let instructs = || texts.iter().any(|(_, s)| text::analyse(s).instructs());
            let mut instructs_memo: Option<bool> = None;
            // Shadowing: the same name on another server.
            for &j in owners.get(tool.name.as_str()).into_iter().flatten() {
                if j == i || apart(i, j) {
                    continue;
                }
                let other = servers[j].name;
                // Both names, as the finding's evidence.
                let evidence = cap(
                    &format!(
                        "{}: {} and {}: {}",
                        sanitize::one_line(server),
                        sanitize::one_line(&tool.name),
                        sanitize::one_line(other),
                        sanitize::one_line(&tool.name)
                    ),
                    160,
                );
                if twins(i, j) {
                    let theirs = by_name[j].get(tool.name.as_str());
                    if theirs.is_none_or(|t| same_definition(tool, t)) {
                        continue;
                    }
                    out.push(Finding {
                        server: server.to_string(),
                        kind: Kind::Tool,
                        name: tool.name.clone(),
                        rule: "tool-shadowing",
                        severity: Severity::Low,
                        message: format!(
                            "the server \"{}\" runs the same command, package or URL and defines this tool differently: two versions of one server? The model sees both",
                            sanitize::one_line(other)
                        ),
                        evidence,
                        field: "name".into(),
                    });
                    continue;
                }
                // Naming the other server counts only for a name of 5
                // characters or more, or a distinctive one (a server called
                // `time` is named by every text about time), and where the
                // definitions differ: one text, the
                // same on both sides, cannot steer toward one of them, and
                // the two sides of a pair must not disagree.
                let identical = by_name[j]
                    .get(tool.name.as_str())
                    .is_some_and(|t| same_definition(tool, t));
                let names_other = !identical
                    && (distinctive(other) || other.chars().count() >= 5)
                    && texts.iter().any(|(_, s)| find_word(s, other).is_some());
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
                    evidence,
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
                        if j == i || apart(i, j) || twins(i, j) {
                            continue;
                        }
                        // The other server says the very same thing (this
                        // tool, identical, is one of its own): the text is
                        // one server's, about its own tools (two
                        // filesystem servers: "Use read_text_file
                        // instead"), not a reach from one to the other.
                        if by_name[j]
                            .get(tool.name.as_str())
                            .is_some_and(|t| same_definition(tool, t))
                        {
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
                                sanitize::one_line(servers[j].name)
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
