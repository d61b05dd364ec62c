//! `paf trace java`: records a bundle of JUnit test classes by running the Java front end's
//! supervisor (tracer/java, docs/java.md), then adds the static def-use associations theta
//! needs (the crash uses come from paf's own analysis of the bundle, their reaching
//! definitions from the front end's bytecode analysis). This is glue: it checks the flags,
//! finds (or builds) the jars, runs the JVMs with each flag as its own argument (never through
//! a shell), and moves the finished bundle into place.

mod cds;
mod classcache;
mod project;
mod steps;
mod tracer;
mod worker;

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use clap::{Args, Subcommand};

use super::super::{CliError, exit, output};
use crate::engine::{self, Jobs};
use crate::trace::Bundle;
use crate::trace::scan::Marks;
use crate::trace::staging;
use crate::trace::tail::{Tail, Word};
use crate::trace::write::{Compression, compress_file};
use crate::words;
use cds::Cds;
use project::Job;
use steps::Steps;
use tracer::{Deps, Tracer};

#[derive(Subcommand, Debug)]
pub enum TraceCommand {
    /// Trace JUnit 4 (and JUnit 3-style, e.g. Randoop's) test classes on the JVM.
    Java(Box<JavaArgs>),
    /// Merge the bundles of `paf trace java --shard i/N` runs into one bundle.
    Merge(MergeArgs),
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The shards' bundles, in shard order.
    #[arg(required = true, value_name = "BUNDLE")]
    pub bundles: Vec<PathBuf>,
    /// The bundle directory to write (not one of the shards).
    #[arg(short, long, value_name = "BUNDLE")]
    pub output: PathBuf,
}

#[derive(Args, Debug, Clone)]
pub struct JavaArgs {
    /// The compiled code under test and test classes (`:`-separated); JUnit (unless the class
    /// path has its own) and the agent are added by paf. With --maven, added after the
    /// project's class path.
    #[arg(long, value_name = "CP", required_unless_present = "maven")]
    pub classpath: Option<String>,
    /// Package prefixes to instrument, comma-separated (`org.example` instruments
    /// `org/example/**`). With --maven, default: the outermost packages of target/classes.
    #[arg(long, value_name = "PKG[,PKG...]", required_unless_present = "maven")]
    pub include: Option<String>,
    /// Test classes to run, fully qualified, comma-separated, in this order.
    #[arg(
        long,
        value_name = "CLASS[,CLASS...]",
        required_unless_present_any = ["maven", "randoop"],
        conflicts_with = "randoop"
    )]
    pub tests: Option<String>,
    /// A Maven project: build it (`mvn test-compile`) and take the class path, the tests
    /// (Surefire's default names) and --include from it (docs/java.md, "Maven projects").
    #[arg(long, value_name = "DIR")]
    pub maven: Option<PathBuf>,
    /// The mvn executable for --maven (default: $PAF_MVN, else `mvn` on the PATH).
    #[arg(long, value_name = "PATH", requires = "maven")]
    pub mvn: Option<PathBuf>,
    /// An extra argument for mvn (repeatable), e.g. --mvn-arg=-o to stay offline.
    #[arg(
        long = "mvn-arg",
        value_name = "ARG",
        allow_hyphen_values = true,
        requires = "maven"
    )]
    pub mvn_args: Vec<String>,
    /// Randoop's output folder: compile its RegressionTest<N>/ErrorTest<N> classes against
    /// the class path and trace them in Randoop's order (docs/java.md, "Randoop's output
    /// folder").
    #[arg(long, value_name = "DIR")]
    pub randoop: Option<PathBuf>,
    /// The javac executable for --randoop (default: the javac beside --java, else on the PATH).
    #[arg(long, value_name = "PATH", requires = "randoop")]
    pub javac: Option<PathBuf>,
    /// The bundle directory to write (replaced whole when it holds a bundle already).
    #[arg(short, long, value_name = "BUNDLE")]
    pub output: PathBuf,
    /// Package prefixes not to instrument, comma-separated.
    #[arg(long, value_name = "PKG[,PKG...]")]
    pub exclude: Option<String>,
    /// Seconds a test may run before its JVM is killed and it is recorded as truncated.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub timeout: u32,
    /// Source roots (`:`-separated), for the lines of field declarations.
    #[arg(long, value_name = "DIRS")]
    pub sourcepath: Option<String>,
    /// Write the bundle's files plain (tests.jsonl, ...) instead of zstd-compressed.
    #[arg(long, conflicts_with_all = ["gzip", "zstd"])]
    pub plain: bool,
    /// Write the bundle's files gzip-compressed (tests.jsonl.gz, ...) instead of zstd: slower
    /// to read (from the start, on one thread; `paf convert` makes it zstd).
    #[arg(long, conflicts_with = "zstd")]
    pub gzip: bool,
    /// Write the bundle's files zstd-compressed (tests.jsonl.zst, ...: level 1, on every
    /// core). The default: about 20 times smaller than plain, and as fast to write and read.
    #[arg(long)]
    pub zstd: bool,
    /// Event cap per test: past it, only the events the analysis needs are kept.
    #[arg(long, value_name = "N")]
    pub max_events: Option<u64>,
    /// The java executable (default: `java` on the PATH).
    #[arg(long, value_name = "PATH")]
    pub java: Option<PathBuf>,
    /// An extra argument for the worker JVMs (repeatable).
    #[arg(long = "jvm-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub jvm_args: Vec<String>,
    /// JUnit 4 and hamcrest jars (`:`-separated; default: $PAF_JUNIT_CLASSPATH, else Debian's
    /// /usr/share/java/junit4.jar and hamcrest-core.jar). Not added when --classpath has JUnit.
    #[arg(long, value_name = "CP")]
    pub junit: Option<String>,
    /// ASM's asm, asm-tree and asm-analysis jars (`:`-separated; default: $PAF_ASM_CLASSPATH,
    /// else Debian's in /usr/share/java).
    #[arg(long, value_name = "CP")]
    pub asm: Option<String>,
    /// Keep BUNDLE/.work (the per-JVM parts, the statement keys) for debugging.
    #[arg(long)]
    pub keep_work: bool,
    /// Print only problems and the summary (not the tests' own output).
    #[arg(long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Instrument every class again, without the class cache (the classes an earlier run of the
    /// same suite instrumented, replayed while they load as then: docs/java.md, "The class
    /// cache"); the bundle is the same either way.
    #[arg(long)]
    pub no_class_cache: bool,
    /// Also print the command lines of the JVMs.
    #[arg(short, long)]
    pub verbose: bool,
    /// The tracer/java directory (default: $PAF_TRACER_JAVA, else the checkout paf was built
    /// in, else the copy embedded in paf, built once into ~/.cache/paf).
    #[arg(long, value_name = "DIR")]
    pub tracer_dir: Option<PathBuf>,
    /// Trace only the i-th of N contiguous blocks of the tests (merge the shards' bundles with
    /// `paf trace merge`).
    #[arg(long, value_name = "i/N")]
    pub shard: Option<String>,
    /// Trace these tests (`Class.method`, comma-separated, or @FILE with one per line) each
    /// alone in a fresh JVM, into the existing bundle -o's isolated.jsonl (what `paf rank --od`
    /// ranks a masked failure by).
    #[arg(long, value_name = "TESTS")]
    pub isolate: Option<String>,
}

