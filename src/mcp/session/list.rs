//! Lists with pagination: every page of tools, resources, templates and
//! prompts, with repeated-cursor detection.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::mcp::finding::{Finding, Severity};
use crate::mcp::jsonrpc::{self, codes};
use crate::mcp::types::Tool;

use super::handle::*;
use super::model::*;

impl Session {
    /// Follow `nextCursor` to the end. A repeated cursor stops with a finding.
    pub async fn list_all(&self, method: &str, key: &str) -> Result<Vec<Value>, RequestError> {
        self.list_hinted(method, key).await.map(|(items, _)| items)
    }

    /// [`Session::list_all`], with the caching hints of its pages joined
    /// ([`CacheHint::join`]).
    pub async fn list_hinted(
        &self,
        method: &str,
        key: &str,
    ) -> Result<(Vec<Value>, Option<CacheHint>), RequestError> {
        let mut hint: Option<CacheHint> = None;
        let items = self.pages(method, key, &mut hint).await?;
        Ok((items, hint))
    }

    async fn pages(
        &self,
        method: &str,
        key: &str,
        hint: &mut Option<CacheHint>,
    ) -> Result<Vec<Value>, RequestError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = HashSet::new();
        for page in 1..=MAX_PAGES {
            let params = cursor.as_ref().map(|c| json!({"cursor": c}));
            let result = self.request(method, params).await?;
            *hint = CacheHint::join(hint.take(), CacheHint::of(&result));
            match result.get(key) {
                Some(Value::Array(page)) => items.extend(page.iter().cloned()),
                _ => self.inner.finding(Finding::frame(
                    Severity::Warning,
                    format!("{method} result has no `{key}` array"),
                    &result.to_string(),
                )),
            }
            match result.get("nextCursor") {
                None | Some(Value::Null) => return Ok(items),
                Some(Value::String(c)) if c.is_empty() => return Ok(items),
                Some(Value::String(c)) => {
                    if !seen.insert(c.clone()) {
                        self.inner.finding(Finding::frame(
                            Severity::Error,
                            format!("{method} repeated the cursor {c:?}; stopped after {page} pages with {} items", items.len()),
                            &result.to_string(),
                        ));
                        return Ok(items);
                    }
                    cursor = Some(c.clone());
                }
                Some(other) => {
                    self.inner.finding(Finding::frame(
                        Severity::Warning,
                        format!(
                            "{method}: `nextCursor` is {}, not a string; stopped paging",
                            jsonrpc::short(other)
                        ),
                        &result.to_string(),
                    ));
                    return Ok(items);
                }
            }
        }
        self.inner.finding(Finding::new(
            Severity::Error,
            format!("{method} had more than {MAX_PAGES} pages; stopped"),
        ));
        Ok(items)
    }

    /// All tools, all pages, parsed (bad entries become findings).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, RequestError> {
        self.list_tools_hinted().await.map(|(tools, _)| tools)
    }

    /// [`Session::list_tools`] with the list's caching hints.
    pub async fn list_tools_hinted(&self) -> Result<(Vec<Tool>, Option<CacheHint>), RequestError> {
        let (raw, hint) = self.list_hinted("tools/list", "tools").await?;
        let mut findings = Vec::new();
        let parsed: Vec<Tool> = raw
            .iter()
            .filter_map(|t| Tool::parse(t, &mut findings))
            .collect();
        let tools: Vec<Tool> = parsed
            .into_iter()
            .filter(|t| {
                // SEP-2243: a tool whose x-mcp-header annotations are
                // invalid is left out (and said why), the others kept.
                let problem = t
                    .input_schema
                    .as_ref()
                    .and_then(crate::mcp::transport::http::header_problem);
                if let Some(why) = &problem {
                    findings.push(Finding::frame(
                        Severity::Warning,
                        format!("tool `{}` is left out: {why}", t.name),
                        &t.raw.to_string(),
                    ));
                }
                problem.is_none()
            })
            .collect();
        let mut seen = HashSet::new();
        for t in &tools {
            if !seen.insert(t.name.as_str()) {
                findings.push(Finding::frame(
                    Severity::Warning,
                    format!(
                        "tool `{}` is listed more than once; calls go to the first",
                        t.name
                    ),
                    &t.raw.to_string(),
                ));
            }
        }
        for f in findings {
            self.inner.finding(f);
        }
        if let Some(h) = self.inner.transport.http() {
            h.set_tool_headers(
                tools
                    .iter()
                    .filter_map(|t| {
                        let p =
                            crate::mcp::transport::http::param_headers(t.input_schema.as_ref()?);
                        (!p.is_empty()).then(|| (t.name.clone(), p))
                    })
                    .collect(),
            );
        }
        Ok((tools, hint))
    }

    /// Every list the server declares a capability for. The lists are
    /// asked for at once (their requests go out together, so listing costs
    /// about one round trip, not four); their outcomes are taken in a fixed
    /// order.
    pub async fn list_everything(&self) -> Result<Lists, RequestError> {
        self.list_some(ListSet::ALL).await
    }

    /// The lists in `want` that the server declares a capability for (the
    /// others stay empty), asked for at once as in
    /// [`Session::list_everything`].
    pub async fn list_some(&self, want: ListSet) -> Result<Lists, RequestError> {
        let n = self
            .negotiated()
            .ok_or_else(|| RequestError::Protocol("not connected".into()))?;
        let (tools, resources, templates, prompts) = tokio::join!(
            async {
                match want.tools && n.has_capability("tools") {
                    true => Some(self.list_tools_hinted().await),
                    false => None,
                }
            },
            self.list_if(
                &n,
                want.resources,
                "resources",
                "resources/list",
                "resources"
            ),
            // Templates are optional even for servers with resources.
            self.list_if(
                &n,
                want.templates,
                "resources",
                "resources/templates/list",
                "resourceTemplates"
            ),
            self.list_if(&n, want.prompts, "prompts", "prompts/list", "prompts"),
        );
        let mut lists = Lists::default();
        if let Some(h) = self
            .inner
            .discover_hint
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        {
            lists.hints.push(("server/discover", h));
        }
        // Each list's items, its hints kept aside.
        fn split<T>(
            method: &'static str,
            r: Result<(Vec<T>, Option<CacheHint>), RequestError>,
            hints: &mut Vec<(&'static str, CacheHint)>,
        ) -> Result<Vec<T>, RequestError> {
            r.map(|(items, h)| {
                if let Some(h) = h {
                    hints.push((method, h));
                }
                items
            })
        }
        if let Some(r) = tools {
            let r = split("tools/list", r, &mut lists.hints);
            lists.tools = self.lenient("tools/list", r, &mut lists.errors)?;
        }
        if let Some(r) = resources {
            let r = split("resources/list", r, &mut lists.hints);
            lists.resources = self.lenient("resources/list", r, &mut lists.errors)?;
        }
        if let Some(r) = templates {
            let r = split("resources/templates/list", r, &mut lists.hints);
            lists.templates = match r {
                Err(e @ RequestError::Rpc { .. })
                    if e.rpc().is_some_and(|r| r.code == codes::METHOD_NOT_FOUND) =>
                {
                    lists.errors.push(("resources/templates/list", e));
                    Vec::new()
                }
                other => self.lenient("resources/templates/list", other, &mut lists.errors)?,
            };
        }
        if let Some(r) = prompts {
            let r = split("prompts/list", r, &mut lists.hints);
            lists.prompts = self.lenient("prompts/list", r, &mut lists.errors)?;
        }
        Ok(lists)
    }

    /// `list_all(method, key)` when the server declares `capability`.
    async fn list_if(
        &self,
        n: &Negotiated,
        wanted: bool,
        capability: &str,
        method: &str,
        key: &str,
    ) -> Option<Result<(Vec<Value>, Option<CacheHint>), RequestError>> {
        match wanted && n.has_capability(capability) {
            true => Some(self.list_hinted(method, key).await),
            false => None,
        }
    }

    /// A list that failed is a finding and an empty list; only a lost
    /// connection fails the whole listing.
    pub(super) fn lenient<T: Default>(
        &self,
        method: &'static str,
        r: Result<T, RequestError>,
        errors: &mut Vec<(&'static str, RequestError)>,
    ) -> Result<T, RequestError> {
        match r {
            Ok(v) => Ok(v),
            Err(e @ RequestError::Closed { .. }) => Err(e),
            Err(e) => {
                self.inner.finding(Finding::new(
                    Severity::Error,
                    format!("{e}; that list is shown empty"),
                ));
                errors.push((method, e));
                Ok(T::default())
            }
        }
    }
}
