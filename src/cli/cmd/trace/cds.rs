//! The class archive (CDS) of the tracer's JVMs: made once per JDK and set of jars from what a
//! traced run loaded, then mapped by the worker and the supervisor of every later run.
//!
//! Why: a JVM with the agent loads about 1,300 classes before its tests end; the JDK's own
//! archive holds 840 of them, and the rest (the JDK's classes the agent and the runner need,
//! JUnit, paf's runner, the instrumenter and ASM) were read from jars, parsed and verified at
//! every run. On the static-state example the worker alone took 214 ms with the JDK's archive
//! and 169 ms with this one; the whole command 257 ms and 209 ms (docs/performance.md,
//! "Twenty-third round"). A plain JUnit run pays none of that.
//!
//! How (docs/java.md, "The class archive"): a run that finds no archive for its key lists the
//! classes its worker 0 and its supervisor load (`-XX:DumpLoadedClassList`); after the bundle is
//! in place, `paf.runner.CdsList` adds the instrumenter's and ASM's classes (they live in a class
//! loader of their own, which the JDK does not list) and `java -Xshare:dump` writes the archive.
//! The archive holds classes of a class path (`paf-runner.jar` then JUnit's jars) and of a boot
//! class path (`paf-rt.jar`, which the agent's manifest appends): a JVM maps it only when its own
//! paths begin with these, so the worker's class path puts JUnit before the project's classes.
//! That order is taken only when the project's class path holds neither JUnit nor hamcrest
//! (nothing of it can be shadowed); otherwise (a Maven project's class path has both) the
//! archive's class path is the runner's jar alone, and the order stays. When the user's JVM flags
//! deal with class data sharing themselves, or with `PAF_CDS=off`, no archive is used or made.
//!
//! The key names the JDK (its `java` and `lib/modules`: path, length, modification time) and
//! every jar (the same): an upgraded JDK or jar gets a new archive, since the JVM would refuse
//! the old one and then share nothing at all, not even the JDK's own archive. What an archive
//! changes is only where classes come from: the bundle is the same.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use super::super::super::output;
use super::JavaArgs;
use super::classcache::stamp;
use super::project::Job;
use super::tracer::{Deps, Tracer};
use super::worker::{absolute, has_any};

/// Classes whose presence in the project's class path keeps JUnit's jars after it (so no
/// archive): JUnit 4's entry point, JUnit 3's test case, hamcrest's matcher.
const SHADOWED: [&str; 3] = [
    "org/junit/runner/JUnitCore.class",
    "junit/framework/TestCase.class",
    "org/hamcrest/Matcher.class",
];

/// JVM flags with which a user takes class data sharing (or the boot class path) in hand.
const USERS_OWN: [&str; 6] = [
    "Xshare",
    "SharedArchiveFile",
    "SharedClassListFile",
    "DumpLoadedClassList",
    "ArchiveClassesAtExit",
    "Xbootclasspath",
];

/// Archives kept per tracer build: one per JDK and set of jars used lately.
const KEPT: usize = 4;

/// A training run that started this long ago and left its lock behind was killed.
const STALE_LOCK: Duration = Duration::from_secs(600);

/// What this run does about the class archive.
pub(super) enum Cds {
    /// Nothing: the class path stays as it was, and no archive is used or made.
    Off,
    /// The JVMs map this archive, whose class path has JUnit's jars after the runner's if
    /// `junit`.
    Use { archive: PathBuf, junit: bool },
    /// The JVMs list what they load; the archive is made after the run ([`Training::make`]).
    Train(Training),
}

/// A run that lists its classes for the archive of `key`.
pub(super) struct Training {
    dir: PathBuf,
    key: String,
    junit: bool,
    worker: PathBuf,
    supervisor: PathBuf,
    lock: PathBuf,
}

