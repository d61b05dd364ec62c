//! Writing trace bundles (format v1): the counterpart of the reader, used by `paf synth`.
//!
//! Records are the reader's own [`raw`](super::raw) structs, so what paf writes is by
//! construction what it reads. Tests are written one at a time and never held in memory.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::raw::{Manifest, Statement};

/// How `tests.jsonl` is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Compression {
    #[default]
    None,
    Gzip,
    Zstd,
}

impl Compression {
    /// The compression of a file, by its name.
    pub fn of(path: &Path) -> Compression {
        match path.extension().and_then(|e| e.to_str()) {
            Some("gz") => Compression::Gzip,
            Some("zst") => Compression::Zstd,
            _ => Compression::None,
        }
    }

    pub fn suffix(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Gzip => ".gz",
            Compression::Zstd => ".zst",
        }
    }
}

/// The zstd level of every file paf compresses. Level 1 rather than zstd's default 3: on the
/// Java tracer's traces of four real suites it is both faster (13 to 33% less CPU) and smaller
/// (2 to 23%): la4j's 1.87 GB tests file 63.7 MB in 1.35 s against 82.7 MB in 1.8 s
/// (docs/performance.md, "Eleventh round").
pub const ZSTD_LEVEL: i32 = 1;

/// A buffered writer of a bundle file, compressed as asked on the calling thread (the tracer's
/// follower, `super::tail`; [`Behind`] runs one on a thread of its own). [`Encoder::finish`]
/// ends it: a gzip trailer, a zstd file's seek table; an encoder dropped unfinished leaves a
/// file paf rejects or (zstd without its table) reads from its start.
pub enum Encoder {
    Plain(BufWriter<File>),
    Gzip(flate2::write::GzEncoder<BufWriter<File>>),
    Zstd(super::seekable::FramedZstd<BufWriter<File>>),
}

impl Encoder {
    /// Bytes compressed as `compression` says into `file`.
    pub fn new(file: BufWriter<File>, compression: Compression) -> io::Result<Encoder> {
        Ok(match compression {
            Compression::None => Encoder::Plain(file),
            Compression::Gzip => Encoder::Gzip(flate2::write::GzEncoder::new(
                file,
                flate2::Compression::fast(),
            )),
            Compression::Zstd => Encoder::Zstd(super::seekable::FramedZstd::new(file)?),
        })
    }

    /// Creates `path` (truncating it) to hold bytes compressed as `compression` says.
    pub fn create(path: &Path, compression: Compression) -> io::Result<Encoder> {
        Encoder::new(
            BufWriter::with_capacity(1 << 20, File::create(path)?),
            compression,
        )
    }

    /// Writes what is left (the last frame, a trailer or seek table) and flushes the file.
    pub fn finish(self) -> io::Result<()> {
        match self {
            Encoder::Plain(mut w) => w.flush(),
            Encoder::Gzip(e) => e.finish()?.flush(),
            Encoder::Zstd(e) => e.finish().map(drop),
        }
    }

    fn inner(&mut self) -> &mut dyn Write {
        match self {
            Encoder::Plain(w) => w,
            Encoder::Gzip(e) => e,
            Encoder::Zstd(e) => e,
        }
    }
}

impl Write for Encoder {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.inner().write(bytes)
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.inner().write_all(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner().flush()
    }
}

/// The bytes [`Behind`] hands its thread at a time.
const BEHIND_CHUNK: usize = 1 << 20;

