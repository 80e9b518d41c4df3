//! `mcpdeck bench`: load on one tool of one server. It connects once, then
//! keeps at most `--concurrency` calls in flight until `--count` calls are made
//! or `--duration` is over, and reports calls/s, latency percentiles,
//! errors by kind and, for a stdio server, the server's CPU time and peak
//! RSS from `/proc`.
//!
//! The calls go through the manager ([`Link::start_call`]), which runs
//! every call as a task of its own over the one session: the same path as
//! `mcpdeck call` and the TUI, so what is measured is what they do (the
//! session's request ids, timeouts, cancellation, recording and tracing
//! included).
//!
//! Safety: a tool the spec's defaults call destructive (annotated
//! `destructiveHint: true`, `readOnlyHint: false` without
//! `destructiveHint`, or not annotated at all, see
//! [`Effect`](super::smoke::policy::Effect)) needs `--destructive`. A run is
//! bounded in calls (`--count`, 100 by default) and in time
//! (`--duration`). Ctrl-C stops issuing calls, cancels those in flight and
//! prints what was measured (exit 130); a second Ctrl-C stops at once.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{Value, json};

use super::exit::{Exit, Failure, Outcome, tail_text};
use super::link::{Link, Options};
use super::smoke::policy::Effect;
use super::values;
use crate::config::Config;
use crate::mcp::error::ErrorKind;
use crate::mcp::manager::{CallError, Event, ServerStatus};
use crate::mcp::session::ListSet;
use crate::record::stats::percentile;
use crate::sanitize;
use crate::text::did_you_mean;

/// Calls made when neither `--count` nor `--duration` is given.
pub const DEFAULT_CALLS: u64 = 100;
/// The most calls one run makes (with `--duration` alone too).
pub const MAX_CALLS: u64 = 10_000_000;
/// The most calls in flight.
pub const MAX_CONCURRENCY: u64 = 256;
/// The longest `--duration`.
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 3600);
/// How long calls still in flight when `--duration` is over may take
/// (`--timeout` if shorter); the rest are cancelled and count as timeouts.
pub const GRACE: Duration = Duration::from_secs(5);
/// How long cancelled calls may take to come back.
const CANCEL_WAIT: Duration = Duration::from_secs(2);
/// How often the server's `/proc` numbers are read.
const SAMPLE_EVERY: Duration = Duration::from_millis(200);

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// TARGET TOOL [ARGS_JSON] (TOOL [ARGS_JSON] with `-- CMD`)
    #[arg(value_name = "WORDS", num_args = 1..=3, required = true)]
    pub words: Vec<String>,
    /// One argument, KEY=VALUE (typed by the tool's schema); repeatable
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    pub args: Vec<String>,
    /// How many calls to make [default: 100, or as many as fit in --duration]
    /// (`--calls N` and `-n N`, the old names, still work)
    #[arg(long = "count", short_alias = 'n', alias = "calls", value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=MAX_CALLS))]
    pub calls: Option<u64>,
    /// The most calls in flight at once (1-256)
    #[arg(long, short = 'c', value_name = "C", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=MAX_CONCURRENCY))]
    pub concurrency: u64,
    /// Stop issuing calls after SECS seconds (calls still in flight get 5 s more, then count as timeouts)
    #[arg(long, value_name = "SECS", value_parser = parse_secs)]
    pub duration: Option<Duration>,
    /// A call not answered within SECS seconds is a timeout [default: the config's request timeout]
    #[arg(long, value_name = "SECS", value_parser = parse_secs)]
    pub timeout: Option<Duration>,
    /// Call a tool that may destroy (destructiveHint: true, or not annotated read-only/additive)
    #[arg(long)]
    pub destructive: bool,
    /// Print {calls, errors, duration_s, calls_per_s, latency_ms, errors_by_kind, server}
    #[arg(long)]
    pub json: bool,
    /// An ad-hoc stdio server
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// Seconds, fractions allowed, more than 0 and at most a day.
fn parse_secs(s: &str) -> Result<Duration, String> {
    let secs: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds (e.g. 10 or 0.5)"))?;
    let in_range = secs.is_finite() && secs > 0.0 && secs <= MAX_DURATION.as_secs_f64();
    if !in_range {
        return Err(format!(
            "{s:?}: give more than 0 and at most {} seconds",
            MAX_DURATION.as_secs()
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// What kind of failure a call ended with, as the report counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// The connection was lost, the server could not be written to, or
    /// its answer broke the protocol.
    Transport,
    /// A JSON-RPC error response.
    JsonRpc,
    /// A result with `isError: true`.
    IsError,
    /// No answer in time (the request timeout, or after `--duration`).
    Timeout,
}

impl ErrorClass {
    pub fn of(e: &CallError) -> ErrorClass {
        match e.kind() {
            ErrorKind::Rpc => ErrorClass::JsonRpc,
            ErrorKind::Timeout | ErrorKind::Cancelled => ErrorClass::Timeout,
            _ => ErrorClass::Transport,
        }
    }
}

/// The server's `/proc` numbers at one moment, over its process group (the
/// process mcpdeck started leads one: a wrapper such as `npx` or `sh -c`
/// and the server it runs are counted together).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcSample {
    /// utime + stime of every live process in the group, in clock ticks.
    pub cpu_ticks: u64,
    /// The sum of their VmHWM, in kB (`None` when none has one: zombies).
    pub peak_rss_kb: Option<u64>,
}

/// utime + stime and the process group from the text of `/proc/PID/stat`
/// (fields 14, 15 and 5, counted after the command name, which may hold
/// spaces and parentheses).
pub fn parse_stat(text: &str) -> Option<(u64, u32)> {
    let (_, rest) = text.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // rest starts at field 3 (state).
    let pgrp: u32 = fields.get(2)?.parse().ok()?;
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime, pgrp))
}