impl Cds {
    /// The archive for this run's JDK and jars: the one made before, or a training run (unless
    /// another run is training), or none.
    pub(super) fn plan(
        a: &JavaArgs,
        job: &Job,
        tracer: &Tracer,
        java: &OsStr,
        deps: &Deps<'_>,
    ) -> Cds {
        if off(std::env::var_os("PAF_CDS").as_deref(), &a.jvm_args) {
            return Cds::Off;
        }
        let junit = junit_may_come_first(&job.classpath);
        let Some(key) = key(java, tracer, deps, junit) else {
            return Cds::Off;
        };
        let dir = tracer.jar("cds");
        let archive = dir.join(format!("{key}.jsa"));
        if archive.is_file() {
            return Cds::Use { archive, junit };
        }
        if dir.join(format!("{key}.failed")).exists() || std::fs::create_dir_all(&dir).is_err() {
            return Cds::Off;
        }
        let lock = dir.join(format!("{key}.lock"));
        let stale = std::fs::metadata(&lock)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > STALE_LOCK));
        if stale {
            let _ = std::fs::remove_file(&lock);
        }
        // one run trains; the others meanwhile run as without an archive
        if File::create_new(&lock).is_err() {
            return Cds::Off;
        }
        let pid = std::process::id();
        Cds::Train(Training {
            worker: dir.join(format!("{key}.{pid}.worker.classlist")),
            supervisor: dir.join(format!("{key}.{pid}.supervisor.classlist")),
            dir,
            key,
            junit,
            lock,
        })
    }

    /// Whether JUnit's jars come first in the worker's class path (where the archive has them).
    pub(super) fn junit_first(&self) -> bool {
        match self {
            Cds::Off => false,
            Cds::Use { junit, .. } => *junit,
            Cds::Train(t) => t.junit,
        }
    }

    /// Worker 0's flags (before the user's, which win).
    pub(super) fn worker_flags(&self) -> Vec<OsString> {
        match self {
            Cds::Off => vec![],
            Cds::Use { archive, .. } => vec![flag("-XX:SharedArchiveFile=", archive)],
            Cds::Train(t) => vec![flag("-XX:DumpLoadedClassList=", &t.worker)],
        }
    }

    /// The supervisor JVM's flags, and its class path.
    pub(super) fn supervisor_flags(&self, tracer: &Tracer, deps: &Deps<'_>) -> Vec<OsString> {
        let runner = absolute(tracer.jar("paf-runner.jar")).into_os_string();
        let mut flags = match self {
            Cds::Off => return vec!["-cp".into(), runner],
            Cds::Use { archive, .. } => vec![flag("-XX:SharedArchiveFile=", archive)],
            Cds::Train(t) => vec![flag("-XX:DumpLoadedClassList=", &t.supervisor)],
        };
        flags.push(flag(
            "-Xbootclasspath/a:",
            &absolute(tracer.jar("paf-rt.jar")),
        ));
        flags.extend(["-cp".into(), class_path(tracer, deps, self.junit_first())]);
        flags
    }

    /// The supervisor's own flags for its workers 1, 2, ...: the class path's order, and the
    /// archive (a training run lists worker 0's classes alone).
    pub(super) fn supervisor_args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = Vec::new();
        if self.junit_first() {
            args.push("--junit-first".into());
        }
        if let Cds::Use { archive, .. } = self {
            args.extend(["--cds".into(), archive.into()]);
        }
        args
    }
}

impl Training {
    /// Makes the archive from the lists the run's JVMs wrote; a failure is noted (with `-v`)
    /// and leaves the next runs without an archive for this key.
    pub(super) fn make(&self, tracer: &Tracer, java: &OsStr, deps: &Deps<'_>, verbose: bool) {
        let log = self.dir.join(format!("{}.log", self.key));
        match self.dump(tracer, java, deps, &log) {
            Ok(archive) => {
                if verbose {
                    output::note(format!(
                        "paf trace: the tracer's class archive, made once for this JDK and these jars -> {}",
                        archive.display()
                    ));
                }
                prune(&self.dir);
            }
            Err(why) => {
                let _ = std::fs::write(self.dir.join(format!("{}.failed", self.key)), &why);
                if verbose {
                    output::note(format!(
                        "paf trace: no class archive for the tracer ({why}; {}); runs go on without one",
                        log.display()
                    ));
                }
            }
        }
    }

