//! Runs one schedule through the user's runner command in a fresh process (the protocol of
//! docs/order-dependence.md): the test ids go to a file, never into a shell string; the
//! command runs in its own process group, which is killed on timeout and after it ends; the
//! results (JSON Lines or JUnit XML) are matched to the schedule, and a test without a result
//! is reported as missing with the reason, never as a failure.

use std::fs;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Mutex, Once, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use quick_xml::events::{BytesStart, Event};
use serde::Deserialize;

use super::{Missing, Observed, Outcome};

/// How to run schedules.
#[derive(Clone, Debug)]
pub struct Runner {
    /// The command, run by `/bin/sh -c` with the tests file and `-o RESULTS` appended as
    /// positional arguments.
    pub command: String,
    /// Per schedule; the whole process group is killed when it runs out.
    pub timeout: Duration,
    /// Where per-schedule files go (a fresh directory per schedule is made inside).
    pub work: PathBuf,
}

/// How the runner process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
    Timeout,
    NotStarted(String),
    /// Stopped because the budget ran out (the run counts as not run).
    Stopped,
}

impl Exit {
    pub fn text(&self) -> String {
        match self {
            // `sh -c` reports a command killed by signal N as status 128 + N.
            Exit::Code(c) if (129..=192).contains(c) => {
                format!(
                    "exit status {c}, as a shell reports death by signal {}",
                    c - 128
                )
            }
            Exit::Code(c) => format!("exit status {c}"),
            Exit::Signal(s) => format!("killed by signal {s}"),
            Exit::Timeout => "timeout".to_string(),
            Exit::Stopped => "stopped: the budget ran out".to_string(),
            Exit::NotStarted(why) => format!("not started: {why}"),
        }
    }
}

/// One schedule's run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOutput {
    pub exit: Exit,
    /// One entry per position of the schedule.
    pub results: Vec<Observed>,
    /// Protocol problems: malformed result lines, results for tests not in the schedule.
    pub problems: Vec<String>,
    /// The last lines of the runner's standard error, when some result is missing.
    pub stderr_tail: Option<String>,
    /// Positions whose test passed only on a re-run the runner made itself (Surefire's
    /// `flakyFailure`/`flakyError` under a passing `testcase`).
    pub flaky: Vec<usize>,
}

/// Runs `ids` (one schedule, in order) and reads the results. `n` names the schedule's
/// directory inside `runner.work` (it is removed afterwards). A run still going at `stop` is
/// stopped ([`Exit::Stopped`]).
pub fn run(runner: &Runner, ids: &[&str], n: u64, stop: Option<Instant>) -> RunOutput {
    let dir = runner.work.join(format!("s{n}"));
    let scratch = dir.join("scratch");
    let out = match prepare(&dir, &scratch, ids) {
        Ok(()) => execute(runner, &dir, &scratch, ids, stop),
        Err(e) => not_started(ids.len(), format!("cannot prepare {}: {e}", dir.display())),
    };
    let _ = fs::remove_dir_all(&dir);
    out
}

pub(super) fn prepare(dir: &Path, scratch: &Path, ids: &[&str]) -> std::io::Result<()> {
    fs::create_dir_all(scratch)?;
    let mut list = String::new();
    for id in ids {
        list.push_str(id);
        list.push('\n');
    }
    fs::write(dir.join("tests.txt"), list)
}

/// A run the budget stopped: it counts as not run.
pub(super) fn stopped(len: usize) -> RunOutput {
    RunOutput {
        exit: Exit::Stopped,
        results: vec![Err(Missing::Timeout); len],
        problems: Vec::new(),
        stderr_tail: None,
        flaky: Vec::new(),
    }
}

pub(super) fn not_started(len: usize, why: String) -> RunOutput {
    RunOutput {
        exit: Exit::NotStarted(why.clone()),
        results: vec![Err(Missing::NotStarted(why)); len],
        problems: Vec::new(),
        stderr_tail: None,
        flaky: Vec::new(),
    }
}

