//! Numbered, UTF-8-checked lines of a (possibly gzip- or zstd-compressed) JSON Lines file.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::problem::Problem;

/// Reads a JSON Lines file line by line, holding one line in memory at a time.
pub struct Lines {
    path: PathBuf,
    reader: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    line: u64,
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

/// Opens `path` for reading its decompressed bytes (a `.gz` or `.zst` file is decompressed on
/// the fly), with a handle on the count of the file's own bytes read so far.
pub(crate) fn open_decoded(path: &Path) -> Result<(Box<dyn Read + Send>, Arc<AtomicU64>), Problem> {
    let file = File::open(path).map_err(|e| Problem::in_file(path, format!("cannot open: {e}")))?;
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
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next non-blank line, `Ok(None)` at the end of the file.
    ///
    /// A line that is not UTF-8 is a problem for that line only; reading can go on.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, Problem> {
        loop {
            self.buf.clear();
            let read = self
                .reader
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| self.io_problem(&e))?;
            if read == 0 {
                return Ok(None);
            }
            self.line += 1;
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

    fn io_problem(&self, e: &io::Error) -> Problem {
        Problem::at(&self.path, self.line + 1, format!("cannot read: {e}"))
    }
}
