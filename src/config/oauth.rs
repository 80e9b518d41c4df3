//! `[servers.NAME.oauth]`: how mcpdeck logs in to an HTTP server. Parsed
//! here with the same line-and-column errors as the rest of the file.

use std::path::{Path, PathBuf};

use toml_edit::Item;

use super::error::ConfigError;
use super::model::{OAuthConfig, OAuthGrant, OAuthResource, SecretPlace};
use super::parse::{Parser, Raw, describe, entries, unknown_key_message};

/// Keys allowed in `[servers.NAME.oauth]`.
pub(crate) const OAUTH_KEYS: &[&str] = &[
    "client_id",
    "client_secret",
    "client_metadata_url",
    "scopes",
    "callback_port",
    "resource",
    "grant",
    "private_key_file",
    "signing_algorithm",
    "authorization_server",
    "id_token",
    "idp_token_endpoint",
    "idp_client_id",
    "idp_client_secret",
    "workload_token_file",
    "workload_token_env",
    "dpop",
];

type Result<T> = std::result::Result<T, ConfigError>;

impl Parser<'_> {
    /// `[servers.NAME.oauth]`, type-checked and expanded.
    pub(super) fn oauth(
        &self,
        name: &str,
        (item, key_span): (&Item, Option<std::ops::Range<usize>>),
    ) -> Result<OAuthConfig> {
        let table = item.as_table_like().ok_or_else(|| {
            self.error(
                item.span().or(key_span.clone()),
                format!(
                    "server \"{name}\": `oauth` must be a table like [servers.{name}.oauth], found {}",
                    describe(item)
                ),
            )
        })?;
        let ctx = format!("server \"{name}\" [oauth]: ");
        let ctx = ctx.as_str();
        let mut oauth = OAuthConfig::default();
        for (key, key_span, item) in entries(table) {
            let value = (item, key_span.clone());
            let text = |raw: Raw| self.expand(ctx, key, &raw);
            // The secret ones may come from the credential store.
            let secret = |raw: Raw, place| self.expand_at(ctx, key, &raw, Some(place));
            match key {
                "client_id" => oauth.client_id = Some(text(self.non_empty_string(ctx, key, value)?)?),
                "client_secret" => {
                    oauth.client_secret = Some(secret(
                        self.string(ctx, key, value)?,
                        SecretPlace::OAuthClientSecret,
                    )?)
                    .filter(|s| !s.is_empty())
                }
                "client_metadata_url" => {
                    let raw = self.non_empty_string(ctx, key, value)?;
                    let span = raw.span.clone();
                    let unset_before = self.unset_count();
                    let url = text(raw)?;
                    let parsed = url::Url::parse(&url).ok();
                    let loopback = parsed.as_ref().is_some_and(|u| {
                        u.scheme() == "http"
                            && matches!(
                                u.host_str(),
                                Some("localhost" | "127.0.0.1" | "[::1]")
                            )
                    });
                    let https = parsed.as_ref().is_some_and(|u| u.scheme() == "https");
                    let has_path = parsed.as_ref().is_some_and(|u| u.path().len() > 1);
                    // Kept as written when a variable is unset: checked
                    // once it is set.
                    let resolved = self.unset_count() == unset_before;
                    if resolved && (!(https || loopback) || !has_path) {
                        return Err(self.error(
                            span,
                            format!("{ctx}`client_metadata_url` must be an https URL with a path, e.g. \"https://example.com/mcpdeck-client.json\" (the client's metadata document, which is its client_id; http only on localhost for testing)"),
                        ));
                    }
                    oauth.client_metadata_url = Some(url);
                }
                "scopes" => {
                    for raw in self.string_array(ctx, key, value)? {
                        let scope = text(raw)?;
                        oauth
                            .scopes
                            .extend(scope.split_whitespace().map(str::to_string));
                    }
                }
                "callback_port" => {
                    let port = self.count(key, value, "")?;
                    oauth.callback_port = Some(u16::try_from(port).ok().filter(|p| *p > 0).ok_or_else(|| {
                        self.error(
                            item.span().or(key_span.clone()),
                            format!("{ctx}`callback_port` must be a port from 1 to 65535, found {port}"),
                        )
                    })?);
                }
                "resource" => {
                    oauth.resource = match item.as_bool() {
                        Some(false) => OAuthResource::Omit,
                        Some(true) => OAuthResource::Discovered,
                        None => OAuthResource::Fixed(text(self.non_empty_string(ctx, key, value).map_err(|_| {
                            self.error(
                                item.span().or(key_span.clone()),
                                format!("{ctx}`resource` must be a URL, or false to leave the parameter out, found {}", describe(item)),
                            )
                        })?)?),
                    }
                }
                "grant" => {
                    let raw = self.string(ctx, key, value)?;
                    oauth.grant = Some(OAuthGrant::from_name(&raw.text).ok_or_else(|| {
                        self.error(
                            raw.span.clone(),
                            format!(
                                "{ctx}unknown grant \"{}\"; use \"authorization_code\" (a person logs in with a browser), \"client_credentials\" (machine to machine) , \"cross_app\" (an identity provider's ID token) or \"workload\" (the platform's workload identity token)",
                                raw.text
                            ),
                        )
                    })?);
                }
                "signing_algorithm" => {
                    let raw = self.string(ctx, key, value)?;
                    let alg = raw.text.to_ascii_uppercase();
                    if alg != "ES256" && alg != "RS256" {
                        return Err(self.error(
                            raw.span.clone(),
                            format!("{ctx}`signing_algorithm` must be \"ES256\" or \"RS256\", found \"{}\"", raw.text),
                        ));
                    }
                    oauth.signing_algorithm = Some(alg);
                }
                "private_key_file" => {
                    let p = PathBuf::from(text(self.non_empty_string(ctx, key, value)?)?);
                    oauth.private_key_file = Some(self.relative(p));
                }
                "authorization_server" => {
                    oauth.authorization_server =
                        Some(text(self.non_empty_string(ctx, key, value)?)?)
                }
                "id_token" => {
                    oauth.id_token = Some(secret(
                        self.non_empty_string(ctx, key, value)?,
                        SecretPlace::OAuthIdToken,
                    )?)
                }
                "idp_token_endpoint" => {
                    oauth.idp_token_endpoint =
                        Some(text(self.non_empty_string(ctx, key, value)?)?)
                }
                "idp_client_id" => {
                    oauth.idp_client_id = Some(text(self.non_empty_string(ctx, key, value)?)?)
                }
                "idp_client_secret" => {
                    oauth.idp_client_secret = Some(secret(
                        self.string(ctx, key, value)?,
                        SecretPlace::OAuthIdpClientSecret,
                    )?)
                    .filter(|s| !s.is_empty())
                }
                "workload_token_file" => {
                    let p = PathBuf::from(text(self.non_empty_string(ctx, key, value)?)?);
                    oauth.workload_token_file = Some(self.relative(p));
                }
                "workload_token_env" => {
                    oauth.workload_token_env =
                        Some(text(self.non_empty_string(ctx, key, value)?)?)
                }
                "dpop" => oauth.dpop = Some(self.boolean(ctx, key, value)?),
                _ => {
                    let place = format!("in [servers.{name}.oauth]");
                    return Err(self.error(key_span, unknown_key_message(key, &place, OAUTH_KEYS)));
                }
            }
        }
        Ok(oauth)
    }

    /// A path relative to the config file's folder.
    pub(super) fn relative(&self, p: PathBuf) -> PathBuf {
        match self.path.and_then(Path::parent) {
            Some(dir) if p.is_relative() && !dir.as_os_str().is_empty() => dir.join(p),
            _ => p,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::config::model::{OAuthGrant, OAuthResource, TransportConfig};
    use crate::config::{ConfigError, load_str};

    fn env(k: &str) -> Option<String> {
        (k == "SECRET").then(|| "s3cret".to_string())
    }

    fn oauth(table: &str) -> Result<crate::config::model::OAuthConfig, ConfigError> {
        let text =
            format!("[servers.r]\nurl = \"https://r.example/mcp\"\n\n[servers.r.oauth]\n{table}");
        let config = load_str(&text, Some(Path::new("/etc/mcpdeck/config.toml")), &env)?;
        match &config.servers[0].transport {
            TransportConfig::Http { oauth, .. } => {
                Ok(oauth.as_deref().cloned().unwrap_or_default())
            }
            other => panic!("{other:?}"),
        }
    }

    fn error(table: &str) -> String {
        oauth(table).unwrap_err().to_string()
    }

    #[test]
    fn every_key_is_read() {
        let o = oauth(
            "client_id = \"c\"\nclient_secret = \"${SECRET}\"\nclient_metadata_url = \"https://me.example/client.json\"\nscopes = [\"a b\", \"c\"]\ncallback_port = 33418\nresource = false\ngrant = \"client_credentials\"\nprivate_key_file = \"keys/k.pem\"\nsigning_algorithm = \"es256\"\nauthorization_server = \"https://login.example\"\nid_token = \"t\"\nidp_token_endpoint = \"https://idp.example/token\"\nidp_client_id = \"i\"\nidp_client_secret = \"${SECRET}\"\nworkload_token_file = \"run/token.jwt\"\nworkload_token_env = \"WORKLOAD_JWT\"\ndpop = true\n",
        )
        .unwrap();
        assert_eq!(
            o.workload_token_file.as_deref(),
            Some(Path::new("/etc/mcpdeck/run/token.jwt"))
        );
        assert_eq!(o.workload_token_env.as_deref(), Some("WORKLOAD_JWT"));
        assert_eq!(o.dpop, Some(true));
        assert_eq!(
            OAuthGrant::from_name("workload"),
            Some(OAuthGrant::Workload)
        );
        assert_eq!(o.client_id.as_deref(), Some("c"));
        assert_eq!(o.client_secret.as_deref(), Some("s3cret"));
        assert_eq!(o.scopes, ["a", "b", "c"]);
        assert_eq!(o.callback_port, Some(33418));
        assert_eq!(o.resource, OAuthResource::Omit);
        assert_eq!(o.grant, Some(OAuthGrant::ClientCredentials));
        // Relative to the config file's folder.
        assert_eq!(
            o.private_key_file.as_deref(),
            Some(Path::new("/etc/mcpdeck/keys/k.pem"))
        );
        assert_eq!(o.signing_algorithm.as_deref(), Some("ES256"));
        assert_eq!(o.idp_client_secret.as_deref(), Some("s3cret"));
        // The secrets never show in Debug.
        let debug = format!("{o:?}");
        assert!(!debug.contains("s3cret"), "{debug}");
        let o = oauth("resource = \"https://api.example/\"\n").unwrap();
        assert_eq!(
            o.resource,
            OAuthResource::Fixed("https://api.example/".into())
        );
    }

    #[test]
    fn bad_values_name_the_line_and_the_fix() {
        let e = error("client_metadata_url = \"http://me.example/client.json\"\n");
        assert!(e.contains("c.toml") || e.contains("config.toml"), "{e}");
        assert!(
            e.contains(":5:") && e.contains("must be an https URL"),
            "{e}"
        );
        // http on loopback is allowed for testing; a URL needs a path.
        assert!(oauth("client_metadata_url = \"http://localhost:8080/c.json\"\n").is_ok());
        assert!(error("client_metadata_url = \"https://me.example\"\n").contains("with a path"));
        assert!(error("callback_port = 70000\n").contains("from 1 to 65535"));
        assert!(error("grant = \"password\"\n").contains("unknown grant \"password\""));
        assert!(error("signing_algorithm = \"HS256\"\n").contains("\"ES256\" or \"RS256\""));
        let e = error("client_idd = \"x\"\n");
        assert!(e.contains("client_id"), "a suggestion: {e}");
    }
}
