//! Unit tests of phase 1: replay, crash variables, backtracking and locality, each a trace
//! written as JSON lines and its analysis as text.

use super::*;
use crate::trace::testing::{Read, read};

/// The end record of a passing test.
const PASS: &str = r#"{"k":"end","test":"t","outcome":"pass"}"#;

/// The end record of a test failing with `exception` thrown at line `line` of `C.m`
/// (statement `line` of the test table), called from the test body.
fn fail(exception: &str, line: u32) -> String {
    fail_frames(exception, &[("C", "m", line)])
}

/// Like [`fail`] with a whole stack, innermost first.
fn fail_frames(exception: &str, frames: &[(&str, &str, u32)]) -> String {
    let mut frames: Vec<String> = frames
        .iter()
        .map(|(c, m, l)| format!(r#"{{"class":"{c}","method":"{m}","line":{l}}}"#))
        .collect();
    frames.push(r#"{"class":"CTest","method":"t","line":1}"#.to_string());
    format!(
        r#"{{"k":"end","test":"t","outcome":"fail","exception":{{"type":"{exception}","frames":[{}]}}}}"#,
        frames.join(",")
    )
}

/// Reads one test made of `events` and `end`.
fn trace(events: &str, end: &str) -> Read {
    read(&format!(
        "{{\"k\":\"begin\",\"test\":\"t\"}}\n{events}\n{end}\n"
    ))
}

fn chain(r: &Read, steps: &[Step]) -> String {
    steps
        .iter()
        .map(|s| {
            let def = s.def.map_or("?".to_string(), |d| r.id(d).to_string());
            let kind = match s.kind {
                StepKind::Copy { from, cast } => format!(
                    "{} {}",
                    if cast { "cast" } else { "copy" },
                    from.display(&r.symbols)
                ),
                StepKind::Made { how, callee } => match callee {
                    Some(c) => format!("{} {}", how.as_str(), r.symbols.name(c)),
                    None => how.as_str().to_string(),
                },
                StepKind::Default => "default".to_string(),
                StepKind::Untraced => "untraced".to_string(),
            };
            format!(
                "{def}->{} {} {kind}",
                r.id(s.use_),
                s.var.display(&r.symbols)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A passing test renders as its DUAs (`def->use var`, by statement id); a failing test
/// as its analysis: kind, crash statement, MUT, then one line per crash variable
/// (`var origin t=time locality: chain`), then the fallback if any.
fn render(r: &Read) -> String {
    let test = r.single();
    let replay = match replay(test) {
        Ok(replay) => replay,
        Err(e) => return format!("replay error at event {}: {}", e.event, e.message),
    };
    if test.outcome == crate::trace::Outcome::Pass {
        let mut duas: Vec<String> = replay
            .duas()
            .iter()
            .map(|d| {
                format!(
                    "{}->{} {}",
                    r.id(d.def),
                    r.id(d.use_),
                    d.var.display(&r.symbols)
                )
            })
            .collect();
        duas.sort();
        return duas.join("\n");
    }
    drop(replay);
    let f = match analyze_failure(test, &r.statements, &r.symbols) {
        Ok(f) => f,
        Err(reason) => return format!("unanalyzed: {reason}"),
    };
    let mut out = vec![format!(
        "{:?} crash={} mut={}{}",
        f.kind,
        r.id(f.crash_stmt),
        r.symbols.name(f.mut_method),
        f.contract
            .as_ref()
            .map_or(String::new(), |c| format!(" contract={c}"))
    )];
    for v in &f.vars {
        let origin = match v.origin {
            Origin::Stmt(s) => r.id(s).to_string(),
            Origin::Untraced => "untraced".to_string(),
        };
        let time = v.origin_time.map_or("-".to_string(), |t| t.to_string());
        out.push(format!(
            "{} origin={origin} t={time} {}: {}",
            v.var.display(&r.symbols),
            if v.local { "local" } else { "non-local" },
            chain(r, &v.chain)
        ));
    }
    if f.fallback.is_some() {
        out.push("fallback".to_string());
    }
    out.join("\n")
}

fn check(events: &str, end: &str, expect: &str) {
    let r = trace(events, end);
    let expect: Vec<&str> = expect
        .trim()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    pretty_assertions::assert_eq!(expect.join("\n"), render(&r));
}

// ---- reaching definitions by dynamic identity ----

#[test]
fn same_local_name_in_two_frames() {
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.a"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"how":"const"}
        {"k":"enter","frame":2,"method":"C.b","caller":1}
        {"k":"def","frame":2,"stmt":2,"var":{"local":"x"},"how":"const"}
        {"k":"use","frame":2,"stmt":3,"var":{"local":"x"}}
        {"k":"exit","frame":2}
        {"k":"use","frame":1,"stmt":4,"var":{"local":"x"}}
        {"k":"use","frame":1,"stmt":5,"var":{"local":"x","frame":1}}
        "#,
        PASS,
        "1->4 x
         1->5 x
         2->3 x",
    );
}

#[test]
fn same_field_on_two_objects() {
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.a"}
        {"k":"def","frame":1,"stmt":1,"var":{"field":"C.f","obj":1},"how":"const"}
        {"k":"def","frame":1,"stmt":2,"var":{"field":"C.f","obj":2},"how":"const"}
        {"k":"use","frame":1,"stmt":3,"var":{"field":"C.f","obj":1}}
        {"k":"use","frame":1,"stmt":4,"var":{"field":"C.f","obj":2}}
        {"k":"def","frame":1,"stmt":5,"var":{"field":"C.f","obj":1},"how":"const"}
        {"k":"use","frame":1,"stmt":6,"var":{"field":"C.f","obj":2}}
        {"k":"use","frame":1,"stmt":7,"var":{"field":"C.f","obj":1}}
        "#,
        PASS,
        "1->3 C.f
         2->4 C.f
         2->6 C.f
         5->7 C.f",
    );
}

#[test]
fn array_element_defaults_are_materialised_on_first_read() {
    let events = r#"
        {"k":"enter","frame":1,"method":"C.a"}
        {"k":"alloc","obj":7,"class":"int[]","frame":1,"stmt":1,"length":4}
        {"k":"def","frame":1,"stmt":2,"var":{"elem":7,"index":1,"name":"buf"},"how":"const"}
        {"k":"use","frame":1,"stmt":3,"var":{"elem":7,"index":0,"name":"buf"}}
        {"k":"use","frame":1,"stmt":4,"var":{"elem":7,"index":1,"name":"buf"}}
        {"k":"use","frame":1,"stmt":5,"var":{"elem":7,"index":4,"name":"buf"}}
        "#;
    // Index 4 is out of bounds: no default reaches it.
    check(
        events,
        PASS,
        "1->3 buf[]
         2->4 buf[]",
    );
    let r = trace(events, PASS);
    let replay = replay(r.single()).unwrap();
    // One explicit definition, one default materialised for the read of index 0; none
    // for the three other elements.
    assert_eq!(replay.defs.len(), 2, "{:?}", replay.defs);
}

#[test]
fn return_slot_belongs_to_its_frame() {
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.a"}
        {"k":"enter","frame":2,"method":"C.get","caller":1}
        {"k":"def","frame":2,"stmt":2,"var":{"ret":2},"how":"const"}
        {"k":"exit","frame":2}
        {"k":"def","frame":1,"stmt":3,"var":{"local":"x"},"from":{"ret":2}}
        {"k":"use","frame":1,"stmt":4,"var":{"local":"x"}}
        {"k":"enter","frame":3,"method":"C.get","caller":1}
        {"k":"def","frame":3,"stmt":5,"var":{"ret":3},"how":"const"}
        {"k":"exit","frame":3}
        {"k":"def","frame":1,"stmt":6,"var":{"local":"y"},"from":{"ret":2}}
        "#,
        PASS,
        "2->3 C.get()
         2->6 C.get()
         3->4 x",
    );
}

#[test]
fn copy_from_itself_as_first_definition_is_a_loop() {
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.a"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"from":{"local":"x"}}
        "#,
        PASS,
        "replay error at event 1: copy chain loops: this definition copies from the variable \
         it defines, which has no earlier definition (expected \"from\" to name the real source)",
    );
    // After a real definition, `x = x` is an ordinary copy.
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.a"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"how":"const"}
        {"k":"def","frame":1,"stmt":2,"var":{"local":"x"},"from":{"local":"x"}}
        {"k":"use","frame":1,"stmt":3,"var":{"local":"x"}}
        "#,
        PASS,
        "1->2 x
         2->3 x",
    );
}

// ---- copy-chain backtracking ----

#[test]
fn chain_through_local_field_return_and_cast() {
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"a"},"how":"new"}
        {"k":"def","frame":1,"stmt":2,"var":{"field":"C.f","obj":1},"from":{"local":"a"}}
        {"k":"enter","frame":2,"method":"C.get","caller":1}
        {"k":"def","frame":2,"stmt":3,"var":{"ret":2},"from":{"field":"C.f","obj":1}}
        {"k":"exit","frame":2}
        {"k":"def","frame":1,"stmt":4,"var":{"local":"b"},"from":{"ret":2},"cast":true}
        {"k":"use","frame":1,"stmt":5,"var":{"local":"b"},"role":"deref"}
        {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
        "#,
        &fail("java.lang.NullPointerException", 5),
        "Deref crash=5 mut=C.m
         b origin=1 t=2 local: 1->2 a new; 2->3 C.f copy a; 3->4 C.get() copy C.f; 4->5 b cast C.get()",
    );
}

