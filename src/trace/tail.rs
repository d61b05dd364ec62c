//! Compressing a tests file while the tracer still writes it, and keeping the result only if
//! the finished file is byte for byte what was compressed.
//!
//! `paf trace java` compresses the bundle it writes (zstd by default). Compressing after the
//! tests ran put the whole compression on the user's wait (about a tenth of a large suite's
//! traced run); following the worker's part file as it grows does the same work on the core
//! the single-threaded tests leave mostly idle. The tracer may still rewrite what it wrote (a
//! test compacted at the event cap, a part repaired after a crash) or assemble a new file from
//! several JVMs' parts: so the result is checked against the finished file (same file, same
//! length, same 128-bit XXH3 of its bytes) and, when they differ, dropped for a compression of
//! the finished file. Whatever the timing, the bundle holds exactly the finished file.
//!
//! Reading the finished file again for its hash took 0.1 to 0.4 s after the tests of suites of
//! hundreds of megabytes, beside paf's own pass over it (docs/performance.md, "Fifteenth
//! round"). When the writer says the file only grew, to the length it has ([`Word::grew_to`]),
//! the same file at the same length is enough: bytes that were only appended are the bytes the
//! follower read.
//!
//! A file cut below what was read (a test compacted at the event cap) is no longer followed:
//! what was compressed cannot be the finished file, which is compressed after the tests, and
//! the core is left to the tests and the compactor (docs/performance.md, "Seventeenth round").
//! So the agent publishes a fence beside the file (`tests.N.fence`: the start of the running
//! test, below which the file never changes), and while the writer runs the follower reads no
//! further: a test's cuts are then above what it read, and only the last test is left for after
//! the tests (docs/performance.md, "Twenty-first round"). Without a fence file it reads as the
//! file grows. The writer's word that it never cut below the fence ([`Word::fenced_to`]) then
//! spares reading the file again, as the word that it only grew does: a follower that read no
//! further than the fence while the writer ran read bytes that never changed.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use xxhash_rust::xxh3::Xxh3;

use super::write::{Compression, Encoder};

/// How long the follower waits for more bytes when it has caught up with the writer. It only
/// sets how far behind the compression may lag; no result depends on it. The wait is a park
/// that [`Tail::finish`] cuts short: a sleep made paf wait up to this long after the writer was
/// done, on every run's way to its exit (docs/performance.md, "Twenty-third round").
const POLL: Duration = Duration::from_millis(20);
const BUFFER: usize = 1 << 20;

/// What was compressed: the file (device and inode), its length and its bytes' hash, and
/// whether the follower kept below the writer's fence while the writer ran.
#[derive(Debug, PartialEq, Eq)]
struct Followed {
    dev: u64,
    ino: u64,
    len: u64,
    hash: u128,
    fenced: bool,
}

/// The writer's word on the finished file, which spares reading it again (`paf trace java`:
/// the supervisor's `.work/tests.appended` and `.work/tests.fenced`, docs/java.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Word {
    /// The file was only ever appended to, up to this length.
    pub grew_to: Option<u64>,
    /// The file has this length, and was never cut below the fence published beside it.
    pub fenced_to: Option<u64>,
}

/// A thread compressing a file as it grows, until [`Tail::finish`].
pub struct Tail {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<io::Result<Option<Followed>>>,
    to: PathBuf,
}

impl Tail {
    /// Follows `from` (waiting for it to appear) and compresses it into `to`.
    pub fn start(from: PathBuf, to: PathBuf, compression: Compression) -> Tail {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let out = to.clone();
        let thread = std::thread::spawn(move || follow(&from, &out, compression, &flag));
        Tail { stop, thread, to }
    }

    /// The writer is done: compresses what is left and returns whether `to` now holds `done`
    /// compressed (the same file as the one followed, unchanged since). When it does not, `to`
    /// is removed. `None` for `done` only stops the follower (the run failed). With the
    /// writer's `word` for the length followed, the bytes are not read again.
    pub fn finish(self, done: Option<&Path>, word: Word) -> io::Result<bool> {
        self.stop.store(true, Ordering::Release);
        // a park that comes after this returns at once: no wake-up is lost
        self.thread.thread().unpark();
        let followed = self
            .thread
            .join()
            .map_err(|_| io::Error::other("the compression thread panicked"))?;
        let kept = match (followed, done) {
            (Ok(Some(f)), Some(done)) => same(&f, done, word)?,
            _ => false,
        };
        if !kept {
            let _ = std::fs::remove_file(&self.to);
        }
        Ok(kept)
    }
}

