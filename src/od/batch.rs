//! Several schedules through one runner process (`od detect --batch N`): the protocol of
//! docs/order-dependence.md, "Batches". The runner gets `--batch SCHEDULES -o RESULTS`, runs
//! each schedule isolated from the others as far as it can (the Java runner: a class loader
//! per schedule) and writes one JSON line per test with the schedule's number. A schedule the
//! batch left without all its results is run again in a process of its own, so what one
//! schedule does (a `System.exit`, a hang) never costs another its results: a batch that died
//! during schedule k gives k a process of its own and the schedules after k a new batch.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::runner::{self, Exit, RunOutput, Runner};

/// Runs `schedules` (each a list of test ids, in order) in as few runner processes as the
/// protocol allows; one output per schedule, in order. `dirs` numbers the work directories. A
/// process still going at `stop` is stopped (its schedules without a result: [`Exit::Stopped`]).
pub fn run_many(
    runner: &Runner,
    schedules: &[Vec<&str>],
    dirs: &AtomicU64,
    stop: Option<Instant>,
) -> Vec<RunOutput> {
    let mut out: Vec<Option<RunOutput>> = vec![None; schedules.len()];
    let mut pending: Vec<usize> = (0..schedules.len()).collect();
    let single = |k: usize| {
        runner::run(
            runner,
            &schedules[k],
            dirs.fetch_add(1, Ordering::SeqCst),
            stop,
        )
    };
    while !pending.is_empty() {
        if pending.len() == 1 {
            out[pending[0]] = Some(single(pending[0]));
            break;
        }
        let group: Vec<&[&str]> = pending.iter().map(|&k| schedules[k].as_slice()).collect();
        let (results, exit) = batch(runner, &group, dirs.fetch_add(1, Ordering::SeqCst), stop);
        if exit == Exit::Stopped {
            // The budget ran out: what the batch finished counts, the rest is not run.
            for (&k, r) in pending.iter().zip(results) {
                out[k] = Some(r.unwrap_or_else(|| runner::stopped(schedules[k].len())));
            }
            break;
        }
        let mut incomplete = Vec::new();
        let mut any = false;
        for (&k, r) in pending.iter().zip(results) {
            match r {
                Some(r) => {
                    any = true;
                    out[k] = Some(r);
                }
                None => incomplete.push(k),
            }
        }
        let died = !matches!(exit, Exit::Code(0));
        pending = match incomplete.split_first() {
            // The process died during `first`: it alone, the rest in a new batch. A batch
            // that gave nothing at all (a runner without --batch) means one process each.
            Some((&first, rest)) if died && any => {
                out[first] = Some(single(first));
                rest.to_vec()
            }
            _ => {
                for &k in &incomplete {
                    out[k] = Some(single(k));
                }
                Vec::new()
            }
        };
    }
    out.into_iter()
        .enumerate()
        .map(|(k, o)| o.unwrap_or_else(|| single(k)))
        .collect()
}

/// The number of the schedule a batch result line is for.
#[derive(Deserialize)]
struct Tagged {
    schedule: usize,
}

/// One batch: the schedules with all their results (`None` for the others) and how the
/// process ended.
fn batch(
    runner: &Runner,
    group: &[&[&str]],
    n: u64,
    stop: Option<Instant>,
) -> (Vec<Option<RunOutput>>, Exit) {
    let dir = runner.work.join(format!("b{n}"));
    let scratch = dir.join("scratch");
    let result = match prepare(&dir, &scratch, group) {
        Ok(()) => execute(runner, &dir, &scratch, group, stop),
        Err(e) => (
            vec![None; group.len()],
            Exit::NotStarted(format!("cannot prepare {}: {e}", dir.display())),
        ),
    };
    let _ = fs::remove_dir_all(&dir);
    result
}

/// The schedules file: each schedule's ids one per line, schedules separated by a blank line.
fn prepare(dir: &Path, scratch: &Path, group: &[&[&str]]) -> std::io::Result<()> {
    fs::create_dir_all(scratch)?;
    let text: Vec<String> = group.iter().map(|s| s.join("\n") + "\n").collect();
    fs::write(dir.join("schedules.txt"), text.join("\n"))
}

