//! Each client's variable syntax, translated into mcpdeck's `${VAR}`.
//!
//! The result is written to mcpdeck's config as it is: a `$` that is not a
//! reference becomes `$$`.

use std::path::Path;

/// Which variable forms a client's files may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// No variables: every `$` is literal (Claude Desktop, Zed, Codex).
    None,
    /// `${VAR}` and `${VAR:-default}` (Claude Code).
    Shell,
    /// `${VAR}` and `$VAR` (Gemini CLI).
    ShellBare,
    /// `${env:X}`, `${userHome}`, `${workspaceFolder}`, `${input:ID}`,
    /// `${file:path}` (VS Code, Cursor, Windsurf).
    Editor,
}

/// Translates `text`. `folder` is what `${workspaceFolder}` means; every
/// note (an input to set, a form that cannot be translated) is pushed to
/// `warnings`.
pub fn translate(text: &str, syntax: Syntax, folder: &Path, warnings: &mut Vec<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        if syntax != Syntax::None
            && let Some(body) = after.strip_prefix('{')
            && let Some(close) = body.find('}')
        {
            let inner = &body[..close];
            if let Some(reference) = reference(inner, syntax, folder, warnings) {
                out.push_str(&reference);
                rest = &body[close + 1..];
                continue;
            }
        }
        if syntax == Syntax::ShellBare {
            let len = after
                .char_indices()
                .take_while(|&(i, c)| {
                    c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit())
                })
                .count();
            if len > 0 {
                out.push_str(&format!("${{{}}}", &after[..len]));
                rest = &after[len..];
                continue;
            }
        }
        out.push_str("$$");
        rest = after;
    }
    out.push_str(rest);
    out
}

/// What `${inner}` becomes, or `None` to keep it as literal text.
fn reference(
    inner: &str,
    syntax: Syntax,
    folder: &Path,
    warnings: &mut Vec<String>,
) -> Option<String> {
    let (name, default) = match inner.split_once(":-") {
        Some((name, default)) if syntax == Syntax::Shell => (name, Some(default)),
        _ => (inner, None),
    };
    if is_variable_name(name) && syntax != Syntax::Editor {
        return Some(match default {
            Some(default) => format!("${{{name}:-{}}}", default.replace('$', "$$")),
            None => format!("${{{name}}}"),
        });
    }
    if syntax != Syntax::Editor {
        warnings.push(format!(
            "`${{{inner}}}` is not a variable mcpdeck knows; it was kept as text"
        ));
        return None;
    }
    if let Some(var) = inner.strip_prefix("env:")
        && is_variable_name(var)
    {
        return Some(format!("${{{var}}}"));
    }
    match inner {
        "userHome" => return Some("${HOME}".to_owned()),
        "workspaceFolder" => {
            return Some(folder.display().to_string().replace('$', "$$"));
        }
        _ => {}
    }
    if let Some(id) = inner.strip_prefix("input:") {
        let var = input_variable(id);
        warnings.push(format!(
            "`${{input:{id}}}` is kept in the client's secret store, not in the file: set the environment variable {var} before starting this server"
        ));
        return Some(format!("${{{var}}}"));
    }
    if is_variable_name(inner) {
        return Some(format!("${{{inner}}}"));
    }
    warnings.push(format!(
        "`${{{inner}}}` has no equivalent in mcpdeck; it was kept as text — replace it by hand"
    ));
    None
}

/// The environment variable that stands for a VS Code input: its id in
/// upper case, with `_` for anything but letters and digits.
pub fn input_variable(id: &str) -> String {
    let mut var: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    if var.is_empty() || var.starts_with(|c: char| c.is_ascii_digit()) {
        var.insert(0, '_');
    }
    var
}

pub fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A value that looks like a secret written in clear: a non-empty value
/// without any `${…}` reference under a name that suggests a credential.
pub fn looks_secret(key: &str, value: &str) -> bool {
    let key = key.to_ascii_lowercase();
    let named = [
        "token",
        "secret",
        "password",
        "passwd",
        "key",
        "auth",
        "credential",
    ]
    .iter()
    .any(|word| key.contains(word));
    named && !value.trim().is_empty() && !value.contains("${")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str, syntax: Syntax) -> (String, Vec<String>) {
        let mut warnings = Vec::new();
        let out = translate(text, syntax, Path::new("/work/p"), &mut warnings);
        (out, warnings)
    }

    #[test]
    fn editor_forms() {
        assert_eq!(t("${env:TOKEN}", Syntax::Editor).0, "${TOKEN}");
        assert_eq!(t("${userHome}/x", Syntax::Editor).0, "${HOME}/x");
        assert_eq!(t("${workspaceFolder}/src", Syntax::Editor).0, "/work/p/src");
        let (out, warnings) = t("Bearer ${input:github-pat}", Syntax::Editor);
        assert_eq!(out, "Bearer ${GITHUB_PAT}");
        assert!(warnings[0].contains("GITHUB_PAT"), "{warnings:?}");
        let (out, warnings) = t("${file:/x}", Syntax::Editor);
        assert_eq!(out, "$${file:/x}");
        assert_eq!(warnings.len(), 1);
        assert_eq!(t("$5", Syntax::Editor).0, "$$5");
    }

    #[test]
    fn shell_forms() {
        assert_eq!(t("${A:-b}/$HOME", Syntax::Shell).0, "${A:-b}/$$HOME");
        assert_eq!(t("$HOME/${X}", Syntax::ShellBare).0, "${HOME}/${X}");
        assert_eq!(t("$5 and $", Syntax::ShellBare).0, "$$5 and $$");
        assert_eq!(t("${X}", Syntax::None).0, "$${X}");
    }

    #[test]
    fn secrets() {
        assert!(looks_secret("GITHUB_TOKEN", "ghp_123"));
        assert!(looks_secret("Authorization", "Bearer abc"));
        assert!(!looks_secret("GITHUB_TOKEN", "${GITHUB_TOKEN}"));
        assert!(!looks_secret("LEVEL", "debug"));
    }
}
