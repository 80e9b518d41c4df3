//! `mcpdeck scan [--json|--sarif] [--timeout SECS] [--jobs N]`: every MCP
//! client's servers on this machine, checked.
//!
//! 1. The files: every known client's user files and the project files of
//!    the current directory, read (never written) with the import readers,
//!    and mcpdeck's own config as the client `mcpdeck` (a broken one is
//!    reported, and the rest scanned).
//! 2. The servers: each distinct one (same transport: command, args, env
//!    and cwd, or URL and headers) connected once, however many clients
//!    list it, `--jobs` at a time, each within `--timeout`; only its lists
//!    are asked for (tools, prompts, resources, templates), no tool is
//!    called, and it is stopped before the next one starts. A server that
//!    needs a login is reported as such: no browser opens. A server
//!    disabled in its client is not started.
//! 3. The checks: the lint rules on each server, its pins when it has any,
//!    and the cross-server rules over the servers of one client (what one
//!    client's model sees together).
//! 4. The report, per client file and server: text, `--json` or SARIF.
//!
//! Exit 1 when a high finding or a definition changed since it was pinned
//! was found, else 0; a server that could not be scanned is reported (and
//! counted in the summary) without changing the exit code.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use serde::Serialize;
use serde_json::{Value, json};

use crate::cli::exit::{Exit, Failure, Outcome, connect_failure_as};
use crate::cli::{events, output};
use crate::config::import::{self, Client, Locations};
use crate::config::{self, Config, NewServer, ServerConfig, Settings, TransportConfig};
use crate::mcp::manager::{Answers, Event, Manager, ServerStatus};
use crate::mcp::session::{ConnectError, Lists, Negotiated};
use crate::mcp::transport::stdio::Children;
use crate::sanitize;
use crate::text::fmt_duration;
use crate::trace;
use crate::trust::{Finding, Kind, Severity, lint, pin, sarif};

mod connect;
mod render;
mod sources;

use connect::*;
use render::*;
use sources::*;

#[derive(Args, Debug)]
pub struct ScanArgs {
    /// Print {"clients":[{client, path, servers:[{name, status, error?, findings, changes}]}], "summary":{…}}
    #[arg(long, conflicts_with = "sarif")]
    pub json: bool,
    /// SARIF 2.1.0, for CI code scanning
    #[arg(long)]
    pub sarif: bool,
    /// The time each server has to connect and list, in seconds
    #[arg(long, value_name = "SECS", default_value_t = 15,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
    /// How many servers are connected at once
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u64).range(1..=64))]
    pub jobs: u64,
}

/// The client name of mcpdeck's own config in the report.
pub const OWN_CLIENT: &str = "mcpdeck";

/// The rule a definition changed since it was pinned sets off (in SARIF
/// and the exit code; the report lists such changes under `changes`).
pub const PIN_RULE: &str = "changed-since-pinned";

// ----- the lint and pin engines -----

/// `[servers.NAME.lint]` of `server`.
fn lint_options(server: &ServerConfig, settings: &Settings) -> lint::Options {
    lint::Options::for_server(server, settings)
}

/// Every lint rule, for SARIF's rule list, and scan's own pin rule.
fn rules() -> Vec<sarif::RuleInfo<'static>> {
    lint::RULES
        .iter()
        .map(|r| sarif::RuleInfo {
            id: r.id,
            severity: r.severity,
            summary: r.summary,
        })
        .chain(std::iter::once(sarif::RuleInfo {
            id: PIN_RULE,
            severity: Severity::High,
            summary: "a tool, prompt, resource or template changed since it was pinned (`mcpdeck pin`): review it, then pin again",
        }))
        .collect()
}

/// The pins `mcpdeck pin` recorded.
struct Pins {
    store: pin::PinStore,
}

impl Pins {
    /// The pin file (none yet is no pins); `Err` (reported, the scan goes
    /// on) when it cannot be read.
    fn open() -> Result<Pins, String> {
        pin::PinStore::load_default()
            .map(|store| Pins { store })
            .map_err(|e| e.to_string())
    }

    /// What changed since `server` was pinned; `None` when it has no pins.
    fn changes(
        &self,
        server: &ServerConfig,
        negotiated: Option<&Negotiated>,
        lists: &Lists,
    ) -> Option<Vec<pin::Change>> {
        let key = pin::key_for(server);
        let pinned = self.store.get(&key)?;
        let now = pin::fingerprint(
            &server.name,
            &key,
            negotiated.map(|n| &n.server_info),
            lists,
        );
        Some(pin::compare(pinned, &now))
    }
}

