//! Resource subscriptions: `resources/subscribe` in the initialize era, the
//! stateless era's `subscriptions/listen` stream.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::mcp::finding::{Finding, Severity};
use crate::mcp::types::Era;

use super::handle::*;
use super::model::*;

impl Session {
    /// Subscribe to a resource's updates (`notifications/resources/updated`):
    /// `resources/subscribe` in the initialize era; in the stateless era the
    /// `subscriptions/listen` stream is reopened with the URI added.
    pub async fn subscribe(&self, uri: &str) -> Result<(), RequestError> {
        let n = self
            .negotiated()
            .ok_or_else(|| RequestError::Protocol("not connected".into()))?;
        let declared = n
            .capabilities
            .get("resources")
            .and_then(|r| r.get("subscribe"))
            .and_then(Value::as_bool)
            == Some(true);
        if !declared {
            return Err(RequestError::Protocol(
                "the server does not declare resources.subscribe, so it offers no resource subscriptions".into(),
            ));
        }
        if n.era == Era::Initialize {
            self.request("resources/subscribe", Some(json!({"uri": uri})))
                .await?;
            self.inner
                .subscriptions
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .0
                .insert(uri.to_string());
            return Ok(());
        }
        self.inner
            .subscriptions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .0
            .insert(uri.to_string());
        self.listen().await
    }

    /// End a resource subscription.
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), RequestError> {
        let removed = self
            .inner
            .subscriptions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .0
            .remove(uri);
        if !removed {
            return Ok(());
        }
        match self.negotiated().map(|n| n.era) {
            Some(Era::Initialize) => self
                .request("resources/unsubscribe", Some(json!({"uri": uri})))
                .await
                .map(|_| ()),
            _ => self.listen().await,
        }
    }

    /// The resources subscribed to.
    pub fn subscriptions(&self) -> Vec<String> {
        self.inner
            .subscriptions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .0
            .iter()
            .cloned()
            .collect()
    }

    /// (Re)open the stateless era's `subscriptions/listen` stream: list
    /// changes of every kind the server declares, and the subscribed
    /// resources. The request stays open; notifications arrive as events.
    /// The server acknowledges with `notifications/subscriptions/acknowledged`.
    pub async fn listen(&self) -> Result<(), RequestError> {
        let n = self
            .negotiated()
            .ok_or_else(|| RequestError::Protocol("not connected".into()))?;
        if n.era != Era::Stateless {
            return Ok(());
        }
        let _one = self.inner.listen_lock.lock().await;
        let changed = |kind: &str| {
            n.capabilities
                .get(kind)
                .and_then(|c| c.get("listChanged"))
                .and_then(Value::as_bool)
                == Some(true)
        };
        let (uris, old) = {
            let mut subs = self
                .inner
                .subscriptions
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let uris: Vec<String> = subs.0.iter().cloned().collect();
            (uris, subs.1.take())
        };
        if let Some(old) = old {
            self.cancel(old, "subscriptions changed").await;
        }
        let mut filter = Map::new();
        for (key, kind) in [
            ("toolsListChanged", "tools"),
            ("promptsListChanged", "prompts"),
            ("resourcesListChanged", "resources"),
        ] {
            if changed(kind) {
                filter.insert(key.into(), json!(true));
            }
        }
        if !uris.is_empty() {
            filter.insert("resourceSubscriptions".into(), json!(uris));
        }
        if filter.is_empty() {
            return Ok(());
        }
        let pending = self
            .start_open_request(
                "subscriptions/listen",
                Some(json!({"notifications": filter})),
            )
            .await?;
        self.inner
            .subscriptions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .1 = Some(pending.id);
        // No timeout: the stream stays open. An error is a finding.
        let inner = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            let outcome = pending.rx.await;
            let Some(inner) = inner.upgrade() else { return };
            // The session's end (mcpdeck closing it, the server exiting)
            // ends the stream: that is no failure of the listen.
            let ended = inner.closing.load(std::sync::atomic::Ordering::Acquire)
                || inner
                    .closed
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .is_some();
            if let Ok(Err(e)) = outcome
                && !ended
                && !matches!(
                    e,
                    RequestError::Cancelled { .. } | RequestError::Closed { .. }
                )
            {
                inner.finding(Finding::new(
                    Severity::Warning,
                    format!(
                        "subscriptions/listen failed: {e}; no change notifications from this server"
                    ),
                ));
            }
        });
        Ok(())
    }
}
