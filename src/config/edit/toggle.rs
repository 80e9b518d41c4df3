//! The toggles of a server named by a person, on the command line
//! (`mcpdeck enable|disable|deny|allow`) or in a request to `mcpdeck
//! serve`'s control socket: the file is read again and validated, the
//! server found by its name (or the closest names offered), the toggle
//! made with a [`ConfigEditor`], and a sentence says what was done.
//!
//! A failure is an [`EditError`], whose message is the whole sentence for
//! a person, with what to do next; the file is then as it was.
//!
//! # Round trips across runs
//!
//! Each run has a new editor, which cannot remember what an earlier run
//! added. So `enable` and `allow` (back to the default) remove the key
//! when it looks added by mcpdeck, i.e. when no comment is on or above it
//! and only such toggle keys follow it in its table; otherwise the key
//! keeps its place and comments and gets the new value. `disable` then
//! `enable` (or `deny` then `allow`) thus gives the file back byte for
//! byte, except for a hand-written, comment-less `enabled = true` (or
//! `deny_tools = []`) at the end of a table, which comes back absent (the
//! same meaning).

use std::path::{Path, PathBuf};

use super::ConfigEditor;
use crate::config::{Config, ConfigError, ServerConfig};
use crate::sanitize;
use crate::text::did_you_mean;

/// A failed edit of a named server; the file was not changed. `Display`
/// is the whole message.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// The file cannot be read, is invalid, could not be written, or was
    /// changed by something else during the edit.
    #[error("{}", file_message(.0))]
    File(#[from] ConfigError),
    /// The file has no server by that name.
    #[error("{}", no_server_message(.name, .path, .servers))]
    NoServer {
        /// The name asked for.
        name: String,
        /// The file.
        path: PathBuf,
        /// The names the file has.
        servers: Vec<String>,
    },
    /// An empty tool name.
    #[error("the tool name is empty")]
    EmptyTool,
}

/// What a failed read or edit of the file says, with what to do next.
fn file_message(error: &ConfigError) -> String {
    match error {
        ConfigError::Invalid(_) => format!(
            "{error}\nthe file was not changed; fix it first (`mcpdeck config edit`, `mcpdeck config check`)"
        ),
        ConfigError::Write { .. } => format!("{error}\nthe file was not changed"),
        ConfigError::Conflict { path, reason } => format!(
            "{} was changed by something else while mcpdeck edited it ({reason}); nothing was written: run the command again",
            path.display()
        ),
        _ => error.to_string(),
    }
}

/// `there is no server named "x" in FILE`, with the closest name, or the
/// names there are, or how to add the first.
fn no_server_message(name: &str, path: &Path, servers: &[String]) -> String {
    let names: Vec<&str> = servers.iter().map(String::as_str).collect();
    let hint = did_you_mean(&names, name).unwrap_or_else(|| {
        if names.is_empty() {
            if path.exists() {
                "; it has no servers yet (add one with `mcpdeck add`)".to_owned()
            } else {
                "; the file does not exist yet (add a server with `mcpdeck add`)".to_owned()
            }
        } else {
            format!("; the servers are: {}", names.join(", "))
        }
    });
    format!(
        "there is no server named {:?} in {}{hint}",
        sanitize::one_line(name),
        path.display()
    )
}

type Result<T> = std::result::Result<T, EditError>;

/// What an edit of a server's toggles did: whether the file changed, and
/// the sentence that says so.
#[derive(Debug, Clone)]
pub struct Edited {
    pub changed: bool,
    pub message: String,
}

/// The server named `name` in `current` (the file at `path`), or
/// [`EditError::NoServer`].
pub fn find_server<'c>(current: &'c Config, path: &Path, name: &str) -> Result<&'c ServerConfig> {
    current.server(name).ok_or_else(|| EditError::NoServer {
        name: name.to_owned(),
        path: path.to_path_buf(),
        servers: current.servers.iter().map(|s| s.name.clone()).collect(),
    })
}

/// The editor of the file at `path` and the file as it is now (validated).
fn open(path: &Path) -> Result<(ConfigEditor, Config)> {
    let editor = ConfigEditor::open(path)?;
    let current = editor.config()?;
    Ok((editor, current))
}

/// Enable or disable `server` in the config file at `path`.
pub fn edit_enabled(path: &Path, server: &str, enabled: bool) -> Result<Edited> {
    let (mut editor, current) = open(path)?;
    let found = find_server(&current, path, server)?;
    let word = if enabled { "enabled" } else { "disabled" };
    let changed = found.enabled != enabled;
    if changed {
        if enabled && editor.looks_added(server, "enabled") {
            editor.assume_added(server, "enabled");
        }
        editor.set_enabled(server, enabled)?;
    }
    let message = if changed {
        format!("{word} server {server:?} in {}", path.display())
    } else {
        format!("server {server:?} is already {word} in {}", path.display())
    };
    Ok(Edited { changed, message })
}

