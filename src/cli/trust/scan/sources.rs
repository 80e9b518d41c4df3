//! What scan reads: every client's files (read-only, with the import
//! readers) and mcpdeck's own config, and the distinct servers they list.

use super::*;

/// One file that lists servers: a client's, or mcpdeck's own config.
pub(super) struct Source {
    pub(super) client: &'static str,
    pub(super) label: &'static str,
    pub(super) path: PathBuf,
    /// The whole file could not be read.
    pub(super) error: Option<String>,
    /// Entries that could not be read.
    pub(super) errors: Vec<String>,
    pub(super) entries: Vec<Entry>,
}

pub(super) struct Entry {
    pub(super) name: String,
    /// The server, its `${VAR}`s expanded; or why it cannot be started.
    pub(super) server: Result<ServerConfig, String>,
    /// mcpdeck's own server of the same transport: its lint options, pins
    /// and login apply.
    pub(super) own: Option<ServerConfig>,
}

/// The same server: the same transport and protocol (the name and the
/// deny list do not matter).
pub(super) fn same_server(a: &ServerConfig, b: &ServerConfig) -> bool {
    a.transport == b.transport && a.protocol == b.protocol
}

/// An imported server as it would run: its strings expanded as mcpdeck's
/// config expands them (`${VAR}` from the environment, `$$` a `$`).
pub(super) fn expand(server: &ServerConfig) -> Result<ServerConfig, String> {
    let text = config::import_preview(&NewServer {
        server: server.clone(),
        comment: None,
    })?;
    let loaded = config::load_str(&text, None, &|name| std::env::var(name).ok()).map_err(|e| {
        e.diagnostic()
            .map(|d| d.message().to_owned())
            .unwrap_or_else(|| e.to_string())
    })?;
    let server = loaded
        .servers
        .into_iter()
        .next()
        .ok_or_else(|| "the entry makes no server".to_owned())?;
    startable(server)
}

/// A server that can be started as it is, or why not: an unset `${VAR}`
/// of an enabled server (a disabled one is not started anyway).
pub(super) fn startable(server: ServerConfig) -> Result<ServerConfig, String> {
    match server.unset.first() {
        Some(u) if server.enabled => Err(u.diagnostic.message().to_owned()),
        _ => Ok(server),
    }
}

/// mcpdeck's own config: its settings, and the source of its servers
/// (`None` when there is no file, or it lists no server).
pub(super) fn own_source(config: &Config) -> (Settings, Option<Source>) {
    let Some(path) = config.path.clone() else {
        return (config.settings.clone(), None);
    };
    // `scan` reads its config itself (see cli::config::config_for), so a
    // broken file is one report among others.
    let loaded = if path.exists() {
        config::load(&path)
    } else if config.servers.is_empty() {
        return (config.settings.clone(), None);
    } else {
        Ok(config.clone())
    };
    match loaded {
        // Nothing of its own to scan: not a client file of the report.
        Ok(c) if c.servers.is_empty() => (c.settings, None),
        Ok(c) => {
            let entries = c
                .servers
                .iter()
                .map(|s| Entry {
                    name: s.name.clone(),
                    // Said where it is in the file, as other commands do.
                    server: startable(s.clone()).map_err(|_| s.unresolved().unwrap_or_default()),
                    own: Some(s.clone()),
                })
                .collect();
            let source = Source {
                client: OWN_CLIENT,
                label: "mcpdeck",
                path,
                error: None,
                errors: Vec::new(),
                entries,
            };
            (c.settings, Some(source))
        }
        Err(e) => (
            config.settings.clone(),
            Some(Source {
                client: OWN_CLIENT,
                label: "mcpdeck",
                path,
                error: Some(format!(
                    "{e}\n(mcpdeck's own servers were not scanned; `mcpdeck config check` shows every error)"
                )),
                errors: Vec::new(),
                entries: Vec::new(),
            }),
        ),
    }
}

/// Every client file found under `at` and in `cwd`.
pub(super) fn client_sources(at: &Locations, cwd: &Path, own: &[ServerConfig]) -> Vec<Source> {
    let mut sources = Vec::new();
    for (client, path) in import::discover(&Client::ALL, at, cwd) {
        let result = import::read_file(&path, Some(client), cwd);
        let mut error = None;
        let mut errors = Vec::new();
        for e in result.errors {
            if e.fatal {
                error = Some(e.message);
            } else {
                errors.push(e.message);
            }
        }
        let entries = result
            .servers
            .into_iter()
            .map(|imported| {
                let server = expand(&imported.server);
                let mine = server
                    .as_ref()
                    .ok()
                    .and_then(|s| own.iter().find(|o| same_server(o, s)).cloned());
                Entry {
                    name: imported.name,
                    server,
                    own: mine,
                }
            })
            .collect();
        sources.push(Source {
            client: client.name(),
            label: client.label(),
            path,
            error,
            errors,
            entries,
        });
    }
    sources
}
