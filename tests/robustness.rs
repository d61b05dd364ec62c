//! Issue 13's defects that are not a malformed bundle: memory that does not grow with one test
//! or with blank lines, outputs written whole and never over an input. Memory is measured as
//! the process's peak resident size (`wait4`), never time.

use std::path::Path;
use std::time::Duration;

mod common;
use common::{Measured, measured, paf};

/// Far more than any of these runs takes on any machine: only a hang reaches it.
const WATCHDOG: Duration = Duration::from_secs(600);

fn run(args: &[&str]) -> Measured {
    let m = measured(args, WATCHDOG);
    assert!(!m.hung, "paf {args:?} hung");
    m
}

/// One passing and one failing test of a few hundred thousand events each: the previous
/// reader held each whole (210 MiB for this bundle, 140 MiB with 100,000 events a test), the
/// streaming one keeps their live state only (about 55 MiB for a debug build, whether the tests
/// have 100,000 or 300,000 events).
#[test]
fn memory_does_not_grow_with_one_test() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("big");
    let (code, _, err) = paf(&[
        "synth",
        "--failing",
        "1",
        "--passing",
        "1",
        "--events-per-test",
        "300000",
        "-o",
        b.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    for command in ["validate", "rank"] {
        let m = run(&[command, "-j", "2", b.to_str().unwrap()]);
        assert_eq!(m.code, Some(0), "{}", m.stderr);
        assert!(
            m.max_rss_kib < 128 * 1024,
            "paf {command}: {} KiB for two tests of 300,000 events",
            m.max_rss_kib
        );
    }
}

/// A small zstd file of valid tests followed by 96 MiB of blank lines: read as a stream, never
/// held whole, as they once were (96 MiB by themselves). The bound leaves room for the decompression and the
/// debug build: 50 to 64 MiB measured alone, 67 MiB once with the other tests running (the
/// same bundle uncompressed: 30 to 33 MiB).
#[test]
fn blank_lines_after_the_tests_cost_no_memory() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("blank");
    std::fs::create_dir(&b).unwrap();
    let m = common::root().join("traces/motivating");
    for f in ["manifest.json", "statements.jsonl"] {
        std::fs::copy(m.join(f), b.join(f)).unwrap();
    }
    let file = std::fs::File::create(b.join("tests.jsonl.zst")).unwrap();
    let mut z = zstd::Encoder::new(file, 1).unwrap();
    std::io::Write::write_all(&mut z, &std::fs::read(m.join("tests.jsonl")).unwrap()).unwrap();
    let blank = vec![b'\n'; 1 << 20];
    for _ in 0..96 {
        std::io::Write::write_all(&mut z, &blank).unwrap();
    }
    z.finish().unwrap();
    for command in ["validate", "rank"] {
        let m = run(&[command, b.to_str().unwrap()]);
        assert_eq!(m.code, Some(0), "{}", m.stderr);
        assert!(
            m.max_rss_kib < 96 * 1024,
            "paf {command}: {} KiB",
            m.max_rss_kib
        );
    }
}

/// A bundle to write next to.
fn bundle(dir: &Path) -> std::path::PathBuf {
    let b = dir.join("b");
    std::fs::create_dir(&b).unwrap();
    for f in ["manifest.json", "statements.jsonl", "tests.jsonl"] {
        std::fs::copy(common::root().join("traces/motivating").join(f), b.join(f)).unwrap();
    }
    b
}

/// `-o` naming one of the command's inputs, by any name, is refused and the input is untouched
/// (it exited 0 and destroyed the bundle); any other `-o` is written whole, with no temporary
/// file left beside it.
#[test]
fn an_output_never_overwrites_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let b = bundle(dir.path());
    let tests = std::fs::read(b.join("tests.jsonl")).unwrap();
    std::fs::hard_link(b.join("tests.jsonl"), dir.path().join("linked.jsonl")).unwrap();
    let truth = dir.path().join("truth.csv");
    std::fs::write(&truth, "test,fault\nfTest1,f1\n").unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let refused: Vec<Vec<String>> = vec![
        vec![
            "rank".into(),
            s(&b),
            "--format".into(),
            "json".into(),
            "-o".into(),
            s(&b.join("tests.jsonl")),
        ],
        vec![
            "rank".into(),
            s(&b.join("manifest.json")),
            "-o".into(),
            s(&b.join("statements.jsonl")),
        ],
        vec![
            "rank".into(),
            s(&b),
            "-o".into(),
            s(&dir.path().join("linked.jsonl")),
        ],
        vec![
            "rank".into(),
            s(&b),
            "-o".into(),
            s(&b.join("tests.jsonl.gz")),
        ],
        vec![
            "rank".into(),
            s(&b),
            "-o".into(),
            s(&b.join("isolated.jsonl")),
        ],
        vec![
            "eval".into(),
            s(&b),
            "--truth".into(),
            s(&truth),
            "-o".into(),
            s(&b.join("manifest.json")),
        ],
        vec![
            "eval".into(),
            s(&b),
            "--truth".into(),
            s(&truth),
            "-o".into(),
            s(&truth),
        ],
        vec![
            "report".into(),
            s(&b),
            "--truth".into(),
            s(&truth),
            "-o".into(),
            s(&truth),
        ],
        vec![
            "localize".into(),
            s(&b),
            "-o".into(),
            s(&b.join("tests.jsonl")),
        ],
    ];
    for args in refused {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, err) = paf(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("an input of this command"), "{args:?}: {err}");
    }
    // `trace java -o` replaces a bundle, but never one the run reads classes from.
    let (code, _, err) = paf(&[
        "trace",
        "java",
        "--classpath",
        &s(&b),
        "--include",
        "p",
        "--tests",
        "p.T",
        "-o",
        &s(&b),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("an input of this run"), "{err}");
    assert_eq!(std::fs::read(b.join("tests.jsonl")).unwrap(), tests);
    assert!(!b.join("tests.jsonl.gz").exists());
    let out = dir.path().join("rank.json");
    let (code, _, err) = paf(&["rank", &s(&b), "--format", "json", "-o", &s(&out)]);
    assert_eq!(code, 0, "{err}");
    let (_, stdout, _) = paf(&["rank", &s(&b), "--format", "json"]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), stdout);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with(".paf-")), "{names:?}");
}