const DEBIAN: &str = "/usr/share/java";

/// Makes the process `cmd` starts get SIGTERM when paf exits, however it exits: a CI job that
/// times out kills paf, and its JVMs must not live on. Before this, a supervisor whose paf was
/// killed took worker 0's end for a JVM death, started another worker, traced the rest of the
/// suite and wrote the bundle, seconds after paf had exited 143 (docs/robustness.md, "Signals").
/// The supervisor's JVM then kills its own worker (`Supervisor.java`, its shutdown hook).
///
/// Linux's parent-death signal (`PR_SET_PDEATHSIG`) is sent when the thread that started the
/// child ends: every caller starts its children on paf's main thread, which ends only with paf.
pub(super) fn dies_with_paf(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    let paf = libc::pid_t::try_from(std::process::id()).unwrap_or(0);
    // SAFETY: between fork and exec the closure makes only async-signal-safe calls (prctl,
    // getppid, kill) and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // paf exited before the signal was asked for: no one will send it
            if libc::getppid() != paf {
                libc::kill(libc::getpid(), libc::SIGTERM);
            }
            Ok(())
        })
    }
}

/// The java executable (`--java`, else `java` on the PATH), and ASM's and JUnit's jars.
fn java_and_jars(a: &JavaArgs) -> Result<(OsString, String, String), CliError> {
    let java = a
        .java
        .clone()
        .map_or_else(|| OsString::from("java"), OsString::from);
    if let Some(j) = &a.java
        && !is_executable(j)
    {
        return Err(CliError::Usage(format!(
            "--java {}: no such executable",
            j.display()
        )));
    }
    let asm = classpath(a.asm.as_ref(), "PAF_ASM_CLASSPATH", || {
        format!("{DEBIAN}/asm.jar:{DEBIAN}/asm-tree.jar:{DEBIAN}/asm-analysis.jar")
    });
    let junit = classpath(a.junit.as_ref(), "PAF_JUNIT_CLASSPATH", || {
        let hamcrest = if Path::new(DEBIAN).join("hamcrest-core.jar").is_file() {
            "hamcrest-core.jar"
        } else {
            "hamcrest.jar"
        };
        format!("{DEBIAN}/junit4.jar:{DEBIAN}/{hamcrest}")
    });
    Ok((java, asm, junit))
}