// ----- the report -----

/// How a server of a client went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Scanned,
    Failed,
    NotFound,
    NeedsLogin,
    TimedOut,
    Disabled,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Scanned => "scanned",
            Status::Failed => "failed",
            Status::NotFound => "not found",
            Status::NeedsLogin => "needs login",
            Status::TimedOut => "timed out",
            Status::Disabled => "disabled",
        }
    }
}

#[derive(Debug, Clone)]
struct ServerReport {
    name: String,
    status: Status,
    error: Option<String>,
    stderr_tail: Vec<String>,
    /// The distinct server it was connected as.
    conn: Option<usize>,
    /// Tools, prompts, resources, templates.
    counts: Option<[usize; 4]>,
    findings: Vec<Finding>,
    changes: Vec<pin::Change>,
}

#[derive(Debug, Clone)]
struct ClientReport {
    client: &'static str,
    label: &'static str,
    path: PathBuf,
    error: Option<String>,
    errors: Vec<String>,
    servers: Vec<ServerReport>,
}

#[derive(Debug, Clone, Default)]
struct Report {
    clients: Vec<ClientReport>,
    /// How many distinct servers were connected.
    distinct: usize,
    /// Things that concern the whole scan (the pin file).
    notes: Vec<String>,
    /// The files looked for (for the message when none was found).
    looked: Vec<PathBuf>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Summary {
    clients: usize,
    servers: usize,
    distinct: usize,
    scanned: usize,
    failed: usize,
    not_found: usize,
    needs_login: usize,
    timed_out: usize,
    disabled: usize,
    high: usize,
    medium: usize,
    low: usize,
    changed: usize,
}

impl Report {
    fn summary(&self) -> Summary {
        let mut s = Summary {
            clients: self.clients.len(),
            distinct: self.distinct,
            ..Summary::default()
        };
        for server in self.clients.iter().flat_map(|c| &c.servers) {
            s.servers += 1;
            match server.status {
                Status::Scanned => s.scanned += 1,
                Status::Failed => s.failed += 1,
                Status::NotFound => s.not_found += 1,
                Status::NeedsLogin => s.needs_login += 1,
                Status::TimedOut => s.timed_out += 1,
                Status::Disabled => s.disabled += 1,
            }
            for f in &server.findings {
                match f.severity {
                    Severity::High => s.high += 1,
                    Severity::Medium => s.medium += 1,
                    Severity::Low => s.low += 1,
                }
            }
            s.changed += server.changes.len();
        }
        s
    }

