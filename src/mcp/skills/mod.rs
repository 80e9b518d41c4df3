//! Agent Skills over MCP: the `io.modelcontextprotocol/skills` extension
//! (SEP-2640), as a host uses it.
//!
//! - A server that declares the extension answers `skills/list`
//!   (paginated, possibly partial) and `skills/get`; each entry ([`Skill`])
//!   carries the skill's frontmatter and a complete manifest of its files
//!   with their SHA-256 digests and sizes (or `"dynamic"`).
//! - Files are read with `resources/read` on the same server, and only
//!   when wanted: listing reads nothing ([`list`]); loading a skill reads
//!   its `SKILL.md` ([`load`]); a supporting file is read when asked for
//!   ([`read_file`]). A `skill://` URI is never resolved over the network:
//!   every read goes to the server that listed it.
//! - Everything read is verified against the entry held: size, then
//!   digest, then (for `SKILL.md`) the YAML frontmatter field by field
//!   ([`frontmatter`]). Content that fails is never returned; a file the
//!   entry does not list is a failure too.
//!
//! The requests go through a caller's function (`request(method,
//! params)`), so the CLI's link and the TUI's manager both drive the same
//! code, and no UI is imported here.

mod frontmatter;

use base64::Engine as _;
use serde_json::{Map, Value, json};

pub use frontmatter::{compare, differing_fields, frontmatter};

/// Why an entry, a file or a frontmatter is not used: what and where, in
/// words (never a file's unverified content).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SkillError(pub String);

impl From<String> for SkillError {
    fn from(s: String) -> Self {
        SkillError(s)
    }
}

/// An error with these words.
fn fail<T>(msg: impl Into<String>) -> Result<T, SkillError> {
    Err(SkillError(msg.into()))
}

/// The extension's identifier, under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";
/// Files per skill every conforming host must accept.
pub const MAX_FILES: usize = 512;
/// Bytes per skill (the sum of its files' sizes) every host must accept.
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;
/// Pages of `skills/list` followed at most.
pub const MAX_PAGES: usize = 1000;

/// What a server declared for the extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    /// `directoryRead: true`: it answers `resources/directory/read`.
    pub directory_read: bool,
}

/// The extension as `capabilities` declare it, or `None`.
pub fn declared(capabilities: &Value) -> Option<Declared> {
    let ext = capabilities.get("extensions")?.get(EXTENSION)?;
    Some(Declared {
        directory_read: ext.get("directoryRead").and_then(Value::as_bool) == Some(true),
    })
}

/// One file of a skill, as its entry lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
    pub size: u64,
}

/// A skill's files: the complete manifest, or `"dynamic"` (no digests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Files {
    Listed(Vec<SkillFile>),
    Dynamic,
}

/// One entry of `skills/list` or `skills/get`, read leniently: what is
/// wrong with it is in `problems`, and a skill with problems is never
/// loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// `frontmatter.name`, else the last segment of its path.
    pub name: String,
    pub description: String,
    /// `<skill-path>`: the URI between the scheme and `/SKILL.md`.
    pub path: String,
    pub frontmatter: Map<String, Value>,
    /// `None` when the entry has no usable `resources`.
    pub files: Option<Files>,
    /// Why the entry cannot be loaded (empty: it can).
    pub problems: Vec<String>,
    /// The entry as received.
    pub raw: Value,
}