#[test]
fn chain_stops_at_a_call_into_uninstrumented_code() {
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"e"},"how":"call","callee":"java.util.HashMap.get"}
        {"k":"def","frame":1,"stmt":2,"var":{"local":"x"},"from":{"local":"e"}}
        {"k":"use","frame":1,"stmt":3,"var":{"local":"x"},"role":"deref"}
        {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
        "#,
        &fail("java.lang.NullPointerException", 3),
        "Deref crash=3 mut=C.m
         x origin=1 t=2 local: 1->2 e call java.util.HashMap.get; 2->3 x copy e",
    );
}

#[test]
fn value_defined_before_the_test_is_untraced() {
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"from":{"static":"C.s"}}
        {"k":"use","frame":1,"stmt":2,"var":{"local":"x"},"role":"deref"}
        {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
        "#,
        &fail("java.lang.NullPointerException", 2),
        "Deref crash=2 mut=C.m
         x origin=untraced t=- non-local: ?->1 C.s untraced; 1->2 x copy C.s",
    );
}

// ---- locality ----

#[test]
fn parameter_from_the_test_body_is_not_local() {
    // Counted as made just before the MUT's entry: 2 * 0 - 1.
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"p"},"how":"param"}
        {"k":"use","frame":1,"stmt":2,"var":{"local":"p"},"role":"deref"}
        {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
        "#,
        &fail("java.lang.NullPointerException", 2),
        "Deref crash=2 mut=C.m
         p origin=1 t=-1 non-local: 1->2 p param",
    );
}

#[test]
fn origin_in_an_earlier_call_is_not_local() {
    // The MUT C.m is entered at event 3 (time 6); the origin ran at event 1 (time 2).
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.set"}
        {"k":"def","frame":1,"stmt":1,"var":{"field":"C.f","obj":1},"how":"const"}
        {"k":"exit","frame":1}
        {"k":"enter","frame":2,"method":"C.m"}
        {"k":"use","frame":2,"stmt":4,"var":{"field":"C.f","obj":1},"role":"deref"}
        {"k":"exit","frame":2,"throw":"java.lang.NullPointerException"}
        "#,
        &fail("java.lang.NullPointerException", 4),
        "Deref crash=4 mut=C.m
         C.f origin=1 t=2 non-local: 1->4 C.f const",
    );
}

#[test]
fn field_default_allocated_inside_a_nested_constructor_counts_from_the_outermost() {
    // Allocation at event 2 inside B.<init> (event 1), itself inside D.<init> (event 0).
    check(
        r#"
        {"k":"enter","frame":1,"method":"D.<init>","this":2}
        {"k":"enter","frame":2,"method":"B.<init>","this":2,"caller":1}
        {"k":"alloc","obj":2,"class":"D","frame":2,"fields":[{"field":"B.f","stmt":31}]}
        {"k":"exit","frame":2}
        {"k":"exit","frame":1}
        {"k":"enter","frame":3,"method":"D.m","this":2}
        {"k":"use","frame":3,"stmt":6,"var":{"field":"B.f","obj":2},"role":"deref"}
        {"k":"exit","frame":3,"throw":"java.lang.NullPointerException"}
        "#,
        &fail("java.lang.NullPointerException", 6),
        "Deref crash=6 mut=D.m
         B.f origin=31 t=0 non-local: 31->6 B.f default",
    );
}

#[test]
fn field_default_allocated_before_the_constructor_counts_from_its_entry() {
    // Allocation at event 1 in C.make, constructor entered at event 2: time 4.
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.make"}
        {"k":"alloc","obj":2,"class":"D","frame":1,"fields":[{"field":"D.f","stmt":31}]}
        {"k":"enter","frame":2,"method":"D.<init>","this":2,"caller":1}
        {"k":"exit","frame":2}
        {"k":"exit","frame":1}
        {"k":"enter","frame":3,"method":"D.m","this":2}
        {"k":"use","frame":3,"stmt":6,"var":{"field":"D.f","obj":2},"role":"deref"}
        {"k":"exit","frame":3,"throw":"java.lang.NullPointerException"}
        "#,
        &fail("java.lang.NullPointerException", 6),
        "Deref crash=6 mut=D.m
         D.f origin=31 t=4 non-local: 31->6 D.f default",
    );
}

