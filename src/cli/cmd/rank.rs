//! `paf rank`: the ranking of a bundle's failures as a table, JSON or CSV, or one phase's
//! output (`--dump`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::super::args::AnalysisArgs;
use super::super::{CliError, exit, output};
use crate::engine::{Jobs, Options};
use crate::od;
use crate::ranking::{self, exclude};
use crate::report::{self, dump, render, render::By};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankFormat {
    Table,
    Json,
    Csv,
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

/// `--max-covering N` as a limit (0: none).
pub fn max_covering(n: usize) -> usize {
    if n == 0 { usize::MAX } else { n }
}

/// `paf rank` with checked settings.
struct Rank {
    args: RankArgs,
    options: Options,
    jobs: Jobs,
}

impl Rank {
    fn check(args: RankArgs) -> Result<Rank, CliError> {
        let mut inputs = vec![super::Input::Bundle(&args.bundle)];
        inputs.extend(args.exclude_od.as_deref().map(super::Input::File));
        super::output_file(args.output.as_deref(), &inputs)?;
        let options = Options {
            max_covering: max_covering(args.analysis.max_covering),
            // The DUA dump shows every DUA, not only those theta is made of.
            all_duas: args.dump == Some(Dump::Duas),
            ..Options::default()
        };
        Ok(Rank {
            jobs: args.analysis.jobs.jobs(),
            args,
            options,
        })
    }

    fn run(self) -> Result<u8, CliError> {
        let a = &self.args;
        let order_caused = match &a.exclude_od {
            Some(path) => od::input::read_report(path)
                .map_err(CliError::Bundle)?
                .order_caused_failures(),
            None => Vec::new(),
        };
        let (bundle, mut analysis) = super::load(&a.bundle, &self.options, self.jobs)?;
        let excluded = exclude::exclude(
            &analysis.test_ids,
            &mut analysis.failures,
            &mut analysis.unanalyzed,
            order_caused,
        );
        let seed = a.analysis.seed;
        let text = match a.dump {
            Some(Dump::Dataflow) => dump::dataflow(&bundle.tables, &analysis),
            Some(Dump::Duas) => dump::duas(&bundle.tables, &analysis),
            None => {
                let ranked = ranking::rank(&analysis.failures, &analysis.duas, seed);
                let report = report::build(&bundle.tables, &analysis, &ranked, seed, excluded);
                match a.format {
                    RankFormat::Table => render::table(&report, a.by),
                    RankFormat::Json => render::json(&report),
                    RankFormat::Csv => render::csv(&report, a.by),
                }
            }
        };
        output::emit(&text, a.output.as_deref())?;
        Ok(exit::OK)
    }
}

pub fn run(args: RankArgs) -> Result<u8, CliError> {
    Rank::check(args)?.run()
}
