//! From an entry to what runs: the package or remote picked, every input
//! filled (from what the user gave, else the entry's fixed value or
//! default), and the exact command line (an argument list, never a shell
//! string) or URL and headers.

use super::model::{Arg, Entry, Input, Package, Remote};

/// What the user gave: `--env K=V`, `--header K=V`, `--var K=V`,
/// `--arg NAME=VALUE`.
#[derive(Debug, Clone, Default)]
pub struct Given {
    pub env: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub vars: Vec<(String, String)>,
    pub args: Vec<(String, String)>,
}

/// Which way to run it, 1-based as shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Package(usize),
    Remote(usize),
}

/// Where a secret input goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Env(String),
    Header(String),
    Arg(usize),
    Url,
}

/// A filled input that is a secret (to be kept out of the config).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretValue {
    /// The input's name (an env var, a header, a `{variable}`).
    pub name: String,
    pub place: Place,
    pub value: String,
}

/// What runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    Http {
        url: String,
        /// streamable-http or sse.
        kind: String,
        headers: Vec<(String, String)>,
    },
}

/// A resolved entry.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub launch: Launch,
    pub choice: Choice,
    /// Which was picked, in words (`remote 1: streamable-http https://…`).
    pub picked: String,
    /// The filled inputs that are secrets, with where they went.
    pub secrets: Vec<SecretValue>,
}

/// An input that is required and has no value: its flag and what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Missing {
    /// `--env NAME=…`, `--header NAME=…`, `--var NAME=…`, `--arg NAME=…`.
    pub flag: String,
    pub input: Input,
}

/// Why an entry cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LaunchError {
    #[error("{0}")]
    Choice(String),
    #[error("{0}")]
    Identifier(String),
    #[error("{0}")]
    Unsupported(String),
    #[error("{}", missing_message(.0))]
    Missing(Vec<Missing>),
    #[error("{0}")]
    Value(String),
}

fn missing_message(m: &[Missing]) -> String {
    let list: Vec<String> = m
        .iter()
        .map(|m| {
            let about = m
                .input
                .description
                .as_deref()
                .map(|d| format!(" ({})", crate::sanitize::one_line(d)))
                .unwrap_or_default();
            let secret = if m.input.secret { ", a secret" } else { "" };
            format!("{}{about}{secret}", m.flag)
        })
        .collect();
    format!(
        "the entry needs {} with no default: pass {}",
        if m.len() == 1 { "an input" } else { "inputs" },
        list.join("; ")
    )
}

/// The runtime command of a package type (what must be installed).
pub fn runtime(p: &Package) -> &'static str {
    match p.registry_type.as_str() {
        "npm" => match p.runtime_hint.as_deref() {
            Some("bunx") => "bunx",
            _ => "npx",
        },
        "pypi" => "uvx",
        "oci" => "docker",
        "nuget" => "dnx",
        _ => "",
    }
}

/// Whether a command is on `PATH`.
pub fn installed(command: &str) -> bool {
    if command.is_empty() {
        return false;
    }
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        let p = dir.join(command);
        std::fs::metadata(&p).is_ok_and(|m| {
            use std::os::unix::fs::PermissionsExt;
            m.is_file() && m.permissions().mode() & 0o111 != 0
        })
    })
}

/// The default choice: a remote if there is one, else the first package
/// whose runtime is installed (`installed`), else the first package.
pub fn pick(
    entry: &Entry,
    asked: Option<Choice>,
    installed: &dyn Fn(&str) -> bool,
) -> Result<Choice, LaunchError> {
    if let Some(c) = asked {
        let ok = match c {
            Choice::Package(n) => n >= 1 && n <= entry.packages.len(),
            Choice::Remote(n) => n >= 1 && n <= entry.remotes.len(),
        };
        if !ok {
            return Err(LaunchError::Choice(format!(
                "{} has {} package{} and {} remote{}; `registry show` lists them",
                crate::sanitize::one_line(&entry.name),
                entry.packages.len(),
                if entry.packages.len() == 1 { "" } else { "s" },
                entry.remotes.len(),
                if entry.remotes.len() == 1 { "" } else { "s" }
            )));
        }
        return Ok(c);
    }
    if !entry.remotes.is_empty() {
        return Ok(Choice::Remote(1));
    }
    if let Some(i) = entry.packages.iter().position(|p| installed(runtime(p))) {
        return Ok(Choice::Package(i + 1));
    }
    if entry.packages.is_empty() {
        return Err(LaunchError::Choice(format!(
            "{} has neither packages nor remotes: nothing to run",
            crate::sanitize::one_line(&entry.name)
        )));
    }
    Ok(Choice::Package(1))
}