#[test]
fn field_defaults_of_a_constructor_under_test_are_local() {
    // Allocation recorded before the constructor's entry (event 1, time 2 = MUT start).
    check(
        r#"
        {"k":"alloc","obj":2,"class":"D","fields":[{"field":"D.f","stmt":31}]}
        {"k":"enter","frame":1,"method":"D.<init>","this":2}
        {"k":"use","frame":1,"stmt":3,"var":{"field":"D.f","obj":2},"role":"deref"}
        {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
        "#,
        &fail("java.lang.NullPointerException", 3),
        "Deref crash=3 mut=D.<init>
         D.f origin=31 t=2 local: 31->3 D.f default",
    );
    // Allocation recorded inside it.
    check(
        r#"
        {"k":"enter","frame":1,"method":"D.<init>","this":2}
        {"k":"alloc","obj":2,"class":"D","frame":1,"fields":[{"field":"D.f","stmt":31}]}
        {"k":"use","frame":1,"stmt":3,"var":{"field":"D.f","obj":2},"role":"deref"}
        {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
        "#,
        &fail("java.lang.NullPointerException", 3),
        "Deref crash=3 mut=D.<init>
         D.f origin=31 t=0 local: 31->3 D.f default",
    );
}

#[test]
fn field_defaults_of_a_recycled_object_id_count_from_the_new_constructor() {
    // Object id 1 is reused by a second object (ids are unique among live objects only):
    // its defaults count from its own constructor (event 3), not the first object's.
    check(
        r#"
        {"k":"enter","frame":1,"method":"D.<init>","this":1}
        {"k":"alloc","obj":1,"class":"D","frame":1,"fields":[{"field":"D.f","stmt":31}]}
        {"k":"exit","frame":1}
        {"k":"enter","frame":2,"method":"D.<init>","this":1}
        {"k":"alloc","obj":1,"class":"D","frame":2,"fields":[{"field":"D.f","stmt":31}]}
        {"k":"use","frame":2,"stmt":6,"var":{"field":"D.f","obj":1},"role":"deref"}
        {"k":"exit","frame":2,"throw":"java.lang.NullPointerException"}
        "#,
        &fail("java.lang.NullPointerException", 6),
        "Deref crash=6 mut=D.<init>
         D.f origin=31 t=6 local: 31->6 D.f default",
    );
}

// ---- crash variables by exception kind ----

#[test]
fn array_index_exception_picks_the_index() {
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"i"},"how":"param"}
        {"k":"def","frame":1,"stmt":2,"var":{"local":"a"},"how":"new"}
        {"k":"use","frame":1,"stmt":3,"var":{"local":"a"},"role":"deref"}
        {"k":"use","frame":1,"stmt":3,"var":{"local":"i"},"role":"index"}
        {"k":"exit","frame":1,"throw":"java.lang.ArrayIndexOutOfBoundsException"}
        "#,
        &fail("java.lang.ArrayIndexOutOfBoundsException", 3),
        "Index crash=3 mut=C.m
         i origin=1 t=-1 non-local: 1->3 i param",
    );
}

const BRANCH_EVENTS: &str = r#"
    {"k":"enter","frame":1,"method":"C.m"}
    {"k":"def","frame":1,"stmt":1,"var":{"local":"lo"},"how":"param"}
    {"k":"def","frame":1,"stmt":2,"var":{"local":"hi"},"how":"const"}
    {"k":"branch","frame":1,"stmt":3,"uses":[{"local":"lo"},{"local":"hi"}]}
    {"k":"exit","frame":1,"throw":"X"}
    "#;

#[test]
fn illegal_argument_takes_both_variables_of_the_last_branch() {
    // The throw line 4 has no event: the crash frame's last event (the branch) stands in.
    check(
        BRANCH_EVENTS,
        &fail("java.lang.IllegalArgumentException", 4),
        "Branch crash=3 mut=C.m
         lo origin=1 t=-1 non-local: 1->3 lo param
         hi origin=2 t=4 local: 2->3 hi const",
    );
}

#[test]
fn application_exception_is_analyzed_by_branch() {
    check(
        BRANCH_EVENTS,
        &fail("org.example.BadState", 4),
        "Branch crash=3 mut=C.m
         lo origin=1 t=-1 non-local: 1->3 lo param
         hi origin=2 t=4 local: 2->3 hi const",
    );
}

#[test]
fn unsupported_kinds_and_assertion_failures_are_unanalyzed() {
    check(
        BRANCH_EVENTS,
        &fail("java.util.NoSuchElementException", 4),
        "unanalyzed: unsupported exception kind java.util.NoSuchElementException: paf analyzes \
         NullPointerException, ArrayIndexOutOfBoundsException, IllegalArgumentException, \
         IllegalStateException, IndexOutOfBoundsException, StringIndexOutOfBoundsException, \
         ClassCastException, ArithmeticException, NegativeArraySizeException, \
         NumberFormatException, ArrayStoreException, UnsupportedOperationException, \
         ConcurrentModificationException, StackOverflowError and application exceptions",
    );
    check(
        BRANCH_EVENTS,
        &fail("java.lang.AssertionError", 4),
        "unanalyzed: assertion failure (java.lang.AssertionError): PAF does not analyze \
         assertions, which check post-conditions",
    );
}

