//! Checked settings built from raw flags (ripgrep's two steps), and the commands that run them.

use std::path::PathBuf;

use super::args::{Cli, Command, Dump, RankFormat, TextFormat};
use super::{CliError, dump, exit, output, progress};
use crate::explain;
use crate::pipeline::{self, Analysis, Options, Ranked};
use crate::report::{self, Report, render, render::By};
use crate::synth::{self, SynthConfig};
use crate::trace::Bundle;

/// One command with validated settings.
#[derive(Debug)]
pub enum Config {
    Rank {
        bundle: PathBuf,
        format: RankFormat,
        by: By,
        seed: u64,
        options: Options,
        output: Option<PathBuf>,
        dump: Option<Dump>,
        exclude_od: Option<PathBuf>,
        jobs: Jobs,
    },
    Explain {
        bundle: PathBuf,
        test: String,
        format: TextFormat,
        seed: u64,
        jobs: Jobs,
    },
    Validate {
        bundle: PathBuf,
        format: TextFormat,
        jobs: Jobs,
    },
    Synth {
        config: SynthConfig,
        output: PathBuf,
    },
    Od(super::od::OdConfig),
    Eval(super::eval::EvalConfig),
    TraceJava(super::trace::JavaArgs),
}

/// Threads that read a bundle; `None`: one per core.
type Jobs = Option<u16>;

fn options(max_covering: usize) -> Options {
    Options {
        max_covering: if max_covering == 0 {
            usize::MAX
        } else {
            max_covering
        },
        all_duas: false,
        all_ids: false,
    }
}

impl Config {
    pub fn from_cli(cli: Cli) -> Result<Config, CliError> {
        Ok(match cli.command {
            Command::Rank(a) => {
                if let Some(out) = &a.output
                    && out.is_dir()
                {
                    return Err(CliError::Usage(format!(
                        "{}: is a directory; expected a file path for -o",
                        out.display()
                    )));
                }
                Config::Rank {
                    bundle: a.bundle,
                    format: a.format,
                    by: a.by,
                    seed: a.analysis.seed,
                    // The DUA dump shows every DUA, not only those theta is made of.
                    options: Options {
                        all_duas: matches!(a.dump, Some(Dump::Duas)),
                        ..options(a.analysis.max_covering)
                    },
                    output: a.output,
                    dump: a.dump,
                    exclude_od: a.exclude_od,
                    jobs: a.analysis.jobs,
                }
            }
            Command::Explain(a) => Config::Explain {
                bundle: a.bundle,
                test: a.test,
                format: a.format,
                seed: a.seed,
                jobs: a.jobs,
            },
            Command::Validate(a) => Config::Validate {
                bundle: a.bundle,
                format: a.format,
                jobs: a.jobs,
            },
            Command::Od(a) => Config::Od(super::od::OdConfig::from_args(a)?),
            Command::Eval(a) => Config::Eval(super::eval::EvalConfig::from_args(a)?),
            Command::Trace {
                command: super::trace::TraceCommand::Java(a),
            } => Config::TraceJava(a),
            Command::Synth(a) => {
                if a.output.is_file() {
                    return Err(CliError::Usage(format!(
                        "{}: is a file; expected a directory for the bundle",
                        a.output.display()
                    )));
                }
                Config::Synth {
                    config: SynthConfig {
                        failing: a.failing,
                        passing: a.passing,
                        events_per_test: a.events_per_test,
                        seed: a.seed,
                        compression: a.compress,
                        order_dependent: a.order_dependent,
                    },
                    output: a.output,
                }
            }
        })
    }

