//! Where the Java front end's jars come from: `--tracer-dir`, `$PAF_TRACER_JAVA`, the checkout
//! the binary lives in, or the tracer's sources embedded in this binary and built once (with
//! the JDK's `javac`) into a per-user cache, so that an installed `paf` needs only a JDK.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::super::super::CliError;

/// The tracer's files, embedded: its build script and sources (a test checks the list is
/// complete).
macro_rules! embed {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/tracer/java/", $path)))),*]
    };
}

const FILES: &[(&str, &[u8])] = embed![
    "build.sh",
    "src/agent/paf/agent/Agent.java",
    "src/instr/paf/instr/BciMap.java",
    "src/instr/paf/instr/BodyLines.java",
    "src/instr/paf/instr/ClassCache.java",
    "src/instr/paf/instr/FieldLines.java",
    "src/instr/paf/instr/Frames.java",
    "src/instr/paf/instr/Hierarchy.java",
    "src/instr/paf/instr/IndexScan.java",
    "src/instr/paf/instr/Instrumenter.java",
    "src/instr/paf/instr/MethodInstrumenter.java",
    "src/instr/paf/instr/Reg.java",
    "src/instr/paf/instr/Split.java",
    "src/instr/paf/instr/StaticDuas.java",
    "src/instr/paf/instr/TestSites.java",
    "src/rt/paf/rt/Compactor.java",
    "src/rt/paf/rt/IdMap.java",
    "src/rt/paf/rt/Out.java",
    "src/rt/paf/rt/R.java",
    "src/runner/paf/runner/BatchRunner.java",
    "src/runner/paf/runner/CdsList.java",
    "src/runner/paf/runner/OrderRunner.java",
    "src/runner/paf/runner/Supervisor.java",
    "src/runner/paf/runner/TraceMain.java",
];

/// The built front end: the directory of its jars.
pub(super) struct Tracer {
    jars: PathBuf,
}

/// The jars' class paths the build and the runs use (`--asm`, `--junit` or their defaults).
pub(super) struct Deps<'a> {
    pub asm: &'a str,
    pub junit: &'a str,
}

impl Tracer {
    /// The front end whose jars are in `jars` (a test's).
    #[cfg(test)]
    pub(super) fn at(jars: PathBuf) -> Tracer {
        Tracer { jars }
    }

    pub(super) fn jar(&self, name: &str) -> PathBuf {
        self.jars.join(name)
    }

    /// Finds (and builds, when its jars are missing) the front end: `flag` (`--tracer-dir`),
    /// else `$PAF_TRACER_JAVA`, else the checkout the running binary was built in
    /// (`target/*/paf`), else the embedded copy. A directory named by the flag or the variable
    /// must hold the front end.
    pub(super) fn find(flag: Option<&Path>, deps: &Deps<'_>) -> Result<Tracer, CliError> {
        let named = match flag {
            Some(dir) => Some((dir.to_path_buf(), "--tracer-dir")),
            None => {
                std::env::var_os("PAF_TRACER_JAVA").map(|d| (PathBuf::from(d), "$PAF_TRACER_JAVA"))
            }
        };
        if let Some((dir, what)) = named {
            if !dir.join("build.sh").is_file() {
                return Err(CliError::Usage(format!(
                    "{what} {}: not the Java front end (no build.sh in it)",
                    dir.display()
                )));
            }
            return checkout(&dir, deps);
        }
        let beside = std::env::current_exe().ok().and_then(|exe| {
            exe.ancestors()
                .skip(1)
                .take(3)
                .map(|up| up.join("tracer/java"))
                .find(|d| d.join("build.sh").is_file() && d.join("src").is_dir())
        });
        match beside {
            Some(dir) => checkout(&dir, deps),
            None => embedded(deps),
        }
    }
}

/// A checkout's tracer/java: built in place (`build/`) when a jar is missing.
fn checkout(dir: &Path, deps: &Deps<'_>) -> Result<Tracer, CliError> {
    let jars = dir.join("build");
    if !built(&jars) {
        build(dir, &jars, deps)?;
    }
    Ok(Tracer { jars })
}