const ARG_EVENTS: &str = r#"
    {"k":"enter","frame":1,"method":"C.m"}
    {"k":"def","frame":1,"stmt":1,"var":{"local":"a"},"how":"param"}
    {"k":"def","frame":1,"stmt":2,"var":{"local":"b"},"how":"const"}
    {"k":"use","frame":1,"stmt":3,"var":{"local":"a"},"role":"arg"}
    {"k":"use","frame":1,"stmt":3,"var":{"local":"b"},"role":"arg"NULL}
    {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
    "#;

#[test]
fn exception_in_uninstrumented_callee_falls_back_to_arguments() {
    let end = fail_frames(
        "java.lang.NullPointerException",
        &[("java.util.Objects", "requireNonNull", 200), ("C", "m", 3)],
    );
    // An argument seen to be null is preferred.
    check(
        &ARG_EVENTS.replace("NULL", r#","null":true"#),
        &end,
        "Deref crash=3 mut=C.m
         b origin=2 t=4 local: 2->3 b const
         fallback",
    );
    // Without that knowledge, every argument of the call is a crash variable.
    check(
        &ARG_EVENTS.replace("NULL", ""),
        &end,
        "Deref crash=3 mut=C.m
         a origin=1 t=-1 non-local: 1->3 a param
         b origin=2 t=4 local: 2->3 b const
         fallback",
    );
}

// ---- more exception kinds (issue 12, beyond PAF) ----

/// `C.m(i)` calls `list.get(i)` (statement 3); `ArrayList.get` throws.
const GET_EVENTS: &str = r#"
    {"k":"enter","frame":1,"method":"C.m"}
    {"k":"def","frame":1,"stmt":1,"var":{"local":"i"},"how":"param"}
    {"k":"def","frame":1,"stmt":2,"var":{"local":"list"},"how":"new"}
    {"k":"use","frame":1,"stmt":3,"var":{"local":"list"},"role":"deref"}
    {"k":"use","frame":1,"stmt":3,"var":{"local":"i"},"role":"arg"}
    {"k":"exit","frame":1,"throw":"E"}
    "#;

#[test]
fn index_out_of_bounds_from_a_jdk_call_takes_the_index_argument() {
    // Java 17's stack: Preconditions.outOfBounds ... Objects.checkIndex, ArrayList.get, C.m.
    for e in [
        "java.lang.IndexOutOfBoundsException",
        "java.lang.StringIndexOutOfBoundsException",
    ] {
        let end = fail_frames(
            e,
            &[
                ("jdk.internal.util.Preconditions", "outOfBounds", 64),
                ("java.util.Objects", "checkIndex", 359),
                ("java.util.ArrayList", "get", 427),
                ("C", "m", 3),
            ],
        );
        // The receiver (a deref) is not a crash variable; the index is; no fallback.
        check(
            GET_EVENTS,
            &end,
            "Operand crash=3 mut=C.m
             i origin=1 t=-1 non-local: 1->3 i param",
        );
    }
}

#[test]
fn index_out_of_bounds_with_a_constant_index_is_unanalyzed_with_the_call() {
    // `list.get(0)` on an empty list: the constant index is no variable; only the receiver's
    // dereference is recorded.
    let events = r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":2,"var":{"local":"list"},"how":"new"}
        {"k":"use","frame":1,"stmt":3,"var":{"local":"list"},"role":"deref"}
        {"k":"exit","frame":1,"throw":"java.lang.IndexOutOfBoundsException"}
        "#;
    let end = r#"{"k":"end","test":"t","outcome":"fail","exception":{"type":"java.lang.IndexOutOfBoundsException","frames":[{"class":"java.util.ArrayList","method":"get","line":427},{"class":"C","method":"m","file":"C.java","line":3},{"class":"CTest","method":"t","line":1}]}}"#;
    check(
        events,
        end,
        "unanalyzed: java.lang.IndexOutOfBoundsException raised in java.util.ArrayList.get \
         called at C.java:3 with no variable argument (a constant index, divisor or size): the \
         receiver's state is the cause, which paf does not analyze; look at how the receiver got \
         there",
    );
}

#[test]
fn operand_kinds_from_a_jdk_call_take_every_argument_null_or_not() {
    // `Arrays.copyOf(a, n)` throwing NegativeArraySizeException: both arguments, although
    // `a` is seen to be null (only a NullPointerException prefers null arguments).
    let events = r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"a"},"how":"const"}
        {"k":"def","frame":1,"stmt":2,"var":{"local":"n"},"how":"param"}
        {"k":"use","frame":1,"stmt":3,"var":{"local":"a"},"role":"arg","null":true}
        {"k":"use","frame":1,"stmt":3,"var":{"local":"n"},"role":"arg"}
        {"k":"exit","frame":1,"throw":"java.lang.NegativeArraySizeException"}
        "#;
    let end = fail_frames(
        "java.lang.NegativeArraySizeException",
        &[("java.util.Arrays", "copyOf", 3512), ("C", "m", 3)],
    );
    check(
        events,
        &end,
        "Operand crash=3 mut=C.m
         a origin=1 t=2 local: 1->3 a const
         n origin=2 t=-1 non-local: 2->3 n param",
    );
}

/// `C.m(d)`: `q = n / d` at statement 3 (the tracer records the divisor, role `value`), after
/// an unrelated branch at statement 2.
const DIV_EVENTS: &str = r#"
    {"k":"enter","frame":1,"method":"C.m"}
    {"k":"def","frame":1,"stmt":1,"var":{"local":"d"},"how":"param"}
    {"k":"def","frame":1,"stmt":2,"var":{"local":"n"},"how":"const"}
    {"k":"branch","frame":1,"stmt":2,"uses":[{"local":"n"}]}
    {"k":"use","frame":1,"stmt":3,"var":{"local":"d"}}
    {"k":"exit","frame":1,"throw":"E"}
    "#;

#[test]
fn an_instruction_raising_an_operand_kind_takes_the_recorded_operand() {
    for e in [
        "java.lang.ArithmeticException",
        "java.lang.ClassCastException",
        "java.lang.NegativeArraySizeException",
        // `slots[0] = d` with `d` an Integer and `slots` a String[] (the tracer records the
        // stored value when the store is about to fail)
        "java.lang.ArrayStoreException",
    ] {
        check(
            DIV_EVENTS,
            &fail(e, 3),
            "Operand crash=3 mut=C.m
             d origin=1 t=-1 non-local: 1->3 d param",
        );
    }
}

#[test]
fn an_explicit_throw_of_an_operand_kind_is_analyzed_by_its_branch() {
    // `if (lo > hi) throw new IndexOutOfBoundsException()` (line 4): no operand recorded.
    for e in [
        "java.lang.IndexOutOfBoundsException",
        "java.lang.ArithmeticException",
        "java.lang.NumberFormatException",
    ] {
        check(
            BRANCH_EVENTS,
            &fail(e, 4),
            "Operand crash=3 mut=C.m
             lo origin=1 t=-1 non-local: 1->3 lo param
             hi origin=2 t=4 local: 2->3 hi const
             fallback",
        );
    }
}

#[test]
fn a_cast_or_allocation_with_no_recorded_operand_is_unanalyzed_with_the_line() {
    let end = r#"{"k":"end","test":"t","outcome":"fail","exception":{"type":"java.lang.ClassCastException","frames":[{"class":"C","method":"m","file":"C.java","line":4},{"class":"CTest","method":"t","line":1}]}}"#;
    check(
        BRANCH_EVENTS,
        end,
        "unanalyzed: java.lang.ClassCastException at C.java:4 with no recorded operand: the \
         tracer records a cast's operand, an array size and a value stored into an array only \
         when they are a variable (a local, a static, a captured field, element or call result); \
         look at the cast on that line",
    );
}

