//! `paf trace java`: records a bundle of JUnit test classes by running the Java front end's
//! supervisor (tracer/java, docs/java.md). This is glue: it finds the jars, builds them when they
//! are missing, and passes checked flags on as separate arguments (never through a shell).

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::{Args, Subcommand};

use super::super::{CliError, exit, output};

#[derive(Subcommand, Debug)]
pub enum TraceCommand {
    /// Trace JUnit 4 (and JUnit 3-style, e.g. Randoop's) test classes on the JVM.
    Java(JavaArgs),
}

#[derive(Args, Debug)]
pub struct JavaArgs {
    /// The compiled code under test and test classes (`:`-separated); JUnit and the agent are
    /// added by paf.
    #[arg(long, value_name = "CP")]
    pub classpath: String,
    /// Package prefixes to instrument, comma-separated (`org.example` instruments
    /// `org/example/**`).
    #[arg(long, value_name = "PKG[,PKG...]")]
    pub include: String,
    /// Test classes to run, fully qualified, comma-separated, in this order.
    #[arg(long, value_name = "CLASS[,CLASS...]")]
    pub tests: String,
    /// The bundle directory to write.
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
    /// Write gzip-compressed statements.jsonl.gz and tests.jsonl.gz.
    #[arg(long)]
    pub gzip: bool,
    /// Event cap per test (the test is then marked truncated).
    #[arg(long, value_name = "N")]
    pub max_events: Option<u64>,
    /// The java executable of the worker JVMs (default: the JDK that runs the supervisor).
    #[arg(long, value_name = "PATH")]
    pub java: Option<PathBuf>,
    /// An extra argument for the worker JVMs (repeatable).
    #[arg(long = "jvm-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub jvm_args: Vec<String>,
    /// Keep BUNDLE/.work (the per-JVM parts) for debugging.
    #[arg(long)]
    pub keep_work: bool,
    /// Print only problems and the summary.
    #[arg(long)]
    pub quiet: bool,
    /// The tracer/java directory (default: $PAF_TRACER_JAVA, else found next to the paf
    /// executable or in the source tree paf was built from).
    #[arg(long, value_name = "DIR")]
    pub tracer_dir: Option<PathBuf>,
}

/// Where tracer/java is: the flag, the environment, beside the binary (target/*/paf in a
/// checkout), or the source tree this binary was built from.
fn tracer_dir(flag: Option<&Path>) -> Result<PathBuf, CliError> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(dir) = flag {
        candidates.push(dir.to_path_buf());
    } else {
        if let Some(dir) = std::env::var_os("PAF_TRACER_JAVA") {
            candidates.push(PathBuf::from(dir));
        }
        if let Ok(exe) = std::env::current_exe() {
            // target/release/paf -> the checkout's tracer/java.
            for up in exe.ancestors().skip(1).take(3) {
                candidates.push(up.join("tracer/java"));
            }
        }
        candidates.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("tracer/java"));
    }
    candidates
        .iter()
        .find(|d| d.join("build.sh").is_file())
        .cloned()
        .ok_or_else(|| {
            CliError::Usage(format!(
                "cannot find the Java front end (a directory with build.sh); looked in {}; \
                 pass --tracer-dir DIR or set PAF_TRACER_JAVA",
                candidates
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}

/// Runs a program to completion with inherited standard streams; `what` names it in messages.
fn run(cmd: &mut Command, what: &str) -> Result<i32, CliError> {
    let status = cmd.status().map_err(|e| {
        CliError::Usage(format!(
            "cannot run {what}: {e} (is a JDK installed? tracer/java/install.sh installs one)"
        ))
    })?;
    // A signal leaves no code: report it as an internal failure of the tracer.
    Ok(status.code().unwrap_or(i32::from(exit::INTERNAL)))
}

/// `-o BUNDLE` must be new, empty, or a bundle (which the new one replaces), and neither an
/// input of the run nor a directory holding one.
fn check_output(a: &JavaArgs) -> Result<(), CliError> {
    let out = &a.output;
    let refuse = |why: String| Err(CliError::Usage(format!("{}: {why}", out.display())));
    if out.exists() && !out.is_dir() {
        return refuse("is not a directory; expected a bundle directory for -o".into());
    }
    let holds_other = out.is_dir()
        && !out.join("manifest.json").exists()
        && std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some());
    if holds_other {
        return refuse(
            "holds files but no manifest.json; expected a new or empty directory, or a bundle \
             to replace, for -o"
                .into(),
        );
    }
    let target = super::resolved(out);
    let inputs = a
        .classpath
        .split(':')
        .chain(a.sourcepath.as_deref().unwrap_or_default().split(':'))
        .filter(|e| !e.is_empty());
    for entry in inputs {
        let inside = super::resolved(Path::new(entry))
            .is_some_and(|e| target.as_ref().is_some_and(|t| e.starts_with(t)));
        if inside {
            return refuse(format!(
                "would replace {entry}, an input of this run; expected another path for -o"
            ));
        }
    }
    Ok(())
}

/// Puts the bundle traced into `staged` at `out`: renamed into place, or, over an earlier
/// bundle, exchanged with it in one step (then the earlier one is removed). A reader never sees
/// a half-written bundle at `out`.
fn install(staged: tempfile::TempDir, out: &Path) -> std::io::Result<()> {
    let from = staged.keep();
    if !out.exists() {
        return std::fs::rename(&from, out);
    }
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).map_err(std::io::Error::other)
    };
    let (a, b) = (c(&from)?, c(out)?);
    // SAFETY: renameat2(2) with two valid C strings relative to the working directory; the
    // result is checked.
    let swapped = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    } == 0;
    if !swapped {
        // A file system without the exchange: move the earlier bundle aside first.
        let aside = from.with_extension("old");
        std::fs::rename(out, &aside)?;
        std::fs::rename(&from, out)?;
        return std::fs::remove_dir_all(aside);
    }
    std::fs::remove_dir_all(from)
}

