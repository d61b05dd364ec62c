//! Opening input files safely, and numbered, UTF-8-checked lines of a (possibly gzip- or
//! zstd-compressed) JSON Lines file.
//!
//! Every input file paf reads is opened by [`open_regular`]: without blocking (a named pipe in
//! place of a file is refused, not waited on) and only if it is a regular file, with a message
//! that says what it is otherwise. Small files are read whole with a cap ([`read_small`]); a
//! line longer than [`MAX_RECORD`] is a problem of its line and is never held; a read error
//! (a truncated compressed file, say) ends the file after one problem.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::problem::Problem;
pub use super::scan::MAX_RECORD;

/// Reads a JSON Lines file line by line, holding one line in memory at a time.
pub struct Lines {
    path: PathBuf,
    reader: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    line: u64,
    /// A read error ended the file.
    ended: bool,
}

/// Counts the bytes that pass through a reader, readable from other threads.
struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// What a path that is not a regular file is, for messages: `None` if it is one.
fn not_regular(kind: std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_fifo() {
        Some("a named pipe (FIFO)")
    } else if kind.is_char_device() {
        Some("a character device")
    } else if kind.is_block_device() {
        Some("a block device")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        Some("not a file")
    }
}

/// Opens `path` for reading if it is a regular file (or a link to one). It is opened without
/// blocking, so a named pipe is refused rather than waited on; the file type is checked on
/// the opened file, so what is read is what was checked.
pub fn open_regular(path: &Path) -> Result<File, Problem> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| Problem::in_file(path, open_error(path, &e)))?;
    let kind = file
        .metadata()
        .map_err(|e| Problem::in_file(path, format!("cannot read: {e}")))?
        .file_type();
    match not_regular(kind) {
        None => Ok(file),
        Some(what) => Err(Problem::in_file(
            path,
            format!("not a regular file ({what}): expected a file"),
        )),
    }
}

/// Why `path` cannot be opened, in words.
fn open_error(path: &Path, e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ELOOP) => "a symbolic link loop: expected a file".to_string(),
        Some(libc::ENOENT) if path.is_symlink() => {
            "a symbolic link to nothing: expected a file".to_string()
        }
        Some(libc::ENOENT) => "no such file".to_string(),
        _ => format!("cannot open: {e}"),
    }
}

/// What is at `path` if it is not a regular file (`None`: a regular file, or nothing at all):
/// for lookups that must tell a missing file from a wrong one without opening it.
pub fn wrong_kind(path: &Path) -> Option<Problem> {
    std::fs::symlink_metadata(path).ok()?;
    match std::fs::metadata(path) {
        Ok(m) => not_regular(m.file_type()).map(|what| {
            Problem::in_file(
                path,
                format!("not a regular file ({what}): expected a file"),
            )
        }),
        Err(e) => Some(Problem::in_file(path, open_error(path, &e))),
    }
}

/// Reads a whole small file (a manifest, a report, a list) that must be a regular file of at
/// most `cap` bytes; `what` names what it should hold, for the message.
pub fn read_small(path: &Path, cap: u64, what: &str) -> Result<Vec<u8>, Problem> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Problem::in_file(path, format!("cannot read: {e}")))?;
    if bytes.len() as u64 > cap {
        return Err(Problem::in_file(
            path,
            format!("larger than {cap} bytes: expected {what}"),
        ));
    }
    Ok(bytes)
}

/// Opens `path` for reading its decompressed bytes (a `.gz` or `.zst` file is decompressed on
/// the fly), with a handle on the count of the file's own bytes read so far.
pub fn open_decoded(path: &Path) -> Result<(Box<dyn Read + Send>, Arc<AtomicU64>), Problem> {
    let file = open_regular(path)?;
    let read = Arc::new(AtomicU64::new(0));
    let file = Counting {
        inner: file,
        read: Arc::clone(&read),
    };
    let inner: Box<dyn Read + Send> = match path.extension().and_then(|e| e.to_str()) {
        Some("gz") => Box::new(flate2::read::MultiGzDecoder::new(file)),
        Some("zst") => Box::new(
            zstd::Decoder::new(file)
                .map_err(|e| Problem::in_file(path, format!("cannot read zstd: {e}")))?,
        ),
        _ => Box::new(file),
    };
    Ok((inner, read))
}

/// One non-blank line, with its 1-based number.
pub struct Line<'a> {
    pub number: u64,
    pub text: &'a str,
}