fn execute(
    runner: &Runner,
    dir: &Path,
    scratch: &Path,
    ids: &[&str],
    stop: Option<Instant>,
) -> RunOutput {
    let tests = dir.join("tests.txt");
    let results = dir.join("results");
    let (stdout, stderr) = match (
        fs::File::create(dir.join("stdout")),
        fs::File::create(dir.join("stderr")),
    ) {
        (Ok(o), Ok(e)) => (o, e),
        (Err(e), _) | (_, Err(e)) => return not_started(ids.len(), e.to_string()),
    };
    // The paths are appended as "$@", so nothing of ours is ever parsed by the shell.
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(format!("{} \"$@\"", runner.command))
        .arg("paf-od")
        .arg(&tests)
        .arg("-o")
        .arg(&results)
        .env("PAF_OD_TESTS", &tests)
        .env("PAF_OD_RESULTS", &results)
        .env("PAF_OD_SCRATCH", scratch)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return not_started(ids.len(), e.to_string()),
    };
    let pgid = child.id() as i32;
    let _listed = Group::list(pgid);
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    let exit = loop {
        match child.try_wait() {
            Ok(Some(status)) => break exit_of(status),
            Ok(None) => {}
            Err(e) => break Exit::NotStarted(e.to_string()),
        }
        if start.elapsed() >= runner.timeout {
            kill_group(pgid);
            let _ = child.wait();
            break Exit::Timeout;
        }
        if stop.is_some_and(|s| Instant::now() >= s) {
            kill_group(pgid);
            let _ = child.wait();
            break Exit::Stopped;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    // Whatever the runner left behind (a forked server, a hung child) goes with it: the next
    // schedule must start from a fresh environment.
    kill_group(pgid);
    let (text, mut read_problems) = read_results(&results);
    let (mut observed, problems) = match &text {
        Some(bytes) => parse_results(&String::from_utf8_lossy(bytes), ids),
        None => (vec![None; ids.len()], Vec::new()),
    };
    read_problems.extend(problems);
    let problems = read_problems;
    let why = match &exit {
        Exit::Timeout | Exit::Stopped => Missing::Timeout,
        Exit::Signal(_) => Missing::Crashed(exit.text()),
        Exit::Code(0) => Missing::NoResult,
        Exit::Code(_) => Missing::Crashed(exit.text()),
        Exit::NotStarted(w) => Missing::NotStarted(w.clone()),
    };
    let any_missing = observed.iter().any(Option::is_none);
    let stderr_tail = any_missing.then(|| tail(&dir.join("stderr")));
    let mut problems = problems;
    if text.is_none() && !ids.is_empty() {
        problems.push(format!(
            "the runner wrote no results file ({})",
            exit.text()
        ));
    }
    let flaky = text.map_or(Vec::new(), |b| {
        flaky_marks(&String::from_utf8_lossy(&b), ids)
    });
    RunOutput {
        exit,
        results: observed
            .iter_mut()
            .map(|o| o.take().unwrap_or_else(|| Err(why.clone())))
            .collect(),
        problems,
        stderr_tail,
        flaky,
    }
}

/// The positions of `ids` whose JUnit XML `testcase` passed but holds a `flakyFailure` or
/// `flakyError` child: Surefire's mark of a test that failed and then passed when Surefire
/// re-ran it (`rerunFailingTestsCount`). That is evidence of non-determinism, not a plain
/// pass. Empty for JSON Lines results; the i-th mark of an id goes to its i-th position.
pub fn flaky_marks(text: &str, ids: &[&str]) -> Vec<usize> {
    if !text.trim_start().starts_with('<') {
        return Vec::new();
    }
    let mut reader = quick_xml::Reader::from_str(text);
    // Per testcase in file order: its id, whether it failed, whether it has a flaky mark.
    let mut cases: Vec<(String, bool, bool)> = Vec::new();
    let mut open = false;
    loop {
        match reader.read_event() {
            Ok(Event::Eof) | Err(_) => break,
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match e.name().as_ref() {
                "testcase" => {
                    let id = match (attribute(&e, "classname"), attribute(&e, "name")) {
                        (Some(c), Some(n)) if !c.is_empty() => format!("{c}.{n}"),
                        (_, Some(n)) => n,
                        _ => String::new(),
                    };
                    cases.push((id, false, false));
                    open = true;
                }
                "failure" | "error" | "skipped" if open => {
                    if let Some(c) = cases.last_mut() {
                        c.1 = true;
                    }
                }
                "flakyFailure" | "flakyError" if open => {
                    if let Some(c) = cases.last_mut() {
                        c.2 = true;
                    }
                }
                _ => {}
            },
            Ok(Event::End(e)) if e.name().as_ref() == "testcase" => open = false,
            Ok(_) => {}
        }
    }
    let mut taken = vec![false; ids.len()];
    let mut out = Vec::new();
    for (id, failed, flaky) in cases {
        let Some(p) = (0..ids.len()).find(|&p| !taken[p] && ids[p] == id) else {
            continue;
        };
        taken[p] = true;
        if flaky && !failed {
            out.push(p);
        }
    }
    out
}

pub(super) fn exit_of(status: ExitStatus) -> Exit {
    match (status.code(), status.signal()) {
        (Some(c), _) => Exit::Code(c),
        (None, Some(s)) => Exit::Signal(s),
        (None, None) => Exit::Code(-1),
    }
}

/// The process groups of the runs under way. A run's group is not paf's, so a terminal's Ctrl-C
/// does not reach it: paf kills the groups when it is told to stop (SIGINT, SIGTERM, SIGHUP).
/// Before, a stopped `paf od` left its runs going, a hanging test for ever (docs/robustness.md,
/// "Signals"). `None` once paf is stopping: a group started then is killed at once.
static GROUPS: Mutex<Option<Vec<i32>>> = Mutex::new(Some(Vec::new()));

/// Scratch directories a signal that stops paf removes, after the groups are killed: paf's own
/// clean-up does not run then.
static SCRATCH: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes `dir` if a signal stops paf ([`Group`]); paf removes it itself otherwise.
pub fn remove_when_stopped(dir: &Path) {
    SCRATCH
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(dir.to_path_buf());
}

/// A run's process group, listed in [`GROUPS`] while this lives.
pub(super) struct Group(i32);

impl Group {
    /// Lists the group `pgid` of a run just started.
    pub(super) fn list(pgid: i32) -> Group {
        stop_on_signals();
        let mut groups = GROUPS.lock().unwrap_or_else(PoisonError::into_inner);
        match groups.as_mut() {
            Some(g) => g.push(pgid),
            None => kill_group(pgid),
        }
        Group(pgid)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(g) = GROUPS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            g.retain(|&p| p != self.0);
        }
    }
}

