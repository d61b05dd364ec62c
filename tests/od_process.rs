//! `paf od` as a process supervisor, through testdata/od/misbehaving (docs/order-dependence.md,
//! "When the runner misbehaves" and "Budget, parallelism, progress, resuming"): a runner that
//! crashes, is killed or ends without a result gives "no result", never a failure; a schedule
//! that runs out of time loses its whole process group; the budget stops cleanly; the same -o
//! resumes; `od replay` re-runs a witness; the progress bar stays off a non-terminal stderr.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

mod common;
use common::{root, run as paf};

fn example(name: &str) -> PathBuf {
    root().join("testdata/od").join(name)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `od detect` on the misbehaving example with the tests `list` (written to `dir`).
fn detect(dir: &Path, list: &[&str], args: &[&str], env: &[(&str, &str)]) -> Output {
    let tests = dir.join("tests.txt");
    std::fs::write(&tests, list.join("\n") + "\n").unwrap();
    let runner = example("misbehaving").join("run");
    let mut all: Vec<&str> = vec![
        "od",
        "detect",
        "--runner",
        runner.to_str().unwrap(),
        "--tests",
        tests.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    paf(&all, env)
}

fn json(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

/// The runs `od detect --format json` says on standard error it executed and reused.
fn counts(out: &Output) -> (u64, u64) {
    let err = text(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("paf od: "))
        .unwrap_or_else(|| panic!("no run counts in {err}"));
    let words: Vec<&str> = line.split(' ').collect();
    (words[2].parse().unwrap(), words[5].parse().unwrap())
}

fn strings(v: &Value) -> Vec<String> {
    serde_json::from_value(v.clone()).unwrap()
}

/// The runs of the report's problem list as (order, exit, tests without a result).
fn problems(r: &Value) -> Vec<(Vec<String>, String, Vec<String>)> {
    r["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                strings(&p["order"]),
                p["exit"].as_str().unwrap().to_string(),
                strings(&p["without_result"]),
            )
        })
        .collect()
}

fn v(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_runner_that_dies_gives_no_result_never_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let list = ["Proc.testPass", "Proc.testCrash", "Proc.testAfter"];
    let r = json(&detect(
        dir.path(),
        &list,
        &["--algo", "reverse,isolate", "--format", "json", "-j", "2"],
        &[],
    ));
    // testCrash never has a result, testAfter only where testCrash does not run before it:
    // no outcome changed, nothing failed.
    assert!(r["verdicts"].as_array().unwrap().is_empty(), "{r}");
    assert_eq!(r["summary"]["failing_in_default_order"], 0);
    let crashed = "exit status 3".to_string();
    assert_eq!(
        problems(&r),
        vec![
            (
                v(&list),
                crashed.clone(),
                v(&["Proc.testCrash", "Proc.testAfter"])
            ),
            (
                v(&["Proc.testAfter", "Proc.testCrash", "Proc.testPass"]),
                crashed.clone(),
                v(&["Proc.testCrash", "Proc.testPass"])
            ),
            (v(&["Proc.testCrash"]), crashed, v(&["Proc.testCrash"])),
        ]
    );
    // The table says so.
    let out = detect(dir.path(), &list, &["--algo", "isolate"], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).contains(
            "warning: a run of 3 tests (exit status 3) left 2 without a result (Proc.testCrash, Proc.testAfter); they count as no result, not as failures"
        ),
        "{}",
        text(&out.stdout)
    );

    // Ending normally without a result, and death by a signal (through the shell: 128 + 9).
    let r = json(&detect(
        dir.path(),
        &["Proc.testPass", "Proc.testQuit", "Proc.testSignal"],
        &["--algo", "isolate", "--format", "json"],
        &[],
    ));
    assert!(r["verdicts"].as_array().unwrap().is_empty(), "{r}");
    let p = problems(&r);
    assert_eq!(p[0].1, "exit status 0");
    assert_eq!(p[0].2, v(&["Proc.testQuit", "Proc.testSignal"]));
    assert_eq!(
        p[2],
        (
            v(&["Proc.testSignal"]),
            "exit status 137, as a shell reports death by signal 9".to_string(),
            v(&["Proc.testSignal"])
        )
    );
}

