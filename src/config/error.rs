//! Configuration errors and source-positioned diagnostics.

use std::fmt;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Everything that can go wrong reading, validating or writing the
/// configuration file. `Display` is the complete human-readable message.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A TOML syntax error or a validation error at a position in the file.
    #[error("{0}")]
    Invalid(Box<Diagnostic>),
    /// Writing the file failed; the original file is untouched.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The file was changed on disk in a way that conflicts with an edit; the
    /// file was left untouched.
    #[error(
        "{} changed on disk: {reason}; the file was left as it is — reload it with R, then try again",
        path.display()
    )]
    Conflict {
        /// The file.
        path: PathBuf,
        /// What conflicts.
        reason: String,
    },
    /// An edit that cannot be applied (unknown server, duplicate name, ...).
    #[error("{}: {message}", path.display())]
    Edit {
        /// The file.
        path: PathBuf,
        /// What is wrong and how to fix it.
        message: String,
    },
}

impl ConfigError {
    /// The positioned diagnostic, for syntax and validation errors.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            Self::Invalid(diagnostic) => Some(diagnostic),
            _ => None,
        }
    }

    /// A one-line form of the message (no source excerpt), for status lines.
    pub fn summary(&self) -> String {
        match self {
            Self::Invalid(diagnostic) => diagnostic.summary(),
            other => other.to_string(),
        }
    }
}

impl From<Diagnostic> for ConfigError {
    fn from(diagnostic: Diagnostic) -> Self {
        Self::Invalid(Box::new(diagnostic))
    }
}

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// An error message anchored at a position in the configuration source.
///
/// Displayed as `path:line:column: message`, followed by the offending
/// source line with the span underlined, like rustc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    path: Option<PathBuf>,
    position: Option<Position>,
    message: String,
    excerpt: Option<Excerpt>,
}

/// The source line shown under a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Excerpt {
    text: String,
    /// 0-based character offset of the highlight within `text`.
    start: usize,
    /// Highlight width in characters (at least 1).
    width: usize,
}

impl Diagnostic {
    /// A diagnostic for `span` (byte offsets) of `source`; without a span the
    /// message carries no position.
    pub(crate) fn new(
        source: &str,
        path: Option<&Path>,
        span: Option<Range<usize>>,
        message: impl Into<String>,
    ) -> Self {
        let (position, excerpt) = match span {
            Some(span) => {
                let (position, excerpt) = locate(source, span);
                (Some(position), Some(excerpt))
            }
            None => (None, None),
        };
        Self {
            path: path.map(Path::to_path_buf),
            position,
            message: message.into(),
            excerpt,
        }
    }

    /// The file the error is in, if the source came from a file.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Where the error is.
    pub fn position(&self) -> Option<Position> {
        self.position
    }

    /// What is wrong and how to fix it, without the location prefix.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same place with another message.
    pub(crate) fn with_message(&self, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            ..self.clone()
        }
    }

    /// `path:line:column`: where the error is, without the message.
    pub fn location(&self) -> String {
        let mut out = match &self.path {
            Some(path) => path.display().to_string(),
            None => "<config>".to_owned(),
        };
        if let Some(Position { line, column }) = self.position {
            out.push_str(&format!(":{line}:{column}"));
        }
        out
    }

    /// `path:line:column: message` on one line.
    pub fn summary(&self) -> String {
        let mut out = self.location();
        out.push_str(": ");
        out.push_str(&self.message);
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary())?;
        if let (Some(position), Some(excerpt)) = (self.position, &self.excerpt) {
            let number = position.line.to_string();
            let gutter = " ".repeat(number.len());
            // Keep tabs so the carets line up with the text above them.
            let pad: String = excerpt
                .text
                .chars()
                .take(excerpt.start)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            write!(
                f,
                "\n{gutter} |\n{number} | {text}\n{gutter} | {pad}{carets}",
                text = excerpt.text,
                carets = "^".repeat(excerpt.width),
            )?;
        }
        Ok(())
    }
}

/// Converts a byte span into a 1-based position and the excerpt to show.
fn locate(source: &str, span: Range<usize>) -> (Position, Excerpt) {
    let start = floor_char_boundary(source, span.start.min(source.len()));
    let end = floor_char_boundary(source, span.end.clamp(start, source.len()));
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[start..]
        .find('\n')
        .map_or(source.len(), |i| start + i);
    let text = source[line_start..line_end].trim_end_matches('\r');
    let line = source[..start].matches('\n').count() + 1;
    let column = source[line_start..start].chars().count();
    let highlight_end = end.min(line_start + text.len()).max(start);
    let width = source[start..highlight_end].chars().count().max(1);
    (
        Position {
            line,
            column: column + 1,
        },
        Excerpt {
            text: text.to_owned(),
            start: column,
            width,
        },
    )
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_characters() {
        let source = "a = 1\nkey = \"héllo\" # x\n";
        let offset = source.find("# x").unwrap();
        let diagnostic = Diagnostic::new(
            source,
            Some(Path::new("c.toml")),
            Some(offset..offset + 3),
            "bad",
        );
        assert_eq!(
            diagnostic.position(),
            Some(Position {
                line: 2,
                column: 15
            })
        );
        assert_eq!(diagnostic.summary(), "c.toml:2:15: bad");
        assert_eq!(
            diagnostic.to_string(),
            "c.toml:2:15: bad\n  |\n2 | key = \"héllo\" # x\n  |               ^^^"
        );
    }

    #[test]
    fn highlight_stops_at_end_of_line_and_is_never_empty() {
        let source = "x = [\n  1,\n]\r\n";
        let diagnostic = Diagnostic::new(source, None, Some(4..source.len()), "m");
        assert!(diagnostic.to_string().ends_with("1 | x = [\n  |     ^"));
        let at_end = Diagnostic::new(source, None, Some(source.len()..source.len()), "m");
        assert_eq!(at_end.position(), Some(Position { line: 4, column: 1 }));
    }

    #[test]
    fn no_span_means_no_position() {
        let diagnostic = Diagnostic::new("", Some(Path::new("c.toml")), None, "oops");
        assert_eq!(diagnostic.to_string(), "c.toml: oops");
    }
}
