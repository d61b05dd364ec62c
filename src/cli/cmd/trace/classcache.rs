//! The class cache of worker 0's instrumenter: the file it replays classes from and records them
//! in, named by a key of everything else the instrumentation reads.
//!
//! Why: instrumenting a suite's classes and compiling the instrumenter cost mockachino's traced
//! run about 0.3 s of CPU against a plain run of 0.26 s (docs/performance.md, "Thirty-second
//! round"). A second run of the same suite loads the same classes in the same order and gives
//! them the same ids, so the instrumented bytes can be kept ("Thirty-fourth round").
//!
//! How (docs/java.md, "The class cache"): the agent (`paf.instr.ClassCache`) checks each class
//! it replays against its record (name, bytes, and the ids given out before it) and goes on
//! instrumenting from the first class that differs. What it cannot check, the key covers: the
//! JDK, the tracer's and ASM's jars, worker 0's JVM arguments (the agent's options, the class
//! path, the user's JVM flags) but its work directory, the diagnostics' variables, and the
//! files of the class path and the source path (name, length, modification time; the contents of
//! the test classes compiled from `--randoop`'s folder, which are new files at every run).

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::cds::which;
use super::tracer::Tracer;

/// Cache files kept per tracer build: one per suite traced lately.
const KEPT: usize = 8;

/// A class path or source path with more files than this gets no cache: stating them all
/// would cost every run more than the cache saves.
const MAX_FILES: usize = 200_000;

/// Directories deeper than this under a class path or source path entry (a link to a directory
/// above it) get no cache.
const MAX_DEPTH: usize = 64;

/// The class archive's flags (cds.rs), left out of the key.
const CDS_FLAGS: [&str; 2] = ["-XX:SharedArchiveFile=", "-XX:DumpLoadedClassList="];

/// The environment variables of the instrumenter's diagnostics (docs/java.md): each changes
/// what it makes.
const DIAGNOSTICS: [&str; 4] = [
    "PAF_FRAMES",
    "PAF_SPLIT",
    "PAF_SPLIT_EXITS",
    "PAF_TEST_SITES",
];

/// The cache file of `key` ([`key`]), marked as used now; `None` if its directory cannot be
/// made.
pub(super) fn path(tracer: &Tracer, key: &str) -> Option<PathBuf> {
    let dir = tracer.jar("class-cache");
    std::fs::create_dir_all(&dir).ok()?;
    let file = dir.join(format!("{key}.classes"));
    // the newest files are kept: this one is used now
    if let Ok(f) = std::fs::File::options().append(true).open(&file) {
        let _ = f.set_modified(SystemTime::now());
    }
    prune(&dir, &file);
    Some(file)
}