#[test]
fn a_runner_that_gives_nothing_for_the_default_order_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = detect(dir.path(), &["Proc.testCrash"], &["--algo", "isolate"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("the runner gave no result for any test of the default order (exit status 3)"),
        "{err}"
    );
    let missing = dir.path().join("no-such-runner");
    let out = paf(
        &[
            "od",
            "detect",
            "--runner",
            missing.to_str().unwrap(),
            "--tests",
            example("misbehaving").join("tests.txt").to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no-such-runner"),
        "{}",
        text(&out.stderr)
    );
}

/// Whether process `pid` is gone (or a zombie waiting for a parent that is not ours).
fn dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Nothing here depends on how fast the machine is: a hanging test times out however slowly the
/// runner starts, and what a slow start changes (whether `testPass` finished before the
/// timeout, whether `testHang` got to start its child) is allowed either way.
#[test]
fn a_timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let shared = tempfile::tempdir().unwrap();
    let r = json(&detect(
        dir.path(),
        &["Proc.testPass", "Proc.testHang", "Proc.testAfter"],
        &[
            "--algo",
            "isolate",
            "--timeout",
            "10s",
            "-j",
            "2",
            "--format",
            "json",
        ],
        &[("OD_EXAMPLE_SHARED", shared.path().to_str().unwrap())],
    ));
    assert!(r["verdicts"].as_array().unwrap().is_empty(), "{r}");
    // The default order and testHang alone each run into the time limit. (On a machine so busy
    // that a runner does not even start within it, other schedules may time out too.)
    let all = problems(&r);
    let (p, others): (Vec<_>, Vec<_>) = all
        .into_iter()
        .partition(|(order, _, _)| order.iter().any(|t| t == "Proc.testHang"));
    assert!(
        others.iter().all(|(_, exit, _)| exit == "timeout"),
        "{others:?}"
    );
    let orders: Vec<(Vec<String>, String)> =
        p.iter().map(|(o, e, _)| (o.clone(), e.clone())).collect();
    assert_eq!(
        orders,
        vec![
            (
                v(&["Proc.testPass", "Proc.testHang", "Proc.testAfter"]),
                "timeout".to_string()
            ),
            (v(&["Proc.testHang"]), "timeout".to_string()),
        ]
    );
    let lost = &p[0].2;
    assert!(
        lost.ends_with(&v(&["Proc.testHang", "Proc.testAfter"])) && lost.len() <= 3,
        "{lost:?}"
    );
    assert_eq!(p[1].2, v(&["Proc.testHang"]));
    // Each hanging test that started its `sleep 600` (in its process group) saw it killed.
    let children = std::fs::read_to_string(shared.path().join("children")).unwrap_or_default();
    // A killed process may take a moment to be gone on a busy machine: wait for it, with a
    // margin no run of the test comes near (the child itself sleeps 600 s).
    for pid in children.lines().map(|l| l.parse::<u32>().unwrap()) {
        let start = std::time::Instant::now();
        while !dead(pid) && start.elapsed() < std::time::Duration::from_secs(120) {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        assert!(dead(pid), "the runner's child {pid} outlived its schedule");
    }
}

/// Waits until `done` holds, polling, with a margin no run of the test comes near (the processes
/// waited for sleep 600 s): nothing depends on how fast the machine is.
fn eventually(done: impl Fn() -> bool) -> bool {
    let start = std::time::Instant::now();
    while !done() && start.elapsed() < std::time::Duration::from_secs(120) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    done()
}

/// A run's process group is not paf's, so a terminal's Ctrl-C does not reach it: paf kills it
/// when told to stop (SIGINT here; SIGTERM and SIGHUP alike), then ends as the signal would
/// have ended it. Before, the hanging test and its child ran on (docs/robustness.md, "Signals").
#[test]
fn a_stopped_od_kills_the_runs_under_way() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let shared = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let tests = dir.path().join("tests.txt");
    std::fs::write(&tests, "Proc.testHang\n").unwrap();
    let runner = example("misbehaving").join("run");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_paf"))
        .args(["od", "detect", "--runner", runner.to_str().unwrap()])
        .args([
            "--tests",
            tests.to_str().unwrap(),
            "--timeout",
            "10m",
            "--no-progress",
        ])
        .arg("-o")
        .arg(dir.path().join("od.json"))
        .env("OD_EXAMPLE_SHARED", shared.path())
        .env("TMPDIR", scratch.path())
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let children = || std::fs::read_to_string(shared.path().join("children")).unwrap_or_default();
    let started = eventually(|| !children().is_empty());
    if !started {
        let _ = child.kill();
    }
    assert!(started, "the hanging test never started its child");
    // SAFETY: kill(2) on the child we started, which has not been reaped.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGINT), "{status:?}");
    for pid in children().lines().map(|l| l.parse::<u32>().unwrap()) {
        assert!(
            eventually(|| dead(pid)),
            "the run's child {pid} outlived paf"
        );
    }
    let left: Vec<_> = std::fs::read_dir(scratch.path()).unwrap().collect();
    assert!(
        left.is_empty(),
        "the runs' scratch directory is removed: {left:?}"
    );
}

