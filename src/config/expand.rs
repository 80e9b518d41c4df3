//! `${VAR}` expansion in configuration strings.
//!
//! Syntax:
//! - `${VAR}` is replaced by the value of the environment variable `VAR`; it
//!   is an error if `VAR` is not set ([`expand_partial`] leaves it as
//!   written and names it instead: in a server's table, an unset variable
//!   is that server's problem, not the file's).
//! - `${VAR:-default}` uses `default` when `VAR` is unset *or empty* (as in
//!   the shell); `default` is taken literally, up to the first `}`.
//! - `${secret:NAME}` is a named secret of mcpdeck's credential store. It
//!   is not looked up here: it is kept as a [`SecretPiece::Secret`] (and
//!   shown as written), and put in when the server connects (see
//!   [`crate::secret`]). Secret names are `[A-Za-z0-9_.-]{1,64}`;
//!   `${secret:-x}` is the variable `secret` with a default.
//! - `$$` is a literal `$` (`$${secret:X}` is the text `${secret:X}`).
//! - A `$` followed by anything else is kept as is.
//!
//! Variable names are `[A-Za-z_][A-Za-z0-9_]*`.

use super::model::SecretPiece;

/// What starts a secret reference inside `${…}`.
pub(crate) const SECRET_PREFIX: &str = "secret:";
/// The longest secret name.
pub const MAX_SECRET_NAME: usize = 64;

/// Why a string could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ExpandError {
    /// `${` without a closing `}`.
    Unterminated,
    /// `${...}` whose name is empty or has characters other than
    /// `[A-Za-z0-9_]`; holds the whole reference as written.
    InvalidReference(String),
    /// `${NAME}` without default and `NAME` is not set.
    Missing(String),
    /// `${secret:…}` whose name is not `[A-Za-z0-9_.-]{1,64}`; holds the
    /// whole reference as written.
    InvalidSecret(String),
}

