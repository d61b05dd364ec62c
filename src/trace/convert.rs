//! Rewriting a bundle in another storage form (`paf convert`): each record file decompressed
//! and compressed again as asked, its bytes otherwise unchanged, and `tests.marks` made for the
//! tests file (from a scan of its bytes as the copy decompresses them), so that a bundle that
//! gzip, zstd's own tool or an older paf compressed becomes one that paf reads from its middle
//! (docs/trace-format.md, docs/performance.md "Thirtieth round").
//!
//! The new bundle is written into a staging directory beside `out` (`.NAME.paf-convert-PID`)
//! and renamed to `out` when complete, so a failed conversion leaves nothing behind, and `out`
//! must be new: the input is never written. A killed conversion's directory is removed by the
//! next conversion to the same `out` ([`super::staging`]).

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::SyncSender;

use super::problem::Problem;
use super::scan::Marks;
use super::write::{Behind, Compression};
use super::{MARKS_FILE, find_jsonl, lines};

/// The record files of a bundle, by name without `.jsonl` and its suffix.
const RECORD_FILES: [&str; 4] = ["statements", "static-duas", "tests", "isolated"];

/// What a conversion wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Converted {
    /// Each record file: its name in the bundle, its name in the new one, its decompressed bytes.
    pub files: Vec<(String, String, u64)>,
    /// The tests (begin records) `tests.marks` places, or why the new bundle has no marks.
    pub marks: Result<usize, &'static str>,
    /// Other regular files of the bundle (`manifest.json` first), copied as they are.
    pub copied: Vec<String>,
    /// Entries of the bundle that are not regular files, not copied.
    pub left_out: Vec<String>,
}

