//! The demo server's Agent Skills, served through the MCP Skills extension
//! (`io.modelcontextprotocol/skills`, SEP-2640).
//!
//! Each skill is a directory of small text files under `skill://`. At
//! startup [`Skills::build`] turns them into what the extension's methods
//! answer: the `Skill` entries of `skills/list` and `skills/get` (each
//! `SKILL.md`'s YAML frontmatter as JSON, and every file's size and SHA-256
//! digest, computed here from the bytes served), the contents
//! `resources/read` returns for each file, and the direct children of every
//! directory for `resources/directory/read`.
//!
//! The frontmatter is read from the `SKILL.md` text itself by [`frontmatter`],
//! which accepts only a small, unambiguous subset of YAML (plain `key: value`
//! strings, double-quoted strings without escapes, and one level of nested
//! map) and refuses anything else, so the JSON it gives is exactly what a
//! YAML parser gives for the same block.

use std::collections::{BTreeMap, HashMap};

use ring::digest;
use serde_json::{Map, Value, json};

/// The extension's identifier, under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

const SCHEME: &str = "skill://";
const SKILL_FILE: &str = "SKILL.md";
const DIRECTORY_MIME: &str = "inode/directory";

/// One skill as it is written: its `<skill-path>` and its files (path
/// relative to the skill's root, text), `SKILL.md` first.
struct Source {
    path: &'static str,
    files: &'static [(&'static str, &'static str)],
}

const SOURCES: &[Source] = &[
    Source {
        path: "demo-tour",
        files: &[
            (SKILL_FILE, DEMO_TOUR_SKILL),
            ("references/KEYS.md", DEMO_TOUR_KEYS),
        ],
    },
    Source {
        path: "docs/release-notes",
        files: &[
            (SKILL_FILE, RELEASE_NOTES_SKILL),
            ("templates/release.md", RELEASE_NOTES_RELEASE),
            ("templates/hotfix.md", RELEASE_NOTES_HOTFIX),
        ],
    },
];

const DEMO_TOUR_SKILL: &str = "---
name: demo-tour
description: Explore mcpdeck's built-in demo server, its tools, resources, prompts and skills, in both protocol eras. Use when someone runs mcpdeck --demo for the first time or asks what an MCP server can offer.
---

# A tour of the demo server

The demo server is built into mcpdeck and needs nothing else. Open it with
`mcpdeck --demo` (the TUI), or `mcpdeck --demo | cat` for a short headless tour.

1. `mcpdeck --demo servers`: the three demo servers, `demo` (both eras),
   `demo-legacy` (the initialize handshake) and `demo-stateless` (2026-07-28).
2. `mcpdeck --demo tools demo`, then
   `mcpdeck --demo call demo echo '{\"message\":\"hi\"}'`. `everything_mixed`
   returns one block of every content type; `fail` shows a tool-level error.
3. `mcpdeck --demo read demo demo://readme` reads a resource, and
   `mcpdeck --demo prompts demo` lists the prompts.
4. `slow_task` sends progress; Esc on its result in the TUI cancels it.
5. `mcpdeck --demo info demo-stateless` shows the 2026-07-28 era's discovery.

The TUI's keys for this tour are in `references/KEYS.md`.
";

const DEMO_TOUR_KEYS: &str = "# Keys for the demo tour

| key | what it does |
|---|---|
| Tab, Shift-Tab | next and previous pane |
| ↑ ↓ or k j | move |
| t | tools of the selected server, or of all servers |
| Enter | open the argument editor on the selected tool |
| Ctrl-S | send the call |
| Esc | go back; on a running call's result, cancel that call |
| [ ] | the previous and the next call |
| e | resources of the selected server |
| P | prompts of the selected server |
| L | the protocol log: every raw frame |
| H | the history of calls |
| ? | help |
| q | quit |
";

const RELEASE_NOTES_SKILL: &str = "---
name: release-notes
description: Write release notes for a project from its merged changes, grouped by kind and written for its users. Use when preparing a release or announcing a hotfix.
license: MIT
metadata:
  author: mcpdeck
  version: \"1.2\"
---

# Release notes

1. Collect the changes since the last release (with git:
   `git log --oneline <last-tag>..HEAD`).
2. Sort them into breaking changes, added, changed and fixed; leave out
   internal chores (CI, refactors nobody can see).
3. Pick a template from `templates/`: `templates/release.md` for a planned
   release, `templates/hotfix.md` for one urgent fix.
4. Write one line per change, from the user's side, naming its issue or
   pull request.
5. Put breaking changes first, each with what to do about it.
";

const RELEASE_NOTES_RELEASE: &str = "# {project} {version}

Released {date}.

## Breaking changes
- {what changed}: {what to do about it}