fn built(jars: &Path) -> bool {
    [
        "paf-agent.jar",
        "paf-rt.jar",
        "paf-instr.jar",
        "paf-runner.jar",
    ]
    .iter()
    .all(|j| jars.join(j).is_file())
}

/// Runs build.sh into `jars`.
fn build(dir: &Path, jars: &Path, deps: &Deps<'_>) -> Result<(), CliError> {
    super::super::super::output::note(format!(
        "paf trace: building the Java front end into {}",
        jars.display()
    ));
    let status = Command::new("bash")
        .arg(dir.join("build.sh"))
        .env("PAF_TRACER_BUILD", jars)
        .env("PAF_ASM_CLASSPATH", deps.asm)
        .env("PAF_JUNIT_CLASSPATH", deps.junit)
        .stdout(super::super::super::output::child_messages())
        .status()
        .map_err(|e| {
            CliError::Usage(format!("cannot run bash to build the Java front end: {e}"))
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(CliError::Usage(format!(
            "building the Java front end failed ({}): a JDK (javac, jar), ASM and JUnit 4 are \
             needed; pass --asm and --junit (or set PAF_ASM_CLASSPATH, PAF_JUNIT_CLASSPATH) if \
             they are not Debian's",
            dir.join("build.sh").display()
        )))
    }
}

/// The embedded copy, built once per version of the sources into the per-user cache.
fn embedded(deps: &Deps<'_>) -> Result<Tracer, CliError> {
    let root = cache_root().ok_or_else(|| {
        CliError::Usage(
            "no cache directory for the Java front end: set XDG_CACHE_HOME or HOME, or pass \
             --tracer-dir"
                .to_string(),
        )
    })?;
    let dir = root.join(format!("tracer-java-{:016x}", sources_hash()));
    let jars = dir.join("build");
    if built(&jars) {
        return Ok(Tracer { jars });
    }
    // Built aside and renamed into place, so that two paf runs never see half a build.
    let tmp = root.join(format!(
        ".tracer-java-{:016x}-{}",
        sources_hash(),
        std::process::id()
    ));
    let cache_error =
        |e: std::io::Error| CliError::Usage(format!("{}: cannot write: {e}", tmp.display()));
    let _ = std::fs::remove_dir_all(&tmp);
    for (path, bytes) in FILES {
        let file = tmp.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).map_err(cache_error)?;
        }
        std::fs::write(&file, bytes).map_err(cache_error)?;
    }
    let result = build(&tmp, &tmp.join("build"), deps);
    if result.is_ok() && std::fs::rename(&tmp, &dir).is_err() && built(&jars) {
        // another paf run finished the same build first
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result?;
    if built(&jars) {
        Ok(Tracer { jars })
    } else {
        Err(CliError::Internal(format!(
            "the Java front end was built but {} lacks its jars",
            dir.display()
        )))
    }
}

/// `$XDG_CACHE_HOME/paf`, else `$HOME/.cache/paf`.
fn cache_root() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("paf"))
}

/// A hash of the embedded files: a new version of the sources gets a new cache directory.
fn sources_hash() -> u64 {
    let mut h = DefaultHasher::new();
    for (path, bytes) in FILES {
        path.hash(&mut h);
        bytes.hash(&mut h);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every source file of tracer/java (and its build script) is embedded, and nothing else.
    #[test]
    fn the_embedded_files_are_the_tracers_sources() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tracer/java");
        let mut found = vec!["build.sh".to_string()];
        let mut todo = vec![root.join("src")];
        while let Some(dir) = todo.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    todo.push(path);
                } else if path.extension().is_some_and(|e| e == "java") {
                    found.push(path.strip_prefix(&root).unwrap().display().to_string());
                }
            }
        }
        found.sort();
        let mut embedded: Vec<String> = FILES.iter().map(|(p, _)| (*p).to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, found);
    }
}