fn is_digest(d: &str) -> bool {
    d.strip_prefix("sha256:").is_some_and(|h| {
        h.len() == 64
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The Agent Skills naming rule: 1 to 64 of `a-z`, `0-9` and `-`, not
/// starting or ending with `-`, no `--`.
pub fn valid_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 64
        && n.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !n.starts_with('-')
        && !n.ends_with('-')
        && !n.contains("--")
}

/// Whether `uri` is a file under `root`: below it, with no `.` or `..`
/// segment (written plainly or percent-encoded).
pub fn inside(root: &str, uri: &str) -> bool {
    let Some(rest) = uri.strip_prefix(&format!("{root}/")) else {
        return false;
    };
    !rest.is_empty()
        && rest.split('/').all(|seg| {
            let decoded = seg.to_ascii_lowercase().replace("%2e", ".");
            !seg.is_empty() && decoded != "." && decoded != ".."
        })
}

/// `sha256:HEX` of `bytes`.
pub fn digest_of(bytes: &[u8]) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, bytes);
    let hex: String = d.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

impl Skill {
    /// An entry as received.
    pub fn from_entry(v: &Value) -> Skill {
        let mut problems = Vec::new();
        let uri = v
            .get("uri")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let path = uri
            .split_once("://")
            .map_or(uri.as_str(), |(_, rest)| rest)
            .strip_suffix("/SKILL.md")
            .unwrap_or_default()
            .to_string();
        if uri.is_empty() {
            problems.push("the entry has no `uri`".into());
        } else if !uri.ends_with("/SKILL.md") || path.is_empty() {
            problems.push(format!(
                "its uri {uri:?} does not end in /SKILL.md under a skill path"
            ));
        }
        let frontmatter = match v.get("frontmatter") {
            Some(Value::Object(m)) => m.clone(),
            _ => {
                problems.push("the entry has no `frontmatter` object".into());
                Map::new()
            }
        };
        let text = |k: &str| {
            frontmatter
                .get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let last = path.rsplit('/').next().unwrap_or_default().to_string();
        let name = match text("name") {
            Some(n) => {
                if !path.is_empty() && n != last {
                    problems.push(format!(
                        "frontmatter.name {n:?} is not the last segment of its path ({last:?})"
                    ));
                }
                if !valid_name(&n) {
                    problems.push(format!(
                        "the name {n:?} breaks the Agent Skills naming rule (lowercase letters, digits and single hyphens, at most 64)"
                    ));
                }
                n
            }
            None => {
                problems.push("frontmatter.name is missing or not a string".into());
                last
            }
        };
        let description = text("description").unwrap_or_else(|| {
            problems.push("frontmatter.description is missing or not a string".into());
            String::new()
        });
        let root = uri.strip_suffix("/SKILL.md").unwrap_or(&uri).to_string();
        let files = match v.get("resources") {
            Some(Value::String(s)) if s == "dynamic" => Some(Files::Dynamic),
            Some(Value::Array(list)) => {
                let mut files = Vec::new();
                for (i, r) in list.iter().enumerate() {
                    let f_uri = r.get("uri").and_then(Value::as_str);
                    let digest = r.get("digest").and_then(Value::as_str);
                    let size = r.get("size").and_then(Value::as_u64);
                    match (f_uri, digest, size) {
                        (Some(u), Some(d), Some(s)) => {
                            if !is_digest(d) {
                                problems.push(format!(
                                    "resources[{i}] ({u}): digest {d:?} is not sha256: and 64 lowercase hex digits"
                                ));
                            }
                            if !inside(&root, u) {
                                problems.push(format!(
                                    "resources[{i}] ({u}) is not a file of the skill (outside {root})"
                                ));
                            }
                            if files.iter().any(|f: &SkillFile| f.uri == u) {
                                problems.push(format!("resources lists {u} twice"));
                            }
                            files.push(SkillFile {
                                uri: u.to_string(),
                                digest: d.to_string(),
                                size: s,
                            });
                        }
                        _ => problems.push(format!(
                            "resources[{i}] lacks a string uri, a string digest or an integer size"
                        )),
                    }
                }
                if !uri.is_empty() && !files.iter().any(|f| f.uri == uri) {
                    problems.push("resources does not list SKILL.md itself".into());
                }
                if files.len() > MAX_FILES {
                    problems.push(format!(
                        "{} files, over the extension's limit of {MAX_FILES}",
                        files.len()
                    ));
                }
                let total: u64 = files.iter().map(|f| f.size).fold(0, u64::saturating_add);
                if total > MAX_BYTES {
                    problems.push(format!(
                        "{total} bytes in all, over the extension's limit of {MAX_BYTES} (16 MiB)"
                    ));
                }
                Some(Files::Listed(files))
            }
            Some(_) => {
                problems.push("`resources` is neither an array nor \"dynamic\"".into());
                None
            }
            None => {
                problems.push("the entry has no `resources`".into());
                None
            }
        };
        Skill {
            uri,
            name,
            description,
            path,
            frontmatter,
            files,
            problems,
            raw: v.clone(),
        }
    }

    pub fn loadable(&self) -> bool {
        self.problems.is_empty()
    }

    /// The skill's root directory (its URI without `/SKILL.md`).
    pub fn root(&self) -> &str {
        self.uri.strip_suffix("/SKILL.md").unwrap_or(&self.uri)
    }

    /// A file's path relative to the root.
    pub fn relative<'a>(&self, uri: &'a str) -> &'a str {
        uri.strip_prefix(self.root())
            .and_then(|r| r.strip_prefix('/'))
            .unwrap_or(uri)
    }

    /// A relative path (or a full URI) as a file URI of this skill.
    pub fn resolve(&self, path: &str) -> String {
        if path.contains("://") {
            return path.to_string();
        }
        format!("{}/{}", self.root(), path.trim_start_matches("./"))
    }

    pub fn listed(&self) -> Option<&[SkillFile]> {
        match &self.files {
            Some(Files::Listed(f)) => Some(f),
            _ => None,
        }
    }

    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        self.listed()?.iter().find(|f| f.uri == uri)
    }

    /// The sum of the listed sizes.
    pub fn total_size(&self) -> Option<u64> {
        self.listed()
            .map(|f| f.iter().map(|f| f.size).fold(0, u64::saturating_add))
    }
}

