//! The bytes the engine's scanner looks at: chunks a thread decompresses ahead (a compressed
//! file), a buffer a reader fills, or windows of a plain file mapped into memory. Mapping spares the scanner the kernel's copy of
//! every byte into its buffer, and each piece its copy out of it: the scanner thread did both,
//! for every byte, in both passes of `paf rank` (docs/performance.md, "Sixth round").
//!
//! A window maps a few megabytes of the file; a piece holds the window its bytes are in, so a
//! window is unmapped when the scanner has moved past it and its last piece is dropped. A page is
//! read in when touched, and the pieces that wait in a worker's queue hand back the pages the
//! scanner touched ([`Bytes::release`]), so resident memory is the pages of a few windows,
//! whatever the size of the file and however far the scanner deals ahead of the workers.
//!
//! The price of mapping: if another process truncates the file while paf reads it, reading the
//! lost pages kills paf with SIGBUS instead of ending the file with a problem (docs/robustness.md
//! says so; ripgrep, which maps files too, has the same limit).

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::ops::{Deref, Range};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::{Mmap, MmapOptions};

use super::lines::{Counting, FileAt, ReadAhead};

/// Bytes of the file one window maps, at least: small enough that the windows alive at once
/// (the scanner's and those of the pieces in flight) stay a few tens of megabytes, large enough
/// that mapping costs little (an Ant-scale file takes some 400 windows).
pub(super) const WINDOW: usize = 4 << 20;

/// A piece's bytes.
pub enum Bytes {
    /// Copied out of the scanner's buffer.
    Owned(Vec<u8>),
    /// A range of a window of the mapped file.
    Mapped(Arc<Mmap>, Range<usize>),
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Owned(bytes) => bytes,
            Bytes::Mapped(window, range) => &window[range.clone()],
        }
    }
}

impl Bytes {
    /// Hands back to the kernel the resident pages that lie wholly inside a mapped piece, so
    /// that a piece that waits in a worker's queue after the scanner read it does not keep them
    /// in memory: they are read again, from the page cache, when the worker reads the piece.
    /// Pages shared with a neighbouring piece are left alone. Copied bytes stay as they are.
    /// The bytes handed back.
    pub fn release(&self) -> usize {
        let Bytes::Mapped(window, range) = self else {
            return 0;
        };
        let page = page_size();
        let at = window.as_ptr() as usize + range.start;
        // the first and last page boundaries inside the piece, as addresses
        let (first, last) = (at.next_multiple_of(page), (at + range.len()) / page * page);
        if last > first {
            let (start, end) = (range.start + (first - at), range.start + (last - at));
            // SAFETY: the window is mapped read-only from a file, shared: a page dropped here is
            // read again from the file at its next access. Its bytes are those it had, unless
            // the file changes under paf, which a mapping cannot guard against anyway (module
            // docs). Advice is only a hint: an error changes nothing.
            let advised = unsafe {
                window.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    start,
                    end - start,
                )
            };
            if advised.is_ok() {
                return end - start;
            }
        }
        0
    }
}

fn page_size() -> usize {
    static PAGE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    // SAFETY: sysconf has no preconditions.
    *PAGE.get_or_init(|| match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        n if n > 0 => n as usize,
        _ => 4096,
    })
}

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bytes({})", String::from_utf8_lossy(self))
    }
}

/// The scanner's buffer: the file's bytes from some offset up to where it has read.
pub(super) enum Buffer {
    Read {
        reader: Box<dyn Read + Send>,
        buf: Vec<u8>,
        /// Bytes consumed from the front: where `buf` starts in what the reader gave. `None`
        /// once the buffer was edited, when its bytes are no longer the reader's.
        consumed: Option<u64>,
    },
    Mapped(Mapped),
    /// A compressed file's decompressed chunks, each taken whole: the buffer is
    /// `buf[start..]`, and the bytes not consumed when a chunk comes are put in the room before
    /// its bytes rather than the chunk copied after them (docs/performance.md, "Twenty-seventh
    /// round"). They are copied after them only if they outgrow that room.
    Chunks {
        ahead: ReadAhead,
        buf: Vec<u8>,
        start: usize,
        /// As for [`Buffer::Read`].
        consumed: Option<u64>,
        /// A zstd file with a seek table: the buffer can start again at a later frame
        /// ([`Buffer::jump`]).
        seek: Option<Seek>,
    },
}

/// A zstd file's frames, as its seek table gives them (`super::seekable`), to decompress
/// from a later frame than the read has reached, or on several threads.
#[derive(Clone)]
pub(super) struct Seek {
    pub(super) file: Arc<File>,
    pub(super) table: Arc<super::seekable::SeekTable>,
    /// The count of the file's bytes read, for progress.
    pub(super) read: Arc<AtomicU64>,
}