fn follow(
    from: &Path,
    to: &Path,
    compression: Compression,
    stop: &AtomicBool,
) -> io::Result<Option<Followed>> {
    let file = loop {
        // the flag is read before the open: a file that appears after a stop is not followed
        let stopped = stop.load(Ordering::Acquire);
        match File::open(from) {
            Ok(f) => break f,
            Err(e) if e.kind() == io::ErrorKind::NotFound && !stopped => {
                std::thread::park_timeout(POLL)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        }
    };
    let mut following = Following::beside(file, from, to, compression)?;
    loop {
        // read after the flag: once the writer is done, the next reads reach the true end
        let stopped = stop.load(Ordering::Acquire);
        match following.step(stopped)? {
            Step::Read => {}
            Step::Cut => return Ok(None),
            Step::CaughtUp if stopped => break,
            Step::CaughtUp => std::thread::park_timeout(POLL),
        }
    }
    following.finish().map(Some)
}

/// What one read of a followed file found.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// Bytes past what was read: compressed.
    Read,
    /// Nothing more for now.
    CaughtUp,
    /// The file is shorter than what was read: it was cut.
    Cut,
}

/// A file being compressed as it grows: what was read of it, compressed and hashed.
struct Following {
    file: File,
    /// Compresses on the follower's own thread, never more (not `write::Behind`): the tests run
    /// beside it.
    encoder: Encoder,
    hash: Xxh3,
    len: u64,
    dev: u64,
    ino: u64,
    buf: Vec<u8>,
    /// The writer's fence file, and the highest fence read from it.
    fence: Option<(File, u64)>,
}

/// The fence in a fence file: a position and its complement, little-endian (`paf.rt.Out`);
/// `None` while they do not match (none written yet, or a store caught half done).
fn fence_in(file: &File) -> io::Result<Option<u64>> {
    let mut b = [0u8; 16];
    match file.read_exact_at(&mut b, 0) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    // both little-endian: the position in the low half, its complement in the high one
    let both = u128::from_le_bytes(b);
    let (at, check) = (both as u64, (both >> 64) as u64);
    Ok((check == !at).then_some(at))
}

impl Following {
    fn new(file: File, to: &Path, compression: Compression) -> io::Result<Following> {
        let meta = file.metadata()?;
        let out = BufWriter::with_capacity(BUFFER, File::create(to)?);
        Ok(Following {
            file,
            encoder: Encoder::new(out, compression)?,
            hash: Xxh3::new(),
            len: 0,
            dev: meta.dev(),
            ino: meta.ino(),
            buf: vec![0u8; BUFFER],
            fence: None,
        })
    }

    /// Follows `file`, opened from `from`, with the fence beside it if there is one. Opened
    /// after the file: the agent makes the fence's file first.
    fn beside(
        file: File,
        from: &Path,
        to: &Path,
        compression: Compression,
    ) -> io::Result<Following> {
        let fence = File::open(from.with_extension("fence")).ok();
        Ok(Following::new(file, to, compression)?.fenced(fence))
    }

    /// Follows the writer's fence in `file` (none: reads as the file grows).
    fn fenced(mut self, file: Option<File>) -> Following {
        self.fence = file.map(|f| (f, 0));
        self
    }

