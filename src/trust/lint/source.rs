//! Where a server's definitions come from, for the rules across servers:
//! two servers of one source are one server configured twice (an import
//! makes that), so their identical definitions shadow nothing.
//!
//! The source is the same package (run by `npx`, `uvx`… with the
//! runner's flags and the package's version dropped) with the same
//! arguments, the same command with the same arguments and directory, or
//! the same URL.

use crate::config::TransportConfig;

/// Runners of an npm package: the program and the words before the
/// package (`npm exec`, `pnpm dlx`…).
const NPM_RUNNERS: &[(&str, &[&str])] = &[
    ("npx", &[]),
    ("bunx", &[]),
    ("pnpx", &[]),
    ("npm", &["exec"]),
    ("npm", &["x"]),
    ("pnpm", &["dlx"]),
    ("yarn", &["dlx"]),
    ("bun", &["x"]),
];

/// Runners of a Python package.
const PY_RUNNERS: &[(&str, &[&str])] =
    &[("uvx", &[]), ("uv", &["tool", "run"]), ("pipx", &["run"])];

/// Runner options that take a value (`--from pkg`, `-p pkg`).
const VALUE_FLAGS: &[&str] = &[
    "-p",
    "--package",
    "--from",
    "--spec",
    "--with",
    "--python",
    "--registry",
    "--cache",
    "--userconfig",
    "--index-url",
    "--index",
    "-c",
    "--call",
];

/// The options that name the package itself.
const PACKAGE_FLAGS: &[&str] = &["-p", "--package", "--from", "--spec"];

/// The key of a server's source: equal keys, the same server.
pub fn source_key(transport: &TransportConfig) -> String {
    match transport {
        TransportConfig::Http { url, .. } => format!("url {}", normal_url(url)),
        TransportConfig::Stdio {
            command, args, cwd, ..
        } => {
            if let Some(key) = package(command, args) {
                return key;
            }
            let mut words = vec![command.clone()];
            words.extend(args.iter().cloned());
            let cwd = cwd
                .as_ref()
                .map(|c| format!(" in {}", c.display()))
                .unwrap_or_default();
            format!("command {}{cwd}", serde_json::Value::from(words))
        }
    }
}

/// The program's name without its directory or a Windows extension.
fn program(command: &str) -> String {
    let base = command.rsplit(['/', '\\']).next().unwrap_or(command);
    let lower = base.to_ascii_lowercase();
    for ext in [".cmd", ".exe", ".bat", ".ps1"] {
        if let Some(stem) = lower.strip_suffix(ext) {
            return stem.to_string();
        }
    }
    lower
}

/// `npm <pkg> [args]` or `pypi <pkg> [args]` when a runner runs a package.
fn package(command: &str, args: &[String]) -> Option<String> {
    let prog = program(command);
    let (ecosystem, sub) = NPM_RUNNERS
        .iter()
        .map(|r| ("npm", r))
        .chain(PY_RUNNERS.iter().map(|r| ("pypi", r)))
        .find(|(_, (p, sub))| *p == prog && args.iter().take(sub.len()).eq(sub.iter()))
        .map(|(e, (_, sub))| (e, sub.len()))?;
    let mut named = None;
    let mut rest = args[sub..].iter();
    let mut positional = None;
    while let Some(a) = rest.next() {
        if a == "--" {
            positional = rest.next();
            break;
        }
        if let Some((flag, value)) = a.split_once('=')
            && a.starts_with('-')
        {
            if PACKAGE_FLAGS.contains(&flag) {
                named = Some(value.to_string());
            }
            continue;
        }
        if VALUE_FLAGS.contains(&a.as_str()) {
            let value = rest.next();
            if PACKAGE_FLAGS.contains(&a.as_str()) {
                named = value.cloned();
            }
            continue;
        }
        if a.starts_with('-') {
            continue;
        }
        positional = Some(a);
        break;
    }
    // With `--package`/`--from`, the positional word is the command the
    // package provides; without, it is the package.
    let spec = named.or_else(|| positional.cloned())?;
    let name = match ecosystem {
        "npm" => npm_name(&spec),
        _ => pypi_name(&spec),
    };
    let mut words: Vec<String> = Vec::new();
    if let Some(p) = positional.filter(|p| **p != spec) {
        words.push(p.clone());
    }
    words.extend(rest.cloned());
    Some(format!(
        "{ecosystem} {name} {}",
        serde_json::Value::from(words)
    ))
}

