//! `[servers.NAME.lint]`: what `mcpdeck lint` lets pass for one server.
//! Parsed here with the same line-and-column errors as the rest of the
//! file; an unknown rule id is an error that lists the valid ones.
//!
//! ```toml
//! [servers.files.lint]
//! allow = ["description-too-long"]       # the whole server
//! max_description = 4096                 # over [settings] lint_max_description
//!
//! [servers.files.lint.tools.delete_file] # one tool (or prompt, resource, template)
//! allow = ["destructive-unannotated"]
//! ```

use toml_edit::Item;

use super::error::ConfigError;
use super::model::LintConfig;
use super::parse::{Parser, Raw, describe, entries, suggest, unknown_key_message};
use crate::trust::lint::{is_rule, rule_ids};

/// Keys allowed in `[servers.NAME.lint]`.
pub(crate) const LINT_KEYS: &[&str] = &["allow", "max_description", "tools"];

type Result<T> = std::result::Result<T, ConfigError>;

impl Parser<'_> {
    /// `[servers.NAME.lint]`, type-checked, rule ids checked.
    pub(super) fn lint(
        &self,
        name: &str,
        (item, key_span): (&Item, Option<std::ops::Range<usize>>),
    ) -> Result<LintConfig> {
        let table = item.as_table_like().ok_or_else(|| {
            self.error(
                item.span().or(key_span.clone()),
                format!(
                    "server \"{name}\": `lint` must be a table like [servers.{name}.lint], found {}",
                    describe(item)
                ),
            )
        })?;
        let ctx = format!("server \"{name}\" [lint]: ");
        let mut lint = LintConfig::default();
        for (key, key_span, item) in entries(table) {
            let value = (item, key_span.clone());
            match key {
                "allow" => lint.allow = self.rule_ids(&ctx, key, value)?,
                "max_description" => {
                    lint.max_description = Some(self.count(key, value, "characters")?)
                }
                "tools" => {
                    let tools = item.as_table_like().ok_or_else(|| {
                        self.error(
                            item.span().or(key_span.clone()),
                            format!(
                                "{ctx}`tools` must be a table of [servers.{name}.lint.tools.TOOL] sections, found {}",
                                describe(item)
                            ),
                        )
                    })?;
                    for (tool, tool_span, item) in entries(tools) {
                        let tctx = format!("server \"{name}\" [lint.tools.{tool}]: ");
                        let t = item.as_table_like().ok_or_else(|| {
                            self.error(
                                item.span().or(tool_span.clone()),
                                format!(
                                    "{tctx}must be a table with `allow = [\"rule-id\", …]`, found {}",
                                    describe(item)
                                ),
                            )
                        })?;
                        let mut allow = Vec::new();
                        for (k, k_span, v) in entries(t) {
                            match k {
                                "allow" => allow = self.rule_ids(&tctx, k, (v, k_span))?,
                                _ => {
                                    return Err(self.error(
                                        k_span,
                                        unknown_key_message(
                                            k,
                                            &format!("in [servers.{name}.lint.tools.{tool}]"),
                                            &["allow"],
                                        ),
                                    ));
                                }
                            }
                        }
                        lint.allow_for.push((tool.to_string(), allow));
                    }
                }
                _ => {
                    return Err(self.error(
                        key_span,
                        unknown_key_message(key, &format!("in [servers.{name}.lint]"), LINT_KEYS),
                    ));
                }
            }
        }
        Ok(lint)
    }

    fn rule_ids(
        &self,
        ctx: &str,
        key: &str,
        value: (&Item, Option<std::ops::Range<usize>>),
    ) -> Result<Vec<String>> {
        let raws: Vec<Raw> = self.string_array(ctx, key, value)?;
        let mut ids = Vec::new();
        for raw in raws {
            if !is_rule(&raw.text) {
                let ids = rule_ids();
                let hint = suggest(&raw.text, &ids)
                    .map(|s| format!(" — did you mean \"{s}\"?"))
                    .unwrap_or_default();
                return Err(self.error(
                    raw.span.clone(),
                    format!(
                        "{ctx}unknown lint rule \"{}\" in `{key}`{hint}; the rules are: {}",
                        raw.text,
                        ids.join(", ")
                    ),
                ));
            }
            ids.push(raw.text);
        }
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::config::load_str;

    fn env(_: &str) -> Option<String> {
        None
    }

    const SERVER: &str = "[servers.f]\ncommand = \"x\"\n\n";

    #[test]
    fn lint_table_is_read() {
        let text = format!(
            "[settings]\nlint_max_description = 2000\n\n{SERVER}[servers.f.lint]\nallow = [\"description-too-long\"]\nmax_description = 300\n\n[servers.f.lint.tools.delete_file]\nallow = [\"destructive-unannotated\", \"unbounded-object\"]\n"
        );
        let config = load_str(&text, Some(Path::new("/c.toml")), &env).unwrap();
        assert_eq!(config.settings.lint_max_description, 2000);
        let lint = &config.servers[0].lint;
        assert_eq!(lint.allow, ["description-too-long"]);
        assert_eq!(lint.max_description, Some(300));
        assert_eq!(
            lint.allow_for,
            [(
                "delete_file".to_string(),
                vec![
                    "destructive-unannotated".to_string(),
                    "unbounded-object".to_string()
                ]
            )]
        );
        let options = crate::trust::lint::Options::for_server(&config.servers[0], &config.settings);
        assert_eq!(options.max_description, Some(300));
        assert_eq!(options.allow_for["delete_file"].len(), 2);
    }

    #[test]
    fn unknown_rule_ids_name_the_place_and_the_valid_ids() {
        let text = format!("{SERVER}[servers.f.lint]\nallow = [\"hidden-text\"]\n");
        let err = load_str(&text, Some(Path::new("/c.toml")), &env)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown lint rule \"hidden-text\""), "{err}");
        let text = format!("{SERVER}[servers.f.lint]\nallow = [\"hiden-bidi\"]\n");
        let typo = load_str(&text, None, &env).unwrap_err().to_string();
        assert!(typo.contains("did you mean \"hidden-bidi\"?"), "{typo}");
        assert!(
            err.contains("hidden-zero-width") && err.contains("tool-shadowing"),
            "{err}"
        );
        assert!(err.contains("/c.toml:5:"), "{err}");
        let text = format!("{SERVER}[servers.f.lint.tools.rm]\nallow = [\"nope\"]\n");
        let err = load_str(&text, Some(Path::new("/c.toml")), &env)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("[lint.tools.rm]") && err.contains("\"nope\""),
            "{err}"
        );
        let text = format!("{SERVER}[servers.f.lint]\nalow = []\n");
        let err = load_str(&text, Some(Path::new("/c.toml")), &env)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown key `alow`"), "{err}");
    }
}