/// VmHWM (kB) from the text of `/proc/PID/status`.
pub fn parse_vm_hwm(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// Read the numbers of process group `pgid`; `None` once no process of it
/// is left.
pub fn sample(pgid: u32) -> Option<ProcSample> {
    let dir = std::fs::read_dir("/proc").ok()?;
    let mut found = false;
    let mut cpu_ticks = 0u64;
    let mut peak: Option<u64> = None;
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Some((cpu, pgrp)) = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|t| parse_stat(&t))
        else {
            continue;
        };
        if pgrp != pgid {
            continue;
        }
        found = true;
        cpu_ticks += cpu;
        if let Some(kb) = std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|t| parse_vm_hwm(&t))
        {
            *peak.get_or_insert(0) += kb;
        }
    }
    found.then_some(ProcSample {
        cpu_ticks,
        peak_rss_kb: peak,
    })
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 { t as f64 } else { 100.0 }
}

/// What a run measured.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Calls that ended (answered, failed or timed out).
    pub calls: u64,
    /// Latency of each answered call (a result, `isError` or a JSON-RPC
    /// error), in microseconds.
    pub latencies_us: Vec<u64>,
    pub transport: u64,
    pub jsonrpc: u64,
    pub is_error: u64,
    pub timeout: u64,
    /// From the first call issued to the last one ended.
    pub duration: Duration,
    /// CPU seconds the server used during the run, and its peak RSS.
    pub server: Option<ServerUse>,
    /// Calls cancelled by Ctrl-C (not counted in `calls`).
    pub interrupted: Option<u64>,
    /// The server went away mid-run: what the manager said.
    pub server_gone: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerUse {
    pub pid: u32,
    pub cpu_s: f64,
    pub peak_rss_kb: Option<u64>,
}

impl Report {
    pub fn errors(&self) -> u64 {
        self.transport + self.jsonrpc + self.is_error + self.timeout
    }

    fn calls_per_s(&self) -> f64 {
        let secs = self.duration.as_secs_f64();
        if secs > 0.0 {
            self.calls as f64 / secs
        } else {
            0.0
        }
    }

    /// p50, p95, p99 and max in milliseconds; `None` without an answered call.
    fn latency_ms(&self) -> Option<[f64; 4]> {
        if self.latencies_us.is_empty() {
            return None;
        }
        let mut v = self.latencies_us.clone();
        v.sort_unstable();
        let ms = |us: u64| us as f64 / 1000.0;
        Some([
            ms(percentile(&v, 50.0)),
            ms(percentile(&v, 95.0)),
            ms(percentile(&v, 99.0)),
            ms(v.last().copied().unwrap_or(0)),
        ])
    }

