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
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use super::problem::Problem;
pub use super::scan::MAX_RECORD;
use super::source::Seek;

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
///
/// A zstd file with a seek table can instead be decompressed frame by frame on several threads
/// ([`ReadAhead::frames`]), each chunk one frame: where the reader does little with the bytes
/// (pass 1 at a bundle's marks), one thread decompressing was the whole wait
/// (docs/performance.md, "Twenty-ninth round").
pub(super) struct ReadAhead {
    /// Chunk `n` comes from `chunks[n % chunks.len()]`: one channel per thread.
    chunks: Vec<Receiver<io::Result<Vec<u8>>>>,
    /// Emptied chunks go back to the threads to be filled again, in turn.
    spent: Vec<SyncSender<Vec<u8>>>,
    /// Chunks received and given back so far.
    taken: usize,
    recycled: usize,
    chunk: Vec<u8>,
    at: usize,
    /// Where a chunk's bytes start: the room before them.
    head: usize,
    chunk_bytes: usize,
    /// Decompressed in frames: the file's frames and the first one read. `None` once the
    /// read went on in order instead ([`ReadAhead::recv`]), and for any other file.
    frames: Option<(Seek, usize)>,
}

/// The most decompressed bytes a frame read on its own may hold ([`ReadAhead::frames`]);
/// paf's frames hold [`super::seekable::FRAME_BYTES`]. A larger frame, and every frame after
/// it, is decompressed in order instead, so that the chunks held stay a few megabytes.
const MAX_FRAME: u64 = 4 << 20;

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
    pub(super) fn sized(inner: Box<dyn Read + Send>, chunk_bytes: usize, head: usize) -> ReadAhead {
        let (tx, chunks) = sync_channel(AHEAD_CHUNKS);
        let (spent, back) = sync_channel::<Vec<u8>>(AHEAD_CHUNKS + 2);
        std::thread::spawn(move || read_ahead(inner, chunk_bytes, head, &tx, &back));
        ReadAhead::of(vec![chunks], vec![spent], head, chunk_bytes, None)
    }

    /// A read-ahead of the threads whose channels these are, nothing taken yet.
    fn of(
        chunks: Vec<Receiver<io::Result<Vec<u8>>>>,
        spent: Vec<SyncSender<Vec<u8>>>,
        head: usize,
        chunk_bytes: usize,
        frames: Option<(Seek, usize)>,
    ) -> ReadAhead {
        ReadAhead {
            chunks,
            spent,
            taken: 0,
            recycled: 0,
            chunk: Vec::new(),
            at: 0,
            head,
            chunk_bytes,
            frames,
        }
    }

    /// A read-ahead of the frames of `seek`'s file from frame `first` on, each decompressed on
    /// its own by one of `threads` threads (frame `first + n` by thread `n % threads`) and
    /// handed on in order, a frame a chunk. Should a frame not decompress to the size the
    /// table gives (or not be read), the frames before it did, so it starts where the table
    /// says, and the read goes on from there in order, as a read of the whole stream would:
    /// the bytes are always the stream's, and an error the stream's error.
    pub(super) fn frames(seek: Seek, first: usize, threads: usize) -> ReadAhead {
        let threads = threads.max(1);
        let head = ROOM.load(Ordering::Relaxed);
        let (mut chunks, mut spent) = (Vec::new(), Vec::new());
        for k in 0..threads {
            let (tx, rx) = sync_channel(AHEAD_CHUNKS);
            let (back_tx, back) = sync_channel::<Vec<u8>>(AHEAD_CHUNKS + 2);
            let seek = seek.clone();
            std::thread::spawn(move || {
                let frames = (first + k..seek.table.frames()).step_by(threads);
                decompress_frames(&seek, frames, head, &tx, &back);
            });
            chunks.push(rx);
            spent.push(back_tx);
        }
        let chunk_bytes = AHEAD_FROM.load(Ordering::Relaxed);
        ReadAhead::of(chunks, spent, head, chunk_bytes, Some((seek, first)))
    }

    /// A read-ahead like this one of the file's frames from frame `i` of `seek` on, in its
    /// place (this one's threads stop at their next chunk): on as many threads as this one, or
    /// decompressed in order by one.
    pub(super) fn restart_at(&self, seek: &Seek, i: usize) -> io::Result<ReadAhead> {
        match self.frames {
            Some(_) => Ok(ReadAhead::frames(seek.clone(), i, self.chunks.len())),
            None => {
                let (c, _, _) = seek
                    .table
                    .frame(i)
                    .unwrap_or((seek.table.frames_end(), 0, 0));
                self.in_order_from(seek, c)
            }
        }
    }

    /// A read-ahead with this one's sizes of `seek`'s file decompressed in order from byte `c`
    /// (a frame's start) on one thread.
    fn in_order_from(&self, seek: &Seek, c: u64) -> io::Result<ReadAhead> {
        let inner = Box::new(in_order_from(seek, c)?);
        Ok(ReadAhead::sized(inner, self.chunk_bytes, self.head))
    }

    /// The next chunk whole, its bytes after [`ReadAhead::head`] bytes of room; `None` at the
    /// end of the file. Not to be mixed with [`Read`] on the same read-ahead.
    pub(super) fn next_chunk(&mut self) -> Option<io::Result<Vec<u8>>> {
        self.recv()
    }

    /// The next chunk with bytes in it, in order; after an error, the end.
    fn recv(&mut self) -> Option<io::Result<Vec<u8>>> {
        loop {
            if let Some((seek, first)) = &self.frames
                && first + self.taken >= seek.table.frames()
            {
                return None;
            }
            let got = self.chunks[self.taken % self.chunks.len()].recv();
            match (got, self.frames.take()) {
                (Ok(Ok(chunk)), frames) => {
                    self.frames = frames;
                    self.taken += 1;
                    // an empty frame is no chunk: a chunk without bytes would read as the end
                    if chunk.len() > self.head {
                        return Some(Ok(chunk));
                    }
                }
                (Ok(Err(_)) | Err(_), Some((seek, first))) => {
                    // the frames before this one decompressed as the table says: so it starts
                    // where the table says, and the stream is read on from there in order
                    let (c, _, _) = seek.table.frame(first + self.taken)?;
                    let next = match self.in_order_from(&seek, c) {
                        Ok(next) => next,
                        Err(e) => return Some(Err(e)),
                    };
                    (self.chunks, self.spent) = (next.chunks, next.spent);
                    (self.taken, self.recycled) = (0, 0);
                }
                (Ok(Err(e)), None) => return Some(Err(e)),
                (Err(_), None) => return None,
            }
        }
    }

    /// Room before each chunk's bytes.
    pub(super) fn head(&self) -> usize {
        self.head
    }

    /// Gives a chunk back to be filled again (its room is kept, not cleared).
    pub(super) fn recycle(&mut self, chunk: Vec<u8>) {
        let _ = self.spent[self.recycled % self.spent.len()].try_send(chunk);
        self.recycled += 1;
    }
}

