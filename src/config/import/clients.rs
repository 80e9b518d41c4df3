//! The clients mcpdeck imports from: their CLI names, their labels and
//! where they keep their servers (see CLIENT-CONFIGS.md). Shared with the
//! exporter.

use std::path::{Path, PathBuf};

/// A client whose MCP server list mcpdeck can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Client {
    ClaudeDesktop,
    ClaudeCode,
    VsCode,
    Cursor,
    Windsurf,
    Zed,
    Codex,
    Gemini,
}

/// Where the files are looked for: the home directory and the variables
/// that move them.
#[derive(Debug, Clone, Default)]
pub struct Locations {
    /// `$HOME`.
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME` (else `~/.config`).
    pub xdg_config: Option<PathBuf>,
    /// `$CLAUDE_CONFIG_DIR`: holds Claude Code's `.claude.json`.
    pub claude_config_dir: Option<PathBuf>,
    /// `$CODEX_HOME` (else `~/.codex`).
    pub codex_home: Option<PathBuf>,
}

impl Locations {
    /// From the process environment; `None` without a home directory.
    pub fn from_env() -> Option<Self> {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let home = var("HOME")
            .or_else(|| directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()))?;
        Some(Self {
            home,
            xdg_config: var("XDG_CONFIG_HOME"),
            claude_config_dir: var("CLAUDE_CONFIG_DIR"),
            codex_home: var("CODEX_HOME"),
        })
    }

    fn config_dir(&self) -> PathBuf {
        self.xdg_config
            .clone()
            .unwrap_or_else(|| self.home.join(".config"))
    }

    /// The per-user application data directory of the current OS (macOS:
    /// `~/Library/Application Support`; Windows: `%APPDATA%`; elsewhere the
    /// XDG config dir).
    fn app_dir(&self) -> PathBuf {
        if cfg!(target_os = "macos") {
            self.home.join("Library").join("Application Support")
        } else if cfg!(windows) {
            std::env::var_os("APPDATA")
                .map(PathBuf::from)
                .unwrap_or_else(|| self.home.join("AppData").join("Roaming"))
        } else {
            self.config_dir()
        }
    }

    /// Claude Code's home file (`~/.claude.json`, or in `$CLAUDE_CONFIG_DIR`).
    pub fn claude_json(&self) -> PathBuf {
        match &self.claude_config_dir {
            Some(dir) => dir.join(".claude.json"),
            None => self.home.join(".claude.json"),
        }
    }
}

impl Client {
    /// Every client, in the order they are read.
    pub const ALL: [Client; 8] = [
        Client::ClaudeDesktop,
        Client::ClaudeCode,
        Client::VsCode,
        Client::Cursor,
        Client::Windsurf,
        Client::Zed,
        Client::Codex,
        Client::Gemini,
    ];

    /// The name used on the command line (`--from NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "claude-desktop",
            Client::ClaudeCode => "claude-code",
            Client::VsCode => "vscode",
            Client::Cursor => "cursor",
            Client::Windsurf => "windsurf",
            Client::Zed => "zed",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
        }
    }

    /// The client's name for people.
    pub fn label(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "Claude Desktop",
            Client::ClaudeCode => "Claude Code",
            Client::VsCode => "VS Code",
            Client::Cursor => "Cursor",
            Client::Windsurf => "Windsurf",
            Client::Zed => "Zed",
            Client::Codex => "Codex CLI",
            Client::Gemini => "Gemini CLI",
        }
    }

    /// The client named `name` (as [`Client::name`] gives it).
    pub fn from_name(name: &str) -> Option<Client> {
        Client::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The client's user files on this OS, whether they exist or not (VS
    /// Code's profiles: those that exist).
    pub fn user_files(self, at: &Locations) -> Vec<PathBuf> {
        let home = &at.home;
        match self {
            Client::ClaudeDesktop => {
                vec![
                    at.app_dir()
                        .join("Claude")
                        .join("claude_desktop_config.json"),
                ]
            }
            Client::ClaudeCode => vec![at.claude_json()],
            Client::VsCode => {
                let user = at.app_dir().join("Code").join("User");
                let mut files = vec![user.join("mcp.json"), user.join("settings.json")];
                // Each profile has its own mcp.json.
                if let Ok(profiles) = std::fs::read_dir(user.join("profiles")) {
                    let mut more: Vec<PathBuf> = profiles
                        .filter_map(Result::ok)
                        .map(|p| p.path().join("mcp.json"))
                        .collect();
                    more.sort();
                    files.extend(more);
                }
                files
            }
            Client::Cursor => vec![home.join(".cursor").join("mcp.json")],
            Client::Windsurf => vec![
                home.join(".codeium")
                    .join("windsurf")
                    .join("mcp_config.json"),
            ],
            // Zed uses ~/.config on macOS too.
            Client::Zed => vec![at.config_dir().join("zed").join("settings.json")],
            Client::Codex => vec![
                at.codex_home
                    .clone()
                    .unwrap_or_else(|| home.join(".codex"))
                    .join("config.toml"),
            ],
            Client::Gemini => vec![home.join(".gemini").join("settings.json")],
        }
    }

    /// The client's project files in `dir`, whether they exist or not.
    pub fn project_files(self, dir: &Path) -> Vec<PathBuf> {
        match self {
            Client::ClaudeCode => vec![dir.join(".mcp.json")],
            Client::VsCode => vec![dir.join(".vscode").join("mcp.json")],
            Client::Cursor => vec![dir.join(".cursor").join("mcp.json")],
            Client::Zed => vec![dir.join(".zed").join("settings.json")],
            Client::Gemini => vec![dir.join(".gemini").join("settings.json")],
            Client::ClaudeDesktop | Client::Windsurf | Client::Codex => Vec::new(),
        }
    }

    /// The client a file belongs to, from its name and folder; `None` when
    /// the name says nothing (the content decides then).
    pub fn from_path(path: &Path) -> Option<Client> {
        let name = path.file_name()?.to_str()?;
        let parent = path
            .parent()
            .and_then(Path::file_name)
            .and_then(|p| p.to_str())
            .unwrap_or("");
        match (name, parent) {
            ("claude_desktop_config.json", _) => Some(Client::ClaudeDesktop),
            (".claude.json" | ".mcp.json", _) => Some(Client::ClaudeCode),
            ("mcp_config.json", _) => Some(Client::Windsurf),
            ("mcp.json", ".vscode" | "User") => Some(Client::VsCode),
            ("mcp.json", _)
                if path
                    .ancestors()
                    .any(|a| a.file_name().is_some_and(|n| n == "profiles")) =>
            {
                Some(Client::VsCode)
            }
            ("mcp.json", ".cursor") => Some(Client::Cursor),
            ("settings.json", "zed" | ".zed") => Some(Client::Zed),
            ("settings.json", "User") => Some(Client::VsCode),
            ("settings.json", ".gemini") => Some(Client::Gemini),
            ("config.toml", ".codex") => Some(Client::Codex),
            _ => None,
        }
    }
}