/// A buffer that is a range of a mapped window.
pub(super) struct Mapped {
    file: Arc<File>,
    /// Where reading ends: the file's length when it was opened, or the end of the range a
    /// half of a split scan reads.
    len: u64,
    window: Arc<Mmap>,
    /// Where `window` starts in the file.
    offset: u64,
    /// The buffer is `window[start..end]`.
    start: usize,
    end: usize,
    /// Bytes a new window maps, at least.
    window_bytes: usize,
    read: Arc<AtomicU64>,
}

impl Buffer {
    pub(super) fn reader(reader: Box<dyn Read + Send>) -> Buffer {
        Buffer::Read {
            reader,
            buf: Vec::new(),
            consumed: Some(0),
        }
    }

    pub(super) fn chunks(ahead: ReadAhead, seek: Option<Seek>) -> Buffer {
        Buffer::Chunks {
            ahead,
            buf: Vec::new(),
            start: 0,
            consumed: Some(0),
            seek,
        }
    }

    /// Whether [`Buffer::jump`] can start the buffer again further on.
    pub(super) fn can_jump(&self) -> bool {
        matches!(
            self,
            Buffer::Chunks {
                seek: Some(_),
                consumed: Some(_),
                ..
            }
        )
    }

    /// Forgets the buffer's bytes and goes on from decompressed byte `to` of the file, which
    /// lies past them: the frame that holds it is decompressed from its start, and its bytes
    /// before `to` dropped. Whether it did: not when `to` is not in a frame, nor when the
    /// frame there does not start as the table says (the table is then no longer used and the
    /// read goes on in order). At the end of the file before `to` (a table that promised more
    /// than the frames hold), the buffer is empty at the end.
    pub(super) fn jump(&mut self, to: u64) -> io::Result<bool> {
        let Buffer::Chunks {
            ahead,
            buf,
            start,
            consumed: Some(consumed),
            seek,
        } = self
        else {
            return Ok(false);
        };
        let Some(s) = seek.as_ref() else {
            return Ok(false);
        };
        let here = *consumed + (buf.len() - *start) as u64;
        let Some((i, c, d)) = s.table.frame_of(to).filter(|_| to >= here) else {
            return Ok(false);
        };
        if !super::seekable::frame_fits(&s.file, c, s.table.frame_len(d)) {
            *seek = None;
            return Ok(false);
        }
        // progress counts the bytes passed over as read
        s.read.fetch_max(c, Ordering::Relaxed);
        *ahead = ahead.restart_at(s, i)?;
        buf.clear();
        (*start, *consumed) = (0, d);
        let mut at = d;
        while at < to {
            if self.fill(1)? {
                break;
            }
            let n = self.len().min(len_usize(to - at));
            self.consume(n);
            at += n as u64;
        }
        Ok(true)
    }

    /// Reads `file` through windows of at least `window_bytes` mapped into memory, counting the
    /// bytes read in `read`. An error if it cannot be mapped; the caller then reads it.
    pub(super) fn mapped(
        file: File,
        read: Arc<AtomicU64>,
        window_bytes: usize,
    ) -> io::Result<Buffer> {
        let len = file.metadata()?.len();
        Buffer::mapped_range(file, read, window_bytes, 0..len)
    }