    /// Reads what the file holds past what was read: below the writer's fence until the writer
    /// is done (`done`), all of it then.
    fn step(&mut self, done: bool) -> io::Result<Step> {
        let mut want = self.buf.len();
        if let Some((file, at)) = self.fence.as_mut().filter(|_| !done) {
            // a fence only moves on; a lower one read is a store caught half done or stale
            if let Some(f) = fence_in(file)? {
                *at = (*at).max(f);
            }
            let left = at.saturating_sub(self.len);
            if left == 0 {
                return Ok(Step::CaughtUp);
            }
            want = want.min(usize::try_from(left).unwrap_or(usize::MAX));
        }
        let n = self.file.read(&mut self.buf[..want])?;
        if n > 0 {
            self.hash.update(&self.buf[..n]);
            self.encoder.write_all(&self.buf[..n])?;
            self.len += n as u64;
            return Ok(Step::Read);
        }
        // cut below what was read (a test compacted at the event cap): what was compressed is
        // not the finished file. Reading on would compress bytes at offsets that no longer hold
        // them, on the core the compactor shares with the tests; following the file again from
        // its start after each cut cost joda-time 0.4 s for 0.1 s saved after the tests
        // (docs/performance.md, "Seventeenth round")
        if self.file.metadata()?.len() < self.len {
            return Ok(Step::Cut);
        }
        Ok(Step::CaughtUp)
    }

    fn finish(self) -> io::Result<Followed> {
        self.encoder.finish()?;
        Ok(Followed {
            dev: self.dev,
            ino: self.ino,
            len: self.len,
            hash: self.hash.digest128(),
            fenced: self.fence.is_some(),
        })
    }
}

