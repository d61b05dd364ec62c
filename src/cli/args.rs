//! The command line as clap parses it: the commands, and the flags several commands share.
//! Each command's own flags live beside it in [`super::cmd`]; nothing here has meaning beyond
//! parsing.

use clap::{Args, Parser, Subcommand, ValueEnum};

use super::cmd;
use crate::engine::Jobs;
use crate::ranking::DEFAULT_SEED;

#[derive(Parser, Debug)]
#[command(
    name = "paf",
    version,
    about = "Ranks the failures of generated tests: real faults first, precondition violations last",
    after_help = "Exit codes: 0 ok, 1 internal error, 2 bad input or usage."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Rank the failing tests of a trace bundle: one row per flow-set, local first,
    /// least likely precondition violation first.
    Rank(cmd::rank::RankArgs),
    /// Explain one test: its failure-inducing dataflow, locality and theta coverage.
    Explain(cmd::explain::ExplainArgs),
    /// Check a bundle and list every problem in it.
    Validate(cmd::validate::ValidateArgs),
    /// Order-dependence filter: find failures caused by the order tests ran in.
    Od(cmd::od::OdArgs),
    /// Measure PAF and the baselines against a ground truth: APFD, clustering F-measure,
    /// alarm precision and recall (or measure rankings and clusterings made elsewhere).
    Eval(cmd::eval::EvalArgs),
    /// Rank the lines of a bundle by spectrum-based fault localization (Ochiai and DStar over
    /// its failing and passing tests).
    Localize(cmd::localize::LocalizeArgs),
    /// Write a synthetic bundle with planted faults and precondition violations, and its
    /// truth.csv (a workload for benchmarks and tests).
    Synth(cmd::synth::SynthArgs),
    /// Record a trace bundle by running tests under a tracer (`paf trace java ...`).
    Trace {
        #[command(subcommand)]
        command: cmd::trace::TraceCommand,
    },
}

/// `text` or `json`: the output of `explain` and `validate`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextFormat {
    Text,
    Json,
}

/// `-j`: the threads that read a bundle.
#[derive(Args, Debug)]
pub struct JobsArg {
    /// Threads that read the bundle (default: one per core). The output is the same for any
    /// number.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

impl JobsArg {
    pub fn jobs(&self) -> Jobs {
        self.jobs
            .map_or_else(Jobs::all_cores, |n| Jobs::new(usize::from(n)))
    }
}

/// The flags of commands that rank.
#[derive(Args, Debug)]
pub struct AnalysisArgs {
    /// Seed of the random order among flow-sets with equal locality and likelihood.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Keep at most N covering passing tests per DUA in the output (0: all); counts stay exact.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_covering: usize,
    #[command(flatten)]
    pub jobs: JobsArg,
}