/// Once per process: a thread that, at SIGINT, SIGTERM or SIGHUP, kills every listed group,
/// then ends paf as the signal would have (its default action: the shell sees the signal).
fn stop_on_signals() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let groups = GROUPS.lock().unwrap_or_else(PoisonError::into_inner).take();
                groups.into_iter().flatten().for_each(kill_group);
                for dir in SCRATCH
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .iter()
                {
                    let _ = fs::remove_dir_all(dir);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
    });
}

pub(super) fn kill_group(pgid: i32) {
    // SAFETY: kill(2) with a negative pid signals the process group we created; it has no
    // memory effects, and an error (no such group any more) is harmless.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// The last 20 lines (at most 4 KiB) of a file.
pub(super) fn tail(path: &Path) -> String {
    let mut buf = Vec::new();
    if let Ok(mut f) = fs::File::open(path) {
        let _ = f.read_to_end(&mut buf);
    }
    let text = String::from_utf8_lossy(&buf[buf.len().saturating_sub(4096)..]).to_string();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// The most bytes of a results file read (a JUnit XML report of thousands of tests is a few
/// megabytes); the rest is ignored, with a problem.
pub const MAX_RESULTS: u64 = 32 << 20;
/// The longest JSON Lines result line read; a longer one is a problem.
pub const MAX_RESULT_LINE: usize = 64 << 10;
/// At most this many problems of one results file are kept.
const MAX_RUN_PROBLEMS: usize = 20;
/// At most this many characters of bad input are quoted in a message.
const QUOTED: usize = 200;

/// At most [`QUOTED`] characters of `text`, and how long it was if it was longer.
pub fn clip(text: &str) -> String {
    match text.char_indices().nth(QUOTED) {
        None => text.to_string(),
        Some((at, _)) => format!("{}... ({} bytes in all)", &text[..at], text.len()),
    }
}

/// A runner's results file (`None` if there is none), read up to [`MAX_RESULTS`] bytes.
pub(super) fn read_results(path: &Path) -> (Option<Vec<u8>>, Vec<String>) {
    let Ok(file) = crate::trace::lines::open_regular(path) else {
        return (None, Vec::new());
    };
    let mut bytes = Vec::new();
    if let Err(e) = file.take(MAX_RESULTS + 1).read_to_end(&mut bytes) {
        return (None, vec![format!("cannot read the results file: {e}")]);
    }
    let mut problems = Vec::new();
    if bytes.len() as u64 > MAX_RESULTS {
        bytes.truncate(MAX_RESULTS as usize);
        // Up to the last complete line.
        let end = memchr::memrchr(b'\n', &bytes).map_or(0, |i| i + 1);
        bytes.truncate(end);
        problems.push(format!(
            "the results file is larger than {MAX_RESULTS} bytes: only its first lines were read"
        ));
    }
    (Some(bytes), problems)
}

/// One JSON Lines result record.
#[derive(Deserialize)]
struct RawResult {
    test: String,
    outcome: String,
    #[serde(default)]
    exception: Option<String>,
    #[serde(default)]
    class: Option<String>,
    #[serde(default)]
    line: Option<i64>,
}

/// A parsed result before matching: test id and outcome (`None`: skipped).
type Record = (String, Option<Outcome>);

/// Parses a results file (JUnit XML if it starts with `<`, JSON Lines otherwise) and matches
/// it to the schedule: the i-th result for an id goes to the id's i-th position.
pub fn parse_results(text: &str, ids: &[&str]) -> (Vec<Option<Observed>>, Vec<String>) {
    let (records, mut problems) = if text.trim_start().starts_with('<') {
        parse_junit(text)
    } else {
        parse_jsonl(text)
    };
    let mut observed: Vec<Option<Observed>> = vec![None; ids.len()];
    for (id, outcome) in records {
        let slot = (0..ids.len()).find(|&p| ids[p] == id && observed[p].is_none());
        match slot {
            Some(p) => observed[p] = Some(outcome.ok_or(Missing::Skipped)),
            None => problems.push(format!(
                "result for {}, which is not in the schedule (or has all its results already)",
                clip(&format!("{id:?}"))
            )),
        }
    }
    if problems.len() > MAX_RUN_PROBLEMS {
        let more = problems.len() - MAX_RUN_PROBLEMS;
        problems.truncate(MAX_RUN_PROBLEMS);
        problems.push(format!("... and {more} more problems in this results file"));
    }
    (observed, problems)
}

fn parse_jsonl(text: &str) -> (Vec<Record>, Vec<String>) {
    let mut records = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let no = i + 1;
        if line.len() > MAX_RESULT_LINE {
            problems.push(format!(
                "results line {no}: longer than {MAX_RESULT_LINE} bytes; expected one short JSON object per test"
            ));
            continue;
        }
        let raw: RawResult = match serde_json::from_str(line) {
            Ok(r) => r,
            Err(e) => {
                let e = clip(&e.to_string());
                problems.push(format!(
                    "results line {no}: {e}; expected {{\"test\": ID, \"outcome\": \"pass\"|\"fail\", \"exception\", \"class\", \"line\"}}"
                ));
                continue;
            }
        };
        let outcome = match raw.outcome.as_str() {
            "pass" => Some(Outcome::Pass),
            "fail" | "error" => Some(Outcome::Fail {
                exception: raw.exception,
                class: raw.class,
                line: raw.line,
            }),
            "skip" | "skipped" => None,
            other => {
                problems.push(format!(
                    "results line {no}: outcome {}; expected \"pass\", \"fail\", \"error\" or \"skip\"",
                    clip(&format!("{other:?}"))
                ));
                continue;
            }
        };
        records.push((raw.test, outcome));
    }
    (records, problems)
}

/// JUnit XML (Ant/Surefire style): each `<testcase classname name>` is one result, id
/// `classname.name`; a `<failure>` or `<error>` child makes it fail with its `type`, thrown at
/// the first `at Class.method(File:line)` frame of its text; `<skipped>` makes it skipped.
fn parse_junit(text: &str) -> (Vec<Record>, Vec<String>) {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut junit = Junit::default();
    loop {
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(e) => {
                junit.problems.push(format!(
                    "results (JUnit XML) at byte {}: {}",
                    reader.buffer_position(),
                    clip(&e.to_string())
                ));
                break;
            }
        };
        match event {
            Event::Eof => break,
            Event::Start(e) => junit.start(&e, false),
            Event::Empty(e) => junit.start(&e, true),
            Event::Text(t) if junit.in_failure => junit.failure_text.push_str(&t.xml10_content()),
            Event::CData(t) if junit.in_failure => {
                junit.failure_text.push_str(&t.xml10_content());
            }
            Event::GeneralRef(r) if junit.in_failure => {
                if let Ok(s) = quick_xml::escape::unescape(&format!("&{};", &*r)) {
                    junit.failure_text.push_str(&s);
                }
            }
            Event::End(e) => junit.end(e.name().as_ref()),
            _ => {}
        }
    }
    junit.close_case();
    (junit.records, junit.problems)
}

