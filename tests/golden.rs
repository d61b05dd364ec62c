//! Golden tests: whole outputs of `paf` on every shipped bundle, compared byte for byte with
//! `testdata/golden/` (every `rank` format, tables at 80 columns, `validate`, `explain`), and
//! `paf report`'s HTML (`testdata/report/`). Run with `UPDATE_GOLDEN=1` to rewrite them, then
//! review the diff.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

mod common;
use common::{paf, root};

/// Compares `actual` with the golden file, or rewrites it under `UPDATE_GOLDEN=1`.
fn check(golden: &Path, actual: &str) {
    let path = root().join(golden);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
            golden.display()
        )
    });
    assert_eq!(expected, actual, "golden file {}", golden.display());
}

fn bundles() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("traces"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("manifest.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn every_shipped_bundle_matches_its_goldens() {
    let names = bundles();
    assert!(
        names.len() >= 6,
        "expected at least six shipped bundles, found {names:?}"
    );
    for name in names {
        let bundle = format!("traces/{name}");
        let golden = PathBuf::from("testdata/golden").join(&name);
        let cases: [(&str, Vec<&str>); 10] = [
            ("rank.txt", vec!["rank", &bundle]),
            ("rank-by-test.txt", vec!["rank", &bundle, "--by", "test"]),
            ("rank-80.txt", vec!["rank", &bundle, "--width", "80"]),
            (
                "rank-by-test-80.txt",
                vec!["rank", &bundle, "--by", "test", "--width", "80"],
            ),
            ("rank.json", vec!["rank", &bundle, "--format", "json"]),
            ("rank.csv", vec!["rank", &bundle, "--format", "csv"]),
            ("rank.sarif", vec!["rank", &bundle, "--format", "sarif"]),
            ("rank.junit.xml", vec!["rank", &bundle, "--format", "junit"]),
            ("rank.md", vec!["rank", &bundle, "--format", "markdown"]),
            ("validate.txt", vec!["validate", &bundle]),
        ];
        for (file, args) in cases {
            let (code, stdout, stderr) = paf(&args);
            assert_eq!((code, stderr.as_str()), (0, ""), "paf {args:?}");
            check(&golden.join(file), &stdout);
        }
        // Every failing test's explanation.
        let (_, json, _) = paf(&["rank", &bundle, "--format", "json"]);
        let report: serde_json::Value = serde_json::from_str(&json).unwrap();
        for t in report["tests"].as_array().unwrap() {
            let test = t["test"].as_str().unwrap();
            let (code, stdout, stderr) = paf(&["explain", &bundle, test]);
            assert_eq!(
                (code, stderr.as_str()),
                (0, ""),
                "paf explain {bundle} {test}"
            );
            check(&golden.join(format!("explain-{test}.txt")), &stdout);
        }
    }
}

/// The HTML report of the Java example library, with its sources, the truth's measures and the
/// APFD plot; and of the motivating bundle, without sources.
#[test]
fn html_reports_match_their_goldens() {
    let library = [
        "report",
        "testdata/java/library/bundle",
        "--source-root",
        "testdata/java/library/src",
        "--truth",
        "testdata/java/library/truth.csv",
    ];
    let motivating = ["report", "traces/motivating"];
    for (file, args) in [
        ("library.html", &library[..]),
        ("motivating.html", &motivating[..]),
    ] {
        let (code, stdout, stderr) = paf(args);
        assert_eq!((code, stderr.as_str()), (0, ""), "paf {args:?}");
        check(&PathBuf::from("testdata/report").join(file), &stdout);
    }
}

/// The shipped bundles were authored as the Java programs in their README would be traced;
/// running the authoring script again must not change them.
#[test]
fn output_is_the_same_bytes_on_every_run() {
    for name in bundles() {
        let bundle = format!("traces/{name}");
        let first = paf(&["rank", &bundle, "--format", "json"]);
        let second = paf(&["rank", &bundle, "--format", "json"]);
        assert_eq!(first, second, "{bundle}");
    }
}

/// Issue 17: a bundle's ranking is the same bytes whatever the number of threads and however
/// the tests file is stored: every shipped bundle, plain, gzip and zstd, at `-j 1` and `-j 3`,
/// matches its `rank.json` golden.
#[test]
fn goldens_hold_for_any_thread_count_and_compression() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    for name in bundles() {
        let golden = format!("testdata/golden/{name}/rank.json");
        let expected = std::fs::read_to_string(root().join(&golden)).unwrap();
        let plain = root().join("traces").join(&name);
        let mut copies = vec![plain.clone()];
        for suffix in ["gz", "zst"] {
            let dir = tmp.path().join(format!("{name}-{suffix}"));
            std::fs::create_dir_all(&dir).unwrap();
            for entry in std::fs::read_dir(&plain).unwrap() {
                let path = entry.unwrap().path();
                let file = path.file_name().unwrap().to_string_lossy().into_owned();
                let bytes = std::fs::read(&path).unwrap();
                if file != "tests.jsonl" {
                    std::fs::write(dir.join(&file), bytes).unwrap();
                    continue;
                }
                let out = std::fs::File::create(dir.join(format!("{file}.{suffix}"))).unwrap();
                if suffix == "gz" {
                    let mut e = flate2::write::GzEncoder::new(out, flate2::Compression::fast());
                    e.write_all(&bytes).unwrap();
                    e.finish().unwrap();
                } else {
                    let mut e = zstd::Encoder::new(out, 3).unwrap();
                    e.write_all(&bytes).unwrap();
                    e.finish().unwrap();
                }
            }
            copies.push(dir);
        }
        for bundle in &copies {
            for jobs in ["1", "3"] {
                let shown = bundle.to_string_lossy();
                let (code, stdout, stderr) = paf(&["rank", &shown, "--format", "json", "-j", jobs]);
                assert_eq!(code, 0, "{shown} -j {jobs}: {stderr}");
                assert_eq!(expected, stdout, "{shown} -j {jobs} against {golden}");
            }
        }
    }
}