#[test]
fn an_array_store_with_no_recorded_value_is_unanalyzed_with_the_line() {
    // `slots[0] = new Integer(1)` (line 4): the stored value is no variable.
    let end = r#"{"k":"end","test":"t","outcome":"fail","exception":{"type":"java.lang.ArrayStoreException","frames":[{"class":"C","method":"m","file":"C.java","line":4},{"class":"CTest","method":"t","line":1}]}}"#;
    check(
        BRANCH_EVENTS,
        end,
        "unanalyzed: java.lang.ArrayStoreException at C.java:4 with no recorded operand: the \
         tracer records a cast's operand, an array size and a value stored into an array only \
         when they are a variable (a local, a static, a captured field, element or call result); \
         look at the array store on that line",
    );
}

#[test]
fn number_format_from_a_jdk_parse_takes_the_parsed_string() {
    // Java 17's stack of `Integer.parseInt(i)`: NumberFormatException.forInputString,
    // Integer.parseInt(String, int), Integer.parseInt(String), C.m.
    let end = fail_frames(
        "java.lang.NumberFormatException",
        &[
            ("java.lang.NumberFormatException", "forInputString", 67),
            ("java.lang.Integer", "parseInt", 668),
            ("java.lang.Integer", "parseInt", 786),
            ("C", "m", 3),
        ],
    );
    check(
        GET_EVENTS,
        &end,
        "Operand crash=3 mut=C.m
         i origin=1 t=-1 non-local: 1->3 i param",
    );
}

#[test]
fn number_format_of_a_literal_is_unanalyzed_with_the_call() {
    // `Integer.parseInt("x")`: no variable argument.
    let events = r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":2,"var":{"local":"n"},"how":"const"}
        {"k":"exit","frame":1,"throw":"java.lang.NumberFormatException"}
        "#;
    let end = r#"{"k":"end","test":"t","outcome":"fail","exception":{"type":"java.lang.NumberFormatException","frames":[{"class":"java.lang.Integer","method":"parseInt","line":668},{"class":"C","method":"m","file":"C.java","line":2},{"class":"CTest","method":"t","line":1}]}}"#;
    check(
        events,
        end,
        "unanalyzed: java.lang.NumberFormatException raised in java.lang.Integer.parseInt called \
         at C.java:2 with no variable argument (a literal string): the code under test parses a \
         constant, which no test input reaches; look at that literal",
    );
}

/// `C.m(x)`: `it = list.iterator()` (statement 1, a call into the JDK), then at statement 3
/// `it.remove(x)`-like call: the receiver `it` (deref) and an argument `x`; the JDK callee
/// throws.
const RECEIVER_EVENTS: &str = r#"
    {"k":"enter","frame":1,"method":"C.m"}
    {"k":"def","frame":1,"stmt":1,"var":{"local":"it"},"how":"call","callee":"java.util.List.iterator"}
    {"k":"def","frame":1,"stmt":2,"var":{"local":"x"},"how":"param"}
    {"k":"branch","frame":1,"stmt":2,"uses":[{"local":"x"}]}
    {"k":"use","frame":1,"stmt":3,"var":{"local":"it"},"role":"deref"}
    {"k":"use","frame":1,"stmt":3,"var":{"local":"x"},"role":"arg"}
    {"k":"exit","frame":1,"throw":"E"}
    "#;

#[test]
fn state_exceptions_raised_in_a_jdk_call_take_its_receiver() {
    for (e, callee) in [
        (
            "java.lang.UnsupportedOperationException",
            "java.util.Collections$UnmodifiableCollection",
        ),
        (
            "java.util.ConcurrentModificationException",
            "java.util.ArrayList$Itr",
        ),
        ("java.lang.IllegalStateException", "java.util.ArrayList$Itr"),
    ] {
        let end = fail_frames(e, &[(callee, "remove", 1000), ("C", "m", 3)]);
        // The receiver, not the argument `x` nor the branch's `x`; no fallback.
        check(
            RECEIVER_EVENTS,
            &end,
            "Receiver crash=3 mut=C.m
             it origin=1 t=2 local: 1->3 it call java.util.List.iterator",
        );
    }
}

#[test]
fn state_exceptions_thrown_by_the_code_under_test_keep_the_branch_rule() {
    // `if (lo > hi) throw new IllegalStateException()` in C.m itself (line 4): PAF's rule.
    for e in [
        "java.lang.IllegalStateException",
        "java.lang.UnsupportedOperationException",
        "java.util.ConcurrentModificationException",
    ] {
        check(
            BRANCH_EVENTS,
            &fail(e, 4),
            "Branch crash=3 mut=C.m
             lo origin=1 t=-1 non-local: 1->3 lo param
             hi origin=2 t=4 local: 2->3 hi const",
        );
    }
}

#[test]
fn a_state_exception_on_an_unnamed_receiver_is_unanalyzed_with_the_call() {
    // `this.add(x)` on a subclass of AbstractList: the receiver `this` is no variable.
    let events = r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":2,"var":{"local":"x"},"how":"param"}
        {"k":"use","frame":1,"stmt":3,"var":{"local":"x"},"role":"arg"}
        {"k":"exit","frame":1,"throw":"java.lang.UnsupportedOperationException"}
        "#;
    let end = r#"{"k":"end","test":"t","outcome":"fail","exception":{"type":"java.lang.UnsupportedOperationException","frames":[{"class":"java.util.AbstractList","method":"add","line":153},{"class":"C","method":"m","file":"C.java","line":3},{"class":"CTest","method":"t","line":1}]}}"#;
    check(
        events,
        end,
        "unanalyzed: java.lang.UnsupportedOperationException raised in java.util.AbstractList.add \
         called at C.java:3 on a receiver the trace does not name (`this`, or an object made on \
         that line): paf takes the receiver of the call as the crash variable; look at how the \
         object called there got its state",
    );
}