/// Check bytes against the entry: size first, then digest.
pub fn verify(file: &SkillFile, bytes: &[u8]) -> Result<(), SkillError> {
    check_bytes(file, bytes)
}

fn check_bytes(file: &SkillFile, bytes: &[u8]) -> Result<(), SkillError> {
    if bytes.len() as u64 != file.size {
        return fail(format!(
            "{}: {} bytes read, the entry says {}",
            file.uri,
            bytes.len(),
            file.size
        ));
    }
    let got = digest_of(bytes);
    if got != file.digest {
        return fail(format!(
            "{}: digest {got}, the entry says {}",
            file.uri, file.digest
        ));
    }
    Ok(())
}

/// The raw bytes of `uri` in a `resources/read` result: a text content's
/// UTF-8, or a blob decoded.
pub fn content_bytes(result: &Value, uri: &str) -> Result<Vec<u8>, SkillError> {
    bytes_of(result, uri)
}

fn bytes_of(result: &Value, uri: &str) -> Result<Vec<u8>, SkillError> {
    let contents = result
        .get("contents")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("the read of {uri} has no `contents` array"))?;
    let c = contents
        .iter()
        .find(|c| c.get("uri").and_then(Value::as_str) == Some(uri))
        .or(if contents.len() == 1 {
            contents.first()
        } else {
            None
        })
        .ok_or_else(|| format!("the read of {uri} returned no content for it"))?;
    if let Some(t) = c.get("text").and_then(Value::as_str) {
        return Ok(t.as_bytes().to_vec());
    }
    if let Some(b) = c.get("blob").and_then(Value::as_str) {
        let clean: String = b.chars().filter(|c| !c.is_whitespace()).collect();
        return base64::engine::general_purpose::STANDARD
            .decode(clean.trim_end_matches('='))
            .or_else(|_| {
                base64::engine::general_purpose::STANDARD_NO_PAD.decode(clean.trim_end_matches('='))
            })
            .map_err(|e| SkillError(format!("the blob of {uri} is not base64 ({e})")));
    }
    fail(format!("the content of {uri} has neither text nor blob"))
}

/// A page of `skills/list`, joined.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    pub skills: Vec<Skill>,
    /// Stopped at [`MAX_PAGES`] with a `nextCursor` still given.
    pub truncated: bool,
    /// The first page's caching hints.
    pub ttl_ms: Option<u64>,
    pub cache_scope: Option<String>,
}

impl Listing {
    /// Entries that share a URI are all invalid: which one a load would be
    /// verified against could not be told.
    pub fn mark_twins(&mut self) {
        let uris: Vec<String> = self.skills.iter().map(|s| s.uri.clone()).collect();
        for s in &mut self.skills {
            if uris.iter().filter(|u| **u == s.uri).count() > 1 {
                s.problems
                    .push(format!("the listing has {} more than once", s.uri));
            }
        }
    }

    /// A label per skill: its name, or its path where names collide
    /// (names are labels, not identifiers).
    pub fn labels(&self) -> Vec<String> {
        self.skills
            .iter()
            .map(|s| {
                let twins = self.skills.iter().filter(|o| o.name == s.name).count();
                if twins > 1 {
                    s.path.clone()
                } else {
                    s.name.clone()
                }
            })
            .collect()
    }

    /// The skill `wanted` names: its URI, its path, or its name (unique).
    pub fn find(&self, wanted: &str) -> Result<&Skill, SkillError> {
        self.find_named(wanted)
    }