/// Deny `tool` of `server` in the config file at `path`.
pub fn edit_deny(path: &Path, server: &str, tool: &str) -> Result<Edited> {
    let (mut editor, current) = open(path)?;
    let found = find_server(&current, path, server)?;
    if tool.is_empty() {
        return Err(EditError::EmptyTool);
    }
    let shown = sanitize::one_line(tool);
    // Refused already by a pattern or by allow_tools: an exact entry beside
    // it would change nothing (and stay behind when the pattern goes).
    if !found.denies_exactly(tool)
        && let Some(rule) = found.tool_refusal(tool)
    {
        return Ok(Edited {
            changed: false,
            message: format!(
                "tool {shown:?} of server {server:?} is already refused by {rule} in {}",
                path.display()
            ),
        });
    }
    let changed = !found.denies_exactly(tool);
    if changed {
        editor.deny_tool(server, tool)?;
    }
    let message = if changed {
        format!(
            "denied tool {shown:?} of server {server:?} in {}",
            path.display()
        )
    } else {
        format!(
            "tool {shown:?} of server {server:?} is already denied in {}",
            path.display()
        )
    };
    Ok(Edited { changed, message })
}

/// Allow a denied `tool` of `server` again in the config file at `path`.
pub fn edit_allow(path: &Path, server: &str, tool: &str) -> Result<Edited> {
    let (mut editor, current) = open(path)?;
    let found = find_server(&current, path, server)?;
    let shown = sanitize::one_line(tool);
    let changed = found.denies_exactly(tool);
    if changed {
        let emptied = found.deny_tools.iter().all(|t| t == tool);
        if emptied && editor.looks_added(server, "deny_tools") {
            editor.assume_added(server, "deny_tools");
        }
        editor.allow_tool(server, tool)?;
    }
    let message = if changed {
        match found.tool_refusal_without(tool) {
            // Another entry (a pattern, or allow_tools) still refuses it.
            Some(rule) => format!(
                "removed {shown:?} from deny_tools of server {server:?} in {}, but the tool is still refused by {rule}; change that entry in the config (`mcpdeck config edit`)",
                path.display()
            ),
            None => format!(
                "allowed tool {shown:?} of server {server:?} again in {}",
                path.display()
            ),
        }
    } else if let Some(rule) = found.tool_refusal(tool) {
        format!(
            "tool {shown:?} of server {server:?} is refused by {rule}, not by its own name; change that entry in the config (`mcpdeck config edit`)",
        )
    } else {
        let denied: Vec<&str> = found.deny_tools.iter().map(String::as_str).collect();
        let hint = did_you_mean(&denied, tool).unwrap_or_else(|| {
            if denied.is_empty() {
                "; it denies no tools".to_owned()
            } else {
                format!(
                    "; it denies {}",
                    denied
                        .iter()
                        .map(|t| format!("{:?}", sanitize::one_line(t)))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        });
        format!(
            "tool {shown:?} is not denied on server {server:?} in {}, nothing to allow{hint}",
            path.display()
        )
    };
    Ok(Edited { changed, message })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).expect("written");
        (dir, path)
    }

    #[test]
    fn a_toggle_and_back_gives_the_file_back() {
        let text = "# mine\n[servers.a]\ncommand = \"cat\"\n";
        let (_dir, path) = file(text);
        let done = edit_deny(&path, "a", "rm").expect("denied");
        assert!(done.changed, "{}", done.message);
        let again = edit_deny(&path, "a", "rm").expect("denied");
        assert!(!again.changed);
        assert!(
            again.message.contains("already denied"),
            "{}",
            again.message
        );
        assert!(edit_allow(&path, "a", "rm").expect("allowed").changed);
        assert!(edit_enabled(&path, "a", false).expect("disabled").changed);
        assert!(edit_enabled(&path, "a", true).expect("enabled").changed);
        assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
    }

    #[test]
    fn failures_say_what_to_do_and_leave_the_file() {
        let (_dir, path) = file("[servers.everything]\ncommand = \"cat\"\n");
        let e = edit_enabled(&path, "everythin", true).expect_err("no such server");
        assert!(matches!(e, EditError::NoServer { .. }));
        assert!(
            e.to_string()
                .starts_with("there is no server named \"everythin\" in ")
                && e.to_string().ends_with("; did you mean \"everything\"?"),
            "{e}"
        );
        assert!(matches!(
            edit_deny(&path, "everything", ""),
            Err(EditError::EmptyTool)
        ));
        std::fs::write(&path, "[servers.a]\ncommand = 3\n").expect("written");
        let e = edit_enabled(&path, "a", false).expect_err("invalid");
        assert!(matches!(e, EditError::File(ConfigError::Invalid(_))));
        assert!(
            e.to_string()
                .contains("\nthe file was not changed; fix it first"),
            "{e}"
        );
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "[servers.a]\ncommand = 3\n"
        );
    }
}
