//! `paf report`: the ranking as one self-contained HTML page, with the source lines around
//! every step when the sources are found, and optionally the order-dependence findings
//! (`--od`) and the evaluation against a truth with its APFD plot (`--truth`).

use std::path::{Path, PathBuf};

use clap::Args;

use super::super::args::{AnalysisArgs, SourceArgs};
use super::super::{CliError, exit, output};
use crate::engine::Options;
use crate::eval::{self, input, plot};
use crate::od;
use crate::ranking::{self, exclude};
use crate::report::{self, html, page};
use crate::sources;

#[derive(Args, Debug)]
#[command(after_help = "Exit codes: 0 ok, 1 internal error, 2 bad input or usage.")]
pub struct ReportArgs {
    /// The bundle directory (or its manifest.json).
    pub bundle: PathBuf,
    /// Write the page to FILE (default: standard output).
    #[arg(short = 'o', long, value_name = "FILE.html")]
    pub output: Option<PathBuf>,
    /// A paf.od/1 report: its findings are shown, and its order-caused failures leave the
    /// ranking (as with `rank --exclude-od`).
    #[arg(long, value_name = "OD_JSON")]
    pub od: Option<PathBuf>,
    /// A ground truth (CSV test,fault): the page adds `paf eval`'s measures and APFD curves.
    #[arg(long, value_name = "TRUTH.csv")]
    pub truth: Option<PathBuf>,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    #[command(flatten)]
    pub sources: SourceArgs,
}

pub fn run(a: ReportArgs) -> Result<u8, CliError> {
    let mut inputs = vec![super::Input::Bundle(&a.bundle)];
    inputs.extend(a.od.as_deref().map(super::Input::File));
    inputs.extend(a.truth.as_deref().map(super::Input::File));
    super::output_file(a.output.as_deref(), &inputs)?;
    let od_report = match &a.od {
        Some(path) => Some(od::input::read_report(path).map_err(CliError::Bundle)?),
        None => None,
    };
    let options = Options {
        max_covering: super::rank::max_covering(a.analysis.max_covering),
        ..Options::default()
    };
    let (bundle, mut analysis) = super::load(&a.bundle, &options, a.analysis.jobs.jobs())?;
    let excluded = exclude::exclude(
        &analysis.test_ids,
        &mut analysis.failures,
        &mut analysis.unanalyzed,
        od_report
            .as_ref()
            .map(od::report::OdReport::order_caused_failures)
            .unwrap_or_default(),
    );
    let seed = a.analysis.seed;
    let ranked = ranking::rank(&analysis.failures, &analysis.duas, seed);
    let paths = a.sources.paths(&bundle.tables);
    let report = report::build_with_paths(
        &bundle.tables,
        &analysis,
        &ranked,
        seed,
        excluded,
        Vec::new(),
        &paths,
    );
    let wanted = page::wanted_sources(&report);
    let text = sources::read(wanted.iter().map(String::as_str), Path::new("."));
    let eval = match &a.truth {
        Some(truth) => Some(evaluate(&bundle, truth, seed)?),
        None => None,
    };
    let page = page::build(report, &text, od_report, eval);
    output::emit(&html::html(&page), a.output.as_deref())?;
    if let Some(path) = &a.output {
        output::note(format!(
            "{}: {} flow-sets; source lines from {} of {} files",
            path.display(),
            page.report.flow_sets.len(),
            page.sources_found,
            page.sources_named
        ));
    }
    Ok(exit::OK)
}

/// `paf eval`'s measures of the bundle against `truth`, and the APFD curves.
fn evaluate(
    bundle: &crate::trace::Bundle,
    truth: &Path,
    seed: u64,
) -> Result<page::EvalSection, CliError> {
    let bytes = input::read(truth).map_err(|p| CliError::Bundle(vec![p]))?;
    let parsed = input::parse_truth(truth, &bytes).map_err(CliError::Bundle)?;
    let settings = eval::Settings {
        seed,
        ..eval::Settings::default()
    };
    let report = eval::evaluate_bundle(
        bundle,
        &parsed,
        &truth.display().to_string(),
        &settings,
        false,
    )
    .map_err(|e| match e {
        eval::EvalError::Problems(p) => CliError::Bundle(p),
        eval::EvalError::Strict(w) => CliError::Usage(w.join("; ")),
    })?;
    for w in &report.warnings {
        output::warning(w);
    }
    let apfd_svg = if report.rankings.is_empty() {
        None
    } else {
        Some(plot::svg(&report).map_err(CliError::Internal)?)
    };
    Ok(page::EvalSection { report, apfd_svg })
}