/// A JUnit XML file read so far.
#[derive(Default)]
struct Junit {
    records: Vec<Record>,
    problems: Vec<String>,
    /// The open testcase: its id and outcome so far.
    case: Option<Record>,
    /// Inside the open testcase's failure element, whose text so far is `failure_text`.
    in_failure: bool,
    failure_text: String,
}

impl Junit {
    /// An element starts (`empty`: and ends, as `<x/>`).
    fn start(&mut self, e: &BytesStart<'_>, empty: bool) {
        let name = e.name();
        match name.as_ref() {
            "testcase" => self.testcase(e, empty),
            "failure" | "error" | "skipped" => self.outcome(e, name.as_ref()),
            _ => {}
        }
    }

    fn end(&mut self, name: &str) {
        match name {
            "failure" | "error" => self.failure_end(),
            "testcase" => self.close_case(),
            _ => {}
        }
    }

    /// A testcase starts: it passes unless a child says otherwise.
    fn testcase(&mut self, e: &BytesStart<'_>, empty: bool) {
        self.close_case();
        let id = match (attribute(e, "classname"), attribute(e, "name")) {
            (Some(c), Some(n)) if !c.is_empty() => format!("{c}.{n}"),
            (_, Some(n)) => n,
            _ => {
                self.problems
                    .push("results (JUnit XML): a testcase without name".to_string());
                return;
            }
        };
        if empty {
            // `<testcase/>` has no children and no end tag: it passed.
            self.records.push((id, Some(Outcome::Pass)));
        } else {
            self.case = Some((id, Some(Outcome::Pass)));
        }
    }

