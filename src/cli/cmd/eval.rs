//! `paf eval`: flags, their checks, and the glue that reads the inputs, calls [`crate::eval`] and
//! prints the report.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::super::args::TableArgs;
use super::super::{CliError, exit, output};
use crate::engine::Options;
use crate::eval::input;
use crate::eval::metrics::Weighting;
use crate::eval::{self, EvalError, EvalReport, Settings, plot, render};
use crate::ranking::DEFAULT_SEED;
use crate::report::layout::TableStyle;
use crate::trace::{Bundle, Problem};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalFormat {
    Table,
    Json,
    Csv,
}

#[derive(Args, Debug)]
#[command(after_help = "Exit codes: 0 ok, 1 internal error, 2 bad input or usage.")]
pub struct EvalArgs {
    /// A trace bundle: runs PAF and every baseline on it (give --ranking or --clusters instead
    /// to measure files made elsewhere).
    #[arg(required_unless_present_any = ["ranking", "clusters"])]
    pub bundle: Option<PathBuf>,
    /// The ground truth: CSV with header test,fault; one line per (test, fault).
    #[arg(long, value_name = "TRUTH")]
    pub truth: PathBuf,
    /// A ranking made elsewhere: one test id per line, in rank order (repeatable).
    #[arg(long, value_name = "FILE", conflicts_with = "bundle")]
    pub ranking: Vec<PathBuf>,
    /// A clustering made elsewhere: groups of test ids separated by blank lines, or a JSON
    /// array of arrays (repeatable).
    #[arg(long, value_name = "FILE", conflicts_with = "bundle")]
    pub clusters: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = EvalFormat::Table)]
    pub format: EvalFormat,
    /// Also write the APFD curves of every ranking to FILE.svg.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Ids that do not match between the inputs and the truth are errors, not warnings.
    #[arg(long)]
    pub strict: bool,
    /// F-measure weighting: by true-cluster size (standard) or by produced-cluster size (the
    /// formula printed in PAF section 5.1).
    #[arg(long, value_enum, default_value_t = Weighting::Truth)]
    pub weighting: Weighting,
    /// Seed of PAF's tie shuffle and of every random order (run r uses seed + r).
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Random orders measured for the random baseline and within JCrasher's and Daikon's groups.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub runs: usize,
    #[command(flatten)]
    pub table: TableArgs,
    /// Write the output to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// What to evaluate.
#[derive(Debug)]
pub enum Subject {
    Bundle(PathBuf),
    Files {
        rankings: Vec<PathBuf>,
        clusters: Vec<PathBuf>,
    },
}

/// `paf eval` with checked settings.
#[derive(Debug)]
pub struct EvalConfig {
    pub subject: Subject,
    pub truth: PathBuf,
    pub format: EvalFormat,
    /// How the table is drawn (the terminal's width, ASCII or UTF-8).
    pub style: TableStyle,
    pub plot: Option<PathBuf>,
    pub strict: bool,
    pub settings: Settings,
    pub output: Option<PathBuf>,
}

impl EvalConfig {
    pub fn from_args(a: EvalArgs) -> Result<EvalConfig, CliError> {
        if a.runs == 0 {
            return Err(CliError::Usage(
                "--runs 0: expected at least one random order".into(),
            ));
        }
        let mut inputs: Vec<super::Input<'_>> =
            a.bundle.iter().map(|b| super::Input::Bundle(b)).collect();
        inputs.extend(
            std::iter::once(&a.truth)
                .chain(&a.ranking)
                .chain(&a.clusters)
                .map(|f| super::Input::File(f)),
        );
        for path in a.output.iter().chain(&a.plot) {
            super::output_file(Some(path), &inputs)?;
        }
        let subject = match a.bundle {
            Some(b) => Subject::Bundle(b),
            None => Subject::Files {
                rankings: a.ranking,
                clusters: a.clusters,
            },
        };
        Ok(EvalConfig {
            subject,
            truth: a.truth,
            format: a.format,
            style: a.table.style(a.output.is_some()),
            plot: a.plot,
            strict: a.strict,
            settings: Settings {
                seed: a.seed,
                runs: a.runs,
                weighting: a.weighting,
                rebucket: eval::rebucket::Params::DEFAULT,
                options: Options::default(),
            },
            output: a.output,
        })
    }

    pub fn run(self) -> Result<u8, CliError> {
        let truth = parse(&self.truth, input::parse_truth)?;
        let truth_file = self.truth.display().to_string();
        let report = match &self.subject {
            Subject::Bundle(path) => {
                let bundle = Bundle::open(path).map_err(CliError::Bundle)?;
                eval::evaluate_bundle(&bundle, &truth, &truth_file, &self.settings, self.strict)
                    .map_err(eval_error)?
            }
            Subject::Files { rankings, clusters } => {
                let rankings = rankings
                    .iter()
                    .map(|p| Ok((p.display().to_string(), parse(p, input::parse_ranking)?)))
                    .collect::<Result<Vec<_>, CliError>>()?;
                let clusters = clusters
                    .iter()
                    .map(|p| Ok((p.display().to_string(), parse(p, input::parse_clusters)?)))
                    .collect::<Result<Vec<_>, CliError>>()?;
                eval::compare_files(
                    &rankings,
                    &clusters,
                    &truth,
                    &truth_file,
                    &self.settings,
                    self.strict,
                )
                .map_err(eval_error)?
            }
        };
        for w in &report.warnings {
            output::warning(w);
        }
        if let Some(path) = &self.plot {
            write_plot(&report, path)?;
        }
        let text = match self.format {
            EvalFormat::Table => render::table(&report, self.style),
            EvalFormat::Json => render::json(&report),
            EvalFormat::Csv => render::csv(&report),
        };
        output::emit(&text, self.output.as_deref())?;
        Ok(exit::OK)
    }
}

/// Reads and parses one input file; its problems are bad input (exit code 2).
fn parse<T>(
    path: &Path,
    parse: impl Fn(&Path, &[u8]) -> Result<T, Vec<Problem>>,
) -> Result<T, CliError> {
    let bytes = input::read(path).map_err(|p| CliError::Bundle(vec![p]))?;
    parse(path, &bytes).map_err(CliError::Bundle)
}

fn eval_error(e: EvalError) -> CliError {
    match e {
        EvalError::Problems(p) => CliError::Bundle(p),
        EvalError::Strict(w) => CliError::Usage(format!(
            "--strict: the ids of the inputs and the truth do not match:\n  {}",
            w.join("\n  ")
        )),
    }
}

fn write_plot(report: &EvalReport, path: &Path) -> Result<(), CliError> {
    if report.rankings.is_empty() {
        return Err(CliError::Usage(format!(
            "{}: nothing to plot: --plot needs a bundle or at least one --ranking",
            path.display()
        )));
    }
    if report.rankings.iter().all(|r| r.apfd.value.is_none()) {
        return Err(CliError::Usage(format!(
            "{}: nothing to plot: no ranking has an APFD (the truth names no fault)",
            path.display()
        )));
    }
    let svg = plot::svg(report).map_err(CliError::Internal)?;
    output::emit(&svg, Some(path))
}

pub fn run(args: EvalArgs) -> Result<u8, CliError> {
    EvalConfig::from_args(args)?.run()
}
