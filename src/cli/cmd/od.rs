//! `paf od detect|plan|replay`: flags, their checks, and the glue that calls [`crate::od`].

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};

use super::super::progress::Bar;
use super::super::{CliError, exit, output};
use crate::od::algo::{Algo, Params};
use crate::od::detect::{self, DetectSettings};
use crate::od::exec::{self, Executor};
use crate::od::plan as od_plan;
use crate::od::replay::{self, ReplayError};
use crate::od::report as od_report;
use crate::od::runner::Runner;
use crate::od::{Access, input};
use crate::trace::Problem;

#[derive(Args, Debug)]
pub struct OdArgs {
    #[command(subcommand)]
    pub command: OdCommand,
}

#[derive(Subcommand, Debug)]
pub enum OdCommand {
    /// Run schedules through a test runner and report order-dependent tests (paf.od/1).
    Detect(DetectArgs),
    /// Print the schedules an algorithm would run, without running them.
    Plan(PlanArgs),
    /// Re-run the recorded witness orders of one test from a paf.od/1 report.
    Replay(ReplayArgs),
}

#[derive(Args, Debug)]
pub struct SuiteArgs {
    /// The default order: one test id per line (default: the bundle's tests, in its order).
    #[arg(long, value_name = "LIST")]
    pub tests: Option<PathBuf>,
    /// Each test's static reads and writes, in the access-file format.
    #[arg(long, value_name = "FILE", conflicts_with = "bundle")]
    pub access: Option<PathBuf>,
    /// A trace bundle: its static-field events and its `end.statics` records give each test's
    /// reads and writes.
    #[arg(long, value_name = "BUNDLE")]
    pub bundle: Option<PathBuf>,
    /// Algorithms, in the order to run them.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "reverse,random,isolate,twice"
    )]
    pub algo: Vec<Algo>,
    /// Permutation length of exhaustive, dep-aware and dep-aware-lastwriter.
    #[arg(long, value_name = "K", default_value_t = 2)]
    pub k: usize,
    /// Shuffles of random.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub trials: usize,
    /// Seed of random's shuffles.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OdFormat {
    Table,
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanFormat {
    Json,
    Text,
}

#[derive(Args, Debug)]
pub struct DetectArgs {
    /// The runner command: run as `sh -c 'CMD "$@"' paf-od TESTS_FILE -o RESULTS_FILE` once
    /// per schedule (docs/order-dependence.md).
    #[arg(long, value_name = "CMD")]
    pub runner: String,
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Time limit of one schedule (e.g. 90s, 5m); its whole process group is killed after it.
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub timeout: String,
    /// Stop starting schedules after this long (e.g. 30m) and report what was covered.
    #[arg(long, value_name = "DURATION")]
    pub budget: Option<String>,
    /// Schedules run in parallel (default: the number of cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Re-runs of each order before a changed outcome counts as order-dependent.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub reruns: u32,
    /// Write the paf.od/1 report here; OUT.runs.jsonl keeps every run, so running again with
    /// the same -o resumes.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Standard output: tables, or the JSON report.
    #[arg(long, value_enum, default_value_t = OdFormat::Table)]
    pub format: OdFormat,
    /// No progress bar on standard error.
    #[arg(long)]
    pub no_progress: bool,
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
    #[arg(long, value_enum, default_value_t = PlanFormat::Json)]
    pub format: PlanFormat,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A paf.od/1 report written by `paf od detect -o`.
    pub report: PathBuf,
    /// The test whose witness orders to re-run.
    pub test: String,
    /// The runner command (required: a report's own runner is a shell command from a file,
    /// and is only run with --trust-report-runner).
    #[arg(
        long,
        value_name = "CMD",
        required_unless_present = "trust_report_runner"
    )]
    pub runner: Option<String>,
    /// Run the report's `runner` field through the shell (only for a report you wrote).
    #[arg(long, conflicts_with = "runner")]
    pub trust_report_runner: bool,
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub timeout: String,
    /// Runs of each order.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub reruns: u32,
    #[arg(long, value_enum, default_value_t = OdFormat::Table)]
    pub format: OdFormat,
}

