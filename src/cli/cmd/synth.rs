//! `paf synth`: a synthetic bundle with planted faults and precondition traps, and its truth.

use std::path::PathBuf;

use clap::Args;

use super::super::{CliError, exit, output};
use crate::ranking::DEFAULT_SEED;
use crate::synth::{self, SynthConfig};
use crate::trace::write::Compression;

#[derive(Args, Debug)]
pub struct SynthArgs {
    /// Failing tests to generate.
    #[arg(long, default_value_t = 100)]
    pub failing: usize,
    /// Passing tests to generate.
    #[arg(long, default_value_t = 1000)]
    pub passing: usize,
    /// Average events per test.
    #[arg(long, value_name = "E", default_value_t = 100)]
    pub events_per_test: usize,
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// How to store tests.jsonl.
    #[arg(long, value_enum, default_value_t = Compression::None)]
    pub compress: Compression,
    /// Append N pairs of order-dependent tests (a polluter, then a victim that fails only after
    /// it), with od-truth.json for scripts/synth-od-runner.py: a workload for `paf od`.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub order_dependent: usize,
    /// The bundle directory to write (created if needed).
    #[arg(short = 'o', long, value_name = "DIR")]
    pub output: PathBuf,
}

pub fn run(a: SynthArgs) -> Result<u8, CliError> {
    if a.output.is_file() {
        return Err(CliError::Usage(format!(
            "{}: is a file; expected a directory for the bundle",
            a.output.display()
        )));
    }
    let config = SynthConfig {
        failing: a.failing,
        passing: a.passing,
        events_per_test: a.events_per_test,
        seed: a.seed,
        compression: a.compress,
        order_dependent: a.order_dependent,
    };
    let s = synth::generate(&config, &a.output).map_err(|e| {
        CliError::Usage(format!(
            "{}: cannot write the bundle: {e}",
            a.output.display()
        ))
    })?;
    let od = if s.od_victims > 0 {
        format!(
            "; {} order-dependent victims after their polluters, in od-truth.json",
            s.od_victims
        )
    } else {
        String::new()
    };
    output::note(format!(
        "{}: {} tests ({} failing: {} planted-fault, {} precondition-trap, {} assertion), \
         {} events; {} faults, {} traps; truth in truth.csv{od}",
        a.output.display(),
        s.tests,
        config.failing + s.od_victims,
        s.fault_tests,
        s.trap_tests,
        s.assertion_tests,
        s.events,
        s.faults,
        s.traps
    ));
    Ok(exit::OK)
}