/// A class path from a flag, else an environment variable, else a default.
fn classpath(flag: Option<&String>, var: &str, default: impl FnOnce() -> String) -> String {
    flag.cloned()
        .or_else(|| std::env::var(var).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(default)
}

/// Runs `paf trace java`; returns paf's exit code.
pub fn java(a: JavaArgs) -> Result<u8, CliError> {
    let mut steps = Steps::new(Instant::now());
    if let Some(tests) = a.isolate.clone() {
        return isolate(a, &tests);
    }
    if let Some(s) = &a.shard {
        check_shard(s)?;
    }
    let out = &a.output;
    check_output(out)?;
    let given = [a.maven.as_deref(), a.randoop.as_deref()];
    let given = given
        .into_iter()
        .flatten()
        .map(|p| p.to_string_lossy().into_owned());
    refuse_inputs(out, given.chain(entries(a.classpath.as_deref())))?;
    refuse_inputs(out, entries(a.sourcepath.as_deref()))?;
    let (java, asm, junit) = java_and_jars(&a)?;
    let deps = Deps {
        asm: &asm,
        junit: &junit,
    };
    let tracer = Tracer::find(a.tracer_dir.as_deref(), &deps)?;
    let job = project::resolve(&a, &junit)?;
    refuse_inputs(out, entries(Some(&job.classpath)))?;
    refuse_inputs(out, entries(job.sourcepath.as_deref()))?;
    let staging = sibling(out, "new")?;
    let _ = std::fs::remove_dir_all(&staging);
    staging::sweep(&staging);
    let compression = a.compression();
    let tail = follow_tests(&staging, compression);
    let cds = Cds::plan(&a, &job, &tracer, &java, &deps);
    let supervised = match supervise(&a, &job, &tracer, &java, &deps, &cds, &staging) {
        Ok(s) => s,
        Err(e) => {
            abandon(tail);
            return Err(e);
        }
    };
    let hosted = match supervised {
        Supervised::Written(hosted) => {
            if let Some(ended) = hosted.worker_exited {
                steps.at("worker 0 exited", ended);
            }
            steps.at("the supervisor wrote the bundle", hosted.written);
            hosted
        }
        Supervised::Failed(code) => {
            abandon(tail);
            let _ = std::fs::remove_dir_all(&staging);
            return Ok(match code {
                2 => exit::BAD_INPUT, // the supervisor said why, naming the flag
                _ => {
                    output::error(format!(
                        "the Java front end failed (exit code {code}); its messages are above"
                    ));
                    exit::INTERNAL
                }
            });
        }
    };
    let added = complete(hosted, tail, &staging, compression, a.verbose, &mut steps)?;
    keep_marks(&staging, compression);
    if !a.keep_work {
        let _ = std::fs::remove_dir_all(staging.join(".work"));
    }
    replace(&staging, out)?;
    steps.now("the bundle in place");
    // the bundle is in place: a failed archive costs nothing but the next runs' speed
    if let Cds::Train(t) = cds {
        t.make(&tracer, &java, &deps, a.verbose);
        steps.now("the class archive made");
    }
    if a.verbose
        && let Some(line) = steps.line()
    {
        output::note(line);
    }
    let (duas, uses) = added?;
    if !a.quiet {
        output::note(format!(
            "paf trace: {} for {} -> {}",
            words::count(
                duas,
                "static def-use association",
                "static def-use associations"
            ),
            words::counted(uses, "crash use"),
            out.join(format!("static-duas.jsonl{}", compression.suffix()))
                .display()
        ));
    }
    Ok(exit::OK)
}

impl JavaArgs {
    /// How the bundle's files are stored: zstd unless `--plain` or `--gzip`.
    fn compression(&self) -> Compression {
        if self.plain {
            Compression::None
        } else if self.gzip {
            Compression::Gzip
        } else {
            Compression::Zstd
        }
    }
}

/// Completes the traced bundle in `staging`: paf's analysis and the static DUAs, with the tests
/// file compressed meanwhile, then the small files; checks that the result reads. The outer
/// error is fatal (`staging` is removed); the inner one, the static analysis's, is reported
/// once the bundle is in place.
fn complete(
    hosted: Hosted,
    tail: Option<Tail>,
    staging: &Path,
    compression: Compression,
    verbose: bool,
    steps: &mut Steps,
) -> Result<Result<(usize, usize), CliError>, CliError> {
    // the rest of the tests file is compressed while paf analyzes it and the static analysis
    // runs; all of it when what the follower compressed is not the finished file
    let (analyzed, read) = std::sync::mpsc::channel::<()>();
    let packing = tail.map(|tail| {
        let work = staging.join(".work");
        let done = staging.join("tests.jsonl");
        let word = writers_word(&work);
        std::thread::spawn(move || {
            let followed = match tail.finish(Some(&done), word) {
                Ok(true) => true,
                // not the finished file, or it could not be checked: compressed again, whole
                Ok(false) | Err(_) => pack(&work, "tests.jsonl", compression).map(|()| false)?,
            };
            // Once paf has read the failing tests, the compressed file takes the plain one's
            // place here, beside the static analysis: removing a tests file of gigabytes
            // takes the kernel a tenth of a second or so (la4j's 1.9 GB: 0.08 s), which came
            // after the static analysis, on the way to paf's exit (docs/performance.md,
            // "Eighteenth round"). A closed channel is the signal, whatever ended the analysis.
            let _ = read.recv();
            // the agent's marks, if they fit the plain file, fit the compressed one's bytes
            // (the same bytes): kept beside it, they tell `paf validate` how to share out its
            // read (docs/trace-format.md, "tests.marks")
            let marks = agent_marks(&work, &done).is_some();
            move_packed(&work, "tests.jsonl", compression)?;
            if marks {
                let name = crate::trace::MARKS_FILE;
                let _ = std::fs::rename(work.join(name), work.parent().unwrap_or(&work).join(name));
            }
            Ok(followed)
        })
    });
    let added = add_static_duas(hosted, staging, move || drop(analyzed), steps);
    let packed = packing.map_or(Ok(false), |t| {
        t.join()
            .unwrap_or_else(|_| Err("the compression thread panicked".to_string()))
    });
    steps.now("the tests file compressed");
    if verbose && let Ok(followed) = packed {
        output::note(if followed {
            "paf trace: tests.jsonl compressed as the tests ran"
        } else {
            "paf trace: tests.jsonl compressed after the tests (not the file the tests wrote at first, or not compressed)"
        });
    }
    if let Err(e) = packed.and_then(|_| pack_the_rest(staging, compression)) {
        let _ = std::fs::remove_dir_all(staging);
        return Err(CliError::Internal(format!(
            "cannot compress the bundle: {e}"
        )));
    }
    let checked = added.is_ok().then(|| Bundle::open(staging));
    steps.now("the bundle checked");
    if let Some(Err(problems)) = checked {
        for p in problems.iter().take(20) {
            output::error(p);
        }
        let _ = std::fs::remove_dir_all(staging);
        return Err(CliError::Internal(
            "the traced bundle cannot be read; this is a bug in paf".to_string(),
        ));
    }
    Ok(added)
}

/// `-o` must be a new path, an empty directory or a bundle (replaced whole), never a file.
fn check_output(out: &Path) -> Result<(), CliError> {
    if out.exists() && !out.is_dir() {
        return Err(CliError::Usage(format!(
            "-o {}: exists and is not a directory; expected a bundle directory",
            out.display()
        )));
    }
    if out.is_dir() && !out.join("manifest.json").is_file() {
        let empty = std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_none());
        if !empty {
            return Err(CliError::Usage(format!(
                "-o {}: the directory is not empty and is not a paf bundle (no manifest.json)",
                out.display()
            )));
        }
    }
    Ok(())
}

