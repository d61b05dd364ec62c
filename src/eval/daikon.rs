//! The Daikon-style baseline: invariants of the arguments and receiver fields at the entry of each
//! method, mined from the passing tests' calls (the `values` of `enter` records without a
//! caller), and checked at the failing test's method under test. A failing test whose MUT entry
//! violates an invariant is a potential precondition violation (DSD-Crasher and Eclat filter such
//! inputs); one that violates none is an alarm.
//!
//! Only unary invariants, as Daikon prints them for one variable: `x == null`, `x != null`,
//! `x == c` (one value), `min <= x <= max` (a range of numbers), and the same two for the
//! length of an array or string (`x.length == c`, `min <= x.length <= max`). An invariant needs
//! at least [`MIN_SAMPLES`] observations.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::trace::{EntryValues, Value};

/// Observations a variable needs before any invariant is claimed: with a single sample every
/// variable would be a constant.
pub const MIN_SAMPLES: usize = 2;

/// A number as the trace holds it: integers stay exact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
}

impl Number {
    fn cmp(self, other: Number) -> Ordering {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a.cmp(&b),
            (a, b) => a.as_f64().total_cmp(&b.as_f64()),
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }

    fn text(self) -> String {
        match self {
            Number::Int(i) => i.to_string(),
            Number::Float(f) => f.to_string(),
        }
    }
}

/// One invariant of one variable at a method's entry.
#[derive(Clone, Debug, PartialEq)]
pub enum Invariant {
    IsNull,
    NonNull,
    Bool(bool),
    Equals(Number),
    Range(Number, Number),
    LengthEquals(u64),
    LengthRange(u64, u64),
}

impl Invariant {
    /// The invariant as Daikon would print it, for variable `var`.
    pub fn text(&self, var: &str) -> String {
        match self {
            Invariant::IsNull => format!("{var} == null"),
            Invariant::NonNull => format!("{var} != null"),
            Invariant::Bool(b) => format!("{var} == {b}"),
            Invariant::Equals(n) => format!("{var} == {}", n.text()),
            Invariant::Range(lo, hi) => format!("{} <= {var} <= {}", lo.text(), hi.text()),
            Invariant::LengthEquals(n) => format!("{var}.length == {n}"),
            Invariant::LengthRange(lo, hi) => format!("{lo} <= {var}.length <= {hi}"),
        }
    }

    /// Whether `v` satisfies the invariant.
    pub fn holds(&self, v: &Value) -> bool {
        match (self, v) {
            (Invariant::IsNull, v) => *v == Value::Null,
            (Invariant::NonNull, v) => *v != Value::Null,
            (Invariant::Bool(b), Value::Bool(x)) => b == x,
            (Invariant::Equals(n), v) => number(v).is_some_and(|x| x.cmp(*n) == Ordering::Equal),
            (Invariant::Range(lo, hi), v) => number(v)
                .is_some_and(|x| x.cmp(*lo) != Ordering::Less && x.cmp(*hi) != Ordering::Greater),
            (Invariant::LengthEquals(n), Value::Ref { length: Some(l) }) => l == n,
            (Invariant::LengthRange(lo, hi), Value::Ref { length: Some(l) }) => lo <= l && l <= hi,
            // A reference of unknown length says nothing about a length invariant, and a null
            // one breaks the non-null invariant that comes with every length invariant.
            (
                Invariant::LengthEquals(_) | Invariant::LengthRange(..),
                Value::Ref { length: None } | Value::Null,
            ) => true,
            _ => false,
        }
    }
}

fn number(v: &Value) -> Option<Number> {
    match v {
        Value::Int(i) => Some(Number::Int(*i)),
        Value::Num(f) => Some(Number::Float(*f)),
        _ => None,
    }
}

/// Invariants mined from the observations of one variable.
fn mine_var(samples: &[&Value]) -> Vec<Invariant> {
    if samples.len() < MIN_SAMPLES {
        return Vec::new();
    }
    let mut out = Vec::new();
    if samples.iter().all(|v| **v == Value::Null) {
        out.push(Invariant::IsNull);
    } else if samples.iter().all(|v| matches!(v, Value::Ref { .. })) {
        out.push(Invariant::NonNull);
        let lengths: Option<Vec<u64>> = samples
            .iter()
            .map(|v| match v {
                Value::Ref { length } => *length,
                _ => None,
            })
            .collect();
        if let Some(lengths) = lengths {
            let (lo, hi) = (lengths.iter().min(), lengths.iter().max());
            if let (Some(&lo), Some(&hi)) = (lo, hi) {
                out.push(if lo == hi {
                    Invariant::LengthEquals(lo)
                } else {
                    Invariant::LengthRange(lo, hi)
                });
            }
        }
    } else if let Some(Value::Bool(first)) = samples.first().copied() {
        if samples.iter().all(|v| **v == Value::Bool(*first)) {
            out.push(Invariant::Bool(*first));
        }
    } else if let Some(numbers) = samples
        .iter()
        .map(|v| number(v))
        .collect::<Option<Vec<_>>>()
    {
        let lo = numbers.iter().copied().min_by(|a, b| a.cmp(*b));
        let hi = numbers.iter().copied().max_by(|a, b| a.cmp(*b));
        if let (Some(lo), Some(hi)) = (lo, hi) {
            out.push(if lo.cmp(hi) == Ordering::Equal {
                Invariant::Equals(lo)
            } else {
                Invariant::Range(lo, hi)
            });
        }
    }
    out
}

/// A variable at a method's entry: an argument (by parameter name) or a receiver field (by
/// qualified name, shown as `this.<name>`).
fn var_name(kind: &str, name: &str) -> String {
    if kind == "field" {
        let short = name.rsplit('.').next().unwrap_or(name);
        format!("this.{short}")
    } else {
        name.to_string()
    }
}

