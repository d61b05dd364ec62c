//! The command line as clap parses it: the commands, and the flags several commands share.
//! Each command's own flags live beside it in [`super::cmd`]; nothing here has meaning beyond
//! parsing.

use std::path::Path;

use clap::{Args, Parser, Subcommand, ValueEnum};

use super::{cmd, terminal};
use crate::engine::Jobs;
use crate::ranking::DEFAULT_SEED;
use crate::report::SourcePaths;
use crate::report::layout::TableStyle;
use crate::trace::Tables;

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
    /// Write the ranking as one self-contained HTML page: each flow-set expands to its
    /// dataflow with the source lines around every step, its theta and its tests.
    Report(cmd::report::ReportArgs),
    /// Check a bundle and list every problem in it.
    Validate(cmd::validate::ValidateArgs),
    /// Write a bundle again in another storage form, with an index of its tests file.
    ///
    /// zstd in frames with a seek table (the default), gzip or plain; the records are unchanged.
    /// A bundle compressed by gzip, by zstd's own tool or by an older paf then reads faster.
    Convert(cmd::convert::ConvertArgs),
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
    /// Print a shell's completion script (`paf completions bash > ~/.local/share/bash-completion/completions/paf`).
    Completions(cmd::install::CompletionsArgs),
    /// Print a man page (roff): `paf man > ~/.local/share/man/man1/paf.1`, `paf man rank`.
    Man(cmd::install::ManArgs),
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

/// How a table is drawn: the CLI's flags over what standard output is.
#[derive(Args, Debug)]
pub struct TableArgs {
    /// Plain ASCII borders (the default when standard output is not a UTF-8 terminal).
    #[arg(long)]
    pub ascii: bool,
    /// Lay tables out for N columns (default: the terminal's width; in a pipe or file, as wide
    /// as the content).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(20..))]
    pub width: Option<u16>,
}

impl TableArgs {
    /// The style for output to standard output, or to a file when `to_file`.
    pub fn style(&self, to_file: bool) -> TableStyle {
        let term = if to_file { None } else { terminal::stdout() };
        TableStyle {
            width: self.width.or(term.and_then(|t| t.width)),
            ascii: self.ascii || !term.is_some_and(|t| t.utf8),
        }
    }
}

/// Where the sources are, for locations given as repository paths.
#[derive(Args, Debug)]
pub struct SourceArgs {
    /// A directory holding sources by package (repeatable), relative to the repository root,
    /// which is taken to be the current directory. Replaces the bundle's `source_roots`.
    #[arg(long = "source-root", value_name = "DIR")]
    pub source_roots: Vec<String>,
}

impl SourceArgs {
    /// The source roots given, or else the bundle's, resolved against the current directory.
    pub fn paths(&self, tables: &Tables) -> SourcePaths {
        let roots = if self.source_roots.is_empty() {
            &tables.manifest.source_roots
        } else {
            &self.source_roots
        };
        crate::sources::locate(tables, roots, Path::new("."))
    }
}