/// The budget runs out during the default order, whatever the machine's speed: its `testSlow`
/// sleeps two seconds and the budget is one. So exactly nothing else runs.
#[test]
fn the_budget_stops_cleanly_and_the_same_output_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("od.json");
    let out = out_file.to_str().unwrap();
    let list = ["Proc.testSlow", "Proc.testPass", "Proc.testAfter"];
    let access = example("misbehaving").join("access.json");
    let base = [
        "--access",
        access.to_str().unwrap(),
        "--algo",
        "isolate,pairwise",
        "-j",
        "1",
        "--format",
        "json",
        "-o",
        out,
    ];
    let env = [("OD_EXAMPLE_SLEEP", "2")];
    let mut args = base.to_vec();
    args.extend(["--budget", "1s"]);
    let first_out = detect(dir.path(), &list, &args, &env);
    let first = json(&first_out);
    assert_eq!(first["budget"]["exhausted"], true);
    assert_eq!(first["budget"]["limit_seconds"], 1.0);
    // Every planned schedule is counted, by algorithm: isolate's 3, pairwise's 6.
    assert_eq!(first["budget"]["not_run"], 9, "{first}");
    assert_eq!(
        first["budget"]["not_run_by"],
        serde_json::json!({"isolate": 3, "pairwise": 6})
    );
    let algos = first["algorithms"].as_array().unwrap();
    assert!(
        algos
            .iter()
            .all(|a| a["complete"] == false && a["runs"] == 0)
    );
    assert_eq!(first["summary"]["runs"], 1);
    // The report was written, and so was the journal of every finished run.
    let written: Value = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
    assert_eq!(written, first);
    let journal = dir.path().join("od.json.runs.jsonl");
    let lines = std::fs::read_to_string(&journal).unwrap().lines().count() as u64;
    assert_eq!(lines, 1 + counts(&first_out).0);

    // Again with the same -o and no budget: the journalled runs are reused, the rest run.
    let second_out = detect(dir.path(), &list, &base, &env);
    let second = json(&second_out);
    assert_eq!(second["budget"]["exhausted"], false);
    assert!(
        second["algorithms"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["complete"] == true)
    );
    assert_eq!(
        counts(&second_out).1,
        first["summary"]["runs"].as_u64().unwrap(),
        "{second}"
    );
    assert_eq!(second["summary"]["runs"], 1 + 3 + 6);
    // A third time nothing runs, and the report is the same bytes: what ran where is not
    // part of it.
    let third_out = detect(dir.path(), &list, &base, &env);
    assert_eq!(counts(&third_out), (0, 10));
    assert_eq!(third_out.stdout, second_out.stdout);

    // A journal of another runner command is refused, with the file and line.
    let other = paf(
        &[
            "od",
            "detect",
            "--runner",
            "true",
            "--tests",
            dir.path().join("tests.txt").to_str().unwrap(),
            "-o",
            out,
        ],
        &[],
    );
    assert_eq!(other.status.code(), Some(2));
    let err = text(&other.stderr);
    assert!(
        err.contains("od.json.runs.jsonl:1") && err.contains("another runner command"),
        "{err}"
    );
}

