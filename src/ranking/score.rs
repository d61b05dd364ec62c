//! Phase 3 (PAF section 3.3): theta and the likelihood of a precondition violation per flow-set.

use rustc_hash::{FxHashMap, FxHashSet};
use std::cmp::Ordering;

use super::coverage::DuaTable;
use super::flowset::FlowSet;
use crate::trace::{Dua, StmtIx, VarName};

/// An exact fraction `num / den` (den > 0), compared without rounding so that ties are ties:
/// equality is equality of values (`1/3 == 2/6`), consistent with the order.
#[derive(Clone, Copy, Debug)]
pub struct Ratio {
    pub num: u32,
    pub den: u32,
}

impl Ratio {
    pub fn value(self) -> f64 {
        f64::from(self.num) / f64::from(self.den)
    }
}

impl Ord for Ratio {
    fn cmp(&self, other: &Self) -> Ordering {
        (u64::from(self.num) * u64::from(other.den))
            .cmp(&(u64::from(other.num) * u64::from(self.den)))
    }
}

impl PartialEq for Ratio {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ratio {}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Theta and its coverage for one crash variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarScore {
    /// The statement the variable is used at (theta's use).
    pub at: StmtIx,
    pub var: VarName,
    /// DUAs (d, crash statement, var), sorted.
    pub theta: Vec<Dua>,
    pub covered: u32,
    /// `None` when theta is empty (nothing in the trace or the static DUAs reaches the use).
    pub likelihood: Option<Ratio>,
}

/// The score of a flow-set: the largest likelihood over its crash variables (PAF 3.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Score {
    pub vars: Vec<VarScore>,
    pub likelihood: Option<Ratio>,
}

