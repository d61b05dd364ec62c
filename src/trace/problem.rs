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
        // serde names Rust types; a trace author knows JSON ones.
        let message = message
            .replace("expected u64", "expected a non-negative integer")
            .replace("expected u32", "expected a non-negative integer");
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

    /// Like [`Problem::json`] for one record line `text`, and for a type error also names the
    /// field at fault (serde does not): the top-level field whose removal changes the error.
    /// `parse` re-parses a candidate line as the record type; it only runs on bad lines.
    pub fn json_record(
        file: &Path,
        line: u64,
        text: &str,
        err: &serde_json::Error,
        parse: impl Fn(&str) -> Result<(), serde_json::Error>,
    ) -> Problem {
        let mut problem = Problem::json(file, line, err);
        if err.is_data()
            && let Some(field) = culprit(text, err, parse)
        {
            problem.message = format!("field {field:?}: {}", problem.message);
        }
        problem
    }
}

/// The top-level field of `text` that `err` is about, if one can be pinned down.
fn culprit(
    text: &str,
    err: &serde_json::Error,
    parse: impl Fn(&str) -> Result<(), serde_json::Error>,
) -> Option<String> {
    let serde_json::Value::Object(map) = serde_json::from_str(text).ok()? else {
        return None;
    };
    let without_position = |e: &serde_json::Error| {
        let text = e.to_string();
        text.rsplit_once(" at line ")
            .map_or(text.clone(), |(head, _)| head.to_string())
    };
    let wanted = without_position(err);
    map.keys()
        .find(|key| {
            let mut rest = map.clone();
            rest.remove(*key);
            match parse(&serde_json::Value::Object(rest).to_string()) {
                Ok(()) => true,
                Err(e) => without_position(&e) != wanted,
            }
        })
        .cloned()
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
