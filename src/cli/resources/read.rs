//! `mcpdeck read`: a resource's contents (text printed, blobs saved with
//! `--save`, never overwriting), and `--watch` for its updates.

use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{Value, json};

use crate::cli::exit::{Exit, Failure, Outcome};
use crate::cli::link::Link;
use crate::cli::output::json_pretty;
use crate::config::Config;
use crate::sanitize;
use crate::text::{file_name_for, human_size};

use super::text::*;
use super::words::*;
use super::*;

pub async fn read(config: &Config, a: &ReadArgs, trace: bool) -> Outcome {
    let (target, uri) = split_words(&a.words, &a.command, "read", "URI")?;
    let uri = resolve_uri(&uri, &a.vars)?;
    if let Some(dir) = &a.save
        && dir.exists()
        && !dir.is_dir()
    {
        return Err(Failure::new(
            Exit::Usage,
            format!("--save {}: not a directory", dir.display()),
        ));
    }
    with_link(config, &target, trace, async |s: &mut Link| {
        let result = s
            .request("resources/read", json!({"uri": uri}))
            .await
            .map_err(|e| failure(e, a.json))?;
        if a.json {
            say!("{}", json_pretty(&result));
        }
        // With --json, stdout holds one document per read: a failure after
        // one is printed is said on stderr (with its exit code), not as an
        // error envelope after it.
        let printed = |f: Failure| if a.json { f.answered() } else { f };
        let mut exit = show_contents(&result, &uri, a).map_err(printed)?;
        if !a.watch {
            return Ok(exit);
        }
        // As for every capability a server does not declare: say so, and
        // the read above is the answer (exit 0).
        if !s.declares_flag("resources", "subscribe") {
            note!(
                "mcpdeck: the server does not declare resources.subscribe, so {} cannot be watched; the read above is all there is",
                sanitize::one_line(&uri)
            );
            return Ok(exit);
        }
        s.subscribe(&uri, true)
            .await
            .map_err(|e| printed(failure(e, false)))?;
        note!(
            "mcpdeck: subscribed to {}; waiting for updates (Ctrl-C stops)",
            sanitize::one_line(&uri)
        );
        let mut seen = 0u64;
        while a.updates.is_none_or(|n| seen < n) {
            let Some(update) = s.resource_update().await else {
                break;
            };
            if update.get("uri").and_then(Value::as_str) != Some(uri.as_str()) {
                continue;
            }
            seen += 1;
            note!("mcpdeck: {} was updated ({seen})", sanitize::one_line(&uri));
            let result = s
                .request("resources/read", json!({"uri": uri}))
                .await
                .map_err(|e| printed(failure(e, false)))?;
            if a.json {
                say!("{}", json_pretty(&result));
            }
            exit = show_contents(&result, &uri, a).map_err(printed)?;
        }
        let _ = s.subscribe(&uri, false).await;
        Ok(exit)
    })
    .await
}

