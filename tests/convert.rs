//! `paf convert`: a bundle written again in another storage form. Its records are the same
//! bytes once decompressed, its `tests.marks` are the ones `paf synth` wrote as it wrote the
//! tests (an independent oracle: the writer knew where each header went), it ranks exactly as
//! the original, and bad input leaves nothing behind.

use std::path::Path;

use pretty_assertions::assert_eq;

mod common;
use common::{decoded, files, paf};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn synth(dir: &Path) {
    let (code, _, stderr) = paf(&[
        "synth",
        "--failing",
        "30",
        "--passing",
        "60",
        "--events-per-test",
        "40",
        "--seed",
        "3",
        "-o",
        s(dir),
    ]);
    assert_eq!(code, 0, "{stderr}");
}

/// The same records stored another way: `form` is `plain`, `gzip`, `zstd` (one stream, as
/// zstd's own tool writes it: no seek table) or `framed` (paf's frames and seek table).
/// No marks: a bundle from elsewhere has none.
fn store(plain: &Path, dir: &Path, form: &str) {
    std::fs::create_dir_all(dir).unwrap();
    for e in std::fs::read_dir(plain).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let bytes = std::fs::read(e.path()).unwrap();
        if name == "tests.marks" {
            continue;
        }
        if !name.ends_with(".jsonl") || form == "plain" {
            std::fs::write(dir.join(&name), bytes).unwrap();
            continue;
        }
        match form {
            "gzip" => {
                use std::io::Write;
                let mut e =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(&bytes).unwrap();
                std::fs::write(dir.join(format!("{name}.gz")), e.finish().unwrap()).unwrap();
            }
            "zstd" => std::fs::write(
                dir.join(format!("{name}.zst")),
                zstd::encode_all(&bytes[..], 3).unwrap(),
            )
            .unwrap(),
            "framed" => {
                let (code, _, stderr) = paf(&["convert", s(plain), "-o", s(&dir.join("x"))]);
                assert_eq!(code, 0, "{stderr}");
                std::fs::rename(
                    dir.join("x").join(format!("{name}.zst")),
                    dir.join(format!("{name}.zst")),
                )
                .unwrap();
                std::fs::remove_dir_all(dir.join("x")).unwrap();
            }
            _ => unreachable!("{form}"),
        }
    }
}

fn rank(dir: &Path) -> (i32, String, String) {
    paf(&["rank", s(dir), "--format", "json"])
}

#[test]
fn every_form_converts_to_every_form_with_the_records_and_marks_unchanged() {
    let work = tempfile::tempdir().unwrap();
    let plain = work.path().join("plain");
    synth(&plain);
    let want_files = files(&plain);
    let want_rank = rank(&plain);
    assert_eq!(want_rank.0, 0, "{}", want_rank.2);
    for from in ["plain", "gzip", "zstd", "framed"] {
        let input = work.path().join(format!("in-{from}"));
        store(&plain, &input, from);
        let before = files(&input);
        for (to, suffix) in [("none", ""), ("gzip", ".gz"), ("zstd", ".zst")] {
            let out = work.path().join(format!("{from}-to-{to}"));
            let (code, _, stderr) = paf(&["convert", s(&input), "-o", s(&out), "--compress", to]);
            assert_eq!(code, 0, "{from} -> {to}: {stderr}");
            assert!(
                stderr.contains("tests.marks: the header lines of 90 tests"),
                "{stderr}"
            );
            // The records under their new names, every other file as it was (truth.csv too).
            let got = files(&out);
            let names: Vec<String> = want_files
                .keys()
                .map(|n| match n.ends_with(".jsonl") {
                    true => format!("{n}{suffix}"),
                    false => n.clone(),
                })
                .collect();
            assert_eq!(got.keys().cloned().collect::<Vec<_>>(), {
                let mut n = names.clone();
                n.sort();
                n
            });
            for (name, bytes) in &want_files {
                let new = if name.ends_with(".jsonl") {
                    format!("{name}{suffix}")
                } else {
                    name.clone()
                };
                assert!(got[&new] == *bytes, "{from} -> {to}: {new} differs");
            }
            if to == "zstd" {
                let raw = std::fs::read(out.join("tests.jsonl.zst")).unwrap();
                assert_eq!(
                    raw[raw.len() - 4..],
                    0x8F92_EAB1u32.to_le_bytes(),
                    "a seek table"
                );
            }
            assert_eq!(rank(&out), want_rank, "{from} -> {to}");
            assert!(files(&input) == before, "{from} -> {to}: the input changed");
        }
    }
}

