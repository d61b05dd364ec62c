//! `paf od detect|merge|plan|replay|convert`: flags, their checks, and the glue that calls
//! [`crate::od`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};

use super::super::args::TableArgs;
use super::super::progress::Bar;
use super::super::{CliError, exit, output};
use crate::od::algo::{Algo, Params};
use crate::od::detect::{self, DetectSettings, ShardReport};
use crate::od::exec::{self, Executor};
use crate::od::idflakies;
use crate::od::plan as od_plan;
use crate::od::replay::{self, ReplayError};
use crate::od::report as od_report;
use crate::od::runner::Runner;
use crate::od::shard::Shard;
use crate::od::{Access, input};
use crate::trace::Problem;

#[derive(Args, Debug)]
pub struct OdArgs {
    #[command(subcommand)]
    pub command: OdCommand,
}

#[derive(Subcommand, Debug)]
pub enum OdCommand {
    /// Run schedules through a test runner and report order-dependent tests (paf.od/2).
    Detect(DetectArgs),
    /// Combine the journals of `od detect --shard` runs into one report (paf.od/2).
    Merge(MergeArgs),
    /// Print the schedules an algorithm would run, without running them.
    Plan(PlanArgs),
    /// Re-run the recorded witness orders of one test from a report.
    Replay(ReplayArgs),
    /// Convert a report between paf.od/2 (or paf.od/1) and iDFlakies' flaky-lists.json.
    Convert(ConvertArgs),
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
    /// reads and writes, and its outcomes the failing tests `triage` plans from.
    #[arg(long, value_name = "BUNDLE")]
    pub bundle: Option<PathBuf>,
    /// Algorithms, in the order to run them (default: triage with --bundle, else
    /// reverse,random,isolate,twice).
    #[arg(long, value_enum, value_delimiter = ',')]
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

impl SuiteArgs {
    /// The algorithms asked for, or the default: `triage` given a bundle (runs that grow with
    /// the failing tests), else the whole-suite probes.
    fn algos(&self) -> Vec<Algo> {
        if !self.algo.is_empty() {
            self.algo.clone()
        } else if self.bundle.is_some() {
            vec![Algo::Triage]
        } else {
            vec![Algo::Reverse, Algo::Random, Algo::Isolate, Algo::Twice]
        }
    }
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

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvertFormat {
    /// paf.od/2.
    Paf,
    /// iDFlakies' flaky-lists.json.
    Idflakies,
}

/// What `od detect` and `od merge` share: the runner, the suite and how to run.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The runner command: run as `sh -c 'CMD "$@"' paf-od TESTS_FILE -o RESULTS_FILE` once
    /// per schedule (docs/order-dependence.md).
    #[arg(long, value_name = "CMD")]
    pub runner: String,
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Time limit of one schedule (e.g. 90s, 5m); its whole process group is killed after it.
    /// With --batch: the longest a batch may go without a new result.
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub timeout: String,
    /// Stop starting schedules after this long (e.g. 30m) and report what was covered.
    #[arg(long, value_name = "DURATION")]
    pub budget: Option<String>,
    /// Schedules run in parallel (default: the number of cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Re-runs of each order before a changed outcome counts as order-dependent, and of each
    /// dependency's witness and baseline before it is confirmed.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub reruns: u32,
    /// Give the runner up to N schedules per process, which it isolates itself (the Java
    /// runner: a class loader each); dependencies are still confirmed in fresh processes.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub batch: usize,
    /// Write the paf.od/2 report here; OUT.runs.jsonl keeps every run, so running again with
    /// the same -o resumes. With --shard: the shard's journal.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Standard output: tables, or the JSON report.
    #[arg(long, value_enum, default_value_t = OdFormat::Table)]
    pub format: OdFormat,
    #[command(flatten)]
    pub table: TableArgs,
    /// No progress bar on standard error.
    #[arg(long)]
    pub no_progress: bool,
}

#[derive(Args, Debug)]
pub struct DetectArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Run only the i-th of N shares of the planned schedules (content-addressed), into the
    /// journal -o; `paf od merge` makes the report from every shard's journal.
    #[arg(long, value_name = "i/N")]
    pub shard: Option<String>,
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The journals of `od detect --shard i/N -o JOURNAL`, one per shard.
    #[arg(required = true, value_name = "JOURNAL")]
    pub journals: Vec<PathBuf>,
    #[command(flatten)]
    pub run: RunArgs,
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
    /// A report written by `paf od detect -o` (or an iDFlakies flaky-lists.json).
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
    #[command(flatten)]
    pub table: TableArgs,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// A paf.od/2 or paf.od/1 report, or an iDFlakies flaky-lists.json.
    pub report: PathBuf,
    /// The format to write.
    #[arg(long, value_enum)]
    pub to: ConvertFormat,
    /// Write here instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The checked settings of `od detect` and `od merge`.
#[derive(Debug)]
pub struct Running {
    pub timeout: Duration,
    pub budget: Option<Duration>,
    pub jobs: usize,
}

/// A checked `od` command.
#[derive(Debug)]
pub enum OdConfig {
    Detect(RunArgs, Running, Option<Shard>),
    Merge(RunArgs, Running, Vec<PathBuf>),
    Plan(PlanArgs),
    Replay(ReplayArgs, Duration),
    Convert(ConvertArgs),
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
                let running = check_run(&a.run)?;
                let shard = a
                    .shard
                    .as_deref()
                    .map(Shard::parse)
                    .transpose()
                    .map_err(|e| CliError::Usage(e.to_string()))?;
                if shard.is_some() && a.run.output.is_none() {
                    return Err(CliError::Usage(
                        "--shard writes the shard's journal: expected -o JOURNAL".into(),
                    ));
                }
                OdConfig::Detect(a.run, running, shard)
            }
            OdCommand::Merge(a) => {
                let running = check_run(&a.run)?;
                let Some(out) = &a.run.output else {
                    return Err(CliError::Usage(
                        "od merge writes a report: expected -o FILE".into(),
                    ));
                };
                if let Some(j) = a.journals.iter().find(|j| same_file(j, out)) {
                    return Err(CliError::Usage(format!(
                        "{}: is both a journal to merge and the output; expected another -o",
                        j.display()
                    )));
                }
                OdConfig::Merge(a.run, running, a.journals)
            }
            OdCommand::Plan(a) => {
                check_suite(&a.suite)?;
                OdConfig::Plan(a)
            }
            OdCommand::Replay(a) => {
                let timeout = duration("--timeout", &a.timeout)?;
                OdConfig::Replay(a, timeout)
            }
            OdCommand::Convert(a) => {
                super::output_file(a.output.as_deref(), &[super::Input::File(&a.report)])?;
                if a.output.as_deref().is_some_and(|o| same_file(o, &a.report)) {
                    return Err(CliError::Usage(format!(
                        "{}: -o would overwrite the input; expected another file",
                        a.report.display()
                    )));
                }
                OdConfig::Convert(a)
            }
        })
    }

    pub fn run(self) -> Result<u8, CliError> {
        match self {
            OdConfig::Plan(a) => plan(a),
            OdConfig::Detect(a, running, shard) => detect(a, running, shard, &[]),
            OdConfig::Merge(a, running, journals) => detect(a, running, None, &journals),
            OdConfig::Replay(a, timeout) => replay(a, timeout),
            OdConfig::Convert(a) => convert(a),
        }
    }
}

