//! Targeted edits of the configuration file, as made by the TUI toggles.
//!
//! Edits go through [`toml_edit::DocumentMut`], so comments, ordering and
//! formatting of everything that is not edited are kept byte for byte. Every
//! edit re-reads the file first: if it was changed by someone else since the
//! editor last read or wrote it, the edit is merged into the new text only
//! when that text is valid and the edited key itself was not changed;
//! otherwise the edit is refused and the file left alone. Files are written
//! atomically (temporary file, fsync, rename, fsync of the directory).
//!
//! # Round trips
//!
//! The toggles (`enabled`, `deny_tools`) give back the file byte for byte
//! when a value returns to what it was. The editor remembers, per server and
//! key, what the file had the first time it changed that key (the key's
//! whole value with its formatting, or that the key was absent):
//!
//! - a key that was absent is added when the value leaves the default
//!   (`enabled = true`, `deny_tools = []`) and removed again when it returns
//!   to it, with the spacing it took over in an inline table given back; a
//!   key that was absent is never added just to hold the default;
//! - a key the user wrote keeps its place and comments whatever its value,
//!   and gets back its exact text (e.g. `[ "x" ]` with its spaces) when the
//!   value returns to what the user wrote.
//!
//! A remembered key that is changed outside mcpdeck (seen when an edit is
//! merged with an external change, or on [`ConfigEditor::reload`]) is
//! forgotten: from then on it is the user's.

use std::borrow::Cow;
use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, Value};

use super::error::ConfigError;
use super::expand::escape;
use super::model::{HttpTransportKind, ProtocolPin, ServerConfig, TransportConfig};
use super::parse::check_server_name;
use super::validate_structure;

type Result<T> = std::result::Result<T, ConfigError>;

/// Makes targeted, comment-preserving edits to a configuration file.
#[derive(Debug, Clone)]
pub struct ConfigEditor {
    path: PathBuf,
    /// The file's text as last read or written by this editor.
    baseline: String,
    /// What the file had for each key this editor changed, before the
    /// first change (see the module documentation).
    originals: Vec<Original>,
}

/// A key of a server table as it was before this editor first changed it.
#[derive(Debug, Clone)]
struct Original {
    server: String,
    key: &'static str,
    /// The value with its formatting; `None` when the key was absent.
    value: Option<Value>,
}

/// A server for [`ConfigEditor::import_servers`].
#[derive(Debug, Clone)]
pub struct NewServer {
    pub server: ServerConfig,
    /// One line written as a comment above the server's header.
    pub comment: Option<String>,
}

/// Which part of the file an edit touches; an external change to it makes
/// the edit conflict.
struct Watch<'a> {
    server: &'a str,
    /// A key of the server table, or `None` for the whole table.
    key: Option<&'a str>,
}

impl ConfigEditor {
    /// Reads the file at `path`. A missing file gives an empty baseline; the
    /// first edit will create it (and its directory).
    pub fn open(path: &Path) -> Result<Self> {
        Ok(Self {
            path: path.to_path_buf(),
            baseline: read_or_empty(path)?,
            originals: Vec::new(),
        })
    }

    /// The file being edited.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's text as this editor last read or wrote it.
    pub fn baseline(&self) -> &str {
        &self.baseline
    }

    /// Re-reads the file, accepting whatever is on disk now as the baseline
    /// (after the user reloaded the configuration).
    pub fn reload(&mut self) -> Result<()> {
        let text = read_or_empty(&self.path)?;
        forget_changed(&mut self.originals, &self.baseline, &text);
        self.baseline = text;
        Ok(())
    }

    /// Sets `enabled` of `server`. An existing value is replaced in place;
    /// otherwise `enabled = false` is added after the server's last key.
    /// Back at `true`, the file is as it was (see the module documentation).
    pub fn set_enabled(&mut self, server: &str, enabled: bool) -> Result<()> {
        self.set_toggle(server, "enabled", Value::from(enabled), enabled)
    }

    /// Sets `deny_tools` of `server`, written as an inline array. Back at
    /// the list the file had (or at the empty list where it had none), the
    /// file is as it was.
    pub fn set_deny_tools(&mut self, server: &str, tools: &[String]) -> Result<()> {
        let array: Array = tools.iter().map(String::as_str).collect();
        self.set_toggle(server, "deny_tools", Value::Array(array), tools.is_empty())
    }

    /// Adds `tool` to the `deny_tools` of `server`, editing the list in
    /// place: the other entries keep their formatting, and the new one goes
    /// last, taking over the spacing before `]`, so that
    /// [`allow_tool`](Self::allow_tool) gives the text back. A server
    /// without the key gets `deny_tools = ["tool"]` after its last key.
    /// Nothing changes if the tool is already listed.
    pub fn deny_tool(&mut self, server: &str, tool: &str) -> Result<()> {
        let watch = Watch {
            server,
            key: Some("deny_tools"),
        };
        self.apply(
            std::slice::from_ref(&watch),
            |document, originals| match deny_array(document, server)? {
                Some(array) => {
                    if !array.iter().any(|v| v.as_str() == Some(tool)) {
                        push_keeping_spacing(array, tool);
                    }
                    Ok(())
                }
                None => {
                    if !originals
                        .iter()
                        .any(|o| o.server == server && o.key == "deny_tools")
                    {
                        originals.push(Original {
                            server: server.to_owned(),
                            key: "deny_tools",
                            value: None,
                        });
                    }
                    let array: Array = std::iter::once(tool).collect();
                    set_server_key(document, server, "deny_tools", Value::Array(array))
                }
            },
        )
    }