    /// The `--json` object.
    pub fn to_json(&self) -> Value {
        let round = |x: f64| (x * 1000.0).round() / 1000.0;
        let latency = match self.latency_ms() {
            Some([p50, p95, p99, max]) => json!({
                "p50": round(p50), "p95": round(p95), "p99": round(p99), "max": round(max),
            }),
            None => json!({"p50": null, "p95": null, "p99": null, "max": null}),
        };
        let mut v = json!({
            "calls": self.calls,
            "errors": self.errors(),
            "duration_s": round(self.duration.as_secs_f64()),
            "calls_per_s": round(self.calls_per_s()),
            "latency_ms": latency,
            "errors_by_kind": {
                "transport": self.transport,
                "jsonrpc": self.jsonrpc,
                "is_error": self.is_error,
                "timeout": self.timeout,
            },
            "server": self.server.map(|s| json!({
                "cpu_s": round(s.cpu_s),
                "peak_rss_kb": s.peak_rss_kb,
            })),
        });
        // Why the run ended early (exit 3; the report is the answer).
        if let Some(why) = &self.server_gone {
            v["serverGone"] = json!(why);
        }
        v
    }

    /// The report for people.
    pub fn text(&self, tool: &str, server: &str, concurrency: u64) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "bench {} on {}: {} {} in {:.2} s, concurrency {concurrency}",
            sanitize::one_line(tool),
            sanitize::one_line(server),
            self.calls,
            if self.calls == 1 { "call" } else { "calls" },
            self.duration.as_secs_f64()
        );
        let _ = writeln!(out, "  rate     {:.1} calls/s", self.calls_per_s());
        match self.latency_ms() {
            Some([p50, p95, p99, max]) => {
                let _ = writeln!(
                    out,
                    "  latency  p50 {p50:.2} ms · p95 {p95:.2} ms · p99 {p99:.2} ms · max {max:.2} ms"
                );
            }
            None => {
                let _ = writeln!(out, "  latency  no call was answered");
            }
        }
        let _ = writeln!(
            out,
            "  errors   {} (transport {} · jsonrpc {} · is_error {} · timeout {})",
            self.errors(),
            self.transport,
            self.jsonrpc,
            self.is_error,
            self.timeout
        );
        if let Some(s) = &self.server {
            let rss = s
                .peak_rss_kb
                .map(|k| format!("{k} kB"))
                .unwrap_or_else(|| "unknown".into());
            let _ = writeln!(
                out,
                "  server   pid {} · cpu {:.2} s · peak RSS {rss}",
                s.pid, s.cpu_s
            );
        }
        if let Some(n) = self.interrupted {
            let _ = writeln!(
                out,
                "  interrupted: {n} call(s) in flight cancelled (not counted)"
            );
        }
        out
    }
}

/// How the issuing of calls stopped early.
#[derive(Debug, Clone, PartialEq)]
enum Stop {
    /// `--duration` is over: the calls in flight get [`GRACE`].
    Time,
    /// Ctrl-C: the calls in flight are cancelled.
    Interrupt,
    /// The server went away.
    Gone,
}

/// What the event loop waits for next.
enum Step {
    Finished(u64, Result<bool, CallError>, Duration),
    Gone(String, Vec<String>),
    ManagerGone,
    TimeUp,
    GraceOver,
    Interrupt,
    CancelWaitOver,
    Sample,
}

/// `mcpdeck bench`.
pub async fn run(config: &Config, a: &BenchArgs, trace: bool) -> Outcome {
    let (target, words) = super::tool_words("bench", a.words.clone(), a.command.clone())?;
    let (tool, json_args) = match words.as_slice() {
        [tool] => (tool.clone(), None),
        [tool, args] => (tool.clone(), Some(args.clone())),
        _ => {
            return Err(Failure::new(
                Exit::Usage,
                "bench needs a TOOL: `mcpdeck bench TARGET TOOL [ARGS_JSON] --count N`",
            ));
        }
    };
    let mut options = Options::new(trace).listing(ListSet::TOOLS);
    options.timeout = a.timeout;
    let mut link = Link::open(config, &target, options).await?;
    let result = bench_connected(&mut link, &tool, json_args.as_deref(), a).await;
    link.close();
    result
}

