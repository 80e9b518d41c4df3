//! The clients `export` writes for, and where each keeps its user file
//! (see `/work/shared/CLIENT-CONFIGS.md`).
//!
//! The clients are import's (`config/import/clients.rs`: names, labels,
//! where they are read from); this adds what writing needs.

use std::path::PathBuf;

pub use crate::config::import::Client;

/// How a client writes variable references in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarSyntax {
    /// `${env:VAR}` (VS Code, Cursor, Windsurf).
    EnvColon,
    /// `${VAR}`, with `${VAR:-default}` where `defaults` (Claude Code, Gemini).
    Dollar { defaults: bool },
    /// No expansion at all (Claude Desktop, Zed, Codex).
    None,
}

impl Client {
    /// The key of the server table in the client's file (for Codex, the
    /// TOML table `[mcp_servers]`).
    pub fn servers_key(self) -> &'static str {
        match self {
            Client::VsCode => "servers",
            Client::Zed => "context_servers",
            Client::Codex => "mcp_servers",
            _ => "mcpServers",
        }
    }

    pub fn var_syntax(self) -> VarSyntax {
        match self {
            Client::VsCode | Client::Cursor | Client::Windsurf => VarSyntax::EnvColon,
            Client::ClaudeCode => VarSyntax::Dollar { defaults: true },
            Client::Gemini => VarSyntax::Dollar { defaults: false },
            Client::ClaudeDesktop | Client::Zed | Client::Codex => VarSyntax::None,
        }
    }

    /// The client's user file on this OS, from `env` (HOME,
    /// XDG_CONFIG_HOME, APPDATA, CLAUDE_CONFIG_DIR, CODEX_HOME). `None`
    /// when no home directory is known.
    pub fn user_file(self, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
        let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = var("HOME").or_else(|| var("USERPROFILE"));
        // Linux: $XDG_CONFIG_HOME or ~/.config; macOS: Application Support;
        // Windows: %APPDATA%.
        let app_config = || -> Option<PathBuf> {
            if cfg!(target_os = "macos") {
                home.clone()
                    .map(|h| h.join("Library").join("Application Support"))
            } else if cfg!(windows) {
                var("APPDATA")
            } else {
                var("XDG_CONFIG_HOME").or_else(|| home.clone().map(|h| h.join(".config")))
            }
        };
        Some(match self {
            Client::ClaudeDesktop => app_config()?
                .join("Claude")
                .join("claude_desktop_config.json"),
            Client::ClaudeCode => match var("CLAUDE_CONFIG_DIR") {
                Some(dir) => dir.join(".claude.json"),
                None => home?.join(".claude.json"),
            },
            Client::VsCode => app_config()?.join("Code").join("User").join("mcp.json"),
            Client::Cursor => home?.join(".cursor").join("mcp.json"),
            Client::Windsurf => home?
                .join(".codeium")
                .join("windsurf")
                .join("mcp_config.json"),
            // Zed keeps ~/.config/zed on macOS too; on Linux it follows XDG.
            Client::Zed => {
                let base = if cfg!(target_os = "linux") {
                    var("XDG_CONFIG_HOME").or_else(|| home.clone().map(|h| h.join(".config")))
                } else if cfg!(windows) {
                    var("APPDATA")
                } else {
                    home.map(|h| h.join(".config"))
                };
                base?.join("zed").join("settings.json")
            }
            Client::Codex => match var("CODEX_HOME") {
                Some(dir) => dir.join("config.toml"),
                None => home?.join(".codex").join("config.toml"),
            },
            Client::Gemini => home?.join(".gemini").join("settings.json"),
        })
    }

    /// Claude Code's settings file (`permissions.deny`), which
    /// `$CLAUDE_CONFIG_DIR` moves too.
    pub fn claude_code_settings(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
        let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        match var("CLAUDE_CONFIG_DIR") {
            Some(dir) => Some(dir.join("settings.json")),
            None => var("HOME")
                .or_else(|| var("USERPROFILE"))
                .map(|h| h.join(".claude").join("settings.json")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for c in Client::ALL {
            assert_eq!(Client::from_name(c.name()), Some(c));
        }
        assert_eq!(Client::from_name("vs-code"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn linux_user_files_follow_home_xdg_and_the_override_variables() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        let plain = env(&[("HOME", "/h")]);
        let file = |c: Client, e: &dyn Fn(&str) -> Option<String>| {
            c.user_file(e).map(|p| p.display().to_string())
        };
        assert_eq!(
            file(Client::ClaudeDesktop, &plain).as_deref(),
            Some("/h/.config/Claude/claude_desktop_config.json")
        );
        assert_eq!(
            file(Client::ClaudeCode, &plain).as_deref(),
            Some("/h/.claude.json")
        );
        assert_eq!(
            file(Client::VsCode, &plain).as_deref(),
            Some("/h/.config/Code/User/mcp.json")
        );
        assert_eq!(
            file(Client::Cursor, &plain).as_deref(),
            Some("/h/.cursor/mcp.json")
        );
        assert_eq!(
            file(Client::Windsurf, &plain).as_deref(),
            Some("/h/.codeium/windsurf/mcp_config.json")
        );
        assert_eq!(
            file(Client::Zed, &plain).as_deref(),
            Some("/h/.config/zed/settings.json")
        );
        assert_eq!(
            file(Client::Codex, &plain).as_deref(),
            Some("/h/.codex/config.toml")
        );
        assert_eq!(
            file(Client::Gemini, &plain).as_deref(),
            Some("/h/.gemini/settings.json")
        );
        let moved = env(&[
            ("HOME", "/h"),
            ("XDG_CONFIG_HOME", "/x"),
            ("CLAUDE_CONFIG_DIR", "/c"),
            ("CODEX_HOME", "/k"),
        ]);
        assert_eq!(
            file(Client::VsCode, &moved).as_deref(),
            Some("/x/Code/User/mcp.json")
        );
        assert_eq!(
            file(Client::Zed, &moved).as_deref(),
            Some("/x/zed/settings.json")
        );
        assert_eq!(
            file(Client::ClaudeCode, &moved).as_deref(),
            Some("/c/.claude.json")
        );
        assert_eq!(
            Client::claude_code_settings(&moved).map(|p| p.display().to_string()),
            Some("/c/settings.json".to_owned())
        );
        assert_eq!(
            Client::claude_code_settings(&plain).map(|p| p.display().to_string()),
            Some("/h/.claude/settings.json".to_owned())
        );
        assert_eq!(
            file(Client::Codex, &moved).as_deref(),
            Some("/k/config.toml")
        );
        assert_eq!(file(Client::Cursor, &env(&[])), None);
    }
}
