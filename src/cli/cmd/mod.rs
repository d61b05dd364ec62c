//! One file per command: its flags (clap), their checks into settings, and the glue that calls
//! the library and hands the result to the output module. Shared here: opening and analyzing a
//! bundle with a progress bar, and the checks of `-o`.

pub mod eval;
pub mod explain;
pub mod install;
pub mod localize;
pub mod od;
pub mod rank;
pub mod report;
pub mod synth;
pub mod trace;
pub mod validate;

use std::path::Path;

use super::CliError;
use super::progress::Bar;
use crate::engine::{self, Analysis, Jobs, Options};
use crate::trace::Bundle;

/// Opens and analyzes a bundle with `jobs` reading threads and a progress bar on stderr.
fn load(path: &Path, options: &Options, jobs: Jobs) -> Result<(Bundle, Analysis), CliError> {
    let bundle = Bundle::open(path).map_err(CliError::Bundle)?;
    let mut bar = Bar::reading();
    let analysis = engine::analyze(&bundle, options, jobs, &mut bar);
    bar.finish();
    Ok((bundle, analysis.map_err(CliError::Bundle)?))
}

/// `-o PATH` must name a file, not a directory.
fn output_file(path: Option<&Path>) -> Result<(), CliError> {
    match path {
        Some(out) if out.is_dir() => Err(CliError::Usage(format!(
            "{}: is a directory; expected a file path for -o",
            out.display()
        ))),
        _ => Ok(()),
    }
}