/// Scores every flow-set against the DUA table.
pub fn score(sets: &[FlowSet], duas: &DuaTable) -> Vec<Score> {
    let wanted: FxHashSet<(StmtIx, VarName)> = sets
        .iter()
        .flat_map(|s| s.key.vars.iter().map(|&(at, v, _)| (at, v)))
        .collect();
    let mut theta: FxHashMap<(StmtIx, VarName), Vec<Dua>> = FxHashMap::default();
    for (dua, _) in duas.iter() {
        if wanted.contains(&(dua.use_, dua.var)) {
            theta.entry((dua.use_, dua.var)).or_default().push(*dua);
        }
    }
    sets.iter()
        .map(|set| {
            let mut seen = FxHashSet::default();
            let vars: Vec<VarScore> = set
                .key
                .vars
                .iter()
                .filter(|(at, v, _)| seen.insert((*at, *v)))
                .map(|&(at, var, _)| {
                    let mut t = theta.get(&(at, var)).cloned().unwrap_or_default();
                    t.sort_unstable();
                    let covered = t
                        .iter()
                        .filter(|d| duas.get(d).is_some_and(|c| c.count > 0))
                        .count() as u32;
                    let likelihood = (!t.is_empty()).then_some(Ratio {
                        num: covered,
                        den: t.len() as u32,
                    });
                    VarScore {
                        at,
                        var,
                        theta: t,
                        covered,
                        likelihood,
                    }
                })
                .collect();
            let likelihood = vars.iter().filter_map(|v| v.likelihood).max();
            Score { vars, likelihood }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Origin;
    use crate::ranking::coverage::DuaTable;
    use crate::ranking::flowset::FlowKey;
    use crate::trace::Sym;

    fn ratio(text: &str) -> Ratio {
        let (num, den) = text.split_once('/').unwrap();
        Ratio {
            num: num.parse().unwrap(),
            den: den.parse().unwrap(),
        }
    }

    #[test]
    fn ratios_compare_by_exact_value() {
        for (a, b, want) in [
            ("1/3", "2/6", Ordering::Equal),
            ("1/3", "1/2", Ordering::Less),
            ("0/1", "0/7", Ordering::Equal),
            ("2/3", "3/5", Ordering::Greater),
            ("1/1", "4/4", Ordering::Equal),
            // Within 2^-64 of each other: f64 would call them equal.
            (
                "4294967294/4294967295",
                "4294967293/4294967294",
                Ordering::Greater,
            ),
        ] {
            assert_eq!(ratio(a).cmp(&ratio(b)), want, "{a} vs {b}");
            assert_eq!(ratio(b).cmp(&ratio(a)), want.reverse(), "{b} vs {a}");
            assert_eq!(ratio(a) == ratio(b), want == Ordering::Equal, "{a} == {b}");
        }
    }

    fn dua(def: u32, use_: u32, var: u32) -> Dua {
        Dua {
            def: StmtIx(def),
            use_: StmtIx(use_),
            var: VarName::Named(Sym(var)),
        }
    }

    /// A flow-set at `crash` with crash variables `vars` (all of origin 1).
    fn set(crash: u32, vars: &[u32]) -> FlowSet {
        FlowSet {
            key: FlowKey {
                crash_stmt: StmtIx(crash),
                contract: None,
                vars: vars
                    .iter()
                    .map(|&v| {
                        (
                            StmtIx(crash),
                            VarName::Named(Sym(v)),
                            Origin::Stmt(StmtIx(1)),
                        )
                    })
                    .collect(),
            },
            members: vec![0],
            representative: 0,
            local_members: 0,
        }
    }

    /// One line per flow-set: `var: theta covered likelihood; ...| max`.
    fn check(sets: &[FlowSet], duas: &DuaTable, expect: &str) {
        let show = |r: Option<Ratio>| r.map_or("-".to_string(), |r| format!("{}/{}", r.num, r.den));
        let actual: Vec<String> = score(sets, duas)
            .iter()
            .map(|s| {
                let vars: Vec<String> = s
                    .vars
                    .iter()
                    .map(|v| {
                        let VarName::Named(Sym(name)) = v.var else {
                            unreachable!()
                        };
                        let theta: Vec<String> = v
                            .theta
                            .iter()
                            .map(|d| format!("{}->{}", d.def.0, d.use_.0))
                            .collect();
                        format!(
                            "{name}: [{}] {} {}",
                            theta.join(" "),
                            v.covered,
                            show(v.likelihood)
                        )
                    })
                    .collect();
                format!("{} | {}", vars.join("; "), show(s.likelihood))
            })
            .collect();
        let expect: Vec<&str> = expect.trim().lines().map(str::trim).collect();
        pretty_assertions::assert_eq!(expect.join("\n"), actual.join("\n"));
    }

    #[test]
    fn theta_is_static_and_observed_duas_of_the_crash_use() {
        let mut duas = DuaTable::new(usize::MAX);
        duas.add_static(dua(1, 5, 1)); // never exercised
        duas.add_failing(&[dua(2, 5, 1)]); // exercised by a failing test only
        duas.add_passing(0, &[dua(3, 5, 1)]);
        duas.add_passing(1, &[dua(3, 5, 1), dua(4, 5, 2)]);
        duas.add_passing(2, &[dua(1, 6, 1), dua(5, 5, 3)]); // other use; other variable
        duas.add_static(dua(6, 5, 2));
        duas.add_passing(3, &[dua(6, 5, 2)]); // static and covered
        check(
            &[set(5, &[1]), set(5, &[1, 2]), set(7, &[1]), set(5, &[4])],
            &duas,
            // x=1: 3->5 covered of three. y=2: both covered. Likelihood is the largest.
            "1: [1->5 2->5 3->5] 1 1/3 | 1/3
             1: [1->5 2->5 3->5] 1 1/3; 2: [4->5 6->5] 2 2/2 | 2/2
             1: [] 0 - | -
             4: [] 0 - | -",
        );
    }

    #[test]
    fn a_variable_with_two_origins_is_scored_once() {
        let mut duas = DuaTable::new(usize::MAX);
        duas.add_passing(0, &[dua(3, 5, 1)]);
        duas.add_failing(&[dua(2, 5, 1)]);
        let mut s = set(5, &[1]);
        s.key
            .vars
            .push((StmtIx(5), VarName::Named(Sym(1)), Origin::Untraced));
        check(&[s], &duas, "1: [2->5 3->5] 1 1/2 | 1/2");
    }
}