    /// Exit 1 on a high finding or a change since pinned.
    fn exit(&self) -> Exit {
        let s = self.summary();
        if s.high > 0 || s.changed > 0 {
            Exit::ToolError
        } else {
            Exit::Ok
        }
    }
}

/// The report of one entry, before the lint rules.
fn entry_report(entry: &Entry, conn: Option<usize>, reaches: &[Reach]) -> ServerReport {
    let mut r = ServerReport {
        name: entry.name.clone(),
        status: Status::Failed,
        error: None,
        stderr_tail: Vec::new(),
        conn,
        counts: None,
        findings: Vec::new(),
        changes: Vec::new(),
    };
    let server = match &entry.server {
        Ok(s) => s,
        Err(why) => {
            r.error = Some(format!("cannot be started: {why}"));
            return r;
        }
    };
    if !server.enabled {
        r.status = Status::Disabled;
        return r;
    }
    let Some(reach) = conn.and_then(|i| reaches.get(i)) else {
        r.error = Some("was not connected".into());
        return r;
    };
    match reach {
        Reach::Scanned { lists, .. } => {
            r.status = Status::Scanned;
            r.counts = Some([
                lists.tools.len(),
                lists.prompts.len(),
                lists.resources.len(),
                lists.templates.len(),
            ]);
        }
        Reach::TimedOut(message) => {
            r.status = Status::TimedOut;
            r.error = Some(message.clone());
        }
        Reach::Failed(e) => {
            r.stderr_tail = e.stderr_tail().to_vec();
            if e.needs_auth() {
                r.status = Status::NeedsLogin;
                // What `auth login` takes: the name in mcpdeck's config,
                // else the URL.
                let login_as = match (&entry.own, &server.transport) {
                    (Some(own), _) => own.name.clone(),
                    (None, TransportConfig::Http { url, .. }) => url.clone(),
                    (None, _) => server.name.clone(),
                };
                r.error = Some(connect_failure_as(&server.name, &login_as, e).message);
            } else {
                if matches!(e, ConnectError::Spawn { .. }) && program_missing(server) {
                    r.status = Status::NotFound;
                }
                r.error = Some(e.to_string());
            }
        }
    }
    r
}

/// The cross-server rules ([`lint::cross_peers`], or a stand-in in tests).
type CrossRules<'a> = dyn Fn(&[lint::Peer]) -> Vec<Finding> + 'a;

/// One distinct server of a client, and where its entries are.
struct Seen {
    name: String,
    conn: usize,
    /// (client report, server report) indexes.
    at: Vec<(usize, usize)>,
}

/// The cross-server rules, per client: over the distinct servers each
/// client lists (its files together), their findings given to the entries
/// they name. `sources` holds each connected server's source
/// ([`lint::source_key`]): one server under two names, or run two ways
/// (`npx -y pkg` and `npx pkg@1`), shadows nothing where its definitions
/// are the same.
fn add_cross(report: &mut Report, reaches: &[Reach], sources: &[String], cross: &CrossRules) {
    let mut clients: Vec<&'static str> = Vec::new();
    for c in &report.clients {
        if !clients.contains(&c.client) {
            clients.push(c.client);
        }
    }
    for client in clients {
        let mut servers: Vec<Seen> = Vec::new();
        for (ci, c) in report.clients.iter().enumerate() {
            if c.client != client {
                continue;
            }
            for (si, s) in c.servers.iter().enumerate() {
                let Some(conn) = s.conn.filter(|_| s.status == Status::Scanned) else {
                    continue;
                };
                // The same server twice (in the user and the project file)
                // is one server to the client's model.
                if let Some(known) = servers
                    .iter_mut()
                    .find(|k| k.conn == conn && k.name == s.name)
                {
                    known.at.push((ci, si));
                    continue;
                }
                servers.push(Seen {
                    name: s.name.clone(),
                    conn,
                    at: vec![(ci, si)],
                });
            }
        }
        if servers.len() < 2 {
            continue;
        }
        // Two different servers under one name: tell them apart.
        let labels: Vec<String> = servers
            .iter()
            .enumerate()
            .map(|(i, k)| {
                if servers.iter().filter(|o| o.name == k.name).count() > 1 {
                    format!("{}#{}", k.name, i + 1)
                } else {
                    k.name.clone()
                }
            })
            .collect();
        let peers: Vec<lint::Peer> = servers
            .iter()
            .zip(&labels)
            .filter_map(|(k, label)| match reaches.get(k.conn) {
                Some(Reach::Scanned { lists, .. }) => Some(lint::Peer {
                    source: sources.get(k.conn).map(String::as_str),
                    ..lint::Peer::new(label.as_str(), lists.as_ref())
                }),
                _ => None,
            })
            .collect();
        let found = cross(&peers);
        for finding in found {
            let Some(i) = labels.iter().position(|l| *l == finding.server) else {
                continue;
            };
            let name = servers[i].name.clone();
            for &(ci, si) in &servers[i].at {
                let mut f = finding.clone();
                f.server = name.clone();
                report.clients[ci].servers[si].findings.push(f);
            }
        }
    }
}

/// Scan: read, connect, check.
async fn scan(config: &Config, args: &ScanArgs, trace: bool) -> Result<Report, Failure> {
    let cwd = std::env::current_dir().map_err(|e| {
        Failure::new(
            Exit::Usage,
            format!("cannot read the current directory: {e}"),
        )
    })?;
    let (settings, own) = own_source(config);
    let own_servers: Vec<ServerConfig> = own
        .as_ref()
        .map(|s| {
            s.entries
                .iter()
                .filter_map(|e| e.server.as_ref().ok().cloned())
                .collect()
        })
        .unwrap_or_default();
    let mut report = Report::default();
    let mut sources: Vec<Source> = own.into_iter().collect();
    match Locations::from_env() {
        Some(at) => {
            for client in Client::ALL {
                report.looked.extend(client.user_files(&at));
                report.looked.extend(client.project_files(&cwd));
            }
            sources.extend(client_sources(&at, &cwd, &own_servers));
        }
        None => report.notes.push(
            "no home directory (HOME is not set): only mcpdeck's own config was scanned".into(),
        ),
    }

    // Each distinct server once; mcpdeck's own come first, so its own
    // name (and login) is the one connected.
    let mut distinct: Vec<ServerConfig> = Vec::new();
    let mut conns: Vec<Vec<Option<usize>>> = Vec::new();
    for source in &sources {
        let mut row = Vec::new();
        for entry in &source.entries {
            let conn = match &entry.server {
                Ok(s) if s.enabled => {
                    let s = entry.own.as_ref().unwrap_or(s);
                    Some(match distinct.iter().position(|d| same_server(d, s)) {
                        Some(i) => i,
                        None => {
                            distinct.push(s.clone());
                            distinct.len() - 1
                        }
                    })
                }
                _ => None,
            };
            row.push(conn);
        }
        conns.push(row);
    }
    let limit = Duration::from_secs(args.timeout);
    let jobs = usize::try_from(args.jobs).unwrap_or(1);
    let reaches = connect_all(&settings, &distinct, limit, jobs, trace).await;
    report.distinct = distinct.len();

    let pins = match Pins::open() {
        Ok(p) => Some(p),
        Err(e) => {
            report.notes.push(format!(
                "the pins could not be read, so they were not verified: {e}"
            ));
            None
        }
    };
    for (source, row) in sources.iter().zip(&conns) {
        let mut servers = Vec::new();
        for (entry, conn) in source.entries.iter().zip(row) {
            let mut r = entry_report(entry, *conn, &reaches);
            if let (Some(Reach::Scanned { negotiated, lists }), Ok(server)) =
                (conn.and_then(|i| reaches.get(i)), &entry.server)
            {
                let whose = entry.own.as_ref().unwrap_or(server);
                let instructions = negotiated.as_ref().and_then(|n| n.instructions.as_deref());
                r.findings = lint::lint_server(
                    &entry.name,
                    lists,
                    instructions,
                    &lint_options(whose, &settings),
                );
                if let Some(changes) = pins
                    .as_ref()
                    .and_then(|p| p.changes(whose, negotiated.as_deref(), lists))
                {
                    r.changes = changes;
                }
            }
            servers.push(r);
        }
        report.clients.push(ClientReport {
            client: source.client,
            label: source.label,
            path: source.path.clone(),
            error: source.error.clone(),
            errors: source.errors.clone(),
            servers,
        });
    }
    let source_keys: Vec<String> = distinct
        .iter()
        .map(|d| lint::source_key(&d.transport))
        .collect();
    add_cross(&mut report, &reaches, &source_keys, &|servers| {
        lint::cross_peers(servers)
    });
    for c in &mut report.clients {
        for s in &mut c.servers {
            s.findings.sort_by(|a, b| {
                (b.severity, a.kind, &a.name, a.rule).cmp(&(a.severity, b.kind, &b.name, b.rule))
            });
        }
    }
    Ok(report)
}

pub async fn run(config: &Config, args: &ScanArgs, trace: bool) -> Outcome {
    let report = scan(config, args, trace).await?;
    let mut out = crate::cli::output::stdout();
    if args.sarif {
        let _ = writeln!(out, "{}", output::json_pretty(&sarif_log(&report)));
    } else if args.json {
        let _ = writeln!(out, "{}", output::json_pretty(&report_json(&report)));
    } else {
        let _ = out.write_all(report_text(&report).as_bytes());
    }
    let _ = out.flush();
    Ok(report.exit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> crate::mcp::types::Tool {
        crate::mcp::types::Tool::parse(
            &json!({"name": name, "inputSchema": {"type": "object"}}),
            &mut Vec::new(),
        )
        .expect("a valid tool")
    }

    fn scanned(tools: &[&str]) -> Reach {
        Reach::Scanned {
            negotiated: None,
            lists: Arc::new(Lists {
                tools: tools.iter().map(|t| tool(t)).collect(),
                ..Lists::default()
            }),
        }
    }

    fn server(name: &str, conn: Option<usize>, status: Status) -> ServerReport {
        ServerReport {
            name: name.into(),
            status,
            error: None,
            stderr_tail: Vec::new(),
            conn,
            counts: None,
            findings: Vec::new(),
            changes: Vec::new(),
        }
    }

    fn client(client: &'static str, servers: Vec<ServerReport>) -> ClientReport {
        ClientReport {
            client,
            label: client,
            path: PathBuf::from(format!("/home/u/{client}.json")),
            error: None,
            errors: Vec::new(),
            servers,
        }
    }

    fn finding(server: &str, severity: Severity) -> Finding {
        Finding {
            server: server.into(),
            kind: Kind::Tool,
            name: "send".into(),
            rule: "shadowing",
            severity,
            message: "m".into(),
            evidence: "e".into(),
            field: "name".into(),
        }
    }

    /// A cross-server stand-in: records what it was asked about, and
    /// finds something on every server named `mail`.
    fn recording(
        calls: &std::sync::Mutex<Vec<Vec<String>>>,
    ) -> impl Fn(&[lint::Peer]) -> Vec<Finding> + '_ {
        move |servers| {
            let mut names: Vec<String> = servers.iter().map(|p| p.name.to_string()).collect();
            names.sort();
            calls.lock().unwrap().push(names);
            servers
                .iter()
                .filter(|p| p.name == "mail")
                .map(|p| finding(p.name, Severity::High))
                .collect()
        }
    }

    #[test]
    fn cross_rules_run_per_client_over_its_scanned_servers() {
        let reaches = vec![scanned(&["send"]), scanned(&["send"]), scanned(&["x"])];
        let mut report = Report {
            clients: vec![
                client(
                    "cursor",
                    vec![
                        server("mail", Some(0), Status::Scanned),
                        server("evil", Some(1), Status::Scanned),
                        server("gone", None, Status::NotFound),
                    ],
                ),
                // Claude Code's user file and project file are one client.
                client(
                    "claude-code",
                    vec![server("mail", Some(0), Status::Scanned)],
                ),
                client(
                    "claude-code",
                    vec![server("other", Some(2), Status::Scanned)],
                ),
                // One server alone: nothing to compare.
                client("zed", vec![server("mail", Some(0), Status::Scanned)]),
            ],
            ..Report::default()
        };
        let calls = std::sync::Mutex::new(Vec::new());
        add_cross(&mut report, &reaches, &[], &recording(&calls));
        assert_eq!(
            *calls.lock().unwrap(),
            vec![
                vec!["evil".to_string(), "mail".to_string()],
                vec!["mail".to_string(), "other".to_string()],
            ]
        );
        let findings = |c: usize, s: usize| report.clients[c].servers[s].findings.len();
        assert_eq!(findings(0, 0), 1, "cursor's mail");
        assert_eq!(findings(0, 1), 0);
        assert_eq!(findings(1, 0), 1, "claude-code's mail");
        assert_eq!(findings(2, 0), 0);
        assert_eq!(findings(3, 0), 0, "zed has one server");
        assert_eq!(report.exit(), Exit::ToolError);
    }

    #[test]
    fn one_server_listed_twice_by_a_client_is_one_server_to_it() {
        let reaches = vec![scanned(&["send"]), scanned(&["y"])];
        let mut report = Report {
            clients: vec![
                client(
                    "claude-code",
                    vec![server("mail", Some(0), Status::Scanned)],
                ),
                client(
                    "claude-code",
                    vec![
                        server("mail", Some(0), Status::Scanned),
                        server("mail", Some(1), Status::Scanned),
                    ],
                ),
            ],
            ..Report::default()
        };
        let calls = std::sync::Mutex::new(Vec::new());
        add_cross(&mut report, &reaches, &[], &recording(&calls));
        // Two different servers named mail: told apart, then named back.
        assert_eq!(
            *calls.lock().unwrap(),
            vec![vec!["mail#1".to_string(), "mail#2".to_string()]]
        );
        assert!(
            report
                .clients
                .iter()
                .flat_map(|c| &c.servers)
                .all(|s| s.findings.iter().all(|f| f.server == "mail"))
        );
    }

    /// One server under two names (an import made the second) shadows
    /// nothing; a server of another source with the same tool does.
    #[test]
    fn one_source_under_two_names_is_not_shadowing() {
        let reaches = vec![scanned(&["send"]), scanned(&["send"])];
        let sources = vec![
            lint::source_key(&ServerConfig::stdio("fs", "npx", &["-y", "@acme/mail"]).transport),
            lint::source_key(&ServerConfig::stdio("x", "node", &["mail.js"]).transport),
        ];
        let mut report = Report {
            clients: vec![client(
                "cursor",
                vec![
                    server("mail", Some(0), Status::Scanned),
                    server("mail-imported", Some(0), Status::Scanned),
                ],
            )],
            ..Report::default()
        };
        add_cross(&mut report, &reaches, &sources, &|p| lint::cross_peers(p));
        assert!(
            report.clients[0]
                .servers
                .iter()
                .all(|s| s.findings.is_empty()),
            "{:#?}",
            report.clients[0].servers
        );
        report.clients[0]
            .servers
            .push(server("other", Some(1), Status::Scanned));
        add_cross(&mut report, &reaches, &sources, &|p| lint::cross_peers(p));
        let rules: Vec<(&str, &str)> = report.clients[0]
            .servers
            .iter()
            .flat_map(|s| s.findings.iter().map(move |f| (s.name.as_str(), f.rule)))
            .collect();
        assert_eq!(
            rules,
            [
                ("mail", "tool-shadowing"),
                ("mail-imported", "tool-shadowing"),
                // One for each of the two names the model sees.
                ("other", "tool-shadowing"),
                ("other", "tool-shadowing")
            ]
        );
    }

    #[test]
    fn exit_is_1_only_on_high_findings_or_changes() {
        let mut report = Report {
            clients: vec![client(
                "cursor",
                vec![
                    server("a", Some(0), Status::Scanned),
                    server("b", None, Status::TimedOut),
                ],
            )],
            ..Report::default()
        };
        assert_eq!(
            report.exit(),
            Exit::Ok,
            "a failure alone is reported, exit 0"
        );
        report.clients[0].servers[0]
            .findings
            .push(finding("a", Severity::Medium));
        assert_eq!(report.exit(), Exit::Ok);
        report.clients[0].servers[0].changes.push(pin::Change {
            kind: Kind::Tool,
            name: "send".into(),
            what: pin::ChangeKind::Changed,
            fields: vec![pin::FieldDiff {
                field: "description".into(),
                before: Some("a".into()),
                after: Some("b".into()),
                words: pin::word_diff("a", "b"),
            }],
        });
        assert_eq!(report.exit(), Exit::ToolError);
        let s = report.summary();
        assert_eq!((s.scanned, s.timed_out, s.medium, s.changed), (1, 1, 1, 1));
        // A change is a high result in SARIF.
        let log = sarif_log(&report);
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert!(
            results
                .iter()
                .any(|r| r["ruleId"] == PIN_RULE && r["level"] == "error")
        );
    }

    #[test]
    fn text_is_safe_for_a_terminal() {
        let mut evil = server("ev\u{1b}[31mil", Some(0), Status::Scanned);
        let mut f = finding("evil", Severity::High);
        f.message = "bad\u{1b}]0;title\u{7}".into();
        evil.findings.push(f);
        let report = Report {
            clients: vec![client("cursor", vec![evil])],
            ..Report::default()
        };
        let text = report_text(&report);
        assert!(!text.contains('\u{1b}'), "{text:?}");
        assert!(!text.contains('\u{7}'), "{text:?}");
        assert!(text.contains("1 high"), "{text}");
    }

    #[test]
    fn missing_programs_are_found() {
        assert!(program_missing(&ServerConfig::stdio(
            "x",
            "/nonexistent/mcpdeck-scan-test",
            &[]
        )));
        assert!(program_missing(&ServerConfig::stdio(
            "x",
            "mcpdeck-no-such-program-on-path",
            &[]
        )));
        assert!(!program_missing(&ServerConfig::stdio("x", "sh", &[])));
        assert!(!program_missing(&ServerConfig::http(
            "x",
            "http://127.0.0.1:1/mcp"
        )));
    }

    #[test]
    fn imported_strings_are_expanded_like_the_config() {
        let mut s = ServerConfig::stdio("x", "run-$$HOME", &["${MCPDECK_SCAN_UNSET_VAR:-dflt}"]);
        s.enabled = true;
        let got = expand(&s).unwrap();
        match got.transport {
            TransportConfig::Stdio { command, args, .. } => {
                assert_eq!(command, "run-$HOME");
                assert_eq!(args, vec!["dflt".to_string()]);
            }
            other => panic!("{other:?}"),
        }
        let missing = ServerConfig::stdio("x", "${MCPDECK_SCAN_UNSET_VAR}", &[]);
        let e = expand(&missing).unwrap_err();
        assert!(e.contains("MCPDECK_SCAN_UNSET_VAR"), "{e}");
    }
}