/// Keeps the newest [`KEPT`] cache files (and `used`); the rest goes, with files a killed run
/// left half written.
fn prune(dir: &Path, used: &Path) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(SystemTime, PathBuf)> = read
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.as_path() != used)
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    let day = std::time::Duration::from_secs(86_400);
    for (i, (when, p)) in files.iter().enumerate() {
        let stale_tmp =
            p.extension().is_some_and(|x| x == "tmp") && when.elapsed().is_ok_and(|age| age > day);
        let surplus = p.extension().is_some_and(|x| x == "classes") && i + 1 >= KEPT;
        if stale_tmp || surplus {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// The key (hex) of what the instrumentation reads besides the classes it checks itself, for
/// worker 0's command line `args` (its work directory `work`), or `None` when a file cannot be
/// read (then no cache is used). `fresh`: a directory whose files are new at every run
/// (`--randoop`'s compiled tests), stamped by content.
pub(super) fn key(
    tracer: &Tracer,
    java: &OsStr,
    args: &[OsString],
    work: &Path,
    sourcepath: Option<&str>,
    fresh: Option<&Path>,
) -> Option<String> {
    let java = which(java)?;
    let mut text = String::from("paf class cache 1\n");
    let modules = java.parent()?.parent()?.join("lib/modules");
    for f in [java.clone(), modules].into_iter().chain(
        [
            "paf-rt.jar",
            "paf-instr.jar",
            "paf-agent.jar",
            "paf-runner.jar",
        ]
        .map(|j| tracer.jar(j)),
    ) {
        stamp(&mut text, &f, &std::fs::metadata(&f).ok()?);
    }
    let work = work.to_string_lossy();
    let mut classpath = None;
    // the JVM's arguments: the runner's after its class (the tests, again, and how their output
    // goes) are not the instrumenter's
    let jvm = args
        .iter()
        .position(|a| a == "paf.runner.TraceMain")
        .map_or(args.len(), |i| i + 1);
    for (i, arg) in args[..jvm].iter().enumerate() {
        let arg = arg.to_string_lossy();
        // where the JVM takes classes from, not what they are: a run that makes the class
        // archive and the next, which maps it, share the cache
        if CDS_FLAGS.iter().any(|f| arg.starts_with(f)) {
            continue;
        }
        let mut arg = arg.replace(work.as_ref(), "WORK");
        if let Some(f) = fresh {
            arg = arg.replace(f.to_string_lossy().as_ref(), "FRESH");
        }
        let _ = writeln!(text, "arg {arg}");
        if i > 0 && args[i - 1] == "-cp" {
            classpath = Some(args[i].to_string_lossy().into_owned());
        }
        // the agent's asm= option names ASM's jars
        if let Some(opts) = arg.strip_prefix("-agentlib:instrument=") {
            for o in opts.split(';') {
                if let Some(asm) = o.strip_prefix("asm=") {
                    walk_entries(&mut text, asm, None)?;
                }
            }
        }
    }
    for v in DIAGNOSTICS {
        let _ = writeln!(text, "env {v}={:?}", std::env::var_os(v));
    }
    walk_entries(&mut text, &classpath?, fresh)?;
    if let Some(s) = sourcepath {
        walk_entries(&mut text, s, None)?;
    }
    Some(format!(
        "{:032x}",
        xxhash_rust::xxh3::xxh3_128(text.as_bytes())
    ))
}

/// Stamps each entry of a `:`-separated path: a file by its metadata, a directory by its files'
/// (or by their contents, for `fresh`), a missing entry as missing.
fn walk_entries(text: &mut String, path: &str, fresh: Option<&Path>) -> Option<()> {
    let mut budget = MAX_FILES;
    for e in path.split(':').filter(|e| !e.is_empty()) {
        let p = Path::new(e);
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => {
                let named = if Some(p) == fresh { "FRESH" } else { e };
                let _ = writeln!(text, "dir {named}");
                walk(text, p, p, Some(p) == fresh, &mut budget)?;
            }
            Ok(m) => stamp(text, p, &m),
            Err(_) => {
                let _ = writeln!(text, "missing {e}");
            }
        }
    }
    Some(())
}

fn walk(
    text: &mut String,
    root: &Path,
    dir: &Path,
    by_content: bool,
    budget: &mut usize,
) -> Option<()> {
    // a directory linked into itself would never end: deeper than any package, no cache
    if dir.strip_prefix(root).ok()?.components().count() > MAX_DEPTH {
        return None;
    }
    let mut children: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    children.sort();
    for c in children {
        let m = std::fs::metadata(&c).ok()?;
        if m.is_dir() {
            walk(text, root, &c, by_content, budget)?;
            continue;
        }
        *budget = budget.checked_sub(1)?;
        let rel = c.strip_prefix(root).unwrap_or(&c);
        if by_content {
            let bytes = std::fs::read(&c).ok()?;
            let _ = writeln!(
                text,
                "{} {:016x}",
                rel.display(),
                xxhash_rust::xxh3::xxh3_64(&bytes)
            );
        } else {
            stamp(text, rel, &m);
        }
    }
    Some(())
}

/// A file's line of a key: its path, length and modification time (cds.rs's key too).
pub(super) fn stamp(text: &mut String, f: &Path, m: &std::fs::Metadata) {
    let _ = writeln!(
        text,
        "{} {} {}.{}",
        f.display(),
        m.len(),
        m.mtime(),
        m.mtime_nsec()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_of(dir: &Path, fresh: bool) -> String {
        let mut text = String::new();
        walk_entries(&mut text, &dir.display().to_string(), fresh.then_some(dir)).unwrap();
        text
    }

    #[test]
    fn a_directory_is_stamped_by_its_files_metadata_and_a_fresh_one_by_their_contents() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("p")).unwrap();
        std::fs::write(d.path().join("p/A.class"), "a").unwrap();
        let (meta, content) = (key_of(d.path(), false), key_of(d.path(), true));
        // the same bytes written again: a new time, the same contents
        std::fs::write(d.path().join("p/A.class"), "a").unwrap();
        let later = SystemTime::now() + std::time::Duration::from_secs(60);
        let f = std::fs::File::options()
            .append(true)
            .open(d.path().join("p/A.class"))
            .unwrap();
        f.set_modified(later).unwrap();
        assert_ne!(key_of(d.path(), false), meta);
        assert_eq!(key_of(d.path(), true), content);
        std::fs::write(d.path().join("p/A.class"), "b").unwrap();
        assert_ne!(key_of(d.path(), true), content);
        assert!(content.contains(&format!(
            "p/A.class {:016x}",
            xxhash_rust::xxh3::xxh3_64(b"a")
        )));
    }

    #[test]
    fn a_directory_linked_into_itself_gives_no_key() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("p")).unwrap();
        std::fs::write(d.path().join("p/A.class"), "a").unwrap();
        std::os::unix::fs::symlink(d.path(), d.path().join("p/loop")).unwrap();
        let mut text = String::new();
        assert_eq!(
            walk_entries(&mut text, &d.path().display().to_string(), None),
            None
        );
    }

    #[test]
    fn prune_keeps_the_newest_files_and_the_one_in_use() {
        let d = tempfile::tempdir().unwrap();
        let t0 = SystemTime::now() - std::time::Duration::from_secs(1000);
        let mut all = vec![];
        for i in 0..12u64 {
            let p = d.path().join(format!("{i}.classes"));
            let f = std::fs::File::create(&p).unwrap();
            f.set_modified(t0 + std::time::Duration::from_secs(i * 10))
                .unwrap();
            all.push(p);
        }
        // 0 is the oldest, and in use
        prune(d.path(), &all[0]);
        let left: Vec<bool> = all.iter().map(|p| p.exists()).collect();
        // the one in use, and the KEPT - 1 newest others (11, 10, ... 5)
        let want: Vec<bool> = (0..12).map(|i| i == 0 || i >= 12 - (KEPT - 1)).collect();
        assert_eq!(left, want);
    }
}
