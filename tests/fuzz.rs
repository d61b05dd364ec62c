//! The fuzzing harness (docs/robustness.md): seeded structure-aware and byte-level mutants of
//! every shipped bundle and of synthetic ones, compressed (zstd in frames too), truncated, bombs
//! and special files, each run through `paf validate` and `paf rank`; and mutants of od
//! reports, truth, ranking and clusters files and runner results through their readers
//! in-process. Every mutant must end
//! with exit code 0 or 2, never panic or hang, stay under the memory bound, make `validate` and
//! `rank` agree, and leave no failing test out of a ranking.
//!
//! `cargo test --test fuzz` tries a few dozen mutants of each kind; `PAF_FUZZ_MUTANTS=N` sets
//! the number of bundle mutants (the in-process readers get ten times as many) and
//! `PAF_FUZZ_SEED=S` the seed; `-- --nocapture` prints the figures.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

mod common;
use common::{measured, root};

/// The memory bound docs/performance.md states for any bundle (a debug build is measured
/// here, which is larger than a release build).
const MEMORY_BOUND_KIB: u64 = 256 * 1024;
/// Only a hang reaches it: each run takes well under a second.
const WATCHDOG: Duration = Duration::from_secs(300);

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A bundle in memory: file name -> bytes (decompressed, as written).
type Files = BTreeMap<String, Vec<u8>>;

/// What the harness found.
#[derive(Default, Debug)]
struct Figures {
    bundles: u64,
    runs: u64,
    ok: u64,
    rejected: u64,
    bad_exit: Vec<String>,
    panics: Vec<String>,
    hangs: Vec<String>,
    disagreements: Vec<String>,
    lost: Vec<String>,
    over_memory: Vec<String>,
    max_rss_kib: u64,
    readers: u64,
    reader_panics: Vec<String>,
}

impl Figures {
    fn failures(&self) -> usize {
        self.bad_exit.len()
            + self.panics.len()
            + self.hangs.len()
            + self.disagreements.len()
            + self.lost.len()
            + self.over_memory.len()
            + self.reader_panics.len()
    }
}

/// The seed bundles: every shipped one and two synthetic ones.
fn corpus(dir: &Path) -> Vec<(String, Files)> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for parent in ["traces", "testdata/java", "testdata/eval"] {
        for e in std::fs::read_dir(root().join(parent)).unwrap() {
            let p = e.unwrap().path();
            for candidate in [p.clone(), p.join("bundle")] {
                if candidate.join("manifest.json").is_file() {
                    dirs.push(candidate);
                }
            }
        }
    }
    for (i, seed) in [1u64, 2].iter().enumerate() {
        let out = dir.join(format!("synth{i}"));
        let config = paf::synth::SynthConfig {
            failing: 4,
            passing: 12,
            events_per_test: 30,
            seed: *seed,
            compression: paf::trace::write::Compression::None,
            order_dependent: i,
        };
        paf::synth::generate(&config, &out).unwrap();
        dirs.push(out);
    }
    dirs.sort();
    dirs.into_iter()
        .map(|d| {
            let mut files = Files::new();
            for f in paf::trace::BUNDLE_FILES {
                if let Ok(bytes) = std::fs::read(d.join(f)) {
                    files.insert(f.to_string(), decompress(f, &bytes));
                }
            }
            (d.display().to_string(), files)
        })
        .collect()
}

fn decompress(name: &str, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if name.ends_with(".gz") {
        flate2::read::MultiGzDecoder::new(bytes)
            .read_to_end(&mut out)
            .unwrap();
    } else if name.ends_with(".zst") {
        out = zstd::decode_all(bytes).unwrap();
    } else {
        out = bytes.to_vec();
    }
    out
}

const INTERESTING: &[u8] = b"{}[]\":,\\\n\r 0-9eE.tfn\x00\xff\xc3";