    pub fn run(self) -> Result<u8, CliError> {
        match self {
            Config::Rank {
                bundle,
                format,
                by,
                seed,
                options,
                output,
                dump,
                exclude_od,
                jobs,
            } => {
                let (bundle, mut analysis) = load(&bundle, &options, jobs)?;
                let excluded = match &exclude_od {
                    Some(path) => exclude_order_caused(&mut analysis, path)?,
                    None => Vec::new(),
                };
                let ranked = pipeline::rank(&analysis, seed);
                let text = match dump {
                    Some(Dump::Dataflow) => dump::dataflow(&bundle, &analysis),
                    Some(Dump::Duas) => dump::duas(&bundle, &analysis),
                    None => {
                        let mut report = report::build(&bundle, &analysis, &ranked, seed);
                        report.excluded = excluded;
                        match format {
                            RankFormat::Table => {
                                let mut text = render::table(&report, by);
                                text.push_str(&excluded_text(&report.excluded));
                                text
                            }
                            RankFormat::Json => render::json(&report),
                            RankFormat::Csv => render::csv(&report, by),
                        }
                    }
                };
                output::emit(&text, output.as_deref())?;
                Ok(exit::OK)
            }
            Config::Explain {
                bundle,
                test,
                format,
                seed,
                jobs,
            } => {
                // Any test may be asked about, so every id is kept.
                let all = Options {
                    all_ids: true,
                    ..options(0)
                };
                let (bundle, analysis) = load(&bundle, &all, jobs)?;
                let ranked: Ranked = pipeline::rank(&analysis, seed);
                let report: Report = report::build(&bundle, &analysis, &ranked, seed);
                let e = explain::explain(&bundle, &analysis, &report, &test)
                    .map_err(CliError::Usage)?;
                let text = match format {
                    TextFormat::Text => explain::text(&e),
                    TextFormat::Json => {
                        let mut s = serde_json::to_string_pretty(&e)
                            .map_err(|e| CliError::Internal(e.to_string()))?;
                        s.push('\n');
                        s
                    }
                };
                output::emit(&text, None)?;
                Ok(exit::OK)
            }
            Config::Validate {
                bundle,
                format,
                jobs,
            } => validate(&bundle, format, jobs),
            Config::Od(od) => od.run(),
            Config::Eval(e) => e.run(),
            Config::TraceJava(a) => super::trace::java(a),
            Config::Synth { config, output } => {
                let s = synth::generate(&config, &output).map_err(|e| {
                    CliError::Usage(format!(
                        "{}: cannot write the bundle: {e}",
                        output.display()
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
                eprintln!(
                    "{}: {} tests ({} failing: {} planted-fault, {} precondition-trap, {} assertion), \
                     {} events; {} faults, {} traps; truth in truth.csv{od}",
                    output.display(),
                    s.tests,
                    config.failing + s.od_victims,
                    s.fault_tests,
                    s.trap_tests,
                    s.assertion_tests,
                    s.events,
                    s.faults,
                    s.traps
                );
                Ok(exit::OK)
            }
        }
    }
}

/// `rank --exclude-od`: drops the order-caused failures of a `paf.od/1` report from the
/// analysis before flow-sets are formed (so they neither make nor join a flow-set), and
/// returns them, with their witness, for the report's `excluded` list.
fn exclude_order_caused(
    analysis: &mut Analysis,
    path: &std::path::Path,
) -> Result<Vec<report::ExcludedReport>, CliError> {
    let order_caused = super::od::exclusions(path)?;
    let index_of = |id: &str| analysis.test_ids.find(id);
    let mut dropped = Vec::new();
    for e in order_caused {
        // A test the bundle does not hold, or that passed in it, has nothing to exclude.
        let Some(ix) = index_of(&e.test) else {
            continue;
        };
        let failed = analysis.failures.iter().any(|f| f.test == ix)
            || analysis.unanalyzed.iter().any(|u| u.test == ix);
        if !failed {
            continue;
        }
        analysis.failures.retain(|f| f.test != ix);
        analysis.unanalyzed.retain(|u| u.test != ix);
        dropped.push(report::ExcludedReport {
            test: e.test,
            verdict: e.verdict,
            witness: e.witness,
            polluters: e.polluters,
        });
    }
    Ok(dropped)
}

/// The excluded list under the ranking table.
fn excluded_text(excluded: &[report::ExcludedReport]) -> String {
    let mut s = String::new();
    if !excluded.is_empty() {
        s.push_str(&format!(
            "\nExcluded: {} failure(s) caused by the test order (--exclude-od)\n",
            excluded.len()
        ));
        for e in excluded {
            s.push_str(&format!(
                "  {} ({}): fails after {}; witness: {}\n",
                e.test,
                e.verdict,
                e.polluters.join(", "),
                e.witness.join(" ")
            ));
        }
    }
    s
}

/// Opens and analyzes a bundle with `jobs` reading threads and a progress bar on stderr.
fn open_and_analyze(
    path: &std::path::Path,
    options: &Options,
    jobs: Jobs,
) -> Result<(Bundle, Analysis), Vec<crate::trace::Problem>> {
    let mut bundle = Bundle::open(path)?;
    if let Some(jobs) = jobs {
        bundle.set_jobs(usize::from(jobs));
    }
    let mut bar = progress::Bar::new();
    let analysis = pipeline::analyze_with(&mut bundle, options, &mut bar);
    bar.finish();
    Ok((bundle, analysis?))
}

fn load(
    path: &std::path::Path,
    options: &Options,
    jobs: Jobs,
) -> Result<(Bundle, Analysis), CliError> {
    open_and_analyze(path, options, jobs).map_err(CliError::Bundle)
}

/// `paf validate`: every problem on standard output, then a summary; exit 2 if any.
fn validate(path: &std::path::Path, format: TextFormat, jobs: Jobs) -> Result<u8, CliError> {
    let result = Bundle::open(path).and_then(|mut bundle| {
        if let Some(jobs) = jobs {
            bundle.set_jobs(usize::from(jobs));
        }
        let mut bar = progress::Bar::new();
        let checked = pipeline::check_with(&bundle, &mut bar);
        bar.finish();
        Ok((bundle, checked?))
    });
    let (text, code) = match (&result, format) {
        (Ok((b, a)), TextFormat::Text) => (
            format!(
                "{}: ok: {} tests ({} failing, {} passing), {} events, {} statements\n",
                path.display(),
                a.tests,
                a.failing,
                a.tests - a.failing,
                a.events,
                b.statements.len()
            ),
            exit::OK,
        ),
        (Err(problems), TextFormat::Text) => {
            let mut s: String = problems.iter().map(|p| format!("{p}\n")).collect();
            s.push_str(&format!(
                "{}: {} problem(s)\n",
                path.display(),
                problems.len()
            ));
            (s, exit::BAD_INPUT)
        }
        (_, TextFormat::Json) => {
            let value = match &result {
                Ok((b, a)) => serde_json::json!({
                    "schema": "paf.validate/1", "ok": true, "problems": [],
                    "tests": a.tests, "failing": a.failing,
                    "events": a.events, "statements": b.statements.len(),
                }),
                Err(problems) => serde_json::json!({
                    "schema": "paf.validate/1", "ok": false,
                    "problems": problems.iter().map(|p| serde_json::json!({
                        "file": p.file.display().to_string(), "line": p.line,
                        "column": p.column, "message": p.message,
                    })).collect::<Vec<_>>(),
                }),
            };
            let code = if result.is_ok() {
                exit::OK
            } else {
                exit::BAD_INPUT
            };
            (format!("{value:#}\n"), code)
        }
    };
    output::emit(&text, None)?;
    Ok(code)
}