    /// The lists' classes and the instrumenter's into `KEY.jsa`.
    fn dump(
        &self,
        tracer: &Tracer,
        java: &OsStr,
        deps: &Deps<'_>,
        log: &Path,
    ) -> Result<PathBuf, String> {
        let pid = std::process::id();
        let aside = |what: &str| self.dir.join(format!("{}.{pid}.{what}", self.key));
        let (loaded, list, joined, made) = (
            aside("loaded"),
            aside("classlist"),
            aside("joined.jar"),
            aside("jsa"),
        );
        let result = (|| {
            let worker = std::fs::read_to_string(&self.worker)
                .map_err(|e| format!("{}: {e}", self.worker.display()))?;
            // the supervisor's classes after the worker's, each once
            let supervisor = std::fs::read_to_string(&self.supervisor).unwrap_or_default();
            let seen: std::collections::HashSet<&str> = worker.lines().collect();
            let mut both = worker.clone();
            for line in supervisor.lines().filter(|l| !seen.contains(l)) {
                both.push_str(line);
                both.push('\n');
            }
            std::fs::write(&loaded, both).map_err(|e| format!("{}: {e}", loaded.display()))?;
            let mut instr = vec![absolute(tracer.jar("paf-instr.jar")).into_os_string()];
            instr.extend(entries(deps.asm));
            run(
                Command::new(java)
                    .arg("-cp")
                    .arg(tracer.jar("paf-runner.jar"))
                    .arg("paf.runner.CdsList")
                    .args([&loaded, &list, &joined])
                    .args(instr)
                    .arg("--")
                    .arg(absolute(tracer.jar("paf-runner.jar")))
                    .args(if self.junit {
                        entries(deps.junit)
                    } else {
                        vec![]
                    }),
                log,
                "listing the classes",
            )?;
            run(
                Command::new(java)
                    .arg("-Xshare:dump")
                    .arg(flag("-XX:SharedClassListFile=", &list))
                    .arg(flag("-XX:SharedArchiveFile=", &made))
                    .arg(flag(
                        "-Xbootclasspath/a:",
                        &absolute(tracer.jar("paf-rt.jar")),
                    ))
                    .arg("-cp")
                    .arg(class_path(tracer, deps, self.junit)),
                log,
                "java -Xshare:dump",
            )?;
            let archive = self.dir.join(format!("{}.jsa", self.key));
            std::fs::rename(&made, &archive).map_err(|e| format!("{}: {e}", archive.display()))?;
            Ok(archive)
        })();
        for f in [&loaded, &list, &joined, &made] {
            let _ = std::fs::remove_file(f);
        }
        result
    }
}

/// A run that ends, made the archive or not, leaves neither its lists nor its lock.
impl Drop for Training {
    fn drop(&mut self) {
        for f in [&self.worker, &self.supervisor, &self.lock] {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// Whether no archive is used or made: `PAF_CDS=off`, or the user's JVM flags deal with class
/// data sharing or the boot class path.
fn off(env: Option<&OsStr>, jvm_args: &[String]) -> bool {
    env.is_some_and(|v| v == "off" || v == "0")
        || jvm_args
            .iter()
            .any(|x| USERS_OWN.iter().any(|f| x.contains(f)))
}

/// Whether JUnit's jars may come before the project's class path, shadowing nothing of it.
fn junit_may_come_first(classpath: &str) -> bool {
    !has_any(classpath, &SHADOWED)
}

/// Runs `cmd`, its output appended to `log`; an error names `what`.
fn run(cmd: &mut Command, log: &Path, what: &str) -> Result<(), String> {
    let to_log = || {
        File::options()
            .create(true)
            .append(true)
            .open(log)
            .map(Stdio::from)
            .unwrap_or_else(|_| Stdio::null())
    };
    let status = cmd
        .stdin(Stdio::null())
        .stdout(to_log())
        .stderr(to_log())
        .status()
        .map_err(|e| format!("{what}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

/// The archive's class path: the runner's jar, then JUnit's if `junit`.
fn class_path(tracer: &Tracer, deps: &Deps<'_>, junit: bool) -> OsString {
    let mut cp = absolute(tracer.jar("paf-runner.jar")).into_os_string();
    if junit {
        cp.push(":");
        cp.push(deps.junit);
    }
    cp
}

/// Keeps the newest [`KEPT`] archives and their logs; the rest goes, old failures too (a key
/// that failed is tried again).
fn prune(dir: &Path) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut archives: Vec<(SystemTime, PathBuf)> = read
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsa"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    archives.sort_by_key(|a| std::cmp::Reverse(a.0));
    let kept: Vec<PathBuf> = archives.into_iter().take(KEPT).map(|a| a.1).collect();
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for p in read.flatten().map(|e| e.path()) {
        let made = p
            .extension()
            .is_some_and(|x| x == "jsa" || x == "log" || x == "failed");
        if made && !kept.contains(&p.with_extension("jsa")) {
            let _ = std::fs::remove_file(&p);
        }
    }
}

/// The key of the JDK and the jars (hex), and of whether the archive has JUnit's; `None` if a
/// file cannot be read.
fn key(java: &OsStr, tracer: &Tracer, deps: &Deps<'_>, junit: bool) -> Option<String> {
    let java = which(java)?;
    let modules = java.parent()?.parent()?.join("lib/modules");
    let jars = [
        "paf-runner.jar",
        "paf-rt.jar",
        "paf-instr.jar",
        "paf-agent.jar",
    ];
    let mut text = format!("junit first: {junit}\n");
    let files = [java.clone(), modules]
        .into_iter()
        .chain(jars.iter().map(|j| absolute(tracer.jar(j))))
        .chain(entries(deps.asm).into_iter().map(PathBuf::from))
        .chain(entries(deps.junit).into_iter().map(PathBuf::from));
    for f in files {
        stamp(&mut text, &f, &std::fs::metadata(&f).ok()?);
    }
    // the agent's manifest appends paf-rt.jar beside its own jar: the archive's boot class path
    // is that path only if no link is in the way
    let rt = absolute(tracer.jar("paf-rt.jar"));
    if std::fs::canonicalize(&rt).ok()? != rt {
        return None;
    }
    Some(format!(
        "{:016x}",
        xxhash_rust::xxh3::xxh3_64(text.as_bytes())
    ))
}

/// The `java` that runs: a path, or the first executable of that name on `PATH`, resolved.
pub(super) fn which(java: &OsStr) -> Option<PathBuf> {
    let named = Path::new(java);
    let found = if named.components().count() > 1 {
        Some(named.to_path_buf())
    } else {
        std::env::split_paths(&std::env::var_os("PATH")?)
            .map(|d| d.join(named))
            .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.mode() & 0o111 != 0))
    };
    std::fs::canonicalize(found?).ok()
}

fn entries(cp: &str) -> Vec<OsString> {
    cp.split(':')
        .filter(|e| !e.is_empty())
        .map(OsString::from)
        .collect()
}

fn flag(name: &str, path: &Path) -> OsString {
    let mut f = OsString::from(name);
    f.push(path);
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path, secs: u64) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let f = File::create(path).unwrap();
        f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
            .unwrap();
    }

    #[test]
    fn no_archive_when_the_user_says_so_and_junit_first_only_where_nothing_is_shadowed() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("classes");
        let hamcrest = dir.path().join("with-hamcrest");
        touch(&plain.join("org/shelf/Book.class"), 1);
        touch(&hamcrest.join("org/hamcrest/Matcher.class"), 1);
        assert!(!off(None, &[]));
        assert!(!off(Some(OsStr::new("on")), &["-Xmx1g".into()]));
        assert!(off(Some(OsStr::new("off")), &[]));
        assert!(off(Some(OsStr::new("0")), &[]));
        assert!(off(None, &["-Xshare:off".into()]));
        assert!(off(None, &["-XX:SharedArchiveFile=my.jsa".into()]));
        assert!(off(None, &["-Xbootclasspath/a:x.jar".into()]));
        let cp = plain.to_str().unwrap();
        assert!(junit_may_come_first(cp));
        // JUnit first would shadow the project's own hamcrest
        let both = format!("{cp}:{}", hamcrest.display());
        assert!(!junit_may_come_first(&both));
    }

