//! The syntax-only parse floor of a bundle: how fast serde_json can merely check the JSON of
//! every line of its tests file, on N threads. `scripts/bench.sh` runs it beside `paf rank` on
//! the same bundle, so that rank's time has a yardstick measured on the same machine, in the
//! same minute.
//!
//! Usage: `parse_floor BUNDLE_DIR [-j N]` (N: threads that parse; default one per core).
//! Prints one line: `parse_floor: BYTES bytes, LINES lines, SECONDS s, MB/s` (decimal MB,
//! the tests file's decompressed bytes).
//!
//! Fair to the engine and no fairer: the tests file is opened and decompressed as paf opens it
//! (`paf::trace::lines::open_decoded`), read in 1 MiB chunks cut at a line end on the calling
//! thread, and the chunks are dealt in turn to the threads, which split them into lines and
//! parse each non-blank line with `serde_json::from_slice::<IgnoredAny>`: no UTF-8 check of
//! its own, no record built, no test assembled.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc::{Receiver, sync_channel};
use std::time::Instant;

use serde::de::IgnoredAny;

/// Bytes read per step (the engine's scanner reads 1 MiB chunks too).
const CHUNK: usize = 1 << 20;
/// Chunks queued per thread before the reader waits.
const QUEUE: usize = 4;

/// What one thread found in its chunks.
#[derive(Default)]
struct Count {
    lines: u64,
    bad: u64,
}

fn main() -> ExitCode {
    match run() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("parse_floor: {message}");
            ExitCode::from(2)
        }
    }
}

/// Parses the arguments, measures, and says what it measured (or why it could not).
fn run() -> Result<String, String> {
    let (dir, jobs) = args()?;
    let path = tests_file(&dir)?;
    let start = Instant::now();
    let (bytes, count) = parse(&path, jobs)?;
    let seconds = start.elapsed().as_secs_f64();
    if count.bad > 0 {
        return Err(format!(
            "{}: {} of {} lines are not JSON: expected a valid bundle",
            path.display(),
            count.bad,
            count.lines
        ));
    }
    Ok(format!(
        "parse_floor: {bytes} bytes, {} lines, {seconds:.3} s, {:.1} MB/s",
        count.lines,
        bytes as f64 / 1e6 / seconds.max(1e-9)
    ))
}

/// `BUNDLE_DIR [-j N]`.
fn args() -> Result<(PathBuf, usize), String> {
    const USAGE: &str = "usage: parse_floor BUNDLE_DIR [-j N]";
    let mut dir = None;
    let mut jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-j" => {
                let n = args.next().ok_or(USAGE)?;
                jobs = match n.parse::<usize>() {
                    Ok(n) if n > 0 => n,
                    _ => return Err(format!("-j {n}: expected a positive number of threads")),
                };
            }
            _ if dir.is_none() && !arg.starts_with('-') => dir = Some(PathBuf::from(arg)),
            _ => return Err(USAGE.to_string()),
        }
    }
    Ok((dir.ok_or(USAGE)?, jobs))
}

/// The bundle's tests file, plain or compressed, as `paf` finds it.
fn tests_file(dir: &Path) -> Result<PathBuf, String> {
    ["tests.jsonl", "tests.jsonl.gz", "tests.jsonl.zst"]
        .iter()
        .map(|name| dir.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("{}: no tests.jsonl(.gz|.zst) in it", dir.display()))
}

/// Reads the file on the calling thread and parses its lines on `jobs` threads: the bytes
/// read (decompressed) and the lines counted.
fn parse(path: &Path, jobs: usize) -> Result<(u64, Count), String> {
    let (mut input, _) = paf::trace::lines::open_decoded(path).map_err(|p| p.to_string())?;
    std::thread::scope(|scope| {
        let mut senders = Vec::with_capacity(jobs);
        let mut workers = Vec::with_capacity(jobs);
        for _ in 0..jobs {
            let (tx, rx) = sync_channel::<Vec<u8>>(QUEUE);
            senders.push(tx);
            workers.push(scope.spawn(move || work(&rx)));
        }
        let read = deal(&mut input, &senders).map_err(|e| format!("{}: {e}", path.display()));
        drop(senders);
        let mut total = Count::default();
        for w in workers {
            // A worker only parses; a panic there is a bug of this tool, worth its message.
            let c = w.join().expect("a parsing thread panicked");
            total.lines += c.lines;
            total.bad += c.bad;
        }
        Ok((read?, total))
    })
}

/// Reads chunks that end at a line end and deals them in turn to the senders; the bytes read.
fn deal(
    input: &mut dyn Read,
    senders: &[std::sync::mpsc::SyncSender<Vec<u8>>],
) -> std::io::Result<u64> {
    let mut total = 0u64;
    let mut carry: Vec<u8> = Vec::new();
    let mut turn = 0;
    loop {
        let mut chunk = Vec::with_capacity(CHUNK + carry.len());
        chunk.append(&mut carry);
        let before = chunk.len();
        let n = (&mut *input).take(CHUNK as u64).read_to_end(&mut chunk)?;
        total += n as u64;
        if n == 0 {
            if !chunk.is_empty() {
                let _ = senders[turn % senders.len()].send(chunk);
            }
            return Ok(total);
        }
        // Complete lines go now; the unfinished last one waits for the next chunk.
        match memchr::memrchr(b'\n', &chunk[before..]) {
            Some(i) => carry.extend_from_slice(&chunk[before + i + 1..]),
            None => {
                carry = chunk;
                continue;
            }
        }
        chunk.truncate(chunk.len() - carry.len());
        if senders[turn % senders.len()].send(chunk).is_err() {
            return Ok(total);
        }
        turn += 1;
    }
}

/// Parses every non-blank line of the chunks it receives.
fn work(rx: &Receiver<Vec<u8>>) -> Count {
    let mut count = Count::default();
    for chunk in rx {
        let mut start = 0;
        let ends = memchr::memchr_iter(b'\n', &chunk).chain(std::iter::once(chunk.len()));
        for end in ends {
            let line = &chunk[start..end];
            start = end + 1;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            count.lines += 1;
            if serde_json::from_slice::<IgnoredAny>(line).is_err() {
                count.bad += 1;
            }
        }
    }
    count
}
