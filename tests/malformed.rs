//! Malformed bundles: every case under `testdata/malformed/` must make `paf validate` and
//! `paf rank` exit with code 2 and a message naming the file, the line and what was expected,
//! never a panic. Outputs are compared with `expected.validate.txt` / `expected.rank.txt` in
//! each case directory; run with `UPDATE_GOLDEN=1` to rewrite them, then review the diff.

use std::io::Write;
use std::path::Path;

use pretty_assertions::assert_eq;

mod common;
use common::root;

/// Stands for the repository path wherever it would appear in an output.
const ROOT_TOKEN: &str = "<ROOT>";

/// Runs `paf` from the repository root (so paths print as `testdata/malformed/...`) and
/// returns its exit code, stdout and stderr with the repository path redacted.
fn paf(args: &[&str]) -> (i32, String, String) {
    let (code, stdout, stderr) = common::paf(args);
    let root = root();
    let redact = |s: String| s.replace(root.to_str().expect("UTF-8 repository path"), ROOT_TOKEN);
    (code, redact(stdout), redact(stderr))
}

/// The golden file format: exit code, then stdout, then stderr.
fn transcript(code: i32, stdout: &str, stderr: &str) -> String {
    format!("exit: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}")
}

fn check(golden: &Path, actual: &str) {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(golden, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(golden).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
            golden.display()
        )
    });
    assert_eq!(expected, actual, "golden file {}", golden.display());
}

fn cases() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("testdata/malformed"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn every_malformed_bundle_is_rejected_with_its_expected_messages() {
    let names = cases();
    for required in [
        "truncated-json",
        "wrong-types",
        "unknown-statement",
        "frame-never-entered",
        "copy-loop",
        "test-without-events",
        "duplicate-test-ids",
        "empty-bundle",
        "non-utf8",
        "several-problems",
        // Issue 13: a read error of a compressed small file ends it (it looped forever), and a
        // line longer than the limit is a problem of its line (it was held whole).
        "truncated-statements-gz",
        "truncated-static-duas-zst",
        "overlong-line-zst",
        // A line just over the limit that ends in the step that takes it over, with more than
        // a step's bytes after it: the scanner panicked.
        "overlong-line-in-step-zst",
    ] {
        assert!(
            names.iter().any(|n| n == required),
            "testdata/malformed/{required} is missing"
        );
    }
    for name in names {
        let bundle = format!("testdata/malformed/{name}");
        // `rank` reads failing tests in a first pass and the rest in a second, `validate` all
        // tests in one: both must list the same problems in the same (file) order.
        let (_, validate_out, _) = paf(&["validate", &bundle]);
        let (_, _, rank_err) = paf(&["rank", &bundle]);
        let validate_problems: Vec<&str> = validate_out
            .lines()
            .filter(|l| !l.ends_with(" problem") && !l.ends_with(" problems"))
            .collect();
        let rank_problems: Vec<&str> = rank_err
            .lines()
            .map(|l| l.strip_prefix("error: ").unwrap_or(l))
            .collect();
        assert_eq!(
            rank_problems, validate_problems,
            "{bundle}: rank and validate"
        );
        for command in ["validate", "rank"] {
            let (code, stdout, stderr) = paf(&[command, &bundle]);
            let shown = format!("paf {command} {bundle}");
            assert_eq!(code, 2, "{shown}: exit code\nstderr: {stderr}");
            assert!(!stderr.contains("panicked"), "{shown} panicked: {stderr}");
            // Every problem line names a file of this bundle.
            let problems = if command == "validate" {
                &stdout
            } else {
                &stderr
            };
            for line in problems.lines() {
                let line = line.strip_prefix("error: ").unwrap_or(line);
                assert!(
                    line.starts_with(&bundle),
                    "{shown}: a message that does not name the bundle's file: {line}"
                );
            }
            let golden = root().join(&bundle).join(format!("expected.{command}.txt"));
            check(&golden, &transcript(code, &stdout, &stderr));
        }
    }
}

/// `validate` lists the problems of every test, not only the first one found.
#[test]
fn validate_lists_every_problem_in_every_test() {
    let bundle = "testdata/malformed/several-problems";
    let (code, stdout, _) = paf(&["validate", bundle]);
    assert_eq!(code, 2);
    let file = format!("{bundle}/tests.jsonl");
    // Worked out from the bundle: fTest1 (lines 1-24) uses statement 470 on line 22; fTest2
    // (25-37) claims 10 events for 11; pTest1 (38-...) has a string frame on line 41 and an
    // event of a frame never entered on line 44.
    let expected_lines = [
        format!("{file}:22: unknown statement id 470"),
        format!("{file}:37: end record says 10 events but 11"),
        format!("{file}:41:23: field \"frame\": invalid type: string \"1\""),
        format!("{file}:44: frame 7 was never entered"),
    ];
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), expected_lines.len() + 1, "{stdout}");
    for (line, want) in lines.iter().zip(&expected_lines) {
        assert!(
            line.starts_with(want.as_str()),
            "{line:?} should start with {want:?}"
        );
    }
    assert_eq!(lines[4], format!("{bundle}: 4 problems"));
}

