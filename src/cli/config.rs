//! Checked settings built from raw flags (ripgrep's two steps), and the commands that run them.

use std::path::PathBuf;

use super::args::{Cli, Command, Dump, RankFormat, TextFormat};
use super::{CliError, dump, exit, output};
use crate::explain;
use crate::pipeline::{self, Analysis, Options, Ranked};
use crate::report::{self, Report, render, render::By};
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
    },
    Explain {
        bundle: PathBuf,
        test: String,
        format: TextFormat,
        seed: u64,
    },
    Validate {
        bundle: PathBuf,
        format: TextFormat,
    },
}

fn options(max_covering: usize) -> Options {
    Options {
        max_covering: if max_covering == 0 {
            usize::MAX
        } else {
            max_covering
        },
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
                    options: options(a.analysis.max_covering),
                    output: a.output,
                    dump: a.dump,
                }
            }
            Command::Explain(a) => Config::Explain {
                bundle: a.bundle,
                test: a.test,
                format: a.format,
                seed: a.seed,
            },
            Command::Validate(a) => Config::Validate {
                bundle: a.bundle,
                format: a.format,
            },
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
            } => {
                let (bundle, analysis) = load(&bundle, &options)?;
                let ranked = pipeline::rank(&analysis, seed);
                let text = match dump {
                    Some(Dump::Dataflow) => dump::dataflow(&bundle, &analysis),
                    Some(Dump::Duas) => dump::duas(&bundle, &analysis),
                    None => {
                        let report = report::build(&bundle, &analysis, &ranked, seed);
                        match format {
                            RankFormat::Table => render::table(&report, by),
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
            } => {
                let (bundle, analysis) = load(&bundle, &options(0))?;
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
            Config::Validate { bundle, format } => validate(&bundle, format),
        }
    }
}

fn load(path: &std::path::Path, options: &Options) -> Result<(Bundle, Analysis), CliError> {
    let mut bundle = Bundle::open(path).map_err(CliError::Bundle)?;
    let analysis = pipeline::analyze(&mut bundle, options).map_err(CliError::Bundle)?;
    Ok((bundle, analysis))
}

/// `paf validate`: every problem on standard output, then a summary; exit 2 if any.
fn validate(path: &std::path::Path, format: TextFormat) -> Result<u8, CliError> {
    let result = Bundle::open(path).and_then(|mut b| {
        let analysis = pipeline::analyze(&mut b, &options(1))?;
        Ok((b, analysis))
    });
    let (text, code) = match (&result, format) {
        (Ok((b, a)), TextFormat::Text) => (
            format!(
                "{}: ok: {} tests ({} failing, {} passing), {} events, {} statements\n",
                path.display(),
                a.test_ids.len(),
                a.failing(),
                a.test_ids.len() - a.failing(),
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
                    "tests": a.test_ids.len(), "failing": a.failing(),
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
