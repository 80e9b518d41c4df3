//! Which configuration a run uses: `--demo`, `--config FILE`,
//! `$MCPDECK_CONFIG`, or the user's default file; and what to say when no
//! servers are configured yet.

use super::args::{Cli, Cmd};
use super::exit::{Exit, Failure, Kind};
use crate::config::{self, Config};

pub fn load_config(cli: &Cli) -> Result<Config, Failure> {
    // `--capabilities SET`: declared to every server, whatever the config says.
    config::set_capabilities_flag(cli.capabilities);
    // `--roots DIR…`: this run offers these directories and nothing else.
    if let Some(dirs) = &cli.roots {
        if let Some(bad) = dirs.iter().find(|d| !d.is_dir()) {
            return Err(Failure::new(
                Exit::Usage,
                format!(
                    "--roots: {} is not a directory; give existing directories (the list ends at the next flag: put --roots after the command's arguments, or repeat it once per directory)",
                    bad.display()
                ),
            ));
        }
        config::set_roots_flag(Some(dirs.clone()));
    }
    // The config commands and import read the file themselves (a broken
    // file is what `config check` and `config edit` are for; import writes
    // `${VAR}`s that need not be set).
    if let Some(config) = config_for(cli) {
        return config;
    }
    if cli.demo {
        let mut demo = crate::demo::demo_config();
        config::apply_roots_flag(&mut demo);
        return Ok(demo);
    }
    let Some(path) = config::resolve_path(cli.config.as_deref()) else {
        let mut empty = Config::empty(None);
        config::apply_roots_flag(&mut empty);
        return Ok(empty);
    };
    let explicit = cli.config.is_some()
        || std::env::var_os(config::CONFIG_ENV_VAR).is_some_and(|v| !v.is_empty());
    // export writes the servers as written (`${VAR}` stays a reference):
    // the variables need not be set.
    if matches!(cli.command, Some(Cmd::Export(_))) {
        if !explicit && !path.exists() {
            return Ok(Config::empty(Some(path)));
        }
        return config::export::load_unexpanded(&path)
            .map_err(|e| Failure::new(Exit::Usage, e.to_string()).kind(Kind::Config));
    }
    let loaded = if explicit {
        config::load(&path)
    } else {
        config::load_or_empty(&path)
    };
    loaded.map_err(|e| {
        let from = if cli.config.is_some() {
            "--config"
        } else {
            config::CONFIG_ENV_VAR
        };
        let hint = if !path.exists() {
            format!(
                " (the file was named by {from}; create it, or point {from} at an existing file)"
            )
        } else {
            String::new()
        };
        Failure::new(Exit::Usage, format!("{e}{hint}")).kind(Kind::Config)
    })
}

/// For the commands that read the config file themselves (so that a broken
/// or incomplete file does not stop them before they start): the config
/// they get, which only names the file. `None` for every other command.
fn config_for(cli: &Cli) -> Option<Result<Config, Failure>> {
    let writes = match cli.command.as_ref()? {
        Cmd::Add(_)
        | Cmd::Remove(_)
        | Cmd::Enable(_)
        | Cmd::Disable(_)
        | Cmd::Deny(_)
        | Cmd::Allow(_)
        | Cmd::Config(_)
        | Cmd::Import(_) => true,
        // scan reads the config itself: a broken file is reported, the
        // other clients are still scanned.
        // serves reads no config at all.
        Cmd::Completions(_) | Cmd::ServerNames | Cmd::Scan(_) | Cmd::Serves { .. } => false,
        _ => return None,
    };
    if writes && cli.demo {
        return Some(Err(Failure::new(
            Exit::Usage,
            "--demo uses the built-in demo servers, which are in no file; drop --demo to work on the config file",
        )));
    }
    let mut config = Config::empty(config::resolve_path(cli.config.as_deref()));
    // `--roots` and `--capabilities` still hold (scan connects servers
    // with these settings when mcpdeck's own config has none to give).
    config::apply_roots_flag(&mut config);
    Some(Ok(config))
}

pub fn no_servers_yet(config: &Config) {
    let path = config
        .path
        .as_ref()
        .map(|p| p.display().to_string())
        .or_else(|| config::default_path().map(|p| p.display().to_string()))
        .unwrap_or_else(|| "(no config directory on this system; use --config FILE)".into());
    outln!("No servers are configured yet.");
    outln!("");
    outln!("Add one to {path}, for example:");
    outln!("");
    outln!("    [servers.everything]");
    outln!("    command = \"npx\"");
    outln!("    args = [\"-y\", \"@modelcontextprotocol/server-everything\"]");
    outln!("");
    outln!(
        "config.example.toml documents every option. To look around first, run `mcpdeck --demo`."
    );
}
