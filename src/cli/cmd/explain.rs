//! `paf explain`: why one test is where it is in the ranking.

use std::path::PathBuf;

use clap::Args;

use super::super::args::{JobsArg, SourceArgs, TextFormat};
use super::super::{CliError, exit, output};
use crate::engine::Options;
use crate::explain;
use crate::ranking::{self, DEFAULT_SEED};
use crate::report;

#[derive(Args, Debug)]
pub struct ExplainArgs {
    pub bundle: PathBuf,
    /// The test id, as in the bundle.
    pub test: String,
    #[arg(long, value_enum, default_value_t = TextFormat::Text)]
    pub format: TextFormat,
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    #[command(flatten)]
    pub jobs: JobsArg,
    #[command(flatten)]
    pub sources: SourceArgs,
    /// List every covering passing test and every test of the flow-set (the text cuts long
    /// lists with "+N more"; JSON always lists all).
    #[arg(long)]
    pub all: bool,
}

pub fn run(a: ExplainArgs) -> Result<u8, CliError> {
    // Any test may be asked about, so every id is kept, and every covering test is listed.
    let options = Options {
        all_ids: true,
        max_covering: usize::MAX,
        ..Options::default()
    };
    let (bundle, analysis) = super::load(&a.bundle, &options, a.jobs.jobs())?;
    let ranked = ranking::rank(&analysis.failures, &analysis.duas, a.seed);
    let paths = a.sources.paths(&bundle.tables);
    let report = report::build_with_paths(
        &bundle.tables,
        &analysis,
        &ranked,
        a.seed,
        Vec::new(),
        &paths,
    );
    let e = explain::explain_with_paths(&bundle.tables, &analysis, &report, &a.test, &paths)
        .map_err(CliError::Usage)?;
    let text = match a.format {
        TextFormat::Text => explain::text(
            &e,
            if a.all {
                explain::Lists::All
            } else {
                explain::Lists::Cut
            },
        ),
        TextFormat::Json => {
            let mut s =
                serde_json::to_string_pretty(&e).map_err(|e| CliError::Internal(e.to_string()))?;
            s.push('\n');
            s
        }
    };
    output::emit(&text, None)?;
    Ok(exit::OK)
}
