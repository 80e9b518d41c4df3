//! The sections of the configuration other than `[servers]`: `[theme]`
//! (and the built-in themes it can name), `[keys]`, `[telemetry]` and
//! `[settings]`, each read by a method of [`Parser`].

use super::*;

/// The built-in themes `[theme] name = "…"` picks: each a `[theme]` table
/// in assets/themes/, read like the user's.
pub(super) const THEMES: [(&str, &str); 3] = [
    (
        "default",
        include_str!("../../../assets/themes/default.toml"),
    ),
    ("light", include_str!("../../../assets/themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../../assets/themes/high-contrast.toml"),
    ),
];

/// The roles of the built-in theme `name`, or why there are none.
pub(super) fn built_in_theme(name: &str) -> std::result::Result<Vec<(String, String)>, String> {
    let Some((file, text)) = THEMES.iter().find(|t| t.0 == name) else {
        let names = THEMES.map(|t| t.0);
        let hint = suggest(name, &names)
            .map(|n| format!(" — did you mean \"{n}\"?"))
            .unwrap_or_default();
        return Err(format!(
            "unknown theme \"{name}\"; the built-in themes are \"{}\"{hint}",
            names.join("\", \"")
        ));
    };
    let path = PathBuf::from(format!("assets/themes/{file}.toml"));
    let parser = Parser {
        source: text,
        path: Some(&path),
        env: Env::Lenient,
        unset: Default::default(),
        secrets: Default::default(),
    };
    let theme = Document::parse(*text)
        .map_err(|e| parser.error(e.span(), e.message()))
        .and_then(|doc| match doc.get("theme") {
            Some(item) if doc.len() == 1 => parser.theme_entries(item, None),
            _ => Err(parser.error(None, "a built-in theme holds one [theme] table")),
        })
        .map_err(|e| format!("the built-in theme \"{file}\" is broken: {e}"))?;
    if theme.iter().any(|(role, _)| role == "name") {
        return Err(format!("the built-in theme \"{file}\" names another theme"));
    }
    Ok(theme
        .into_iter()
        .map(|(role, raw)| (role, raw.text))
        .collect())
}

