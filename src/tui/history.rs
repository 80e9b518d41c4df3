//! The call history (`H` in the TUI): every call made, of this session and
//! earlier ones, newest first, with its arguments and what came back.
//!
//! Kept in the user's state directory (`history.jsonl`; Linux:
//! `~/.local/state/mcpdeck/`), or where `$MCPDECK_HISTORY` says (`off`
//! keeps none). One JSON object per line, oldest first. Bounded: the newest
//! [`MAX_ENTRIES`] calls and at most [`MAX_BYTES`] in all; a result over
//! [`MAX_RESULT`] is kept as a note of its size. Written whole to a
//! temporary file in the same folder and renamed over the old one, at 0600,
//! so a crash never leaves half a file. Secrets are masked in arguments and
//! results as the trace masks them (the values of `authorization`,
//! `*token*`, `*secret*`, `*key*`, `*password*` … keys), so running such a
//! call again asks for them first.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most calls kept.
pub const MAX_ENTRIES: usize = 1000;
/// The most bytes the file holds (the oldest calls go first).
pub const MAX_BYTES: usize = 20 * 1024 * 1024;
/// A result larger than this (as JSON) is kept as a note of its size.
pub const MAX_RESULT: usize = 1024 * 1024;
/// The file's name in the state directory.
pub const FILE_NAME: &str = "history.jsonl";
/// The variable that names another file, or `off`.
pub const ENV: &str = "MCPDECK_HISTORY";

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    Ok,
    IsError,
    Error,
    Cancelled,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::IsError => "isError",
            Status::Error => "error",
            Status::Cancelled => "cancelled",
        }
    }
}

/// The bytes `v` takes as compact JSON, counted as it is written: nothing
/// is kept (a 20 MB result is not copied on the UI thread to be measured).
pub fn json_size(v: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// How a call ended: ok, isError, an error, or cancelled.
pub fn status_of(
    outcome: &Result<crate::mcp::types::CallResult, crate::mcp::manager::CallError>,
) -> Status {
    match outcome {
        Ok(r) if r.is_error => Status::IsError,
        Ok(_) => Status::Ok,
        Err(e) if e.kind() == crate::mcp::error::ErrorKind::Cancelled => Status::Cancelled,
        Err(_) => Status::Error,
    }
}

/// One call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub server: String,
    pub tool: String,
    /// The arguments, secrets masked.
    pub args: Value,
    pub status: Status,
    /// How long it took, in milliseconds.
    pub ms: u64,
    /// When it ended, in seconds since 1970 (UTC).
    pub at: u64,
    /// The result object, secrets masked (none for an error, or when it
    /// was too large to keep: then `cut` says its size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The error, for a call that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The result was not kept: its size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<u64>,
}

impl Entry {
    /// An entry for a call that ended now.
    pub fn new(
        server: &str,
        tool: &str,
        args: &Value,
        outcome: &Result<crate::mcp::types::CallResult, crate::mcp::manager::CallError>,
        elapsed: std::time::Duration,
    ) -> Entry {
        let masked = crate::telemetry::content::masked;
        let status = status_of(outcome);
        let (result, error, cut) = match outcome {
            Ok(r) => {
                let size = json_size(&r.raw);
                if size > MAX_RESULT {
                    (None, None, Some(size as u64))
                } else {
                    (Some(masked(&r.raw)), None, None)
                }
            }
            Err(e) => (None, Some(e.to_string()), None),
        };
        Entry {
            server: server.to_string(),
            tool: tool.to_string(),
            args: masked(args),
            status,
            ms: elapsed.as_millis().min(u64::MAX as u128) as u64,
            at: crate::text::unix_secs(std::time::SystemTime::now()),
            result,
            error,
            cut,
        }
    }

    /// The arguments in one short line: `city="Paris", units="metric"`.
    pub fn args_summary(&self, max: usize) -> String {
        let text = match &self.args {
            Value::Object(m) if m.is_empty() => String::new(),
            Value::Object(m) => m
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", "),
            other => other.to_string(),
        };
        let text = crate::sanitize::one_line(&text);
        if text.chars().count() <= max {
            text
        } else {
            let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
            cut.push('…');
            cut
        }
    }

    /// Some argument was masked when it was kept (it cannot be sent again
    /// as it was).
    pub fn masked_args(&self) -> bool {
        has_mask(&self.args)
    }

    /// Some value of the result was masked when it was kept (a key that
    /// looks like a secret's: `author`, `input_tokens` too): it is not the
    /// result the server sent.
    pub fn masked_result(&self) -> bool {
        self.result.as_ref().is_some_and(has_mask)
    }

    /// What a filter matches: server, tool, arguments and status.
    pub fn matches(&self, filter: &str) -> bool {
        if filter.is_empty() {
            return true;
        }
        let f = filter.to_lowercase();
        [
            self.server.as_str(),
            self.tool.as_str(),
            self.status.word(),
            &self.args.to_string(),
        ]
        .iter()
        .any(|t| t.to_lowercase().contains(&f))
    }
}

