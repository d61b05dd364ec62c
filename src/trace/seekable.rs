//! zstd files that can be read from their middle: the tests file written as independent
//! frames with the seek table of zstd's seekable format at its end, and that table read back.
//!
//! Any zstd decoder reads such a file whole (the table is a skippable frame). paf's scanner,
//! following a bundle's marks, starts decompressing again at the frame that holds the next
//! header it wants instead of decompressing every byte before it: `paf rank` of a bundle whose
//! tests are large decompresses only the failing tests in its first pass
//! (docs/trace-format.md, "Compressed tests files"; docs/performance.md, "Twenty-eighth round").
//! The format is zstd's own (`contrib/seekable_format` in the zstd sources), so other tools
//! that know it can seek in paf's files too.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Decompressed bytes per frame. Smaller frames let a reader skip more finely and compress a
/// little worse: la4j's 1.9 GB tests file is 62.9 MB as one stream at paf's level, 63.8 MB in
/// frames of 4 MiB and 65.2 MB in frames of 1 MiB (+3.7%).
pub const FRAME_BYTES: usize = 1 << 20;

static FRAME: AtomicUsize = AtomicUsize::new(FRAME_BYTES);

/// Makes [`FramedZstd::new`] in this process write frames of `bytes` instead of
/// [`FRAME_BYTES`]: for tests of the engine, whose files are small, to give them many frames.
#[doc(hidden)]
pub fn frames_of(bytes: usize) {
    FRAME.store(bytes, Ordering::Relaxed);
}

const SKIPPABLE_MAGIC: u32 = 0x184D_2A5E;
const SEEKABLE_MAGIC: u32 = 0x8F92_EAB1;
const FOOTER: u64 = 9;
/// The most frames a table read here may list: 4 TiB of paf's frames. zstd's own limit for the
/// format is 0x800_0000, whose starts would take 2 GiB to hold; a table that lists more than
/// this, true or crafted, is not used (the file is read from its start).
const MAX_FRAMES: u64 = 1 << 22;

/// Writes zstd in frames of [`FRAME_BYTES`] decompressed bytes, each compressed on its own,
/// and the seek table after the last at [`FramedZstd::finish`]. One frame's input and output
/// are held, nothing more.
pub struct FramedZstd<W: Write> {
    out: W,
    compressor: zstd::bulk::Compressor<'static>,
    frame: usize,
    input: Vec<u8>,
    output: Vec<u8>,
    /// (compressed, decompressed) size of each frame written.
    table: Vec<(u32, u32)>,
}

impl<W: Write> FramedZstd<W> {
    /// Frames of [`FRAME_BYTES`] at paf's zstd level.
    pub fn new(out: W) -> io::Result<FramedZstd<W>> {
        FramedZstd::with_frames(out, FRAME.load(Ordering::Relaxed))
    }

    /// Frames of `frame` decompressed bytes (tests make them small).
    pub fn with_frames(out: W, frame: usize) -> io::Result<FramedZstd<W>> {
        let frame = frame.clamp(1, 1 << 30);
        Ok(FramedZstd {
            out,
            compressor: zstd::bulk::Compressor::new(super::write::ZSTD_LEVEL)?,
            frame,
            input: Vec::with_capacity(frame),
            output: Vec::new(),
            table: Vec::new(),
        })
    }

    fn end_frame(&mut self) -> io::Result<()> {
        if self.input.is_empty() {
            return Ok(());
        }
        self.output.clear();
        self.output
            .reserve(zstd::zstd_safe::compress_bound(self.input.len()));
        let n = self
            .compressor
            .compress_to_buffer(&self.input, &mut self.output)?;
        self.out.write_all(&self.output[..n])?;
        let size = |n: usize| u32::try_from(n).map_err(|_| io::Error::other("a frame over 4 GiB"));
        self.table.push((size(n)?, size(self.input.len())?));
        self.input.clear();
        Ok(())
    }