/// Whether two paths name the same file (the same path, or both existing and the same).
fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

/// The checks of what `od detect` and `od merge` share.
fn check_run(a: &RunArgs) -> Result<Running, CliError> {
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
    if a.batch == 0 {
        return Err(CliError::Usage("--batch 0: expected at least 1".into()));
    }
    // The report and its journal never overwrite an input of the run.
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
    Ok(Running {
        timeout,
        budget,
        jobs,
    })
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
    if let Some(a) = s.algos().iter().find(|a| a.needs_access())
        && s.access.is_none()
        && s.bundle.is_none()
    {
        return Err(CliError::Usage(format!(
            "--algo {a} needs each test's reads and writes: expected --access FILE or --bundle BUNDLE"
        )));
    }
    Ok(())
}

/// The default order, the access sets when given, and which tests failed in the bundle (none
/// without one).
type Suite = (Vec<String>, Option<Access>, Vec<bool>);

fn load_suite(s: &SuiteArgs) -> Result<Suite, CliError> {
    let from_bundle = match &s.bundle {
        Some(b) => Some(input::access_from_bundle(b).map_err(CliError::Bundle)?),
        None => None,
    };
    let ids = match (&s.tests, &from_bundle) {
        (Some(list), _) => input::read_tests(list).map_err(CliError::Bundle)?,
        (None, Some(b)) => b.ids.clone(),
        (None, None) => {
            return Err(CliError::Usage(
                "expected --tests LIST or --bundle BUNDLE".into(),
            ));
        }
    };
    let access = match (&s.access, &from_bundle) {
        (Some(path), _) => Some(input::read_access(path, &ids).map_err(CliError::Bundle)?),
        (None, Some(b)) => Some(input::access_for(&ids, &b.ids, &b.access)),
        (None, None) => None,
    };
    let failing = match &from_bundle {
        Some(b) => {
            let failed: std::collections::HashSet<&str> = b
                .ids
                .iter()
                .zip(&b.failing)
                .filter(|(_, f)| **f)
                .map(|(id, _)| id.as_str())
                .collect();
            ids.iter().map(|id| failed.contains(id.as_str())).collect()
        }
        None => vec![false; ids.len()],
    };
    Ok((ids, access, failing))
}

fn params(s: &SuiteArgs) -> Params {
    Params {
        k: s.k,
        trials: s.trials,
        seed: s.seed,
    }
}