/// PRADET plans one schedule at a time: when the budget runs out, what it did not run is every
/// edge still pending (three here), not the one schedule it asked for last.
#[test]
fn pradet_counts_its_pending_edges_when_the_budget_runs_out() {
    let dir = tempfile::tempdir().unwrap();
    let access = dir.path().join("access.json");
    std::fs::write(
        &access,
        r#"{"format": "paf-od-access", "version": 1, "tests": {
            "Proc.testSlow": {"writes": ["x", "y"]},
            "Proc.testPass": {"reads": ["x"], "writes": ["ran"]},
            "Proc.testAfter": {"reads": ["ran", "y"]}}}"#,
    )
    .unwrap();
    let r = json(&detect(
        dir.path(),
        &["Proc.testSlow", "Proc.testPass", "Proc.testAfter"],
        &[
            "--access",
            access.to_str().unwrap(),
            "--algo",
            "pradet,reverse",
            "--budget",
            "1s",
            "--format",
            "json",
        ],
        &[("OD_EXAMPLE_SLEEP", "2")],
    ));
    assert_eq!(
        r["budget"]["not_run_by"],
        serde_json::json!({"pradet": 3, "reverse": 1}),
        "{r}"
    );
    assert_eq!(r["budget"]["not_run"], 4);
    let edges = r["candidates"]["pradet"].as_array().unwrap();
    assert_eq!(edges.len(), 3, "{r}");
}

