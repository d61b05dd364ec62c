//! The first worker JVM, started by paf itself and handed to the supervisor (`--attached PID`).
//!
//! Why: the supervisor's JVM took 65 to 90 ms from its own start to its worker's (JVM start-up,
//! its checks, `ProcessBuilder` in cold code), all of it before the first test could run
//! (docs/performance.md, "The tracer"). paf starts worker 0 at once, with the command line the
//! supervisor would use (`Supervisor.java`, the `cmd` of its loop), and relays the worker's
//! stdout and stderr lines to the supervisor's stdin, then `@@PAF exit CODE` once it has exited.
//! The supervisor reads that stream as it would read its own worker's pipes: it watches the
//! tests, kills the worker (by its pid) at a time-out, and starts workers 1, 2, ... itself.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::super::super::output;
use super::JavaArgs;
use super::cds::Cds;
use super::classcache;
use super::project::Job;
use super::tracer::{Deps, Tracer};

/// JUnit's entry point: a class path that holds it runs with its own JUnit, alone.
const JUNIT_CORE: &str = "org/junit/runner/JUnitCore.class";

/// Worker 0, running; [`Attached::relay`] hands its output to the supervisor.
pub(super) struct Attached {
    child: Arc<Mutex<Child>>,
    pid: u32,
}

impl Attached {
    /// Starts worker 0 into `bundle/.work` (created here, with an empty skip list); `None` when
    /// it cannot start (the supervisor then starts it and reports why).
    pub(super) fn start(
        a: &JavaArgs,
        job: &Job,
        tracer: &Tracer,
        java: &OsString,
        deps: &Deps<'_>,
        cds: &Cds,
        bundle: &Path,
    ) -> Option<Attached> {
        let work = std::path::absolute(bundle.join(".work")).ok()?;
        std::fs::create_dir_all(&work).ok()?;
        // the supervisor writes its skip list this way: the tests done, one per line
        std::fs::write(work.join("skip.txt"), "\n").ok()?;
        let mut args = command(a, job, tracer, deps, cds, &work);
        let cache = (!a.no_class_cache)
            .then(|| {
                classcache::key(
                    tracer,
                    java,
                    &args,
                    &work,
                    job.sourcepath.as_deref(),
                    job.compiled(),
                )
            })
            .flatten()
            .and_then(|key| classcache::path(tracer, &key));
        if let Some(file) = cache
            && let Some(agent) = args
                .iter_mut()
                .find(|x| x.to_string_lossy().starts_with("-agentlib:instrument="))
        {
            agent.push(";cache=");
            agent.push(file);
        }
        let mut cmd = Command::new(java);
        cmd.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if a.verbose {
            output::note(format!("paf trace: {cmd:?}"));
        }
        let child = super::dies_with_paf(&mut cmd).spawn().ok()?;
        Some(Attached {
            pid: child.id(),
            child: Arc::new(Mutex::new(child)),
        })
    }

    pub(super) fn pid(&self) -> u32 {
        self.pid
    }

    /// The supervisor could not start: worker 0 is not needed.
    pub(super) fn kill(self) {
        let mut child = self
            .child
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = child.kill();
        let _ = child.wait();
    }

    /// Relays the worker's lines to the supervisor's stdin (`to`), its stderr's marked `@@PAF
    /// err `, then `@@PAF exit CODE` (128 + the signal for a killed JVM, as Java reports it);
    /// [`Relay::finish`] hands `to` back, open, for the static analysis's queries.
    pub(super) fn relay(&self, to: ChildStdin) -> Relay {
        let to = Arc::new(Mutex::new(to));
        let mut child = self
            .child
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let out = child.stdout.take().map(|s| lines(s, Arc::clone(&to), ""));
        let err = child
            .stderr
            .take()
            .map(|s| lines(s, Arc::clone(&to), "@@PAF err "));
        drop(child);
        let child = Arc::clone(&self.child);
        let pid = self.pid;
        let done = std::thread::spawn(move || {
            for t in [out, err].into_iter().flatten() {
                let _ = t.join();
            }
            // both pipes are closed: the JVM has exited or is about to
            let code = exit_code(&child, pid);
            let exited = Instant::now();
            let to = Arc::into_inner(to).map(|to| {
                to.into_inner()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
            });
            // a supervisor that is gone reads nothing: its stdin is of no use then
            let to = to.and_then(|mut to| writeln!(to, "@@PAF exit {code}").ok().map(|()| to));
            (to, exited)
        });
        Relay {
            child: Arc::clone(&self.child),
            done,
        }
    }
}

