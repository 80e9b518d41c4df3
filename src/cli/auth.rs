//! `mcpdeck auth login|logout|status`: OAuth logins without the TUI. A
//! login prints the discovery trace and the URL on stderr, opens the
//! browser command, and waits for the redirect; no terminal is needed.

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use serde_json::json;

use super::TargetArgs;
use super::exit::{Exit, Failure, Outcome};
use crate::config::{Config, ServerConfig};
use crate::mcp::auth::{self, AuthError, AuthErrorKind, LoginEvent, Reporter, TokenInfo};
use crate::sanitize;

/// `mcpdeck auth …`
#[derive(clap::Subcommand, Debug, Clone)]
pub enum AuthCmd {
    /// Log in to a server (OAuth): discover its authorization server, open
    /// the browser, wait for the redirect, keep the token
    Login {
        /// A configured server name or an http(s):// URL
        server: String,
        /// Ask for these scopes (over the config's and the server's); repeatable
        #[arg(long = "scope", value_name = "SCOPE")]
        scopes: Vec<String>,
    },
    /// Revoke the server's token (where the server offers revocation) and forget it
    Logout {
        /// A configured server name or an http(s):// URL
        server: String,
    },
    /// Each HTTP server's login: issuer, scopes, expiry and where it is kept (never a secret)
    Status {
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
}

pub async fn run(config: &Config, cmd: &AuthCmd) -> Outcome {
    match cmd {
        AuthCmd::Login { server, scopes } => login(config, server, scopes).await,
        AuthCmd::Logout { server } => logout(config, server).await,
        AuthCmd::Status { json } => status(config, *json),
    }
}

fn server_config(config: &Config, name: &str) -> Result<ServerConfig, Failure> {
    let target = TargetArgs {
        target: Some(name.to_string()),
        command: Vec::new(),
    };
    let server = super::target::target_config(config, &target)?;
    if !matches!(
        server.transport,
        crate::config::TransportConfig::Http { .. }
    ) {
        return Err(Failure::new(
            Exit::Usage,
            format!("{name} is a stdio server; OAuth is for HTTP servers"),
        ));
    }
    Ok(server)
}

fn authorizer(config: &Config, server: &ServerConfig) -> Result<Arc<auth::Authorizer>, Failure> {
    match auth::authorizer(server, &config.settings) {
        Some(Ok(a)) => Ok(a),
        Some(Err(e)) => Err(auth_failure(&server.name, &e)),
        None => Err(Failure::new(
            Exit::Usage,
            format!(
                "{} sets its own Authorization header in `headers`; remove it to log in with OAuth",
                server.name
            ),
        )),
    }
}

/// A login failure as the CLI reports it: the message, then the trace.
pub fn auth_failure(name: &str, e: &AuthError) -> Failure {
    let code = match e.kind {
        AuthErrorKind::Config => Exit::Usage,
        _ => Exit::Auth,
    };
    Failure::new(
        code,
        format!(
            "login to {} failed: {}",
            sanitize::one_line(name),
            sanitize::strip(&e.report())
        ),
    )
}

/// Prints a login's events on stderr.
pub fn stderr_reporter() -> Reporter {
    Arc::new(|event: LoginEvent| {
        let mut err = std::io::stderr().lock();
        match event {
            LoginEvent::Discovered(trace) => {
                let _ = writeln!(
                    err,
                    "mcpdeck: discovery:\n{}",
                    sanitize::strip(&trace.to_string())
                );
            }
            LoginEvent::OpenUrl(url) => {
                let _ = writeln!(
                    err,
                    "mcpdeck: open this URL to log in:\n  {}",
                    sanitize::one_line(&url)
                );
            }
            LoginEvent::Browser(m) => {
                let _ = writeln!(err, "mcpdeck: browser: {}", sanitize::one_line(&m));
            }
            LoginEvent::Waiting => {
                let _ = writeln!(
                    err,
                    "mcpdeck: waiting for the browser to come back (Ctrl-C cancels)…"
                );
            }
            LoginEvent::Exchanging => {
                let _ = writeln!(err, "mcpdeck: exchanging the code for a token…");
            }
        }
    })
}

/// The expiry of a token in words: `in 59 min`, `expired 3 min ago`.
pub fn expiry_text(expires_at: Option<u64>) -> String {
    let Some(at) = expires_at else {
        return "no expiry given".into();
    };
    let now = auth::now();
    if at > now {
        format!(
            "expires in {}",
            crate::text::fmt_duration(std::time::Duration::from_secs(at - now))
        )
    } else {
        format!(
            "expired {} ago",
            crate::text::fmt_duration(std::time::Duration::from_secs(now - at))
        )
    }
}

fn describe(info: &TokenInfo) -> String {
    format!(
        "issuer {}, client {}, scopes {}, {}{}{}, kept in {}",
        sanitize::one_line(&info.issuer),
        sanitize::one_line(&info.client_id),
        if info.scopes.is_empty() {
            "(none named)".to_string()
        } else {
            sanitize::one_line(&info.scopes.join(" "))
        },
        expiry_text(info.expires_at),
        if info.refreshable {
            ", refreshable"
        } else {
            ""
        },
        if info.dpop { ", DPoP-bound" } else { "" },
        info.storage
    )
}

/// Log in to `server` now (the person asked for it).
pub async fn login_server(
    config: &Config,
    server: &ServerConfig,
    scopes: &[String],
) -> Result<TokenInfo, Failure> {
    let result = try_login(config, server, scopes).await?;
    result.map_err(|e| auth_failure(&server.name, &e))
}

/// The login itself, reported on stderr; Ctrl-C cancels it.
async fn try_login(
    config: &Config,
    server: &ServerConfig,
    scopes: &[String],
) -> Result<Result<TokenInfo, AuthError>, Failure> {
    let a = authorizer(config, server)?;
    a.set_reporter(Some(stderr_reporter()));
    let result = tokio::select! {
        r = a.login(scopes) => r,
        _ = tokio::signal::ctrl_c() => {
            a.cancel();
            Err(AuthError::new(AuthErrorKind::Cancelled, "the login was cancelled"))
        }
    };
    a.set_reporter(None);
    Ok(result)
}

async fn login(config: &Config, name: &str, scopes: &[String]) -> Outcome {
    let server = server_config(config, name)?;
    let result = try_login(config, &server, scopes).await?;
    let info = match result {
        Ok(info) => info,
        Err(e) => {
            let shown = sanitize::one_line(&server.name);
            let no_oauth = matches!(
                e.kind,
                AuthErrorKind::Discovery | AuthErrorKind::Registration
            ) && !e.found_oauth_metadata();
            return match e.unchallenged_probe() {
                // It answered an unauthenticated initialize, with no
                // challenge and no OAuth metadata: nothing to log in to.
                Some(status) if no_oauth && (200..300).contains(&status) => {
                    outln!(
                        "{shown} needs no login: it answered without credentials (HTTP {status}, no WWW-Authenticate challenge) and publishes no OAuth metadata"
                    );
                    Ok(Exit::Ok)
                }
                Some(status) if no_oauth => Err(Failure::new(
                    Exit::Auth,
                    format!(
                        "{shown} offers no OAuth (HTTP {status} without a challenge, no /.well-known/oauth-protected-resource): it most likely wants an API key; set headers = {{ Authorization = \"Bearer ${{TOKEN}}\" }} (or the header its docs name) under [servers.{shown}] in the config"
                    ),
                )),
                _ => Err(auth_failure(&server.name, &e)),
            };
        }
    };
    outln!(
        "logged in to {}: {}",
        sanitize::one_line(&server.name),
        describe(&info)
    );
    Ok(Exit::Ok)
}

async fn logout(config: &Config, name: &str) -> Outcome {
    let server = server_config(config, name)?;
    let a = authorizer(config, &server)?;
    let done = a
        .logout()
        .await
        .map_err(|e| auth_failure(&server.name, &e))?;
    if done.is_empty() {
        outln!("{}: no stored login", sanitize::one_line(&server.name));
    }
    for line in done {
        outln!(
            "{}: {}",
            sanitize::one_line(&server.name),
            sanitize::one_line(&line)
        );
    }
    Ok(Exit::Ok)
}

fn status(config: &Config, as_json: bool) -> Outcome {
    let mut rows = Vec::new();
    for server in &config.servers {
        let Some(Ok(a)) = auth::authorizer(server, &config.settings) else {
            continue;
        };
        let url = match &server.transport {
            crate::config::TransportConfig::Http { url, .. } => crate::mcp::netlog::shown_url(url),
            _ => continue,
        };
        rows.push((server.name.clone(), url, a.info(), a.storage_name()));
    }
    if as_json {
        let list: Vec<_> = rows
            .iter()
            .map(|(name, url, info, storage)| match info {
                Some(i) => json!({
                    "server": name,
                    "url": url,
                    "logged_in": true,
                    "issuer": i.issuer,
                    "client_id": i.client_id,
                    "scopes": i.scopes,
                    "expires_at": i.expires_at,
                    "expired": i.expires_at.is_some_and(|e| e <= auth::now()),
                    "refreshable": i.refreshable,
                    "dpop": i.dpop,
                    "storage": i.storage,
                }),
                None => json!({
                    "server": name,
                    "url": url,
                    "logged_in": false,
                    "storage": storage,
                }),
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({ "servers": list })).unwrap_or_default()
        );
        return Ok(Exit::Ok);
    }
    if rows.is_empty() {
        outln!("no HTTP servers in the configuration");
        return Ok(Exit::Ok);
    }
    let mut out = crate::cli::output::stdout();
    for (name, url, info, _) in rows {
        let line = match info {
            Some(i) => describe(&i),
            None => "not logged in".to_string(),
        };
        let _ = writeln!(out, "{}  {url}\n  {line}", sanitize::one_line(&name));
    }
    Ok(Exit::Ok)
}

/// After a connect failed because the server needs a login: with a
/// terminal, offer to log in (true when the login succeeded); without one,
/// false (the caller reports exit 4 with the command to run).
pub async fn offer_login(config: &Config, server: &ServerConfig, e: &AuthError) -> bool {
    if e.kind != AuthErrorKind::NeedsLogin
        || !std::io::stdin().is_terminal()
        || !std::io::stderr().is_terminal()
    {
        return false;
    }
    eprint!(
        "mcpdeck: {} Log in now with a browser? [Y/n] ",
        sanitize::one_line(&e.message)
    );
    let _ = std::io::stderr().flush();
    let answer = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await;
    let yes = match answer {
        Ok(Ok(line)) => {
            let a = line.trim().to_ascii_lowercase();
            a.is_empty() || a == "y" || a == "yes"
        }
        _ => false,
    };
    if !yes {
        return false;
    }
    match login_server(config, server, &[]).await {
        Ok(info) => {
            eprintln!("mcpdeck: logged in: {}", describe(&info));
            true
        }
        Err(f) => {
            eprintln!("mcpdeck: {}", f.message);
            false
        }
    }
}