/// Byte-level mutations of one file's bytes.
fn mutate_bytes(rng: &mut ChaCha8Rng, b: &mut Vec<u8>) -> &'static str {
    let at = |rng: &mut ChaCha8Rng, b: &Vec<u8>| rng.random_range(0..=b.len());
    match rng.random_range(0..5) {
        0 if !b.is_empty() => {
            let i = rng.random_range(0..b.len());
            b[i] = INTERESTING[rng.random_range(0..INTERESTING.len())];
            "byte"
        }
        1 => {
            let i = at(rng, b);
            let n = rng.random_range(1..16);
            let ins: Vec<u8> = (0..n)
                .map(|_| INTERESTING[rng.random_range(0..INTERESTING.len())])
                .collect();
            b.splice(i..i, ins);
            "insert"
        }
        2 => {
            let i = at(rng, b);
            let j = (i + rng.random_range(1..64)).min(b.len());
            b.drain(i..j);
            "delete"
        }
        3 => {
            let i = at(rng, b);
            let j = (i + rng.random_range(1..256)).min(b.len());
            let copy = b[i..j].to_vec();
            let k = at(rng, b);
            b.splice(k..k, copy);
            "duplicate"
        }
        _ => {
            let i = at(rng, b);
            b.truncate(i);
            "truncate"
        }
    }
}

/// A JSON value a field might be changed to.
fn odd_value(rng: &mut ChaCha8Rng) -> Value {
    match rng.random_range(0..10) {
        0 => Value::Null,
        1 => Value::Bool(true),
        2 => serde_json::json!(-1),
        3 => serde_json::json!(18446744073709551615u64),
        4 => serde_json::json!(1e300),
        5 => serde_json::json!("x"),
        6 => serde_json::json!([]),
        7 => serde_json::json!({}),
        8 => serde_json::json!(0),
        _ => Value::String("y".repeat(rng.random_range(1..100_000))),
    }
}

/// Structure-aware mutations of a JSON Lines (or JSON) file.
fn mutate_lines(rng: &mut ChaCha8Rng, b: &mut Vec<u8>) -> &'static str {
    let text = String::from_utf8_lossy(b).into_owned();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    if lines.is_empty() {
        return mutate_bytes(rng, b);
    }
    let i = rng.random_range(0..lines.len());
    let what = match rng.random_range(0..7) {
        0 => {
            lines.remove(i);
            "remove line"
        }
        1 => {
            let l = lines[i].clone();
            let j = rng.random_range(0..=lines.len());
            lines.insert(j, l);
            "duplicate line"
        }
        2 => {
            let j = rng.random_range(0..lines.len());
            lines.swap(i, j);
            "swap lines"
        }
        3 => {
            // A line longer than the record limit.
            lines.insert(
                i,
                format!("{{\"k\":\"use\",\"x\":\"{}\"}}", "z".repeat(5 << 20)),
            );
            "long line"
        }
        _ => match serde_json::from_str::<Value>(&lines[i]) {
            Ok(Value::Object(mut map)) if !map.is_empty() => {
                let keys: Vec<String> = map.keys().cloned().collect();
                let key = keys[rng.random_range(0..keys.len())].clone();
                let what = match rng.random_range(0..4) {
                    0 => {
                        map.remove(&key);
                        "remove field"
                    }
                    1 if key == "k" => {
                        let kinds = [
                            "begin", "end", "enter", "exit", "def", "use", "branch", "alloc",
                        ];
                        map.insert(key, kinds[rng.random_range(0..kinds.len())].into());
                        "change kind"
                    }
                    1 if key == "outcome" => {
                        map.insert(
                            key,
                            if rng.random_bool(0.5) { "pass" } else { "fail" }.into(),
                        );
                        "change outcome"
                    }
                    _ => {
                        map.insert(key, odd_value(rng));
                        "change value"
                    }
                };
                lines[i] = Value::Object(map).to_string();
                what
            }
            _ => return mutate_bytes(rng, b),
        },
    };
    let mut out = lines.join("\n");
    out.push('\n');
    *b = out.into_bytes();
    what
}

