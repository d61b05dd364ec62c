//! `paf rank`: the ranking of a bundle's failures as a table (sized to the terminal), JSON,
//! CSV, SARIF, JUnit XML or Markdown, or one phase's output (`--dump`).

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::super::args::{AnalysisArgs, SourceArgs, TableArgs};
use super::super::{CliError, exit, output};
use crate::engine::{Jobs, Options};
use crate::od;
use crate::ranking::{self, TestOrder, exclude};
use crate::report::{self, dump, junit, markdown, render, render::By, sarif};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankFormat {
    /// A table sized to the terminal (as wide as its content in a pipe or file).
    Table,
    /// The `paf.rank/1` document (docs/paf.rank.schema.json).
    Json,
    Csv,
    /// SARIF 2.1.0 for code scanning: a result per flow-set with its dataflow as a code flow.
    Sarif,
    /// JUnit XML for CI test reports: a test case per failing test, with its triage.
    Junit,
    /// Markdown for a job summary or a pull-request comment.
    Markdown,
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
    /// How the individual-test ranking lists the tests of flow-sets.
    #[arg(long, value_enum, default_value_t = TestOrder::Representatives)]
    pub test_order: TestOrder,
    #[command(flatten)]
    pub table: TableArgs,
    #[command(flatten)]
    pub sources: SourceArgs,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// Write the output to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print one phase's output as JSON instead of the ranking.
    #[arg(long, value_enum)]
    pub dump: Option<Dump>,
    /// An order-dependence report (paf.od/2 from `paf od detect -o`, paf.od/1, or iDFlakies'
    /// flaky-lists.json): its order-caused failures leave the ranking and are listed apart,
    /// with their witness order.
    #[arg(long, value_name = "OD_JSON", conflicts_with = "od")]
    pub exclude_od: Option<PathBuf>,
    /// As --exclude-od, and the report's masked failures (tests that passed in the bundle and
    /// fail alone) join the ranking by their isolated trace (BUNDLE/isolated.jsonl, recorded
    /// with `paf trace java --isolate`).
    #[arg(long, value_name = "OD_JSON")]
    pub od: Option<PathBuf>,
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
        let od_report = match a.od.as_ref().or(a.exclude_od.as_ref()) {
            Some(path) => Some(od::input::read_report(path).map_err(CliError::Bundle)?),
            None => None,
        };
        let order_caused = od_report
            .as_ref()
            .map_or(Vec::new(), |r| r.order_caused_failures());
        let wanted = match (&a.od, &od_report) {
            (Some(_), Some(r)) => r.masked_failures(),
            _ => Vec::new(),
        };
        let options = Options {
            isolated: wanted.iter().map(|m| m.test.clone()).collect(),
            ..self.options.clone()
        };
        let (bundle, mut analysis) = super::load(&a.bundle, &options, self.jobs)?;
        let excluded = exclude::exclude(
            &analysis.test_ids,
            &mut analysis.failures,
            &mut analysis.unanalyzed,
            order_caused,
        );
        let masked = exclude::masked(&analysis.test_ids, &analysis.masked, wanted);
        for m in &masked.missing {
            output::warning(format!(
                "{}: masked failure {} has no failing trace in {}; record it with `paf trace java --isolate {}` to rank it",
                a.od.as_deref().unwrap_or(Path::new("")).display(),
                m.test,
                bundle.dir.join("isolated.jsonl").display(),
                m.test
            ));
        }
        let seed = a.analysis.seed;
        let text = match a.dump {
            Some(Dump::Dataflow) => dump::dataflow(&bundle.tables, &analysis),
            Some(Dump::Duas) => dump::duas(&bundle.tables, &analysis),
            None => {
                let mut ranked = ranking::rank(&analysis.failures, &analysis.duas, seed);
                ranked.test_order = a.test_order;
                let paths = a.sources.paths(&bundle.tables);
                let report = report::build_with_paths(
                    &bundle.tables,
                    &analysis,
                    &ranked,
                    seed,
                    excluded,
                    masked.joined,
                    &paths,
                );
                match a.format {
                    RankFormat::Table => {
                        render::table(&report, a.by, a.table.style(a.output.is_some()))
                    }
                    RankFormat::Json => render::json(&report),
                    RankFormat::Csv => render::csv(&report, a.by),
                    RankFormat::Sarif => sarif::sarif(&report),
                    RankFormat::Junit => junit::junit(&report),
                    RankFormat::Markdown => markdown::markdown(&report),
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