    /// Writes the last frame and the seek table; returns the writer, flushed.
    pub fn finish(mut self) -> io::Result<W> {
        self.end_frame()?;
        let frames = u32::try_from(self.table.len())
            .map_err(|_| io::Error::other("too many frames for a seek table"))?;
        let mut t = Vec::with_capacity(8 * self.table.len() + 17);
        t.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
        t.extend_from_slice(&(8 * frames + FOOTER as u32).to_le_bytes());
        for (c, d) in &self.table {
            t.extend_from_slice(&c.to_le_bytes());
            t.extend_from_slice(&d.to_le_bytes());
        }
        t.extend_from_slice(&frames.to_le_bytes());
        t.push(0); // no checksums
        t.extend_from_slice(&SEEKABLE_MAGIC.to_le_bytes());
        self.out.write_all(&t)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Write for FramedZstd<W> {
    fn write(&mut self, mut bytes: &[u8]) -> io::Result<usize> {
        let n = bytes.len();
        while !bytes.is_empty() {
            let take = (self.frame - self.input.len()).min(bytes.len());
            self.input.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.input.len() == self.frame {
                self.end_frame()?;
            }
        }
        Ok(n)
    }

    /// Ends the frame being filled and flushes it out, so that an error writing the last bytes
    /// comes here, not at [`FramedZstd::finish`]. Writers flush once, at their end; a flush
    /// after every write would make frames as small as the writes.
    fn flush(&mut self) -> io::Result<()> {
        self.end_frame()?;
        self.out.flush()
    }
}

/// The seek table of a zstd file in the seekable format: where each frame starts, compressed
/// and decompressed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeekTable {
    /// Per frame: its first byte in the file and its first decompressed byte.
    starts: Vec<(u64, u64)>,
    /// Where the frames end in the file (the table's own frame follows) and the decompressed
    /// length.
    end: (u64, u64),
}

impl SeekTable {
    /// The table at the end of `file`, if it has one that fits the file: its entries add up
    /// to where the table starts. `None` otherwise (a zstd file written by one stream, any
    /// other file): such a file is read from its start, as before.
    pub fn read(file: &File) -> Option<SeekTable> {
        let len = file.metadata().ok()?.len();
        let mut footer = [0u8; FOOTER as usize];
        file.read_exact_at(&mut footer, len.checked_sub(FOOTER)?)
            .ok()?;
        let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let descriptor = footer[4];
        // reserved bits set: a later version of the format, not read here
        if word(&footer[5..]) != SEEKABLE_MAGIC || descriptor & 0x7C != 0 {
            return None;
        }
        let frames = u64::from(word(&footer[..4]));
        let entry = if descriptor & 0x80 != 0 { 12 } else { 8 };
        let size = frames.checked_mul(entry)? + FOOTER;
        if frames > MAX_FRAMES || size + 8 > len {
            return None;
        }
        let at = len - size - 8;
        let mut bytes = vec![0u8; (size + 8) as usize];
        file.read_exact_at(&mut bytes, at).ok()?;
        if word(&bytes[..4]) != SKIPPABLE_MAGIC || u64::from(word(&bytes[4..8])) != size {
            return None;
        }
        let mut starts = Vec::with_capacity(frames as usize);
        let (mut c, mut d) = (0u64, 0u64);
        for e in bytes[8..]
            .chunks_exact(entry as usize)
            .take(frames as usize)
        {
            starts.push((c, d));
            c += u64::from(word(&e[..4]));
            d += u64::from(word(&e[4..8]));
        }
        (c == at).then_some(SeekTable {
            starts,
            end: (c, d),
        })
    }

    /// The decompressed length of the file.
    pub fn decompressed_len(&self) -> u64 {
        self.end.1
    }

    /// The frame that holds decompressed byte `at`: its index, and where it starts in the file
    /// and decompressed. `None` past the end.
    pub fn frame_of(&self, at: u64) -> Option<(usize, u64, u64)> {
        if at >= self.end.1 {
            return None;
        }
        let i = self
            .starts
            .partition_point(|&(_, d)| d <= at)
            .checked_sub(1)?;
        let (c, d) = self.starts[i];
        Some((i, c, d))
    }

    /// Where the frames end in the file: where the table's own frame starts.
    pub fn frames_end(&self) -> u64 {
        self.end.0
    }

    /// How many frames the table lists.
    pub fn frames(&self) -> usize {
        self.starts.len()
    }

    /// Frame `i`: where it starts in the file, its compressed size and its decompressed size,
    /// as the table says. `None` past the last.
    pub fn frame(&self, i: usize) -> Option<(u64, u64, u64)> {
        let &(c, d) = self.starts.get(i)?;
        let (next_c, next_d) = self.starts.get(i + 1).copied().unwrap_or(self.end);
        Some((c, next_c - c, next_d - d))
    }

