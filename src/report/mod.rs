//! The report value: the ranking with every id resolved to text. Renderers (table, JSON, CSV)
//! consume it and compute nothing themselves. Its JSON form is the stable `paf.rank/1` contract.

pub mod dump;
pub mod html;
pub mod junit;
pub mod layout;
pub mod markdown;
pub mod page;
pub mod render;
pub mod sarif;
mod sources;

pub use sources::{SourcePaths, relative_path};

use serde::Serialize;

use crate::analysis::{Failure, Origin, StepKind};
use crate::engine::Analysis;
use crate::ranking::coverage::DuaTable;
use crate::ranking::flowset::FlowSet;
use crate::ranking::score::Score;
use crate::ranking::{Ranked, order};
use crate::trace::{Dua, How, StatementTable, StmtIx, Symbols, Tables, TestIds, VarName};

pub use crate::od::report::{Excluded, Masked};

pub const RANK_SCHEMA: &str = "paf.rank/1";

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Report {
    pub schema: &'static str,
    pub subject: Option<String>,
    pub seed: u64,
    pub summary: Summary,
    pub flow_sets: Vec<FlowSetReport>,
    pub tests: Vec<TestRank>,
    pub unanalyzed: Vec<UnanalyzedReport>,
    /// Failures `rank --exclude-od` took out of the ranking: caused by the order tests ran in,
    /// each with its verdict, minimal witness order and polluters (`paf.od/2`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<Excluded>,
    /// Failures `rank --od` added to the ranking: tests that passed in the default order and
    /// fail alone, ranked by the trace of their run alone, with their state-setters.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub masked: Vec<Masked>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Summary {
    pub tests: usize,
    pub failing: usize,
    pub passing: usize,
    /// Failing tests in a flow-set.
    pub analyzed: usize,
    pub unanalyzed: usize,
    /// Failing tests the analysis had to account for: `failing` less those `--exclude-od` took
    /// out as order-caused (`analyzed + unanalyzed`), the "of M" of `analyzed_share`.
    pub in_analysis: usize,
    /// `analyzed: N of M failing tests`: coverage at a glance (N `analyzed`, M `in_analysis`).
    pub analyzed_share: String,
    pub flow_sets: usize,
    pub local_flow_sets: usize,
    pub events: u64,
    /// DUAs kept: those reaching a crash statement on one of its crash variables (theta's
    /// universe), static ones included.
    pub duas: usize,
    /// Of the analyzed failures, those of tests that passed in the bundle and fail alone
    /// (`rank --od`); `failing` does not count them.
    #[serde(skip_serializing_if = "is_zero")]
    pub masked: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A statement's position.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    /// The file's path from the repository root (`ROOT/package/File.java`), when the bundle or
    /// `--source-root` names source roots.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub line: u32,
    /// `Class.method` (`Class.<field>` for a field declaration).
    pub method: String,
}

/// A crash origin: a statement, or `untraced` when no definition is in the trace.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct OriginReport {
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub line: Option<u32>,
    pub method: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub untraced: bool,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct VarReport {
    pub variable: String,
    /// Where the variable is used when that is not the crash statement (a failure raised in
    /// the test body: the `return` or operand of the call it came from).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used_at: Option<Location>,
    pub origin: OriginReport,
    pub local: bool,
    pub likelihood: Option<f64>,
    pub covered: u32,
    pub theta_size: usize,
    /// The representative test's failure-inducing dataflow for this variable, origin first:
    /// each step a definition, the use it reaches, and how the definition made its value.
    pub chain: Vec<Step>,
}