/// A bundle whose tests are stored as `tests.jsonl.gz` ranks exactly like the plain one.
#[test]
fn gzip_bundle_ranks_like_the_plain_bundle() {
    let plain = root().join("traces/motivating");
    let dir = tempfile::tempdir().unwrap();
    for file in ["manifest.json", "statements.jsonl"] {
        std::fs::copy(plain.join(file), dir.path().join(file)).unwrap();
    }
    let tests = std::fs::read(plain.join("tests.jsonl")).unwrap();
    let gz = std::fs::File::create(dir.path().join("tests.jsonl.gz")).unwrap();
    let mut encoder = flate2::write::GzEncoder::new(gz, flate2::Compression::default());
    encoder.write_all(&tests).unwrap();
    encoder.finish().unwrap();
    assert!(!dir.path().join("tests.jsonl").exists());

    let gz_dir = dir.path().to_str().unwrap();
    for format in ["table", "json", "csv"] {
        let want = paf(&["rank", "traces/motivating", "--format", format]);
        let got = paf(&["rank", gz_dir, "--format", format]);
        assert_eq!(want.0, 0, "plain bundle: {}", want.2);
        assert!(!want.1.is_empty());
        assert_eq!(got, want, "--format {format}");
    }
}

/// Special files in place of a bundle's files are named for what they are, and a named pipe is
/// never waited on (issue 13: all were "missing", and a pipe blocked, /dev/zero read forever).
#[test]
fn special_files_say_what_they_are_and_never_block() {
    let dir = tempfile::tempdir().unwrap();
    let motivating = root().join("traces/motivating");
    let bundle = |name: &str| {
        let b = dir.path().join(name);
        std::fs::create_dir(&b).unwrap();
        for f in ["manifest.json", "statements.jsonl", "tests.jsonl"] {
            std::fs::copy(motivating.join(f), b.join(f)).unwrap();
        }
        b
    };
    let fifo = |path: &Path| {
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid C string; the result is checked.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    };
    /// The file replaced, what the message calls it, and how it is made.
    type Case<'a> = (&'a str, &'a str, Box<dyn Fn(&Path) + 'a>);
    let cases: Vec<Case<'_>> = vec![
        (
            "tests.jsonl",
            "not a regular file (a named pipe (FIFO))",
            Box::new(|p: &Path| fifo(p)),
        ),
        (
            "tests.jsonl",
            "not a regular file (a character device)",
            Box::new(|p: &Path| std::os::unix::fs::symlink("/dev/urandom", p).unwrap()),
        ),
        (
            "tests.jsonl",
            "a symbolic link loop",
            Box::new(|p: &Path| std::os::unix::fs::symlink(p, p).unwrap()),
        ),
        (
            "tests.jsonl",
            "not a regular file (a directory)",
            Box::new(|p: &Path| std::fs::create_dir(p).unwrap()),
        ),
        (
            "manifest.json",
            "not a regular file (a character device)",
            Box::new(|p: &Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap()),
        ),
        (
            "manifest.json",
            "not a regular file (a named pipe (FIFO))",
            Box::new(|p: &Path| fifo(p)),
        ),
    ];
    for (i, (file, what, make)) in cases.iter().enumerate() {
        let b = bundle(&format!("b{i}"));
        std::fs::remove_file(b.join(file)).unwrap();
        make(&b.join(file));
        for command in ["validate", "rank"] {
            let (code, stdout, stderr) = common::paf(&[command, b.to_str().unwrap()]);
            assert_eq!(code, 2, "{command} with {file}: {what}\n{stderr}");
            let shown = format!("{stdout}{stderr}");
            assert!(
                shown.contains(&format!("{file}: {what}")),
                "{command} with {file}: {what}: {shown}"
            );
        }
    }
}
