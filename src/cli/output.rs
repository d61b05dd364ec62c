//! Where the command line's words go: results to standard output (a closed pipe ends the run
//! quietly) or to a file, and errors, warnings and notes to standard error. The only module
//! that prints.

use std::fmt::Display;
use std::io::{self, Write};
use std::path::Path;

use super::CliError;

/// Writes `text` to `path`, or to standard output when `path` is `None`. A file is written
/// whole or not at all: to a temporary file beside it, renamed over it once complete, so a
/// kill or a full disk never leaves half a file.
pub fn emit(text: &str, path: Option<&Path>) -> Result<(), CliError> {
    match path {
        Some(path) => write_atomically(path, text.as_bytes())
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

/// `error: MESSAGE` on standard error.
pub fn error(message: impl Display) {
    eprintln!("error: {message}");
}

/// `warning: MESSAGE` on standard error.
pub fn warning(message: impl Display) {
    eprintln!("warning: {message}");
}

/// A note on standard error (a summary of what a command wrote elsewhere).
pub fn note(message: impl Display) {
    eprintln!("{message}");
}

/// Where a child process's own messages go (the build of the Java front end): standard error,
/// like every note.
pub fn child_messages() -> std::process::Stdio {
    std::process::Stdio::from(io::stderr())
}

/// Writes `bytes` to a new temporary file in `path`'s directory, syncs it, and renames it to
/// `path`.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".paf-")
        .suffix(".tmp")
        // The usual mode of a new file (the umask applies), not the temporary file's 0600.
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