    /// The decompressed size of the frame that starts at decompressed byte `d` (for
    /// [`frame_fits`]).
    pub fn frame_len(&self, d: u64) -> u64 {
        let i = self.starts.partition_point(|&(_, s)| s <= d);
        self.starts.get(i).map_or(self.end.1, |&(_, s)| s) - d
    }
}

/// Whether the frame at `offset` of `file` starts as a zstd frame that says it holds
/// `content` bytes, or does not say: a table whose entries do not match the frames is not
/// followed (the read goes on from the start instead of failing where the table was wrong).
pub fn frame_fits(file: &File, offset: u64, content: u64) -> bool {
    let mut head = [0u8; 18];
    let Ok(n) = read_some_at(file, &mut head, offset) else {
        return false;
    };
    match zstd::zstd_safe::get_frame_content_size(&head[..n]) {
        Ok(Some(size)) => size == content,
        Ok(None) => true,
        Err(_) => false,
    }
}

fn read_some_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], offset + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn framed(text: &[u8], frame: usize, writes: usize) -> Vec<u8> {
        let mut w = FramedZstd::with_frames(Vec::new(), frame).unwrap();
        for part in text.chunks(writes.max(1)) {
            w.write_all(part).unwrap();
        }
        w.finish().unwrap()
    }

    fn file_of(bytes: &[u8]) -> (tempfile::NamedTempFile, File) {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        let file = File::open(f.path()).unwrap();
        (f, file)
    }

    fn text(n: usize) -> Vec<u8> {
        (0..n).map(|i| b"abcdefghij\n"[i % 11]).collect()
    }

    #[test]
    fn a_framed_file_is_one_zstd_stream_to_any_decoder() {
        for (n, frame, writes) in [
            (0, 4, 1),
            (1, 4, 1),
            (100, 7, 3),
            (100, 10, 100),
            (5000, 1000, 333),
        ] {
            let text = text(n);
            let bytes = framed(&text, frame, writes);
            let mut back = Vec::new();
            zstd::Decoder::new(&bytes[..])
                .unwrap()
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back, text, "{n} bytes in frames of {frame}");
        }
    }

    #[test]
    fn the_table_gives_each_frame_where_it_starts() {
        let text = text(25);
        let bytes = framed(&text, 10, 3);
        let (_f, file) = file_of(&bytes);
        let table = SeekTable::read(&file).expect("a seek table");
        assert_eq!(table.decompressed_len(), 25);
        assert_eq!(
            table.starts.iter().map(|s| s.1).collect::<Vec<_>>(),
            [0, 10, 20]
        );
        // each frame decompresses alone, from where the table says it starts
        for at in [0, 9, 10, 19, 20, 24] {
            let (i, c, d) = table.frame_of(at).unwrap();
            assert_eq!((i, d), (at as usize / 10, at / 10 * 10));
            let end = table.frames_end();
            assert!(frame_fits(&file, c, table.frame_len(d)));
            let mut back = Vec::new();
            zstd::Decoder::new(&bytes[c as usize..end as usize])
                .unwrap()
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back, text[d as usize..], "from byte {at}");
        }
        assert_eq!(table.frame_of(25), None);
    }

    #[test]
    fn a_file_without_a_table_that_fits_has_none() {
        let plain = zstd::encode_all(&text(100)[..], 1).unwrap();
        assert_eq!(SeekTable::read(&file_of(&plain).1), None, "one stream");
        assert_eq!(SeekTable::read(&file_of(b"").1), None, "empty");
        assert_eq!(SeekTable::read(&file_of(b"short").1), None, "short");
        let good = framed(&text(30), 10, 7);
        let n = good.len();
        // a frame's compressed size one more: the entries no longer add up to the table
        let mut bad = good.clone();
        bad[n - 9 - 24 - 8 + 8] += 1; // the first entry's compressed size (after the header)
        assert_eq!(SeekTable::read(&file_of(&bad).1), None, "entries off");
        let mut reserved = good.clone();
        reserved[n - 5] = 0x04;
        assert_eq!(
            SeekTable::read(&file_of(&reserved).1),
            None,
            "reserved bits"
        );
        let mut magic = good.clone();
        magic[n - 1] ^= 1;
        assert_eq!(SeekTable::read(&file_of(&magic).1), None, "magic");
        let mut frames = good;
        frames[n - 9] = 0xFF; // 255 frames claimed
        assert_eq!(SeekTable::read(&file_of(&frames).1), None, "frame count");
    }

    /// A table of [`MAX_FRAMES`] empty frames is the whole of a file, and fits it; one more is
    /// not read, so a crafted file cannot make paf hold the starts of millions of frames.
    #[test]
    fn a_table_of_more_than_max_frames_is_not_read() {
        let table = |frames: u64| {
            let mut t = Vec::new();
            t.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
            t.extend_from_slice(&((8 * frames + FOOTER) as u32).to_le_bytes());
            t.resize(8 + 8 * frames as usize, 0);
            t.extend_from_slice(&(frames as u32).to_le_bytes());
            t.push(0);
            t.extend_from_slice(&SEEKABLE_MAGIC.to_le_bytes());
            t
        };
        let at_most = SeekTable::read(&file_of(&table(MAX_FRAMES)).1).expect("a table");
        assert_eq!(at_most.frames() as u64, MAX_FRAMES);
        assert_eq!(SeekTable::read(&file_of(&table(MAX_FRAMES + 1)).1), None);
    }

    #[test]
    fn a_frame_that_says_another_size_does_not_fit() {
        let bytes = framed(&text(30), 10, 30);
        let (_f, file) = file_of(&bytes);
        let table = SeekTable::read(&file).unwrap();
        let (_, c, d) = table.frame_of(12).unwrap();
        assert!(frame_fits(&file, c, 10));
        assert!(!frame_fits(&file, c, 11));
        assert!(!frame_fits(&file, c + 1, 10), "not a frame's start");
        assert_eq!(table.frame_len(d), 10);
    }
}