    /// Removes `tool` from the `deny_tools` of `server`, in place (the last
    /// entry's spacing goes to the new last one). A list left empty stays
    /// as `[]`, unless this editor added the key (or was told so with
    /// [`assume_added`](Self::assume_added)): then the key goes. Nothing
    /// changes if the tool is not listed.
    pub fn allow_tool(&mut self, server: &str, tool: &str) -> Result<()> {
        let watch = Watch {
            server,
            key: Some("deny_tools"),
        };
        self.apply(std::slice::from_ref(&watch), |document, originals| {
            let Some(array) = deny_array(document, server)? else {
                return Ok(());
            };
            let Some(index) = array.iter().position(|v| v.as_str() == Some(tool)) else {
                return Ok(());
            };
            remove_keeping_spacing(array, index);
            let added = originals
                .iter()
                .any(|o| o.server == server && o.key == "deny_tools" && o.value.is_none());
            if array.is_empty() && added {
                remove_server_key(document, server, "deny_tools")?;
            }
            Ok(())
        })
    }

    /// Sets the `roots` of `server`, written as an inline array of the
    /// directories as typed (a `${VAR}` stays a reference, a relative one
    /// is taken from the config file's folder when loaded); `None` removes
    /// the key, so the server takes the global `[settings] roots`. Comments
    /// and the rest of the file are kept.
    pub fn set_roots(&mut self, server: &str, roots: Option<&[String]>) -> Result<()> {
        let watch = Watch {
            server,
            key: Some("roots"),
        };
        self.apply(std::slice::from_ref(&watch), |document, _| match roots {
            Some(dirs) => {
                let array: Array = dirs.iter().map(String::as_str).collect();
                document::set_server_key(document, server, "roots", Value::Array(array))
            }
            None => document::remove_server_key(document, server, "roots"),
        })
    }

    /// Sets `key` of `server` to `value`, which is the key's default when
    /// `is_default`.
    fn set_toggle(
        &mut self,
        server: &str,
        key: &'static str,
        value: Value,
        is_default: bool,
    ) -> Result<()> {
        let watch = Watch {
            server,
            key: Some(key),
        };
        self.apply(std::slice::from_ref(&watch), |document, originals| {
            toggle_server_key(document, originals, server, key, value, is_default)
        })
    }

    /// Appends a `[servers.NAME]` table for `server`; an error if a server
    /// with that name exists. Strings are written so that loading the file
    /// gives back exactly `server` (`$` is written as `$$`).
    pub fn add_server(&mut self, server: &ServerConfig) -> Result<()> {
        self.add_server_with(server, escape)
    }

    /// Like [`add_server`](Self::add_server), but every string is written
    /// as it is, as if typed into the file: `${VAR}` stays a reference,
    /// expanded when the file is loaded, and `$$` reads as `$`. The result
    /// is validated like every edit (an unterminated `${` is refused).
    pub fn add_server_as_written(&mut self, server: &ServerConfig) -> Result<()> {
        self.add_server_with(server, str::to_owned)
    }

    fn add_server_with(&mut self, server: &ServerConfig, escape: fn(&str) -> String) -> Result<()> {
        check_server_name(&server.name).map_err(|message| self.edit_error(message))?;
        let table = server_table(server, &escape).map_err(|message| self.edit_error(message))?;
        let watch = Watch {
            server: &server.name,
            key: None,
        };
        self.apply(std::slice::from_ref(&watch), |document, _| {
            add_server_table(document, &server.name, table)
        })
    }

    /// Removes the `[servers.NAME]` table of `server` (and its sub-tables).
    /// Comment lines directly above its header go with it; comments separated
    /// from the header by a blank line stay.
    pub fn remove_server(&mut self, server: &str) -> Result<()> {
        let watch = Watch { server, key: None };
        self.apply(std::slice::from_ref(&watch), |document, originals| {
            originals.retain(|original| original.server != server);
            remove_server_table(document, server)
        })
    }

    /// Adds `servers` in one atomic write (all or nothing), after removing
    /// the servers named in `replace`. Strings are written as they are: the
    /// caller writes `${VAR}` for a reference and `$$` for a literal `$`.
    /// A server's `comment` (one line, without `#`) goes on the line above
    /// its header.
    pub fn import_servers(&mut self, replace: &[String], servers: &[NewServer]) -> Result<()> {
        let mut tables = Vec::new();
        for new in servers {
            check_server_name(&new.server.name).map_err(|message| self.edit_error(message))?;
            let mut table = server_table(&new.server, &|text: &str| text.to_owned())
                .map_err(|message| self.edit_error(message))?;
            if let Some(comment) = &new.comment {
                let line: String = comment
                    .chars()
                    .map(|c| if c.is_control() { '?' } else { c })
                    .collect();
                table.decor_mut().set_prefix(format!("\n# {line}\n"));
            }
            tables.push((new.server.name.as_str(), table));
        }
        let watches: Vec<Watch<'_>> = replace
            .iter()
            .map(String::as_str)
            .chain(tables.iter().map(|(name, _)| *name))
            .map(|server| Watch { server, key: None })
            .collect();
        self.apply(&watches, |document, originals| {
            for name in replace {
                originals.retain(|original| &original.server != name);
                remove_server_table(document, name)?;
            }
            for (name, table) in tables {
                add_server_table(document, name, table)?;
            }
            Ok(())
        })
    }

    /// Checks a server name as the parser does (letters, digits, `_`, `.`
    /// and `-`, no `__`); the error is a complete message with a suggestion.
    pub fn check_server_name(name: &str) -> std::result::Result<(), String> {
        check_server_name(name)
    }

