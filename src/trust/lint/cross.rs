//! The rules across servers: a text naming another server's tool, and
//! the same tool name on two servers (shadowing). Names are looked up in
//! one index of every server's tool names.

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
