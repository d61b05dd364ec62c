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
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

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
pub(super) struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R> Counting<R> {
    pub(super) fn new(inner: R, read: Arc<AtomicU64>) -> Counting<R> {
        Counting { inner, read }
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Bytes a [`ReadAhead`] reads per step.
const AHEAD_CHUNK: usize = 1 << 20;
static AHEAD_FROM: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(AHEAD_CHUNK);

static ROOM: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(AHEAD_HEAD);

/// Makes [`ReadAhead::new`] in this process decompress chunks of `bytes` instead of
/// [`AHEAD_CHUNK`], with as many bytes of room before each: for tests of the engine, whose
/// files are small, so that a scan is not past the whole file at its first chunk (and a small
/// chunk does not carry [`AHEAD_HEAD`] of room: bytes that outgrow the room are copied, which
/// is slower, not different).
#[doc(hidden)]
pub fn chunks_of(bytes: usize) {
    AHEAD_FROM.store(bytes.max(1), Ordering::Relaxed);
    ROOM.store(bytes.max(1), Ordering::Relaxed);
}
/// Chunks a [`ReadAhead`] holds ready beyond the one being read.
const AHEAD_CHUNKS: usize = 2;
/// Room left free before each chunk's bytes: a scanner that takes the chunk whole puts the
/// bytes it has not handed on yet there instead of copying the chunk after them
/// ([`ReadAhead::next_chunk`]). A scanner hands on at least every [`super::scan::PIECE_BYTES`],
/// so that and a line of some length fit.
const AHEAD_HEAD: usize = super::scan::PIECE_BYTES + (128 << 10);

/// Reads (and so decompresses) `inner` on a thread of its own, a few chunks ahead of its
/// reader. Why: the engine's scanner was one thread doing both the decompression and the search
/// for test boundaries; in pass 1 the other core had nothing to do. Read through [`Read`], a
/// decompressed chunk costs the reader one copy; the scanner takes whole chunks instead
/// ([`ReadAhead::next_chunk`]). Plain files are not read this way.
pub(super) struct ReadAhead {
    chunks: Receiver<io::Result<Vec<u8>>>,
    /// Emptied chunks go back to the thread to be filled again.
    spent: SyncSender<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
    /// Where a chunk's bytes start: the room before them.
    head: usize,
    chunk_bytes: usize,
}

impl ReadAhead {
    pub(super) fn new(inner: Box<dyn Read + Send>) -> ReadAhead {
        ReadAhead::sized(
            inner,
            AHEAD_FROM.load(Ordering::Relaxed),
            ROOM.load(Ordering::Relaxed),
        )
    }

    /// A read-ahead of chunks of `chunk_bytes` bytes, each after `head` bytes of room (tests make
    /// both small, so that lines straddle chunks and outgrow the room).
    pub(super) fn sized(
        mut inner: Box<dyn Read + Send>,
        chunk_bytes: usize,
        head: usize,
    ) -> ReadAhead {
        let (tx, chunks) = sync_channel(AHEAD_CHUNKS);
        let (spent, back) = sync_channel::<Vec<u8>>(AHEAD_CHUNKS + 2);
        std::thread::spawn(move || {
            loop {
                // The room is what an earlier use left there, or zeros in a new chunk: the
                // reader writes it before it reads it.
                let mut chunk = back.try_recv().unwrap_or_default();
                if chunk.len() < head {
                    chunk.resize(head, 0);
                }
                chunk.truncate(head);
                chunk.reserve_exact(chunk_bytes);
                let read = (&mut inner)
                    .take(chunk_bytes as u64)
                    .read_to_end(&mut chunk);
                // The end of the file (no bytes) is the end of the channel; an error comes
                // after the bytes read before it, as `read_to_end` on `inner` would leave them,
                // and ends it too. A reader that is gone stops the thread.
                match read {
                    Ok(0) => break,
                    Ok(_) => {
                        if tx.send(Ok(chunk)).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        if chunk.len() == head || tx.send(Ok(chunk)).is_ok() {
                            let _ = tx.send(Err(e));
                        }
                        break;
                    }
                }
            }
        });
        ReadAhead {
            chunks,
            spent,
            chunk: Vec::new(),
            at: 0,
            head,
            chunk_bytes,
        }
    }

    /// A read-ahead of `inner` with this one's sizes, in its place (this one's thread stops
    /// at its next chunk).
    pub(super) fn restart(&self, inner: Box<dyn Read + Send>) -> ReadAhead {
        ReadAhead::sized(inner, self.chunk_bytes, self.head)
    }

    /// The next chunk whole, its bytes after [`ReadAhead::head`] bytes of room; `None` at the
    /// end of the file. Not to be mixed with [`Read`] on the same read-ahead.
    pub(super) fn next_chunk(&mut self) -> Option<io::Result<Vec<u8>>> {
        self.chunks.recv().ok()
    }

    /// Room before each chunk's bytes.
    pub(super) fn head(&self) -> usize {
        self.head
    }

    /// Gives a chunk back to be filled again (its room is kept, not cleared).
    pub(super) fn recycle(&mut self, chunk: Vec<u8>) {
        let _ = self.spent.try_send(chunk);
    }
}

impl Read for ReadAhead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.chunk.len() {
            let Ok(next) = self.chunks.recv() else {
                return Ok(0);
            };
            let spent = std::mem::replace(&mut self.chunk, next?);
            self.at = self.head;
            let _ = self.spent.try_send(spent);
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
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
    let (file, read) = open_counted(path)?;
    let inner: Box<dyn Read + Send> = if compressed(path) {
        Box::new(ReadAhead::new(decoder(path, file)?))
    } else {
        Box::new(file)
    };
    Ok((inner, read))
}

/// Opens the compressed file `path` (`.gz` or `.zst`) for reading its decompressed bytes in
/// whole chunks, with a handle on the count of the file's own bytes read so far. `None` for a
/// plain file.
pub(super) fn open_chunked(path: &Path) -> Result<Option<(ReadAhead, Arc<AtomicU64>)>, Problem> {
    if !compressed(path) {
        return Ok(None);
    }
    let (file, read) = open_counted(path)?;
    let inner = decoder(path, file)?;
    Ok(Some((ReadAhead::new(inner), read)))
}

/// The seek table of the zstd file `path` (`super::seekable`), with what a buffer needs to
/// start decompressing at a later frame; `None` for any other file, or one without a table
/// that fits it.
pub(super) fn seek_of(path: &Path, read: &Arc<AtomicU64>) -> Option<super::source::Seek> {
    if extension(path) != Some("zst") {
        return None;
    }
    let file = open_regular(path).ok()?;
    let table = super::seekable::SeekTable::read(&file)?;
    Some(super::source::Seek {
        file: Arc::new(file),
        table,
        read: Arc::clone(read),
    })
}

/// Opens `path` with a handle on the count of its bytes read so far.
fn open_counted(path: &Path) -> Result<(Counting<File>, Arc<AtomicU64>), Problem> {
    let file = open_regular(path)?;
    let read = Arc::new(AtomicU64::new(0));
    Ok((Counting::new(file, Arc::clone(&read)), read))
}

/// The decoder of a compressed file, by its name (any other file is read as it is).
fn decoder(path: &Path, file: Counting<File>) -> Result<Box<dyn Read + Send>, Problem> {
    Ok(match extension(path) {
        Some("gz") => Box::new(flate2::read::MultiGzDecoder::new(file)),
        Some("zst") => Box::new(
            zstd::Decoder::new(file)
                .map_err(|e| Problem::in_file(path, format!("cannot read zstd: {e}")))?,
        ),
        _ => Box::new(file),
    })
}

/// The extension of `path`'s name, if it is UTF-8.
fn extension(path: &Path) -> Option<&str> {
    path.extension().and_then(|e| e.to_str())
}

/// Whether paf reads `path` as a compressed file (by its name: `.gz` or `.zst`).
pub fn compressed(path: &Path) -> bool {
    matches!(extension(path), Some("gz" | "zst"))
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

    /// Bytes in the order given, read in odd sizes, then an error, as the reader gave them.
    struct Source {
        bytes: Vec<u8>,
        at: usize,
        step: usize,
        error: bool,
    }

    impl Read for Source {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.step).min(self.bytes.len() - self.at);
            if n == 0 && self.error {
                return Err(io::Error::other("truncated"));
            }
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn bytes(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
    }

    #[test]
    fn reading_ahead_gives_every_byte_in_order_for_any_read_size() {
        // a few chunks and a bit: chunk ends fall inside the reader's reads
        let want = bytes(3 * AHEAD_CHUNK + 12_345);
        for (step, size) in [(1 << 16, 1), (4096, 7), (100_000, 1 << 20), (3, 3 << 20)] {
            let source = Source {
                bytes: want.clone(),
                at: 0,
                step,
                error: false,
            };
            let mut ahead = ReadAhead::new(Box::new(source));
            let mut got = Vec::new();
            let mut buf = vec![0; size];
            loop {
                match ahead.read(&mut buf).unwrap() {
                    0 => break,
                    n => got.extend_from_slice(&buf[..n]),
                }
            }
            assert!(got == want, "step {step}, size {size}: {} bytes", got.len());
            // and the end stays the end
            assert_eq!(ahead.read(&mut buf).unwrap(), 0);
        }
    }

    #[test]
    fn reading_ahead_gives_the_bytes_before_an_error_then_the_error_then_the_end() {
        let want = bytes(AHEAD_CHUNK + 1000);
        let source = Source {
            bytes: want.clone(),
            at: 0,
            step: 1 << 16,
            error: true,
        };
        let mut ahead = ReadAhead::new(Box::new(source));
        let mut got = Vec::new();
        let e = ahead.read_to_end(&mut got).unwrap_err();
        assert_eq!(e.to_string(), "truncated");
        assert!(got == want, "{} bytes before the error", got.len());
        assert_eq!(ahead.read(&mut [0; 10]).unwrap(), 0);
    }

    /// Says when it is dropped (its sender goes with it, unread).
    struct Watched(Source, #[allow(dead_code)] std::sync::mpsc::Sender<()>);

    impl Read for Watched {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.0.read(buf)
        }
    }

    #[test]
    fn a_reader_that_stops_early_stops_the_thread_ahead() {
        let (alive, dropped) = std::sync::mpsc::channel();
        let source = Source {
            bytes: bytes(64 * AHEAD_CHUNK),
            at: 0,
            step: 1 << 20,
            error: false,
        };
        let mut ahead = ReadAhead::new(Box::new(Watched(source, alive)));
        let mut first = [0; 100];
        ahead.read_exact(&mut first).unwrap();
        assert_eq!(first[..], bytes(100)[..]);
        drop(ahead);
        // the thread drops the source when it ends, long before the source's end; a generous
        // bound, only so that a thread that never ends fails the test instead of hanging it
        let ended = dropped.recv_timeout(std::time::Duration::from_secs(120));
        assert_eq!(ended, Err(std::sync::mpsc::RecvTimeoutError::Disconnected));
    }

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