    /// Tells this editor that `key` (`enabled` or `deny_tools`) of `server`
    /// was added by mcpdeck, as if this editor had added it: setting it back
    /// to its default removes it. For a new editor (e.g. one per CLI run)
    /// that must undo what an earlier run added. Does nothing if this editor
    /// already remembers the key.
    pub fn assume_added(&mut self, server: &str, key: &'static str) {
        let known = self
            .originals
            .iter()
            .any(|original| original.server == server && original.key == key);
        if !known {
            self.originals.push(Original {
                server: server.to_owned(),
                key,
                value: None,
            });
        }
    }

    /// Whether `key` of `server` looks added by mcpdeck (see
    /// [`looks_added`]): another run (the CLI, another TUI) may have added
    /// it, and setting it back to its default should then remove it.
    pub fn looks_added(&self, server: &str, key: &str) -> bool {
        looks_added(&self.baseline, server, key)
    }

    /// The file as last read or written, validated as before every edit:
    /// its structure only, every `${VAR}` reading as empty. An invalid file
    /// gives the error with its line and column.
    pub fn config(&self) -> Result<super::Config> {
        validate_structure(&self.baseline, &self.path)
    }

    fn edit_error(&self, message: String) -> ConfigError {
        ConfigError::Edit {
            path: self.path.clone(),
            message,
        }
    }

    fn conflict(&self, reason: String) -> ConfigError {
        ConfigError::Conflict {
            path: self.path.clone(),
            reason,
        }
    }

    /// Re-reads the file, checks for conflicting external changes, applies
    /// `edit`, validates the result and writes it atomically.
    fn apply(
        &mut self,
        watches: &[Watch<'_>],
        edit: impl FnOnce(&mut DocumentMut, &mut Vec<Original>) -> std::result::Result<(), String>,
    ) -> Result<()> {
        let current = read_or_empty(&self.path)?;
        let mut originals = self.originals.clone();
        if current == self.baseline {
            validate_structure(&current, &self.path)?;
        } else {
            for watch in watches {
                self.check_merge(&current, watch)?;
            }
            forget_changed(&mut originals, &self.baseline, &current);
        }
        let mut document: DocumentMut = current
            .parse()
            .map_err(|error: toml_edit::TomlError| self.edit_error(error.message().to_owned()))?;
        edit(&mut document, &mut originals).map_err(|message| self.edit_error(message))?;
        let text = render(&document, &current);
        if let Err(error) = validate_structure(&text, &self.path) {
            return Err(self.edit_error(format!(
                "the change would make the file invalid, so nothing was written: {}",
                error.summary()
            )));
        }
        if text != current {
            let path = &self.path;
            write_atomic(path, &text, || {
                // Last check, as close to the rename as possible.
                if read_or_empty(path)? == current {
                    Ok(())
                } else {
                    Err(ConfigError::Conflict {
                        path: path.clone(),
                        reason: "it was changed again while saving".to_owned(),
                    })
                }
            })?;
        }
        self.baseline = text;
        self.originals = originals;
        Ok(())
    }

    /// The file on disk differs from the baseline: the edit may go ahead only
    /// if the new text is valid and the watched part is unchanged.
    fn check_merge(&self, current: &str, watch: &Watch<'_>) -> Result<()> {
        if let Err(error) = validate_structure(current, &self.path) {
            return Err(self.conflict(format!("it is no longer valid ({})", error.summary())));
        }
        let before = self.baseline.parse::<toml::Table>().map_err(|_| {
            self.conflict("the version mcpdeck read before was not valid TOML".to_owned())
        })?;
        let after = current
            .parse::<toml::Table>()
            .map_err(|error| self.conflict(format!("it is no longer valid ({error})")))?;
        let (existed, old) = watched_state(&before, watch);
        let (exists, new) = watched_state(&after, watch);
        let server = watch.server;
        let reason = match (existed, exists) {
            (true, false) => format!("server \"{server}\" was removed there"),
            (false, true) => format!("a server \"{server}\" was added there"),
            _ if old != new => match watch.key {
                Some(key) => format!("server \"{server}\": `{key}` was changed there too"),
                None => format!("server \"{server}\" was changed there too"),
            },
            _ => return Ok(()),
        };
        Err(self.conflict(reason))
    }
}

/// Forgets the remembered keys whose value or its formatting (a comment
/// after it, too) differs between the texts `before` and `after`: changed
/// outside mcpdeck, they are now the user's. Texts that do not parse forget
/// everything.
fn forget_changed(originals: &mut Vec<Original>, before: &str, after: &str) {
    if originals.is_empty() || before == after {
        return;
    }
    let (Ok(before), Ok(after)) = (before.parse::<DocumentMut>(), after.parse::<DocumentMut>())
    else {
        originals.clear();
        return;
    };
    let text = |document: &DocumentMut, original: &Original| {
        document
            .get("servers")
            .and_then(Item::as_table_like)
            .and_then(|servers| servers.get(&original.server))
            .and_then(Item::as_table_like)
            .and_then(|table| table.get(original.key))
            .map(Item::to_string)
    };
    originals.retain(|original| text(&before, original) == text(&after, original));
}

/// Whether the watched server exists, and the watched value.
fn watched_state<'t>(table: &'t toml::Table, watch: &Watch<'_>) -> (bool, Option<&'t toml::Value>) {
    let server = table
        .get("servers")
        .and_then(toml::Value::as_table)
        .and_then(|servers| servers.get(watch.server));
    let value = match (server, watch.key) {
        (Some(server), Some(key)) => server.as_table().and_then(|table| table.get(key)),
        (server, _) => server,
    };
    (server.is_some(), value)
}