/// Where the history is kept: `$MCPDECK_HISTORY` (a file; `off` or empty:
/// nowhere), else `history.jsonl` in the user's state directory.
pub fn path() -> Option<PathBuf> {
    match std::env::var_os(ENV) {
        Some(v) if v == "off" || v.is_empty() => None,
        Some(v) => Some(PathBuf::from(v)),
        None => crate::startup::state_dir().map(|d| d.join(FILE_NAME)),
    }
}

/// The calls kept in `path`, newest first. A missing file is an empty
/// history; a line that cannot be read is left out (and counted).
pub fn load(path: &Path) -> (Vec<Entry>, usize) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return (Vec::new(), 0);
    };
    let mut bad = 0;
    let mut out: Vec<Entry> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| match serde_json::from_str(l) {
            Ok(e) => Some(e),
            Err(_) => {
                bad += 1;
                None
            }
        })
        .collect();
    out.reverse();
    bound(&mut out);
    (out, bad)
}

/// Keep the newest [`MAX_ENTRIES`] entries, and as many as fit in
/// [`MAX_BYTES`].
fn bound(entries: &mut Vec<Entry>) {
    entries.truncate(MAX_ENTRIES);
    let mut bytes = 0usize;
    let mut keep = 0;
    for e in entries.iter() {
        bytes += serde_json::to_string(e).map_or(0, |t| t.len() + 1);
        if bytes > MAX_BYTES {
            break;
        }
        keep += 1;
    }
    entries.truncate(keep);
}

/// Add `entry` as the newest of `entries`, bound them, and write them all
/// to `path` atomically at 0600 (the folder made, 0700, if missing).
pub fn append(path: &Path, entries: &mut Vec<Entry>, entry: Entry) -> std::io::Result<()> {
    entries.insert(0, entry);
    bound(entries);
    let mut text = String::new();
    for e in entries.iter().rev() {
        if let Ok(line) = serde_json::to_string(e) {
            text.push_str(&line);
            text.push('\n');
        }
    }
    write_atomic(path, text.as_bytes())
}

fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(d) = dir {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(d)?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| FILE_NAME.into());
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Whether `v` holds the mask a secret was replaced with.
fn has_mask(v: &Value) -> bool {
    match v {
        Value::String(s) => s == crate::telemetry::content::MASK,
        Value::Array(a) => a.iter().any(has_mask),
        Value::Object(m) => m.values().any(has_mask),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_size_is_counted_as_the_json_is_written() {
        let v = serde_json::json!({"content": [{"type": "text", "text": "x\"y\u{e9}"}], "n": [1, 2.5, null]});
        assert_eq!(json_size(&v), v.to_string().len());
    }

    fn entry(i: usize) -> Entry {
        Entry {
            server: "demo".into(),
            tool: format!("t{i}"),
            args: json!({"n": i}),
            status: Status::Ok,
            ms: 1,
            at: 1_700_000_000,
            result: Some(json!({"content": []})),
            error: None,
            cut: None,
        }
    }

    #[test]
    fn entries_are_kept_newest_first_bounded_and_at_0600() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/history.jsonl");
        // A full history, then five more calls: the oldest five go.
        let mut all: Vec<Entry> = (0..MAX_ENTRIES).rev().map(entry).collect();
        for i in MAX_ENTRIES..(MAX_ENTRIES + 5) {
            append(&path, &mut all, entry(i)).unwrap();
        }
        assert_eq!(all.last().map(|e| e.tool.as_str()), Some("t5"));
        assert_eq!(all.len(), MAX_ENTRIES);
        let (back, bad) = load(&path);
        assert_eq!(bad, 0);
        assert_eq!(back, all);
        assert_eq!(
            back[0].tool,
            format!("t{}", MAX_ENTRIES + 4),
            "newest first"
        );
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // No temporary file is left.
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn a_bad_line_is_left_out_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        let good = serde_json::to_string(&entry(1)).unwrap();
        std::fs::write(&path, format!("{good}\nnot json\n{good}\n")).unwrap();
        let (back, bad) = load(&path);
        assert_eq!((back.len(), bad), (2, 1));
    }

    #[test]
    fn secrets_are_masked_and_such_a_call_says_so() {
        let r = crate::mcp::types::CallResult::parse(
            json!({"content": [], "api_token": "s3cret"}),
            &mut Vec::new(),
        );
        let e = Entry::new(
            "demo",
            "login",
            &json!({"user": "me", "password": "hunter2"}),
            &Ok(r),
            std::time::Duration::from_millis(5),
        );
        let text = serde_json::to_string(&e).unwrap();
        assert!(
            !text.contains("hunter2") && !text.contains("s3cret"),
            "{text}"
        );
        assert!(e.masked_args());
        assert!(!entry(1).masked_args());
        assert_eq!(e.args_summary(80), "user=\"me\", password=\"••••••\"");
    }
}