/// The relay threads of an attached worker.
pub(super) struct Relay {
    child: Arc<Mutex<Child>>,
    done: JoinHandle<(Option<ChildStdin>, Instant)>,
}

impl Relay {
    /// The supervisor has written the bundle or exited: kills worker 0 if it still runs (the
    /// supervisor kills it on a usage error; this covers a supervisor that died), waits for the
    /// relay to end and returns the supervisor's stdin (`None` if it was closed or broke) and
    /// when worker 0 exited (`None` if the relay failed).
    pub(super) fn finish(self) -> (Option<ChildStdin>, Option<Instant>) {
        let _ = self
            .child
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .kill();
        match self.done.join() {
            Ok((to, exited)) => (to, Some(exited)),
            Err(_) => (None, None),
        }
    }
}

/// Copies `from` line by line to `to`, each line prefixed with `mark`; whole lines under the
/// lock, so the two streams never mix inside a line. The lines read at once go in one write,
/// made before the next read can block: a line reaches the supervisor as soon as it would
/// have one by one (the protocol lines must, to attribute a dying JVM to its test), and a
/// chatty test's output costs a write per read, not two per line (docs/performance.md,
/// "Sixteenth round").
fn lines(
    from: impl Read + Send + 'static,
    to: Arc<Mutex<ChildStdin>>,
    mark: &'static str,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut from = BufReader::with_capacity(RELAY_BUFFER, from);
        let mut pending = Vec::new();
        let mut open = true;
        loop {
            let start = pending.len();
            pending.extend_from_slice(mark.as_bytes());
            match from.read_until(b'\n', &mut pending) {
                Ok(n) if n > 0 => {
                    if !pending.ends_with(b"\n") {
                        pending.push(b'\n');
                    }
                }
                // the end: what is pending goes, without the mark just added
                _ => pending.truncate(start),
            }
            let end = pending.len() == start;
            if end || from.buffer().is_empty() || pending.len() >= RELAY_BUFFER {
                if open && !pending.is_empty() {
                    let mut to = to.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    // a supervisor that is gone reads nothing more; the pipe is still drained,
                    // so the worker never blocks on a full one
                    open = to.write_all(&pending).is_ok();
                }
                pending.clear();
            }
            if end {
                break;
            }
        }
    })
}

/// The relay's read buffer, and the most it holds back before writing.
const RELAY_BUFFER: usize = 1 << 16;

/// The exit code of the worker, waiting for it without holding its lock (so that
/// [`Relay::finish`] can kill it meanwhile).
fn exit_code(child: &Mutex<Child>, pid: u32) -> i32 {
    // The pipes close a moment before the JVM has exited: a poll found it still running about
    // half the time and slept 5 ms, on the run's critical path (docs/performance.md, "Fourth
    // round"). Waiting without reaping leaves the reaping to `try_wait`, under the lock.
    exited(pid);
    loop {
        let status = child
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .try_wait();
        match status {
            Ok(Some(s)) => return code(s),
            // `exited` failed (it returns on an error): poll
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => return 1,
        }
    }
}