/// Reads the file; a file that does not exist (or whose directory does not
/// exist) reads as empty.
fn read_or_empty(path: &Path) -> Result<String> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(String::new())
        }
        Err(source) => Err(ConfigError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

mod atomic;
mod document;
mod toggle;

use atomic::*;
pub use document::import_preview;
use document::*;
pub use toggle::{EditError, Edited, edit_allow, edit_deny, edit_enabled, find_server};

/// Whether `key` of `server` in `text` looks added by mcpdeck: no comment
/// on or above it, and only such toggle keys after it in its table (see the
/// module documentation).
pub(crate) fn looks_added(text: &str, server: &str, key: &str) -> bool {
    let Ok(document) = text.parse::<DocumentMut>() else {
        return false;
    };
    let Some(table) = document
        .get("servers")
        .and_then(Item::as_table_like)
        .and_then(|servers| servers.get(server))
        .and_then(Item::as_table_like)
    else {
        return false;
    };
    let has_comment = |decor: &toml_edit::Decor| {
        [decor.prefix(), decor.suffix()]
            .into_iter()
            .flatten()
            .any(|raw| raw.as_str().is_some_and(|s| s.contains('#')))
    };
    let mut seen = false;
    for (name, item) in table.iter() {
        seen |= name == key;
        if !seen || matches!(item, Item::Table(_)) {
            continue;
        }
        let Some(value) = item.as_value() else {
            return false;
        };
        let key_comment = table
            .get_key_value(name)
            .is_some_and(|(k, _)| has_comment(k.leaf_decor()));
        let toggle = matches!(name, "enabled" | "deny_tools")
            && matches!(value, Value::Boolean(_) | Value::Array(_));
        if !toggle || key_comment || has_comment(value.decor()) {
            return false;
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, load_str};

    const COMMENTED: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/config/commented.toml"
    ));

    /// A temporary directory with `config.toml` holding `text`.
    fn setup(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        fs::write(&path, text).unwrap();
        (dir, path)
    }

    fn load(path: &Path) -> Config {
        load_str(&fs::read_to_string(path).unwrap(), Some(path), &|_| None).unwrap()
    }

    /// Names of the files in `dir`.
    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Asserts that `new` is `old` with line `index` (0-based) replaced by
    /// `replacement`, or with `replacement` inserted before it.
    fn assert_one_line_changed(
        old: &str,
        new: &str,
        index: usize,
        replacement: &str,
        insert: bool,
    ) {
        let mut expected: Vec<&str> = old.split_inclusive('\n').collect();
        let line = format!("{replacement}\n");
        if insert {
            expected.insert(index, &line);
        } else {
            expected[index] = &line;
        }
        assert_eq!(new, expected.concat());
    }

    fn line_index(text: &str, starts_with: &str) -> usize {
        text.lines()
            .position(|line| line.starts_with(starts_with))
            .unwrap_or_else(|| panic!("no line starting with {starts_with:?}"))
    }

    #[test]
    fn toggling_enabled_changes_only_that_line() {
        let (_dir, path) = setup(COMMENTED);
        let mut editor = ConfigEditor::open(&path).unwrap();
        editor.set_enabled("everything", false).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let index = line_index(COMMENTED, "enabled = true");
        assert_one_line_changed(
            COMMENTED,
            &text,
            index,
            "enabled = false         # toggled by the TUI",
            false,
        );
        assert_eq!(editor.baseline(), text);
        assert!(!load(&path).server("everything").unwrap().enabled);

        // And back.
        editor.set_enabled("everything", true).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), COMMENTED);
    }

    #[test]
    fn absent_enabled_is_inserted_after_the_last_key() {
        let (_dir, path) = setup(COMMENTED);
        let mut editor = ConfigEditor::open(&path).unwrap();
        editor.set_enabled("remote", false).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let index = line_index(COMMENTED, "headers = ") + 1;
        assert_one_line_changed(COMMENTED, &text, index, "enabled = false", true);

        // The default is not written where there was no key.
        let (_dir, path) = setup(COMMENTED);
        let mut editor = ConfigEditor::open(&path).unwrap();
        editor.set_enabled("remote", true).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), COMMENTED);
    }

    #[test]
    fn inline_server_tables_are_edited_in_place() {
        let (_dir, path) = setup(COMMENTED);
        let mut editor = ConfigEditor::open(&path).unwrap();
        editor.set_enabled("inline", false).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let index = line_index(COMMENTED, "inline = ");
        assert_one_line_changed(
            COMMENTED,
            &text,
            index,
            "inline = { command = \"cat\", env = { A = \"1\" }, enabled = false } # last server",
            false,
        );
        assert!(!load(&path).server("inline").unwrap().enabled);
    }

    #[test]
    fn deny_tools_is_written_as_an_inline_array() {
        let (_dir, path) = setup(COMMENTED);
        let mut editor = ConfigEditor::open(&path).unwrap();
        let tools = vec!["get-env".to_owned(), "echo".to_owned()];
        editor.set_deny_tools("everything", &tools).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let index = line_index(COMMENTED, "deny_tools = ");
        assert_one_line_changed(
            COMMENTED,
            &text,
            index,
            "deny_tools = [\"get-env\", \"echo\"]  # hidden",
            false,
        );
        assert_eq!(load(&path).server("everything").unwrap().deny_tools, tools);

        // An empty list where there was none is not written.
        editor.set_deny_tools("remote", &[]).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        // A user's list keeps its place when it becomes empty.
        editor.set_deny_tools("everything", &[]).unwrap();
        let emptied = fs::read_to_string(&path).unwrap();
        assert_one_line_changed(
            COMMENTED,
            &emptied,
            index,
            "deny_tools = []  # hidden",
            false,
        );
        assert!(
            load(&path)
                .server("everything")
                .unwrap()
                .deny_tools
                .is_empty()
        );
    }

    /// Files for the round trips: every shape a server can be written in,
    /// with and without the toggled keys, comments around.
    const ROUND_TRIP: &[&str] = &[
        COMMENTED,
        // [servers.NAME] tables, keys absent, a sub-table and comments.
        "# header\n\n[servers.a] # a\ncommand = \"x\" # the command\n# before env\n[servers.a.env]\nK = \"v\"\n\n# about b\n[servers.b]\nurl = \"https://example.com/mcp\"\n\n# the end\n",
        // The last table, no final newline.
        "[servers.a]\ncommand = \"x\"",
        // Keys present, written by the user with their own formatting.
        "[servers.a]\ncommand = \"x\"\nenabled = true # kept\ndeny_tools = [ \"x\",\"y\" ] # mine\nargs = [\"1\"]\n",
        "[servers.a]\ncommand = \"x\"\nenabled=false\ndeny_tools = []\n",
        // Inline tables, keys absent, present, tight and spaced.
        "[servers]\n# about a\na = { command = \"x\", env = { A = \"1\" } } # a\nb = {url=\"https://example.com/mcp\"}\n# end\n",
        "[servers]\na = {   command = \"x\" ,  enabled = true,deny_tools=[ \"x\" ]   }\n",
        "servers = { a = { command = \"x\" } }\n",
        // CRLF line endings.
        "# c\r\n[servers.a]\r\ncommand = \"x\" # k\r\n\r\n[servers.b]\r\ncommand = \"y\"\r\n",
    ];

    #[test]
    fn enabled_off_and_on_gives_the_file_back_byte_for_byte() {
        for original in ROUND_TRIP {
            let (_dir, path) = setup(original);
            let config = load(&path);
            let mut editor = ConfigEditor::open(&path).unwrap();
            for server in &config.servers {
                let enabled = server.enabled;
                editor.set_enabled(&server.name, !enabled).unwrap();
                let changed = fs::read_to_string(&path).unwrap();
                assert_ne!(&changed, original, "{:?} {}", original, server.name);
                assert_eq!(load(&path).server(&server.name).unwrap().enabled, !enabled);
                editor.set_enabled(&server.name, enabled).unwrap();
                assert_eq!(
                    &fs::read_to_string(&path).unwrap(),
                    original,
                    "{} toggled twice",
                    server.name
                );
            }
            // Several times over, and interleaved with another server's.
            let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
            for _ in 0..2 {
                for name in &names {
                    editor.set_enabled(name, false).unwrap();
                }
                for name in names.iter().rev() {
                    let enabled = config.server(name).unwrap().enabled;
                    editor.set_enabled(name, enabled).unwrap();
                    editor.set_enabled(name, enabled).unwrap();
                }
                for name in &names {
                    let enabled = config.server(name).unwrap().enabled;
                    editor.set_enabled(name, enabled).unwrap();
                }
            }
            assert_eq!(&fs::read_to_string(&path).unwrap(), original);
        }
    }

    #[test]
    fn deny_twice_gives_the_file_back_byte_for_byte() {
        for original in ROUND_TRIP {
            let (_dir, path) = setup(original);
            let config = load(&path);
            let mut editor = ConfigEditor::open(&path).unwrap();
            for server in &config.servers {
                let before = server.deny_tools.clone();
                // `d` on a tool denies it; `d` again allows it.
                let mut denied = before.clone();
                denied.push("echo".to_owned());
                editor.set_deny_tools(&server.name, &denied).unwrap();
                assert_eq!(load(&path).server(&server.name).unwrap().deny_tools, denied);
                editor.set_deny_tools(&server.name, &before).unwrap();
                assert_eq!(
                    &fs::read_to_string(&path).unwrap(),
                    original,
                    "{}: d twice",
                    server.name
                );
                // Allowing a listed tool and denying it again.
                if let Some(first) = before.first() {
                    let allowed: Vec<String> =
                        before.iter().filter(|t| *t != first).cloned().collect();
                    editor.set_deny_tools(&server.name, &allowed).unwrap();
                    assert_eq!(
                        load(&path).server(&server.name).unwrap().deny_tools,
                        allowed
                    );
                    editor.set_deny_tools(&server.name, &before).unwrap();
                    assert_eq!(&fs::read_to_string(&path).unwrap(), original);
                }
            }
        }
    }

    #[test]
    fn both_toggles_together_round_trip() {
        for original in ROUND_TRIP {
            let (_dir, path) = setup(original);
            let config = load(&path);
            let mut editor = ConfigEditor::open(&path).unwrap();
            let server = &config.servers[0];
            editor.set_enabled(&server.name, !server.enabled).unwrap();
            editor
                .set_deny_tools(&server.name, &["a".to_owned(), "b".to_owned()])
                .unwrap();
            editor.set_enabled(&server.name, server.enabled).unwrap();
            editor
                .set_deny_tools(&server.name, &server.deny_tools)
                .unwrap();
            assert_eq!(&fs::read_to_string(&path).unwrap(), original);
        }
    }

    #[test]
    fn a_key_changed_outside_is_the_users() {
        let original = "[servers.a]\ncommand = \"x\"\n";
        let (_dir, path) = setup(original);
        let mut editor = ConfigEditor::open(&path).unwrap();
        editor.set_enabled("a", false).unwrap();
        // The user edits the key mcpdeck added, then reloads.
        let external = "[servers.a]\ncommand = \"x\"\nenabled = false # mine now\n";
        fs::write(&path, external).unwrap();
        editor.reload().unwrap();
        editor.set_enabled("a", true).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "[servers.a]\ncommand = \"x\"\nenabled = true # mine now\n"
        );

        // An external change elsewhere keeps what mcpdeck added removable.
        let (_dir, path) = setup(original);
        let mut editor = ConfigEditor::open(&path).unwrap();
        editor.set_enabled("a", false).unwrap();
        let added = fs::read_to_string(&path).unwrap();
        fs::write(&path, format!("# note\n{added}")).unwrap();
        editor.set_enabled("a", true).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            format!("# note\n{original}")
        );
    }

    #[test]
    fn line_endings_and_missing_final_newline_are_kept() {
        let crlf = "# c\r\n[servers.a]\r\ncommand = \"x\" # k\r\n";
        let (_dir, path) = setup(crlf);
        ConfigEditor::open(&path)
            .unwrap()
            .set_enabled("a", false)
            .unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "# c\r\n[servers.a]\r\ncommand = \"x\" # k\r\nenabled = false\r\n"
        );

        let (_dir, path) = setup("# c\r\n\r\n[servers.a]\r\ncommand = \"x\"\r\n");
        let mut editor = ConfigEditor::open(&path).unwrap();
        editor
            .add_server(&ServerConfig::stdio("b", "y", &[]))
            .unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "# c\r\n\r\n[servers.a]\r\ncommand = \"x\"\r\n\r\n[servers.b]\r\ncommand = \"y\"\r\n"
        );
        editor.remove_server("a").unwrap();
        editor.remove_server("b").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "# c\r\n");

        let bare = "[servers.a]\ncommand = \"x\"";
        let (_dir, path) = setup(bare);
        ConfigEditor::open(&path)
            .unwrap()
            .set_enabled("a", false)
            .unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "[servers.a]\ncommand = \"x\"\nenabled = false"
        );
    }

    #[test]
    fn unknown_servers_are_errors() {
        let (_dir, path) = setup(COMMENTED);
        let mut editor = ConfigEditor::open(&path).unwrap();
        let error = editor.set_enabled("nope", false).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{}: there is no server \"nope\" in the file",
                path.display()
            )
        );
        assert!(editor.remove_server("nope").is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), COMMENTED);
    }

    #[test]
    fn add_server_round_trips() {
        let (dir, path) = setup(COMMENTED);
        let mut editor = ConfigEditor::open(&path).unwrap();
        let stdio = ServerConfig {
            transport: TransportConfig::Stdio {
                command: "/opt/$bin/server".into(),
                args: vec!["--price=$5".into(), "${NOT_EXPANDED}".into()],
                env: vec![("Z".into(), "1".into()), ("A".into(), "$$".into())],
                cwd: Some("/srv".into()),
            },
            enabled: false,
            deny_tools: vec!["rm".into()],
            protocol: ProtocolPin::Version("2025-03-26".into()),
            timeout: Some(Duration::from_millis(1500)),
            ..ServerConfig::stdio("new.local", "x", &[])
        };
        let http = ServerConfig {
            transport: TransportConfig::Http {
                url: "https://example.org/mcp".into(),
                headers: vec![("X-Key".into(), "v".into())],
                transport: HttpTransportKind::Sse,
                ca_file: None,
                insecure: false,
                oauth: None,
            },
            protocol: ProtocolPin::Initialize,
            timeout: Some(Duration::from_secs(7)),
            ..ServerConfig::http("new-remote", "unused")
        };
        editor.add_server(&stdio).unwrap();
        editor.add_server(&http).unwrap();
        let minimal = ServerConfig::stdio("minimal", "cat", &[]);
        editor.add_server(&minimal).unwrap();

        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(
            COMMENTED.trim_end_matches("# trailing comment at the end of the file\n")
        ));
        assert!(text.contains("\n[servers.\"new.local\"]\ncommand = \"/opt/$$bin/server\"\n"));
        assert!(text.contains("\n[servers.minimal]\ncommand = \"cat\"\n"));
        let config = load(&path);
        assert_eq!(config.server("new.local"), Some(&stdio));
        assert_eq!(config.server("new-remote"), Some(&http));
        assert_eq!(config.server("minimal"), Some(&minimal));
        assert_eq!(listing(dir.path()), ["config.toml"]);

        let error = editor.add_server(&minimal).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("a server named \"minimal\" already exists"),
            "{error}"
        );
        let error = editor
            .add_server(&ServerConfig::stdio("a__b", "x", &[]))
            .unwrap_err();
        assert!(
            error.to_string().contains("must not contain `__`"),
            "{error}"
        );
        let error = editor
            .add_server(&ServerConfig {
                protocol: ProtocolPin::Version("1999-01-01".into()),
                ..ServerConfig::stdio("bad", "x", &[])
            })
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("the change would make the file invalid"),
            "{error}"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn import_servers_is_one_write_with_comments_or_nothing() {
        let (_dir, path) = setup(COMMENTED);
        let mut editor = ConfigEditor::open(&path).unwrap();
        let new = |server: ServerConfig, comment: &str| NewServer {
            server,
            comment: Some(comment.to_owned()),
        };
        // A bad server among good ones: nothing is written.
        let bad = ServerConfig {
            protocol: ProtocolPin::Version("1999-01-01".into()),
            ..ServerConfig::stdio("bad", "x", &[])
        };
        let error = editor
            .import_servers(
                &[],
                &[
                    new(ServerConfig::stdio("one", "a", &[]), "c"),
                    new(bad, "c"),
                ],
            )
            .unwrap_err();
        assert!(
            error.to_string().contains("would make the file invalid"),
            "{error}"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), COMMENTED);

        // References are written as they are; the comment goes above the
        // header; a replaced server is removed in the same write.
        let env = ServerConfig {
            transport: TransportConfig::Stdio {
                command: "npx".into(),
                args: vec!["$$5".into()],
                env: vec![("TOKEN".into(), "${TOKEN}".into())],
                cwd: None,
            },
            ..ServerConfig::stdio("remote", "x", &[])
        };
        editor
            .import_servers(
                &["remote".to_owned()],
                &[new(env, "imported from Cursor: /h/.cursor/mcp.json\nx")],
            )
            .unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(
                "\n# imported from Cursor: /h/.cursor/mcp.json?x\n[servers.remote]\ncommand = \"npx\"\nargs = [\"$$5\"]\nenv = { TOKEN = \"${TOKEN}\" }\n"
            ),
            "{text}"
        );
        assert_eq!(text.matches("[servers.remote]").count(), 1);
        assert!(text.starts_with(&COMMENTED[..COMMENTED.find("[servers.everything]").unwrap()]));
        assert!(text.ends_with("# trailing comment at the end of the file\n"));
    }

    #[test]
    fn add_server_creates_the_file_and_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcpdeck").join("config.toml");
        let mut editor = ConfigEditor::open(&path).unwrap();
        assert_eq!(editor.baseline(), "");
        editor
            .add_server(&ServerConfig::stdio("demo", "mcpdeck", &["demo"]))
            .unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "[servers.demo]\ncommand = \"mcpdeck\"\nargs = [\"demo\"]\n"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn remove_server_keeps_unrelated_comments() {
        let text = "# File header.\n\n# About a.\n[servers.a]\ncommand = \"a\"\n[servers.a.env]\nK = \"v\"\n\n# About b.\n[servers.b]\ncommand = \"b\"\n\n# About c.\n[servers.c]\ncommand = \"c\" # c!\n";
        let (_dir, path) = setup(text);
        let mut editor = ConfigEditor::open(&path).unwrap();
        editor.remove_server("b").unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "# File header.\n\n# About a.\n[servers.a]\ncommand = \"a\"\n[servers.a.env]\nK = \"v\"\n\n# About c.\n[servers.c]\ncommand = \"c\" # c!\n"
        );
        editor.remove_server("a").unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "# File header.\n\n# About c.\n[servers.c]\ncommand = \"c\" # c!\n"
        );
        editor.remove_server("c").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "# File header.\n");
        assert!(load(&path).servers.is_empty());
    }

    #[test]
    fn external_edit_of_another_server_is_merged() {
        let (_dir, path) = setup(COMMENTED);
        let mut editor = ConfigEditor::open(&path).unwrap();
        let external = COMMENTED.replace(
            "url = \"https://example.com/mcp\"",
            "url = \"https://example.com/v2/mcp\"",
        );
        fs::write(&path, &external).unwrap();
        editor.set_enabled("everything", false).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            external.replace(
                "enabled = true         # toggled",
                "enabled = false         # toggled"
            )
        );
        let config = load(&path);
        assert!(!config.server("everything").unwrap().enabled);
        let TransportConfig::Http { url, .. } = &config.server("remote").unwrap().transport else {
            panic!("not http");
        };
        assert_eq!(url, "https://example.com/v2/mcp");
        assert_eq!(editor.baseline(), text);
    }

    #[test]
    fn external_edit_of_the_same_key_is_refused() {
        let (_dir, path) = setup(COMMENTED);
        let mut editor = ConfigEditor::open(&path).unwrap();
        let external = COMMENTED.replace("enabled = true ", "enabled = false");
        fs::write(&path, &external).unwrap();
        let error = editor.set_enabled("everything", false).unwrap_err();
        assert!(matches!(error, ConfigError::Conflict { .. }), "{error}");
        assert_eq!(
            error.to_string(),
            format!(
                "{} changed on disk: server \"everything\": `enabled` was changed there too; the file was left as it is — reload it with R, then try again",
                path.display()
            )
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), external);

        // Same for a server removed on disk, and for a server added there.
        let removed = COMMENTED.replace("[servers.remote]", "[servers.remote2]");
        fs::write(&path, &removed).unwrap();
        let error = editor.set_deny_tools("remote", &[]).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("server \"remote\" was removed there"),
            "{error}"
        );
        let error = editor
            .add_server(&ServerConfig::stdio("remote2", "x", &[]))
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("a server \"remote2\" was added there"),
            "{error}"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), removed);

        // After a reload the edit goes through.
        editor.reload().unwrap();
        editor.set_enabled("remote2", false).unwrap();
        assert!(!load(&path).server("remote2").unwrap().enabled);
    }

    #[test]
    fn external_edit_that_breaks_the_file_is_refused() {
        let (_dir, path) = setup(COMMENTED);
        let mut editor = ConfigEditor::open(&path).unwrap();
        for broken in [
            format!("{COMMENTED}\n[servers.x\n"),
            COMMENTED.replace("command = \"npx\"", "comand = \"npx\""),
        ] {
            fs::write(&path, &broken).unwrap();
            let error = editor.set_enabled("remote", false).unwrap_err();
            assert!(matches!(error, ConfigError::Conflict { .. }), "{error}");
            assert!(
                error.to_string().contains("it is no longer valid ("),
                "{error}"
            );
            assert_eq!(fs::read_to_string(&path).unwrap(), broken);
        }
    }

    #[test]
    fn an_invalid_file_is_never_edited() {
        let text = "[servers.a]\ncommand = \"x\"\nbogus = 1\n";
        let (_dir, path) = setup(text);
        let mut editor = ConfigEditor::open(&path).unwrap();
        let error = editor.set_enabled("a", false).unwrap_err();
        let diagnostic = error.diagnostic().unwrap();
        assert_eq!(
            diagnostic.position().map(|p| (p.line, p.column)),
            Some((3, 1))
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn missing_variables_do_not_block_edits() {
        let text = "[servers.a]\nurl = \"${MCPDECK_TEST_UNSET_URL}\"\n";
        let (_dir, path) = setup(text);
        let mut editor = ConfigEditor::open(&path).unwrap();
        editor.set_enabled("a", false).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            format!("{text}enabled = false\n")
        );
    }

    #[cfg(unix)]
    #[test]
    fn atomic_write_preserves_permissions_and_leaves_no_temp_files() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, path) = setup(COMMENTED);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        let mut editor = ConfigEditor::open(&path).unwrap();
        editor.set_enabled("everything", false).unwrap();
        editor.set_deny_tools("remote", &["x".to_owned()]).unwrap();
        editor.remove_server("inline").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        assert_eq!(listing(dir.path()), ["config.toml"]);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_followed_not_replaced() {
        let (dir, real) = setup(COMMENTED);
        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut editor = ConfigEditor::open(&link).unwrap();
        editor.set_enabled("everything", false).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(!load(&real).server("everything").unwrap().enabled);
        assert_eq!(listing(dir.path()), ["config.toml", "link.toml"]);
    }

    #[test]
    fn unwritable_location_fails_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("not-a-dir");
        fs::write(&blocker, "").unwrap();
        let path = blocker.join("config.toml");
        let mut editor = ConfigEditor::open(&path).unwrap();
        let error = editor
            .add_server(&ServerConfig::stdio("a", "x", &[]))
            .unwrap_err();
        assert!(matches!(error, ConfigError::Write { .. }), "{error}");
        assert!(
            error
                .to_string()
                .starts_with(&format!("cannot write {}: ", path.display())),
            "{error}"
        );
        assert_eq!(listing(dir.path()), ["not-a-dir"]);
        assert_eq!(editor.baseline(), "");
    }

    #[test]
    fn failed_rename_removes_the_temp_file() {
        // The target is a non-empty directory, so the final rename fails
        // after the temporary file was written.
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("config.toml");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("keep"), "x").unwrap();
        let error = write_atomic(&target, "a = 1\n", || Ok(())).unwrap_err();
        assert!(matches!(error, ConfigError::Write { .. }), "{error}");
        assert_eq!(listing(dir.path()), ["config.toml"]);
        assert_eq!(listing(&target), ["keep"]);
    }

    #[test]
    fn change_while_saving_is_refused() {
        let (dir, path) = setup("a = 1\n");
        let conflict = || {
            Err(ConfigError::Conflict {
                path: PathBuf::from("x"),
                reason: "changed".into(),
            })
        };
        let error = write_atomic(&path, "a = 2\n", conflict).unwrap_err();
        assert!(matches!(error, ConfigError::Conflict { .. }), "{error}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "a = 1\n");
        assert_eq!(listing(dir.path()), ["config.toml"]);
    }

    #[test]
    fn deny_tool_then_allow_tool_gives_the_file_back() {
        for original in ROUND_TRIP {
            let (_dir, path) = setup(original);
            let config = load(&path);
            for server in &config.servers {
                let mut editor = ConfigEditor::open(&path).unwrap();
                editor.deny_tool(&server.name, "zz").unwrap();
                let mut denied = server.deny_tools.clone();
                denied.push("zz".to_owned());
                assert_eq!(load(&path).server(&server.name).unwrap().deny_tools, denied);
                // Twice is once.
                let once = fs::read_to_string(&path).unwrap();
                editor.deny_tool(&server.name, "zz").unwrap();
                assert_eq!(fs::read_to_string(&path).unwrap(), once);
                editor.allow_tool(&server.name, "zz").unwrap();
                assert_eq!(
                    &fs::read_to_string(&path).unwrap(),
                    original,
                    "{}: {original:?}",
                    server.name
                );
            }
        }
    }

    #[test]
    fn a_new_editor_told_a_key_was_added_removes_it() {
        let (_dir, path) = setup(COMMENTED);
        ConfigEditor::open(&path)
            .unwrap()
            .deny_tool("remote", "echo")
            .unwrap();
        ConfigEditor::open(&path)
            .unwrap()
            .set_enabled("remote", false)
            .unwrap();
        // Without being told, the emptied list stays.
        let (_dir2, copy) = setup(&fs::read_to_string(&path).unwrap());
        ConfigEditor::open(&copy)
            .unwrap()
            .allow_tool("remote", "echo")
            .unwrap();
        assert!(
            fs::read_to_string(&copy)
                .unwrap()
                .contains("deny_tools = []")
        );
        // Told, it goes, and so does `enabled`.
        let mut editor = ConfigEditor::open(&path).unwrap();
        editor.assume_added("remote", "deny_tools");
        editor.allow_tool("remote", "echo").unwrap();
        let mut editor = ConfigEditor::open(&path).unwrap();
        editor.assume_added("remote", "enabled");
        editor.set_enabled("remote", true).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), COMMENTED);
    }

    #[test]
    fn add_server_as_written_keeps_references() {
        let (_dir, path) = setup("");
        let mut editor = ConfigEditor::open(&path).unwrap();
        let mut server = ServerConfig::http("gh", "https://${HOST:-example.com}/mcp");
        if let TransportConfig::Http { headers, .. } = &mut server.transport {
            headers.push(("Authorization".into(), "Bearer ${TOKEN}".into()));
        }
        editor.add_server_as_written(&server).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "[servers.gh]\nurl = \"https://${HOST:-example.com}/mcp\"\nheaders = { Authorization = \"Bearer ${TOKEN}\" }\n"
        );
        // An unterminated reference is refused; nothing is written.
        let bad = ServerConfig::stdio("bad", "echo", &["${oops"]);
        let before = fs::read_to_string(&path).unwrap();
        assert!(editor.add_server_as_written(&bad).is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), before);
        assert!(ConfigEditor::check_server_name("a__b").is_err());
    }
}