    fn find_named(&self, wanted: &str) -> Result<&Skill, SkillError> {
        if let Some(s) = self
            .skills
            .iter()
            .find(|s| s.uri == wanted || s.path == wanted)
        {
            return Ok(s);
        }
        let named: Vec<&Skill> = self.skills.iter().filter(|s| s.name == wanted).collect();
        match named.as_slice() {
            [one] => Ok(one),
            [] => fail(format!(
                "no skill named {wanted:?} in the listing{}",
                if self.skills.is_empty() {
                    " (it is empty; a listing may be partial: give the skill's URI to load it anyway)".to_string()
                } else {
                    format!("; it has {}", self.labels().join(", "))
                }
            )),
            many => fail(format!(
                "{} skills are named {wanted:?}; name one by its path: {}",
                many.len(),
                many.iter()
                    .map(|s| s.path.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

/// `skills/list`, every page (up to [`MAX_PAGES`]). Reads no file.
pub async fn list<F, E>(request: &mut F) -> Result<Listing, E>
where
    F: AsyncFnMut(&'static str, Value) -> Result<Value, E>,
{
    let mut out = Listing::default();
    let mut cursor: Option<String> = None;
    for page in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let r = request("skills/list", params).await?;
        if page == 0 {
            out.ttl_ms = r.get("ttlMs").and_then(Value::as_u64);
            out.cache_scope = r
                .get("cacheScope")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        if let Some(list) = r.get("skills").and_then(Value::as_array) {
            out.skills.extend(list.iter().map(Skill::from_entry));
        }
        cursor = r
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_string);
        if cursor.is_none() {
            out.mark_twins();
            return Ok(out);
        }
    }
    out.truncated = true;
    out.mark_twins();
    Ok(out)
}

/// `skills/get`: the entry of the skill whose `SKILL.md` is `uri`.
pub async fn get<F, E>(request: &mut F, uri: &str) -> Result<Result<Skill, SkillError>, E>
where
    F: AsyncFnMut(&'static str, Value) -> Result<Value, E>,
{
    let r = request("skills/get", json!({ "uri": uri })).await?;
    Ok(match r.get("skill") {
        Some(s) if s.is_object() => Ok(Skill::from_entry(s)),
        _ => Err(SkillError(format!(
            "the skills/get answer for {uri} has no `skill` object"
        ))),
    })
}

/// Why a skill or file was not loaded.
#[derive(Debug)]
pub enum LoadError<E> {
    /// The request failed.
    Request(E),
    /// The entry is invalid, or what was read does not match it: nothing
    /// of it is used.
    Refused(String),
}

/// A loaded skill: its verified `SKILL.md`.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub text: String,
    /// `false` for a dynamic skill (no digest to check).
    pub verified: bool,
}

/// Load a skill: read its `SKILL.md` (and nothing else) and verify it
/// against the entry: size, digest, and the frontmatter field by field.
pub async fn load<F, E>(request: &mut F, skill: &Skill) -> Result<Loaded, LoadError<E>>
where
    F: AsyncFnMut(&'static str, Value) -> Result<Value, E>,
{
    if !skill.loadable() {
        return Err(LoadError::Refused(format!(
            "the entry of {} is invalid: {}",
            skill.uri,
            skill.problems.join("; ")
        )));
    }
    let bytes = fetch(request, skill, &skill.uri).await?;
    let text = String::from_utf8(bytes)
        .map_err(|_| LoadError::Refused(format!("{} is not UTF-8 text", skill.uri)))?;
    let parsed =
        frontmatter(&text).map_err(|e| LoadError::Refused(format!("{}: {e}", skill.uri)))?;
    // Only the names of the fields: what the file says is unverified.
    let differences = differing_fields(&skill.frontmatter, &parsed);
    if !differences.is_empty() {
        return Err(LoadError::Refused(format!(
            "the frontmatter of {} differs from the entry's in {}",
            skill.uri,
            differences
                .iter()
                .map(|k| format!("`{}`", crate::sanitize::one_line(k)))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(Loaded {
        text,
        verified: skill.listed().is_some(),
    })
}

/// Read one file of a skill (a URI or a path relative to its root),
/// verified against the entry. A file the entry does not list is refused
/// without being read.
pub async fn read_file<F, E>(
    request: &mut F,
    skill: &Skill,
    path: &str,
) -> Result<Vec<u8>, LoadError<E>>
where
    F: AsyncFnMut(&'static str, Value) -> Result<Value, E>,
{
    if !skill.loadable() {
        return Err(LoadError::Refused(format!(
            "the entry of {} is invalid: {}",
            skill.uri,
            skill.problems.join("; ")
        )));
    }
    let uri = skill.resolve(path);
    fetch(request, skill, &uri).await
}

async fn fetch<F, E>(request: &mut F, skill: &Skill, uri: &str) -> Result<Vec<u8>, LoadError<E>>
where
    F: AsyncFnMut(&'static str, Value) -> Result<Value, E>,
{
    let listed = match &skill.files {
        Some(Files::Listed(_)) => match skill.file(uri) {
            Some(f) => Some(f.clone()),
            None => {
                return Err(LoadError::Refused(format!(
                    "{uri} is not listed in the skill's resources (an unlisted file is a verification failure): not read"
                )));
            }
        },
        _ => None,
    };
    if listed.is_none() && !inside(skill.root(), uri) {
        return Err(LoadError::Refused(format!(
            "{uri} is outside the skill {}: not read",
            skill.root()
        )));
    }
    let r = request("resources/read", json!({ "uri": uri }))
        .await
        .map_err(LoadError::Request)?;
    let bytes = content_bytes(&r, uri).map_err(|e| LoadError::Refused(e.0))?;
    match listed {
        Some(f) => verify(&f, &bytes).map_err(|e| {
            LoadError::Refused(format!("verification failed: {e}; the content is not used"))
        })?,
        None => {
            if bytes.len() as u64 > MAX_BYTES {
                return Err(LoadError::Refused(format!(
                    "{uri} is larger than the extension's 16 MiB limit"
                )));
            }
        }
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests;