/// The entries of a class or source path.
fn entries(path: Option<&str>) -> impl Iterator<Item = String> + '_ {
    path.unwrap_or_default()
        .split(':')
        .filter(|e| !e.is_empty())
        .map(str::to_string)
}

/// `-o` is replaced whole: it must not be, nor hold, an input of the run (a class path entry,
/// a source directory, the Maven project or Randoop's folder).
fn refuse_inputs(out: &Path, inputs: impl Iterator<Item = String>) -> Result<(), CliError> {
    let Some(target) = super::resolved(out) else {
        return Ok(());
    };
    for entry in inputs {
        if super::resolved(Path::new(&entry)).is_some_and(|e| e.starts_with(&target)) {
            return Err(CliError::Usage(format!(
                "-o {}: would replace {entry}, an input of this run; expected another path for -o",
                out.display()
            )));
        }
    }
    Ok(())
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A hidden directory beside `out` (`.NAME.paf-WHAT-PID`), on the same file system so that it
/// can be renamed into place.
fn sibling(out: &Path, what: &str) -> Result<PathBuf, CliError> {
    let name = out.file_name().ok_or_else(|| {
        CliError::Usage(format!("-o {}: expected a directory name", out.display()))
    })?;
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty());
    let dir = parent.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    if !dir.is_dir() {
        return Err(CliError::Usage(format!(
            "-o {}: the directory {} does not exist",
            out.display(),
            dir.display()
        )));
    }
    Ok(staging::path(&dir, name, what))
}

