//! `export --write`: merge into the client's file, keep a backup of it as
//! it was, and replace it atomically.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::{Client, Rendered, codex, jsonc};

/// The outcome of merging entries into a file's text.
#[derive(Debug, Default)]
pub(super) struct Merged {
    pub text: String,
    pub added: Vec<String>,
    pub replaced: Vec<String>,
    pub unchanged: Vec<String>,
    /// Present with a different definition, and not `--force`d.
    pub conflicts: Vec<String>,
}

/// What was done to one file.
#[derive(Debug, Clone)]
pub struct FileReport {
    pub path: PathBuf,
    /// The file did not exist and was created.
    pub created: bool,
    /// Whether anything was written (nothing when every entry was there).
    pub written: bool,
    /// The copy of the file as it was, next to it.
    pub backup: Option<PathBuf>,
    pub added: Vec<String>,
    pub replaced: Vec<String>,
    pub unchanged: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct WriteReport {
    pub servers: FileReport,
    /// Claude Code's settings file, when deny rules were exported: the
    /// report (`added` holds the rules added) .
    pub settings: Option<FileReport>,
}

fn read(path: &Path) -> Result<Option<String>, String> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("could not read {}: {e}", path.display())),
    }
}

/// Merges `rendered` into the client's file at `path` (and, for Claude
/// Code's deny rules, into `settings`). Nothing is written when a server is
/// already there with another definition and `force` is off.
pub fn write(
    rendered: &Rendered,
    path: &Path,
    settings: Option<&Path>,
    force: bool,
) -> Result<WriteReport, String> {
    let original = read(path)?;
    let merged = match original.as_deref() {
        Some(text) if !text.trim().is_empty() => match rendered.client {
            Client::Codex => codex::merge(path, text, &rendered.entries, force)?,
            client => jsonc::merge(path, text, client.servers_key(), &rendered.entries, force)?,
        },
        _ => Merged {
            text: super::to_text(rendered),
            added: rendered.entries.iter().map(|(n, _)| n.clone()).collect(),
            ..Merged::default()
        },
    };
    if !merged.conflicts.is_empty() {
        return Err(format!(
            "{} already has {} with a different definition; nothing was written. Add --force to replace {} (a backup of the file is kept), or export the other servers by name",
            path.display(),
            quoted(&merged.conflicts),
            if merged.conflicts.len() == 1 {
                "it"
            } else {
                "them"
            }
        ));
    }
    // Claude Code's deny rules: checked before anything is written.
    let settings_plan = match settings {
        Some(settings) if !rendered.deny_rules.is_empty() => {
            let before = read(settings)?;
            let (text, added) = match before.as_deref() {
                Some(text) if !text.trim().is_empty() => {
                    jsonc::merge_deny(settings, text, &rendered.deny_rules)?
                }
                _ => {
                    let doc = serde_json::json!({"permissions": {"deny": rendered.deny_rules}});
                    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
                    text.push('\n');
                    (text, rendered.deny_rules.clone())
                }
            };
            Some((settings, before, text, added))
        }
        _ => None,
    };
    let servers = commit(
        path,
        original.as_deref(),
        &merged.text,
        merged.added,
        merged.replaced,
        merged.unchanged,
    )?;
    let settings = match settings_plan {
        Some((settings, before, text, added)) => Some(commit(
            settings,
            before.as_deref(),
            &text,
            added,
            Vec::new(),
            Vec::new(),
        )?),
        None => None,
    };
    Ok(WriteReport { servers, settings })
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes `text` to `path` if it differs from `before`, after a backup.
fn commit(
    path: &Path,
    before: Option<&str>,
    text: &str,
    added: Vec<String>,
    replaced: Vec<String>,
    unchanged: Vec<String>,
) -> Result<FileReport, String> {
    let mut report = FileReport {
        path: path.to_path_buf(),
        created: before.is_none(),
        written: false,
        backup: None,
        added,
        replaced,
        unchanged,
    };
    if before == Some(text) {
        return Ok(report);
    }
    if before.is_some() {
        report.backup = Some(backup(path)?);
    }
    write_atomic(path, text).map_err(|e| {
        format!(
            "could not write {}: {e}; the file is unchanged",
            path.display()
        )
    })?;
    report.written = true;
    Ok(report)
}

/// Copies `path` to `PATH.mcpdeck-backup-YYYYMMDDTHHMMSSZ` next to it (a
/// `-2`, `-3`… suffix if that exists), permissions kept.
fn backup(path: &Path) -> Result<PathBuf, String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stamp = timestamp(SystemTime::now());
    let base = format!("{name}.mcpdeck-backup-{stamp}");
    let mut candidate = path.with_file_name(&base);
    let mut n = 2;
    while fs::symlink_metadata(&candidate).is_ok() {
        candidate = path.with_file_name(format!("{base}-{n}"));
        n += 1;
    }
    fs::copy(path, &candidate).map_err(|e| {
        format!(
            "could not back up {} to {}: {e}; nothing was written",
            path.display(),
            candidate.display()
        )
    })?;
    Ok(candidate)
}

/// `YYYYMMDDTHHMMSSZ` in UTC.
fn timestamp(t: SystemTime) -> String {
    let (year, month, day, h, m, sec) = crate::text::civil_utc(crate::text::unix_secs(t));
    format!("{year:04}{month:02}{day:02}T{h:02}{m:02}{sec:02}Z")
}

/// Temporary file in the same directory, fsync, the original's
/// permissions, rename over the target, fsync of the directory. A symlink
/// is followed (the link stays a link). A missing directory is created.
fn write_atomic(path: &Path, text: &str) -> io::Result<()> {
    let target = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path)?,
        _ => path.to_path_buf(),
    };
    let file_name = target
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?
        .to_string_lossy()
        .into_owned();
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir)?;
    let original = match fs::metadata(&target) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let temp = dir.join(format!(".{file_name}.mcpdeck-{}.tmp", std::process::id()));
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A new file may hold tokens: private by default.
        options.mode(0o600);
    }
    let result = (|| {
        let mut file = options.open(&temp)?;
        file.write_all(text.as_bytes())?;
        if let Some(original) = &original {
            file.set_permissions(original.permissions())?;
        }
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, &target)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&temp);
        return Err(e);
    }
    if let Err(error) = File::open(&dir).and_then(|d| d.sync_all()) {
        tracing::warn!(dir = %dir.display(), %error, "could not fsync the directory");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        let at = |s: u64| timestamp(std::time::UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "19700101T000000Z");
        // 2024-02-29 12:34:56 UTC, a leap day.
        assert_eq!(at(1_709_210_096), "20240229T123456Z");
    }
}