/// Mutations of a tests file that keep it valid (or nearly): whole tests renamed, moved, dropped,
/// copied or made to fail, blank lines and unknown fields. They reach the analysis, so a failing
/// test lost on the way would show.
fn mutate_tests(rng: &mut ChaCha8Rng, b: &mut Vec<u8>) -> &'static str {
    let text = String::from_utf8_lossy(b).into_owned();
    // Tests as runs of lines from a begin record.
    let mut tests: Vec<Vec<String>> = Vec::new();
    for line in text.lines() {
        if line.contains("\"begin\"") || tests.is_empty() {
            tests.push(Vec::new());
        }
        tests.last_mut().unwrap().push(line.to_string());
    }
    let n = tests.len();
    let i = rng.random_range(0..n);
    let rename = |lines: &mut Vec<String>, new: &str| {
        for l in lines.iter_mut() {
            if let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(l)
                && map.contains_key("test")
                && matches!(map["k"].as_str(), Some("begin" | "end"))
            {
                map.insert("test".into(), new.into());
                *l = Value::Object(map).to_string();
            }
        }
    };
    let what = match rng.random_range(0..7) {
        0 => {
            rename(
                &mut tests[i],
                &format!("Fuzz.renamed{}", rng.random_range(0..1_000_000)),
            );
            "rename test"
        }
        1 => {
            let t = tests.remove(i);
            let j = rng.random_range(0..=tests.len());
            tests.insert(j, t);
            "move test"
        }
        2 if n > 1 => {
            tests.remove(i);
            "drop test"
        }
        3 => {
            let mut t = tests[i].clone();
            rename(
                &mut t,
                &format!("Fuzz.copy{}", rng.random_range(0..1_000_000)),
            );
            tests.push(t);
            "copy test"
        }
        4 => {
            // A passing test made to fail with some test's exception (or a plain one).
            let exception = tests
                .iter()
                .flatten()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .find_map(|v| v.get("exception").cloned())
                .unwrap_or(serde_json::json!({"type": "java.lang.NullPointerException"}));
            for l in tests[i].iter_mut() {
                if let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(l)
                    && map["k"] == "end"
                {
                    map.insert("outcome".into(), "fail".into());
                    map.insert("exception".into(), exception.clone());
                    *l = Value::Object(map).to_string();
                }
            }
            "make test fail"
        }
        5 => {
            let t = &mut tests[i];
            let j = rng.random_range(0..=t.len());
            t.insert(
                j,
                if rng.random_bool(0.5) { "" } else { "  \r" }.to_string(),
            );
            "blank line"
        }
        _ => {
            let t = &mut tests[i];
            let j = rng.random_range(0..t.len());
            if let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(&t[j]) {
                map.insert("future_field".into(), odd_value(rng));
                t[j] = Value::Object(map).to_string();
            }
            "unknown field"
        }
    };
    let mut out: String = tests.into_iter().flatten().collect::<Vec<_>>().join("\n");
    out.push('\n');
    *b = out.into_bytes();
    what
}

/// How a file is written to disk.
#[derive(Clone, Copy, Debug)]
enum Store {
    Plain,
    Gzip,
    Zstd,
    /// zstd in frames of this many decompressed bytes with a seek table, as paf writes it
    /// (`paf::trace::seekable`); `true`: then one byte of the file changed, in a frame or in
    /// the table.
    Framed(usize, bool),
    /// Compressed, then cut short (a tracer killed while writing).
    Truncated,
    /// A decompression bomb: the file's bytes, then 24 MiB of one line or of blank lines.
    Bomb(bool),
}

/// A frame size for [`Store::Framed`]: small, so that a small file has many frames.
fn frame_size(rng: &mut ChaCha8Rng) -> usize {
    [64, 300, 1000, 4096][rng.random_range(0..4)]
}

/// Special files in place of a bundle's file.
#[derive(Clone, Copy, Debug)]
enum Special {
    Fifo,
    DevZero,
    Loop,
    Dir,
}

/// One mutant: its files, how `tests.jsonl` and the others are stored, and what it did.
struct Mutant {
    files: Files,
    store: BTreeMap<String, Store>,
    special: Option<(String, Special)>,
    what: Vec<&'static str>,
}