/// Moves the finished bundle to `out`, replacing an older bundle there: exchanged with it in one
/// step (`renameat2(RENAME_EXCHANGE)`), so that a reader never finds no bundle or half of one
/// at `out`; on a file system without the exchange, the older bundle is moved aside first.
fn replace(staging: &Path, out: &Path) -> Result<(), CliError> {
    let io =
        |e: std::io::Error| CliError::Internal(format!("{}: cannot write: {e}", out.display()));
    if out.exists() && exchange(staging, out).map_err(io)? {
        // `staging` now holds the older bundle.
        let _ = std::fs::remove_dir_all(staging);
    } else if out.exists() {
        let old = sibling(out, "old")?;
        std::fs::rename(out, &old).map_err(io)?;
        std::fs::rename(staging, out).map_err(io)?;
        let _ = std::fs::remove_dir_all(&old);
    } else {
        std::fs::rename(staging, out).map_err(io)?;
    }
    Ok(())
}

/// Exchanges two paths in one step; `false` if the file system cannot.
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).map_err(std::io::Error::other)
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: renameat2(2) with two valid NUL-terminated C strings relative to the working
    // directory; the result is checked.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL | libc::ENOSYS | libc::ENOTSUP) => Ok(false),
        _ => Err(e),
    }
}

/// Flags of the short-lived JVM paf starts (the supervisor, the static analysis in it): C1
/// alone and a serial collector, since C2 and a parallel collector spend a core on a run of
/// seconds (docs/performance.md, "The tracer"). The worker, whose tests may fill a heap, has the
/// parallel one (`worker::WORKER_GC`; docs/performance.md, "Eleventh round").
const SHORT_JVM: [&str; 2] = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"];

/// What the supervisor JVM did.
enum Supervised {
    /// The bundle is written; the JVM's static analysis waits for the crash uses.
    Written(Hosted),
    /// It exited with this code without writing the bundle (2: a usage error it named).
    Failed(i32),
}

/// The supervisor JVM after its done line, which hosts the static analysis (`--static-duas`):
/// one JVM fewer beside the tests on two cores than when the analysis had its own, whose start
/// cost the library example about 40 ms (docs/performance.md, "Fifth round").
struct Hosted {
    child: Child,
    /// When worker 0 exited, if paf started it (`-v` prints the steps after it).
    worker_exited: Option<Instant>,
    /// When the supervisor said it had written the bundle.
    written: Instant,
    /// Where the crash uses go; `None` if the relay of worker 0 lost it (then no query can be
    /// sent and the analysis is reported failed).
    stdin: Option<ChildStdin>,
    /// The rest of its stdout: the analysis's line.
    stdout: BufReader<ChildStdout>,
}

