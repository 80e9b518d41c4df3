//! The servers to export, with their strings as written in mcpdeck's
//! config (`${VAR}` references kept, not expanded).
//!
//! The loaded [`Config`] has every reference expanded; export must carry
//! the references instead, so the string keys of each server are read
//! again from the file, whose structure the loader already validated.

use std::path::Path;
use std::time::Duration;

use toml_edit::{DocumentMut, Item, TableLike};

use crate::config::{Config, HttpTransportKind, OAuthConfig, ServerConfig, TransportConfig};

/// A piece of a string: literal text, or a `${NAME}` / `${NAME:-default}`
/// reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Lit(String),
    Var {
        name: String,
        default: Option<String>,
    },
    /// A `${secret:NAME}`: a value of mcpdeck's credential store, which no
    /// other client reads.
    Secret(String),
}

/// A string as written in mcpdeck's config, split into literal text and
/// variable references (`$$` already read as a literal `$`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Text(pub Vec<Seg>);

impl Text {
    /// A string without references.
    pub fn literal(text: &str) -> Text {
        Text(vec![Seg::Lit(text.to_owned())])
    }

    /// Splits `raw` by mcpdeck's `${VAR}` syntax (see `config::expand`).
    /// A malformed reference (which the loader would have refused) is
    /// kept as literal text.
    pub fn parse(raw: &str) -> Text {
        let mut segs = Vec::new();
        let mut lit = String::new();
        let mut rest = raw;
        while let Some(dollar) = rest.find('$') {
            lit.push_str(&rest[..dollar]);
            let after = &rest[dollar + 1..];
            if let Some(tail) = after.strip_prefix('$') {
                lit.push('$');
                rest = tail;
            } else if let Some(body) = after.strip_prefix('{')
                && let Some(close) = body.find('}')
            {
                let inner = &body[..close];
                let (name, default) = match inner.split_once(":-") {
                    Some((n, d)) => (n, Some(d.to_owned())),
                    None => (inner, None),
                };
                if !lit.is_empty() {
                    segs.push(Seg::Lit(std::mem::take(&mut lit)));
                }
                match inner.strip_prefix("secret:") {
                    Some(secret) if !secret.starts_with('-') => {
                        segs.push(Seg::Secret(secret.to_owned()))
                    }
                    _ => segs.push(Seg::Var {
                        name: name.to_owned(),
                        default,
                    }),
                }
                rest = &body[close + 1..];
            } else {
                lit.push('$');
                rest = after;
            }
        }
        lit.push_str(rest);
        if !lit.is_empty() {
            segs.push(Seg::Lit(lit));
        }
        Text(segs)
    }

    /// The variable names referenced.
    pub fn vars(&self) -> Vec<&str> {
        self.0
            .iter()
            .filter_map(|s| match s {
                Seg::Var { name, .. } => Some(name.as_str()),
                Seg::Lit(_) | Seg::Secret(_) => None,
            })
            .collect()
    }

    /// The name of the variable when the whole text is exactly `${NAME}`.
    pub fn only_var(&self) -> Option<&str> {
        match self.0.as_slice() {
            [
                Seg::Var {
                    name,
                    default: None,
                },
            ] => Some(name),
            _ => None,
        }
    }
}

/// One server to export.
#[derive(Debug, Clone)]
pub struct Source {
    pub name: String,
    pub enabled: bool,
    pub deny_tools: Vec<String>,
    pub allow_tools: Vec<String>,
    pub timeout: Option<Duration>,
    pub transport: SourceTransport,
}

#[derive(Debug, Clone)]
pub enum SourceTransport {
    Stdio {
        command: Text,
        args: Vec<Text>,
        env: Vec<(String, Text)>,
        cwd: Option<Text>,
    },
    Http {
        url: Text,
        headers: Vec<(String, Text)>,
        kind: HttpTransportKind,
        /// `ca_file` or `insecure` is set (no client carries them).
        tls: bool,
        oauth: Option<Box<OAuthConfig>>,
    },
}

/// The servers of `config`, their strings read again from its file when
/// it has one (for `--demo`, the expanded values).
pub fn sources(config: &Config) -> Result<Vec<Source>, String> {
    let document = match &config.path {
        Some(path) => read_document(path)?,
        None => None,
    };
    let tables = document
        .as_ref()
        .and_then(|d| d.get("servers"))
        .and_then(Item::as_table_like);
    Ok(config
        .servers
        .iter()
        .map(|server| {
            let raw = tables
                .and_then(|t| t.get(&server.name))
                .and_then(Item::as_table_like);
            source(server, raw)
        })
        .collect())
}

