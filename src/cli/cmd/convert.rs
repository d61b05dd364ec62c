//! `paf convert BUNDLE -o NEW`: a bundle rewritten in another storage form (zstd in frames
//! with a seek table, gzip, or plain), with `tests.marks` made for its tests file.

use std::path::PathBuf;

use clap::Args;

use super::super::{CliError, exit, output};
use crate::trace::convert;
use crate::trace::write::Compression;

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// The bundle to read (its directory or its manifest.json); it is not changed.
    pub bundle: PathBuf,
    /// The new bundle's directory, which must not exist yet.
    #[arg(short = 'o', long, value_name = "DIR")]
    pub output: PathBuf,
    /// How to store the record files: zstd (in frames with a seek table, which paf reads from
    /// their middle and on several threads), gzip, or none (plain JSON Lines).
    #[arg(long, value_enum, default_value_t = Compression::Zstd)]
    pub compress: Compression,
}

pub fn run(a: ConvertArgs) -> Result<u8, CliError> {
    let done = convert::convert(&a.bundle, &a.output, a.compress).map_err(CliError::Bundle)?;
    for name in &done.left_out {
        output::warning(format!(
            "{}: not a regular file: not copied",
            a.bundle.join(name).display()
        ));
    }
    let mut lines = vec![format!(
        "paf convert: {} -> {}",
        a.bundle.display(),
        a.output.display()
    )];
    for (from, to, bytes) in &done.files {
        lines.push(format!("  {from} -> {to} ({bytes} bytes of records)"));
    }
    lines.push(match done.marks {
        Ok(n) => format!("  tests.marks: the header lines of {n} tests"),
        Err(why) => format!("  tests.marks: not written: {why}"),
    });
    lines.push(format!("  copied as they are: {}", done.copied.join(", ")));
    output::note(lines.join("\n"));
    Ok(exit::OK)
}