fn bad_start(s: &str) -> bool {
    s.is_empty() || s.starts_with('-')
}

/// Refuse an identifier (or version) with characters its registry type
/// cannot have: it goes on a command line (as one argument, never through
/// a shell, but a runtime may still read it as an option or a path).
pub fn check_identifier(
    kind: &str,
    identifier: &str,
    version: Option<&str>,
) -> Result<(), LaunchError> {
    let ok_char: fn(char) -> bool = match kind {
        // npm: @scope/name, lowercase, digits, - . _ ~
        "npm" => |c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-._~@/".contains(c),
        // PyPI: letters, digits, - . _ (and [extras])
        "pypi" => |c| c.is_ascii_alphanumeric() || "-._[],".contains(c),
        // OCI: registry[:port]/path[:tag][@sha256:digest]
        "oci" => |c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-._/:@".contains(c),
        "nuget" => |c| c.is_ascii_alphanumeric() || "-._".contains(c),
        "mcpb" => |c| !c.is_whitespace() && !c.is_control(),
        _ => |_| false,
    };
    let shown = crate::sanitize::one_line(identifier);
    if bad_start(identifier)
        || !identifier.chars().all(ok_char)
        || identifier.contains("..")
        || (kind == "npm" && !npm_shape(identifier))
    {
        return Err(LaunchError::Identifier(format!(
            "refused: the {kind} identifier {shown:?} has characters a {kind} package name cannot have (it would go on the command line of {}); nothing was run",
            if kind == "oci" {
                "docker"
            } else {
                "the runtime"
            }
        )));
    }
    if let Some(v) = version
        && (bad_start(v)
            || !v
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._+".contains(c)))
    {
        return Err(LaunchError::Identifier(format!(
            "refused: the version {:?} of {shown:?} has characters a version cannot have; nothing was run",
            crate::sanitize::one_line(v)
        )));
    }
    Ok(())
}

/// npm: `name` or `@scope/name`, nothing else (npx reads `./x`, `/x` and
/// `user/repo` as a path or a git repository).
fn npm_shape(id: &str) -> bool {
    match id.strip_prefix('@') {
        Some(rest) => rest.split_once('/').is_some_and(|(scope, name)| {
            !scope.is_empty() && !name.is_empty() && !name.contains('/')
        }),
        None => !id.contains('/'),
    }
}

/// The options a package may ask of its runtime: what the runtime itself
/// does must not change (npx running a shell command with `-c`, docker
/// given the host with `--privileged` or `--network host`). Anything else
/// is refused, naming it.
fn runtime_args_ok(kind: &str, argv: &[String]) -> Result<(), LaunchError> {
    let allowed: &[&str] = match kind {
        "oci" => &[
            "-e",
            "--env",
            "-v",
            "--volume",
            "--mount",
            "-w",
            "--workdir",
        ],
        "pypi" => &["--python"],
        _ => &[],
    };
    let mut after_allowed = false;
    for a in argv {
        let flag = a.split('=').next().unwrap_or(a);
        if a.starts_with('-') && !after_allowed && !allowed.contains(&flag) {
            return Err(LaunchError::Identifier(format!(
                "refused: the entry asks {} for the option {:?}, which changes how the runtime itself runs; nothing was run (add the server by hand with `mcpdeck add` if you trust it)",
                if kind == "oci" {
                    "docker"
                } else {
                    "the runtime"
                },
                crate::sanitize::one_line(a)
            )));
        }
        after_allowed = allowed.contains(&a.as_str());
    }
    Ok(())
}

/// Environment variables that configure the runtime (npx, uvx, docker,
/// the dynamic linker) rather than the server are refused.
fn runtime_env_ok(name: &str) -> Result<(), LaunchError> {
    let upper = name.to_ascii_uppercase();
    let bad = [
        "DOCKER_", "NPM_", "UV_", "PIP_", "LD_", "DYLD_", "BUN_", "DOTNET_", "NUGET_", "PYTHON",
    ]
    .iter()
    .any(|p| upper.starts_with(p))
        || matches!(
            upper.as_str(),
            "NODE_OPTIONS" | "NODE_PATH" | "PATH" | "HOME" | "COREPACK_HOME"
        );
    if bad {
        return Err(LaunchError::Identifier(format!(
            "refused: the environment variable {:?} would configure the runtime, not the server; nothing was run",
            crate::sanitize::one_line(name)
        )));
    }
    Ok(())
}

/// A `--var` given for a `{variable}` with choices must be one of them.
fn check_choices<'a>(
    variables: impl Iterator<Item = &'a Input>,
    given: &Given,
) -> Result<(), LaunchError> {
    for v in variables {
        if let Some(g) = self::given(&given.vars, &v.name)
            && !v.choices.is_empty()
            && !v.choices.iter().any(|c| c == g)
        {
            return Err(LaunchError::Value(format!(
                "--var {}: {:?} is not one of {}",
                v.name,
                crate::sanitize::one_line(g),
                crate::sanitize::one_line(&v.choices.join(", "))
            )));
        }
    }
    Ok(())
}