fn plan(a: PlanArgs) -> Result<u8, CliError> {
    let (ids, access, failing) = load_suite(&a.suite)?;
    let access = access.unwrap_or_else(|| Access::empty(ids.len()));
    let plan = od_plan::plan(&a.suite.algos(), ids, &access, params(&a.suite), &failing)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let text = match a.format {
        PlanFormat::Json => od_plan::json(&plan),
        PlanFormat::Text => od_plan::text(&plan),
    };
    output::emit(&text, None)?;
    Ok(exit::OK)
}

/// The runs' scratch directory, removed when paf is done, and also when a signal stops it.
fn work_dir() -> Result<tempfile::TempDir, CliError> {
    let dir = tempfile::Builder::new()
        .prefix("paf-od-")
        .tempdir()
        .map_err(|e| CliError::Internal(format!("cannot create a temporary directory: {e}")))?;
    crate::od::runner::remove_when_stopped(dir.path());
    Ok(dir)
}

/// `od detect` (with a shard: its share of the planned schedules) and `od merge` (`journals`:
/// the shards' runs, reused; whatever no shard ran is run here).
fn detect(
    a: RunArgs,
    running: Running,
    shard: Option<Shard>,
    journals: &[PathBuf],
) -> Result<u8, CliError> {
    let (ids, access, _) = load_suite(&a.suite)?;
    let work = work_dir()?;
    let runner = Runner {
        command: a.runner.clone(),
        timeout: running.timeout,
        work: work.path().to_path_buf(),
    };
    let mut bar = Bar::runs(!a.no_progress);
    let mut executor = Executor::new(runner, ids, running.jobs, running.budget, &mut bar);
    executor.set_batch(a.batch);
    for j in journals {
        executor.preload(j).map_err(CliError::Bundle)?;
    }
    let journal = match (&a.output, shard) {
        (Some(out), Some(s)) => {
            executor.set_shard(s);
            Some(out.clone())
        }
        (Some(out), None) => Some(exec::journal_path(out)),
        (None, _) => None,
    };
    if let Some(j) = &journal {
        executor.use_journal(j).map_err(CliError::Bundle)?;
    }
    let settings = DetectSettings {
        algos: a.suite.algos(),
        params: params(&a.suite),
        reruns: a.reruns,
        runner: a.runner.clone(),
        timeout_seconds: running.timeout.as_secs_f64(),
        budget_seconds: running.budget.map(|b| b.as_secs_f64()),
        batch: a.batch,
    };
    if let Some(s) = shard {
        let result = detect::run_shard(access.as_ref(), &settings, &mut executor);
        drop(executor);
        bar.finish();
        let report = result.map_err(|e| CliError::Usage(e.to_string()))?;
        output::emit(&shard_text(s, &report, journal.as_deref()), None)?;
        return Ok(exit::OK);
    }
    let result = detect::detect(access.as_ref(), &settings, &mut executor);
    drop(executor);
    bar.finish();
    let report = result.map_err(|e| CliError::Usage(e.to_string()))?;
    let json = od_report::json(&report);
    if let Some(out) = &a.output {
        output::emit(&json, Some(out))?;
    }
    let text = match a.format {
        OdFormat::Table => od_report::table(&report, a.table.style(false)),
        OdFormat::Json => json,
    };
    output::emit(&text, None)?;
    // The table says it; beside JSON only a resume or a spent budget (the next run resumes)
    // is worth a line on stderr.
    if a.format == OdFormat::Json && (report.invocation.reused > 0 || report.budget.exhausted) {
        output::note(format!(
            "paf od: {} runs executed, {} reused from journals",
            report.invocation.executed, report.invocation.reused
        ));
    }
    Ok(exit::OK)
}

/// What a shard ran, one line per algorithm.
fn shard_text(shard: Shard, r: &ShardReport, journal: Option<&Path>) -> String {
    let mut s = format!(
        "shard {shard}: {} runs executed, {} reused{}\n",
        r.executed,
        r.reused,
        journal.map_or(String::new(), |j| format!("; journal {}", j.display()))
    );
    for a in &r.algorithms {
        s.push_str(&format!(
            "  {}: {} of {} planned schedules are this shard's; {} run\n",
            a.algo, a.share, a.planned, a.runs
        ));
    }
    if !r.left.is_empty() {
        s.push_str(&format!(
            "  left to od merge (adaptive): {}\n",
            r.left.join(", ")
        ));
    }
    if r.budget_exhausted {
        s.push_str("  budget exhausted: run the shard again with the same -o to resume\n");
    }
    s
}

fn convert(a: ConvertArgs) -> Result<u8, CliError> {
    let report = input::read_report(&a.report).map_err(CliError::Bundle)?;
    let text = match a.to {
        ConvertFormat::Paf => od_report::json(&report),
        ConvertFormat::Idflakies => idflakies::json(&idflakies::from_report(&report)),
    };
    output::emit(&text, a.output.as_deref())?;
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
        OdFormat::Table => replay::table(&replayed, a.table.style(false)),
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
