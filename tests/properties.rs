//! Property tests of the phases: ranking, ratios, flow-set grouping and the replay of
//! well-formed event streams.

use std::cmp::Ordering;
use std::collections::HashSet;

use proptest::prelude::*;

use paf::analysis::{CrashKind, CrashVar, Failure, Origin, replay};
use paf::ranking::flowset::{FlowKey, FlowSet, group};
use paf::ranking::order::rank;
use paf::ranking::score::{Ratio, Score};
use paf::trace::{
    Event, How, Outcome, Role, Source, StmtIx, Sym, Symbols, TestTrace, Var, VarName,
};

// ---- ranking ----

/// `(local, likelihood)` per flow-set; likelihood `None` is an empty theta.
fn rank_input() -> impl Strategy<Value = Vec<(bool, Option<(u32, u32)>)>> {
    prop::collection::vec(
        (
            any::<bool>(),
            prop::option::of((1u32..6).prop_flat_map(|den| (0..=den, Just(den)))),
        ),
        0..12,
    )
}

fn build(spec: &[(bool, Option<(u32, u32)>)]) -> (Vec<FlowSet>, Vec<Score>) {
    spec.iter()
        .enumerate()
        .map(|(i, &(local, likelihood))| {
            (
                FlowSet {
                    key: FlowKey {
                        crash_stmt: StmtIx(i as u32),
                        contract: None,
                        vars: Vec::new(),
                    },
                    members: vec![i],
                    representative: i,
                    local_members: usize::from(local),
                },
                Score {
                    vars: Vec::new(),
                    likelihood: likelihood.map(|(num, den)| Ratio { num, den }),
                },
            )
        })
        .unzip()
}

/// The rank order, computed independently of `Ratio`'s `Ord`: local first, then the exact
/// value of the likelihood (cross-multiplied), empty theta last in its group.
fn precedes_or_ties(a: (bool, Option<(u32, u32)>), b: (bool, Option<(u32, u32)>)) -> Ordering {
    let group = |(local, l): (bool, Option<(u32, u32)>)| (!local, l.is_none());
    group(a).cmp(&group(b)).then_with(|| match (a.1, b.1) {
        (Some((an, ad)), Some((bn, bd))) => {
            (u128::from(an) * u128::from(bd)).cmp(&(u128::from(bn) * u128::from(ad)))
        }
        _ => Ordering::Equal,
    })
}

proptest! {
    #[test]
    fn rank_is_a_permutation_sorted_by_locality_and_likelihood(
        spec in rank_input(),
        seed in any::<u64>(),
    ) {
        let (sets, scores) = build(&spec);
        let order = rank(&sets, &scores, seed);
        let mut sorted = order.clone();
        sorted.sort();
        prop_assert_eq!(sorted, (0..spec.len()).collect::<Vec<_>>());
        for pair in order.windows(2) {
            prop_assert_ne!(
                precedes_or_ties(spec[pair[0]], spec[pair[1]]),
                Ordering::Greater,
                "{:?} ranked before {:?}",
                spec[pair[0]],
                spec[pair[1]]
            );
        }
    }

    #[test]
    fn rank_depends_only_on_the_seed(spec in rank_input(), seed in any::<u64>()) {
        let (sets, scores) = build(&spec);
        prop_assert_eq!(rank(&sets, &scores, seed), rank(&sets, &scores, seed));
    }

    #[test]
    fn ratio_order_is_exact(
        a in (1u32..=u32::MAX).prop_flat_map(|den| (0..=den, Just(den))),
        b in (1u32..=u32::MAX).prop_flat_map(|den| (0..=den, Just(den))),
    ) {
        let (x, y) = (Ratio { num: a.0, den: a.1 }, Ratio { num: b.0, den: b.1 });
        let exact = (u128::from(a.0) * u128::from(b.1)).cmp(&(u128::from(b.0) * u128::from(a.1)));
        prop_assert_eq!(x.cmp(&y), exact);
        prop_assert_eq!(x == y, exact == Ordering::Equal);
        prop_assert_eq!(x.partial_cmp(&y), Some(exact));
    }

    #[test]
    fn ratio_order_agrees_with_f64_for_small_denominators(
        a in (1u32..1000).prop_flat_map(|den| (0..=den, Just(den))),
        b in (1u32..1000).prop_flat_map(|den| (0..=den, Just(den))),
    ) {
        // Distinct fractions with denominators below 1000 differ by more than 1e-6, far
        // above f64 rounding; equal ones divide to the same correctly rounded f64.
        let (x, y) = (Ratio { num: a.0, den: a.1 }, Ratio { num: b.0, den: b.1 });
        let float = (f64::from(a.0) / f64::from(a.1)).total_cmp(&(f64::from(b.0) / f64::from(b.1)));
        prop_assert_eq!(x.cmp(&y), float);
    }
}

