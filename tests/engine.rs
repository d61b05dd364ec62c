//! The streaming engine (two passes, worker threads, only the DUAs of interest kept) against a
//! reference analysis written the plain way: one pass over the tests on one thread, every DUA
//! kept. On synthetic bundles of random shape, the two must give the same report for any
//! number of threads, whether the tests file is plain, gzip or zstd, and whether it is scanned
//! whole or in halves.

use std::path::Path;

use pretty_assertions::assert_eq;
use proptest::prelude::*;

use paf::analysis::{self, Unanalyzed};
use paf::engine::{self, Analysis, Jobs, Options};
use paf::ranking::{self, coverage::DuaTable};
use paf::report::{self, render};
use paf::synth::{self, SynthConfig};
use paf::trace::write::Compression;
use paf::trace::{Bundle, Outcome};

/// The analysis as the engine did it before it learned crash statements first.
fn reference(bundle: &Bundle, options: &Options) -> Analysis {
    let mut duas = DuaTable::new(options.max_covering);
    for &dua in &bundle.tables.static_duas {
        duas.add_static(dua);
    }
    let (mut outcomes, mut failures, mut unanalyzed, mut events) = (vec![], vec![], vec![], 0);
    let mut reader = bundle.tests.reader(&bundle.tables).expect("tests file");
    while let Some(test) = reader.next() {
        let test = test.expect("a bundle paf synth wrote has no problems");
        let replay = analysis::replay(&test).expect("replays");
        events += test.events.len() as u64;
        match test.outcome {
            Outcome::Pass => {
                duas.add_passing(test.index, &replay.duas());
            }
            Outcome::Fail => {
                duas.add_failing(&replay.duas());
                match analysis::analyze_failure(&test, reader.statements(), reader.symbols()) {
                    Ok(f) => failures.push(f),
                    Err(reason) => unanalyzed.push(Unanalyzed {
                        test: test.index,
                        exception: test.exception.as_ref().map(|e| e.kind.clone()),
                        reason,
                    }),
                }
            }
        }
        outcomes.push(test.outcome);
    }
    let (test_ids, symbols) = reader.finish();
    Analysis {
        symbols,
        test_ids,
        outcomes,
        failures,
        unanalyzed,
        duas,
        events,
        facts: None,
        masked: Vec::new(),
    }
}

/// The `paf.rank/1` JSON of an analysis, with the DUA count left out (the engine counts only
/// the DUAs of interest), and every DUA of the table, by name, with its coverage.
fn outputs(bundle: &Bundle, analysis: &Analysis) -> (String, Vec<String>) {
    let ranked = ranking::rank(&analysis.failures, &analysis.duas, 7);
    let mut report = report::build(&bundle.tables, analysis, &ranked, 7, Vec::new(), Vec::new());
    report.summary.duas = 0;
    let id = |ix| bundle.tables.statements.get(ix).id;
    let mut duas: Vec<String> = analysis
        .duas
        .iter()
        .map(|(d, c)| {
            format!(
                "{}->{} {}: {} {:?} {}",
                id(d.def),
                id(d.use_),
                d.var.display(&analysis.symbols),
                c.count,
                c.tests,
                c.is_static
            )
        })
        .collect();
    duas.sort();
    (render::json(&report), duas)
}

fn engine(dir: &Path, options: &Options, jobs: usize) -> (Bundle, Analysis) {
    let bundle = Bundle::open(dir).expect("opens");
    let analysis = engine::analyze(&bundle, options, Jobs::new(jobs), &mut ()).expect("analyzes");
    (bundle, analysis)
}