    /// A `failure`, `error` or `skipped` element of the open testcase; the first failure or
    /// error counts, and a skip overrides it.
    fn outcome(&mut self, e: &BytesStart<'_>, name: &str) {
        let Some((_, outcome)) = &mut self.case else {
            return;
        };
        if name == "skipped" {
            *outcome = None;
        } else if matches!(outcome, Some(Outcome::Pass)) {
            *outcome = Some(Outcome::Fail {
                exception: attribute(e, "type"),
                class: None,
                line: None,
            });
            self.in_failure = true;
            self.failure_text.clear();
        }
    }

    /// The failure's text is complete: its first stack frame is where it was thrown.
    fn failure_end(&mut self) {
        if self.in_failure
            && let Some((_, Some(Outcome::Fail { class, line, .. }))) = &mut self.case
            && let Some((c, l)) = first_frame(&self.failure_text)
        {
            *class = Some(c);
            *line = Some(l);
        }
        self.in_failure = false;
    }

    /// The open testcase, if any, is a record.
    fn close_case(&mut self) {
        if let Some(done) = self.case.take() {
            self.records.push(done);
        }
    }
}

/// The value of attribute `key`, normalized.
fn attribute(e: &BytesStart<'_>, key: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == key)
        .and_then(|a| {
            a.normalized_value(quick_xml::XmlVersion::default())
                .ok()
                .map(|v| v.into_owned())
        })
}

