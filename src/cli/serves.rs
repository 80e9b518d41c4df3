//! `mcpdeck serves`: the `mcpdeck serve` processes running for this user,
//! found by their control sockets (see [`crate::serve::control`]): pid,
//! agent, calls, servers, config file. Sockets left by a serve that is
//! gone are removed on the way.

use serde_json::{Value, json};
use std::io::Write;

use super::exit::{Exit, Failure, Outcome};
use super::output;
use crate::sanitize;
use crate::serve::control::{self, ASK_TIMEOUT, Found, agent_name, server_names};

pub async fn serves(json: bool) -> Outcome {
    let found = control::running(ASK_TIMEOUT)
        .await
        .map_err(|e| Failure::new(Exit::Usage, format!("cannot look for running serves: {e}")))?;
    let mut out = crate::cli::output::stdout();
    if json {
        let list: Vec<Value> = found.iter().map(found_json).collect();
        let _ = writeln!(
            out,
            "{}",
            output::json_pretty(&json!({
                "dir": control::socket_dir().display().to_string(),
                "serves": list,
            }))
        );
        return Ok(Exit::Ok);
    }
    if found.is_empty() {
        let _ = writeln!(
            out,
            "No `mcpdeck serve` is running (their sockets would be in {}).",
            control::socket_dir().display()
        );
        return Ok(Exit::Ok);
    }
    let header = ["PID", "AGENT", "CALLS", "SERVERS", "CONFIG"].map(String::from);
    let rows: Vec<[String; 5]> = found.iter().map(row).collect();
    let mut widths = header.clone().map(|h| h.chars().count());
    for r in &rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    for r in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    Ok(Exit::Ok)
}

fn found_json(f: &Found) -> Value {
    let mut v = json!({"pid": f.pid, "socket": f.socket.display().to_string()});
    match &f.status {
        Ok(s) => v["status"] = s.clone(),
        Err(e) => v["error"] = json!(e),
    }
    v
}

fn row(f: &Found) -> [String; 5] {
    match &f.status {
        Ok(s) => [
            f.pid.to_string(),
            agent_name(s),
            s["call_count"].as_u64().unwrap_or(0).to_string(),
            server_names(s),
            s["config"]
                .as_str()
                .map(sanitize::one_line)
                .unwrap_or_else(|| "-".into()),
        ],
        Err(e) => [
            f.pid.to_string(),
            format!("(no answer: {})", sanitize::one_line(e)),
            "-".into(),
            "-".into(),
            "-".into(),
        ],
    }
}
