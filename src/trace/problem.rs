//! A problem found in a bundle: the file, the line (and column) and what was expected.

use std::fmt;
use std::path::{Path, PathBuf};

/// One thing wrong with a bundle. Bad input is reported as data, never as a panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub file: PathBuf,
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub message: String,
}

impl Problem {
    /// A problem on a given line of a file.
    pub fn at(file: &Path, line: u64, message: impl Into<String>) -> Problem {
        Problem {
            file: file.to_path_buf(),
            line: Some(line),
            column: None,
            message: message.into(),
        }
    }

    /// A problem with a whole file (or directory).
    pub fn in_file(file: &Path, message: impl Into<String>) -> Problem {
        Problem {
            file: file.to_path_buf(),
            line: None,
            column: None,
            message: message.into(),
        }
    }

    /// A JSON syntax or type error, keeping serde's column but not its "at line 1" suffix
    /// (every record is one line, so serde's line is always 1).
    pub fn json(file: &Path, line: u64, err: &serde_json::Error) -> Problem {
        let text = err.to_string();
        let message = match text.rsplit_once(" at line ") {
            Some((head, _)) => head.to_string(),
            None => text,
        };
        let message = if err.is_eof() {
            format!("truncated JSON: {message}; expected a complete JSON object on this line")
        } else if err.is_syntax() {
            format!("invalid JSON: {message}")
        } else {
            message
        };
        Problem {
            file: file.to_path_buf(),
            line: Some(line),
            column: (err.column() > 0).then_some(err.column() as u64),
            message,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}