// ---- flow-sets ----

/// Failures from `(crash, [(var, origin)], events)`, origin 0 meaning untraced.
fn failures() -> impl Strategy<Value = Vec<Failure>> {
    prop::collection::vec(
        (
            0u32..3,
            prop::collection::vec((0u32..3, 0u32..3, any::<bool>()), 1..3),
            0usize..5,
        ),
        0..20,
    )
    .prop_map(|spec| {
        spec.into_iter()
            .enumerate()
            .map(|(i, (crash, vars, events))| Failure {
                test: i,
                exception: "java.lang.NullPointerException".into(),
                kind: CrashKind::Deref,
                crash_stmt: StmtIx(crash),
                thrown_at: StmtIx(crash),
                mut_method: Sym(0),
                mut_enter: 0,
                vars: vars
                    .into_iter()
                    .map(|(var, origin, local)| CrashVar {
                        at: StmtIx(crash),
                        var: VarName::Named(Sym(var)),
                        origin: if origin == 0 {
                            Origin::Untraced
                        } else {
                            Origin::Stmt(StmtIx(origin))
                        },
                        local,
                        origin_time: None,
                        chain: Vec::new(),
                    })
                    .collect(),
                fallback: None,
                events,
                contract: None,
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn group_partitions_failures_by_key(failures in failures()) {
        let sets = group(&failures);
        let mut seen = vec![0; failures.len()];
        let mut keys = HashSet::new();
        for set in &sets {
            prop_assert!(keys.insert(set.key.clone()), "two sets with key {:?}", set.key);
            prop_assert!(!set.members.is_empty());
            prop_assert!(set.members.windows(2).all(|w| w[0] < w[1]), "members out of order");
            for &m in &set.members {
                seen[m] += 1;
                prop_assert_eq!(&FlowKey::of(&failures[m]), &set.key);
            }
            // The representative: the first member with the fewest events.
            let fewest = set.members.iter().map(|&m| failures[m].events).min().unwrap();
            let first = *set.members.iter().find(|&&m| failures[m].events == fewest).unwrap();
            prop_assert_eq!(set.representative, first);
            let local = set
                .members
                .iter()
                .filter(|&&m| failures[m].vars.iter().any(|v| v.local))
                .count();
            prop_assert_eq!(set.local_members, local);
        }
        prop_assert!(seen.iter().all(|&n| n == 1), "membership counts {:?}", seen);
        // Sets come in the order of their first member.
        prop_assert!(sets.windows(2).all(|w| w[0].members[0] < w[1].members[0]));
    }
}

// ---- replay ----

/// Names used by generated events.
struct Names {
    symbols: Symbols,
}

impl Names {
    fn sym(&mut self, name: &str) -> Sym {
        self.symbols.intern(name)
    }
}

/// Turns abstract operations into a well-formed event stream: frames entered once, locals
/// only of the active frame, return slots only of entered frames.
fn events_of(ops: &[(u8, u8, u8, u8)], names: &mut Names) -> Vec<Event> {
    let mut events = Vec::new();
    let mut stack: Vec<u64> = Vec::new();
    let mut entered: Vec<(u64, Sym)> = Vec::new();
    let mut next_frame = 1;
    let pick = |n: u8, top: u64, entered: &[(u64, Sym)], names: &mut Names| -> Var {
        let k = u64::from(n / 6);
        match n % 6 {
            0 | 5 => Var::Local {
                frame: top,
                name: names.sym(["a", "b", "c"][(k % 3) as usize]),
            },
            1 => Var::Field {
                obj: 1 + k % 3,
                name: names.sym(["C.f", "C.g"][(k % 2) as usize]),
            },
            3 => Var::Elem {
                array: 7,
                index: k % 5,
                name: Some(names.sym("buf")),
            },
            4 if !entered.is_empty() => {
                let (frame, method) = entered[(k as usize) % entered.len()];
                Var::Ret { frame, method }
            }
            _ => Var::Static {
                name: names.sym("C.s"),
            },
        }
    };
    let hows = [
        How::Const,
        How::New,
        How::Arith,
        How::Call,
        How::Param,
        How::Other,
    ];
    let roles = [Role::Deref, Role::Index, Role::Arg, Role::Value];
    for (i, &(op, x, y, z)) in ops.iter().enumerate() {
        let stmt = StmtIx(i as u32 % 10);
        let top = stack.last().copied();
        let event = match (op % 6, top) {
            (0, _) | (1..=4, None) => {
                let frame = next_frame;
                next_frame += 1;
                let method = names.sym(&format!("M.m{}", x % 4));
                let caller = top.filter(|_| x % 3 != 0);
                stack.push(frame);
                entered.push((frame, method));
                Event::Enter {
                    frame,
                    method,
                    caller,
                    this: (y % 2 == 0).then_some(1 + u64::from(y % 3)),
                    values: None,
                    test_line: None,
                    callback: false,
                }
            }
            (1, Some(frame)) => {
                stack.pop();
                Event::Exit {
                    frame,
                    threw: (x % 2 == 0).then(|| names.sym("E")),
                }
            }
            (2, Some(frame)) => {
                let var = pick(x, frame, &entered, names);
                let source = if y % 2 == 0 {
                    Source::Copy {
                        from: pick(z, frame, &entered, names),
                        cast: z % 2 == 0,
                    }
                } else {
                    Source::Made {
                        how: hows[(y / 2 % 6) as usize],
                        callee: None,
                    }
                };
                Event::Def {
                    frame,
                    stmt,
                    var,
                    source,
                }
            }
            (3, Some(frame)) => Event::Use {
                frame,
                stmt,
                var: pick(x, frame, &entered, names),
                role: roles[(y % 4) as usize],
                null: z % 2 == 0,
            },
            (4, Some(frame)) => Event::Branch {
                frame,
                stmt,
                uses: vec![
                    pick(x, frame, &entered, names),
                    pick(y, frame, &entered, names),
                ],
            },
            (_, frame) => {
                if y % 2 == 0 {
                    Event::Alloc {
                        obj: 7,
                        frame,
                        stmt: Some(stmt),
                        fields: Vec::new(),
                        length: Some(u64::from(z % 6)),
                    }
                } else {
                    Event::Alloc {
                        obj: 1 + u64::from(x % 3),
                        frame,
                        stmt: None,
                        fields: vec![
                            (names.sym("C.f"), StmtIx(31)),
                            (names.sym("C.g"), StmtIx(32)),
                        ],
                        length: None,
                    }
                }
            }
        };
        events.push(event);
    }
    events
}

/// The event that last defined `var` before event `at`, by a plain backward scan.
fn naive_reaching(events: &[Event], at: usize, var: Var) -> Option<usize> {
    for i in (0..at).rev() {
        match &events[i] {
            Event::Def { var: v, .. } if *v == var => return Some(i),
            Event::Alloc {
                obj,
                fields,
                length,
                ..
            } => match var {
                Var::Field { obj: o, name } if o == *obj && fields.iter().any(|f| f.0 == name) => {
                    return Some(i);
                }
                Var::Elem { array, index, .. } if array == *obj => {
                    if let Some(length) = length {
                        return (index < *length).then_some(i);
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    None
}

proptest! {
    #[test]
    fn replay_resolves_every_use_to_the_last_earlier_definition(
        ops in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>()), 0..80),
    ) {
        let mut names = Names { symbols: Symbols::default() };
        let events = events_of(&ops, &mut names);
        let test = TestTrace {
            index: 0,
            id: "t".into(),
            line: 1,
            outcome: Outcome::Pass,
            exception: None,
            truncated: false,
            event_lines: (2..events.len() as u64 + 2).collect(),
            events,
        };
        let r = match replay(&test) {
            Ok(r) => r,
            Err(e) => {
                // The only error: a copy from the defined variable with no earlier definition.
                let Event::Def { var, source: Source::Copy { from, .. }, .. } = &test.events[e.event]
                else {
                    return Err(TestCaseError::fail(format!("unexpected error {e:?}")));
                };
                prop_assert_eq!(var, from);
                prop_assert_eq!(naive_reaching(&test.events, e.event, *var), None);
                return Ok(());
            }
        };
        // Walk the uses in event order: a copy reads `from`, a use its var, a branch each var.
        let mut uses = r.uses.iter();
        for (j, event) in test.events.iter().enumerate() {
            let read: Vec<Var> = match event {
                Event::Def { source: Source::Copy { from, .. }, .. } => vec![*from],
                Event::Use { var, .. } => vec![*var],
                Event::Branch { uses, .. } => uses.clone(),
                _ => Vec::new(),
            };
            for var in read {
                let u = uses.next().expect("a use record per read");
                prop_assert_eq!(u.at.event as usize, j);
                let actual = u.reach.map(|d| r.defs[d as usize].event as usize);
                prop_assert_eq!(actual, naive_reaching(&test.events, j, var), "event {} reads {:?}", j, var);
                if let Some(d) = actual {
                    prop_assert!(d < j, "definition at {} does not precede its use at {}", d, j);
                }
            }
        }
        prop_assert!(uses.next().is_none(), "more use records than reads");
        // Every DUA comes from a use whose definition precedes it.
        let from_uses: HashSet<(StmtIx, StmtIx)> = r
            .uses
            .iter()
            .filter_map(|u| u.reach.map(|d| (r.defs[d as usize].stmt, u.at.stmt)))
            .collect();
        for dua in r.duas() {
            prop_assert!(from_uses.contains(&(dua.def, dua.use_)), "{:?}", dua);
        }
    }
}