/// Runs the supervisor JVM into `bundle`, with the static analysis in it, up to its done line.
fn supervise(
    a: &JavaArgs,
    job: &Job,
    tracer: &Tracer,
    java: &OsString,
    deps: &Deps<'_>,
    cds: &Cds,
    bundle: &Path,
) -> Result<Supervised, CliError> {
    let mut cmd = Command::new(java);
    cmd.args(SHORT_JVM)
        .args(cds.supervisor_flags(tracer, deps))
        .arg("paf.runner.Supervisor")
        .args(cds.supervisor_args())
        .args(["--classpath", &job.classpath])
        .args(["--include", &job.include])
        .args(["--tests", &job.tests])
        .arg("-o")
        .arg(bundle)
        .arg("--shown-as")
        .arg(&a.output)
        .args(["--timeout", &a.timeout.to_string()])
        .args([
            "--asm",
            deps.asm,
            "--junit",
            deps.junit,
            "--subject",
            a.randoop
                .as_deref()
                .or(a.maven.as_deref())
                .and_then(Path::to_str)
                .unwrap_or(&job.tests),
        ])
        .arg("--keep-work")
        .args(["--done-line", "--static-duas"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    if let Some(j) = &a.java {
        cmd.arg("--java").arg(j);
    }
    if let Some(x) = &a.exclude {
        cmd.args(["--exclude", x]);
    }
    if let Some(s) = &job.sourcepath {
        cmd.args(["--sourcepath", s]);
    }
    if let Some(n) = a.max_events {
        cmd.args(["--max-events", &n.to_string()]);
    }
    for arg in &a.jvm_args {
        cmd.args(["--jvm-arg", arg]);
    }
    if let Some(s) = &a.shard {
        cmd.args(["--shard", s]);
    }
    // --gzip and --zstd are paf's: the front end writes plain files, compressed by `pack`
    for (on, flag) in [(a.quiet, "--quiet"), (a.verbose, "-v")] {
        if on {
            cmd.arg(flag);
        }
    }
    // worker 0 starts now, not once the supervisor's JVM is up (worker.rs says why)
    let attached = worker::Attached::start(a, job, tracer, java, deps, cds, bundle);
    if let Some(w) = &attached {
        cmd.args(["--attached", &w.pid().to_string()]);
    }
    if a.verbose {
        output::note(format!("paf trace: {cmd:?}"));
    }
    let cannot = |e: std::io::Error| {
        CliError::Usage(format!(
            "cannot run {}: {e} (is a JDK installed? tracer/java/install.sh installs one)",
            java.to_string_lossy()
        ))
    };
    let supervisor = match dies_with_paf(&mut cmd).spawn() {
        Ok(child) => child,
        Err(e) => {
            if let Some(w) = attached {
                w.kill();
            }
            return Err(cannot(e));
        }
    };
    watch(supervisor, attached).map_err(cannot)
}

/// Watches the supervisor up to its done line (relaying worker 0's output to it, if paf
/// started worker 0), or up to its exit: an error only if waiting for it failed.
fn watch(mut supervisor: Child, attached: Option<worker::Attached>) -> std::io::Result<Supervised> {
    let (relay, mut stdin) = match (attached, supervisor.stdin.take()) {
        (Some(w), Some(to)) => (Some(w.relay(to)), None),
        (_, to) => (None, to),
    };
    let mut stdout = supervisor.stdout.take().map(BufReader::new);
    let written = stdout
        .as_mut()
        .and_then(|out| said_done(out, |l| (l == DONE_LINE).then(Instant::now)));
    // the relay hands the supervisor's stdin back after worker 0's exit line
    let mut worker_exited = None;
    if let Some(r) = relay {
        (stdin, worker_exited) = r.finish();
    }
    match (written, stdout) {
        (Some(written), Some(stdout)) => Ok(Supervised::Written(Hosted {
            child: supervisor,
            worker_exited,
            written,
            stdin,
            stdout,
        })),
        _ => {
            drop(stdin);
            // A signal leaves no code: the tracer failed.
            let status = supervisor.wait()?;
            Ok(Supervised::Failed(
                status.code().unwrap_or(i32::from(exit::INTERNAL)),
            ))
        }
    }
}

/// Reads a tracer JVM's stdout until the line that says it is done (what `done` makes of it),
/// without waiting for the stream's end; `None` if it ends first. Any other line (the JVM's own
/// warnings) is passed on as a note.
fn said_done<T>(
    stdout: &mut BufReader<ChildStdout>,
    done: impl Fn(&str) -> Option<T>,
) -> Option<T> {
    for line in stdout.lines().map_while(Result::ok) {
        if let Some(said) = done(&line) {
            return Some(said);
        }
        output::note(line);
    }
    None
}

/// The supervisor's line once the bundle is complete (`Supervisor.DONE`): after it the JVM only
/// exits, with code 0, which takes it 5 to 18 ms (docs/performance.md, "Fourth round").
const DONE_LINE: &str = "@@PAF bundle written";

/// Waits for a JVM that has done its work on a thread of its own, so that it leaves no zombie
/// while paf goes on; the thread ends with paf if the JVM outlives it.
fn reap(mut child: Child) {
    std::thread::spawn(move || {
        let _ = child.wait();
    });
}

/// Compresses the first worker's tests file as it writes it (docs/performance.md, "The
/// tracer"); `None` for `--plain`.
fn follow_tests(staging: &Path, compression: Compression) -> Option<Tail> {
    (compression != Compression::None).then(|| {
        let work = staging.join(".work");
        let to = work.join(format!("tests.jsonl{}", compression.suffix()));
        Tail::start(work.join("tests.0.jsonl"), to, compression)
    })
}

/// The supervisor's word that the tests file is the first worker's part file, with its length:
/// only ever appended to (`.work/tests.appended`, written when the agent reported no cut), or
/// never cut below the fence the agent published (`.work/tests.fenced`, when it reported none
/// below: docs/java.md, "How tracing runs"); the follower then keeps what it compressed without
/// reading the file again.
fn writers_word(work: &Path) -> Word {
    let length = |name: &str| -> Option<u64> {
        let said = std::fs::read_to_string(work.join(name)).ok()?;
        said.trim().parse().ok()
    };
    Word {
        grew_to: length("tests.appended"),
        fenced_to: length("tests.fenced"),
    }
}

/// Where the agent wrote each test's begin and end records in the tests file
/// (`.work/tests.marks`: docs/java.md, "How tracing runs"), if it did and the file has the
/// length it had then: the first read of the bundle goes to those lines instead of searching
/// for them. Any line it cannot read, and the file is searched.
fn agent_marks(work: &Path, tests: &Path) -> Option<Arc<Marks>> {
    let len = std::fs::metadata(tests).ok()?.len();
    Marks::read(&work.join(crate::trace::MARKS_FILE), Some(len)).map(Arc::new)
}

/// Moves the agent's marks into a plain bundle (`tests.marks`: docs/trace-format.md), if they
/// fit its tests file: `paf rank` then reads its failing tests at the marks. A bundle without
/// them is read by searching, as before. (A compressed bundle's are moved as its tests file
/// is, in [`complete`].)
fn keep_marks(staging: &Path, compression: Compression) {
    let work = staging.join(".work");
    if compression == Compression::None
        && agent_marks(&work, &staging.join("tests.jsonl")).is_some()
    {
        let name = crate::trace::MARKS_FILE;
        let _ = std::fs::rename(work.join(name), staging.join(name));
    }
}

/// The tracing failed: stops the compression started beside it.
fn abandon(tail: Option<Tail>) {
    if let Some(t) = tail {
        let _ = t.finish(None, Word::default());
    }
}

/// Stops the supervisor's static analysis when it is not needed (no failing test has a crash
/// use, or paf cannot read the bundle): it has written nothing.
fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Analyzes the new bundle's failing tests and sends their crash uses to the static analysis
/// in the supervisor's JVM, which has indexed the class path while the tests ran and writes
/// their static DUAs into the bundle (docs/algorithm.md, "Static DUAs"). Returns (DUAs, crash
/// uses).
/// `read` is called once paf has read the tests file (the static analysis does not read it).
fn add_static_duas(
    hosted: Hosted,
    bundle: &Path,
    read: impl FnOnce(),
    steps: &mut Steps,
) -> Result<(usize, usize), CliError> {
    let unreadable = |problems: Vec<crate::trace::Problem>| {
        for p in problems.iter().take(20) {
            output::error(p);
        }
        CliError::Internal(format!(
            "the Java front end wrote a bundle paf cannot read ({}); this is a bug in the \
             tracer",
            words::counted(problems.len(), "problem")
        ))
    };
    let marks = agent_marks(&bundle.join(".work"), &bundle.join("tests.jsonl"));
    let analyzed = Bundle::open(bundle)
        .and_then(|opened| engine::crash_uses(&opened, Jobs::all_cores(), marks, &mut ()));
    read();
    steps.now("paf read the failing tests");
    let uses = match analyzed {
        Ok(uses) => uses,
        Err(problems) => {
            stop(hosted.child);
            return Err(unreadable(problems));
        }
    };
    let Hosted {
        mut child,
        stdin,
        mut stdout,
        ..
    } = hosted;
    if uses.is_empty() {
        stop(child);
        return Ok((0, 0));
    }
    let lines: String = uses
        .iter()
        .map(|u| serde_json::to_string(u).map(|l| l + "\n"))
        .collect::<Result<_, _>>()
        .map_err(|e| CliError::Internal(format!("crash uses as JSON: {e}")))?;
    // kept for --keep-work (docs/java.md): the crash uses the static analysis was asked about
    let _ = std::fs::write(bundle.join(".work").join("queries.jsonl"), &lines);
    match stdin {
        // a write error means the analysis ended early: its exit code below says why; the
        // pipe closes here, which ends the queries
        Some(mut stdin) => {
            let _ = stdin.write_all(lines.as_bytes());
        }
        // no pipe to send the queries on: the analysis cannot run
        None => {
            let _ = child.kill();
        }
    }
    // Its last line says what it wrote, once the files are complete: paf goes on without
    // waiting for the JVM's exit (docs/performance.md, "Fourth round").
    if let Some(duas) = said_done(&mut stdout, duas_written) {
        steps.now("the static analysis answered");
        reap(child);
        return Ok((duas, uses.len()));
    }
    let ended = match child.wait().ok().and_then(|s| s.code()) {
        Some(code) => format!("exit code {code}"),
        None => "killed by a signal".to_string(),
    };
    Err(CliError::Internal(format!(
        "the static analysis failed ({ended}); its messages are above"
    )))
}

/// The number of static DUAs in the static analysis's last line, `static-duas N queries M`.
fn duas_written(said: &str) -> Option<usize> {
    let mut words = said.split_whitespace();
    match (words.next(), words.next()?.parse(), words.next()) {
        (Some("static-duas"), Ok(n), Some("queries")) => Some(n),
        _ => None,
    }
}

/// Compresses the small files of the bundle too, each moved into place over its plain one (the
/// compression's thread in [`complete`] has moved the tests file).
fn pack_the_rest(staging: &Path, compression: Compression) -> Result<(), String> {
    if compression == Compression::None {
        return Ok(());
    }
    let work = staging.join(".work");
    for f in ["statements.jsonl", "static-duas.jsonl"] {
        if staging.join(f).exists() {
            pack(&work, f, compression)?;
            move_packed(&work, f, compression)?;
        }
    }
    Ok(())
}

/// The compressed copy of the bundle's file `name` (in `work`, if there is one) moved into its
/// place, and the plain file removed.
fn move_packed(work: &Path, name: &str, compression: Compression) -> Result<(), String> {
    let packed = work.join(format!("{name}{}", compression.suffix()));
    if !packed.exists() {
        return Ok(());
    }
    let bundle = work.parent().unwrap_or(work);
    std::fs::rename(&packed, bundle.join(packed.file_name().unwrap_or_default()))
        .and_then(|()| std::fs::remove_file(bundle.join(name)))
        .map_err(|e| format!("{}: cannot move into place: {e}", packed.display()))
}

/// Compresses the bundle's file `name` (in the directory above `work`) into `work`, where the
/// bundle reader does not look until it is moved into place.
fn pack(work: &Path, name: &str, compression: Compression) -> Result<(), String> {
    let bundle = work.parent().unwrap_or(work);
    let to = work.join(format!("{name}{}", compression.suffix()));
    compress_file(&bundle.join(name), &to, compression)
        .map_err(|e| format!("{}: {e}", bundle.join(name).display()))
}

/// `i/N` with 1 <= i <= N, as the supervisor expects it.
fn check_shard(s: &str) -> Result<(), CliError> {
    crate::od::shard::Shard::parse(s)
        .map(|_| ())
        .map_err(|e| CliError::Usage(e.to_string()))
}

/// `paf trace java --isolate TESTS -o BUNDLE`: each test traced alone in a fresh JVM (the
/// supervisor with `--tests Class#method`) into a bundle of its own under BUNDLE/.isolate, then
/// added to BUNDLE's isolated.jsonl in BUNDLE's statement ids.
fn isolate(a: JavaArgs, tests: &str) -> Result<u8, CliError> {
    let list = match tests.strip_prefix('@') {
        Some(file) => std::fs::read_to_string(file)
            .map_err(|e| CliError::Usage(format!("{file}: cannot read: {e}")))?,
        None => tests.replace(',', "\n"),
    };
    let ids: Vec<&str> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if ids.is_empty() {
        return Err(CliError::Usage(
            "--isolate: expected at least one test id".into(),
        ));
    }
    let work = a.output.join(".isolate");
    // Each test's bundle is staged beside its -o, inside this directory.
    std::fs::create_dir_all(&work).map_err(|e| {
        CliError::Usage(format!(
            "-o {}: cannot create {}: {e}; expected the bundle the tests come from",
            a.output.display(),
            work.display()
        ))
    })?;
    let mut parts = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let Some((class, method)) = id.rsplit_once('.') else {
            return Err(CliError::Usage(format!(
                "--isolate {id:?}: expected Class.method"
            )));
        };
        let part = work.join(i.to_string());
        let one = JavaArgs {
            tests: Some(format!("{class}#{method}")),
            output: part.clone(),
            isolate: None,
            shard: None,
            ..a.clone()
        };
        let code = java(one)?;
        if code != exit::OK {
            return Ok(code);
        }
        parts.push(part);
    }
    let added = crate::trace::merge::add_isolated(&a.output, &parts).map_err(CliError::Bundle)?;
    let _ = std::fs::remove_dir_all(&work);
    output::note(format!(
        "paf trace: {} traced alone into {}",
        words::counted(added, "test"),
        a.output.join("isolated.jsonl").display()
    ));
    Ok(exit::OK)
}

/// `paf trace merge SHARDS... -o BUNDLE`.
pub fn merge(a: MergeArgs) -> Result<u8, CliError> {
    let merged = crate::trace::merge::merge(&a.bundles, &a.output).map_err(CliError::Bundle)?;
    output::note(format!(
        "paf trace: merged {} bundles: {} tests, {} statements -> {}",
        merged.parts,
        merged.tests,
        merged.statements,
        a.output.display()
    ));
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_static_analysis_line_gives_its_duas() {
        assert_eq!(duas_written("static-duas 28 queries 21\n"), Some(28));
        assert_eq!(duas_written("static-duas 0 queries 0"), Some(0));
        // a JVM that died before its line, or said something else
        assert_eq!(duas_written(""), None);
        assert_eq!(duas_written("static-duas x queries 1"), None);
        assert_eq!(duas_written("Exception in thread main"), None);
    }

    /// What `said_done` makes of the stdout of `sh -c script`, the supervisor's done line.
    fn done_of(script: &str) -> (Option<()>, Child) {
        let mut child = Command::new("sh")
            .args(["-c", script])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        (
            said_done(&mut out, |l| (l == DONE_LINE).then_some(())),
            child,
        )
    }

    #[test]
    fn a_tracer_jvm_is_not_waited_for_after_its_done_line() {
        // the JVM would go on for a minute: the line alone must end the read
        let (said, mut child) =
            done_of("echo a warning; echo '@@PAF bundle written'; exec sleep 60");
        assert_eq!(said, Some(()));
        // the read ended with the line, not with the stream (the JVM's exit)
        assert!(child.try_wait().unwrap().is_none());
        child.kill().unwrap();
        child.wait().unwrap();
        // no such line: the stream's end says it is not done
        let (said, mut child) = done_of("echo '@@PAF bundle written, not quite'");
        assert_eq!(said, None);
        child.wait().unwrap();
    }
}