/// Blocks until process `pid` (a child of paf's) has exited, without reaping it; returns at
/// once on an error (no such child: it was reaped already).
fn exited(pid: u32) {
    let id: libc::id_t = pid;
    loop {
        // SAFETY: waitid(2) with WNOWAIT writes only into `info`, a zeroed siginfo_t we own; it
        // leaves the child a zombie for `Child::try_wait` to reap. The result is checked.
        let r = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(
                libc::P_PID,
                id,
                &raw mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    }
}

/// As Java's `Process.waitFor` reports it: the exit code, or 128 + the signal.
fn code(s: ExitStatus) -> i32 {
    s.code()
        .or_else(|| s.signal().map(|n| 128 + n))
        .unwrap_or(1)
}

/// The worker JVM's own flags, first on its command line, as `Supervisor.workerCommand` adds
/// them (a test below holds the two lists together; docs/java.md, "The exact command lines"):
/// stack traces for repeated implicit exceptions (the crash site), C1 alone (the worker lives
/// seconds), and the two runtime entry points with more than nine arguments inlined, which C1's
/// size rule refuses, so that a test past its event budget runs them as a flag check
/// (docs/performance.md, "Ninth round").
const WORKER_JVM: [&str; 5] = [
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:TieredStopAtLevel=1",
    "-XX:CompileCommand=quiet",
    "-XX:CompileCommand=inline,paf.rt.R::def",
    "-XX:CompileCommand=inline,paf.rt.R::branch",
];

/// The worker's collector unless the user names one (`--jvm-arg`), as `Supervisor.workerCommand`
/// adds it.
const WORKER_GC: &str = "-XX:+UseParallelGC";

/// One compiler thread for C1 alone, unless the user's flags deal with tiered compilation (with
/// C2 back, the JVM refuses fewer than two), as `Supervisor.workerCommand` adds it: a second
/// thread's compilations took the tests' core on two cores (docs/performance.md, "Twenty-third
/// round").
const WORKER_COMPILERS: &str = "-XX:CICompilerCount=1";

/// Worker 0's arguments after `java`, as `Supervisor.java` builds them for part 0.
fn command(
    a: &JavaArgs,
    job: &Job,
    tracer: &Tracer,
    deps: &Deps<'_>,
    cds: &Cds,
    work: &Path,
) -> Vec<OsString> {
    let mut args: Vec<OsString> = WORKER_JVM.into_iter().map(OsString::from).collect();
    // the parallel collector, as the supervisor's (its comment says why); a user's collector
    // replaces it (the JVM refuses two)
    if !a.jvm_args.iter().any(|x| names_a_collector(x)) {
        args.push(WORKER_GC.into());
    }
    if !a.jvm_args.iter().any(|x| x.contains("Tiered")) {
        args.push(WORKER_COMPILERS.into());
    }
    args.extend(cds.worker_flags());
    args.extend(a.jvm_args.iter().map(OsString::from));
    let tests: Vec<&str> = job
        .tests
        .split(',')
        .map(|t| t.split_once('#').map_or(t, |(class, _)| class))
        .collect();
    let mut opts = format!(
        "work={};part=0;include={};exclude={};tests={};src={};asm={}",
        work.display(),
        job.include,
        a.exclude.as_deref().unwrap_or(""),
        tests.join(","),
        job.sourcepath.as_deref().unwrap_or(""),
        deps.asm
    );
    if let Some(n) = a.max_events.filter(|&n| n > 0) {
        opts.push_str(&format!(";cap={n}"));
    }
    let mut agent = OsString::from("-agentlib:instrument=");
    agent.push(absolute(tracer.jar("paf-agent.jar")));
    agent.push("=");
    agent.push(opts);
    args.push(agent);
    let mut cp = absolute(tracer.jar("paf-runner.jar")).into_os_string();
    if cds.junit_first() {
        // the archive's class path (cds.rs): the project's holds no class of these jars
        cp.push(":");
        cp.push(deps.junit);
        cp.push(":");
        cp.push(&job.classpath);
    } else {
        cp.push(":");
        cp.push(&job.classpath);
        if !has_junit(&job.classpath) {
            cp.push(":");
            cp.push(deps.junit);
        }
    }
    args.extend([
        "-cp".into(),
        cp,
        "paf.runner.TraceMain".into(),
        "--tests".into(),
    ]);
    args.push(job.tests.clone().into());
    args.push("--skip".into());
    args.push(work.join("skip.txt").into_os_string());
    args.extend(runner_flags(a));
    args
}

/// TraceMain's flags after `--skip`, as `Supervisor.workerCommand` adds them.
fn runner_flags(a: &JavaArgs) -> Vec<OsString> {
    let mut flags = Vec::new();
    if let Some(s) = &a.shard {
        flags.extend(["--shard".into(), s.into()]);
    }
    // the supervisor drops the tests' output with --quiet, so the worker does not write it
    if a.quiet {
        flags.push("--drop-out".into());
    }
    flags
}

pub(super) fn absolute(p: PathBuf) -> PathBuf {
    std::path::absolute(&p).unwrap_or(p)
}

/// `-XX:+Use...GC`, as the supervisor's `-XX:\+Use\w*GC`.
fn names_a_collector(arg: &str) -> bool {
    arg.strip_prefix("-XX:+Use")
        .and_then(|r| r.strip_suffix("GC"))
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// Whether the class path holds JUnit (`JUnitCore`) in a directory or a jar (`DIR/*`: the jars
/// in DIR), as the supervisor's `hasResource`: an unreadable jar holds nothing.
fn has_junit(classpath: &str) -> bool {
    has_any(classpath, &[JUNIT_CORE])
}

/// Whether the class path holds one of these class files, in a directory or a jar.
pub(super) fn has_any(classpath: &str, files: &[&str]) -> bool {
    classpath
        .split(':')
        .filter(|e| !e.is_empty())
        .any(|e| match e.strip_suffix("/*") {
            Some(dir) => std::fs::read_dir(dir).is_ok_and(|d| {
                d.flatten().any(|j| {
                    let p = j.path();
                    p.extension().is_some_and(|x| x.eq_ignore_ascii_case("jar"))
                        && jar_has(&p, files)
                })
            }),
            None => {
                let p = Path::new(e);
                if p.is_dir() {
                    files.iter().any(|f| p.join(f).is_file())
                } else {
                    p.is_file() && jar_has(p, files)
                }
            }
        })
}

fn jar_has(jar: &Path, files: &[&str]) -> bool {
    std::fs::File::open(jar)
        .ok()
        .and_then(|f| zip::ZipArchive::new(f).ok())
        .is_some_and(|z| files.iter().any(|f| z.index_for_name(f).is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shell as worker 0, already started, as [`Attached::start`] leaves it.
    fn attached(script: &str) -> Attached {
        let child = Command::new("sh")
            .args(["-c", script])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        Attached {
            pid: child.id(),
            child: Arc::new(Mutex::new(child)),
        }
    }

    #[test]
    fn the_relay_hands_the_supervisors_stdin_back_open_after_the_exit_line() {
        // a "supervisor" that copies its stdin to a file: what it was sent, in order
        let dir = tempfile::tempdir().unwrap();
        let seen = dir.path().join("seen");
        let mut supervisor = Command::new("sh")
            .args(["-c", "cat > \"$0\""])
            .arg(&seen)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let worker =
            attached("echo '@@PAF begin T.t'; echo oops >&2; echo '@@PAF end T.t'; exit 3");
        let relay = worker.relay(supervisor.stdin.take().unwrap());
        // paf finishes the relay once the supervisor is done, long after worker 0's exit
        exited(worker.pid());
        let (stdin, ended) = relay.finish();
        let mut stdin = stdin.expect("the pipe comes back");
        // when worker 0 exited: before paf finished the relay (`-v` prints it)
        assert!(ended.is_some_and(|t| t <= Instant::now()));
        // the static analysis's queries follow on the same pipe
        writeln!(stdin, "{{\"stmt\":1}}").unwrap();
        drop(stdin);
        supervisor.wait().unwrap();
        let text = std::fs::read_to_string(&seen).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // stdout's lines in order, the stderr line marked (where it falls between them depends
        // on the threads), then the exit code, then what paf wrote after it
        let out: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| l.starts_with("@@PAF begin") || l.starts_with("@@PAF end"))
            .collect();
        assert_eq!(out, ["@@PAF begin T.t", "@@PAF end T.t"]);
        assert!(lines.contains(&"@@PAF err oops"), "{text}");
        assert_eq!(lines[lines.len() - 2..], ["@@PAF exit 3", "{\"stmt\":1}"]);
        assert_eq!(lines.len(), 5, "{text}");
    }

    /// What a "supervisor" running `script` (given `$0` = a file of the test's directory,
    /// `seen`, and `$1` = `flag`) was relayed from worker 0 running `worker`, line by line.
    fn relayed(worker: &str, script: &str) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let (seen, flag) = (dir.path().join("seen"), dir.path().join("flag"));
        let mut supervisor = Command::new("sh")
            .args(["-c", script])
            .arg(&seen)
            .arg(&flag)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let worker = attached(&worker.replace("FLAG", &flag.to_string_lossy()));
        let relay = worker.relay(supervisor.stdin.take().unwrap());
        exited(worker.pid());
        drop(relay.finish());
        supervisor.wait().unwrap();
        let text = std::fs::read_to_string(&seen).unwrap();
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn the_relay_passes_each_line_on_before_it_waits_for_the_next() {
        // The worker prints two lines, then waits (a minute at most) until the supervisor has
        // read both: a relay that held them back until more came would have the worker give up.
        let worker = "echo '@@PAF begin T.t'; echo 'a line'; i=0; \
             while [ ! -e 'FLAG' ] && [ $i -lt 3000 ]; do sleep 0.02; i=$((i+1)); done; \
             [ -e 'FLAG' ] || echo 'held back'; echo '@@PAF end T.t'";
        let seen = relayed(worker, r#"head -n 2 > "$0"; touch "$1"; cat >> "$0""#);
        assert_eq!(
            seen,
            ["@@PAF begin T.t", "a line", "@@PAF end T.t", "@@PAF exit 0"]
        );
    }

    #[test]
    fn lines_read_at_once_are_passed_on_whole_and_in_order() {
        // 20,000 lines on each stream, written in large blocks: the relay reads many at a time
        let worker = "seq 1 20000; seq 1 20000 | sed 's/^/e/' >&2";
        let seen = relayed(worker, r#"cat > "$0""#);
        let out: Vec<&str> = seen
            .iter()
            .filter(|l| !l.starts_with("@@PAF"))
            .map(String::as_str)
            .collect();
        let err: Vec<&str> = seen
            .iter()
            .filter_map(|l| l.strip_prefix("@@PAF err "))
            .collect();
        let want: Vec<String> = (1..=20000).map(|i| i.to_string()).collect();
        assert_eq!(out, want);
        let want: Vec<String> = (1..=20000).map(|i| format!("e{i}")).collect();
        assert_eq!(err, want);
        assert_eq!(seen.len(), 40001);
        assert_eq!(seen[40000], "@@PAF exit 0");
    }

    /// The supervisor's source, whose `workerCommand` worker 0's command line follows.
    fn supervisor_source() -> String {
        let java = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tracer/java/src/runner/paf/runner/Supervisor.java"
        );
        std::fs::read_to_string(java).unwrap()
    }

    #[test]
    fn worker_zero_has_the_flags_the_supervisor_gives_its_workers() {
        let source = supervisor_source();
        let added: Vec<&str> = source
            .lines()
            .filter_map(|l| l.trim().strip_prefix("cmd.add(\"-XX:"))
            .filter_map(|l| l.strip_suffix("\");"))
            .collect();
        let ours: Vec<String> = WORKER_JVM.iter().map(|f| f[4..].to_string()).collect();
        assert_eq!(
            added, ours,
            "Supervisor.workerCommand's -XX flags, in order"
        );
    }

    #[test]
    fn worker_zero_has_the_collector_the_supervisor_gives_its_workers() {
        let line = format!(
            "if (jvmArgs.stream().noneMatch(x -> x.matches(\"-XX:\\\\+Use\\\\w*GC\"))) cmd.add(\"{WORKER_GC}\");"
        );
        assert!(supervisor_source().contains(&line), "{line}");
    }

    #[test]
    fn worker_zero_has_the_compiler_threads_the_supervisor_gives_its_workers() {
        let line = format!(
            "if (jvmArgs.stream().noneMatch(x -> x.contains(\"Tiered\"))) cmd.add(\"{WORKER_COMPILERS}\");"
        );
        assert!(supervisor_source().contains(&line), "{line}");
    }

    #[test]
    fn worker_zero_drops_the_tests_output_when_the_supervisor_does() {
        // Supervisor.workerCommand adds --drop-out exactly when quiet
        assert!(supervisor_source().contains("if (quiet) cmd.add(\"--drop-out\");"));
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            a: JavaArgs,
        }
        let flags = |extra: &[&str]| {
            let mut argv = vec![
                "paf",
                "-o",
                "b",
                "--classpath",
                "c",
                "--tests",
                "T",
                "--include",
                "p",
            ];
            argv.extend(extra);
            runner_flags(&<Cli as clap::Parser>::parse_from(argv).a)
        };
        assert_eq!(flags(&["--quiet"]), ["--drop-out"]);
        assert!(flags(&[]).is_empty());
        assert!(flags(&["-v"]).is_empty());
        assert_eq!(
            flags(&["--quiet", "--shard", "1/2"]),
            ["--shard", "1/2", "--drop-out"]
        );
    }

    #[test]
    fn a_collector_is_named_as_the_supervisor_matches_it() {
        for (arg, named) in [
            ("-XX:+UseG1GC", true),
            ("-XX:+UseParallelGC", true),
            ("-XX:+UseSerialGC", true),
            ("-XX:+UseZGC", true),
            ("-XX:-UseG1GC", false),
            ("-XX:+UseCompressedOops", false),
            ("-XX:+UseGC", true),
            ("-Xmx1g", false),
        ] {
            assert_eq!(names_a_collector(arg), named, "{arg}");
        }
    }

    #[test]
    fn exit_codes_are_reported_as_java_reports_them() {
        // a wait status: the code in the second byte, or the signal in the low bits
        assert_eq!(code(ExitStatus::from_raw(0)), 0);
        assert_eq!(code(ExitStatus::from_raw(3 << 8)), 3);
        assert_eq!(code(ExitStatus::from_raw(9)), 137); // SIGKILL: a time-out's kill
        assert_eq!(code(ExitStatus::from_raw(6)), 134); // SIGABRT: a JVM that aborts
    }

    #[test]
    fn exited_waits_for_the_exit_and_leaves_the_reaping_to_try_wait() {
        let mut child = Command::new("sh").args(["-c", "exit 3"]).spawn().unwrap();
        exited(child.id());
        // not reaped by `exited`: the status is still there for `try_wait`, at once
        let status = child.try_wait().unwrap().expect("the child has exited");
        assert_eq!(code(status), 3);
        // a child reaped already: `exited` returns (ECHILD) instead of blocking
        exited(child.id());
    }

    #[test]
    fn junit_is_found_in_directories_jars_and_wildcards() {
        let dir = tempfile::tempdir().unwrap();
        let classes = dir.path().join("classes");
        std::fs::create_dir_all(classes.join("org/junit/runner")).unwrap();
        let plain = dir.path().join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        assert!(!has_junit(plain.to_str().unwrap()));
        std::fs::write(classes.join(JUNIT_CORE), b"").unwrap();
        assert!(has_junit(&format!(
            "{}:{}",
            plain.display(),
            classes.display()
        )));

        let libs = dir.path().join("libs");
        std::fs::create_dir_all(&libs).unwrap();
        let jar = libs.join("junit.jar");
        let mut z = zip::ZipWriter::new(std::fs::File::create(&jar).unwrap());
        z.start_file(JUNIT_CORE, zip::write::SimpleFileOptions::default())
            .unwrap();
        z.finish().unwrap();
        std::fs::write(libs.join("broken.jar"), b"not a zip").unwrap();
        assert!(has_junit(jar.to_str().unwrap()));
        assert!(has_junit(&format!("{}/*", libs.display())));
        assert!(!has_junit(libs.join("broken.jar").to_str().unwrap()));
        assert!(!has_junit(&format!("{}/*", plain.display())));
    }
}
