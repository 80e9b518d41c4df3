//! The MCP Registry (API v0.1, `registry.modelcontextprotocol.io` and any
//! registry that speaks it): search, versions, one entry; what an entry
//! needs and what it would run ([`launch`]); a cache of searches.
//!
//! No UI here: the CLI's `registry` commands and `registry:NAME` targets
//! and the TUI's browser all come through [`Registry`].

pub mod add;
pub mod launch;
pub mod model;

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

pub use launch::{Choice, Given, Launch, LaunchError, Resolved};
pub use model::{Entry, Input, Package, Remote};

/// The official registry.
pub const DEFAULT_URL: &str = "https://registry.modelcontextprotocol.io";
/// Entries asked for per page (the API's largest).
pub const PAGE: usize = 100;
/// Pages followed by `--all` at most.
pub const MAX_PAGES: usize = 200;
/// How long one request may take.
const TIMEOUT: Duration = Duration::from_secs(20);
/// The largest answer read.
const MAX_BODY: usize = 16 * 1024 * 1024;

/// Why the registry could not answer.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("the registry {url} cannot be reached: {why}")]
    Unreachable { url: String, why: String },
    #[error("the registry {url} answered HTTP {status}{detail}")]
    Status {
        url: String,
        status: u16,
        detail: String,
    },
    #[error("the registry {url} answered with something that is not the v0.1 API's JSON: {why}")]
    Malformed { url: String, why: String },
    #[error("the registry has no server named {name:?}{version}")]
    NotFound { name: String, version: String },
    #[error("`registry_url` / --registry {0:?} is not an http(s) URL")]
    BadUrl(String),
}

/// One page of a search.
#[derive(Debug, Clone, Default)]
pub struct Page {
    pub entries: Vec<Entry>,
    pub next_cursor: Option<String>,
}

/// A search's results, as cached.
#[derive(Debug, Clone)]
pub struct Found {
    pub entries: Vec<Entry>,
    /// When they were fetched.
    pub fetched: SystemTime,
    /// Taken from the cache (not the network).
    pub cached: bool,
    /// A cursor was left: `--all` follows it.
    pub more: bool,
}

/// A registry, by its base URL.
#[derive(Debug, Clone)]
pub struct Registry {
    base: String,
    client: reqwest::Client,
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

impl Registry {
    /// The registry at `base` (`[settings] registry_url`, `--registry`).
    pub fn new(base: &str) -> Result<Registry, RegistryError> {
        let base = base.trim_end_matches('/').to_string();
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(RegistryError::BadUrl(base));
        }
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .user_agent(concat!("mcpdeck/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| RegistryError::Unreachable {
                url: base.clone(),
                why: e.to_string(),
            })?;
        Ok(Registry { base, client })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    async fn get(&self, path_and_query: &str) -> Result<Value, RegistryError> {
        let url = format!("{}{path_and_query}", self.base);
        let shown = crate::mcp::netlog::shown_url(&url);
        let resp = self
            .client
            .get(&url)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| RegistryError::Unreachable {
                url: crate::mcp::netlog::shown_url(&self.base),
                why: crate::mcp::transport::http::describe_send_error("GET", &url, &e),
            })?;
        let status = resp.status().as_u16();
        let mut body = Vec::new();
        let mut resp = resp;
        while let Some(chunk) = resp.chunk().await.map_err(|e| RegistryError::Unreachable {
            url: shown.clone(),
            why: e.to_string(),
        })? {
            if body.len() + chunk.len() > MAX_BODY {
                return Err(RegistryError::Malformed {
                    url: shown,
                    why: format!("the answer is over {} MiB", MAX_BODY >> 20),
                });
            }
            body.extend_from_slice(&chunk);
        }
        if status == 404 {
            return Err(RegistryError::NotFound {
                name: String::new(),
                version: String::new(),
            });
        }
        if !(200..300).contains(&status) {
            let text = String::from_utf8_lossy(&body);
            let detail = if text.trim().is_empty() {
                String::new()
            } else {
                format!(": {}", crate::mcp::transport::http::excerpt(&text))
            };
            return Err(RegistryError::Status {
                url: shown,
                status,
                detail,
            });
        }
        serde_json::from_slice(&body).map_err(|e| RegistryError::Malformed {
            url: shown,
            why: e.to_string(),
        })
    }

    /// One page of `GET /v0.1/servers` (latest versions only).
    pub async fn page(
        &self,
        query: Option<&str>,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page, RegistryError> {
        let mut q = format!(
            "/v0.1/servers?version=latest&limit={}",
            limit.clamp(1, PAGE)
        );
        if let Some(s) = query.filter(|s| !s.is_empty()) {
            q.push_str(&format!("&search={}", enc(s)));
        }
        if let Some(c) = cursor {
            q.push_str(&format!("&cursor={}", enc(c)));
        }
        let v = self.get(&q).await?;
        let url = crate::mcp::netlog::shown_url(&format!("{}{q}", self.base));
        let list =
            v.get("servers")
                .and_then(Value::as_array)
                .ok_or_else(|| RegistryError::Malformed {
                    url: url.clone(),
                    why: "no `servers` array".into(),
                })?;
        let next_cursor = v
            .get("metadata")
            .and_then(|m| m.get("nextCursor"))
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_string);
        Ok(Page {
            entries: list.iter().filter_map(Entry::from_response).collect(),
            next_cursor,
        })
    }

