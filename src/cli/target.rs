//! The server a command talks to and how long it waits for it: TARGET (a
//! configured name, an http(s):// URL, or `-- CMD ARGS…`), resolved to one
//! server's config, and `--timeout SECS`. Many commands flatten these
//! arguments into theirs, so they live here, below both the command line
//! ([`super::args`], which names the commands' arguments) and the commands
//! (which never name `args`).

use clap::Args;

use super::exit::{Exit, Failure, Kind};
use crate::config::{self, Config, ServerConfig};
use crate::sanitize;
use crate::text::did_you_mean;

#[derive(Args, Debug, Clone)]
pub struct TargetArgs {
    /// A configured server name or an http(s):// URL
    pub target: Option<String>,
    /// An ad-hoc stdio server: `-- CMD ARGS…`
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// `--timeout SECS` of the commands that connect and ask.
#[derive(Args, Debug, Clone, Default)]
pub struct Limit {
    /// Give up after SECS seconds, connect and request together (exit 3) [default: the config's connect_timeout and request_timeout]
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
}

impl Limit {
    /// The timeout, checked: a number of seconds above 0, at most a week.
    pub fn duration(&self) -> Result<Option<std::time::Duration>, Failure> {
        match self.timeout {
            None => Ok(None),
            Some(t) if t.is_finite() && t > 0.0 && t <= 7.0 * 86400.0 => {
                Ok(Some(std::time::Duration::from_secs_f64(t)))
            }
            Some(t) => Err(Failure::new(
                Exit::Usage,
                format!("--timeout {t}: give a number of seconds above 0 and at most a week"),
            )),
        }
    }

    /// `d` as `--timeout` would take it: `1`, `2.5`.
    pub fn secs(d: std::time::Duration) -> String {
        let s = d.as_secs_f64();
        if s.fract() == 0.0 {
            format!("{s:.0}")
        } else {
            format!("{s}")
        }
    }
}

/// Resolve TARGET to one server config.
pub fn target_config(config: &Config, target: &TargetArgs) -> Result<ServerConfig, Failure> {
    if !target.command.is_empty() {
        if target.target.is_some() {
            return Err(Failure::new(
                Exit::Usage,
                "give either TARGET or `-- CMD ARGS…`, not both",
            ));
        }
        let mut server = ServerConfig::stdio("adhoc", target.command[0].clone(), &[]);
        if let config::TransportConfig::Stdio { args, .. } = &mut server.transport {
            *args = target.command[1..].to_vec();
        }
        return Ok(server);
    }
    let Some(name) = target.target.as_deref() else {
        return Err(Failure::new(
            Exit::Usage,
            "give a TARGET: a configured server name, an http(s):// URL, or `-- CMD ARGS…`",
        ));
    };
    if name.starts_with("http://") || name.starts_with("https://") {
        // A configured server with this URL brings its settings (headers,
        // OAuth client, TLS).
        let configured = config.servers.iter().find(
            |s| matches!(&s.transport, config::TransportConfig::Http { url, .. } if url == name),
        );
        // A URL never depends on the config's variables: with one of them
        // unset, the server's settings are left out.
        if let Some(s) = configured
            && let Some(why) = s.unresolved()
        {
            eprintln!(
                "mcpdeck: warning: not using the settings of server {:?}, which has this URL: {}",
                s.name,
                sanitize::strip(&why)
            );
            return Ok(ServerConfig::http("remote", name));
        }
        if let Some(s) = configured {
            let mut s = s.clone();
            s.enabled = true;
            return Ok(s);
        }
        return Ok(ServerConfig::http("remote", name));
    }
    match config.server(name) {
        Some(s) if s.unresolved().is_some() => Err(unresolved_failure(s)),
        Some(s) => {
            let mut s = s.clone();
            if !s.enabled {
                eprintln!(
                    "mcpdeck: server {name:?} is disabled in the config; connecting to it anyway"
                );
                s.enabled = true;
            }
            Ok(s)
        }
        None => {
            let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
            let hint = did_you_mean(&names, name).unwrap_or_else(|| {
                if names.is_empty() {
                    let at = config
                        .path
                        .as_ref()
                        .map(|p| format!(" in {}", p.display()))
                        .unwrap_or_default();
                    format!("; no servers are configured{at} (try --demo, or `-- CMD ARGS…`)")
                } else {
                    format!(" (configured: {})", names.join(", "))
                }
            });
            Err(Failure::new(
                Exit::Usage,
                format!("no server named {name:?} in the configuration{hint}"),
            ))
        }
    }
}

/// A configured server named by a command while one of its `${VAR}`s is
/// not set: a configuration error (exit 2) that says where and what to do.
pub fn unresolved_failure(server: &ServerConfig) -> Failure {
    let why = server.unresolved().unwrap_or_default();
    Failure::new(Exit::Usage, sanitize::strip(&why)).kind(Kind::Config)
}