/// The invariants of every method, by method then variable (both sorted).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Invariants {
    pub methods: BTreeMap<String, BTreeMap<(String, String), Vec<Invariant>>>,
}

impl Invariants {
    /// Mines invariants from `(method, values at entry)` observations of passing tests.
    pub fn mine<'a>(
        observations: impl IntoIterator<Item = (&'a str, &'a EntryValues)>,
    ) -> Invariants {
        let mut samples: BTreeMap<&str, BTreeMap<(&str, &str), Vec<&Value>>> = BTreeMap::new();
        for (method, values) in observations {
            let vars = samples.entry(method).or_default();
            for (name, v) in &values.args {
                vars.entry(("arg", name)).or_default().push(v);
            }
            for (name, v) in &values.fields {
                vars.entry(("field", name)).or_default().push(v);
            }
        }
        let methods = samples
            .into_iter()
            .map(|(m, vars)| {
                let invs = vars
                    .into_iter()
                    .map(|((k, n), vs)| ((k.to_string(), n.to_string()), mine_var(&vs)))
                    .filter(|(_, i)| !i.is_empty())
                    .collect();
                (m.to_string(), invs)
            })
            .collect();
        Invariants { methods }
    }

    /// The invariants of `method` over the arguments `args` and the receiver fields `fields`
    /// (qualified names), as text: the paper's Daikon baseline keeps the invariants relevant to
    /// the crash variable (PAF section 5.2).
    pub fn relevant(&self, method: &str, args: &[String], fields: &[String]) -> Vec<String> {
        let Some(vars) = self.methods.get(method) else {
            return Vec::new();
        };
        vars.iter()
            .filter(|((kind, name), _)| {
                if kind == "arg" {
                    args.contains(name)
                } else {
                    fields.contains(name)
                }
            })
            .flat_map(|((kind, name), invs)| invs.iter().map(|i| i.text(&var_name(kind, name))))
            .collect()
    }

    /// The invariants of `method` that `values` violate, as text (empty: no violation).
    pub fn violations(&self, method: &str, values: &EntryValues) -> Vec<String> {
        let Some(vars) = self.methods.get(method) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for ((kind, name), invs) in vars {
            let v = if kind == "arg" {
                values.args.get(name)
            } else {
                values.fields.get(name)
            };
            let Some(v) = v else {
                continue;
            };
            for inv in invs {
                if !inv.holds(v) {
                    out.push(inv.text(&var_name(kind, name)));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(args: &[(&str, Value)], fields: &[(&str, Value)]) -> EntryValues {
        EntryValues {
            args: args
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            fields: fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        }
    }

    fn r(length: u64) -> Value {
        Value::Ref {
            length: Some(length),
        }
    }

    #[test]
    fn invariants_by_hand() {
        // Three passing calls of get(i) on a log: i in 0..2, head always 0, slots length 4 then 4,
        // name non-null, flag true twice and false once.
        let obs = [
            values(
                &[("i", Value::Int(0)), ("name", r(3))],
                &[
                    ("L.head", Value::Int(0)),
                    ("L.slots", r(4)),
                    ("L.flag", Value::Bool(true)),
                ],
            ),
            values(
                &[("i", Value::Int(2)), ("name", r(5))],
                &[
                    ("L.head", Value::Int(0)),
                    ("L.slots", r(4)),
                    ("L.flag", Value::Bool(true)),
                ],
            ),
            values(
                &[("i", Value::Int(1)), ("name", Value::Ref { length: None })],
                &[
                    ("L.head", Value::Int(0)),
                    ("L.slots", r(4)),
                    ("L.flag", Value::Bool(false)),
                ],
            ),
        ];
        let inv = Invariants::mine(obs.iter().map(|v| ("L.get", v)));
        let texts: Vec<String> = inv.methods["L.get"]
            .iter()
            .flat_map(|((k, n), is)| is.iter().map(move |i| i.text(&var_name(k, n))))
            .collect();
        // The flag is not constant; name has a reference of unknown length, so only non-null.
        assert_eq!(
            texts,
            [
                "0 <= i <= 2",
                "name != null",
                "this.head == 0",
                "this.slots != null",
                "this.slots.length == 4"
            ]
        );
        // A failing call get(3) with head 1 violates the range and the constant.
        let bad = values(
            &[("i", Value::Int(3)), ("name", Value::Null)],
            &[("L.head", Value::Int(1))],
        );
        assert_eq!(
            inv.violations("L.get", &bad),
            ["0 <= i <= 2", "name != null", "this.head == 0"]
        );
        let good = values(&[("i", Value::Int(2))], &[("L.slots", r(4))]);
        assert!(inv.violations("L.get", &good).is_empty());
        assert!(
            inv.violations("L.other", &bad).is_empty(),
            "no invariants, no violation"
        );
    }

    #[test]
    fn one_sample_is_not_enough_and_mixed_nullness_gives_nothing() {
        let one = [values(&[("x", Value::Int(5))], &[])];
        assert!(Invariants::mine(one.iter().map(|v| ("m", v))).methods["m"].is_empty());
        let mixed = [
            values(&[("x", Value::Null)], &[]),
            values(&[("x", r(1))], &[]),
        ];
        assert!(Invariants::mine(mixed.iter().map(|v| ("m", v))).methods["m"].is_empty());
        let floats = [
            values(&[("x", Value::Num(0.5))], &[]),
            values(&[("x", Value::Int(2))], &[]),
        ];
        let inv = Invariants::mine(floats.iter().map(|v| ("m", v)));
        assert_eq!(
            inv.violations("m", &values(&[("x", Value::Num(2.5))], &[])),
            ["0.5 <= x <= 2"]
        );
    }
}