/// An [`Encoder`] on a thread of its own: what is written is handed to it in chunks of 1 MiB,
/// so that compressing and writing run beside the work that makes the bytes (the merge's
/// rewriting of lines, `paf convert`'s decompression, `paf synth`'s records): la4j's merge
/// took 3.0 to 3.2 s instead of 3.5 (docs/performance.md, "Thirtieth round"). Not for the
/// tracer's follower (`super::tail`), which already runs beside the tests. Dropped unfinished
/// (an error), it leaves the file unfinished too.
pub struct Behind {
    chunk: Vec<u8>,
    send: Option<std::sync::mpsc::SyncSender<Vec<u8>>>,
    thread: Option<std::thread::JoinHandle<io::Result<()>>>,
    /// Set when dropped unfinished: the thread then does not finish the file.
    abandoned: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Behind {
    /// Creates `path` (truncating it) to hold bytes compressed as `compression` says.
    pub fn create(path: &Path, compression: Compression) -> io::Result<Behind> {
        use std::sync::atomic::Ordering;
        let mut encoder = Encoder::create(path, compression)?;
        // Two chunks in flight: the thread compresses one while the next fills.
        let (send, chunks) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
        let abandoned = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = std::sync::Arc::clone(&abandoned);
        let thread = std::thread::Builder::new()
            .name("paf-encoder".into())
            .spawn(move || {
                for chunk in chunks {
                    encoder.write_all(&chunk)?;
                }
                if flag.load(Ordering::Relaxed) {
                    return Ok(());
                }
                encoder.finish()
            })?;
        Ok(Behind {
            chunk: Vec::with_capacity(BEHIND_CHUNK),
            send: Some(send),
            thread: Some(thread),
            abandoned,
        })
    }

    /// Hands the chunk filled so far to the thread; its error if it stopped on one.
    fn hand_on(&mut self) -> io::Result<()> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.chunk, Vec::with_capacity(BEHIND_CHUNK));
        match self.send.as_ref().map(|s| s.send(chunk)) {
            Some(Ok(())) => Ok(()),
            // The thread stopped: its error says why.
            _ => self
                .join()
                .and(Err(io::Error::other("the encoder stopped"))),
        }
    }

    /// Ends the thread: what it returned.
    fn join(&mut self) -> io::Result<()> {
        self.send = None;
        match self.thread.take() {
            Some(t) => t
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the encoder's thread panicked"))),
            None => Ok(()),
        }
    }

    /// Hands on the last bytes and waits for the thread to write them and finish the file.
    pub fn finish(mut self) -> io::Result<()> {
        self.hand_on()?;
        self.join()
    }
}

impl Write for Behind {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.chunk.extend_from_slice(bytes);
        if self.chunk.len() >= BEHIND_CHUNK {
            self.hand_on()?;
        }
        Ok(bytes.len())
    }

    /// Nothing: the bytes go out in chunks, and [`Behind::finish`] writes the last.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Behind {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.abandoned
                .store(true, std::sync::atomic::Ordering::Relaxed);
            let _ = self.join();
        }
    }
}

/// Writes `from` compressed to `to` (`paf trace java --gzip` or `--zstd`: the Java front end
/// writes plain JSON Lines and paf compresses them beside its analysis, with flate2's fastest
/// level or zstd's [`ZSTD_LEVEL`] in frames with a seek table, on one thread: the tests file is
/// compressed as the tests run, and this is for the small files and the rare tests file that
/// was not: docs/performance.md, "The tracer" and "Twenty-eighth round").
pub fn compress_file(from: &Path, to: &Path, compression: Compression) -> io::Result<()> {
    let mut input = File::open(from)?;
    let mut out = Encoder::create(to, compression)?;
    io::copy(&mut input, &mut out)?;
    out.finish()
}

/// Streams a bundle to a directory.
pub struct BundleWriter {
    dir: PathBuf,
    tests: Behind,
    line: Vec<u8>,
    /// Bytes and lines written to the tests file so far.
    written: u64,
    lines: u64,
    /// The lines of the tests file's marks (`tests.marks`, docs/trace-format.md) so far: where
    /// each header record is in its decompressed bytes. Written beside a compressed file too, as
    /// `paf trace java` keeps its agent's: a framed zstd file's reads jump by them.
    marks: String,
}