fn check(config: SynthConfig, max_covering: usize) {
    // Every plain bundle is scanned in two halves when there are threads for it (pass 1 of
    // `-j 3`; the reference and `-j 1` scan whole): the halves must change nothing. Every
    // compressed one is read in shares in pass 2, one scan per thread (every test counts as
    // large): the shares must change nothing either.
    paf::trace::split::split_from(1);
    paf::engine::large_tests_from(1);
    // Compressed with zstd, the tests file is in frames of 300 bytes with a seek table,
    // decompressed 256 bytes at a time, and scans that trust marks start again at every mark
    // past what they have decompressed.
    paf::trace::seekable::frames_of(300);
    paf::trace::lines::chunks_of(256);
    paf::trace::scan::jumps_from(1);
    let dir = tempfile::tempdir().unwrap();
    synth::generate(&config, dir.path()).unwrap();
    let options = Options {
        max_covering,
        ..Options::default()
    };
    let plain = Bundle::open(dir.path()).unwrap();
    let want = reference(&plain, &options);
    let (want_json, all_duas) = outputs(&plain, &want);
    // Every failing test ends in exactly one place: a flow-set or the unanalyzed list.
    let report: serde_json::Value = serde_json::from_str(&want_json).unwrap();
    let placed = report["tests"].as_array().unwrap().len();
    assert_eq!(
        placed as u64,
        report["summary"]["failing"].as_u64().unwrap()
    );
    let in_sets: usize = report["flow_sets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|fs| fs["tests"].as_array().unwrap().len())
        .sum();
    assert_eq!(
        in_sets + report["unanalyzed"].as_array().unwrap().len(),
        placed
    );

    for jobs in [1, 3] {
        let (bundle, got) = engine(dir.path(), &options, jobs);
        let (json, duas) = outputs(&bundle, &got);
        assert_eq!(json, want_json, "-j {jobs}");
        assert_eq!(
            (&got.outcomes, got.events, got.test_ids.len()),
            (&want.outcomes, want.events, want.test_ids.len())
        );
        // The DUAs kept are exactly the reference's that reach a crash statement on a crash
        // variable, with the same coverage.
        let wanted: std::collections::HashSet<(u64, String)> = got
            .failures
            .iter()
            .flat_map(|f| {
                f.vars.iter().map(|v| {
                    (
                        bundle.tables.statements.get(f.crash_stmt).id,
                        v.var.display(&got.symbols),
                    )
                })
            })
            .collect();
        let of_interest: Vec<&String> = all_duas
            .iter()
            .filter(|row| {
                let (head, _) = row.split_once(':').unwrap();
                let (stmts, var) = head.split_once(' ').unwrap();
                let use_: u64 = stmts.split_once("->").unwrap().1.parse().unwrap();
                wanted.contains(&(use_, var.to_string()))
            })
            .collect();
        assert_eq!(duas.iter().collect::<Vec<_>>(), of_interest, "-j {jobs}");

        // --dump duas keeps every DUA: then the table is the reference's.
        let all = Options {
            all_duas: true,
            ..options.clone()
        };
        let (bundle, got) = engine(dir.path(), &all, jobs);
        assert_eq!(
            outputs(&bundle, &got),
            (want_json.clone(), all_duas.clone())
        );
    }

    for compression in [Compression::Gzip, Compression::Zstd] {
        let packed = tempfile::tempdir().unwrap();
        synth::generate(
            &SynthConfig {
                compression,
                ..config.clone()
            },
            packed.path(),
        )
        .unwrap();
        for jobs in [2, 3] {
            let (bundle, got) = engine(packed.path(), &options, jobs);
            assert_eq!(
                outputs(&bundle, &got).0,
                want_json,
                "{compression:?} -j {jobs}"
            );
        }
        // With marks beside it (every test counting as large), `paf validate` reads the
        // compressed file in shares claimed as the scans go: the counts of the plain file's
        // read by one thread.
        std::fs::copy(
            dir.path().join("tests.marks"),
            packed.path().join("tests.marks"),
        )
        .unwrap();
        let want_checked = engine::check(&plain, Jobs::new(1), &mut ()).expect("checks");
        for jobs in [2, 3] {
            let bundle = Bundle::open(packed.path()).unwrap();
            let got = engine::check(&bundle, Jobs::new(jobs), &mut ()).expect("checks");
            assert_eq!(got, want_checked, "validate {compression:?} -j {jobs}");
        }
        // With those marks, a zstd file with a seek table is ranked following them: pass 1
        // jumps to the failing tests, deferring them to pass 1b, and pass 2's shares jump
        // over the tests they do not own (every test counts as large).
        if compression == Compression::Zstd {
            let bundle = Bundle::open(packed.path()).unwrap();
            let marks = bundle
                .tests
                .marks()
                .expect("marks fit a file with a seek table");
            for jobs in [1, 2, 3] {
                let jumps = paf::trace::scan::jumps_taken();
                let got =
                    engine::analyze_at_marks(&bundle, &options, Jobs::new(jobs), marks.clone())
                        .expect("analyzes at the marks");
                assert_eq!(
                    outputs(&bundle, &got).0,
                    want_json,
                    "zstd with marks -j {jobs}"
                );
                assert!(paf::trace::scan::jumps_taken() > jumps, "-j {jobs} jumped");
            }
        }
    }
}

#[test]
fn a_small_suite_ranks_like_the_reference() {
    check(
        SynthConfig {
            failing: 40,
            passing: 300,
            events_per_test: 40,
            seed: 3,
            compression: Compression::None,
            order_dependent: 2,
        },
        2,
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn random_suites_rank_like_the_reference(
        seed in any::<u64>(),
        failing in 1usize..40,
        passing in 0usize..150,
        events in 10usize..60,
        max_covering in 1usize..4,
        order_dependent in 0usize..3,
    ) {
        check(
            SynthConfig {
                failing,
                passing,
                events_per_test: events,
                seed,
                compression: Compression::None,
                order_dependent,
            },
            max_covering,
        );
    }
}

/// The crash uses `paf trace java` computes static DUAs for: PAF Table 1's two crash
/// statements and variables, `e` used on line 47 and `getProject()`'s return value on line 59.
/// `paf validate` of a compressed file read in shares claimed as the scans go finds the
/// problems, in the order, of one scanner: problems within tests (a line that is not JSON, a
/// test cut short) and across them (a test id twice), whichever share read each test.
#[test]
fn validate_in_claimed_shares_finds_the_problems_of_one_scanner() {
    paf::engine::large_tests_from(1);
    let dir = tempfile::tempdir().unwrap();
    synth::generate(
        &SynthConfig {
            failing: 20,
            passing: 60,
            events_per_test: 100,
            seed: 5,
            compression: Compression::None,
            order_dependent: 0,
        },
        dir.path(),
    )
    .unwrap();
    let text = std::fs::read_to_string(dir.path().join("tests.jsonl")).unwrap();
    // the file's tests, each from its begin line to the next one's
    let mut tests: Vec<String> = Vec::new();
    for line in text.split_inclusive('\n') {
        match tests.last_mut() {
            Some(t) if !line.starts_with("{\"k\":\"begin\"") => t.push_str(line),
            _ => tests.push(line.to_string()),
        }
    }
    assert!(tests.len() > 40, "{} tests", tests.len());
    let mut broken = String::new();
    for (i, t) in tests.iter().enumerate() {
        match i {
            7 => broken.push_str(&t.replacen("\n{", "\nnot json\n{", 1)),
            19 => broken.push_str(&t[..t.len() / 2]),
            _ => broken.push_str(t),
        }
        if i == 30 {
            broken.push_str(&tests[3]);
        }
    }
    std::fs::remove_file(dir.path().join("tests.jsonl")).unwrap();
    let zst = zstd::encode_all(broken.as_bytes(), 1).unwrap();
    std::fs::write(dir.path().join("tests.jsonl.zst"), zst).unwrap();
    let bundle = Bundle::open(dir.path()).unwrap();
    let one = engine::check(&bundle, Jobs::new(1), &mut ()).expect_err("problems");
    assert!(one.len() >= 3, "{one:?}");
    for jobs in [2, 3, 4] {
        let shared = engine::check(&bundle, Jobs::new(jobs), &mut ()).expect_err("problems");
        assert_eq!(shared, one, "-j {jobs}");
    }
}

#[test]
fn crash_uses_are_the_crash_statements_and_variables() {
    let bundle = Bundle::open(Path::new("testdata/java/motivating/bundle")).expect("opens");
    let uses = engine::crash_uses(&bundle, Jobs::new(2), None, &mut ()).expect("no problems");
    let by_line: Vec<(u32, String)> = uses
        .iter()
        .map(|u| {
            let stmt = bundle
                .tables
                .statements
                .resolve(u.stmt)
                .expect("a statement");
            (bundle.tables.statements.get(stmt).line, u.var.clone())
        })
        .collect();
    assert_eq!(
        by_line,
        vec![
            (47, "e".to_string()),
            (59, "org.example.ProjectEntry.getProject()".to_string())
        ]
    );
}

/// A synthetic bundle of 25 failing and 400 passing tests in `dir`.
fn marked_bundle(seed: u64, dir: &Path) -> Bundle {
    let config = SynthConfig {
        failing: 25,
        passing: 400,
        events_per_test: 300,
        seed,
        compression: Compression::None,
        order_dependent: 0,
    };
    synth::generate(&config, dir).unwrap();
    Bundle::open(dir).unwrap()
}

/// The places of the header lines of the tests file in `dir`, as the agent counts them.
fn marks_of(dir: &Path) -> std::sync::Arc<paf::trace::scan::Marks> {
    use paf::trace::scan::{At, Marks};
    let text = std::fs::read(dir.join("tests.jsonl")).unwrap();
    let (mut byte, mut open, mut headers) = (0u64, false, Vec::new());
    for (n, line) in text.split_inclusive(|b| *b == b'\n').enumerate() {
        let at = At {
            byte,
            line: n as u64 + 1,
        };
        if line.starts_with(b"{\"k\":\"begin\"") {
            headers.push((at, true));
            open = true;
        } else if open && line.starts_with(b"{\"k\":\"end\"") {
            headers.push((at, false));
            open = false;
        }
        byte += line.len() as u64;
    }
    assert!(headers.len() > 800, "the file has its tests' header lines");
    std::sync::Arc::new(Marks::from_headers(headers, byte).expect("marks in order"))
}

/// `paf trace java` reads its new bundle's failing tests at the places the agent says the
/// tests' header lines are (`.work/tests.marks`): with the file's own places, or with places
/// that do not fit it (another file's: the scan searches again), the crash uses are those a
/// search finds.
#[test]
fn crash_uses_are_the_same_with_the_agents_marks_or_marks_that_do_not_fit() {
    let (one, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let bundle = marked_bundle(7, one.path());
    let _ = marked_bundle(8, other.path());
    let searched = engine::crash_uses(&bundle, Jobs::new(2), None, &mut ()).expect("no problems");
    assert!(!searched.is_empty());
    for marks in [marks_of(one.path()), marks_of(other.path())] {
        let followed =
            engine::crash_uses(&bundle, Jobs::new(2), Some(marks), &mut ()).expect("no problems");
        assert_eq!(followed, searched);
    }
}

/// With the agent's marks, the failing tests are shared out among up to four threads: the crash
/// uses are the same set for any number of jobs, and a tests file with bad records gives the
/// same problems, in file order, as one thread reading it all.
#[test]
fn crash_uses_shared_among_threads_are_those_of_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = marked_bundle(11, dir.path());
    let marks = marks_of(dir.path());
    let one = engine::crash_uses(&bundle, Jobs::new(1), Some(marks.clone()), &mut ())
        .expect("no problems");
    assert!(one.len() > 1, "several crash uses: {one:?}");
    for jobs in [2, 3, 4, 8] {
        let shared = engine::crash_uses(&bundle, Jobs::new(jobs), Some(marks.clone()), &mut ())
            .expect("no problems");
        assert_eq!(shared, one, "{jobs} jobs");
    }

    // an unknown kind in an event of each of the first three failing tests (ordinals of both
    // parities), the same length, so that the marks still fit
    let path = dir.path().join("tests.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut failing_ends: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("{\"k\":\"end\"") && l.contains("\"outcome\":\"fail\""))
        .map(|(i, _)| i)
        .collect();
    failing_ends.truncate(3);
    assert_eq!(failing_ends.len(), 3);
    let mut edited: Vec<String> = lines.iter().map(|l| (*l).to_string()).collect();
    for end in failing_ends {
        let event = (0..end)
            .rev()
            .find(|&i| edited[i].starts_with("{\"k\":\"use\""))
            .expect("a use in the failing test");
        edited[event] = edited[event].replacen("\"use\"", "\"usx\"", 1);
    }
    std::fs::write(&path, edited.join("\n") + "\n").unwrap();
    let bundle = Bundle::open(dir.path()).unwrap();
    let problems = |jobs: usize| -> Vec<String> {
        engine::crash_uses(&bundle, Jobs::new(jobs), Some(marks.clone()), &mut ())
            .expect_err("bad records")
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    let alone = problems(1);
    assert_eq!(alone.len(), 3, "one problem per bad record: {alone:#?}");
    for jobs in [2, 3, 4] {
        assert_eq!(problems(jobs), alone, "{jobs} jobs");
    }
}

/// A header line as `tests.marks` lists it: kind (`b` or `e`), byte, line.
type Header = (char, u64, u64);

/// The header lines of the tests file in `dir`, as `tests.marks` lists them, and the file's
/// length.
fn headers_of(dir: &Path) -> (Vec<Header>, u64) {
    let text = std::fs::read(dir.join("tests.jsonl")).unwrap();
    let (mut byte, mut headers) = (0u64, Vec::new());
    for (n, line) in text.split_inclusive(|b| *b == b'\n').enumerate() {
        let line_no = n as u64 + 1;
        if line.starts_with(b"{\"k\":\"begin\"") {
            headers.push(('b', byte, line_no));
        } else if line.starts_with(b"{\"k\":\"end\"") {
            headers.push(('e', byte, line_no));
        }
        byte += line.len() as u64;
    }
    (headers, byte)
}

fn write_marks(dir: &Path, headers: &[Header], len: u64) {
    let mut text = format!("paf-marks 1 {len}\n");
    for (kind, byte, line) in headers {
        text.push_str(&format!("{kind} {byte} {line}\n"));
    }
    std::fs::write(dir.join("tests.marks"), text).unwrap();
}

/// The ranking and every problem of the bundle in `dir` (for any jobs), as text.
fn ranked(dir: &Path, jobs: usize) -> Result<(String, Vec<String>), Vec<String>> {
    let bundle = Bundle::open(dir).expect("opens");
    match engine::analyze(&bundle, &Options::default(), Jobs::new(jobs), &mut ()) {
        Ok(analysis) => Ok(outputs(&bundle, &analysis)),
        Err(problems) => Err(problems.iter().map(ToString::to_string).collect()),
    }
}

/// A plain bundle written by `paf synth` carries its marks (`tests.marks`), and `paf rank`'s
/// pass 1 follows them. Marks that do not fit the file however they are wrong (a test left
/// out, a failing test's end left out, line numbers off, the last tests left out, another
/// bundle's, a line that is not one of marks) change nothing: the ranking is that of a read
/// that searches, and so are the problems of a bundle with bad records.
#[test]
fn rank_is_the_same_with_the_bundles_marks_or_marks_that_do_not_fit() {
    paf::trace::split::split_from(1);
    let (dir, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let _ = marked_bundle(5, dir.path());
    let _ = marked_bundle(6, other.path());
    let (headers, len) = headers_of(dir.path());
    let written = std::fs::read_to_string(dir.path().join("tests.marks")).unwrap();
    write_marks(dir.path(), &headers, len);
    let ours = std::fs::read_to_string(dir.path().join("tests.marks")).unwrap();
    assert_eq!(
        written, ours,
        "paf synth's marks are the file's header lines"
    );
    let with_marks = ranked(dir.path(), 2).expect("no problems");
    std::fs::remove_file(dir.path().join("tests.marks")).unwrap();
    let searched = ranked(dir.path(), 2).expect("no problems");
    assert_eq!(with_marks, searched);

    // a failing test (one whose end says so) in the middle of the file
    let text = std::fs::read_to_string(dir.path().join("tests.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let failing_end = headers
        .iter()
        .position(|&(k, _, line)| {
            k == 'e' && line > 1000 && lines[line as usize - 1].contains("\"outcome\":\"fail\"")
        })
        .expect("a failing test past line 1000");
    let mut wrong: Vec<(&str, Vec<Header>, u64)> = Vec::new();
    // a failing test's begin and end left out: it hides in the test before it
    let mut hidden = headers.clone();
    hidden.drain(failing_end - 1..=failing_end);
    wrong.push(("a failing test left out", hidden, len));
    // a passing test left out
    let passing_end = (failing_end + 2..headers.len())
        .step_by(2)
        .find(|&i| lines[headers[i].2 as usize - 1].contains("\"outcome\":\"pass\""))
        .expect("a passing test after it");
    let mut hidden = headers.clone();
    hidden.drain(passing_end - 1..=passing_end);
    wrong.push(("a passing test left out", hidden, len));
    // a failing test's end left out: the scan takes it for a test without an outcome
    let mut no_end = headers.clone();
    no_end.remove(failing_end);
    wrong.push(("a failing test's end left out", no_end, len));
    // line numbers one too many from a test on
    let mut off = headers.clone();
    for h in &mut off[failing_end - 1..] {
        h.2 += 1;
    }
    wrong.push(("lines off by one", off, len));
    // the last tests left out
    wrong.push((
        "the last tests left out",
        headers[..headers.len() - 20].to_vec(),
        len,
    ));
    // another bundle's marks, said to be for this file's length
    wrong.push(("another bundle's", headers_of(other.path()).0, len));
    for (what, marks, len) in &wrong {
        write_marks(dir.path(), marks, *len);
        assert_eq!(ranked(dir.path(), 2), Ok(searched.clone()), "{what}");
        assert_eq!(ranked(dir.path(), 1), Ok(searched.clone()), "{what}, -j 1");
    }
    // not marks at all
    for text in [
        format!("paf-marks 1 {len}\nb 0 1\nthis is not a mark\n"),
        format!("paf-marks 1 {}\nb 0 1\n", len + 1),
        format!("paf-marks 2 {len}\nb 0 1\n"),
        format!("paf-marks 1 {len}\nb 0 1\ne {} 2", headers[1].1),
    ] {
        std::fs::write(dir.path().join("tests.marks"), text).unwrap();
        assert_eq!(ranked(dir.path(), 2), Ok(searched.clone()));
    }

    // a bad record in a failing and in a passing test: the same problems with the marks
    let mut edited: Vec<String> = lines.iter().map(|l| (*l).to_string()).collect();
    for end in [failing_end, passing_end] {
        let at = headers[end].2 as usize - 1;
        let event = (0..at)
            .rev()
            .find(|&i| edited[i].starts_with("{\"k\":\"use\""))
            .expect("a use in the test");
        edited[event] = edited[event].replacen("\"use\"", "\"usx\"", 1);
    }
    std::fs::write(dir.path().join("tests.jsonl"), edited.join("\n") + "\n").unwrap();
    std::fs::remove_file(dir.path().join("tests.marks")).unwrap();
    let problems = ranked(dir.path(), 2).expect_err("bad records");
    assert_eq!(problems.len(), 2, "{problems:#?}");
    write_marks(dir.path(), &headers, len);
    assert_eq!(ranked(dir.path(), 2), Err(problems.clone()));
    assert_eq!(ranked(dir.path(), 1), Err(problems));
}
