//! Where the command line's words go: results to standard output (a closed pipe ends the run
//! quietly) or to a file, and errors, warnings and notes to standard error. The only module
//! that prints.

use std::fmt::Display;
use std::io::{self, Write};
use std::path::Path;

use super::CliError;

/// Writes `text` to `path`, or to standard output when `path` is `None`. A file is written
/// whole or not at all: to a temporary file beside it, renamed over it once complete, so a
/// kill or a full disk never leaves half a file (a device or a named pipe is written in place).
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
/// `path`. A path that names an existing device or named pipe (`-o /dev/null`) is written in
/// place: renaming over it replaced `/dev/null` with a plain file, for every program on the
/// machine.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::metadata(path)
        && !meta.is_file()
        && !meta.is_dir()
    {
        let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
        return file.write_all(bytes).and_then(|()| file.flush());
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    /// A named pipe stands for any special file (a test must not risk `/dev/null` itself):
    /// the reader gets the bytes and the pipe is still a pipe.
    #[test]
    fn a_special_file_is_written_in_place_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("out");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_atomically(&fifo, b"report\n").unwrap();
        assert_eq!(reader.join().unwrap(), b"report\n");
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[test]
    fn a_file_is_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        std::fs::write(&path, b"old and longer").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
    }
}