## Added
- {feature} (#{pull request})

## Changed
- {behaviour that changed} (#{pull request})

## Fixed
- {the bug, as users saw it} (#{issue})

Thanks to everyone who contributed: {contributors}.
";

const RELEASE_NOTES_HOTFIX: &str = "# {project} {version} (hotfix)

Released {date}. Upgrade now if you use {the affected feature}.

## Fixed
- {the bug, as users saw it} (#{issue})

Nothing else changed since {previous version}.
";

/// One file of a skill, as `resources/read` serves it.
struct File {
    mime: &'static str,
    text: &'static str,
}

/// The demo server's skills, built once at startup.
pub struct Skills {
    /// The `Skill` entries, in the order `skills/list` gives them.
    entries: Vec<Value>,
    /// `SKILL.md` URI → index in `entries`.
    by_uri: HashMap<String, usize>,
    /// File URI → its contents.
    files: HashMap<String, File>,
    /// Directory URI → (its number, for cursors; its direct children).
    directories: HashMap<String, (usize, Vec<Value>)>,
}

impl Skills {
    /// Build the entries, digests and directory listings from [`SOURCES`].
    ///
    /// Panics if a built-in skill is malformed (a unit test builds them).
    pub fn build() -> Skills {
        let mut entries = Vec::new();
        let mut by_uri = HashMap::new();
        let mut files = HashMap::new();
        // Directory URI → child URI → child metadata (sorted by URI).
        let mut tree: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();

        for source in SOURCES {
            let root = format!("{SCHEME}{}", source.path);
            let skill_uri = format!("{root}/{SKILL_FILE}");
            let (first, _) = source.files.first().expect("a skill has files");
            assert_eq!(*first, SKILL_FILE, "{root}: SKILL.md comes first");
            let skill_md = source.files[0].1;
            let front = frontmatter(skill_md).unwrap_or_else(|e| panic!("{skill_uri}: {e}"));
            let name = front.get("name").and_then(Value::as_str).unwrap_or("");
            assert_eq!(
                Some(name),
                source.path.rsplit('/').next(),
                "{skill_uri}: the name is the last segment of the skill's path"
            );
            let description = front
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("{skill_uri}: no description"));

            let mut manifest = Vec::new();
            for &(path, text) in source.files {
                let uri = format!("{root}/{path}");
                let mime = mime_of(path);
                manifest.push(json!({
                    "uri": uri,
                    "digest": sha256(text.as_bytes()),
                    "size": text.len(),
                }));
                let mut meta = json!({"uri": uri, "name": last_segment(&uri), "mimeType": mime});
                if path == SKILL_FILE {
                    // A SKILL.md resource is named and described by its frontmatter.
                    meta["name"] = json!(name);
                    meta["description"] = json!(description);
                }
                meta["size"] = json!(text.len());
                add_to_tree(&mut tree, &uri, meta);
                let previous = files.insert(uri.clone(), File { mime, text });
                assert!(previous.is_none(), "{uri} is served twice");
            }

            by_uri.insert(skill_uri.clone(), entries.len());
            entries.push(json!({
                "uri": skill_uri,
                "frontmatter": front,
                "resources": manifest,
            }));
        }

        let directories = tree
            .into_iter()
            .enumerate()
            .map(|(i, (uri, children))| (uri, (i, children.into_values().collect())))
            .collect();
        Skills {
            entries,
            by_uri,
            files,
            directories,
        }
    }

    /// Every `Skill` entry, for `skills/list`.
    pub fn entries(&self) -> &[Value] {
        &self.entries
    }

    /// The entry of the skill whose `SKILL.md` is `uri`, for `skills/get`.
    pub fn get(&self, uri: &str) -> Option<&Value> {
        self.by_uri.get(uri).map(|&i| &self.entries[i])
    }

    /// The `resources/read` contents of a skill file, or `None`.
    pub fn read(&self, uri: &str) -> Option<Vec<Value>> {
        let file = self.files.get(uri)?;
        Some(vec![
            json!({"uri": uri, "mimeType": file.mime, "text": file.text}),
        ])
    }

    /// The direct children of a directory (a skill's root or one of its
    /// subdirectories, or a path prefix above skills), with a cursor kind
    /// of its own; `None` when `uri` is not a directory.
    pub fn directory(&self, uri: &str) -> Option<(String, &[Value])> {
        let (i, children) = self.directories.get(uri)?;
        Some((format!("directory{i}"), children))
    }
}

/// Record `uri` (with `meta`) as a child of its directory, and every
/// directory above it as a child of its own parent, up to the first
/// segment after `skill://`.
fn add_to_tree(tree: &mut BTreeMap<String, BTreeMap<String, Value>>, uri: &str, meta: Value) {
    let mut child = uri.to_string();
    let mut meta = meta;
    while let Some((parent, _)) = child.rsplit_once('/') {
        if parent.len() <= SCHEME.len() {
            break;
        }
        let parent = parent.to_string();
        tree.entry(parent.clone())
            .or_default()
            .insert(child.clone(), meta);
        meta = json!({"uri": parent, "name": last_segment(&parent), "mimeType": DIRECTORY_MIME});
        child = parent;
    }
}

fn last_segment(uri: &str) -> &str {
    uri.rsplit('/').next().unwrap_or(uri)
}

fn mime_of(path: &str) -> &'static str {
    if path.ends_with(".md") {
        "text/markdown"
    } else {
        "text/plain"
    }
}

/// `sha256:` and the 64 lowercase hex digits of the SHA-256 of `bytes`.
fn sha256(bytes: &[u8]) -> String {
    let d = digest::digest(&digest::SHA256, bytes);
    let mut s = String::with_capacity(7 + 64);
    s.push_str("sha256:");
    for b in d.as_ref() {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The YAML frontmatter of a `SKILL.md` (between a first line `---` and the
/// next line `---`) as JSON, for the small subset of YAML the built-in
/// skills use: `key: value` lines whose values are strings (plain, or
/// double-quoted without escapes), and `key:` followed by lines indented two
/// spaces holding such pairs (a nested map). Anything outside it (a value a
/// YAML parser would read as a number, a boolean or null, a comment, a
/// sequence, a flow collection, a block scalar…) is an error, never a guess.
pub fn frontmatter(markdown: &str) -> Result<Map<String, Value>, String> {
    let rest = markdown
        .strip_prefix("---\n")
        .ok_or("it does not begin with a `---` line")?;
    let end = rest
        .find("\n---\n")
        .ok_or("its frontmatter has no closing `---` line")?;
    let mut map = Map::new();
    // The key of the nested map being filled, if any.
    let mut open: Option<String> = None;
    for line in rest[..=end].lines() {
        if let Some(inner) = line.strip_prefix("  ") {
            let parent = open
                .as_ref()
                .ok_or_else(|| format!("unexpected indentation: {line:?}"))?;
            let (key, value) = pair(inner)?;
            let value = value.ok_or_else(|| format!("only one level of nesting: {line:?}"))?;
            let Some(Value::Object(nested)) = map.get_mut(parent) else {
                unreachable!("an open key holds a map");
            };
            if nested.insert(key.into(), Value::String(value)).is_some() {
                return Err(format!("duplicate key {key:?}"));
            }
            continue;
        }
        if let Some(key) = open.take()
            && map
                .get(&key)
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty)
        {
            return Err(format!("{key:?} has no value (YAML reads that as null)"));
        }
        let (key, value) = pair(line)?;
        let value = match value {
            Some(s) => Value::String(s),
            None => {
                open = Some(key.to_string());
                Value::Object(Map::new())
            }
        };
        if map.insert(key.into(), value).is_some() {
            return Err(format!("duplicate key {key:?}"));
        }
    }
    if let Some(key) = open
        && map
            .get(&key)
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty)
    {
        return Err(format!("{key:?} has no value (YAML reads that as null)"));
    }
    Ok(map)
}

/// `key: value` (value `Some`) or `key:` (value `None`: a nested map follows).
fn pair(line: &str) -> Result<(&str, Option<String>), String> {
    let (key, value) = match line.split_once(':') {
        Some((k, "")) => (k, None),
        Some((k, v)) => {
            let v = v
                .strip_prefix(' ')
                .ok_or_else(|| format!("a space must follow the colon: {line:?}"))?;
            (k, Some(scalar(v).map_err(|e| format!("{e}: {line:?}"))?))
        }
        None => return Err(format!("not a `key: value` line: {line:?}")),
    };
    let key_ok = !key.is_empty()
        && !key.starts_with('-')
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !key_ok {
        return Err(format!("unsupported key {key:?}"));
    }
    Ok((key, value))
}

/// A scalar that every YAML parser reads as this very string.
fn scalar(v: &str) -> Result<String, String> {
    if let Some(quoted) = v.strip_prefix('"') {
        let inner = quoted.strip_suffix('"').ok_or("an unclosed quote")?;
        if inner.contains(['"', '\\']) || inner.chars().any(char::is_control) {
            return Err("a quoted string with escapes".into());
        }
        return Ok(inner.to_string());
    }
    let first = v.chars().next().ok_or("an empty value")?;
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return Err(format!("a plain value starting with {first:?}"));
    }
    if first.is_ascii_digit() || first == '.' || first == '+' {
        return Err("a value that may read as a number or a date (quote it)".into());
    }
    if v.contains(": ") || v.contains(" #") || v.ends_with(':') {
        return Err("a plain value with `: ` or ` #` in it (quote it)".into());
    }
    if v != v.trim() || v.chars().any(char::is_control) {
        return Err("surrounding blanks or control characters".into());
    }
    const SPECIAL: &[&str] = &[
        "null", "~", "true", "false", "yes", "no", "on", "off", "y", "n",
    ];
    if SPECIAL.contains(&v.to_ascii_lowercase().as_str()) {
        return Err("a value YAML reads as null or a boolean (quote it)".into());
    }
    Ok(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_skills_are_well_formed() {
        let s = Skills::build();
        assert_eq!(s.entries().len(), 2);
        let tour = s.get("skill://demo-tour/SKILL.md").unwrap();
        assert_eq!(tour["frontmatter"]["name"], "demo-tour");
        let files: Vec<&str> = tour["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            files,
            [
                "skill://demo-tour/SKILL.md",
                "skill://demo-tour/references/KEYS.md"
            ]
        );

        let notes = s.get("skill://docs/release-notes/SKILL.md").unwrap();
        let front = &notes["frontmatter"];
        assert_eq!(front["name"], "release-notes");
        assert_eq!(front["license"], "MIT");
        assert_eq!(
            front["metadata"],
            json!({"author": "mcpdeck", "version": "1.2"})
        );
        assert_eq!(
            front.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["name", "description", "license", "metadata"]
        );
        assert!(s.get("skill://release-notes/SKILL.md").is_none());

        for entry in s.entries() {
            for f in entry["resources"].as_array().unwrap() {
                let uri = f["uri"].as_str().unwrap();
                let text = s.read(uri).unwrap()[0]["text"]
                    .as_str()
                    .unwrap()
                    .to_string();
                assert_eq!(f["size"], text.len(), "{uri}");
                assert_eq!(f["digest"], sha256(text.as_bytes()), "{uri}");
                let digest = f["digest"].as_str().unwrap();
                let hex = digest.strip_prefix("sha256:").unwrap();
                assert_eq!(hex.len(), 64);
                assert!(hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')));
            }
        }
    }

    #[test]
    fn sha256_of_a_known_input() {
        assert_eq!(
            sha256(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn directories_list_direct_children() {
        let s = Skills::build();
        let names = |uri: &str| -> Vec<(String, String)> {
            let (_, children) = s.directory(uri).unwrap();
            children
                .iter()
                .map(|c| {
                    (
                        c["uri"].as_str().unwrap().to_string(),
                        c["mimeType"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        };
        let pair = |u: &str, m: &str| (u.to_string(), m.to_string());
        assert_eq!(
            names("skill://docs/release-notes"),
            [
                pair("skill://docs/release-notes/SKILL.md", "text/markdown"),
                pair("skill://docs/release-notes/templates", DIRECTORY_MIME),
            ]
        );
        assert_eq!(
            names("skill://docs/release-notes/templates"),
            [
                pair(
                    "skill://docs/release-notes/templates/hotfix.md",
                    "text/markdown"
                ),
                pair(
                    "skill://docs/release-notes/templates/release.md",
                    "text/markdown"
                ),
            ]
        );
        assert_eq!(
            names("skill://docs"),
            [pair("skill://docs/release-notes", DIRECTORY_MIME)]
        );
        assert!(s.directory("skill://docs/release-notes/SKILL.md").is_none());
        assert!(s.directory("skill://docs/release-notes/").is_none());
        assert!(s.directory("skill://").is_none());
        assert_ne!(
            s.directory("skill://docs").unwrap().0,
            s.directory("skill://demo-tour").unwrap().0
        );
    }

    #[test]
    fn frontmatter_subset() {
        let f = frontmatter("---\na: b c\nm:\n  k: \"1.2\"\n  j: x\nz: it's fine\n---\nbody\n")
            .unwrap();
        assert_eq!(
            Value::Object(f),
            json!({"a": "b c", "m": {"k": "1.2", "j": "x"}, "z": "it's fine"})
        );
        for bad in [
            "a: 1.2",
            "a: 2024-01-01",
            "a: yes",
            "a: null",
            "a: ~",
            "a: b: c",
            "a: b # c",
            "a: [b]",
            "a: 'b'",
            "a: \"b\\n\"",
            "a: |",
            "a:b",
            "a:",
            "a: b\na: c",
            "  a: b",
            "m:\n  k:\n    x: y",
            "- a",
            "# comment",
            "",
        ] {
            let text = format!("---\n{bad}\n---\n");
            assert!(frontmatter(&text).is_err(), "{bad:?} was accepted");
        }
        assert!(frontmatter("name: x\n").is_err());
        assert!(frontmatter("---\nname: x\n").is_err());
    }
}