    /// A search: up to `limit` entries, or every page with `all`. Deleted
    /// entries are left out.
    pub async fn search(
        &self,
        query: Option<&str>,
        limit: usize,
        all: bool,
    ) -> Result<Found, RegistryError> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen_cursors = std::collections::HashSet::new();
        let mut more = false;
        for _ in 0..MAX_PAGES {
            let want = if all {
                PAGE
            } else {
                limit.saturating_sub(entries.len()).min(PAGE)
            };
            if want == 0 {
                more = cursor.is_some();
                break;
            }
            let page = self.page(query, want, cursor.as_deref()).await?;
            entries.extend(page.entries.into_iter().filter(|e| e.status != "deleted"));
            match page.next_cursor {
                Some(c) if seen_cursors.insert(c.clone()) => cursor = Some(c),
                _ => {
                    cursor = None;
                    break;
                }
            }
        }
        // A cursor left means more, with --all too (past MAX_PAGES).
        more |= cursor.is_some();
        if !all {
            entries.truncate(limit);
        }
        Ok(Found {
            entries,
            fetched: SystemTime::now(),
            cached: false,
            more,
        })
    }

    /// `GET /v0.1/servers/{name}/versions/{version|latest}`.
    pub async fn entry(&self, name: &str, version: Option<&str>) -> Result<Entry, RegistryError> {
        let v = version.unwrap_or("latest");
        let path = format!("/v0.1/servers/{}/versions/{}", enc(name), enc(v));
        let not_found = || RegistryError::NotFound {
            name: name.to_string(),
            version: version
                .map(|v| format!(" at version {v:?}"))
                .unwrap_or_default(),
        };
        let value = match self.get(&path).await {
            Err(RegistryError::NotFound { .. }) => return Err(not_found()),
            other => other?,
        };
        Entry::from_response(&value).ok_or_else(|| RegistryError::Malformed {
            url: crate::mcp::netlog::shown_url(&format!("{}{path}", self.base)),
            why: "no `server` with a `name`".into(),
        })
    }

    /// `GET /v0.1/servers/{name}/versions`: every version.
    pub async fn versions(&self, name: &str) -> Result<Vec<Entry>, RegistryError> {
        let path = format!("/v0.1/servers/{}/versions", enc(name));
        let v = match self.get(&path).await {
            Err(RegistryError::NotFound { .. }) => {
                return Err(RegistryError::NotFound {
                    name: name.to_string(),
                    version: String::new(),
                });
            }
            other => other?,
        };
        Ok(v.get("servers")
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(Entry::from_response).collect())
            .unwrap_or_default())
    }
}

/// The cache of searches: one JSON file per registry and query, with its
/// fetch time, in mcpdeck's cache directory (`$XDG_CACHE_HOME/mcpdeck/
/// registry/`).
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn open() -> Option<Cache> {
        let dir = directories::ProjectDirs::from("", "", "mcpdeck")?
            .cache_dir()
            .join("registry");
        Some(Cache { dir })
    }

    pub fn at(dir: PathBuf) -> Cache {
        Cache { dir }
    }

    fn file(&self, base: &str, query: &str, all: bool, limit: usize) -> PathBuf {
        let key = format!("{base}\n{query}\n{all}\n{limit}");
        let d = ring::digest::digest(&ring::digest::SHA256, key.as_bytes());
        let hex: String = d.as_ref()[..12]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        self.dir.join(format!("search-{hex}.json"))
    }

    /// A search as kept, if any.
    pub fn get(&self, base: &str, query: &str, all: bool, limit: usize) -> Option<Found> {
        let text = std::fs::read_to_string(self.file(base, query, all, limit)).ok()?;
        let v: Value = serde_json::from_str(&text).ok()?;
        let secs = v.get("fetched")?.as_u64()?;
        let entries = v
            .get("servers")?
            .as_array()?
            .iter()
            .filter_map(Entry::from_response)
            .collect();
        Some(Found {
            entries,
            fetched: SystemTime::UNIX_EPOCH + Duration::from_secs(secs),
            cached: true,
            more: v.get("more").and_then(Value::as_bool).unwrap_or(false),
        })
    }

    /// Keep a search (atomically; a failure only loses the cache).
    pub fn put(&self, base: &str, query: &str, all: bool, limit: usize, found: &Found) {
        let secs = found
            .fetched
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let v = json!({
            "registry": base,
            "query": query,
            "fetched": secs,
            "more": found.more,
            "servers": found.entries.iter().map(|e| e.raw.clone()).collect::<Vec<_>>(),
        });
        if std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        let path = self.file(base, query, all, limit);
        let _ = crate::fsutil::write_atomic(&path, v.to_string().as_bytes());
    }
}