/// One step of a failure-inducing dataflow: the DUA (def, use, var) and how `def` made the
/// value (a copy of another variable, a constant, a call's result, ...).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Step {
    /// `None` when the variable has no definition in the trace.
    pub def: Option<Location>,
    #[serde(rename = "use")]
    pub use_: Location,
    pub var: String,
    pub how: String,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Crash {
    pub exception: String,
    /// Where the crash variables are used (the crash statement of the flow-set key).
    pub statement: Location,
    /// Where the exception surfaced, when that is another statement (a branch-guarded throw).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thrown_at: Option<Location>,
    /// How the crash variables were chosen: `deref`, `index`, `branch`, `operand` or
    /// `returned`.
    pub kind: String,
    /// The Randoop contract a contract check failed on (`equals-hashcode`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract: Option<String>,
    pub variables: Vec<String>,
    /// The origin of the crash variable whose likelihood counts (the largest).
    pub origin: OriginReport,
    /// Every crash variable with its origin and likelihood.
    pub origins: Vec<VarReport>,
    /// The method under test of the representative test.
    #[serde(rename = "mut")]
    pub mut_method: String,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Position {
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub line: u32,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ThetaEntry {
    pub def: Position,
    #[serde(rename = "use")]
    pub use_: Position,
    pub var: String,
    /// Covering passing tests, at most `--max-covering` of them, in bundle order.
    pub covered_by: Vec<String>,
    /// How many passing tests cover the DUA in all.
    pub covered_by_count: u32,
    #[serde(rename = "static", skip_serializing_if = "std::ops::Not::not")]
    pub is_static: bool,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowSetReport {
    pub rank: usize,
    /// The flow-set's key as text: the crash statement and each crash variable with its
    /// origin. It does not depend on the seed or the rank, so it names the same flow-set in
    /// every run on the same code (SARIF's `partialFingerprints`).
    pub fingerprint: String,
    pub locality: &'static str,
    pub likelihood: Option<f64>,
    /// The likelihood as an exact fraction, `covered/theta`.
    pub likelihood_ratio: Option<String>,
    pub crash: Crash,
    pub theta: Vec<ThetaEntry>,
    pub tests: Vec<String>,
    pub representative: String,
    /// How many of the tests are local on their own (a flow-set is local if any is).
    pub local_tests: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct TestRank {
    pub rank: usize,
    pub test: String,
    pub flow_set_rank: Option<usize>,
    /// A masked failure (`rank --od`): it passed in the bundle, and is ranked by its failure
    /// alone.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub masked: bool,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct UnanalyzedReport {
    pub test: String,
    pub exception: Option<String>,
    pub reason: String,
}

/// Resolves statement indices and symbols to text.
pub struct Resolver<'a> {
    pub statements: &'a StatementTable,
    /// The analysis's symbols: the bundle's and every name met in its tests.
    pub symbols: &'a Symbols,
    /// Repository paths of the source files, when source roots are known.
    pub paths: &'a SourcePaths,
}

impl<'a> Resolver<'a> {
    /// Names of `analysis`, statements of `tables`.
    pub fn new(tables: &'a Tables, analysis: &'a Analysis) -> Resolver<'a> {
        Resolver::with_paths(tables, analysis, SourcePaths::none())
    }

    /// Like [`Resolver::new`], with the files' repository paths.
    pub fn with_paths(
        tables: &'a Tables,
        analysis: &'a Analysis,
        paths: &'a SourcePaths,
    ) -> Resolver<'a> {
        Resolver {
            statements: &tables.statements,
            symbols: &analysis.symbols,
            paths,
        }
    }

    /// The repository path of statement `ix`'s file, if source roots are known.
    fn path(&self, ix: StmtIx) -> Option<String> {
        let s = self.statements.get(ix);
        self.paths
            .path(self.symbols.name(s.class), self.symbols.name(s.file))
    }

    pub fn location(&self, ix: StmtIx) -> Location {
        let s = self.statements.get(ix);
        let sym = self.symbols;
        let method = s.method.map_or("<field>", |m| sym.name(m));
        Location {
            file: sym.name(s.file).to_string(),
            path: self.path(ix),
            line: s.line,
            method: format!("{}.{}", sym.name(s.class), method),
        }
    }

    pub fn position(&self, ix: StmtIx) -> Position {
        let s = self.statements.get(ix);
        Position {
            file: self.symbols.name(s.file).to_string(),
            path: self.path(ix),
            line: s.line,
        }
    }

    pub fn origin(&self, origin: Origin) -> OriginReport {
        match origin {
            Origin::Stmt(ix) => {
                let l = self.location(ix);
                OriginReport {
                    file: Some(l.file),
                    path: l.path,
                    line: Some(l.line),
                    method: Some(l.method),
                    untraced: false,
                }
            }
            Origin::Untraced => OriginReport {
                file: None,
                path: None,
                line: None,
                method: None,
                untraced: true,
            },
        }
    }

    pub fn var(&self, var: VarName) -> String {
        var.display(self.symbols)
    }

    /// How one step of a failure-inducing dataflow defined its variable, in words.
    pub fn step_kind(&self, kind: StepKind) -> String {
        match kind {
            StepKind::Copy { from, cast } => {
                format!(
                    "copy of {}{}",
                    self.var(from),
                    if cast { " (cast)" } else { "" }
                )
            }
            StepKind::Made { how, callee } => match how {
                How::Call => format!(
                    "returned by uninstrumented {}",
                    callee.map_or("code", |c| self.symbols.name(c))
                ),
                How::Const => "constant".to_string(),
                How::New => "new object".to_string(),
                How::Arith => "computed value".to_string(),
                How::Param => "argument from an uninstrumented caller".to_string(),
                How::Other => "value the tracer does not follow".to_string(),
            },
            StepKind::Default => "default value at allocation (field declaration)".to_string(),
            StepKind::Untraced => "no definition in the trace".to_string(),
        }
    }

    /// The steps of a failure-inducing dataflow, origin first.
    pub fn chain(&self, chain: &[crate::analysis::Step]) -> Vec<Step> {
        chain
            .iter()
            .map(|s| Step {
                def: s.def.map(|d| self.location(d)),
                use_: self.location(s.use_),
                var: self.var(s.var),
                how: self.step_kind(s.kind),
            })
            .collect()
    }

    pub fn theta_entry(&self, dua: &Dua, duas: &DuaTable, test_ids: &TestIds) -> ThetaEntry {
        let cov = duas.get(dua).cloned().unwrap_or_default();
        ThetaEntry {
            def: self.position(dua.def),
            use_: self.position(dua.use_),
            var: self.var(dua.var),
            covered_by: cov
                .tests
                .iter()
                .map(|&t| test_ids[t as usize].to_string())
                .collect(),
            covered_by_count: cov.count,
            is_static: cov.is_static,
        }
    }
}

/// Builds the report of a ranked analysis; `excluded` lists the failures taken out of it
/// before ranking ([`crate::ranking::exclude`]), `masked` the failures of tests run alone
/// that joined it (`rank --od`).
pub fn build(
    tables: &Tables,
    analysis: &Analysis,
    ranked: &Ranked,
    seed: u64,
    excluded: Vec<Excluded>,
    masked: Vec<Masked>,
) -> Report {
    build_with_paths(
        tables,
        analysis,
        ranked,
        seed,
        excluded,
        masked,
        SourcePaths::none(),
    )
}

/// [`build`], with every location also given as a repository path (`paths`).
pub fn build_with_paths(
    tables: &Tables,
    analysis: &Analysis,
    ranked: &Ranked,
    seed: u64,
    excluded: Vec<Excluded>,
    masked: Vec<Masked>,
    paths: &SourcePaths,
) -> Report {
    let r = Resolver::with_paths(tables, analysis, paths);
    let flow_sets = ranked
        .order
        .iter()
        .enumerate()
        .map(|(pos, &s)| flow_set(&r, analysis, &ranked.sets[s], &ranked.scores[s], pos + 1))
        .collect();
    let ids = &analysis.test_ids;
    let listed = order::tests_in_order(&ranked.sets, &ranked.order, ranked.test_order);
    let mut tests: Vec<TestRank> = listed
        .into_iter()
        .enumerate()
        .map(|(i, (failure, pos))| {
            let test = ids[analysis.failures[failure].test].to_string();
            TestRank {
                rank: i + 1,
                masked: masked.iter().any(|m| m.test == test),
                test,
                flow_set_rank: Some(pos + 1),
            }
        })
        .collect();
    // Unanalyzed failures come last, in bundle order, so every failing test is ranked.
    let mut unanalyzed_sorted = analysis.unanalyzed.clone();
    unanalyzed_sorted.sort_by_key(|u| u.test);
    let start = tests.len();
    tests.extend(unanalyzed_sorted.iter().enumerate().map(|(i, u)| {
        let test = ids[u.test].to_string();
        TestRank {
            rank: start + i + 1,
            masked: masked.iter().any(|m| m.test == test),
            test,
            flow_set_rank: None,
        }
    }));
    let unanalyzed = unanalyzed_sorted
        .iter()
        .map(|u| UnanalyzedReport {
            test: ids[u.test].to_string(),
            exception: u.exception.clone(),
            reason: u.reason.clone(),
        })
        .collect();
    let failing = analysis.failing();
    Report {
        schema: RANK_SCHEMA,
        subject: tables.manifest.subject.clone(),
        seed,
        summary: Summary {
            tests: ids.len(),
            failing,
            passing: ids.len() - failing,
            analyzed: analysis.failures.len(),
            unanalyzed: analysis.unanalyzed.len(),
            in_analysis: analysis.failures.len() + analysis.unanalyzed.len(),
            analyzed_share: analyzed_share(
                analysis.failures.len(),
                analysis.failures.len() + analysis.unanalyzed.len(),
            ),
            flow_sets: ranked.sets.len(),
            local_flow_sets: ranked.sets.iter().filter(|s| s.is_local()).count(),
            events: analysis.events,
            duas: analysis.duas.len(),
            masked: masked.len(),
        },
        flow_sets,
        tests,
        unanalyzed,
        excluded,
        masked,
    }
}

/// `analyzed: N of M failing tests` (M counted with its noun: `of 1 failing test`).
fn analyzed_share(analyzed: usize, of: usize) -> String {
    format!(
        "analyzed: {analyzed} of {of} failing {}",
        if of == 1 { "test" } else { "tests" }
    )
}

/// One flow-set of the report, at `rank`.
fn flow_set(
    r: &Resolver<'_>,
    analysis: &Analysis,
    set: &FlowSet,
    score: &Score,
    rank: usize,
) -> FlowSetReport {
    let ids = &analysis.test_ids;
    let rep = &analysis.failures[set.representative];
    let theta = score
        .vars
        .iter()
        .flat_map(|v| v.theta.iter())
        .map(|d| r.theta_entry(d, &analysis.duas, ids))
        .collect();
    let mut tests = vec![ids[rep.test].to_string()];
    tests.extend(
        set.members
            .iter()
            .filter(|&&m| m != set.representative)
            .map(|&m| ids[analysis.failures[m].test].to_string()),
    );
    let crash = crash(r, set, score, rep);
    FlowSetReport {
        rank,
        fingerprint: fingerprint(&crash),
        locality: if set.is_local() { "local" } else { "non-local" },
        likelihood: score.likelihood.map(|l| l.value()),
        likelihood_ratio: score.likelihood.map(|l| format!("{}/{}", l.num, l.den)),
        crash,
        theta,
        tests,
        representative: ids[rep.test].to_string(),
        local_tests: set.local_members,
        fallback: rep.fallback.clone(),
    }
}

/// The crash of a flow-set, as its representative failure shows it.
fn crash(r: &Resolver<'_>, set: &FlowSet, score: &Score, rep: &Failure) -> Crash {
    let origins: Vec<VarReport> = score
        .vars
        .iter()
        .map(|vs| {
            let cv = rep
                .vars
                .iter()
                .find(|v| v.at == vs.at && v.var == vs.var)
                .expect("same key");
            VarReport {
                variable: r.var(vs.var),
                used_at: (vs.at != set.key.crash_stmt).then(|| r.location(vs.at)),
                origin: r.origin(cv.origin),
                local: cv.local,
                likelihood: vs.likelihood.map(|l| l.value()),
                covered: vs.covered,
                theta_size: vs.theta.len(),
                chain: r.chain(&cv.chain),
            }
        })
        .collect();
    // The origin shown is that of the variable whose likelihood counts.
    let counting = score
        .vars
        .iter()
        .position(|v| v.likelihood == score.likelihood)
        .unwrap_or(0);
    Crash {
        exception: rep.exception.clone(),
        statement: r.location(set.key.crash_stmt),
        thrown_at: (rep.thrown_at != set.key.crash_stmt).then(|| r.location(rep.thrown_at)),
        kind: serde_json::to_value(rep.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        contract: set.key.contract.clone(),
        variables: score.vars.iter().map(|v| r.var(v.var)).collect(),
        origin: origins
            .get(counting)
            .map_or_else(|| r.origin(Origin::Untraced), |o| o.origin.clone()),
        origins,
        mut_method: r.symbols.name(rep.mut_method).to_string(),
    }
}

/// The flow-set key in words: `Class.method@File.java:47|e<-Class.method@File.java:45|...`,
/// the crash statement, then each crash variable and its origin (`untraced` for none).
fn fingerprint(crash: &Crash) -> String {
    let at = |method: &str, file: &str, line: u32| format!("{method}@{file}:{line}");
    let s = &crash.statement;
    let mut key = at(&s.method, &s.file, s.line);
    if let Some(c) = &crash.contract {
        key = format!("contract {c}|{key}");
    }
    for v in &crash.origins {
        let o = &v.origin;
        let origin = match (&o.method, &o.file, o.line) {
            (Some(m), Some(f), Some(l)) => at(m, f, l),
            _ => "untraced".to_string(),
        };
        let used = v.used_at.as_ref().map_or_else(String::new, |u| {
            format!("@{}", at(&u.method, &u.file, u.line))
        });
        key.push_str(&format!("|{}{used}<-{origin}", v.variable));
    }
    key
}