impl Lines {
    /// Opens `path`; a `.gz` or `.zst` file is decompressed on the fly.
    pub fn open(path: &Path) -> Result<Lines, Problem> {
        let (inner, _) = open_decoded(path)?;
        Ok(Lines {
            path: path.to_path_buf(),
            reader: Box::new(BufReader::with_capacity(1 << 16, inner)),
            buf: Vec::with_capacity(256),
            line: 0,
            ended: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the next line into `buf` (without it if it is longer than [`MAX_RECORD`]): the
    /// bytes read (0 at the end of the file) and whether the line was too long.
    fn read_line(&mut self) -> io::Result<(usize, bool)> {
        self.buf.clear();
        let (mut total, mut overlong) = (0, false);
        loop {
            let available = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok((total, overlong));
            }
            let (used, done) = match memchr::memchr(b'\n', available) {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            if !overlong {
                if self.buf.len() + used > MAX_RECORD + 1 {
                    overlong = true;
                    self.buf.clear();
                } else {
                    self.buf.extend_from_slice(&available[..used]);
                }
            }
            self.reader.consume(used);
            total += used;
            if done {
                return Ok((total, overlong));
            }
        }
    }

    /// The next non-blank line, `Ok(None)` at the end of the file.
    ///
    /// A line that is not UTF-8 or is too long is a problem for that line only; reading can go
    /// on. A read error is a problem too, and the file ends there.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, Problem> {
        loop {
            if self.ended {
                return Ok(None);
            }
            let (read, overlong) = match self.read_line() {
                Ok(r) => r,
                Err(e) => {
                    // The decoder would give the same error on every call: stop here.
                    self.ended = true;
                    return Err(Problem::at(
                        &self.path,
                        self.line + 1,
                        format!("cannot read: {e}"),
                    ));
                }
            };
            if read == 0 {
                return Ok(None);
            }
            self.line += 1;
            if overlong {
                return Err(super::scan::overlong_problem(&self.path, self.line));
            }
            while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
                self.buf.pop();
            }
            if self.buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return match std::str::from_utf8(&self.buf) {
                Ok(text) => Ok(Some(Line {
                    number: self.line,
                    text,
                })),
                Err(e) => Err(Problem {
                    file: self.path.clone(),
                    line: Some(self.line),
                    column: Some(e.valid_up_to() as u64 + 1),
                    message: "not UTF-8: expected a UTF-8 encoded JSON object".to_string(),
                }),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A truncated compressed file gives one problem, then the end: a reader that kept going
    /// would get the same error forever.
    #[test]
    fn a_read_error_ends_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl.gz");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, "{\"a\":1}\n".repeat(1000).as_bytes()).unwrap();
        let bytes = gz.finish().unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let mut lines = Lines::open(&path).unwrap();
        let mut problems = 0;
        let mut ok = 0;
        for _ in 0..10_000 {
            match lines.next_line() {
                Ok(Some(_)) => ok += 1,
                Ok(None) => break,
                Err(p) => {
                    problems += 1;
                    assert!(p.message.starts_with("cannot read"), "{p}");
                }
            }
        }
        assert_eq!(problems, 1);
        assert!(ok < 1000);
        assert!(lines.next_line().unwrap().is_none());
    }

    #[test]
    fn long_lines_are_problems_and_reading_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let long = "x".repeat(MAX_RECORD + 1);
        std::fs::write(&path, format!("{{}}\n{long}\n{{\"b\":2}}\n")).unwrap();
        let mut lines = Lines::open(&path).unwrap();
        assert_eq!(lines.next_line().unwrap().unwrap().number, 1);
        let p = lines.next_line().err().unwrap();
        assert_eq!(p.line, Some(2));
        assert!(p.message.starts_with("record longer than"), "{p}");
        assert_eq!(lines.next_line().unwrap().unwrap().text, "{\"b\":2}");
    }

    #[test]
    fn special_files_say_what_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let fifo = d.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid C string; the result is checked.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        std::os::unix::fs::symlink("/dev/zero", d.join("zero")).unwrap();
        std::os::unix::fs::symlink(d.join("loop"), d.join("loop")).unwrap();
        std::os::unix::fs::symlink(d.join("nothing"), d.join("dangling")).unwrap();
        std::fs::create_dir(d.join("dir")).unwrap();
        for (name, what) in [
            ("fifo", "a named pipe (FIFO)"),
            ("zero", "a character device"),
            ("loop", "a symbolic link loop"),
            ("dangling", "a symbolic link to nothing"),
            ("dir", "a directory"),
            ("absent", "no such file"),
        ] {
            let p = open_regular(&d.join(name)).err().unwrap();
            assert!(p.message.contains(what), "{name}: {p}");
            if name != "absent" {
                assert!(wrong_kind(&d.join(name)).unwrap().message.contains(what));
            }
        }
        assert!(wrong_kind(&d.join("absent")).is_none());
        std::fs::write(d.join("big"), vec![b'x'; 100]).unwrap();
        let p = read_small(&d.join("big"), 10, "a small object")
            .err()
            .unwrap();
        assert_eq!(p.message, "larger than 10 bytes: expected a small object");
    }
}