/// A checked `od` command.
#[derive(Debug)]
pub enum OdConfig {
    Detect(DetectArgs, Duration, Option<Duration>, usize),
    Plan(PlanArgs),
    Replay(ReplayArgs, Duration),
}

/// `90`, `90s`, `500ms`, `5m`, `2h`, `1h30m`: a duration.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    if let Ok(secs) = text.parse::<f64>() {
        return (secs >= 0.0 && secs.is_finite()).then(|| Duration::from_secs_f64(secs));
    }
    let mut total = 0f64;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let value: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        total += value * scale;
        rest = &rest[unit_len..];
    }
    (!text.is_empty()).then(|| Duration::from_secs_f64(total))
}

fn duration(flag: &str, text: &str) -> Result<Duration, CliError> {
    parse_duration(text).ok_or_else(|| {
        CliError::Usage(format!(
            "{flag} {text:?}: expected a duration such as 90s, 5m, 1h30m or 500ms"
        ))
    })
}

impl OdConfig {
    pub fn from_args(args: OdArgs) -> Result<OdConfig, CliError> {
        Ok(match args.command {
            OdCommand::Detect(a) => {
                let timeout = duration("--timeout", &a.timeout)?;
                if timeout.is_zero() {
                    return Err(CliError::Usage("--timeout: expected more than 0".into()));
                }
                let budget = a
                    .budget
                    .as_deref()
                    .map(|b| duration("--budget", b))
                    .transpose()?;
                let jobs = match a.jobs {
                    Some(0) => return Err(CliError::Usage("-j 0: expected at least 1".into())),
                    Some(j) => j,
                    None => std::thread::available_parallelism().map_or(1, |n| n.get()),
                };
                let s = &a.suite;
                let mut inputs: Vec<super::Input<'_>> = s
                    .tests
                    .iter()
                    .chain(&s.access)
                    .map(|f| super::Input::File(f))
                    .collect();
                inputs.extend(s.bundle.iter().map(|b| super::Input::Bundle(b)));
                super::output_file(a.output.as_deref(), &inputs)?;
                let journal = a.output.as_deref().map(exec::journal_path);
                super::output_file(journal.as_deref(), &inputs)?;
                check_suite(&a.suite)?;
                OdConfig::Detect(a, timeout, budget, jobs)
            }
            OdCommand::Plan(a) => {
                check_suite(&a.suite)?;
                OdConfig::Plan(a)
            }
            OdCommand::Replay(a) => {
                let timeout = duration("--timeout", &a.timeout)?;
                OdConfig::Replay(a, timeout)
            }
        })
    }

    pub fn run(self) -> Result<u8, CliError> {
        match self {
            OdConfig::Plan(a) => plan(a),
            OdConfig::Detect(a, timeout, budget, jobs) => detect(a, timeout, budget, jobs),
            OdConfig::Replay(a, timeout) => replay(a, timeout),
        }
    }
}

fn check_suite(s: &SuiteArgs) -> Result<(), CliError> {
    if s.tests.is_none() && s.bundle.is_none() {
        return Err(CliError::Usage(
            "expected --tests LIST (or --bundle BUNDLE, whose tests are then the default order)"
                .into(),
        ));
    }
    if s.k == 0 {
        return Err(CliError::Usage("--k 0: expected at least 1".into()));
    }
    if let Some(a) = s.algo.iter().find(|a| a.needs_access())
        && s.access.is_none()
        && s.bundle.is_none()
    {
        return Err(CliError::Usage(format!(
            "--algo {a} needs each test's reads and writes: expected --access FILE or --bundle BUNDLE"
        )));
    }
    Ok(())
}

/// The default order and, when given, the access sets.
fn load_suite(s: &SuiteArgs) -> Result<(Vec<String>, Option<Access>), CliError> {
    let from_bundle = match &s.bundle {
        Some(b) => Some(input::access_from_bundle(b).map_err(CliError::Bundle)?),
        None => None,
    };
    let ids = match (&s.tests, &from_bundle) {
        (Some(list), _) => input::read_tests(list).map_err(CliError::Bundle)?,
        (None, Some((bundle_ids, _))) => bundle_ids.clone(),
        (None, None) => unreachable!("checked by check_suite"),
    };
    let access = match (&s.access, &from_bundle) {
        (Some(path), _) => Some(input::read_access(path, &ids).map_err(CliError::Bundle)?),
        (None, Some((bundle_ids, per_test))) => Some(input::access_for(&ids, bundle_ids, per_test)),
        (None, None) => None,
    };
    Ok((ids, access))
}