fn mutant(rng: &mut ChaCha8Rng, seed: &Files) -> Mutant {
    let mut m = Mutant {
        files: seed.clone(),
        store: BTreeMap::new(),
        special: None,
        what: Vec::new(),
    };
    let names: Vec<String> = m.files.keys().cloned().collect();
    // Two mutants in five keep the bundle (nearly) valid, so that it reaches the analysis.
    if m.files.contains_key("tests.jsonl") && rng.random_bool(0.4) {
        for _ in 0..rng.random_range(1..=3) {
            let what = mutate_tests(rng, m.files.get_mut("tests.jsonl").unwrap());
            m.what.push(what);
        }
        if rng.random_bool(0.3) {
            let store = match rng.random_range(0..3) {
                0 => Store::Gzip,
                1 => Store::Zstd,
                _ => Store::Framed(frame_size(rng), false),
            };
            m.store.insert("tests.jsonl".into(), store);
            m.what.push("compressed");
        }
        return m;
    }
    for _ in 0..rng.random_range(1..=3) {
        // Mostly the tests file, where most of the reading is.
        let name = if rng.random_bool(0.6) && m.files.contains_key("tests.jsonl") {
            "tests.jsonl".to_string()
        } else {
            names[rng.random_range(0..names.len())].clone()
        };
        let bytes = m.files.get_mut(&name).unwrap();
        let what = match rng.random_range(0..10) {
            0..=4 => mutate_lines(rng, bytes),
            5..=7 => mutate_bytes(rng, bytes),
            8 => {
                let store = match rng.random_range(0..7) {
                    0 => Store::Gzip,
                    1 => Store::Zstd,
                    2 | 3 => Store::Truncated,
                    4 => Store::Framed(frame_size(rng), false),
                    5 => Store::Framed(frame_size(rng), true),
                    _ => Store::Bomb(rng.random_bool(0.5)),
                };
                m.store.insert(name.clone(), store);
                "storage"
            }
            _ => {
                let kinds = [Special::Fifo, Special::DevZero, Special::Loop, Special::Dir];
                m.special = Some((name.clone(), kinds[rng.random_range(0..kinds.len())]));
                "special file"
            }
        };
        m.what.push(what);
    }
    m
}

/// Writes a mutant bundle to `dir`.
fn write(m: &Mutant, dir: &Path, rng: &mut ChaCha8Rng) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, bytes) in &m.files {
        let store = m.store.get(name).copied().unwrap_or(Store::Plain);
        let compressed = |zst: bool, bytes: &[u8]| -> Vec<u8> {
            if zst {
                zstd::encode_all(bytes, 1).unwrap()
            } else {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(bytes).unwrap();
                e.finish().unwrap()
            }
        };
        let (suffix, data) = match store {
            Store::Plain => ("", bytes.clone()),
            Store::Gzip => (".gz", compressed(false, bytes)),
            Store::Zstd => (".zst", compressed(true, bytes)),
            Store::Framed(frame, flip) => {
                let mut w =
                    paf::trace::seekable::FramedZstd::with_frames(Vec::new(), frame).unwrap();
                w.write_all(bytes).unwrap();
                let mut c = w.finish().unwrap();
                if flip {
                    let at = rng.random_range(0..c.len());
                    c[at] ^= 1 << rng.random_range(0..8);
                }
                (".zst", c)
            }
            Store::Truncated => {
                let zst = rng.random_bool(0.5);
                let mut c = compressed(zst, bytes);
                let cut = rng.random_range(0..c.len().max(1));
                c.truncate(cut);
                (if zst { ".zst" } else { ".gz" }, c)
            }
            Store::Bomb(one_line) => {
                let mut z = zstd::Encoder::new(Vec::new(), 1).unwrap();
                z.write_all(bytes).unwrap();
                let filler = vec![if one_line { b'x' } else { b'\n' }; 1 << 20];
                for _ in 0..24 {
                    z.write_all(&filler).unwrap();
                }
                (".zst", z.finish().unwrap())
            }
        };
        // A manifest keeps its name; compressing it makes it the wrong format.
        let file = if name == "manifest.json" {
            name.clone()
        } else {
            format!("{name}{suffix}")
        };
        std::fs::write(dir.join(file), data).unwrap();
    }
    if let Some((name, kind)) = &m.special {
        let path = dir.join(name);
        let _ = std::fs::remove_file(&path);
        match kind {
            Special::Fifo => {
                let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
                // SAFETY: mkfifo with a valid C string.
                unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
            }
            Special::DevZero => std::os::unix::fs::symlink("/dev/zero", &path).unwrap(),
            Special::Loop => std::os::unix::fs::symlink(&path, &path).unwrap(),
            Special::Dir => std::fs::create_dir(&path).unwrap(),
        }
    }
}

/// The failing tests of a mutant's tests file, by a plain reading of its records (only used
/// when `rank` accepted the bundle, so the file is valid).
fn failing_ids(dir: &Path) -> Vec<String> {
    let mut bytes = Vec::new();
    for suffix in ["", ".gz", ".zst"] {
        let name = format!("tests.jsonl{suffix}");
        if let Ok(b) = std::fs::read(dir.join(&name)) {
            bytes = decompress(&name, &b);
        }
    }
    let mut ids = Vec::new();
    let mut current = String::new();
    for line in String::from_utf8_lossy(&bytes).lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match v["k"].as_str() {
            Some("begin") => current = v["test"].as_str().unwrap_or_default().to_string(),
            Some("end") if v["outcome"] != "pass" && v["test"] == current.as_str() => {
                ids.push(current.clone());
            }
            _ => {}
        }
    }
    ids
}