fn execute(
    runner: &Runner,
    dir: &Path,
    scratch: &Path,
    group: &[&[&str]],
    stop: Option<Instant>,
) -> (Vec<Option<RunOutput>>, Exit) {
    let schedules = dir.join("schedules.txt");
    let results = dir.join("results");
    let (stdout, stderr) = match (
        fs::File::create(dir.join("stdout")),
        fs::File::create(dir.join("stderr")),
    ) {
        (Ok(o), Ok(e)) => (o, e),
        (Err(e), _) | (_, Err(e)) => {
            return (vec![None; group.len()], Exit::NotStarted(e.to_string()));
        }
    };
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(format!("{} \"$@\"", runner.command))
        .arg("paf-od")
        .arg("--batch")
        .arg(&schedules)
        .arg("-o")
        .arg(&results)
        .env("PAF_OD_TESTS", &schedules)
        .env("PAF_OD_RESULTS", &results)
        .env("PAF_OD_SCRATCH", scratch)
        .env("PAF_OD_BATCH", "1")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0);
    let exit = match cmd.spawn() {
        Ok(child) => wait(child, runner.timeout, &results, stop),
        Err(e) => Exit::NotStarted(e.to_string()),
    };
    // Read with the cap of a single run's results: the schedules whose lines lie past it get
    // no result, which is reported like any missing result.
    let (bytes, _) = runner::read_results(&results);
    let text = bytes.map_or(String::new(), |b| String::from_utf8_lossy(&b).into_owned());
    let tail = runner::tail(&dir.join("stderr"));
    (split(&text, group, &exit, &tail), exit)
}

/// Waits for the batch, killing its process group once no result arrived for `timeout` (the
/// results file did not grow) or at `stop` (the budget), and in any case when it ends.
fn wait(
    mut child: std::process::Child,
    timeout: Duration,
    results: &Path,
    stop: Option<Instant>,
) -> Exit {
    let pgid = child.id() as i32;
    let _listed = runner::Group::list(pgid);
    let mut last = Instant::now();
    let mut size = 0;
    let mut pause = Duration::from_millis(2);
    let exit = loop {
        match child.try_wait() {
            Ok(Some(status)) => break runner::exit_of(status),
            Ok(None) => {}
            Err(e) => break Exit::NotStarted(e.to_string()),
        }
        let now = fs::metadata(results).map_or(0, |m| m.len());
        if now != size {
            size = now;
            last = Instant::now();
        }
        if last.elapsed() >= timeout {
            runner::kill_group(pgid);
            let _ = child.wait();
            break Exit::Timeout;
        }
        if stop.is_some_and(|s| Instant::now() >= s) {
            runner::kill_group(pgid);
            let _ = child.wait();
            break Exit::Stopped;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    runner::kill_group(pgid);
    exit
}

/// The results file cut by schedule: each complete schedule's output (as one schedule's run
/// in a process that ended as the batch did), `None` for the others. A line without a valid
/// `schedule` is a protocol problem of the first schedule it could belong to.
fn split(text: &str, group: &[&[&str]], exit: &Exit, tail: &str) -> Vec<Option<RunOutput>> {
    let mut lines: BTreeMap<usize, String> = BTreeMap::new();
    let mut stray: Vec<String> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Tagged>(line) {
            Ok(t) if t.schedule < group.len() => {
                let own = lines.entry(t.schedule).or_default();
                own.push_str(line);
                own.push('\n');
            }
            _ => stray.push(format!(
                "batch results line {}: expected a JSON object with \"schedule\" (0 to {}) and the result fields",
                i + 1,
                group.len().saturating_sub(1)
            )),
        }
    }
    let mut first = true;
    group
        .iter()
        .enumerate()
        .map(|(k, ids)| {
            let (observed, mut problems) =
                runner::parse_results(lines.get(&k).map_or("", String::as_str), ids);
            if observed.iter().any(Option::is_none) {
                return None;
            }
            if first {
                problems.append(&mut stray);
                first = false;
            }
            Some(RunOutput {
                exit: exit.clone(),
                results: observed.into_iter().flatten().collect(),
                stderr_tail: (!problems.is_empty()).then(|| tail.to_string()),
                problems,
                flaky: Vec::new(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::od::Outcome;

    #[test]
    fn results_are_cut_by_schedule() {
        let text = r#"{"schedule":0,"test":"A","outcome":"pass"}
{"schedule":1,"test":"B","outcome":"fail","exception":"E","class":"C","line":3}
{"schedule":0,"test":"B","outcome":"pass"}
not json
{"schedule":2,"test":"A","outcome":"pass"}
"#;
        let group: [&[&str]; 3] = [&["A", "B"], &["B"], &["B", "A"]];
        let got = split(text, &group, &Exit::Code(0), "");
        let a = got[0].as_ref().unwrap();
        assert_eq!(a.results, vec![Ok(Outcome::Pass), Ok(Outcome::Pass)]);
        // The stray line is a problem of the first complete schedule.
        assert_eq!(a.problems.len(), 1);
        assert!(
            a.problems[0].starts_with("batch results line 4:"),
            "{:?}",
            a.problems
        );
        assert!(matches!(
            got[1].as_ref().unwrap().results[0],
            Ok(Outcome::Fail { .. })
        ));
        // Schedule 2 lacks B's result: it is run again alone.
        assert!(got[2].is_none());
    }
}
