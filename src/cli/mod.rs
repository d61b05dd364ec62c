//! The `paf` command line: parse flags, validate them into a config, run one command, and map
//! the result to an exit code. The binary's `main` is only a call to [`main`].

pub mod args;
mod config;
mod dump;
pub mod eval;
pub mod od;
mod output;
mod progress;
mod trace;

use std::process::ExitCode;

use clap::Parser;

use crate::trace::Problem;
use config::Config;

/// Exit codes, documented in the README and `paf --help`.
pub mod exit {
    /// Success (a ranking, an explanation, or a bundle without problems).
    pub const OK: u8 = 0;
    /// A bug in paf; the message says what went wrong.
    pub const INTERNAL: u8 = 1;
    /// Bad input (the bundle has problems, a test does not exist) or bad usage.
    pub const BAD_INPUT: u8 = 2;
}

/// How a command can fail.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{} problem(s) in the bundle", .0.len())]
    Bundle(Vec<Problem>),
    #[error("{0}")]
    Usage(String),
    #[error("internal error: {0}")]
    Internal(String),
}

impl CliError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Bundle(_) | CliError::Usage(_) => exit::BAD_INPUT,
            CliError::Internal(_) => exit::INTERNAL,
        }
    }
}

/// At most this many problems are printed by `rank` and `explain`; `validate` prints all.
const PROBLEMS_SHOWN: usize = 20;

/// Runs `paf` with the process's arguments.
pub fn main() -> ExitCode {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help and version to stdout with code 0, usage errors with code 2.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                exit::BAD_INPUT
            } else {
                exit::OK
            });
        }
    };
    let result = Config::from_cli(cli).and_then(|config| config.run());
    match result {
        Ok(code) => ExitCode::from(code),
        Err(CliError::Bundle(problems)) => {
            for p in problems.iter().take(PROBLEMS_SHOWN) {
                eprintln!("error: {p}");
            }
            if problems.len() > PROBLEMS_SHOWN {
                eprintln!(
                    "error: ... and {} more problems (paf validate lists them all)",
                    problems.len() - PROBLEMS_SHOWN
                );
            }
            ExitCode::from(exit::BAD_INPUT)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
