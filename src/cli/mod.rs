//! The `paf` command line: parse flags, check them into a command's settings, run it, and map
//! the result to an exit code. The binary's `main` is only a call to [`main`]; each command is
//! one file under [`cmd`].

pub mod args;
pub mod cmd;
mod output;
mod progress;
mod terminal;

use std::process::ExitCode;

use clap::Parser;

use crate::trace::Problem;
use args::Command;

/// Exit codes, documented in the README and `paf --help`.
pub mod exit {
    /// Success (a ranking, an explanation, or a bundle without problems).
    pub const OK: u8 = 0;
    /// A bug in paf; the message says what went wrong.
    pub const INTERNAL: u8 = 1;
    /// Bad input (the bundle has problems, a test does not exist) or bad usage.
    pub const BAD_INPUT: u8 = 2;
    /// `od replay`: some recorded order did not give its recorded outcome again.
    pub const NOT_REPRODUCED: u8 = 3;
}

/// How a command can fail.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{} in the bundle", crate::words::counted(.0.len(), "problem"))]
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

/// Runs `paf` with the process's arguments. A panic is a bug in paf, never bad input: it is
/// reported with the documented exit code 1 (the default panic message, printed by the hook,
/// says where).
pub fn main() -> ExitCode {
    std::panic::catch_unwind(parse_and_run).unwrap_or_else(|_| {
        output::error("internal error: paf panicked; please report this with the command line");
        ExitCode::from(exit::INTERNAL)
    })
}

fn parse_and_run() -> ExitCode {
    // Debug builds panic on request, so that a test can check the path a bug takes.
    #[cfg(debug_assertions)]
    if std::env::var_os("PAF_TEST_PANIC").is_some() {
        panic!("PAF_TEST_PANIC is set");
    }
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
    match run(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(CliError::Bundle(problems)) => {
            for p in problems.iter().take(PROBLEMS_SHOWN) {
                output::error(p);
            }
            if problems.len() > PROBLEMS_SHOWN {
                output::error(format!(
                    "... and {} more problems (paf validate lists them all)",
                    problems.len() - PROBLEMS_SHOWN
                ));
            }
            ExitCode::from(exit::BAD_INPUT)
        }
        Err(e) => {
            output::error(&e);
            ExitCode::from(e.exit_code())
        }
    }
}

/// Runs one command; its exit code, or how it failed.
fn run(command: Command) -> Result<u8, CliError> {
    match command {
        Command::Rank(a) => cmd::rank::run(a),
        Command::Explain(a) => cmd::explain::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Validate(a) => cmd::validate::run(a),
        Command::Convert(a) => cmd::convert::run(a),
        Command::Od(a) => cmd::od::run(a),
        Command::Eval(a) => cmd::eval::run(a),
        Command::Localize(a) => cmd::localize::run(a),
        Command::Synth(a) => cmd::synth::run(a),
        Command::Trace {
            command: cmd::trace::TraceCommand::Java(a),
        } => cmd::trace::java(*a),
        Command::Trace {
            command: cmd::trace::TraceCommand::Merge(a),
        } => cmd::trace::merge(a),
        Command::Completions(a) => cmd::install::completions(&a),
        Command::Man(a) => cmd::install::man(&a),
    }
}