/// An npm spec without its version: `@scope/pkg@1.2` is `@scope/pkg`.
fn npm_name(spec: &str) -> String {
    let cut = if let Some(scoped) = spec.strip_prefix('@') {
        scoped.find('@').map(|i| i + 1)
    } else {
        spec.find('@')
    };
    spec[..cut.unwrap_or(spec.len())].to_ascii_lowercase()
}

/// A PyPI spec without version or extras, normalised as PEP 503 does:
/// `Mcp_Server-Time[x]==1.0` is `mcp-server-time`.
fn pypi_name(spec: &str) -> String {
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(spec.len());
    let mut out = String::new();
    for c in spec[..end].chars() {
        let c = if matches!(c, '_' | '.') { '-' } else { c };
        if !(c == '-' && out.ends_with('-')) {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// A URL with its scheme and host lower-cased, without a fragment or a
/// trailing `/`.
fn normal_url(url: &str) -> String {
    match url::Url::parse(url.trim()) {
        Ok(mut u) => {
            u.set_fragment(None);
            u.as_str().trim_end_matches('/').to_string()
        }
        Err(_) => url.trim().trim_end_matches('/').to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(command: &str, args: &[&str]) -> String {
        source_key(&crate::config::ServerConfig::stdio("x", command, args).transport)
    }

    fn http(url: &str) -> String {
        source_key(&crate::config::ServerConfig::http("x", url).transport)
    }

    #[test]
    fn one_package_however_it_is_run() {
        let a = stdio("npx", &["-y", "@scope/pkg@1.2.3", "/data"]);
        for same in [
            stdio("npx", &["@scope/pkg", "/data"]),
            stdio("/usr/bin/npx", &["--yes", "@scope/pkg@latest", "/data"]),
            stdio("C:\\nodejs\\npx.cmd", &["-y", "@scope/pkg@1.2.3", "/data"]),
            stdio("pnpm", &["dlx", "@scope/pkg@2", "/data"]),
        ] {
            assert_eq!(a, same);
        }
        for other in [
            stdio("npx", &["-y", "@scope/pkg", "/elsewhere"]),
            stdio("npx", &["-y", "@scope/other", "/data"]),
            stdio("node", &["@scope/pkg", "/data"]),
        ] {
            assert_ne!(a, other);
        }
        assert_eq!(
            stdio("uvx", &["mcp-server-time==2025.1"]),
            stdio("uv", &["tool", "run", "Mcp_Server.Time"])
        );
        assert_eq!(
            stdio(
                "uvx",
                &["--from", "mcp-server-git", "mcp-server-git", "-r", "."]
            ),
            stdio("uvx", &["mcp-server-git", "-r", "."])
        );
        assert_ne!(
            stdio("uvx", &["mcp-server-time"]),
            stdio("npx", &["mcp-server-time"])
        );
    }

    #[test]
    fn one_command_with_its_arguments_and_directory() {
        let a = stdio("python", &["server.py"]);
        assert_eq!(a, stdio("python", &["server.py"]));
        assert_ne!(a, stdio("python", &["other.py"]));
        assert_ne!(a, stdio("python3", &["server.py"]));
        let mut elsewhere = crate::config::ServerConfig::stdio("x", "python", &["server.py"]);
        if let TransportConfig::Stdio { cwd, .. } = &mut elsewhere.transport {
            *cwd = Some("/srv".into());
        }
        assert_ne!(a, source_key(&elsewhere.transport));
    }

    #[test]
    fn one_url() {
        let a = http("https://mcp.example.com/mcp");
        assert_eq!(a, http("HTTPS://MCP.Example.com/mcp/"));
        assert_eq!(a, http("https://mcp.example.com/mcp#top"));
        assert_ne!(a, http("https://mcp.example.com/other"));
        assert_ne!(a, stdio("https://mcp.example.com/mcp", &[]));
    }
}