fn given<'a>(list: &'a [(String, String)], name: &str) -> Option<&'a str> {
    list.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// Fill `{name}` from `vars` (else the variable's default); unknown or
/// missing ones are collected.
fn fill(
    template: &str,
    variables: &[Input],
    vars: &[(String, String)],
    missing: &mut Vec<Missing>,
    secret: &mut bool,
) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let name = &rest[open + 1..open + close];
        out.push_str(&rest[..open]);
        let var = variables.iter().find(|v| v.name == name);
        if var.is_some_and(|v| v.secret) {
            *secret = true;
        }
        match given(vars, name)
            .map(str::to_string)
            .or_else(|| var.and_then(|v| v.default.clone()))
        {
            Some(v) => out.push_str(&v),
            None => {
                missing.push(Missing {
                    flag: format!("--var {name}=…"),
                    input: var.cloned().unwrap_or(Input {
                        name: name.to_string(),
                        required: true,
                        ..Input::default()
                    }),
                });
                out.push_str(&rest[open..open + close + 1]);
            }
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// One input's value: given, else its fixed value (filled), else its
/// default; `None` when optional and unset.
fn value_of(
    input: &Input,
    given_value: Option<&str>,
    flag: &str,
    vars: &[(String, String)],
    missing: &mut Vec<Missing>,
    secret: &mut bool,
) -> Result<Option<String>, LaunchError> {
    *secret = input.secret || input.variables.iter().any(|v| v.secret);
    let v = match given_value {
        Some(v) => Some(v.to_string()),
        None => match &input.value {
            Some(t) => Some(fill(t, &input.variables, vars, missing, secret)),
            None => input.default.clone(),
        },
    };
    match v {
        Some(v) => {
            if !input.choices.is_empty() && given_value.is_some() && !input.choices.contains(&v) {
                return Err(LaunchError::Value(format!(
                    "{flag}: {:?} is not one of {}",
                    crate::sanitize::one_line(&v),
                    crate::sanitize::one_line(&input.choices.join(", "))
                )));
            }
            Ok(Some(v))
        }
        None if input.required => {
            missing.push(Missing {
                flag: format!("{flag}{}=…", input.name),
                input: input.clone(),
            });
            Ok(None)
        }
        None => Ok(None),
    }
}

fn arg_values(
    list: &[Arg],
    given: &Given,
    missing: &mut Vec<Missing>,
    secrets: &mut Vec<SecretValue>,
    argv: &mut Vec<String>,
) -> Result<(), LaunchError> {
    for a in list {
        let mut secret = false;
        let v = value_of(
            &a.input,
            self::given(&given.args, &a.input.name),
            "--arg ",
            &given.vars,
            missing,
            &mut secret,
        )?;
        let Some(v) = v else { continue };
        if let Some(f) = &a.flag {
            argv.push(f.clone());
        }
        if secret {
            secrets.push(SecretValue {
                name: a.input.name.clone(),
                place: Place::Arg(argv.len()),
                value: v.clone(),
            });
        }
        argv.push(v);
    }
    Ok(())
}

/// Resolve `choice` of `entry` with what was given.
pub fn resolve(entry: &Entry, choice: Choice, given: &Given) -> Result<Resolved, LaunchError> {
    let mut missing = Vec::new();
    let mut secrets = Vec::new();
    let (launch, picked) = match choice {
        Choice::Remote(n) => {
            let r: &Remote = &entry.remotes[n - 1];
            let mut url_secret = false;
            let url = fill(
                &r.url,
                &r.variables,
                &given.vars,
                &mut missing,
                &mut url_secret,
            );
            check_choices(
                r.variables
                    .iter()
                    .chain(r.headers.iter().flat_map(|h| &h.variables)),
                given,
            )?;
            if url_secret {
                secrets.push(SecretValue {
                    name: "url".into(),
                    place: Place::Url,
                    value: url.clone(),
                });
            }
            let mut headers = Vec::new();
            for h in &r.headers {
                let mut secret = false;
                if let Some(v) = value_of(
                    h,
                    given
                        .headers
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case(&h.name))
                        .map(|(_, v)| v.as_str()),
                    "--header ",
                    &given.vars,
                    &mut missing,
                    &mut secret,
                )? {
                    if secret || crate::mcp::netlog::is_secret_header(&h.name) {
                        secrets.push(SecretValue {
                            name: h.name.clone(),
                            place: Place::Header(h.name.clone()),
                            value: v.clone(),
                        });
                    }
                    headers.push((h.name.clone(), v));
                }
            }
            // Headers given that the entry does not name are sent too (a
            // secret-looking one kept as a secret).
            for (k, v) in &given.headers {
                if !headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(k)) {
                    if crate::mcp::netlog::is_secret_header(k) {
                        secrets.push(SecretValue {
                            name: k.clone(),
                            place: Place::Header(k.clone()),
                            value: v.clone(),
                        });
                    }
                    headers.push((k.clone(), v.clone()));
                }
            }
            (
                Launch::Http {
                    url: url.clone(),
                    kind: r.kind.clone(),
                    headers,
                },
                format!(
                    "remote {n}: {} {}",
                    r.kind,
                    crate::mcp::netlog::shown_url(&r.url)
                ),
            )
        }
        Choice::Package(n) => {
            let p: &Package = &entry.packages[n - 1];
            check_identifier(&p.registry_type, &p.identifier, p.version.as_deref())?;
            if p.registry_type == "mcpb" {
                return Err(LaunchError::Unsupported(format!(
                    "package {n} is an mcpb bundle ({}): mcpb is not supported yet; pick another with --package N or --remote N",
                    crate::sanitize::one_line(&p.identifier)
                )));
            }
            if p.transport != "stdio" {
                return Err(LaunchError::Unsupported(format!(
                    "package {n} serves MCP over {} (at {}), not stdio: start it yourself and use its URL",
                    crate::sanitize::one_line(&p.transport),
                    crate::sanitize::one_line(p.transport_url.as_deref().unwrap_or("a URL"))
                )));
            }
            check_choices(
                p.env
                    .iter()
                    .chain(p.runtime_args.iter().map(|a| &a.input))
                    .chain(p.package_args.iter().map(|a| &a.input))
                    .flat_map(|i| &i.variables),
                given,
            )?;
            let mut env = Vec::new();
            for e in &p.env {
                let mut secret = false;
                if let Some(v) = value_of(
                    e,
                    self::given(&given.env, &e.name),
                    "--env ",
                    &given.vars,
                    &mut missing,
                    &mut secret,
                )? {
                    if secret {
                        secrets.push(SecretValue {
                            name: e.name.clone(),
                            place: Place::Env(e.name.clone()),
                            value: v.clone(),
                        });
                    }
                    env.push((e.name.clone(), v));
                }
            }
            for (k, v) in &given.env {
                if !env.iter().any(|(e, _)| e == k) {
                    if crate::mcp::netlog::is_secret_header(k) {
                        secrets.push(SecretValue {
                            name: k.clone(),
                            place: Place::Env(k.clone()),
                            value: v.clone(),
                        });
                    }
                    env.push((k.clone(), v.clone()));
                }
            }
            for (k, _) in &env {
                runtime_env_ok(k)?;
            }
            let mut runtime_args = Vec::new();
            arg_values(
                &p.runtime_args,
                given,
                &mut missing,
                &mut secrets,
                &mut runtime_args,
            )?;
            runtime_args_ok(&p.registry_type, &runtime_args)?;
            let mut package_args = Vec::new();
            arg_values(
                &p.package_args,
                given,
                &mut missing,
                &mut Vec::new(),
                &mut package_args,
            )?;
            let id = &p.identifier;
            let (command, mut args): (String, Vec<String>) = match p.registry_type.as_str() {
                "npm" => {
                    let spec = match &p.version {
                        Some(v) => format!("{id}@{v}"),
                        None => id.clone(),
                    };
                    let mut a = vec!["-y".to_string()];
                    a.extend(runtime_args);
                    a.push(spec);
                    (runtime(p).to_string(), a)
                }
                "pypi" => {
                    let spec = match &p.version {
                        Some(v) => format!("{id}=={v}"),
                        None => id.clone(),
                    };
                    let mut a = runtime_args;
                    a.push(spec);
                    ("uvx".into(), a)
                }
                "oci" => {
                    let last = id.rsplit('/').next().unwrap_or(id);
                    let image = match &p.version {
                        Some(v) if !last.contains(':') && !last.contains('@') => {
                            format!("{id}:{v}")
                        }
                        _ => id.clone(),
                    };
                    let mut a = vec!["run".to_string(), "-i".into(), "--rm".into()];
                    // The container sees only the variables passed by name.
                    for (k, _) in &env {
                        a.push("-e".into());
                        a.push(k.clone());
                    }
                    a.extend(runtime_args);
                    a.push(image);
                    ("docker".into(), a)
                }
                "nuget" => {
                    let spec = match &p.version {
                        Some(v) => format!("{id}@{v}"),
                        None => id.clone(),
                    };
                    let mut a = runtime_args;
                    a.push(spec);
                    a.push("--yes".into());
                    if !package_args.is_empty() {
                        a.push("--".into());
                    }
                    ("dnx".into(), a)
                }
                other => {
                    return Err(LaunchError::Unsupported(format!(
                        "packages of type {:?} are not supported",
                        crate::sanitize::one_line(other)
                    )));
                }
            };
            // The package arguments' secrets, at their places in the argv.
            let base = args.len();
            let mut pkg_secrets = Vec::new();
            let mut scratch = Vec::new();
            arg_values(
                &p.package_args,
                given,
                &mut Vec::new(),
                &mut pkg_secrets,
                &mut scratch,
            )?;
            for mut s in pkg_secrets {
                if let Place::Arg(i) = s.place {
                    s.place = Place::Arg(base + i);
                }
                secrets.push(s);
            }
            args.extend(package_args);
            let picked = format!(
                "package {n}: {} {}{}",
                p.registry_type,
                crate::sanitize::one_line(id),
                p.version
                    .as_deref()
                    .map(|v| format!(" {}", crate::sanitize::one_line(v)))
                    .unwrap_or_default()
            );
            (Launch::Stdio { command, args, env }, picked)
        }
    };
    if !missing.is_empty() {
        return Err(LaunchError::Missing(missing));
    }
    Ok(Resolved {
        launch,
        choice,
        picked,
        secrets,
    })
}

/// The command line as it would be typed (each word quoted as needed),
/// for people to read; it is never run through a shell.
pub fn shown(launch: &Launch, secrets: &[SecretValue]) -> String {
    let masked = |v: &str| {
        if secrets.iter().any(|s| s.value == v) {
            "••••••".to_string()
        } else {
            v.to_string()
        }
    };
    match launch {
        Launch::Stdio { command, args, env } => {
            let mut words: Vec<String> = env
                .iter()
                .map(|(k, v)| format!("{k}={}", crate::text::shell_word(&masked(v))))
                .collect();
            words.push(crate::text::shell_word(command));
            words.extend(args.iter().map(|a| crate::text::shell_word(&masked(a))));
            crate::sanitize::one_line(&words.join(" "))
        }
        Launch::Http { url, kind, headers } => {
            let mut s = format!("{kind} {}", crate::mcp::netlog::shown_url(&masked(url)));
            for (k, v) in headers {
                let (k, v) = crate::mcp::netlog::shown_header(k, &masked(v));
                s.push_str(&format!("\n  {k}: {v}"));
            }
            crate::sanitize::one_line(&s).replace('␤', "\n")
        }
    }
}