impl BundleWriter {
    /// Creates `dir` (if needed) and writes the manifest and the statement table.
    pub fn create(
        dir: &Path,
        manifest: &Manifest,
        statements: &[Statement],
        compression: Compression,
    ) -> io::Result<BundleWriter> {
        fs::create_dir_all(dir)?;
        // Stale files from an earlier bundle in the same directory would make it ambiguous.
        for name in [
            "tests.jsonl",
            "tests.jsonl.gz",
            "tests.jsonl.zst",
            "static-duas.jsonl",
            super::MARKS_FILE,
        ] {
            let _ = fs::remove_file(dir.join(name));
        }
        let mut m = serde_json::to_string_pretty(manifest)?;
        m.push('\n');
        fs::write(dir.join("manifest.json"), m)?;
        let mut st = BufWriter::new(File::create(dir.join("statements.jsonl"))?);
        for s in statements {
            serde_json::to_writer(&mut st, s)?;
            st.write_all(b"\n")?;
        }
        st.flush()?;
        let path = dir.join(format!("tests.jsonl{}", compression.suffix()));
        let tests = Behind::create(&path, compression)?;
        Ok(BundleWriter {
            dir: dir.to_path_buf(),
            tests,
            line: Vec::with_capacity(256),
            written: 0,
            lines: 0,
            marks: String::new(),
        })
    }

    /// The next record is a test's begin record (`begin`) or its end record: its place goes
    /// into the marks.
    pub fn mark(&mut self, begin: bool) {
        use std::fmt::Write as _;
        let kind = if begin { 'b' } else { 'e' };
        let _ = writeln!(self.marks, "{kind} {} {}", self.written, self.lines + 1);
    }

    /// Appends one record of `tests.jsonl`.
    pub fn record(&mut self, record: &impl serde::Serialize) -> io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, record)?;
        self.line.push(b'\n');
        self.written += self.line.len() as u64;
        self.lines += 1;
        self.tests.write_all(&self.line)
    }

    /// Writes a file next to the bundle's own (e.g. a ground-truth CSV).
    pub fn side_file(&self, name: &str, contents: &str) -> io::Result<()> {
        fs::write(self.dir.join(name), contents)
    }

    /// Flushes everything and writes the marks; the bundle is complete when this returns.
    pub fn finish(self) -> io::Result<()> {
        self.tests.finish()?;
        fs::write(
            self.dir.join(super::MARKS_FILE),
            format!("paf-marks 1 {}\n{}", self.written, self.marks),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn decoded(path: &Path) -> Vec<u8> {
        let (mut r, _) = super::super::lines::open_decoded(path).unwrap();
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        out
    }

    /// What goes into a `Behind` in pieces of any size comes out of the file, in order, for
    /// each compression; a zstd file gets its seek table.
    #[test]
    fn a_behind_writes_what_it_was_given_in_order() {
        let dir = tempfile::tempdir().unwrap();
        // 3.5 chunks of numbered lines, so that order and chunk edges show.
        let bytes: Vec<u8> = (0..)
            .flat_map(|i: u64| format!("{i}\n").into_bytes())
            .take(7 * BEHIND_CHUNK / 2)
            .collect();
        for c in [Compression::None, Compression::Gzip, Compression::Zstd] {
            let path = dir.path().join(format!("t.jsonl{}", c.suffix()));
            let mut w = Behind::create(&path, c).unwrap();
            for piece in bytes.chunks(100_003) {
                w.write_all(piece).unwrap();
            }
            w.finish().unwrap();
            assert!(decoded(&path) == bytes, "{c:?}");
        }
        let file = File::open(dir.path().join("t.jsonl.zst")).unwrap();
        let table = super::super::seekable::SeekTable::read(&file).unwrap();
        assert_eq!(table.decompressed_len(), bytes.len() as u64);
    }

    /// An error of the thread's writes comes back, from a later write or from `finish`; a
    /// `Behind` dropped unfinished does not finish the file (no seek table).
    #[test]
    fn a_behind_reports_its_threads_error_and_leaves_an_abandoned_file_unfinished() {
        let mut w = Behind::create(Path::new("/dev/full"), Compression::None).unwrap();
        let chunk = vec![b'x'; BEHIND_CHUNK];
        let mut failed = false;
        for _ in 0..8 {
            if w.write_all(&chunk).is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed || w.finish().is_err(), "no space left, and no error");

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl.zst");
        let mut w = Behind::create(&path, Compression::Zstd).unwrap();
        w.write_all(&vec![b'y'; 3 * BEHIND_CHUNK]).unwrap();
        drop(w);
        let file = File::open(&path).unwrap();
        assert!(super::super::seekable::SeekTable::read(&file).is_none());
    }
}