fn read_document(path: &Path) -> Result<Option<DocumentMut>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("could not read {}: {e}", path.display())),
    };
    text.parse::<DocumentMut>()
        .map(Some)
        .map_err(|e| format!("{}: invalid TOML: {}", path.display(), e.message()))
}

fn source(server: &ServerConfig, raw: Option<&dyn TableLike>) -> Source {
    let raw_str = |key: &str| -> Option<Text> {
        raw.and_then(|t| t.get(key))
            .and_then(Item::as_str)
            .map(Text::parse)
    };
    let raw_list = |key: &str| -> Option<Vec<Text>> {
        let array = raw.and_then(|t| t.get(key))?.as_array()?;
        array.iter().map(|v| v.as_str().map(Text::parse)).collect()
    };
    let raw_pairs = |key: &str| -> Option<Vec<(String, Text)>> {
        let table = raw.and_then(|t| t.get(key))?.as_table_like()?;
        table
            .iter()
            .map(|(k, v)| v.as_str().map(|s| (k.to_owned(), Text::parse(s))))
            .collect()
    };
    let literal_pairs = |pairs: &[(String, String)]| {
        pairs
            .iter()
            .map(|(k, v)| (k.clone(), Text::literal(v)))
            .collect::<Vec<_>>()
    };
    let transport = match &server.transport {
        TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => SourceTransport::Stdio {
            command: raw_str("command").unwrap_or_else(|| Text::literal(command)),
            args: raw_list("args")
                .unwrap_or_else(|| args.iter().map(|a| Text::literal(a)).collect()),
            env: raw_pairs("env").unwrap_or_else(|| literal_pairs(env)),
            cwd: raw_str("cwd").or_else(|| {
                cwd.as_ref()
                    .map(|p| Text::literal(&p.display().to_string()))
            }),
        },
        TransportConfig::Http {
            url,
            headers,
            transport,
            ca_file,
            insecure,
            oauth,
        } => SourceTransport::Http {
            url: raw_str("url").unwrap_or_else(|| Text::literal(url)),
            headers: raw_pairs("headers").unwrap_or_else(|| literal_pairs(headers)),
            kind: *transport,
            tls: ca_file.is_some() || *insecure,
            oauth: oauth.clone(),
        },
    };
    Source {
        name: server.name.clone(),
        enabled: server.enabled,
        deny_tools: server.deny_tools.clone(),
        allow_tools: server.allow_tools.clone(),
        timeout: server.timeout,
        transport,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str, default: Option<&str>) -> Seg {
        Seg::Var {
            name: name.into(),
            default: default.map(Into::into),
        }
    }

    #[test]
    fn splits_references_defaults_and_dollars() {
        assert_eq!(
            Text::parse("Bearer ${TOKEN}").0,
            vec![Seg::Lit("Bearer ".into()), var("TOKEN", None)]
        );
        assert_eq!(
            Text::parse("${A:-x}/b$$c $5").0,
            vec![var("A", Some("x")), Seg::Lit("/b$c $5".into())]
        );
        assert_eq!(Text::parse("${ONLY}").only_var(), Some("ONLY"));
        assert_eq!(Text::parse("${ONLY:-d}").only_var(), None);
        assert_eq!(Text::parse("$${NOT}").0, vec![Seg::Lit("${NOT}".into())]);
        assert_eq!(
            Text::parse("Bearer ${secret:gh.tok}").0,
            vec![Seg::Lit("Bearer ".into()), Seg::Secret("gh.tok".into())]
        );
        assert_eq!(
            Text::parse("${secret:-d}").0,
            vec![var("secret", Some("d"))]
        );
        assert_eq!(Text::parse("").0, vec![]);
    }

    #[test]
    fn strings_are_read_as_written_not_expanded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let text = "[servers.a]\ncommand = \"${BIN:-node}\"\nargs = [\"x\", \"${HOME}/y\"]\nenv = { K = \"${K}\" }\n\n[servers.r]\nurl = \"https://e.com/${P}\"\nheaders = { Authorization = \"Bearer ${T}\" }\n";
        std::fs::write(&path, text).unwrap();
        let env = |name: &str| Some(format!("<{name}>"));
        let config = crate::config::load_str(text, Some(&path), &env).unwrap();
        let sources = sources(&config).unwrap();
        let SourceTransport::Stdio {
            command, args, env, ..
        } = &sources[0].transport
        else {
            panic!("stdio");
        };
        assert_eq!(command.0, vec![var("BIN", Some("node"))]);
        assert_eq!(args[1].vars(), vec!["HOME"]);
        assert_eq!(env[0].1.only_var(), Some("K"));
        let SourceTransport::Http { url, headers, .. } = &sources[1].transport else {
            panic!("http");
        };
        assert_eq!(url.vars(), vec!["P"]);
        assert_eq!(headers[0].0, "Authorization");
    }
}