/// The class and line of the first `at Class.method(File.java:LINE)` frame of a stack trace.
fn first_frame(text: &str) -> Option<(String, i64)> {
    static FRAME: OnceLock<regex::Regex> = OnceLock::new();
    let re = FRAME.get_or_init(|| {
        // A constant pattern, covered by the tests: it compiles.
        regex::Regex::new(r"at\s+([\w$.]+)\.[\w$<>]+\([^:()]*:(\d+)\)").expect("valid regex")
    });
    let caps = re.captures(text)?;
    Some((caps[1].to_string(), caps[2].parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail(e: &str, c: Option<&str>, l: Option<i64>) -> Observed {
        Ok(Outcome::Fail {
            exception: Some(e.to_string()),
            class: c.map(String::from),
            line: l,
        })
    }

    #[test]
    fn json_lines_match_positions_and_repeats() {
        let text = r#"{"test":"A.a","outcome":"pass"}
{"test":"B.b","outcome":"fail","exception":"java.lang.NullPointerException","class":"B","line":7}

{"test":"A.a","outcome":"fail","exception":"E","class":null,"line":null}
not json
{"test":"Z.z","outcome":"pass"}
"#;
        let (obs, problems) = parse_results(text, &["A.a", "B.b", "A.a", "C.c"]);
        assert_eq!(obs[0], Some(Ok(Outcome::Pass)));
        assert_eq!(
            obs[1],
            Some(fail("java.lang.NullPointerException", Some("B"), Some(7)))
        );
        assert_eq!(obs[2], Some(fail("E", None, None)));
        assert_eq!(obs[3], None);
        assert_eq!(problems.len(), 2);
        assert!(problems[0].starts_with("results line 5:"), "{problems:?}");
        assert!(problems[1].contains("\"Z.z\""));
    }

    #[test]
    fn junit_xml_results() {
        let text = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="s" tests="3">
  <testcase classname="org.a.FooTest" name="one" time="0.01"/>
  <testcase classname="org.a.FooTest" name="two">
    <failure type="java.lang.AssertionError" message="boom">java.lang.AssertionError: boom
	at org.junit.Assert.fail(Assert.java:89)
	at org.a.FooTest.two(FooTest.java:12)</failure>
  </testcase>
  <testcase classname="org.a.FooTest" name="three"><skipped/></testcase>
  <testcase classname="org.a.FooTest" name="four"><error type="java.lang.IllegalStateException"><![CDATA[java.lang.IllegalStateException
	at org.a.Foo.&lt;init&gt;(Foo.java:3)]]></error></testcase>
</testsuite>"#;
        let ids = [
            "org.a.FooTest.one",
            "org.a.FooTest.two",
            "org.a.FooTest.three",
            "org.a.FooTest.four",
        ];
        let (obs, problems) = parse_results(text, &ids);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(obs[0], Some(Ok(Outcome::Pass)));
        assert_eq!(
            obs[1],
            Some(fail(
                "java.lang.AssertionError",
                Some("org.junit.Assert"),
                Some(89)
            ))
        );
        assert_eq!(obs[2], Some(Err(Missing::Skipped)));
        // CDATA is not unescaped: `&lt;init&gt;` stays as written and the frame still parses.
        assert_eq!(
            obs[3]
                .as_ref()
                .unwrap()
                .as_ref()
                .unwrap()
                .text()
                .split(' ')
                .nth(1),
            Some("java.lang.IllegalStateException")
        );
    }

    /// A run still going when its stop time has come is stopped, whatever its own time limit.
    #[test]
    fn a_run_past_its_stop_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let runner = Runner {
            command: "sleep 600; :".into(),
            timeout: Duration::from_secs(3600),
            work: dir.path().to_path_buf(),
        };
        let out = run(&runner, &["A.a"], 0, Some(Instant::now()));
        assert_eq!(out.exit, Exit::Stopped);
        assert_eq!(out.results, vec![Err(Missing::Timeout)]);
    }

    /// A huge result line is refused whole, and a long test id is quoted by its beginning only.
    #[test]
    fn bad_results_are_quoted_by_a_prefix() {
        let huge = format!(
            "{{\"test\":\"{}\",\"outcome\":\"pass\"}}",
            "x".repeat(1 << 20)
        );
        let long_id = "y".repeat(10_000);
        let text = format!("{huge}\n{{\"test\":\"{long_id}\",\"outcome\":\"pass\"}}\n");
        let (obs, problems) = parse_results(&text, &["A.a"]);
        assert_eq!(obs, vec![None]);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].starts_with("results line 1: longer than 65536 bytes"));
        assert!(problems.iter().all(|p| p.len() < 400), "{problems:?}");
        assert!(
            problems[1].contains("(10002 bytes in all)"),
            "{}",
            problems[1]
        );
    }

    #[test]
    fn surefire_rerun_marks_are_flaky_passes() {
        // Surefire with rerunFailingTestsCount: `a` failed once and passed on the re-run;
        // `b` failed every run (rerunFailure beside its failure: not a pass); `c` passed.
        let text = r#"<testsuite name="s">
  <testcase classname="T" name="a"><flakyFailure type="java.lang.AssertionError" message="x">
at T.a(T.java:3)</flakyFailure><system-out/></testcase>
  <testcase classname="T" name="b"><failure type="E"/><rerunFailure type="E"/></testcase>
  <testcase classname="T" name="c"/>
  <testcase classname="T" name="d"><flakyError type="java.io.IOException"/></testcase>
</testsuite>"#;
        let ids = ["T.a", "T.b", "T.c", "T.d"];
        assert_eq!(flaky_marks(text, &ids), vec![0, 3]);
        let (obs, problems) = parse_results(text, &ids);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(obs[0], Some(Ok(Outcome::Pass)));
        assert!(flaky_marks("{\"test\":\"T.a\",\"outcome\":\"pass\"}", &ids).is_empty());
    }

    #[test]
    fn frame_regex() {
        assert_eq!(
            first_frame("x\n\tat a.b.C$D.m(C.java:42)\n"),
            Some(("a.b.C$D".to_string(), 42))
        );
        assert_eq!(first_frame("no frames"), None);
    }
}
