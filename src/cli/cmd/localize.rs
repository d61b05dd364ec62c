//! `paf localize`: spectrum-based fault localization of a bundle's lines (Ochiai and DStar over
//! its failing and passing tests), the view a researcher compares PAF's triage with.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::super::args::{JobsArg, TableArgs};
use super::super::{CliError, exit, output};
use crate::engine::Options;
use crate::eval::render;
use crate::eval::sbfl::{self, Formula};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalizeFormat {
    Table,
    Json,
    Csv,
}

#[derive(Args, Debug)]
#[command(after_help = "Exit codes: 0 ok, 1 internal error, 2 bad input or usage.")]
pub struct LocalizeArgs {
    /// The bundle directory (or its manifest.json).
    pub bundle: PathBuf,
    /// The formula the lines are sorted by (both are shown).
    #[arg(long, value_enum, default_value_t = Formula::Ochiai)]
    pub by: Formula,
    /// Show the N most suspicious lines (0: every line a failing test covered).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
    #[arg(long, value_enum, default_value_t = LocalizeFormat::Table)]
    pub format: LocalizeFormat,
    #[command(flatten)]
    pub jobs: JobsArg,
    #[command(flatten)]
    pub table: TableArgs,
    /// Write the output to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(a: LocalizeArgs) -> Result<u8, CliError> {
    super::output_file(a.output.as_deref(), &[super::Input::Bundle(&a.bundle)])?;
    // The spectra are gathered with eval's facts, in the engine's two passes.
    let options = Options {
        facts: true,
        ..Options::default()
    };
    let (bundle, analysis) = super::load(&a.bundle, &options, a.jobs.jobs())?;
    let facts = analysis.facts.unwrap_or_default();
    let name = a.bundle.display().to_string();
    let report = sbfl::localize(&facts, &bundle.tables, &name, a.by, a.top);
    let text = match a.format {
        LocalizeFormat::Table => {
            render::localization_table(&report, a.table.style(a.output.is_some()))
        }
        LocalizeFormat::Json => render::localization_json(&report),
        LocalizeFormat::Csv => render::localization_csv(&report),
    };
    output::emit(&text, a.output.as_deref())?;
    Ok(exit::OK)
}