/// The arguments, checked as `call` checks them, and the tool allowed.
fn prepare(
    link: &Link,
    tool: &str,
    json_args: Option<&str>,
    a: &BenchArgs,
) -> Result<Value, Failure> {
    let snap = &link.server;
    let Some(t) = snap.lists.tools.iter().find(|t| t.name == tool) else {
        let names: Vec<&str> = snap.lists.tools.iter().map(|t| t.name.as_str()).collect();
        let hint =
            did_you_mean(&names, tool).unwrap_or_else(|| "; `mcpdeck tools` lists them".into());
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "server {:?} lists no tool named {:?}{hint}",
                snap.config.name, tool
            ),
        ));
    };
    if let Some(rule) = snap.config.tool_refusal(tool) {
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "tool {tool:?} is refused on server {:?} by its {rule} in the config; change that list to bench it",
                snap.config.name
            ),
        ));
    }
    let effect = Effect::of(t);
    if !a.destructive && !matches!(effect, Effect::ReadOnly | Effect::Additive) {
        return Err(Failure::new(
            Exit::Usage,
            format!(
                "refusing to call {tool:?} over and over: {}; pass --destructive to bench it anyway",
                effect.reason()
            ),
        ));
    }
    let schema = t.input_schema.as_ref();
    let arguments =
        values::build(json_args, &a.args, schema).map_err(|e| Failure::new(Exit::Usage, e))?;
    if let Some(schema) = schema {
        match crate::schema::check(schema, &arguments) {
            Ok(violations) if !violations.is_empty() => {
                let list: Vec<String> = violations
                    .iter()
                    .map(|v| format!("    {}", sanitize::strip(&v.to_string())))
                    .collect();
                return Err(Failure::new(
                    Exit::Usage,
                    format!(
                        "the arguments do not match the inputSchema of {tool:?}:\n{}\nfix them (`mcpdeck call` shows what one call returns)",
                        list.join("\n")
                    ),
                ));
            }
            Ok(_) => {}
            Err(e) => eprintln!(
                "mcpdeck: not validating the arguments: the tool's inputSchema is broken ({})",
                sanitize::strip(&e)
            ),
        }
    }
    Ok(arguments)
}

