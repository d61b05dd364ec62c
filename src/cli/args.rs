//! Raw command-line flags as clap parses them. [`super::config`] turns them into checked
//! settings; nothing here has meaning beyond parsing.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::rank::DEFAULT_SEED;
use crate::report::render::By;

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
    Rank(RankArgs),
    /// Explain one test: its failure-inducing dataflow, locality and theta coverage.
    Explain(ExplainArgs),
    /// Check a bundle and list every problem in it.
    Validate(ValidateArgs),
    /// Order-dependence filter: find failures caused by the order tests ran in.
    Od(super::od::OdArgs),
    /// Measure PAF and the baselines against a ground truth: APFD, clustering F-measure,
    /// alarm precision and recall (or measure rankings and clusterings made elsewhere).
    Eval(super::eval::EvalArgs),
    /// Write a synthetic bundle with planted faults and precondition violations, and its
    /// truth.csv (a workload for benchmarks and tests).
    Synth(SynthArgs),
    /// Record a trace bundle by running tests under a tracer (`paf trace java ...`).
    Trace {
        #[command(subcommand)]
        command: super::trace::TraceCommand,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankFormat {
    Table,
    Json,
    Csv,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextFormat {
    Text,
    Json,
}

/// A phase whose output `--dump` prints instead of the report.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dump {
    /// Phase 1: each failing test's crash variables, chains, origins and locality.
    Dataflow,
    /// Phase 3 input: every DUA with its covering passing tests.
    Duas,
}

#[derive(Args, Debug)]
pub struct AnalysisArgs {
    /// Seed of the random order among flow-sets with equal locality and likelihood.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Keep at most N covering passing tests per DUA in the output (0: all); counts stay exact.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_covering: usize,
    /// Threads that read the bundle (default: one per core). The output is the same for any
    /// number.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

#[derive(Args, Debug)]
pub struct RankArgs {
    /// The bundle directory (or its manifest.json).
    pub bundle: PathBuf,
    #[arg(long, value_enum, default_value_t = RankFormat::Table)]
    pub format: RankFormat,
    /// Rows of the table and CSV: flow-sets or individual tests (JSON has both).
    #[arg(long, value_enum, default_value_t = By::FlowSet)]
    pub by: By,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// Write the output to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print one phase's output as JSON instead of the ranking.
    #[arg(long, value_enum)]
    pub dump: Option<Dump>,
    /// A paf.od/1 report (from `paf od detect -o`): its order-caused failures leave the
    /// ranking and are listed apart, with their witness order.
    #[arg(long, value_name = "OD_JSON")]
    pub exclude_od: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    pub bundle: PathBuf,
    /// The test id, as in the bundle.
    pub test: String,
    #[arg(long, value_enum, default_value_t = TextFormat::Text)]
    pub format: TextFormat,
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Threads that read the bundle (default: one per core). The output is the same for any
    /// number.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

#[derive(Args, Debug)]
pub struct ValidateArgs {
    pub bundle: PathBuf,
    #[arg(long, value_enum, default_value_t = TextFormat::Text)]
    pub format: TextFormat,
    /// Threads that read the bundle (default: one per core). The output is the same for any
    /// number.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

#[derive(Args, Debug)]
pub struct SynthArgs {
    /// Failing tests to generate.
    #[arg(long, default_value_t = 100)]
    pub failing: usize,
    /// Passing tests to generate.
    #[arg(long, default_value_t = 1000)]
    pub passing: usize,
    /// Average events per test.
    #[arg(long, value_name = "E", default_value_t = 100)]
    pub events_per_test: usize,
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// How to store tests.jsonl.
    #[arg(long, value_enum, default_value_t = crate::trace::write::Compression::None)]
    pub compress: crate::trace::write::Compression,
    /// Append N pairs of order-dependent tests (a polluter, then a victim that fails only after
    /// it), with od-truth.json for scripts/synth-od-runner.py: a workload for `paf od`.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub order_dependent: usize,
    /// The bundle directory to write (created if needed).
    #[arg(short = 'o', long, value_name = "DIR")]
    pub output: PathBuf,
}