/// The thread of a [`ReadAhead`] of `inner`: chunks of `chunk_bytes` bytes after `head` bytes
/// of room, until the end, an error or a reader that is gone.
fn read_ahead(
    mut inner: Box<dyn Read + Send>,
    chunk_bytes: usize,
    head: usize,
    tx: &SyncSender<io::Result<Vec<u8>>>,
    back: &Receiver<Vec<u8>>,
) {
    loop {
        let mut chunk = room(back, head, chunk_bytes);
        let read = (&mut inner)
            .take(chunk_bytes as u64)
            .read_to_end(&mut chunk);
        // The end of the file (no bytes) is the end of the channel; an error comes after the
        // bytes read before it, as `read_to_end` on `inner` would leave them, and ends it too.
        // A reader that is gone stops the thread.
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
}

/// A chunk given back, or a new one, holding `head` bytes of room and room for `bytes` more.
/// The room is what an earlier use left there, or zeros in a new chunk: the reader writes it
/// before it reads it.
fn room(back: &Receiver<Vec<u8>>, head: usize, bytes: usize) -> Vec<u8> {
    let mut chunk = back.try_recv().unwrap_or_default();
    if chunk.len() < head {
        chunk.resize(head, 0);
    }
    chunk.truncate(head);
    chunk.reserve_exact(bytes);
    chunk
}

/// A thread of [`ReadAhead::frames`]: decompresses `frames` of `seek`'s file, each into a
/// chunk after `head` bytes of room, until the last, a frame that does not decompress as the
/// table says (an error, which ends the channel), or a reader that is gone.
fn decompress_frames(
    seek: &Seek,
    frames: impl Iterator<Item = usize>,
    head: usize,
    tx: &SyncSender<io::Result<Vec<u8>>>,
    back: &Receiver<Vec<u8>>,
) {
    let Some(mut dctx) = zstd::zstd_safe::DCtx::try_create() else {
        let _ = tx.send(Err(io::Error::other("cannot make a zstd decoder")));
        return;
    };
    let mut src = Vec::new();
    for i in frames {
        let chunk = decompress_frame(seek, i, &mut dctx, &mut src, || room(back, head, 0));
        let failed = chunk.is_err();
        if tx.send(chunk).is_err() || failed {
            break;
        }
    }
}

/// Frame `i` of `seek`'s file decompressed into `chunk()` after its room, checked against
/// the size the table gives.
fn decompress_frame(
    seek: &Seek,
    i: usize,
    dctx: &mut zstd::zstd_safe::DCtx<'_>,
    src: &mut Vec<u8>,
    chunk: impl FnOnce() -> Vec<u8>,
) -> io::Result<Vec<u8>> {
    let misfit = || io::Error::other(format!("zstd frame {i} is not as the seek table says"));
    let (c, l, d) = seek.table.frame(i).ok_or_else(misfit)?;
    if d > MAX_FRAME || l > zstd::zstd_safe::compress_bound(d as usize) as u64 {
        return Err(misfit());
    }
    src.resize(l as usize, 0);
    seek.file.read_exact_at(src, c)?;
    // progress: the frames are read out of order, so the count only grows
    seek.read.fetch_max(c + l, Ordering::Relaxed);
    let mut chunk = chunk();
    let head = chunk.len();
    chunk.reserve_exact(d as usize);
    let mut out = io::Cursor::new(chunk);
    out.set_position(head as u64);
    let n = dctx
        .decompress(&mut out, src)
        .map_err(|code| io::Error::other(zstd::zstd_safe::get_error_name(code)))?;
    if n as u64 != d {
        return Err(misfit());
    }
    Ok(out.into_inner())
}

/// A decoder of `seek`'s file from byte `c` (a frame's start) to its end, counting the bytes
/// it reads.
fn in_order_from(seek: &Seek, c: u64) -> io::Result<impl Read + Send + use<>> {
    seek.read.fetch_max(c, Ordering::Relaxed);
    let from = FileAt {
        file: Arc::clone(&seek.file),
        at: c,
        len: seek.table.frames_end(),
    };
    zstd::Decoder::new(Counting::new(from, Arc::clone(&seek.read)))
}

impl Read for ReadAhead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.chunk.len() {
            let Some(next) = self.recv() else {
                return Ok(0);
            };
            let spent = std::mem::replace(&mut self.chunk, next?);
            self.at = self.head;
            self.recycle(spent);
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Reads a file from an offset up to a length.
pub(super) struct FileAt {
    pub(super) file: Arc<File>,
    pub(super) at: u64,
    pub(super) len: u64,
}

impl Read for FileAt {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = usize::try_from(self.len.saturating_sub(self.at)).unwrap_or(usize::MAX);
        let want = buf.len().min(left);
        let n = self.file.read_at(&mut buf[..want], self.at)?;
        self.at += n as u64;
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

/// A compressed file opened for reading its decompressed bytes in whole chunks
/// ([`open_chunked`]).
pub(super) struct Chunked {
    pub(super) ahead: ReadAhead,
    /// The count of the file's own bytes read so far.
    pub(super) read: Arc<AtomicU64>,
    /// A zstd file's seek table, if it has one that fits it.
    pub(super) seek: Option<super::source::Seek>,
}

/// Opens the compressed file `path` (`.gz` or `.zst`) for reading its decompressed bytes in
/// whole chunks: a zstd file with a seek table decompressed frame by frame on `threads`
/// threads if more than one ([`ReadAhead::frames`]), any other in order on one. `None` for a
/// plain file.
pub(super) fn open_chunked(path: &Path, threads: usize) -> Result<Option<Chunked>, Problem> {
    if !compressed(path) {
        return Ok(None);
    }
    let (file, read) = open_counted(path)?;
    let seek = seek_of(path, &read);
    let ahead = match &seek {
        Some(seek) if threads > 1 => ReadAhead::frames(seek.clone(), 0, threads),
        _ => ReadAhead::new(decoder(path, file)?),
    };
    Ok(Some(Chunked { ahead, read, seek }))
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
        table: Arc::new(table),
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

    /// Lines of text, `n` bytes of them or a little more, that compress a little.
    fn lines_of(n: usize) -> Vec<u8> {
        let mut t = Vec::new();
        let mut i = 0u64;
        while t.len() < n {
            t.extend_from_slice(
                format!("{{\"k\":\"use\",\"frame\":{},\"stmt\":{i}}}\n", i % 97).as_bytes(),
            );
            i = i
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407)
                >> 40;
        }
        t
    }

    /// `bytes` written to a `.zst` file in a temporary directory.
    fn zst_file(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tests.jsonl.zst");
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    /// `text` in zstd frames of `frame` decompressed bytes, with the seek table after them.
    fn framed(text: &[u8], frame: usize) -> Vec<u8> {
        let mut w = super::super::seekable::FramedZstd::with_frames(Vec::new(), frame).unwrap();
        std::io::Write::write_all(&mut w, text).unwrap();
        w.finish().unwrap()
    }

    /// Where the seek table's entry of frame `i` is in `file` (its compressed size; its
    /// decompressed size follows).
    fn entry(file: &[u8], i: usize) -> usize {
        let n = file.len();
        let frames = u32::from_le_bytes(file[n - 9..n - 5].try_into().unwrap()) as usize;
        n - 9 - 8 * frames + 8 * i
    }

    /// Every chunk of `ahead` past its room, in order, and the error that ended them, if one
    /// did.
    fn drain(mut ahead: ReadAhead) -> (Vec<u8>, Option<String>) {
        let mut got = Vec::new();
        while let Some(chunk) = ahead.next_chunk() {
            match chunk {
                Ok(chunk) => got.extend_from_slice(&chunk[ahead.head()..]),
                Err(e) => return (got, Some(e.to_string())),
            }
        }
        (got, None)
    }

    /// What one zstd stream read of the whole file gives: its bytes and its error, if any.
    fn stream(path: &Path) -> (Vec<u8>, Option<String>) {
        let mut got = Vec::new();
        let mut d = zstd::Decoder::new(File::open(path).unwrap()).unwrap();
        let e = d.read_to_end(&mut got).err().map(|e| e.to_string());
        (got, e)
    }

    fn seek(path: &Path) -> Seek {
        seek_of(path, &Arc::new(AtomicU64::new(0))).expect("a seek table")
    }

    #[test]
    fn frames_decompressed_on_threads_come_in_the_order_of_the_file() {
        let text = lines_of(40_000);
        let (_dir, path) = zst_file(&framed(&text, 1000));
        let seek = seek(&path);
        let frames = seek.table.frames();
        assert_eq!(frames, text.len().div_ceil(1000));
        for threads in 1..=4 {
            for first in [0, 1, 5, frames - 1, frames] {
                let ahead = ReadAhead::frames(seek.clone(), first, threads);
                let (got, e) = drain(ahead);
                assert_eq!(e, None);
                let from = (first * 1000).min(text.len());
                assert!(got == text[from..], "{threads} threads from frame {first}");
            }
            // through `Read`, and from a frame as a jump starts one
            let mut got = Vec::new();
            let ahead = ReadAhead::frames(seek.clone(), 0, threads);
            ahead
                .restart_at(&seek, 3)
                .unwrap()
                .read_to_end(&mut got)
                .unwrap();
            assert!(got == text[3000..], "{threads} threads, read");
        }
        // a read-ahead in order starts from a frame in order
        let ahead = ReadAhead::new(Box::new(io::empty()));
        let (got, _) = drain(ahead.restart_at(&seek, 7).unwrap());
        assert!(got == text[7000..]);
    }

    /// A table whose sizes add up but do not match the frames, a frame that is not one, and a
    /// frame larger than [`MAX_FRAME`]: the frames before it are read on threads, and the rest
    /// in order, so the bytes, and the error if any, are those of one stream read of the file.
    #[test]
    fn frames_not_as_the_table_says_are_read_on_in_order() {
        let text = lines_of(30_000);
        let file = framed(&text, 1000);
        let word = |f: &[u8], at: usize| u32::from_le_bytes(f[at..at + 4].try_into().unwrap());
        let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
        // frames 3 and 4 swap decompressed sizes (the last frame is the short one)
        let mut sizes = file.clone();
        let (a, b) = (entry(&file, 3) + 4, entry(&file, frames_of(&file) - 1) + 4);
        let (x, y) = (word(&file, a), word(&file, b));
        assert_ne!(x, y);
        sizes[a..a + 4].copy_from_slice(&y.to_le_bytes());
        sizes[b..b + 4].copy_from_slice(&x.to_le_bytes());
        cases.push(("decompressed sizes swapped", sizes));
        // frames 2 and 3 swap compressed sizes: frame 3 no longer starts where the table says
        let mut starts = file.clone();
        let (a, b) = (entry(&file, 2), entry(&file, 3));
        let (x, y) = (word(&file, a), word(&file, b));
        assert_ne!(x, y, "frames of the same compressed size");
        starts[a..a + 4].copy_from_slice(&y.to_le_bytes());
        starts[b..b + 4].copy_from_slice(&x.to_le_bytes());
        cases.push(("compressed sizes swapped", starts));
        // frame 5's magic number broken: the stream ends there in an error
        let mut broken = file.clone();
        let c5: u32 = (0..5).map(|i| word(&file, entry(&file, i))).sum();
        broken[c5 as usize] ^= 0xFF;
        cases.push(("a frame that is not one", broken));
        for (case, bytes) in &cases {
            let (_dir, path) = zst_file(bytes);
            let want = stream(&path);
            if *case == "a frame that is not one" {
                assert!(want.1.is_some() && want.0 == text[..5000], "{case}");
            } else {
                assert!(want == (text.clone(), None), "{case}");
            }
            for threads in 1..=3 {
                let got = drain(ReadAhead::frames(seek(&path), 0, threads));
                assert!(
                    got.0 == want.0,
                    "{case}, {threads} threads: {} bytes",
                    got.0.len()
                );
                assert_eq!(
                    got.1.is_some(),
                    want.1.is_some(),
                    "{case}, {threads} threads"
                );
            }
        }
        // frames larger than MAX_FRAME are read in order
        let text = lines_of(2 * MAX_FRAME as usize + 10);
        let (_dir, path) = zst_file(&framed(&text, MAX_FRAME as usize + 1));
        let got = drain(ReadAhead::frames(seek(&path), 0, 2));
        assert!(got == (text, None));
    }

    /// How many frames the seek table of `file` lists.
    fn frames_of(file: &[u8]) -> usize {
        let n = file.len();
        u32::from_le_bytes(file[n - 9..n - 5].try_into().unwrap()) as usize
    }
}