/// The contents of a resources/read result: text with its mime type, blobs
/// as mime and decoded size (saved with `--save`).
pub(super) fn show_contents(result: &Value, uri: &str, a: &ReadArgs) -> Outcome {
    let Some(contents) = result.get("contents").and_then(Value::as_array) else {
        return Err(Failure::new(
            Exit::Connect,
            "the resources/read result has no `contents` array",
        ));
    };
    let mut out = crate::cli::output::stdout();
    let text = !a.json;
    let mut code = Exit::Ok;
    let mut saved_any = false;
    if text && contents.is_empty() {
        let _ = writeln!(
            out,
            "(the server returned no contents for {})",
            sanitize::one_line(uri)
        );
    }
    // SEP-2549: how long the server says this read may be reused (on
    // stderr: stdout is the content).
    if text && let Some(h) = crate::mcp::session::CacheHint::of(result) {
        let _ = writeln!(
            std::io::stderr().lock(),
            "mcpdeck: caching: {}",
            h.declared()
        );
    }
    for (i, c) in contents.iter().enumerate() {
        let item_uri = field(c, "uri").unwrap_or(uri);
        let mime = field(c, "mimeType");
        let shown_mime = mime
            .map(sanitize::one_line)
            .unwrap_or_else(|| "no mimeType".into());
        if text && i > 0 {
            let _ = writeln!(out);
        }
        match (field(c, "text"), field(c, "blob")) {
            (Some(t), _) => {
                if text {
                    let _ = writeln!(
                        out,
                        "{}  ({shown_mime}, text)",
                        sanitize::one_line(item_uri)
                    );
                    let t = sanitize::strip(t);
                    let _ = write!(out, "{t}");
                    if !t.ends_with('\n') {
                        let _ = writeln!(out);
                    }
                }
            }
            (None, Some(b)) => match decode_blob(b) {
                Ok(bytes) => {
                    if text {
                        let _ = writeln!(
                            out,
                            "{}  ({shown_mime}, blob of {})",
                            sanitize::one_line(item_uri),
                            exact_size(bytes.len())
                        );
                    }
                    if let Some(dir) = &a.save {
                        let path = save_blob(dir, item_uri, mime, &bytes)?;
                        saved_any = true;
                        if text {
                            let _ = writeln!(out, "    saved to {}", path.display());
                        } else {
                            note!(
                                "mcpdeck: saved {} ({} bytes) to {}",
                                sanitize::one_line(item_uri),
                                bytes.len(),
                                path.display()
                            );
                        }
                    } else if text {
                        let _ = writeln!(out, "    (--save DIR writes it to a file)");
                    }
                }
                Err(e) => {
                    note!(
                        "mcpdeck: the blob of {} is not valid base64: {e}",
                        sanitize::one_line(item_uri)
                    );
                    if text {
                        let _ = writeln!(
                            out,
                            "{}  ({shown_mime}, blob that is not valid base64)",
                            sanitize::one_line(item_uri)
                        );
                    }
                    code = Exit::Connect;
                }
            },
            (None, None) => {
                note!(
                    "mcpdeck: a content item of {} has neither `text` nor `blob`",
                    sanitize::one_line(item_uri)
                );
                if text {
                    let _ = writeln!(
                        out,
                        "{}  ({shown_mime}, neither text nor blob)",
                        sanitize::one_line(item_uri)
                    );
                }
                code = Exit::Connect;
            }
        }
    }
    if a.save.is_some() && !saved_any {
        note!("mcpdeck: --save: the result has no blob contents, nothing was written");
    }
    Ok(code)
}

/// `55 bytes`, `3.1 KiB (3172 bytes)`.
pub(super) fn exact_size(n: usize) -> String {
    if n < 1024 {
        format!("{n} bytes")
    } else {
        format!("{} ({n} bytes)", human_size(n))
    }
}

/// Standard base64, padding optional, whitespace ignored.
pub(super) fn decode_blob(b: &str) -> Result<Vec<u8>, String> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    pub(super) const ENGINE: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let compact: String = b.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    ENGINE.decode(compact).map_err(|e| e.to_string())
}

/// Write `bytes` into `dir` under a name made from `uri`, never
/// overwriting a file: `name`, `name-2`, … Returns the path written.
pub(super) fn save_blob(
    dir: &Path,
    uri: &str,
    mime: Option<&str>,
    bytes: &[u8],
) -> Result<PathBuf, Failure> {
    let io_fail = |what: &str, p: &Path, e: std::io::Error| {
        Failure::new(
            Exit::Usage,
            format!("--save: cannot {what} {}: {e}", p.display()),
        )
    };
    std::fs::create_dir_all(dir).map_err(|e| io_fail("create the directory", dir, e))?;
    let name = file_name_for(uri, mime);
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
        _ => (name.clone(), String::new()),
    };
    for n in 1..10_000 {
        let candidate = if n == 1 {
            name.clone()
        } else {
            format!("{stem}-{n}{ext}")
        };
        let path = dir.join(candidate);
        // create_new: never follow a symlink or replace an existing file.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(bytes).map_err(|e| io_fail("write", &path, e))?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_fail("create", &path, e)),
        }
    }
    Err(Failure::new(
        Exit::Usage,
        format!(
            "--save: too many files named like {name} in {}",
            dir.display()
        ),
    ))
}