/// Writes the bundle at `bundle` (its directory or its `manifest.json`) as a new bundle at
/// `out`, every record file compressed as `to` says, its decompressed bytes the same.
pub fn convert(bundle: &Path, out: &Path, to: Compression) -> Result<Converted, Vec<Problem>> {
    let dir = &super::existing_bundle_dir(bundle).map_err(|p| vec![p])?;
    // Checked as any command reading the bundle checks it: a manifest of another format or
    // version is not converted.
    super::read_manifest(&dir.join("manifest.json")).map_err(|p| vec![p])?;
    let parent = new_output(out)?;
    let mut problems = Vec::new();
    let mut sources = Vec::new();
    for name in RECORD_FILES {
        match find_jsonl(dir, name, matches!(name, "statements" | "tests")) {
            Ok(Some(path)) => sources.push((name, path)),
            Ok(None) => {}
            Err(p) => problems.push(p),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let (copied, left_out) = other_entries(dir, &sources)?;
    let work = staging_dir(out, parent)?;
    let tests = sources
        .iter()
        .find(|(name, _)| *name == "tests")
        .map(|(_, path)| path.clone())
        .expect("tests is required"); // find_jsonl returned it or an error
    // The marks come from a scan of the tests file's bytes as the copy decompresses them (they
    // are the new file's), on a thread of its own beside the copy.
    let (tee, chunks) = std::sync::mpsc::sync_channel(4);
    let (files, marks) = std::thread::scope(|scope| {
        let marks = scope.spawn(|| Marks::of_chunks(&tests, chunks));
        let files = copy_records(&sources, work.path(), to, out, tee);
        let marks = marks.join().unwrap_or_else(|_| {
            Err(Problem::in_file(
                &tests,
                "internal error: the scan for its marks failed",
            ))
        });
        (files, marks)
    });
    let files = files?;
    let tests_len = files
        .iter()
        .find(|(from, _, _)| from.starts_with("tests."))
        .map_or(0, |f| f.2);
    let marks = match marks.map_err(|p| vec![p])? {
        Some(m) if m.file_len() == tests_len => {
            let text = m.text();
            fs::write(work.path().join(MARKS_FILE), &text).map_err(|e| {
                vec![Problem::in_file(
                    &out.join(MARKS_FILE),
                    format!("cannot write: {e}"),
                )]
            })?;
            Ok(text.lines().filter(|l| l.starts_with("b ")).count())
        }
        Some(_) => Err("its scan did not reach the end of the tests file"),
        None => Err("a line of the tests file is longer than 4 MiB"),
    };
    for name in &copied {
        fs::copy(dir.join(name), work.path().join(name)).map_err(|e| {
            vec![Problem::in_file(
                &dir.join(name),
                format!("cannot copy: {e}"),
            )]
        })?;
    }
    let work = work.keep();
    if let Err(e) = fs::rename(&work, out) {
        let _ = fs::remove_dir_all(&work);
        return Err(vec![Problem::in_file(out, format!("cannot write: {e}"))]);
    }
    Ok(Converted {
        files,
        marks,
        copied,
        left_out,
    })
}

/// The directory to hold `out`, which must not exist yet (so never the input).
fn new_output(out: &Path) -> Result<&Path, Vec<Problem>> {
    if fs::symlink_metadata(out).is_ok() {
        return Err(vec![Problem::in_file(
            out,
            "already exists: expected a new directory for -o (paf convert writes a new bundle)",
        )]);
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(vec![Problem::in_file(
            parent,
            "no such directory: expected the directory to hold the new bundle",
        )]);
    }
    Ok(parent)
}

/// This conversion's staging directory beside `out` (removed when dropped), once those of
/// killed conversions to `out` are swept. It is named for this process, not at random, so that
/// the next conversion to `out` can tell a killed one's directory from a running one's.
fn staging_dir(out: &Path, parent: &Path) -> Result<tempfile::TempDir, Vec<Problem>> {
    let name = out.file_name().ok_or_else(|| {
        vec![Problem::in_file(
            out,
            "expected a directory name for -o (paf convert writes a new bundle)",
        )]
    })?;
    let staging = super::staging::path(parent, name, "convert");
    super::staging::sweep(&staging);
    tempfile::Builder::new()
        .prefix(staging.file_name().unwrap_or_default())
        .rand_bytes(0)
        .tempdir_in(parent)
        .map_err(|e| {
            vec![Problem::in_file(
                parent,
                format!("cannot write: {}", e.kind()),
            )]
        })
}

/// The bundle's entries other than its record files and marks, by name, sorted
/// (`manifest.json` first): the regular files (or links to one) to copy, and the rest.
fn other_entries(
    dir: &Path,
    sources: &[(&str, PathBuf)],
) -> Result<(Vec<String>, Vec<String>), Vec<Problem>> {
    let cannot = |e: std::io::Error| vec![Problem::in_file(dir, format!("cannot read: {e}"))];
    let mut copied = vec!["manifest.json".to_string()];
    let mut left_out = Vec::new();
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(cannot)? {
        names.push(entry.map_err(cannot)?.file_name());
    }
    names.sort();
    for name in names {
        let path = dir.join(&name);
        let known = name == "manifest.json"
            || name == MARKS_FILE
            || sources.iter().any(|(_, p)| *p == path);
        if known {
            continue;
        }
        let name = name.to_string_lossy().into_owned();
        if fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            copied.push(name);
        } else {
            left_out.push(name);
        }
    }
    Ok((copied, left_out))
}

/// Copies each record file into `work`, decompressed and compressed as `to` says: for each,
/// its name, its new name, and its decompressed bytes. The tests file's decompressed bytes go
/// to `tee` too, in chunks. `out` names the new bundle in messages.
fn copy_records(
    sources: &[(&str, PathBuf)],
    work: &Path,
    to: Compression,
    out: &Path,
    tee: SyncSender<Vec<u8>>,
) -> Result<Vec<(String, String, u64)>, Vec<Problem>> {
    let mut tee = Some(tee);
    let mut files = Vec::new();
    for (name, from) in sources {
        let new = format!("{name}.jsonl{}", to.suffix());
        let cannot_write = |e: std::io::Error| {
            vec![Problem::in_file(
                &out.join(&new),
                format!("cannot write: {e}"),
            )]
        };
        let (mut input, _) = lines::open_decoded(from).map_err(|p| vec![p])?;
        let mut output = Behind::create(&work.join(&new), to).map_err(cannot_write)?;
        let mut buf = vec![0; 1 << 20];
        let mut bytes = 0u64;
        loop {
            let n = match input.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(vec![Problem::in_file(from, format!("cannot read: {e}"))]);
                }
            };
            if *name == "tests"
                && let Some(t) = &tee
                && t.send(buf[..n].to_vec()).is_err()
            {
                // The scan stopped (it reads to the end): its marks say what it found.
                tee = None;
            }
            output.write_all(&buf[..n]).map_err(cannot_write)?;
            bytes += n as u64;
        }
        if *name == "tests" {
            // The end of the tests file's bytes, for the scan.
            tee = None;
        }
        output.finish().map_err(cannot_write)?;
        let old = from.file_name().unwrap_or_default().to_string_lossy();
        files.push((old.into_owned(), new, bytes));
    }
    Ok(files)
}
