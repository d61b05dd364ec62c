//! Tidy checks (rust-analyzer's habit): each invariant ARCHITECTURE.md states about the code is
//! checked here over the source tree, so that breaking one fails `cargo test`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod common;
use common::root;

/// Every `.rs` file under `dir`, relative to the repository root, sorted.
fn rust_files(dir: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    let start = root().join(dir);
    if start.is_file() {
        out.push(start);
    } else {
        walk(&start, &mut out);
    }
    let mut out: Vec<PathBuf> = out
        .into_iter()
        .map(|p| p.strip_prefix(root()).unwrap().to_path_buf())
        .collect();
    out.sort();
    out
}

/// The file's text up to its unit tests (`#[cfg(test)]`), which may do as they like.
fn production_code(path: &Path) -> String {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    match text.find("#[cfg(test)]") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// Lines of production code (not comments) in the files under `dirs` that contain any of
/// `needles`, as `path:line: text`.
fn offending_lines(dirs: &[&str], needles: &[&str], allowed: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for dir in dirs {
        for path in rust_files(dir) {
            let shown = path.display().to_string();
            if allowed.contains(&shown.as_str()) {
                continue;
            }
            for (i, line) in production_code(&path).lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if needles.iter().any(|n| code.contains(n)) {
                    found.push(format!("{shown}:{}: {}", i + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn every_source_file_starts_with_a_doc_line() {
    let missing: Vec<String> = rust_files("src")
        .into_iter()
        .chain(rust_files("tests"))
        .filter(|p| {
            !std::fs::read_to_string(root().join(p))
                .unwrap()
                .starts_with("//!")
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without a leading //! line saying what they are for: {missing:#?}"
    );
}

/// The phases are functions of their inputs: no file system, processes, environment or
/// terminal. (The engine reads only through `trace`'s scanner.)
#[test]
fn phases_do_no_io() {
    let found = offending_lines(
        &[
            "src/analysis",
            "src/ranking",
            "src/engine",
            "src/report",
            "src/explain",
        ],
        &[
            "std::fs",
            "std::process",
            "std::env",
            "File::",
            "print!",
            "println!",
            "eprint",
            "stdout",
            "stderr",
            "dbg!",
        ],
        &[],
    );
    assert!(found.is_empty(), "IO in a phase: {found:#?}");
}

/// Phases take the immutable tables (`&Tables`), never the bundle's files.
#[test]
fn phases_do_not_see_the_bundle_files() {
    let found = offending_lines(
        &["src/analysis", "src/ranking", "src/report", "src/explain"],
        &["Bundle", "TestsFile", "trace::scan", "TestReader"],
        &[],
    );
    assert!(
        found.is_empty(),
        "a phase reaches for the files: {found:#?}"
    );
}

/// Only the command line's output module writes to standard output and standard error (the
/// progress bar draws on stderr through indicatif).
#[test]
fn only_the_output_module_prints() {
    let found = offending_lines(
        &["src"],
        &[
            "print!",
            "println!",
            "eprint!",
            "eprintln!",
            "io::stdout()",
            "io::stderr()",
            "dbg!",
        ],
        &["src/cli/output.rs", "src/cli/progress.rs"],
    );
    assert!(
        found.is_empty(),
        "printing outside cli/output.rs: {found:#?}"
    );
}

/// Renderers format a report value; they compute nothing from the analysis.
#[test]
fn renderers_see_only_the_report() {
    let found = offending_lines(
        &[
            "src/report/render.rs",
            "src/report/layout.rs",
            "src/report/sarif.rs",
            "src/report/junit.rs",
            "src/report/markdown.rs",
            "src/report/html.rs",
            "src/explain",
        ],
        &["crate::analysis", "crate::engine", "crate::ranking"],
        &["src/explain/mod.rs"],
    );
    assert!(
        found.is_empty(),
        "a renderer reaches past the report: {found:#?}"
    );
}

/// In the modules that parse user input, an `unwrap` or `expect` is a panic on bad input
/// unless something makes it impossible; a comment on the line or just above must say what.
#[test]
fn input_parsers_do_not_unwrap_without_a_reason() {
    let parsers: Vec<PathBuf> = rust_files("src/trace")
        .into_iter()
        .chain(rust_files("src/cli"))
        .chain(["src/od/input.rs", "src/od/runner.rs", "src/eval/input.rs"].map(PathBuf::from))
        .collect();
    let mut found = Vec::new();
    for path in parsers {
        let code = production_code(&path);
        let lines: Vec<&str> = code.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code_part = line.split("//").next().unwrap_or("");
            if !(code_part.contains(".unwrap()") || code_part.contains(".expect(")) {
                continue;
            }
            let explained = line.contains("//")
                || lines[i.saturating_sub(3)..i]
                    .iter()
                    .any(|l| l.trim_start().starts_with("//"));
            if !explained {
                found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "unwrap/expect without a comment saying why it cannot fail: {found:#?}"
    );
}

/// Every golden file belongs to a case that a test produces: a shipped bundle's outputs, a
/// malformed case's expected outputs, or the eval goldens.
#[test]
fn no_orphan_golden_file() {
    let mut orphans = Vec::new();
    let golden = root().join("testdata/golden");
    for entry in std::fs::read_dir(&golden).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if !root()
            .join("traces")
            .join(&name)
            .join("manifest.json")
            .is_file()
        {
            orphans.push(format!("testdata/golden/{name}: no bundle traces/{name}"));
            continue;
        }
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("rank.json")).unwrap()).unwrap();
        let mut expected: BTreeSet<String> = [
            "rank.txt",
            "rank-by-test.txt",
            "rank-80.txt",
            "rank-by-test-80.txt",
            "rank.json",
            "rank.csv",
            "rank.sarif",
            "rank.junit.xml",
            "rank.md",
            "validate.txt",
        ]
        .map(String::from)
        .into();
        for t in report["tests"].as_array().unwrap() {
            expected.insert(format!("explain-{}.txt", t["test"].as_str().unwrap()));
        }
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().file_name().to_string_lossy().into_owned();
            if !expected.contains(&file) {
                orphans.push(format!("testdata/golden/{name}/{file}"));
            }
        }
    }
    for entry in std::fs::read_dir(root().join("testdata/malformed")).unwrap() {
        let dir = entry.unwrap().path();
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().file_name().to_string_lossy().into_owned();
            if file.starts_with("expected.")
                && !["expected.validate.txt", "expected.rank.txt"].contains(&file.as_str())
            {
                orphans.push(format!("{}/{file}", dir.display()));
            }
        }
    }
    for file in std::fs::read_dir(root().join("testdata/eval/golden")).unwrap() {
        let file = file.unwrap().file_name().to_string_lossy().into_owned();
        if ![
            "library.txt",
            "library.json",
            "library.csv",
            "library-localize.txt",
            "library-80.txt",
            "library-localize-80.txt",
        ]
        .contains(&file.as_str())
        {
            orphans.push(format!("testdata/eval/golden/{file}"));
        }
    }
    for file in std::fs::read_dir(root().join("testdata/report")).unwrap() {
        let file = file.unwrap().file_name().to_string_lossy().into_owned();
        if !["library.html", "motivating.html", "library.sarif"].contains(&file.as_str()) {
            orphans.push(format!("testdata/report/{file}"));
        }
    }
    assert!(
        orphans.is_empty(),
        "golden files no test writes: {orphans:#?}"
    );
}

/// ARCHITECTURE.md's code map names every folder and file of `src/`, and every `src/` path it
/// names exists.
#[test]
fn the_code_map_matches_the_tree() {
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let mentioned: BTreeSet<String> = doc
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| s.starts_with("src/"))
        .map(|s| s.trim_end_matches('/').to_string())
        .collect();
    let mut missing = Vec::new();
    for file in rust_files("src") {
        let file = file.display().to_string();
        let folder = Path::new(&file).parent().unwrap().display().to_string();
        for path in [file, folder] {
            if path != "src" && !mentioned.contains(&path) {
                missing.push(path);
            }
        }
    }
    missing.sort();
    missing.dedup();
    let stale: Vec<&String> = mentioned
        .iter()
        .filter(|p| !root().join(p).exists())
        .collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "ARCHITECTURE.md's code map lacks {missing:#?} and names what does not exist: {stale:#?}"
    );
}

/// A panic is a bug, never bad input: it exits with code 1 (`cli::exit::INTERNAL`) and a
/// message, not Rust's 101. Debug builds panic on purpose when `PAF_TEST_PANIC` is set.
#[test]
fn a_panic_exits_with_the_internal_error_code() {
    let out = common::run(
        &["validate", "traces/motivating"],
        &[("PAF_TEST_PANIC", "1")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error: internal error: paf panicked"),
        "{stderr}"
    );
}
