//! The registry browser's driver side (run by `tui::run`, never by
//! `update`): a search as a background task that answers from the cache
//! first and then from the network, and the write of an add. Each answer
//! goes back into the update loop as a message.

use std::time::Duration;

use super::{Add, Item, LIMIT, RegistryMsg};
use crate::config::CredentialStoreKind;
use crate::registry::{Cache, Entry, Registry, RegistryError};
use crate::tui::app::Msg;

/// Entries looked at off the UI's thread: which runtimes are installed,
/// the default way, the lint notes.
pub fn prepare(entries: Vec<Entry>) -> Vec<Item> {
    entries
        .into_iter()
        .filter(|e| e.status != "deleted")
        .map(|e| Item::new(e, &crate::registry::launch::installed))
        .collect()
}

/// How long ago a cache entry was fetched (whole seconds).
fn age(t: std::time::SystemTime) -> Duration {
    Duration::from_secs(t.elapsed().unwrap_or_default().as_secs())
}

/// Search `base` for `query` (number `seq`): the cache's answer, if any,
/// at once; then the network's (kept in the cache), or why the registry
/// could not be reached. `send` hands each answer to the loop.
pub async fn search(base: String, query: String, seq: u64, send: impl Fn(Msg)) {
    let cache = Cache::open();
    // Keyed as `Registry::base` and the CLI key it (no trailing `/`).
    let (b, q) = (base.trim_end_matches('/').to_string(), query.clone());
    let cached = tokio::task::spawn_blocking(move || {
        let c = Cache::open()?;
        let found = c.get(&b, &q, false, LIMIT)?;
        let fetched = found.fetched;
        let more = found.more;
        Some((prepare(found.entries), fetched, more))
    })
    .await
    .ok()
    .flatten();
    let cache_age = cached.as_ref().map(|(_, t, _)| age(*t));
    if let Some((items, fetched, more)) = cached {
        send(Msg::Registry(RegistryMsg::Found {
            seq,
            query: query.clone(),
            items,
            cached: Some(age(fetched)),
            more,
        }));
    }
    let reg = match Registry::new(&base) {
        Ok(r) => r,
        Err(e) => {
            send(Msg::Registry(RegistryMsg::Failed {
                seq,
                why: e.to_string(),
                cache_age,
            }));
            return;
        }
    };
    let q = (!query.is_empty()).then_some(query.as_str());
    match reg.search(q, LIMIT, false).await {
        Ok(found) => {
            let (b, q) = (reg.base().to_string(), query.clone());
            let prepared = tokio::task::spawn_blocking(move || {
                if let Some(c) = &cache {
                    c.put(&b, &q, false, LIMIT, &found);
                }
                (prepare(found.entries), found.more)
            })
            .await;
            if let Ok((items, more)) = prepared {
                send(Msg::Registry(RegistryMsg::Found {
                    seq,
                    query,
                    items,
                    cached: None,
                    more,
                }));
            }
        }
        Err(e) => send(Msg::Registry(RegistryMsg::Failed {
            seq,
            why: said(&e),
            cache_age,
        })),
    }
}

/// A registry error in words, for a line of the view: an unreachable
/// registry without the request's own `GET <url>: ` (the view names the
/// registry).
fn said(e: &RegistryError) -> String {
    match e {
        RegistryError::Unreachable { url, why } => {
            let why = match why.strip_prefix("GET ") {
                Some(rest) => rest.split_once(": ").map_or(why.as_str(), |(_, r)| r),
                None => why.as_str(),
            };
            format!("the registry {url} cannot be reached: {why}")
        }
        other => other.to_string(),
    }
}

/// Write an add (blocking: the credential store may be the OS keyring):
/// the secrets stored, by name, or why nothing was added.
pub fn write_add(
    path: Option<&std::path::Path>,
    store: CredentialStoreKind,
    add: &Add,
) -> Result<Vec<String>, String> {
    let Some(path) = path else {
        return Err("this session has no config file (demo)".into());
    };
    crate::registry::add::add_to_config(
        path,
        &add.entry,
        &add.resolved,
        &add.local,
        store,
        &add.base,
    )
}
