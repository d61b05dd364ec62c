//! Spectrum-based fault localization over a bundle's tests: each source line's spectrum (how
//! many failing and passing tests covered it) and its suspiciousness by Ochiai (Abreu et al.,
//! the formula GZoltar uses, which PAF's evaluation ran for MSeer) and DStar (Wong et al.,
//! with * = 2). `paf localize` prints the ranking of lines ([`Localization`], `paf.localize/1`);
//! MSeer ranks lines per failing test with the same spectra ([`super::mseer`]).
//!
//! A line is covered by a test when an event of the test happened at one of its statements
//! ([`crate::analysis::facts::LineMap`]).

use serde::{Serialize, Serializer};

use crate::analysis::facts::Facts;
use crate::trace::Tables;

/// The spectra of every line: e_f and e_p (failing and passing tests covering it), with the
/// suite's totals F and P (so n_f = F - e_f and n_p = P - e_p).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spectrum {
    pub failing: u32,
    pub passing: u32,
    /// e_f by line.
    pub ef: Vec<u32>,
    /// e_p by line.
    pub ep: Vec<u32>,
}

impl Spectrum {
    pub fn of(facts: &Facts) -> Spectrum {
        let mut ef = vec![0u32; facts.lines.len()];
        for t in &facts.failing {
            for &l in &t.covered {
                ef[l as usize] += 1;
            }
        }
        Spectrum {
            failing: facts.failing.len() as u32,
            passing: facts.passing as u32,
            ef,
            ep: facts.passing_coverage.clone(),
        }
    }
}

/// Ochiai: e_f / sqrt(F (e_f + e_p)); 0 when nothing covers the line or no test fails.
pub fn ochiai(ef: u32, ep: u32, failing: u32) -> f64 {
    let den = f64::from(failing) * f64::from(ef + ep);
    if ef == 0 || den == 0.0 {
        0.0
    } else {
        f64::from(ef) / den.sqrt()
    }
}

/// DStar (* = 2): e_f^2 / (e_p + n_f); infinite when the line is covered by every failing test
/// and no passing test (the denominator is 0), 0 when no failing test covers it.
pub fn dstar(ef: u32, ep: u32, failing: u32) -> Score {
    let den = ep + (failing - ef);
    if ef == 0 {
        Score::Finite(0.0)
    } else if den == 0 {
        Score::Infinite
    } else {
        Score::Finite(f64::from(ef) * f64::from(ef) / f64::from(den))
    }
}

/// A suspiciousness score: a number, or infinity (DStar's zero denominator).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Score {
    Finite(f64),
    Infinite,
}

impl Score {
    /// Orders scores, infinity above every number.
    fn key(self) -> f64 {
        match self {
            Score::Finite(v) => v,
            Score::Infinite => f64::INFINITY,
        }
    }
}

impl Serialize for Score {
    /// A number, or the string `"inf"` (JSON has no infinity).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Score::Finite(v) => s.serialize_f64(*v),
            Score::Infinite => s.serialize_str("inf"),
        }
    }
}

/// Which formula orders `paf localize`'s lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Formula {
    /// e_f / sqrt(F (e_f + e_p)) (GZoltar's default).
    Ochiai,
    /// e_f^2 / (e_p + n_f) (DStar with * = 2).
    Dstar,
}

pub const LOCALIZE_SCHEMA: &str = "paf.localize/1";

/// `paf localize`'s report: the lines a failing test covered, most suspicious first.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Localization {
    pub schema: &'static str,
    pub subject: Option<String>,
    pub bundle: String,
    /// F and P: the suite's failing and passing tests.
    pub failing: u32,
    pub passing: u32,
    /// The formula the lines are sorted by.
    pub by: Formula,
    /// Lines covered by at least one failing test (the others score 0 under both formulas).
    pub candidates: usize,
    /// The lines shown (all of them, or the first `--top`).
    pub lines: Vec<LineScore>,
}

/// One line's spectrum, scores and ranks.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LineScore {
    pub file: String,
    pub line: u32,
    /// `Class.method` (`Class.<field>` for a field declaration).
    pub method: String,
    pub ef: u32,
    pub ep: u32,
    pub ochiai: f64,
    /// 1 + the lines scoring strictly higher (tied lines share the best rank).
    pub ochiai_rank: usize,
    pub dstar: Score,
    pub dstar_rank: usize,
}