    /// [`Buffer::mapped`] over the bytes `range` of `file` only: the buffer starts at
    /// `range.start` and the file ends, for it, at `range.end` (a half of a split scan).
    pub(super) fn mapped_range(
        file: File,
        read: Arc<AtomicU64>,
        window_bytes: usize,
        range: Range<u64>,
    ) -> io::Result<Buffer> {
        let len = range.end;
        let window = map(
            &file,
            range.start,
            window_bytes.min(len_usize(len.saturating_sub(range.start))),
        )?;
        Ok(Buffer::Mapped(Mapped {
            file: Arc::new(file),
            len,
            window: Arc::new(window),
            offset: range.start,
            start: 0,
            end: 0,
            window_bytes,
            read,
        }))
    }

    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            Buffer::Read { buf, .. } => buf,
            Buffer::Mapped(m) => &m.window[m.start..m.end],
            Buffer::Chunks { buf, start, .. } => &buf[*start..],
        }
    }

    pub(super) fn len(&self) -> usize {
        self.bytes().len()
    }

    /// Forgets the first `n` bytes.
    pub(super) fn consume(&mut self, n: usize) {
        match self {
            Buffer::Read { buf, consumed, .. } => {
                buf.drain(..n);
                if let Some(c) = consumed {
                    *c += n as u64;
                }
            }
            Buffer::Mapped(m) => m.start += n,
            Buffer::Chunks {
                start, consumed, ..
            } => {
                *start += n;
                if let Some(c) = consumed {
                    *c += n as u64;
                }
            }
        }
    }

    /// Adds up to `chunk` bytes to the end: whether the file ended (fewer came).
    pub(super) fn fill(&mut self, chunk: usize) -> io::Result<bool> {
        match self {
            Buffer::Read { reader, buf, .. } => loop {
                match reader.take(chunk as u64).read_to_end(buf) {
                    Ok(n) => return Ok(n < chunk),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            },
            Buffer::Mapped(m) => m.fill(chunk),
            Buffer::Chunks {
                ahead, buf, start, ..
            } => {
                // A whole chunk, however many bytes were asked for: the end of the file is
                // when no chunk comes.
                let Some(next) = ahead.next_chunk() else {
                    return Ok(true);
                };
                let mut next = next?;
                let head = ahead.head();
                let held = buf.len() - *start;
                if held <= head {
                    next[head - held..head].copy_from_slice(&buf[*start..]);
                    ahead.recycle(std::mem::replace(buf, next));
                    *start = head - held;
                } else {
                    buf.drain(..*start);
                    buf.extend_from_slice(&next[head..]);
                    *start = 0;
                    ahead.recycle(next);
                }
                Ok(false)
            }
        }
    }

    /// The bytes at `range` of the buffer, for a piece.
    pub(super) fn piece(&self, range: Range<usize>) -> Bytes {
        match self {
            Buffer::Read { buf, .. } => Bytes::Owned(buf[range].to_vec()),
            Buffer::Chunks { buf, start, .. } => {
                Bytes::Owned(buf[start + range.start..start + range.end].to_vec())
            }
            Buffer::Mapped(m) => Bytes::Mapped(
                Arc::clone(&m.window),
                m.start + range.start..m.start + range.end,
            ),
        }
    }

    /// Where byte `at` of the buffer is in what the reader gave: `None` for a mapped buffer
    /// and for one that was edited (its bytes are then no longer the reader's, in order).
    pub(super) fn offset(&self, at: usize) -> Option<u64> {
        match self {
            Buffer::Read { consumed, .. } | Buffer::Chunks { consumed, .. } => {
                consumed.map(|c| c + at as u64)
            }
            Buffer::Mapped(_) => None,
        }
    }

    /// The buffer as a vector to edit (for an overlong line, which is rare): a mapped buffer is
    /// copied, and the rest of the file is read rather than mapped from then on.
    pub(super) fn edit(&mut self) -> &mut Vec<u8> {
        if let Buffer::Mapped(m) = self {
            let reader = FileAt {
                file: Arc::clone(&m.file),
                at: m.offset + m.end as u64,
                len: m.len,
            };
            let reader = Counting::new(reader, Arc::clone(&m.read));
            *self = Buffer::Read {
                buf: m.window[m.start..m.end].to_vec(),
                reader: Box::new(reader),
                consumed: None,
            };
        }
        match self {
            Buffer::Read { buf, consumed, .. } => {
                *consumed = None;
                buf
            }
            Buffer::Chunks {
                buf,
                start,
                consumed,
                ..
            } => {
                buf.drain(..*start);
                *start = 0;
                *consumed = None;
                buf
            }
            Buffer::Mapped(_) => unreachable!("a mapped buffer was just made a read one"),
        }
    }
}

impl Mapped {
    fn fill(&mut self, chunk: usize) -> io::Result<bool> {
        let at = self.offset + self.end as u64;
        let n = chunk.min(len_usize(self.len.saturating_sub(at)));
        if self.end + n > self.window.len() {
            self.remap(n)?;
        }
        self.end += n;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n < chunk)
    }

    /// Maps a new window from the start of the buffer, with room for `more` bytes after it.
    fn remap(&mut self, more: usize) -> io::Result<()> {
        let from = self.offset + self.start as u64;
        let held = self.end - self.start;
        let len = (held + more)
            .max(self.window_bytes)
            .min(len_usize(self.len - from));
        self.window = Arc::new(map(&self.file, from, len)?);
        self.offset = from;
        self.start = 0;
        self.end = held;
        Ok(())
    }
}

/// Maps `len` bytes of `file` from `offset` (memmap2 aligns the offset to a page itself).
/// The pages are not read in as the window is mapped, but as they are touched: windows may wait
/// in a worker's queue, their pages handed back ([`Bytes::release`]), and a scan that follows
/// marks reads little but the header lines (docs/performance.md, "Twenty-sixth round").
fn map(file: &File, offset: u64, len: usize) -> io::Result<Mmap> {
    let mut options = MmapOptions::new();
    options.offset(offset).len(len);
    // SAFETY: paf only reads the mapping. Another process may change the file meanwhile; the
    // bytes read are then whatever the file holds, which every later check treats as untrusted
    // input, and a truncation raises SIGBUS (the module's doc says so).
    unsafe { options.map(file) }
}