fn params(s: &SuiteArgs) -> Params {
    Params {
        k: s.k,
        trials: s.trials,
        seed: s.seed,
    }
}

fn plan(a: PlanArgs) -> Result<u8, CliError> {
    let (ids, access) = load_suite(&a.suite)?;
    let access = access.unwrap_or_else(|| Access::empty(ids.len()));
    let plan = od_plan::plan(&a.suite.algo, ids, &access, params(&a.suite))
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let text = match a.format {
        PlanFormat::Json => od_plan::json(&plan),
        PlanFormat::Text => od_plan::text(&plan),
    };
    output::emit(&text, None)?;
    Ok(exit::OK)
}

fn work_dir() -> Result<tempfile::TempDir, CliError> {
    tempfile::Builder::new()
        .prefix("paf-od-")
        .tempdir()
        .map_err(|e| CliError::Internal(format!("cannot create a temporary directory: {e}")))
}

fn detect(
    a: DetectArgs,
    timeout: Duration,
    budget: Option<Duration>,
    jobs: usize,
) -> Result<u8, CliError> {
    let (ids, access) = load_suite(&a.suite)?;
    let work = work_dir()?;
    let runner = Runner {
        command: a.runner.clone(),
        timeout,
        work: work.path().to_path_buf(),
    };
    let mut bar = Bar::runs(!a.no_progress);
    let mut executor = Executor::new(runner, ids, jobs, budget, &mut bar);
    if let Some(out) = &a.output {
        executor
            .use_journal(&exec::journal_path(out))
            .map_err(CliError::Bundle)?;
    }
    let settings = DetectSettings {
        algos: a.suite.algo.clone(),
        params: params(&a.suite),
        reruns: a.reruns,
        runner: a.runner.clone(),
        timeout_seconds: timeout.as_secs_f64(),
        budget_seconds: budget.map(|b| b.as_secs_f64()),
    };
    let result = detect::detect(access.as_ref(), &settings, &mut executor);
    drop(executor);
    bar.finish();
    let report = result.map_err(|e| CliError::Usage(e.to_string()))?;
    let json = od_report::json(&report);
    if let Some(out) = &a.output {
        output::emit(&json, Some(out))?;
    }
    let text = match a.format {
        OdFormat::Table => od_report::table(&report),
        OdFormat::Json => json,
    };
    output::emit(&text, None)?;
    Ok(exit::OK)
}

fn replay(a: ReplayArgs, timeout: Duration) -> Result<u8, CliError> {
    let report = input::read_report(&a.report).map_err(CliError::Bundle)?;
    let work = work_dir()?;
    let runner = Runner {
        command: a.runner.clone().unwrap_or_else(|| report.runner.clone()),
        timeout,
        work: work.path().to_path_buf(),
    };
    // Replay has never drawn a progress bar.
    let replayed =
        replay::replay(&report, &a.test, runner, a.reruns, &mut ()).map_err(|e| match e {
            ReplayError::NoVerdict { .. } => {
                CliError::Usage(format!("{}: {e}", a.report.display()))
            }
            _ => CliError::Bundle(vec![Problem::in_file(&a.report, e.to_string())]),
        })?;
    let text = match a.format {
        OdFormat::Table => replay::table(&replayed),
        OdFormat::Json => replay::json(&replayed),
    };
    output::emit(&text, None)?;
    Ok(if replayed.orders.iter().all(|o| o.reproduced) {
        exit::OK
    } else {
        exit::NOT_REPRODUCED
    })
}

pub fn run(args: OdArgs) -> Result<u8, CliError> {
    OdConfig::from_args(args)?.run()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("30m"), Some(Duration::from_secs(1800)));
        assert_eq!(parse_duration("1h30m"), Some(Duration::from_secs(5400)));
        assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("2.5s"), Some(Duration::from_millis(2500)));
        assert_eq!(parse_duration("5 minutes"), None);
        assert_eq!(parse_duration(""), None);
        assert_eq!(parse_duration("m"), None);
    }
}
