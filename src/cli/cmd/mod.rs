//! One file per command: its flags (clap), their checks into settings, and the glue that calls
//! the library and hands the result to the output module. Shared here: opening and analyzing a
//! bundle with a progress bar, and the checks of `-o`.

pub mod convert;
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

use std::path::{Path, PathBuf};

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

/// What a command reads, which its outputs must not overwrite.
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    /// A file the command reads.
    File(&'a Path),
    /// A bundle (its directory or its `manifest.json`): every file a bundle may hold.
    Bundle(&'a Path),
}

/// `path` as it will resolve when written: canonical if it exists, else its directory's
/// canonical path and its name.
pub(super) fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(c) = path.canonicalize() {
        return Some(c);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(dir.canonicalize().ok()?.join(path.file_name()?))
}

/// Whether writing `out` would write `input`: the same path, or the same file by another name
/// (a hard or symbolic link).
fn same_file(out: &Path, input: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if let (Ok(a), Ok(b)) = (std::fs::metadata(out), std::fs::metadata(input))
        && a.dev() == b.dev()
        && a.ino() == b.ino()
    {
        return true;
    }
    resolved(out).is_some_and(|o| resolved(input).is_some_and(|i| o == i))
}

/// The input `out` would overwrite, if any.
fn overwrites(out: &Path, inputs: &[Input<'_>]) -> Option<PathBuf> {
    inputs.iter().find_map(|input| match *input {
        Input::File(f) => same_file(out, f).then(|| f.to_path_buf()),
        Input::Bundle(b) => {
            let dir = crate::trace::bundle_dir(b);
            crate::trace::BUNDLE_FILES
                .iter()
                .map(|f| dir.join(f))
                .find(|f| same_file(out, f))
        }
    })
}

/// `-o PATH` (and any other output) must name a file, not a directory, and none of the
/// command's inputs.
fn output_file(path: Option<&Path>, inputs: &[Input<'_>]) -> Result<(), CliError> {
    let Some(out) = path else {
        return Ok(());
    };
    if out.is_dir() {
        return Err(CliError::Usage(format!(
            "{}: is a directory; expected a file path for -o",
            out.display()
        )));
    }
    match overwrites(out, inputs) {
        Some(input) => Err(CliError::Usage(format!(
            "{}: would overwrite {}, an input of this command; expected another path for -o",
            out.display(),
            input.display()
        ))),
        None => Ok(()),
    }
}