/// Runs `validate` and `rank` on one mutant and records what went wrong.
fn check_bundle(dir: &Path, label: &str, f: &mut Figures) {
    let d = dir.to_str().unwrap();
    let v = measured(&["validate", d], WATCHDOG);
    let r = measured(&["rank", d, "--format", "json"], WATCHDOG);
    f.runs += 2;
    for (command, m) in [("validate", &v), ("rank", &r)] {
        let at = format!("{label}: paf {command}");
        f.max_rss_kib = f.max_rss_kib.max(m.max_rss_kib);
        if m.hung {
            f.hangs.push(at.clone());
        }
        if m.stderr.contains("panicked") {
            f.panics.push(format!("{at}: {}", m.stderr));
        }
        if !matches!(m.code, Some(0 | 2)) {
            f.bad_exit
                .push(format!("{at}: exit {:?}: {}", m.code, m.stderr));
        }
        if m.max_rss_kib > MEMORY_BOUND_KIB {
            f.over_memory.push(format!("{at}: {} KiB", m.max_rss_kib));
        }
    }
    // The same problems in the same order (rank shows the first 20).
    let listed: Vec<&str> = v
        .stdout
        .lines()
        .filter(|l| !l.ends_with("problem(s)"))
        .collect();
    let shown: Vec<&str> = r
        .stderr
        .lines()
        .map(|l| l.strip_prefix("error: ").unwrap_or(l))
        .filter(|l| !l.starts_with("... and "))
        .collect();
    // isolated.jsonl is checked by validate alone: rank reads it only with --od. So its
    // problems are left out of the comparison, and a bundle with no others ranks.
    let listed: Vec<&str> = listed
        .into_iter()
        .filter(|l| !l.contains("/isolated.jsonl"))
        .collect();
    // Left: validate's summary line ("DIR: N problems") alone.
    let summary_only =
        listed.len() == 1 && (listed[0].ends_with(" problem") || listed[0].ends_with(" problems"));
    let want = if v.code == Some(2) && summary_only {
        Some(0)
    } else {
        v.code
    };
    let agree =
        want == r.code && (r.code != Some(2) || listed.iter().take(shown.len()).eq(shown.iter()));
    if !agree {
        f.disagreements.push(format!(
            "{label}: validate {:?} {:?} / rank {:?} {:?}",
            v.code, listed, r.code, shown
        ));
    }
    if r.code == Some(0) {
        f.ok += 1;
        let report: Value = serde_json::from_str(&r.stdout).unwrap_or_default();
        let ranked: Vec<&str> = report["tests"]
            .as_array()
            .map(|t| t.iter().filter_map(|t| t["test"].as_str()).collect())
            .unwrap_or_default();
        for id in failing_ids(dir) {
            if !ranked.contains(&id.as_str()) {
                f.lost.push(format!(
                    "{label}: failing test {id:?} is not in the ranking"
                ));
            }
        }
    } else {
        f.rejected += 1;
    }
}

/// Runs `read` on mutants of each seed text, in-process: it must return, never panic.
fn check_reader(
    rng: &mut ChaCha8Rng,
    name: &str,
    seeds: &[Vec<u8>],
    count: u64,
    f: &mut Figures,
    read: &dyn Fn(&[u8]),
) {
    for i in 0..count {
        let mut bytes = seeds[(i as usize) % seeds.len()].clone();
        for _ in 0..rng.random_range(1..=3) {
            if rng.random_bool(0.5) {
                mutate_lines(rng, &mut bytes);
            } else {
                mutate_bytes(rng, &mut bytes);
            }
        }
        f.readers += 1;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(&bytes)));
        if r.is_err() {
            f.reader_panics.push(format!(
                "{name} mutant {i}: {}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(300)])
            ));
        }
    }
}