/// A `StackOverflowError` stack: `inner` (where the overflow struck, innermost first), then
/// `cycle` repeated `times` times, innermost first.
fn overflow(inner: &[(&str, &str, i64)], cycle: &[(&str, &str, i64)], times: usize) -> String {
    let mut all: Vec<(&str, &str, i64)> = inner.to_vec();
    for _ in 0..times {
        all.extend_from_slice(cycle);
    }
    let frames: Vec<String> = all
        .iter()
        .map(|(c, m, l)| format!(r#"{{"class":"{c}","method":"{m}","line":{l}}}"#))
        .collect();
    format!(
        r#"{{"k":"end","test":"t","outcome":"fail","exception":{{"type":"java.lang.StackOverflowError","frames":[{}]}}}}"#,
        frames.join(",")
    )
}

/// `C.f(n)`: `if (n != 0)` (statement 2) then `f(n)` (statement 3), twice, the second call
/// overflowing in the agent's prologue of the third.
const RECURSION_EVENTS: &str = r#"
    {"k":"enter","frame":1,"method":"C.m"}
    {"k":"def","frame":1,"stmt":1,"var":{"local":"n"},"how":"param"}
    {"k":"branch","frame":1,"stmt":2,"uses":[{"local":"n"}]}
    {"k":"use","frame":1,"stmt":3,"var":{"local":"n"},"role":"arg"}
    {"k":"enter","frame":2,"method":"C.m","caller":1,"site":3}
    {"k":"def","frame":2,"stmt":1,"var":{"local":"n"},"from":{"local":"n","frame":1}}
    {"k":"branch","frame":2,"stmt":2,"uses":[{"local":"n"}]}
    {"k":"use","frame":2,"stmt":3,"var":{"local":"n"},"role":"arg"}
    {"k":"exit","frame":2,"throw":"java.lang.StackOverflowError"}
    {"k":"exit","frame":1,"throw":"java.lang.StackOverflowError"}
    "#;

#[test]
fn a_stack_overflow_takes_the_guard_of_its_recursion() {
    // The guard `n != 0` of the innermost frame of the cycle (frame 2, the latest at line 3):
    // its `n` is a copy of frame 1's, a parameter from the test body.
    let want = "Recursion crash=2 mut=C.m
                n origin=1 t=-1 non-local: 1->1 n param; 1->2 n copy n";
    // Struck in the agent's prologue of the next call (line -1), or in a JDK call the deepest
    // frame made on the recursive call's line: the same analysis.
    for inner in [
        &[("C", "m", -1)][..],
        &[
            ("java.lang.StringBuilder", "append", 100),
            ("java.lang.AbstractStringBuilder", "append", 200),
        ][..],
    ] {
        check(
            RECURSION_EVENTS,
            &overflow(inner, &[("C", "m", 3)], 5),
            want,
        );
    }
}

#[test]
fn a_stack_overflow_struck_outside_its_cycle_is_unanalyzed_naming_both() {
    // The deepest f called h at line 5 (not the recursive call's line 3), and h overflowed.
    check(
        RECURSION_EVENTS,
        &overflow(&[("C", "h", 9), ("C", "m", 5)], &[("C", "m", 3)], 5),
        "unanalyzed: java.lang.StackOverflowError: unbounded recursion through the cycle C.m \
         (line 3) -> C.m (line 3); the overflow struck in C.h (line 9), outside the cycle's \
         recursive calls, so the innermost frame's last branch need not be the recursion's \
         guard; look at the condition that should end the recursion in that cycle",
    );
}

#[test]
fn an_unconditional_recursion_is_unanalyzed_with_the_call() {
    let events = r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"n"},"how":"param"}
        {"k":"use","frame":1,"stmt":3,"var":{"local":"n"},"role":"arg"}
        {"k":"exit","frame":1,"throw":"java.lang.StackOverflowError"}
        "#;
    let end = overflow(&[("C", "m", -1)], &[("C", "m", 3)], 5)
        .replace(r#""line":3"#, r#""file":"C.java","line":3"#);
    check(
        events,
        &end,
        "unanalyzed: java.lang.StackOverflowError: the recursive call at C.java:3 is not under \
         a branch of its frame whose variables the trace names (the recursion is \
         unconditional, or its guard is in another method of the cycle); look at the condition \
         that should end the recursion",
    );
    // No cycle at all.
    check(
        events,
        &overflow(&[("C", "m", 3), ("C", "g", 7)], &[], 0),
        "unanalyzed: java.lang.StackOverflowError with no repeating cycle of frames in the \
         recorded stack; look at the condition that should end the recursion in that cycle",
    );
}

#[test]
fn a_cycle_reads_the_same_wherever_the_overflow_struck() {
    let frames = |spec: &[(&str, &str, i64)], times: usize| -> Vec<crate::trace::StackFrame> {
        let mut all = vec![crate::trace::StackFrame {
            class: "C".into(),
            method: spec[0].1.into(),
            file: None,
            line: -1,
        }];
        for _ in 0..times {
            all.extend(spec.iter().map(|(c, m, l)| crate::trace::StackFrame {
                class: (*c).into(),
                method: (*m).into(),
                file: Some("C.java".into()),
                line: *l,
            }));
        }
        all
    };
    // f (line 3) calls g, g (line 7) calls f: caller first, from the alphabetically first.
    let want = ["C.f (C.java:3)", "C.g (C.java:7)"];
    for spec in [
        &[("C", "g", 7), ("C", "f", 3)][..],
        &[("C", "f", 3), ("C", "g", 7)][..],
    ] {
        let c = super::kinds::cycle(&frames(spec, 4)).expect("a cycle");
        assert_eq!(
            (c.start, c.frames.clone()),
            (1, want.map(String::from).to_vec())
        );
    }
    // Two repetitions are not enough.
    assert!(super::kinds::cycle(&frames(&[("C", "g", 7), ("C", "f", 3)], 2)).is_none());
}

// ---- the method under test ----

#[test]
fn mut_is_the_last_top_level_call_that_threw() {
    // The test body catches C.m's exception, calls C.n (returns normally), then rethrows.
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"how":"const"}
        {"k":"use","frame":1,"stmt":2,"var":{"local":"x"},"role":"deref"}
        {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
        {"k":"enter","frame":2,"method":"C.n"}
        {"k":"exit","frame":2}
        "#,
        &fail("java.lang.NullPointerException", 2),
        "Deref crash=2 mut=C.m
         x origin=1 t=2 local: 1->2 x const",
    );
    // A call without exit (the exception escaped) threw; nested calls are not candidates.
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.a"}
        {"k":"exit","frame":1}
        {"k":"enter","frame":2,"method":"C.b"}
        {"k":"enter","frame":3,"method":"C.inner","caller":2}
        {"k":"def","frame":3,"stmt":1,"var":{"local":"x"},"how":"const"}
        {"k":"use","frame":3,"stmt":2,"var":{"local":"x"},"role":"deref"}
        "#,
        &fail("java.lang.NullPointerException", 2),
        "Deref crash=2 mut=C.b
         x origin=1 t=8 local: 1->2 x const",
    );
}

/// The call a failure's replay takes for the method under test in a test made of `events`,
/// as the index of its `enter` event.
fn mut_of(events: &[String]) -> Option<u32> {
    let r = trace(&events.join("\n"), PASS);
    let test = r.single();
    let mut f = FailureReplay::new(None, false, &r.statements, &r.symbols, false);
    for e in &test.events {
        f.step(e, &r.symbols).expect("replays");
    }
    f.mut_enter()
}