/// A file length as a `usize` (paf runs on 64-bit targets, where it is exact).
fn len_usize(len: u64) -> usize {
    usize::try_from(len).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes a buffer yields for a file when filled `chunk` bytes at a time, consuming
    /// `keep`-less prefixes as the scanner does, with windows of `window` bytes; every `edit`
    /// step turns it into a read buffer.
    fn drain_all(text: &[u8], chunk: usize, window: usize, edit_at: Option<usize>) -> Vec<u8> {
        drain_range(text, 0..text.len(), chunk, window, edit_at)
    }

    /// [`drain_all`] of the bytes `range` of the file only.
    fn drain_range(
        text: &[u8],
        range: Range<usize>,
        chunk: usize,
        window: usize,
        edit_at: Option<usize>,
    ) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        std::fs::write(&path, text).unwrap();
        let read = Arc::new(AtomicU64::new(0));
        let (file, len) = (File::open(&path).unwrap(), range.len());
        let range = range.start as u64..range.end as u64;
        let mut buffer = Buffer::mapped_range(file, Arc::clone(&read), window, range).unwrap();
        let mut out = Vec::new();
        let mut pieces = Vec::new();
        let mut step = 0;
        loop {
            if edit_at == Some(step) {
                buffer.edit();
            }
            step += 1;
            let eof = buffer.fill(chunk).unwrap();
            // Hand on all but the last 3 bytes, as a scanner keeping a partial line would.
            let keep = if eof { 0 } else { buffer.len().min(3) };
            let n = buffer.len() - keep;
            pieces.push(buffer.piece(0..n));
            buffer.consume(n);
            if eof {
                break;
            }
        }
        // Pieces outlive the windows the buffer has moved past.
        for piece in &pieces {
            out.extend_from_slice(piece);
        }
        assert_eq!(read.load(Ordering::Relaxed), len as u64);
        out
    }

    /// A mapped piece that hands its pages back still reads as the file's bytes, whatever its
    /// alignment, and so do its neighbours (the pages it shares with them are kept).
    #[test]
    fn a_released_piece_reads_the_same() {
        let text: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        std::fs::write(&path, &text).unwrap();
        let file = File::open(&path).unwrap();
        let mut buffer = Buffer::mapped(file, Arc::default(), 1 << 20).unwrap();
        assert!(!buffer.fill(1 << 20).unwrap() || buffer.len() == text.len());
        for cut in [
            (0, 4096),
            (1, 9000),
            (4095, 4097),
            (5000, 70_000),
            (3, 199_999),
        ] {
            let pieces = [
                buffer.piece(0..cut.0),
                buffer.piece(cut.0..cut.1),
                buffer.piece(cut.1..text.len()),
            ];
            // the pages wholly inside the piece, worked out by hand (the window starts at a page)
            let page = page_size();
            let inside = (cut.1 / page * page).saturating_sub(cut.0.next_multiple_of(page));
            assert_eq!(pieces[1].release(), inside, "{cut:?}");
            for (piece, range) in pieces
                .iter()
                .zip([0..cut.0, cut.0..cut.1, cut.1..text.len()])
            {
                assert_eq!(&piece[..], &text[range.clone()], "{cut:?}: {range:?}");
            }
            pieces.iter().for_each(|p| {
                p.release();
            });
            let whole: Vec<u8> = pieces.iter().flat_map(|p| p.iter().copied()).collect();
            assert_eq!(whole, text, "{cut:?}, all released");
        }
        // copied bytes are left as they are
        let owned = Bytes::Owned(b"abc".to_vec());
        assert_eq!(owned.release(), 0);
        assert_eq!(&owned[..], b"abc");
    }

    #[test]
    fn every_byte_comes_once_in_order_for_any_chunk_and_window() {
        let text: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
        for (chunk, window) in [(1000, 4096), (4096, 4096), (7000, 5000), (100_000, 4096)] {
            assert_eq!(
                drain_all(&text, chunk, window, None),
                text,
                "{chunk} {window}"
            );
            for edit_at in [0, 1, 5] {
                assert_eq!(
                    drain_all(&text, chunk, window, Some(edit_at)),
                    text,
                    "{chunk} {window} edit at {edit_at}"
                );
            }
        }
    }

    #[test]
    fn a_range_yields_its_bytes_only() {
        let text: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
        for range in [0..50_000, 0..20_001, 20_001..50_000, 4096..8192, 7..7] {
            for (chunk, window) in [(1000, 4096), (100_000, 4096)] {
                for edit_at in [None, Some(1)] {
                    assert_eq!(
                        drain_range(&text, range.clone(), chunk, window, edit_at),
                        &text[range.clone()],
                        "{range:?} {chunk} {window} {edit_at:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn an_empty_file_ends_at_once() {
        assert_eq!(drain_all(b"", 1000, 4096, None), b"");
    }
}
