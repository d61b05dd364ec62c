//! Writing results: to standard output (a closed pipe ends the run quietly) or to a file.

use std::io::{self, Write};
use std::path::Path;

use super::CliError;

/// Writes `text` to `path`, or to standard output when `path` is `None`.
pub fn emit(text: &str, path: Option<&Path>) -> Result<(), CliError> {
    match path {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| CliError::Usage(format!("{}: cannot write: {e}", path.display()))),
        None => {
            let mut out = io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                // The reader went away (`paf rank ... | head`): nothing more to say.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(CliError::Internal(format!(
                    "cannot write to standard output: {e}"
                ))),
                Ok(()) => Ok(()),
            }
        }
    }
}