#[test]
fn a_bundle_with_a_line_over_four_mib_converts_without_marks() {
    let work = tempfile::tempdir().unwrap();
    let plain = work.path().join("plain");
    synth(&plain);
    // A passing test's event line padded past 4 MiB: the scanner cannot place the headers
    // after it, so no marks; the records are still copied as they are.
    let tests = std::fs::read_to_string(plain.join("tests.jsonl")).unwrap();
    let mut lines: Vec<String> = tests.lines().map(String::from).collect();
    let at = lines
        .iter()
        .position(|l| l.contains("\"k\":\"use\""))
        .unwrap();
    lines[at] = lines[at].replacen('{', &format!("{{\"pad\":\"{}\",", "x".repeat(4 << 20)), 1);
    std::fs::write(plain.join("tests.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = work.path().join("out");
    let (code, _, stderr) = paf(&["convert", s(&plain), "-o", s(&out)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("tests.marks: not written: a line of the tests file is longer than 4 MiB"),
        "{stderr}"
    );
    assert!(!out.join("tests.marks").exists());
    assert!(
        decoded(&out.join("tests.jsonl.zst")) == std::fs::read(plain.join("tests.jsonl")).unwrap()
    );
    // The same problem, in the new file.
    let (code, _, stderr) = rank(&out);
    let want = rank(&plain);
    assert_eq!(
        (code, stderr),
        (
            want.0,
            want.2.replace("plain/tests.jsonl", "out/tests.jsonl.zst")
        )
    );
}

/// Nothing is left where the new bundle would go when a conversion fails.
fn nothing_left(parent: &Path, out: &Path) {
    assert!(!out.exists(), "{}", out.display());
    let stray: Vec<_> = std::fs::read_dir(parent)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            n.contains(".paf-convert-").then_some(n)
        })
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

/// `paf convert BUNDLE -o OUT` exits 2 with `expected` in its message.
fn refused(bundle: &Path, out: &Path, expected: &str) {
    let (code, _, stderr) = paf(&["convert", s(bundle), "-o", s(out)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(expected), "{stderr}");
}

#[test]
fn bad_input_is_refused_with_its_file_and_leaves_nothing() {
    let work = tempfile::tempdir().unwrap();
    let plain = work.path().join("plain");
    synth(&plain);
    let out = work.path().join("out");

    // A gzip tests file cut short.
    let cut = work.path().join("cut");
    store(&plain, &cut, "gzip");
    let gz = std::fs::read(cut.join("tests.jsonl.gz")).unwrap();
    std::fs::write(cut.join("tests.jsonl.gz"), &gz[..gz.len() / 2]).unwrap();
    refused(&cut, &out, "cut/tests.jsonl.gz: cannot read");
    nothing_left(work.path(), &out);

    // Two forms of one file.
    std::fs::write(cut.join("tests.jsonl"), "").unwrap();
    refused(
        &cut,
        &out,
        "tests.jsonl and tests.jsonl.gz both exist: expected only one of them",
    );
    nothing_left(work.path(), &out);

    // Not a bundle.
    refused(
        &work.path().join("none"),
        &out,
        "none: no such bundle directory",
    );
    nothing_left(work.path(), &out);

    // A manifest of another format, as any command reading the bundle refuses it.
    let other = work.path().join("other");
    store(&plain, &other, "plain");
    std::fs::write(other.join("manifest.json"), r#"{"format":"x","version":1}"#).unwrap();
    refused(
        &other,
        &out,
        r#"other/manifest.json: format is "x": expected "paf-trace""#,
    );
    nothing_left(work.path(), &out);

    // A new bundle in a directory that does not exist.
    refused(
        &plain,
        &work.path().join("no/out"),
        "no: no such directory: expected the directory to hold the new bundle",
    );

    // An output that exists: the bundle itself, or any other path.
    for existing in [&plain, &work.path().join("plain/truth.csv")] {
        let before = files(&plain);
        refused(
            &plain,
            existing,
            "already exists: expected a new directory for -o",
        );
        assert!(files(&plain) == before);
    }
}

#[test]
fn entries_that_are_not_files_are_left_out_with_a_warning() {
    let work = tempfile::tempdir().unwrap();
    let plain = work.path().join("plain");
    synth(&plain);
    std::fs::create_dir(plain.join("logs")).unwrap();
    let out = work.path().join("out");
    let (code, _, stderr) = paf(&["convert", s(&plain.join("manifest.json")), "-o", s(&out)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("logs: not a regular file: not copied"),
        "{stderr}"
    );
    assert!(
        stderr.contains("copied as they are: manifest.json, truth.csv"),
        "{stderr}"
    );
    assert!(!out.join("logs").exists());
}

#[test]
fn a_killed_conversions_staging_directory_is_removed_by_the_next_one() {
    let work = tempfile::tempdir().unwrap();
    let plain = work.path().join("plain");
    synth(&plain);
    // A pid no process has: a child's, once it has exited and been reaped.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let gone = child.id();
    child.wait().unwrap();
    let killed = work.path().join(format!(".out.paf-convert-{gone}"));
    let running = work.path().join(".out.paf-convert-1"); // init's, which always runs
    let other = work.path().join(format!(".elsewhere.paf-convert-{gone}"));
    for d in [&killed, &running, &other] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join("tests.jsonl.zst"), "half written").unwrap();
    }
    let out = work.path().join("out");
    let (code, _, stderr) = paf(&["convert", s(&plain), "-o", s(&out)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(out.join("tests.jsonl.zst").is_file());
    assert!(
        !killed.exists(),
        "a killed conversion's directory is removed"
    );
    assert!(running.exists(), "a running conversion's is kept");
    assert!(other.exists(), "one for another output is kept");
}