/// Whether `done` is the followed file with the followed bytes: read again and hashed, unless
/// the writer said it only grew to the length followed, or, to a follower that kept below its
/// fence, that it never cut below the fence.
fn same(f: &Followed, done: &Path, word: Word) -> io::Result<bool> {
    let meta = match std::fs::metadata(done) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    if (meta.dev(), meta.ino(), meta.len()) != (f.dev, f.ino, f.len) {
        return Ok(false);
    }
    if word.grew_to == Some(f.len) || (f.fenced && word.fenced_to == Some(f.len)) {
        return Ok(true);
    }
    let mut file = File::open(done)?;
    let mut hash = Xxh3::new();
    let mut buf = vec![0u8; BUFFER];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hash.update(&buf[..n]);
    }
    Ok(hash.digest128() == f.hash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;

    /// The writer's word that the file only grew, to `len`.
    fn grew(len: u64) -> Word {
        Word {
            grew_to: Some(len),
            fenced_to: None,
        }
    }

    fn decompress(path: &Path) -> Vec<u8> {
        zstd::decode_all(File::open(path).unwrap()).unwrap()
    }

    #[test]
    fn a_file_written_before_the_stop_is_kept_compressed() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("t.jsonl"), dir.path().join("t.jsonl.zst"));
        let tail = Tail::start(from.clone(), to.clone(), Compression::Zstd);
        let mut f = File::create(&from).unwrap();
        for i in 0..1000 {
            writeln!(f, "{{\"k\":\"use\",\"frame\":{i}}}").unwrap();
        }
        drop(f);
        // the file exists before the stop: the follower reads all of it, whenever it opened it
        assert!(tail.finish(Some(&from), Word::default()).unwrap());
        assert_eq!(decompress(&to), std::fs::read(&from).unwrap());
    }

    #[test]
    fn the_file_followed_may_be_moved() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("t.jsonl"), dir.path().join("t.jsonl.zst"));
        std::fs::write(&from, b"{\"k\":\"begin\"}\n").unwrap();
        let followed = follow(&from, &to, Compression::Gzip, &AtomicBool::new(true)).unwrap();
        let done = dir.path().join("done.jsonl");
        std::fs::rename(&from, &done).unwrap(); // as the supervisor moves the part into place
        assert!(same(&followed.unwrap(), &done, Word::default()).unwrap());
        let gz = flate2::read::GzDecoder::new(File::open(&to).unwrap());
        assert_eq!(io::read_to_string(gz).unwrap(), "{\"k\":\"begin\"}\n");
    }

    /// A tests file of two records in `dir`, followed to its end and compressed with zstd.
    fn two_records_followed(dir: &Path) -> (PathBuf, Followed) {
        let (from, to) = (dir.join("t.jsonl"), dir.join("t.jsonl.zst"));
        std::fs::write(&from, b"{\"k\":\"begin\"}\n{\"k\":\"end\"}\n").unwrap();
        // stopped from the start: follows the file to its end, here and now
        let stop = AtomicBool::new(true);
        let followed = follow(&from, &to, Compression::Zstd, &stop).unwrap();
        (from, followed.unwrap())
    }

    #[test]
    fn a_file_rewritten_in_place_is_not_the_one_followed() {
        let dir = tempfile::tempdir().unwrap();
        let (from, followed) = two_records_followed(dir.path());
        assert!(same(&followed, &from, Word::default()).unwrap());
        // the same file and length, other bytes (a compaction or a repair rewrites in place)
        std::fs::write(&from, b"{\"k\":\"begin\"}\n{\"k\":\"END\"}\n").unwrap();
        assert_eq!(std::fs::metadata(&from).unwrap().ino(), followed.ino);
        assert!(!same(&followed, &from, Word::default()).unwrap());
        // a writer's word for another length is not taken: the bytes are read
        assert!(!same(&followed, &from, grew(followed.len + 1)).unwrap());
        std::fs::write(&from, b"{\"k\":\"begin\"}\n").unwrap();
        assert!(!same(&followed, &from, Word::default()).unwrap());
        assert!(!same(&followed, &from, grew(followed.len)).unwrap());
    }

    #[test]
    fn a_file_cut_below_what_was_read_is_no_longer_followed() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("t.jsonl"), dir.path().join("t.jsonl.zst"));
        std::fs::write(&from, b"{\"k\":\"begin\"}\n{\"k\":\"def\"}\n").unwrap();
        let file = File::open(&from).unwrap();
        let mut following = Following::new(file, &to, Compression::Zstd).unwrap();
        while following.step(false).unwrap() == Step::Read {}
        assert_eq!(following.step(false).unwrap(), Step::CaughtUp);
        // compacted: cut below what was read, and written on (the same file)
        let cut = OpenOptions::new().write(true).open(&from).unwrap();
        cut.set_len(14).unwrap();
        drop(cut);
        let mut more = OpenOptions::new().append(true).open(&from).unwrap();
        more.write_all(b"{\"k\":\"x\"}\n").unwrap();
        assert_eq!(following.step(false).unwrap(), Step::Cut);
    }

    /// Writes the fence `at` as the agent does, or a store caught half done.
    fn fence(path: &Path, at: u64, check: u64) {
        let mut b = at.to_le_bytes().to_vec();
        b.extend_from_slice(&check.to_le_bytes());
        std::fs::write(path, b).unwrap();
    }

    #[test]
    fn a_fenced_file_is_read_up_to_the_fence_and_cut_above_it() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("t.0.jsonl"), dir.path().join("t.jsonl.zst"));
        let fence_file = dir.path().join("t.0.fence");
        let first = b"{\"k\":\"begin\"}\n{\"k\":\"end\"}\n"; // 26 bytes: a test written
        let mut body = first.to_vec();
        body.extend_from_slice(b"{\"k\":\"begin\"}\n{\"k\":\"def\"}\n"); // the running test
        std::fs::write(&from, &body).unwrap();
        fence(&fence_file, 0, !0);
        let mut following = Following::new(File::open(&from).unwrap(), &to, Compression::Zstd)
            .unwrap()
            .fenced(Some(File::open(&fence_file).unwrap()));
        // at the fence (no test begun yet): nothing read
        assert_eq!(following.step(false).unwrap(), Step::CaughtUp);
        assert_eq!(following.len, 0);
        // the running test begins at byte 26: only the test before is read
        fence(&fence_file, 26, !26);
        while following.step(false).unwrap() == Step::Read {}
        assert_eq!(following.len, 26);
        // the running test compacted: cut above the fence, and written on; nothing was read there
        let cut = OpenOptions::new().write(true).open(&from).unwrap();
        cut.set_len(40).unwrap();
        drop(cut);
        let mut more = OpenOptions::new().append(true).open(&from).unwrap();
        more.write_all(b"{\"k\":\"x\"}\n{\"k\":\"end\"}\n").unwrap();
        drop(more);
        assert_eq!(following.step(false).unwrap(), Step::CaughtUp);
        // a fence caught half written is not taken, nor a lower one
        fence(&fence_file, 64, !26);
        assert_eq!(following.step(false).unwrap(), Step::CaughtUp);
        fence(&fence_file, 14, !14);
        assert_eq!(following.step(false).unwrap(), Step::CaughtUp);
        assert_eq!(following.len, 26);
        // the writer is done: the rest, whatever the fence
        while following.step(true).unwrap() == Step::Read {}
        assert_eq!(following.step(true).unwrap(), Step::CaughtUp);
        let followed = following.finish().unwrap();
        assert!(same(&followed, &from, Word::default()).unwrap());
        assert_eq!(decompress(&to), std::fs::read(&from).unwrap());
        // other bytes at the same length: the writer's word that it never cut below the fence
        // is taken from a follower that kept below it, so it must be true
        let len = followed.len;
        let mut other = std::fs::read(&from).unwrap();
        other[0] = b' ';
        std::fs::write(&from, &other).unwrap();
        let fenced = |len| Word {
            grew_to: None,
            fenced_to: Some(len),
        };
        assert!(same(&followed, &from, fenced(len)).unwrap());
        assert!(!same(&followed, &from, fenced(len + 1)).unwrap());
        assert!(!same(&followed, &from, Word::default()).unwrap());
    }

    #[test]
    fn the_fenced_word_is_not_taken_from_a_follower_without_a_fence() {
        let dir = tempfile::tempdir().unwrap();
        let (from, followed) = two_records_followed(dir.path());
        assert!(!followed.fenced);
        std::fs::write(&from, b"{\"k\":\"begin\"}\n{\"k\":\"END\"}\n").unwrap();
        let word = Word {
            grew_to: None,
            fenced_to: Some(followed.len),
        };
        assert!(!same(&followed, &from, word).unwrap());
    }

    #[test]
    fn the_follower_takes_the_fence_file_beside_the_tests_file() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (
            dir.path().join("tests.0.jsonl"),
            dir.path().join("t.jsonl.zst"),
        );
        std::fs::write(&from, b"{\"k\":\"begin\"}\n").unwrap();
        let open = || {
            Following::beside(File::open(&from).unwrap(), &from, &to, Compression::Zstd).unwrap()
        };
        // no fence file: read as it grows
        assert_eq!(open().step(false).unwrap(), Step::Read);
        // a fence file beside it, no test begun yet: nothing read until the writer is done
        fence(&dir.path().join("tests.0.fence"), 0, !0);
        let mut fenced = open();
        assert_eq!(fenced.step(false).unwrap(), Step::CaughtUp);
        assert_eq!(fenced.step(true).unwrap(), Step::Read);
        // as the agent makes it before its first test: 16 zero bytes, no fence yet
        fence(&dir.path().join("tests.0.fence"), 0, 0);
        assert_eq!(open().step(false).unwrap(), Step::CaughtUp);
    }

    #[test]
    fn a_file_that_only_grew_is_kept_without_reading_it_again() {
        let dir = tempfile::tempdir().unwrap();
        let (from, followed) = two_records_followed(dir.path());
        // other bytes at the same length: the writer's word is taken, so it must be true
        // (the agent gives it only when it never cut its file, Out.cuts)
        std::fs::write(&from, b"{\"k\":\"begin\"}\n{\"k\":\"END\"}\n").unwrap();
        assert!(same(&followed, &from, grew(followed.len)).unwrap());
        assert!(!same(&followed, &from, Word::default()).unwrap());
    }

    #[test]
    fn another_file_in_its_place_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("t.jsonl"), dir.path().join("t.jsonl.zst"));
        std::fs::write(&from, b"{\"k\":\"begin\"}\n").unwrap();
        let tail = Tail::start(from.clone(), to.clone(), Compression::Gzip);
        let other = dir.path().join("assembled.jsonl");
        std::fs::write(&other, b"{\"k\":\"begin\"}\n").unwrap();
        assert!(!tail.finish(Some(&other), grew(14)).unwrap());
        assert!(!to.exists());
    }

    #[test]
    fn a_file_that_never_appears_stops_the_follower() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("t.jsonl"), dir.path().join("t.jsonl.zst"));
        let tail = Tail::start(from.clone(), to.clone(), Compression::Zstd);
        assert!(!tail.finish(Some(&from), Word::default()).unwrap());
        assert!(!to.exists());
        let tail = Tail::start(from, to.clone(), Compression::Zstd);
        assert!(!tail.finish(None, Word::default()).unwrap());
    }
}