/// Expands `raw`, looking variables up with `lookup`.
pub(crate) fn expand(
    raw: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, ExpandError> {
    let (out, missing) = expand_partial(raw, lookup)?;
    match missing.into_iter().next() {
        Some(name) => Err(ExpandError::Missing(name)),
        None => Ok(out),
    }
}

/// Expands `raw` as [`expand`] does, but an unset variable without a
/// default is no error: it is left as written, and its name is in the
/// list (each once, in order). Syntax errors are errors wherever they are.
/// A `${secret:NAME}` stays as written.
pub(crate) fn expand_partial(
    raw: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<(String, Vec<String>), ExpandError> {
    let (pieces, missing) = expand_pieces(raw, lookup)?;
    Ok((shown(&pieces), missing))
}

/// Expands `raw` as [`expand_partial`] does, into literal text and the
/// `${secret:NAME}` references between it (adjacent text joined, no empty
/// text piece).
pub(crate) fn expand_pieces(
    raw: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<(Vec<SecretPiece>, Vec<String>), ExpandError> {
    let mut missing: Vec<String> = Vec::new();
    let mut pieces: Vec<SecretPiece> = Vec::new();
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(body) = after.strip_prefix('{') {
            let close = body.find('}').ok_or(ExpandError::Unterminated)?;
            let inner = &body[..close];
            if let Some(name) = inner.strip_prefix(SECRET_PREFIX)
                && !name.starts_with('-')
            {
                if !is_secret_name(name) {
                    return Err(ExpandError::InvalidSecret(format!("${{{inner}}}")));
                }
                if !out.is_empty() {
                    pieces.push(SecretPiece::Text(std::mem::take(&mut out)));
                }
                pieces.push(SecretPiece::Secret(name.to_owned()));
                rest = &body[close + 1..];
                continue;
            }
            let (name, default) = match inner.split_once(":-") {
                Some((name, default)) => (name, Some(default)),
                None => (inner, None),
            };
            if !is_variable_name(name) {
                return Err(ExpandError::InvalidReference(format!("${{{inner}}}")));
            }
            match (lookup(name), default) {
                (Some(value), Some(default)) if value.is_empty() => out.push_str(default),
                (Some(value), _) => out.push_str(&value),
                (None, Some(default)) => out.push_str(default),
                (None, None) => {
                    out.push('$');
                    out.push_str(&after[..close + 2]);
                    if !missing.iter().any(|m| m == name) {
                        missing.push(name.to_owned());
                    }
                }
            }
            rest = &body[close + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    if !out.is_empty() {
        pieces.push(SecretPiece::Text(out));
    }
    Ok((pieces, missing))
}

/// The pieces as a loaded config shows them: the text, and each secret as
/// `${secret:NAME}`.
pub(crate) fn shown(pieces: &[SecretPiece]) -> String {
    let mut out = String::new();
    for piece in pieces {
        match piece {
            SecretPiece::Text(text) => out.push_str(text),
            SecretPiece::Secret(name) => {
                out.push_str("${");
                out.push_str(SECRET_PREFIX);
                out.push_str(name);
                out.push('}');
            }
        }
    }
    out
}

/// Escapes `text` so that [`expand`] turns it back into `text`.
pub(crate) fn escape(text: &str) -> String {
    text.replace('$', "$$")
}

/// Whether `name` can name a secret: 1 to 64 ASCII letters, digits, `_`,
/// `.` and `-`, not starting with `-` (`${secret:-x}` is the variable
/// `secret` with the default `x`).
pub fn is_secret_name(name: &str) -> bool {
    (1..=MAX_SECRET_NAME).contains(&name.len())
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/u".into()),
            "EMPTY" => Some(String::new()),
            "DOLLAR" => Some("${HOME}".into()),
            _ => None,
        }
    }

    #[test]
    fn expands_variables_and_defaults() {
        assert_eq!(expand("${HOME}/x", &env).unwrap(), "/home/u/x");
        assert_eq!(
            expand("a${HOME}b${HOME}", &env).unwrap(),
            "a/home/ub/home/u"
        );
        assert_eq!(expand("${NOPE:-info}", &env).unwrap(), "info");
        assert_eq!(expand("${NOPE:-}", &env).unwrap(), "");
        assert_eq!(expand("${HOME:-x}", &env).unwrap(), "/home/u");
        assert_eq!(expand("${EMPTY:-fallback}", &env).unwrap(), "fallback");
        assert_eq!(expand("${EMPTY}", &env).unwrap(), "");
        assert_eq!(expand("${NOPE:-a:-b}", &env).unwrap(), "a:-b");
    }

    #[test]
    fn values_are_not_expanded_again() {
        assert_eq!(expand("${DOLLAR}", &env).unwrap(), "${HOME}");
    }

    #[test]
    fn dollars() {
        assert_eq!(expand("$$", &env).unwrap(), "$");
        assert_eq!(expand("$${HOME}", &env).unwrap(), "${HOME}");
        assert_eq!(expand("$$$${HOME}", &env).unwrap(), "$${HOME}");
        assert_eq!(expand("$$${HOME}", &env).unwrap(), "$/home/u");
        assert_eq!(expand("cost $5 $", &env).unwrap(), "cost $5 $");
        assert_eq!(expand("$HOME", &env).unwrap(), "$HOME");
        assert_eq!(expand("ünï${HOME}çødé", &env).unwrap(), "ünï/home/uçødé");
    }

    #[test]
    fn errors() {
        assert_eq!(expand("a ${HOME", &env), Err(ExpandError::Unterminated));
        assert_eq!(
            expand("${TOKEN}", &env),
            Err(ExpandError::Missing("TOKEN".into()))
        );
        assert_eq!(
            expand("${}", &env),
            Err(ExpandError::InvalidReference("${}".into()))
        );
        assert_eq!(
            expand("${A B}", &env),
            Err(ExpandError::InvalidReference("${A B}".into()))
        );
        assert_eq!(
            expand("${VAR-x}", &env),
            Err(ExpandError::InvalidReference("${VAR-x}".into()))
        );
        assert_eq!(
            expand("${1X}", &env),
            Err(ExpandError::InvalidReference("${1X}".into()))
        );
    }

    #[test]
    fn partial_expansion_names_every_unset_variable_and_keeps_syntax_errors() {
        assert_eq!(
            expand_partial("a${TOK}b${HOME}c${X:-d}${TOK}${Y}", &env).unwrap(),
            (
                "a${TOK}b/home/ucd${TOK}${Y}".to_owned(),
                vec!["TOK".to_owned(), "Y".to_owned()]
            )
        );
        assert_eq!(
            expand_partial("${HOME}", &env).unwrap(),
            ("/home/u".to_owned(), vec![])
        );
        // A broken reference after an unset one is still found.
        assert_eq!(
            expand_partial("${TOK} ${", &env),
            Err(ExpandError::Unterminated)
        );
        assert_eq!(
            expand_partial("${TOK}${A-B}", &env),
            Err(ExpandError::InvalidReference("${A-B}".into()))
        );
    }

    #[test]
    fn secrets_are_kept_as_references() {
        use SecretPiece::{Secret, Text};
        let pieces = |raw: &str| expand_pieces(raw, &env).map(|(p, _)| p);
        assert_eq!(pieces("${secret:TOK}").unwrap(), vec![Secret("TOK".into())]);
        assert_eq!(
            pieces("Bearer ${secret:gh.tok-1}${HOME}/${secret:B}").unwrap(),
            vec![
                Text("Bearer ".into()),
                Secret("gh.tok-1".into()),
                Text("/home/u/".into()),
                Secret("B".into()),
            ]
        );
        // `$$` keeps it literal; a variable's value is never a reference.
        assert_eq!(
            pieces("$${secret:TOK}").unwrap(),
            vec![Text("${secret:TOK}".into())]
        );
        assert_eq!(expand("$${secret:TOK}", &env).unwrap(), "${secret:TOK}");
        // `secret` is still a variable name with a default.
        assert_eq!(expand("${secret:-x}", &env).unwrap(), "x");
        // Shown as written, with what was expanded around it.
        assert_eq!(
            expand("a${secret:T}${HOME}", &env).unwrap(),
            "a${secret:T}/home/u"
        );
        assert_eq!(
            expand_partial("${secret:T}${NOPE}", &env).unwrap(),
            ("${secret:T}${NOPE}".to_owned(), vec!["NOPE".to_owned()])
        );
        assert_eq!(pieces("").unwrap(), vec![]);
    }

    #[test]
    fn secret_names_are_checked() {
        for bad in [
            "${secret:}",
            "${secret:a b}",
            "${secret:a:b}",
            "${secret:é}",
        ] {
            assert_eq!(
                expand(bad, &env),
                Err(ExpandError::InvalidSecret(bad.to_owned())),
                "{bad}"
            );
        }
        let long = format!("${{secret:{}}}", "x".repeat(65));
        assert_eq!(
            expand(&long, &env),
            Err(ExpandError::InvalidSecret(long.clone()))
        );
        assert!(expand(&format!("${{secret:{}}}", "x".repeat(64)), &env).is_ok());
        assert!(is_secret_name("A_b.c-9"));
        assert!(!is_secret_name("a/b"));
    }

    #[test]
    fn escape_round_trips() {
        for text in ["plain", "$", "${HOME}", "a$$b", "$5"] {
            assert_eq!(expand(&escape(text), &env).unwrap(), text);
        }
    }
}