/// Runs `paf trace java`; returns paf's exit code (the supervisor's, mapped to paf's). The
/// supervisor writes a new directory beside `-o`, which replaces it only once the run succeeded.
pub fn java(a: JavaArgs) -> Result<u8, CliError> {
    check_output(&a)?;
    let dir = tracer_dir(a.tracer_dir.as_deref())?;
    let runner = dir.join("build/paf-runner.jar");
    if !runner.is_file() || !dir.join("build/paf-agent.jar").is_file() {
        output::note(format!(
            "paf trace: building the Java front end ({})",
            dir.join("build.sh").display()
        ));
        let code = run(Command::new("bash").arg(dir.join("build.sh")), "build.sh")?;
        if code != 0 {
            return Err(CliError::Usage(format!(
                "{} failed (exit code {code}); run {} first if ASM or JUnit are missing",
                dir.join("build.sh").display(),
                dir.join("install.sh").display()
            )));
        }
    }
    let parent = match a.output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let staged = tempfile::Builder::new()
        .prefix(".paf-trace-")
        .tempdir_in(parent)
        .map_err(|e| CliError::Usage(format!("{}: cannot write: {e}", parent.display())))?;
    let mut cmd = Command::new("java");
    cmd.arg("-cp")
        .arg(&runner)
        .arg("paf.runner.Supervisor")
        .args(["--classpath", &a.classpath])
        .args(["--include", &a.include])
        .args(["--tests", &a.tests])
        .arg("-o")
        .arg(staged.path())
        .args(["--timeout", &a.timeout.to_string()]);
    if let Some(x) = &a.exclude {
        cmd.args(["--exclude", x]);
    }
    if let Some(s) = &a.sourcepath {
        cmd.args(["--sourcepath", s]);
    }
    if let Some(n) = a.max_events {
        cmd.args(["--max-events", &n.to_string()]);
    }
    if let Some(j) = &a.java {
        cmd.arg("--java").arg(j);
    }
    for arg in &a.jvm_args {
        cmd.args(["--jvm-arg", arg]);
    }
    for (on, flag) in [
        (a.gzip, "--gzip"),
        (a.keep_work, "--keep-work"),
        (a.quiet, "--quiet"),
    ] {
        if on {
            cmd.arg(flag);
        }
    }
    let code = run(&mut cmd, "java")?;
    if code == 0 {
        install(staged, &a.output).map_err(|e| {
            CliError::Internal(format!(
                "{}: cannot put the bundle in place: {e}",
                a.output.display()
            ))
        })?;
    } else if a.keep_work {
        output::note(format!(
            "paf trace: the failed run's files are in {}",
            staged.keep().display()
        ));
    }
    Ok(match code {
        0 => exit::OK,
        2 => exit::BAD_INPUT,
        _ => exit::INTERNAL,
    })
}