/// A real `paf.od/1` report, from `od detect` on the DTDetector example.
fn od_report(dir: &Path) -> Vec<u8> {
    let ex = root().join("testdata/od/dtdetector-example");
    let report = dir.join("od.json");
    let (code, _, err) = common::paf(&[
        "od",
        "detect",
        "--runner",
        ex.join("run").to_str().unwrap(),
        "--tests",
        ex.join("tests.txt").to_str().unwrap(),
        "--access",
        ex.join("access.json").to_str().unwrap(),
        "-o",
        report.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    std::fs::read(report).unwrap()
}

fn readers(rng: &mut ChaCha8Rng, dir: &Path, count: u64, f: &mut Figures) {
    let eval = |p: &str| std::fs::read(root().join("testdata/eval").join(p)).unwrap();
    let path = Path::new("input");
    check_reader(
        rng,
        "truth",
        &[eval("motivating/truth.csv"), eval("clusters/truth.csv")],
        count,
        f,
        &|b| {
            let _ = paf::eval::input::parse_truth(path, b);
        },
    );
    check_reader(
        rng,
        "ranking",
        &[eval("motivating/ranking.txt"), eval("figure4/abcde.txt")],
        count,
        f,
        &|b| {
            let _ = paf::eval::input::parse_ranking(path, b);
        },
    );
    check_reader(
        rng,
        "clusters",
        &[eval("clusters/groups.json"), eval("clusters/groups.txt")],
        count,
        f,
        &|b| {
            let _ = paf::eval::input::parse_clusters(path, b);
        },
    );
    let results: Vec<Vec<u8>> = vec![
        b"{\"test\":\"A.a\",\"outcome\":\"pass\"}\n{\"test\":\"B.b\",\"outcome\":\"fail\",\"exception\":\"E\",\"class\":\"B\",\"line\":7}\n{\"test\":\"C.c\",\"outcome\":\"skip\"}\n".to_vec(),
        b"<?xml version=\"1.0\"?>\n<testsuite><testcase classname=\"A\" name=\"a\"/><testcase classname=\"B\" name=\"b\"><failure type=\"E\">E\n\tat B.b(B.java:7)</failure></testcase><testcase classname=\"C\" name=\"c\"><skipped/></testcase></testsuite>\n".to_vec(),
    ];
    check_reader(rng, "runner results", &results, count, f, &|b| {
        let _ = paf::od::runner::parse_results(&String::from_utf8_lossy(b), &["A.a", "B.b", "C.c"]);
    });
    let report = od_report(dir);
    let file = dir.join("mutated-od.json");
    check_reader(rng, "od report", &[report], count, f, &|b| {
        std::fs::write(&file, b).unwrap();
        if let Ok(r) = paf::od::input::read_report(&file) {
            let _ = paf::od::report::table(&r, paf::report::layout::TableStyle::PLAIN);
        }
    });
}

#[test]
fn mutants_never_crash_hang_or_lose_a_failing_test() {
    let mutants = setting("PAF_FUZZ_MUTANTS", 40);
    let seed = setting("PAF_FUZZ_SEED", 0);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let work = tempfile::tempdir().unwrap();
    let corpus = corpus(work.path());
    let mut f = Figures::default();
    for i in 0..mutants {
        let (name, seed_files) = &corpus[(i as usize) % corpus.len()];
        let m = mutant(&mut rng, seed_files);
        let dir = work.path().join(format!("m{i}"));
        write(&m, &dir, &mut rng);
        let label = format!("mutant {i} of {name} ({})", m.what.join(", "));
        check_bundle(&dir, &label, &mut f);
        f.bundles += 1;
        let _ = std::fs::remove_dir_all(&dir);
    }
    readers(&mut rng, work.path(), 10 * mutants, &mut f);
    println!(
        "fuzz (seed {seed}): {} bundle mutants of {} seeds, {} runs: {} accepted, {} rejected; \
         {} reader mutants; panics {}, hangs {}, other exit codes {}, validate/rank \
         disagreements {}, lost failing tests {}, over {} MiB {}; peak memory {} KiB",
        f.bundles,
        corpus.len(),
        f.runs,
        f.ok,
        f.rejected,
        f.readers,
        f.panics.len() + f.reader_panics.len(),
        f.hangs.len(),
        f.bad_exit.len(),
        f.disagreements.len(),
        f.lost.len(),
        MEMORY_BOUND_KIB / 1024,
        f.over_memory.len(),
        f.max_rss_kib
    );
    assert_eq!(f.failures(), 0, "{f:#?}");
}
