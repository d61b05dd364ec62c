//! Helpers shared by the integration tests: the repository root, and running the `paf` binary
//! from it, so that paths in its messages are relative and stable.

// Each test crate includes this module and uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `paf ARGS` from the repository root with `env` added to its environment.
pub fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_paf"));
    cmd.args(args).current_dir(root());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("paf runs")
}

/// Runs `paf ARGS` from the repository root: its exit code, standard output and standard error.
pub fn paf(args: &[&str]) -> (i32, String, String) {
    let out = run(args, &[]);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    )
}

/// Runs `paf ARGS` from the repository root: its whole output.
pub fn paf_output(args: &[&str]) -> Output {
    run(args, &[])
}

/// How a measured run of `paf` ended.
pub struct Measured {
    /// The exit code; `None` if a signal ended it (or the watchdog did: see `hung`).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Peak resident memory, KiB.
    pub max_rss_kib: u64,
    /// It ran past the watchdog's limit and was killed: a hang, not a slow machine (the
    /// limit is minutes for runs that take well under a second).
    pub hung: bool,
}

/// Runs `paf ARGS` from the repository root and measures its peak memory (`wait4`), killing it
/// if it runs longer than `limit`.
pub fn measured(args: &[&str], limit: std::time::Duration) -> Measured {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    // Reaped by wait4 below, which also gives the peak memory that `Child::wait` does not.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(env!("CARGO_BIN_EXE_paf"))
        .args(args)
        .current_dir(root())
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .stderr(std::fs::File::create(&err).expect("stderr file"))
        .spawn()
        .expect("paf runs");
    let pid = child.id() as libc::pid_t;
    let start = std::time::Instant::now();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut hung = false;
    loop {
        // SAFETY: wait4 on our own child with valid pointers to a status and a rusage.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        assert!(r == 0, "wait4 failed");
        if !hung && start.elapsed() > limit {
            hung = true;
            // SAFETY: kill(2) of our own child, which has not been reaped yet.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    let read = |p: &std::path::Path| {
        String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned()
    };
    Measured {
        code,
        stdout: read(&out),
        stderr: read(&err),
        max_rss_kib: usage.ru_maxrss as u64,
        hung,
    }
}

/// The decompressed bytes of a bundle file, by its name.
pub fn decoded(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    match path.extension().and_then(|e| e.to_str()) {
        Some("gz") => {
            let mut out = Vec::new();
            std::io::Read::read_to_end(
                &mut flate2::read::MultiGzDecoder::new(&bytes[..]),
                &mut out,
            )
            .unwrap();
            out
        }
        Some("zst") => zstd::decode_all(&bytes[..]).unwrap(),
        _ => bytes,
    }
}

/// Every file of a bundle directory, by name, decompressed.
pub fn files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                decoded(&e.path()),
            )
        })
        .collect()
}
