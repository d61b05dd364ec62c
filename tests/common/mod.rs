//! Helpers shared by the integration tests: the repository root, and running the `paf` binary
//! from it, so that paths in its messages are relative and stable.

// Each test crate includes this module and uses a part of it.
#![allow(dead_code)]

use std::path::PathBuf;
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