impl Parser<'_> {
    /// `[theme]`: `name = "…"` (a built-in theme, [`THEMES`]) and
    /// `role = "colour"`. The built-in theme's roles come first, so the
    /// user's roles override them.
    pub(super) fn theme(
        &self,
        item: &Item,
        key_span: Option<Range<usize>>,
    ) -> Result<Vec<(String, String)>> {
        let mut theme = Vec::new();
        for (role, colour) in self.theme_entries(item, key_span)? {
            if role == "name" {
                let built_in = built_in_theme(&colour.text);
                theme.splice(0..0, built_in.map_err(|e| self.error(colour.span, e))?);
            } else {
                theme.push((role, colour.text));
            }
        }
        Ok(theme)
    }

    /// The `[theme]` table's entries, each a non-empty string.
    pub(super) fn theme_entries(
        &self,
        item: &Item,
        key_span: Option<Range<usize>>,
    ) -> Result<Vec<(String, Raw)>> {
        let table = item.as_table_like().ok_or_else(|| {
            self.error(
                item.span().or(key_span.clone()),
                format!(
                    "`theme` must be a table ([theme]), found {}",
                    describe(item)
                ),
            )
        })?;
        let mut theme = Vec::new();
        for (role, role_span, value) in entries(table) {
            let colour = self.non_empty_string("[theme] ", role, (value, role_span))?;
            theme.push((role.to_string(), colour));
        }
        Ok(theme)
    }

    /// `[keys]`: `action = "key"` or `action = ["key", "key"]`.
    pub(super) fn keys(
        &self,
        item: &Item,
        key_span: Option<Range<usize>>,
    ) -> Result<Vec<(String, Vec<String>)>> {
        let table = item.as_table_like().ok_or_else(|| {
            self.error(
                item.span().or(key_span.clone()),
                format!("`keys` must be a table ([keys]), found {}", describe(item)),
            )
        })?;
        let mut keys = Vec::new();
        for (action, action_span, value) in entries(table) {
            let ctx = "[keys] ";
            let list = if value.as_str().is_some() {
                vec![
                    self.non_empty_string(ctx, action, (value, action_span))?
                        .text,
                ]
            } else if value.as_array().is_some() {
                self.string_array(ctx, action, (value, action_span))?
                    .into_iter()
                    .map(|raw| raw.text)
                    .collect()
            } else {
                return Err(self.error(
                    value.span().or(action_span),
                    format!(
                        "[keys] `{action}` must be a key like \"ctrl-s\" or a list of keys, found {}",
                        describe(value)
                    ),
                ));
            };
            keys.push((action.to_string(), list));
        }
        Ok(keys)
    }

    pub(super) fn telemetry(
        &self,
        item: &Item,
        key_span: Option<Range<usize>>,
    ) -> Result<TelemetryConfig> {
        let table = item.as_table_like().ok_or_else(|| {
            self.error(
                item.span().or(key_span.clone()),
                format!(
                    "`telemetry` must be a table ([telemetry]), found {}",
                    describe(item)
                ),
            )
        })?;
        let mut telemetry = TelemetryConfig::default();
        for (key, key_span, value) in entries(table) {
            let value = (value, key_span);
            match key {
                "otlp_endpoint" => {
                    let raw = self.string("[telemetry] ", key, value)?;
                    let url = self.expand("[telemetry] ", key, &raw)?;
                    let url = url.trim();
                    if url.is_empty() {
                        continue;
                    }
                    match url::Url::parse(url) {
                        Ok(u) if matches!(u.scheme(), "http" | "https") => {}
                        _ => {
                            return Err(self.error(
                                raw.span,
                                format!(
                                    "[telemetry] `otlp_endpoint` must be an http:// or https:// URL (such as \"http://127.0.0.1:4318\"), found {:?}",
                                    raw.text
                                ),
                            ));
                        }
                    }
                    telemetry.otlp_endpoint = Some(url.to_string());
                }
                "capture_content" => {
                    telemetry.capture_content = self.boolean("[telemetry] ", key, value)?;
                }
                _ => {
                    return Err(self.error(
                        value.1,
                        unknown_key_message(key, "in [telemetry]", TELEMETRY_KEYS),
                    ));
                }
            }
        }
        Ok(telemetry)
    }

    pub(super) fn settings(&self, item: &Item, key_span: Option<Range<usize>>) -> Result<Settings> {
        let table = item.as_table_like().ok_or_else(|| {
            self.error(
                item.span().or(key_span.clone()),
                format!(
                    "`settings` must be a table ([settings]), found {}",
                    describe(item)
                ),
            )
        })?;
        let mut settings = Settings::default();
        for (key, key_span, value) in entries(table) {
            let value = (value, key_span);
            match key {
                "request_timeout" => {
                    settings.request_timeout = self.duration("", key, value, false)?;
                }
                "connect_timeout" => {
                    settings.connect_timeout = self.duration("", key, value, false)?;
                }
                "probe_timeout" => settings.probe_timeout = self.duration("", key, value, false)?,
                "remember_era" => settings.remember_era = self.duration("", key, value, true)?,
                "login_timeout" => settings.login_timeout = self.duration("", key, value, false)?,
                "shutdown_grace" => {
                    settings.shutdown_grace = self.duration("", key, value, true)?
                }
                "oneshot_grace" => settings.oneshot_grace = self.duration("", key, value, true)?,
                "stderr_lines" => settings.stderr_lines = self.count(key, value, "lines")?,
                "frame_log" => settings.frame_log = self.count(key, value, "frames")?,
                "lint_max_description" => {
                    settings.lint_max_description = self.count(key, value, "characters")?
                }
                "max_message_size" => {
                    settings.max_message_size = self.count(key, value, "bytes")?
                }
                "roots" => settings.roots = self.roots("", value)?,
                "capabilities" => {
                    let raw = self.string("", key, value)?;
                    settings.capabilities = crate::mcp::session::Declared::parse(&raw.text)
                        .map_err(|e| {
                            self.error(raw.span.clone(), format!("`capabilities`: {e}"))
                        })?;
                }
                "save_dir" => {
                    let raw = self.string("", key, value)?;
                    let text = self.expand("", key, &raw)?;
                    settings.save_dir = if text.trim().is_empty() {
                        None
                    } else {
                        // Relative to the config file's folder, like `roots`.
                        let p = PathBuf::from(text);
                        let p = match self.path.and_then(Path::parent) {
                            Some(dir) if p.is_relative() => dir.join(p),
                            _ => p,
                        };
                        Some(std::path::absolute(&p).unwrap_or(p))
                    };
                }
                "registry_url" => {
                    let raw = self.string("", key, value)?;
                    let url = self.expand("", key, &raw)?;
                    if !(url.starts_with("https://") || url.starts_with("http://")) {
                        return Err(self.error(
                            raw.span.clone(),
                            format!("`registry_url` must be an http(s) URL of a registry that speaks the MCP Registry API v0.1, found {:?}", raw.text),
                        ));
                    }
                    settings.registry_url = Some(url.trim_end_matches('/').to_string());
                }
                "browser" => {
                    let command = self.string("", key, value)?;
                    let command = self.expand("", key, &command)?;
                    settings.browser = (!command.trim().is_empty()).then_some(command);
                }
                "credentials" => {
                    let raw = self.string("", key, value)?;
                    settings.credentials =
                        CredentialStoreKind::from_name(&raw.text).ok_or_else(|| {
                            self.error(
                                raw.span.clone(),
                                format!(
                                    "unknown credentials store \"{}\"; use \"auto\" (the OS keyring when reachable, else a file), \"keyring\" or \"file\"",
                                    raw.text
                                ),
                            )
                        })?;
                }
                _ => {
                    return Err(self.error(
                        value.1,
                        unknown_key_message(key, "in [settings]", SETTINGS_KEYS),
                    ));
                }
            }
        }
        Ok(settings)
    }
}