    #[test]
    fn the_key_follows_the_jdk_and_every_jar() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let java = d.join("jdk/bin/java");
        touch(&java, 1);
        std::fs::set_permissions(&java, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        touch(&d.join("jdk/lib/modules"), 1);
        for j in [
            "paf-runner.jar",
            "paf-rt.jar",
            "paf-instr.jar",
            "paf-agent.jar",
        ] {
            touch(&d.join("build").join(j), 1);
        }
        touch(&d.join("asm.jar"), 1);
        touch(&d.join("junit.jar"), 1);
        let tracer = Tracer::at(d.join("build"));
        let (asm, junit) = (
            d.join("asm.jar").display().to_string(),
            d.join("junit.jar").display().to_string(),
        );
        let deps = Deps {
            asm: &asm,
            junit: &junit,
        };
        let k = |java: &Path| key(java.as_os_str(), &tracer, &deps, true);
        let first = k(&java).expect("a key");
        let runner_only = key(java.as_os_str(), &tracer, &deps, false).expect("a key");
        assert_ne!(runner_only, first, "an archive without JUnit's jars");
        assert_eq!(
            k(&java),
            Some(first.clone()),
            "the same files, the same key"
        );
        touch(&d.join("junit.jar"), 2);
        let second = k(&java).expect("a key");
        assert_ne!(second, first, "a jar changed");
        touch(&d.join("jdk/lib/modules"), 2);
        assert_ne!(k(&java).unwrap(), second, "the JDK changed");
        std::fs::remove_file(d.join("asm.jar")).unwrap();
        assert_eq!(k(&java), None, "a jar is missing");
        assert_eq!(k(&d.join("nowhere/java")), None, "no such java");
    }

    #[test]
    fn the_newest_archives_and_their_logs_are_kept_and_old_failures_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for i in 0..6 {
            touch(&d.join(format!("{i}.jsa")), 10 + i);
            touch(&d.join(format!("{i}.log")), 10 + i);
        }
        touch(&d.join("x.failed"), 100);
        prune(d);
        let mut left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut expected: Vec<String> = (2..6).map(|i| format!("{i}.jsa")).collect();
        expected.extend((2..6).map(|i| format!("{i}.log")));
        expected.sort();
        assert_eq!(left, expected);
    }
}