/// 1 + how many of `scores` are strictly above each one.
fn ranks(scores: &[f64]) -> Vec<usize> {
    let mut sorted: Vec<f64> = scores.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    scores
        .iter()
        .map(|s| 1 + sorted.partition_point(|x| x.total_cmp(s).is_gt()))
        .collect()
}

/// Ranks the lines a failing test covered by both formulas, sorted by `by` (ties in line
/// order), keeping the first `top` (0: all). `bundle` names the bundle in the report.
pub fn localize(
    facts: &Facts,
    tables: &Tables,
    bundle: &str,
    by: Formula,
    top: usize,
) -> Localization {
    let (statements, symbols) = (&tables.statements, &tables.symbols);
    let spectrum = Spectrum::of(facts);
    let f = spectrum.failing;
    let candidates: Vec<usize> = (0..spectrum.ef.len())
        .filter(|&l| spectrum.ef[l] > 0)
        .collect();
    let och: Vec<f64> = candidates
        .iter()
        .map(|&l| ochiai(spectrum.ef[l], spectrum.ep[l], f))
        .collect();
    let dst: Vec<Score> = candidates
        .iter()
        .map(|&l| dstar(spectrum.ef[l], spectrum.ep[l], f))
        .collect();
    let och_rank = ranks(&och);
    let dst_rank = ranks(&dst.iter().map(|s| s.key()).collect::<Vec<_>>());
    let mut rows: Vec<usize> = (0..candidates.len()).collect();
    match by {
        Formula::Ochiai => rows.sort_by_key(|&i| och_rank[i]),
        Formula::Dstar => rows.sort_by_key(|&i| dst_rank[i]),
    }
    if top > 0 {
        rows.truncate(top);
    }
    let lines = rows
        .into_iter()
        .map(|i| {
            let l = candidates[i];
            let s = statements.get(facts.lines.first[l]);
            let class = symbols.name(s.class);
            LineScore {
                file: symbols.name(s.file).to_string(),
                line: s.line,
                method: match s.method {
                    Some(m) => format!("{class}.{}", symbols.name(m)),
                    None => format!("{class}.<field>"),
                },
                ef: spectrum.ef[l],
                ep: spectrum.ep[l],
                ochiai: och[i],
                ochiai_rank: och_rank[i],
                dstar: dst[i],
                dstar_rank: dst_rank[i],
            }
        })
        .collect();
    Localization {
        schema: LOCALIZE_SCHEMA,
        subject: tables.manifest.subject.clone(),
        bundle: bundle.to_string(),
        failing: spectrum.failing,
        passing: spectrum.passing,
        by,
        candidates: candidates.len(),
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn formulas_by_hand() {
        // F = 2: a line both failing tests and one passing test cover:
        // Ochiai 2 / sqrt(2 * 3) = sqrt(2/3); DStar 4 / (1 + 0) = 4.
        assert!(close(ochiai(2, 1, 2), (2.0f64 / 3.0).sqrt()));
        assert_eq!(dstar(2, 1, 2), Score::Finite(4.0));
        // One of the two failing tests and no passing test: Ochiai 1 / sqrt(2); DStar 1 / 1.
        assert!(close(ochiai(1, 0, 2), 1.0 / 2.0f64.sqrt()));
        assert_eq!(dstar(1, 0, 2), Score::Finite(1.0));
        // Every failing test and no passing test: Ochiai 1, DStar infinite.
        assert!(close(ochiai(2, 0, 2), 1.0));
        assert_eq!(dstar(2, 0, 2), Score::Infinite);
        // Not covered by a failing test: 0 under both.
        assert_eq!(ochiai(0, 5, 2), 0.0);
        assert_eq!(dstar(0, 5, 2), Score::Finite(0.0));
        assert_eq!(ochiai(0, 0, 0), 0.0);
    }

    #[test]
    fn tied_lines_share_the_best_rank() {
        assert_eq!(ranks(&[0.5, 1.0, 0.5, 0.25]), [2, 1, 2, 4]);
        assert_eq!(ranks(&[f64::INFINITY, 3.0, f64::INFINITY]), [1, 3, 1]);
        assert_eq!(
            serde_json::to_string(&[Score::Infinite, Score::Finite(1.5)]).unwrap(),
            r#"["inf",1.5]"#
        );
    }
}