#[test]
fn the_mut_is_the_last_test_body_call_that_did_not_return() {
    const M: &str = r#""method":"C.m""#;
    let enter = |f: u32| format!(r#"{{"k":"enter","frame":{f},{M}}}"#);
    let inner = |f: u32, c: u32| format!(r#"{{"k":"enter","frame":{f},{M},"caller":{c}}}"#);
    let exit = |f: u32| format!(r#"{{"k":"exit","frame":{f}}}"#);
    let threw = |f: u32| format!(r#"{{"k":"exit","frame":{f},"throw":"E"}}"#);
    // Call 1 throws (caught by the test), call 2 returns: the MUT is call 1 (event 0).
    assert_eq!(mut_of(&[enter(1), threw(1), enter(2), exit(2)]), Some(0));
    // Call 2 never exits (the exception escaped to the test body); its callee threw.
    assert_eq!(
        mut_of(&[enter(1), threw(1), enter(2), inner(3, 2), threw(3)]),
        Some(2)
    );
    // Every call returned: no MUT.
    assert_eq!(mut_of(&[enter(1), exit(1)]), None);
}

// ---- what the failure is (issue 11: class initializers, lifecycle methods) ----

#[test]
fn an_initializer_error_is_analyzed_at_its_cause() {
    // The NullPointerException inside the class initializer is the crash; the test sees it
    // wrapped in an ExceptionInInitializerError thrown at the call that triggered it.
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":1,"var":{"static":"C.s"},"how":"const"}
        {"k":"use","frame":1,"stmt":3,"var":{"static":"C.s"},"role":"deref"}
        {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
        "#,
        r#"{"k":"end","test":"t","outcome":"fail","exception":{"type":"java.lang.ExceptionInInitializerError","frames":[{"class":"CTest","method":"t","line":1}],"cause":{"type":"java.lang.NullPointerException","frames":[{"class":"C","method":"m","line":3},{"class":"CTest","method":"t","line":1}]}}}"#,
        "Deref crash=3 mut=C.m
         C.s origin=1 t=2 local: 1->3 C.s const",
    );
}

#[test]
fn an_initializer_error_without_its_cause_is_unanalyzed() {
    check(
        r#"{"k":"enter","frame":1,"method":"C.m"}"#,
        &fail("java.lang.ExceptionInInitializerError", 1),
        "unanalyzed: unsupported exception kind java.lang.ExceptionInInitializerError: paf \
         analyzes NullPointerException, ArrayIndexOutOfBoundsException, IllegalArgumentException, \
         IllegalStateException, IndexOutOfBoundsException, StringIndexOutOfBoundsException, \
         ClassCastException, ArithmeticException, NegativeArraySizeException, \
         NumberFormatException, ArrayStoreException, UnsupportedOperationException, \
         ConcurrentModificationException, StackOverflowError and application exceptions",
    );
}

#[test]
fn a_failure_of_a_lifecycle_method_alone_is_unanalyzed_with_its_phase() {
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"how":"const"}
        {"k":"use","frame":1,"stmt":3,"var":{"local":"x"},"role":"deref"}
        {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
        "#,
        r#"{"k":"end","test":"t","outcome":"fail","exception":{"type":"java.lang.NullPointerException","phase":"after","frames":[{"class":"C","method":"m","line":3}]}}"#,
        "unanalyzed: lifecycle failure: java.lang.NullPointerException failed in @After \
         (tearDown), not in the test method; PAF analyzes failures of the test method",
    );
}

#[test]
fn the_test_methods_failure_is_analyzed_beside_a_lifecycle_failure() {
    // `phase: test` (or none) is the test method's; the @After failure rides along in
    // `lifecycle`, which the analysis does not read.
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.m"}
        {"k":"def","frame":1,"stmt":1,"var":{"local":"x"},"how":"const"}
        {"k":"use","frame":1,"stmt":3,"var":{"local":"x"},"role":"deref"}
        {"k":"exit","frame":1,"throw":"java.lang.NullPointerException"}
        "#,
        r#"{"k":"end","test":"t","outcome":"fail","exception":{"type":"java.lang.NullPointerException","phase":"test","frames":[{"class":"C","method":"m","line":3}]},"lifecycle":[{"type":"java.lang.IllegalStateException","phase":"after","frames":[]}]}"#,
        "Deref crash=3 mut=C.m
         x origin=1 t=2 local: 1->3 x const",
    );
}

// ---- failures raised in the test body (issue 12) ----

/// The end record of a test failing with `exception` (and `message`) raised in `frames`
/// (innermost first, uninstrumented), above the test method `CTest.t` at line `line`.
fn fail_in_body(exception: &str, message: &str, frames: &[(&str, &str)], line: u32) -> String {
    let mut frames: Vec<String> = frames
        .iter()
        .map(|(c, m)| format!(r#"{{"class":"{c}","method":"{m}","line":10}}"#))
        .collect();
    frames.push(format!(r#"{{"class":"CTest","method":"t","line":{line}}}"#));
    format!(
        r#"{{"k":"end","test":"t","outcome":"fail","exception":{{"type":"{exception}","message":"{message}","frames":[{}]}}}}"#,
        frames.join(",")
    )
}

const ASSERT: &[(&str, &str)] = &[
    ("org.junit.Assert", "fail"),
    ("org.junit.Assert", "assertTrue"),
];

#[test]
fn a_contract_check_traces_the_values_equals_and_hash_code_were_made_from() {
    // c1 = new C(..) (line 3), c2 = new C(..) (line 4), then line 5 checks
    // `c1.equals(c2) ? c1.hashCode() == c2.hashCode() : true`. equals returns a constant chosen
    // by the branch on c1.x and c2.x (statement 10); each hashCode computes from its x (20).
    // Both x come from the constructor's parameter (30, copied at 31), before line 5 began:
    // non-local. The two objects' uses at 10 (and at 20) share (use, variable, origin): one
    // crash variable each.
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.<init>","this":1,"test_line":3}
        {"k":"def","frame":1,"stmt":30,"var":{"local":"v"},"how":"param"}
        {"k":"def","frame":1,"stmt":31,"var":{"field":"C.x","obj":1},"from":{"local":"v"}}
        {"k":"exit","frame":1}
        {"k":"enter","frame":2,"method":"C.<init>","this":2,"test_line":4}
        {"k":"def","frame":2,"stmt":30,"var":{"local":"v"},"how":"param"}
        {"k":"def","frame":2,"stmt":31,"var":{"field":"C.x","obj":2},"from":{"local":"v"}}
        {"k":"exit","frame":2}
        {"k":"enter","frame":3,"method":"C.equals","this":1,"test_line":5}
        {"k":"branch","frame":3,"stmt":10,"uses":[{"field":"C.x","obj":1},{"field":"C.x","obj":2}]}
        {"k":"def","frame":3,"stmt":11,"var":{"local":"$5"},"how":"const"}
        {"k":"def","frame":3,"stmt":12,"var":{"ret":3},"from":{"local":"$5"}}
        {"k":"exit","frame":3}
        {"k":"enter","frame":4,"method":"C.hashCode","this":1,"test_line":5}
        {"k":"use","frame":4,"stmt":20,"var":{"field":"C.x","obj":1},"role":"arg"}
        {"k":"def","frame":4,"stmt":21,"var":{"ret":4},"how":"arith"}
        {"k":"exit","frame":4}
        {"k":"enter","frame":5,"method":"C.hashCode","this":2,"test_line":5}
        {"k":"use","frame":5,"stmt":20,"var":{"field":"C.x","obj":2},"role":"arg"}
        {"k":"def","frame":5,"stmt":21,"var":{"ret":5},"how":"arith"}
        {"k":"exit","frame":5}
        "#,
        &fail_in_body(
            "java.lang.AssertionError",
            "Contract failed: equals-hashcode on c1 and c2",
            ASSERT,
            5,
        ),
        "
        Returned crash=10 mut=C.equals contract=equals-hashcode
        C.x origin=30 t=-1 non-local: 30->31 v param; 31->10 C.x copy v
        C.x origin=30 t=-1 non-local: 30->31 v param; 31->20 C.x copy v
        ",
    );
}

#[test]
fn a_regression_assertion_on_an_earlier_lines_result_uses_that_line_as_a_fallback() {
    // Line 2 builds c (n = 0 at 42), line 3 stores c.size() (a copy of n: `return n` at 41),
    // line 4 asserts on the stored value and calls nothing: the nearest earlier line's call.
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.<init>","this":1,"test_line":2}
        {"k":"def","frame":1,"stmt":42,"var":{"field":"C.n","obj":1},"how":"const"}
        {"k":"exit","frame":1}
        {"k":"enter","frame":2,"method":"C.size","this":1,"test_line":3}
        {"k":"def","frame":2,"stmt":41,"var":{"ret":2},"from":{"field":"C.n","obj":1}}
        {"k":"exit","frame":2}
        "#,
        &fail_in_body("java.lang.AssertionError", "expected 1", ASSERT, 4),
        "
        Returned crash=41 mut=C.size
        C.n origin=42 t=2 non-local: 42->41 C.n const
        fallback
        ",
    );
}

#[test]
fn a_jdk_call_in_the_test_body_gets_the_value_the_code_under_test_returned_to_it() {
    // Line 3: `Objects.requireNonNull(c.get())`; get returns a constant null it made itself
    // with no operand (statement 50), inside the checked call: local.
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.get","test_line":3}
        {"k":"def","frame":1,"stmt":50,"var":{"ret":1},"how":"const"}
        {"k":"exit","frame":1}
        "#,
        &fail_in_body(
            "java.lang.NullPointerException",
            "",
            &[("java.util.Objects", "requireNonNull")],
            3,
        ),
        "
        Returned crash=50 mut=C.get
        C.get() origin=50 t=2 local: 50->50 C.get() const
        ",
    );
}

#[test]
fn a_failure_in_the_test_body_after_no_returned_value_is_unanalyzed_with_its_reason() {
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.run","test_line":3}
        {"k":"exit","frame":1}
        "#,
        &fail_in_body("java.lang.AssertionError", "", ASSERT, 4),
        "unanalyzed: java.lang.AssertionError raised in the test body at ?:4 after no call into \
         the code under test returned a value: no value of the code under test reaches the \
         failing line (look at the test's own values there)",
    );
}

#[test]
fn a_regression_assertion_is_analyzed_at_the_line_that_stored_the_value_it_reads() {
    // As Randoop writes them: line 3 stores `int n3 = c.size()`, line 4 another call's result,
    // and the assertion on line 5 reads n3: the tracer's `read_lines` (from the test class's
    // bytecode) names line 3, so size is the checked call, not line 4's `other`.
    let end = fail_in_body("java.lang.AssertionError", "'1' != '0'", ASSERT, 5)
        .replace(r#""frames":"#, r#""read_lines":[3],"frames":"#);
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.<init>","this":1,"test_line":2}
        {"k":"def","frame":1,"stmt":42,"var":{"field":"C.n","obj":1},"how":"const"}
        {"k":"exit","frame":1}
        {"k":"enter","frame":2,"method":"C.size","this":1,"test_line":3}
        {"k":"def","frame":2,"stmt":41,"var":{"ret":2},"from":{"field":"C.n","obj":1}}
        {"k":"exit","frame":2}
        {"k":"enter","frame":3,"method":"C.other","this":1,"test_line":4}
        {"k":"def","frame":3,"stmt":60,"var":{"ret":3},"how":"const"}
        {"k":"exit","frame":3}
        "#,
        &end,
        "
        Returned crash=41 mut=C.size
        C.n origin=42 t=2 non-local: 42->41 C.n const
        ",
    );
}

#[test]
fn callbacks_of_a_jdk_method_are_checked_only_when_the_line_calls_no_code_under_test() {
    // Line 4: `m.equals(n) ? m.hashCode() == n.hashCode() : true` where equals is the JDK's
    // (`AbstractMap.equals`), which calls back `entrySet()` (`callback`); hashCode is a direct
    // call: the checked call. A call with no line (another thread) is skipped.
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.entrySet","this":1,"test_line":4,"callback":true}
        {"k":"def","frame":1,"stmt":70,"var":{"ret":1},"how":"new"}
        {"k":"exit","frame":1}
        {"k":"enter","frame":2,"method":"C.hashCode","this":1,"test_line":4}
        {"k":"def","frame":2,"stmt":71,"var":{"ret":2},"how":"const"}
        {"k":"exit","frame":2}
        {"k":"enter","frame":3,"method":"C.entrySet","this":1}
        {"k":"def","frame":3,"stmt":70,"var":{"ret":3},"how":"new"}
        {"k":"exit","frame":3}
        "#,
        &fail_in_body("java.lang.AssertionError", "", ASSERT, 4),
        "
        Returned crash=71 mut=C.hashCode
        C.hashCode() origin=71 t=8 local: 71->71 C.hashCode() const
        ",
    );
    // `list.equals(c) == c.equals(list)` with both equals the JDK's: the callbacks are checked.
    check(
        r#"
        {"k":"enter","frame":1,"method":"C.size","this":1,"test_line":4,"callback":true}
        {"k":"def","frame":1,"stmt":72,"var":{"ret":1},"how":"const"}
        {"k":"exit","frame":1}
        "#,
        &fail_in_body(
            "java.lang.AssertionError",
            "Contract failed: equals-symmetric on a and c.",
            ASSERT,
            4,
        ),
        "
        Returned crash=72 mut=C.size contract=equals-symmetric
        C.size() origin=72 t=2 local: 72->72 C.size() const
        ",
    );
}