async fn bench_connected(
    link: &mut Link,
    tool: &str,
    json_args: Option<&str>,
    a: &BenchArgs,
) -> Outcome {
    let arguments = prepare(link, tool, json_args, a)?;
    let server_name = link.name().to_string();
    let pid = link.server.pid;
    let mut interrupt = crate::startup::claim_interrupt();
    let limit = match (a.calls, a.duration) {
        (Some(n), _) => n,
        (None, Some(_)) => MAX_CALLS,
        (None, None) => DEFAULT_CALLS,
    };
    let concurrency = usize::try_from(a.concurrency).unwrap_or(1).max(1);
    let grace = a.timeout.map_or(GRACE, |t| t.min(GRACE));

    let first = pid.and_then(sample);
    let mut last = first;
    let mut report = Report::default();
    let mut inflight: HashSet<u64> = HashSet::new();
    let mut cancelled: HashSet<u64> = HashSet::new();
    let mut issued = 0u64;
    let mut stop: Option<Stop> = None;
    let mut stderr_tail: Vec<String> = Vec::new();
    let started = Instant::now();
    let time_up = a
        .duration
        .map(|d| tokio::time::Instant::from_std(started + d));
    let mut grace_until: Option<tokio::time::Instant> = None;
    let mut cancel_until: Option<tokio::time::Instant> = None;
    let mut ticker = tokio::time::interval(SAMPLE_EVERY);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut ended = started;

    loop {
        while stop.is_none() && inflight.len() < concurrency && issued < limit {
            let tag = link.start_call(tool, arguments.clone());
            inflight.insert(tag);
            issued += 1;
        }
        if inflight.is_empty() && (stop.is_some() || issued >= limit) {
            break;
        }
        let step = {
            let pending = &inflight;
            let name = server_name.as_str();
            let wait_event = link.until(|ev| match ev {
                Event::CallFinished {
                    tag,
                    result,
                    elapsed,
                    ..
                } if pending.contains(&tag) => {
                    ControlFlow::Break(Step::Finished(tag, result.map(|r| r.is_error), elapsed))
                }
                Event::Status { server, status, .. }
                    if server == name && status.settled() && status != ServerStatus::Connected =>
                {
                    let (why, tail) = match &status {
                        ServerStatus::Failed(e) | ServerStatus::NeedsAuth(e) => {
                            (e.to_string(), e.stderr_tail().to_vec())
                        }
                        other => (other.label().to_string(), Vec::new()),
                    };
                    ControlFlow::Break(Step::Gone(why, tail))
                }
                ev => ControlFlow::Continue(ev),
            });
            let far = tokio::time::Instant::now() + MAX_DURATION;
            tokio::select! {
                ev = wait_event => ev.unwrap_or(Step::ManagerGone),
                _ = tokio::time::sleep_until(time_up.unwrap_or(far)), if stop.is_none() && time_up.is_some() => Step::TimeUp,
                _ = tokio::time::sleep_until(grace_until.unwrap_or(far)), if grace_until.is_some() => Step::GraceOver,
                _ = tokio::time::sleep_until(cancel_until.unwrap_or(far)), if cancel_until.is_some() => Step::CancelWaitOver,
                r = interrupt.fired.wait_for(|fired| *fired), if stop != Some(Stop::Interrupt) => match r {
                    Ok(_) => Step::Interrupt,
                    // The sender lives in a static: never closed.
                    Err(_) => Step::Sample,
                },
                _ = ticker.tick() => Step::Sample,
            }
        };
        match step {
            Step::Finished(tag, result, elapsed) => {
                inflight.remove(&tag);
                ended = Instant::now();
                let was_cancelled = cancelled.remove(&tag);
                match result {
                    Err(_) if was_cancelled && stop == Some(Stop::Interrupt) => {
                        *report.interrupted.get_or_insert(0) += 1;
                        continue;
                    }
                    Ok(is_error) => {
                        report
                            .latencies_us
                            .push(u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX));
                        if is_error {
                            report.is_error += 1;
                        }
                    }
                    Err(e) => {
                        let class = ErrorClass::of(&e);
                        match class {
                            ErrorClass::JsonRpc => {
                                report.jsonrpc += 1;
                                report
                                    .latencies_us
                                    .push(u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX));
                            }
                            ErrorClass::Timeout => report.timeout += 1,
                            ErrorClass::IsError => report.is_error += 1,
                            ErrorClass::Transport => {
                                report.transport += 1;
                                if stderr_tail.is_empty() {
                                    stderr_tail = e.stderr_tail().to_vec();
                                }
                            }
                        }
                    }
                }
                report.calls += 1;
            }
            Step::Gone(why, tail) => {
                report.server_gone = Some(why);
                if !tail.is_empty() {
                    stderr_tail = tail;
                }
                stop = Some(Stop::Gone);
                // The calls in flight fail at once; in case one does not,
                // they get the grace.
                grace_until = Some(tokio::time::Instant::now() + grace);
            }
            Step::ManagerGone => {
                // Nothing more will come: what is in flight is lost.
                report.transport += inflight.len() as u64;
                report.calls += inflight.len() as u64;
                inflight.clear();
                report
                    .server_gone
                    .get_or_insert_with(|| "the connection to the server ended".into());
                break;
            }
            Step::TimeUp => {
                stop = Some(Stop::Time);
                grace_until = Some(tokio::time::Instant::now() + grace);
            }
            Step::GraceOver => {
                grace_until = None;
                for tag in &inflight {
                    link.cancel(*tag);
                    cancelled.insert(*tag);
                }
                cancel_until = Some(tokio::time::Instant::now() + CANCEL_WAIT);
            }
            Step::Interrupt => {
                stop = Some(Stop::Interrupt);
                grace_until = None;
                report.interrupted.get_or_insert(0);
                for tag in &inflight {
                    link.cancel(*tag);
                    cancelled.insert(*tag);
                }
                cancel_until = Some(tokio::time::Instant::now() + CANCEL_WAIT);
            }
            Step::CancelWaitOver => {
                // Cancelled calls that never came back.
                let n = inflight.len() as u64;
                if stop == Some(Stop::Interrupt) {
                    *report.interrupted.get_or_insert(0) += n;
                } else {
                    report.timeout += n;
                    report.calls += n;
                }
                inflight.clear();
                break;
            }
            Step::Sample => {
                if let Some(s) = pid.and_then(sample) {
                    last = Some(s);
                }
            }
        }
    }
    // SIGINT is the usual one again while the report is printed and the
    // server stopped.
    drop(interrupt);
    if report.calls > 0 {
        report.duration = ended.duration_since(started);
    }
    if let Some(s) = pid.and_then(sample) {
        last = Some(s);
    }
    if let (Some(pid), Some(first), Some(last)) = (pid, first, last) {
        report.server = Some(ServerUse {
            pid,
            cpu_s: last.cpu_ticks.saturating_sub(first.cpu_ticks) as f64 / ticks_per_second(),
            peak_rss_kb: last.peak_rss_kb,
        });
    }

    let mut out = crate::cli::output::stdout();
    let _ = if a.json {
        writeln!(out, "{}", super::output::json_pretty(&report.to_json()))
    } else {
        write!(out, "{}", report.text(tool, &server_name, a.concurrency))
    };
    let _ = out.flush();
    drop(out);

    if let Some(why) = &report.server_gone {
        let tail = tail_text(&stderr_tail);
        return Err(Failure::new(
            Exit::Connect,
            format!(
                "the server {server_name:?} went away during the run ({} of {issued} calls answered): {}{tail}",
                report.calls - report.transport - report.timeout,
                sanitize::one_line(why)
            ),
        )
        .answered());
    }
    if report.interrupted.is_some() {
        let calls = if report.calls == 1 { "call" } else { "calls" };
        eprintln!("mcpdeck: bench interrupted after {} {calls}", report.calls);
        return Ok(Exit::Interrupted);
    }
    if report.errors() > 0 {
        eprintln!(
            "mcpdeck: {} of {} calls failed",
            report.errors(),
            report.calls
        );
        return Ok(Exit::ToolError);
    }
    Ok(Exit::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_after_the_name() {
        // A name with spaces and a parenthesis; group 4200, utime 150, stime 25.
        let stat = "4242 (my (odd) srv) S 1 4200 4200 0 -1 4194560 300 0 0 0 150 25 0 0 20 0 1 0 100 1000 50";
        assert_eq!(parse_stat(stat), Some((175, 4200)));
        assert_eq!(parse_stat("4242 (x) S 1 2"), None);
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn vm_hwm_in_kb() {
        let status = "Name:\tpython3\nVmPeak:\t  20000 kB\nVmHWM:\t   12345 kB\nVmRSS:\t 9000 kB\n";
        assert_eq!(parse_vm_hwm(status), Some(12345));
        assert_eq!(parse_vm_hwm("Name:\tzombie\nState:\tZ\n"), None);
    }

    #[test]
    fn own_process_group_is_sampled() {
        // SAFETY: getpgrp has no preconditions and cannot fail.
        let group = unsafe { libc::getpgrp() };
        let s = sample(u32::try_from(group).expect("a process group id"))
            .expect("our own process group in /proc");
        assert!(s.peak_rss_kb.is_some_and(|k| k > 0));
    }

    #[test]
    fn json_has_exactly_the_documented_keys() {
        let r = Report {
            calls: 4,
            latencies_us: vec![1000, 2000, 3000, 4000],
            is_error: 1,
            duration: Duration::from_secs(2),
            server: Some(ServerUse {
                pid: 1,
                cpu_s: 0.5,
                peak_rss_kb: Some(100),
            }),
            ..Report::default()
        };
        let v = r.to_json();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "calls",
                "calls_per_s",
                "duration_s",
                "errors",
                "errors_by_kind",
                "latency_ms",
                "server"
            ]
        );
        assert_eq!(v["errors"], 1);
        assert_eq!(v["calls_per_s"], 2.0);
        assert_eq!(v["latency_ms"]["p50"], 2.0);
        assert_eq!(v["latency_ms"]["p99"], 4.0);
        assert_eq!(v["latency_ms"]["max"], 4.0);
        assert_eq!(v["errors_by_kind"]["is_error"], 1);
        assert_eq!(v["server"]["peak_rss_kb"], 100);
        let none = Report::default().to_json();
        assert!(none["server"].is_null());
        assert!(none["latency_ms"]["p50"].is_null());
    }

    #[test]
    fn seconds_are_bounded() {
        assert_eq!(parse_secs("0.5"), Ok(Duration::from_millis(500)));
        assert!(parse_secs("0").is_err());
        assert!(parse_secs("-1").is_err());
        assert!(parse_secs("NaN").is_err());
        assert!(parse_secs("1e9").is_err());
        assert!(parse_secs("soon").is_err());
    }
}