#[test]
fn replay_reruns_the_recorded_witness_orders() {
    let dir = tempfile::tempdir().unwrap();
    let ex = example("dtdetector-example");
    let tests = dir.path().join("tests.txt");
    // Test2 fails in this default order (after Test3 then Test1) and passes alone.
    std::fs::write(&tests, "Test3\nTest1\nTest2\nTest4\n").unwrap();
    let report = dir.path().join("od.json");
    let out = paf(
        &[
            "od",
            "detect",
            "--runner",
            ex.join("run").to_str().unwrap(),
            "--tests",
            tests.to_str().unwrap(),
            "--algo",
            "isolate",
            "-o",
            report.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = paf(
        &[
            "od",
            "replay",
            report.to_str().unwrap(),
            "Test2",
            "--runner",
            ex.join("run").to_str().unwrap(),
            "--reruns",
            "2",
            "--format",
            "json",
        ],
        &[],
    );
    let r = json(&out);
    assert_eq!(r["schema"], "paf.od-replay/1");
    assert_eq!(r["verdict"], "victim");
    let orders = r["orders"].as_array().unwrap();
    assert_eq!(
        strings(&orders[0]["order"]),
        v(&["Test3", "Test1", "Test2"])
    );
    assert_eq!(orders[0]["expected"]["exception"], "AssertionError");
    assert_eq!(strings(&orders[1]["order"]), v(&["Test2"]));
    assert_eq!(orders[1]["expected"]["outcome"], "pass");
    for o in orders {
        assert_eq!(o["reproduced"], true, "{o}");
        assert_eq!(o["observed"].as_array().unwrap().len(), 2);
    }
    // The table, with the report's own runner when told to trust it.
    let replay = |extra: &[&str]| {
        let mut args = vec!["od", "replay", report.to_str().unwrap()];
        args.extend_from_slice(extra);
        paf(&args, &[])
    };
    let out = replay(&["Test2", "--trust-report-runner"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).starts_with("Test2: victim\n"));
    // Without --runner or --trust-report-runner the report's runner is never run.
    let out = replay(&["Test2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--runner"),
        "{}",
        text(&out.stderr)
    );
    // A runner under which every test passes: the witness does not reproduce, exit 3.
    let all_pass = dir.path().join("all-pass");
    std::fs::write(
        &all_pass,
        "#!/bin/sh\nwhile read t; do echo \"{\\\"test\\\": \\\"$t\\\", \\\"outcome\\\": \\\"pass\\\"}\"; done < \"$1\" > \"$3\"\n",
    )
    .unwrap();
    let out = replay(&["Test2", "--runner", &format!("sh {}", all_pass.display())]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains(" no "), "{}", text(&out.stdout));
    let out = replay(&["Test9", "--runner", "true"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no verdict for \"Test9\"; expected one of: Test2"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let out = detect(
        dir.path(),
        &["Proc.testPass", "Proc.testAfter"],
        &["--algo", "isolate,pairwise"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn a_surefire_rerun_mark_makes_a_test_non_deterministic() {
    // A runner writing JUnit XML the way Surefire does with rerunFailingTestsCount: T.flaky
    // failed, was re-run and passed (a flakyFailure under a passing testcase). That is
    // evidence of non-determinism, not a plain pass.
    let dir = tempfile::tempdir().unwrap();
    let runner = dir.path().join("surefire.sh");
    std::fs::write(
        &runner,
        r#"#!/bin/sh
{ echo '<testsuite name="s">'
  while read -r id; do
    cls="${id%.*}"; name="${id##*.}"
    if [ "$name" = flaky ]; then
      echo "<testcase classname=\"$cls\" name=\"$name\"><flakyFailure type=\"java.lang.AssertionError\">at T.flaky(T.java:3)</flakyFailure></testcase>"
    else
      echo "<testcase classname=\"$cls\" name=\"$name\"/>"
    fi
  done < "$1"
  echo '</testsuite>'; } > "$3"
"#,
    )
    .unwrap();
    let tests = dir.path().join("tests.txt");
    std::fs::write(&tests, "T.steady\nT.flaky\n").unwrap();
    let out = paf(
        &[
            "od",
            "detect",
            "--runner",
            &format!("sh {}", runner.display()),
            "--tests",
            tests.to_str().unwrap(),
            "--algo",
            "isolate",
            "--format",
            "json",
        ],
        &[],
    );
    let r = json(&out);
    assert_eq!(r["verdicts"].as_array().unwrap().len(), 1, "{r}");
    let v = &r["verdicts"][0];
    assert_eq!(v["test"], "T.flaky");
    assert_eq!(v["verdict"], "non-deterministic");
    assert!(v["note"].as_str().unwrap().contains("flakyFailure"));
    assert_eq!(r["summary"]["non_deterministic"], 1);
}

#[test]
fn a_batch_that_dies_costs_only_the_schedule_it_was_running() {
    // With --batch, the isolate schedules (and the reversed order) go to one runner process;
    // testCrash's os._exit(3) kills it in the middle. The schedule it was running is run again
    // in a process of its own, the rest in a new batch: the report is the one of a fresh process
    // per schedule.
    let dir = tempfile::tempdir().unwrap();
    let list = ["Proc.testPass", "Proc.testCrash", "Proc.testAfter"];
    let run = |batch: &str| {
        json(&detect(
            dir.path(),
            &list,
            &[
                "--algo",
                "reverse,isolate",
                "--format",
                "json",
                "-j",
                "1",
                "--batch",
                batch,
            ],
            &[],
        ))
    };
    let (one, eight) = (run("1"), run("8"));
    assert_eq!(problems(&eight), problems(&one));
    assert_eq!(eight["verdicts"], one["verdicts"]);
    assert_eq!(eight["algorithms"], one["algorithms"]);
    assert_eq!(problems(&one).len(), 3, "{one}");
}
