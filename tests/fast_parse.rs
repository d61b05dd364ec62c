//! The fast record parser (`paf::trace::fast`) against serde's: on generated record lines,
//! usual and odd (escapes, unicode, control characters, big and negative numbers, fractions,
//! `null`, missing, repeated, unknown and reordered keys, whitespace, wrong types, truncated
//! lines, trailing bytes), whenever the fast parser takes a line, serde takes it too and gives
//! the same record. Lines it does not take go to serde, so every other line is serde's by
//! construction.

use proptest::prelude::*;

use paf::trace::fast::{parse_bytes, parse_into};
use paf::trace::raw::Record;

/// JSON string literals, plain and odd.
fn string() -> BoxedStrategy<String> {
    prop_oneof![
        6 => "[a-zA-Z0-9.<>$_]{0,10}".prop_map(|s| format!("\"{s}\"")),
        1 => Just("\"caf\u{e9} \u{1F600}\"".to_string()),
        1 => Just(r#""a\"b""#.to_string()),
        1 => Just(r#""\u0062egin""#.to_string()),
        1 => Just(r#""line\nbreak""#.to_string()),
        1 => Just("\"raw\ttab\"".to_string()),
        1 => Just("\"raw\u{1}ctl\"".to_string()),
        1 => Just(r#""\ud83d\ude00""#.to_string()),
        1 => Just("\"\"".to_string()),
        1 => Just("\"del\u{7f}\"".to_string()),
    ]
    .boxed()
}

/// JSON numbers, in range for a `u64` and not.
fn number() -> BoxedStrategy<String> {
    prop_oneof![
        6 => (0u64..5000).prop_map(|n| n.to_string()),
        2 => any::<u64>().prop_map(|n| n.to_string()),
        1 => prop::sample::select(vec![
            "0", "-0", "-1", "01", "00", "1.5", "1e3", "1E2", "0.0", "-7",
            "18446744073709551615", "18446744073709551616", "99999999999999999999",
            "123456789012345678901234", "1e400", "-", "1.", ".5", "+1",
        ])
        .prop_map(str::to_string),
    ]
    .boxed()
}

fn boolean() -> BoxedStrategy<String> {
    prop::sample::select(vec!["true", "false", "tru", "True", "falsey"])
        .prop_map(str::to_string)
        .boxed()
}

/// Any scalar, for a field given the wrong type or an unknown field.
fn scalar() -> BoxedStrategy<String> {
    prop_oneof![string(), number(), boolean(), Just("null".to_string())].boxed()
}

/// Any value, nested a little: what an unknown field may hold.
fn any_value() -> BoxedStrategy<String> {
    scalar()
        .prop_recursive(3, 12, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec(("[a-z]{1,4}", inner), 0..4).prop_map(|m| {
                    let m: Vec<String> = m.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                    format!("{{{}}}", m.join(","))
                }),
            ]
        })
        .boxed()
}

/// A value of the expected type most of the time, else anything.
fn typed(good: BoxedStrategy<String>) -> BoxedStrategy<String> {
    prop_oneof![8 => good, 1 => any_value()].boxed()
}

/// One of `names` as a JSON string, or an odd spelling.
fn variant(names: &'static [&'static str]) -> BoxedStrategy<String> {
    prop_oneof![
        8 => prop::sample::select(names).prop_map(|n| format!("\"{n}\"")),
        1 => Just("\"Begin\"".to_string()),
        1 => Just("\"nope\"".to_string()),
    ]
    .boxed()
}

/// Optional whitespace between tokens (mostly none, as tracers write).
fn ws() -> BoxedStrategy<&'static str> {
    prop_oneof![12 => Just(""), 1 => Just(" "), 1 => Just("\t"), 1 => Just("  ")].boxed()
}

/// An object of the members, with whitespace.
fn object(members: Vec<(String, String)>, spaces: &[&str]) -> String {
    let mut s = String::from("{");
    for (i, (k, v)) in members.iter().enumerate() {
        let w = spaces[i % spaces.len()];
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!("{w}{k}{w}:{v}{w}"));
    }
    s.push('}');
    s
}

fn key(name: &str) -> String {
    format!("\"{name}\"")
}

/// A member of a variable reference.
fn var_member() -> BoxedStrategy<(String, String)> {
    let strings: &'static [&str] = &["local", "field", "static", "name"];
    let numbers: &'static [&str] = &["frame", "obj", "elem", "index", "ret"];
    prop_oneof![
        4 => prop::sample::select(strings).prop_flat_map(|k| (Just(key(k)), typed(string()))),
        4 => prop::sample::select(numbers).prop_flat_map(|k| (Just(key(k)), typed(number()))),
        1 => ("\"[a-z]{1,5}\"", any_value()),
    ]
    .boxed()
}

fn var() -> BoxedStrategy<String> {
    (
        prop::collection::vec(var_member(), 0..4),
        prop::collection::vec(ws(), 1..3),
    )
        .prop_map(|(m, w)| object(m, &w))
        .boxed()
}

fn field_default() -> BoxedStrategy<String> {
    let member = prop_oneof![
        4 => typed(string()).prop_map(|v| (key("field"), v)),
        4 => typed(number()).prop_map(|v| (key("stmt"), v)),
        1 => ("\"[a-z]{1,5}\"", any_value()),
    ];
    prop::collection::vec(member, 0..4)
        .prop_map(|m| object(m, &[""]))
        .boxed()
}

fn array(element: BoxedStrategy<String>) -> BoxedStrategy<String> {
    prop::collection::vec(element, 0..4)
        .prop_map(|v| format!("[{}]", v.join(",")))
        .boxed()
}

fn exception() -> BoxedStrategy<String> {
    let deep = (60usize..70).prop_map(|n| {
        let mut s = String::from(r#"{"type":"E0"}"#);
        for i in 1..n {
            s = format!(r#"{{"type":"E{i}","cause":{s}}}"#);
        }
        s
    });
    prop_oneof![
        4 => Just(r#"{"type":"java.lang.NullPointerException","message":null,"frames":[{"class":"C","method":"m","file":"C.java","line":47}]}"#.to_string()),
        2 => Just(r#"{"type":"E"}"#.to_string()),
        1 => Just(r#"{"type":"E","message":"bad \"quote\"","cause":{"type":"F"}}"#.to_string()),
        1 => Just(r#"{"type":1}"#.to_string()),
        1 => Just(r#"{"message":"m"}"#.to_string()),
        1 => Just("null".to_string()),
        1 => deep,
        1 => any_value(),
    ]
    .boxed()
}

fn values() -> BoxedStrategy<String> {
    prop_oneof![
        Just(r#"{"args":{"rows":0,"cols":-1}}"#.to_string()),
        Just(r#"{"args":{"name":{"length":4}},"fields":{"C.items":{},"C.count":0}}"#.to_string()),
        Just(r#"{"args":{"x":1.5,"y":null,"z":true,"w":18446744073709551615}}"#.to_string()),
        Just(r#"{"args":{"a":1e400}}"#.to_string()),
        Just(r#"{"args":{"a":{"length":-1}}}"#.to_string()),
        Just(r#"{"args":{}}"#.to_string()),
        Just("null".to_string()),
        any_value(),
    ]
    .boxed()
}

/// A member of a record: a known key with a value of (mostly) its type, or an unknown key.
fn record_member() -> BoxedStrategy<(String, String)> {
    let strings: &'static [&str] = &["test", "method", "throw", "callee"];
    let numbers: &'static [&str] = &[
        "events",
        "frame",
        "caller",
        "this",
        "test_line",
        "stmt",
        "obj",
        "length",
    ];
    let bools: &'static [&str] = &["truncated", "callback", "cast", "null"];
    prop_oneof![
        4 => prop::sample::select(strings).prop_flat_map(|k| (Just(key(k)), typed(string()))),
        6 => prop::sample::select(numbers).prop_flat_map(|k| (Just(key(k)), typed(number()))),
        2 => prop::sample::select(bools).prop_flat_map(|k| (Just(key(k)), typed(boolean()))),
        1 => typed(variant(&["pass", "fail"])).prop_map(|v| (key("outcome"), v)),
        1 => typed(variant(&["const", "new", "arith", "call", "param", "other"])).prop_map(|v| (key("how"), v)),
        1 => typed(variant(&["deref", "index", "arg", "value"])).prop_map(|v| (key("role"), v)),
        3 => typed(var()).prop_map(|v| (key("var"), v)),
        2 => typed(var()).prop_map(|v| (key("from"), v)),
        1 => typed(array(var())).prop_map(|v| (key("uses"), v)),
        1 => typed(array(field_default())).prop_map(|v| (key("fields"), v)),
        1 => exception().prop_map(|v| (key("exception"), v)),
        1 => values().prop_map(|v| (key("values"), v)),
        1 => ("\"[a-z_]{1,6}\"", any_value()),
        1 => Just((r#""fr\u0061me""#.to_string(), "1".to_string())),
    ]
    .boxed()
}

/// A whole record line: `k` (usually, anywhere), members, whitespace, and sometimes a
/// truncated line or trailing bytes.
fn record_line() -> impl Strategy<Value = String> {
    let kinds = &[
        "begin", "end", "enter", "exit", "def", "use", "branch", "alloc",
    ];
    (
        prop::option::weighted(0.9, typed(variant(kinds))),
        prop::collection::vec(record_member(), 0..7),
        any::<prop::sample::Index>(),
        prop::collection::vec(ws(), 1..4),
        prop_oneof![
            20 => Just(String::new()),
            1 => Just(" ".to_string()),
            1 => Just("x".to_string()),
            1 => Just(",".to_string()),
            1 => Just("}".to_string()),
            1 => Just("{}".to_string()),
        ],
        prop::option::weighted(0.05, any::<prop::sample::Index>()),
    )
        .prop_map(|(k, mut members, at, spaces, tail, cut)| {
            if let Some(k) = k {
                let i = at.index(members.len() + 1);
                members.insert(i, (key("k"), k));
            }
            let mut line = object(members, &spaces) + &tail;
            if let Some(cut) = cut {
                let mut i = cut.index(line.len() + 1);
                while !line.is_char_boundary(i) {
                    i -= 1;
                }
                line.truncate(i);
            }
            line
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn fast_parse_agrees_with_serde(line in record_line()) {
        let mut fast = Record::default();
        if parse_into(&line, &mut fast) {
            match serde_json::from_str::<Record<'_>>(&line) {
                Ok(serde) => prop_assert_eq!(serde, fast, "line: {}", line),
                Err(e) => prop_assert!(false, "fast took a line serde rejects ({e}): {line}"),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Lines not yet checked to be UTF-8 (the reader's path): with a byte put in that may
    /// break the encoding (inside a string or not), the fast parser takes a line only if it
    /// is UTF-8 and serde gives the same record.
    #[test]
    fn fast_parse_of_bytes_takes_only_utf8(
        line in record_line(),
        at in any::<prop::sample::Index>(),
        byte in prop::sample::select(vec![0x80u8, 0xbf, 0xc3, 0xe2, 0xf0, 0xff, b'a']),
    ) {
        let mut bytes = line.into_bytes();
        let i = at.index(bytes.len() + 1);
        bytes.insert(i, byte);
        let mut fast = Record::default();
        if parse_bytes(&bytes, &mut fast) {
            let text = std::str::from_utf8(&bytes);
            prop_assert!(text.is_ok(), "fast took a line that is not UTF-8: {:?}", bytes);
            match serde_json::from_str::<Record<'_>>(text.unwrap()) {
                Ok(serde) => prop_assert_eq!(serde, fast, "line: {:?}", bytes),
                Err(e) => prop_assert!(false, "fast took a line serde rejects ({e}): {bytes:?}"),
            }
        }
    }
}

/// The generator is not so odd that the fast parser never gets a say: most of its plain
/// lines are taken (a fixed seed: the share is a property of the generator, not luck).
#[test]
fn the_generator_reaches_the_fast_path() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let (mut taken, mut valid) = (0, 0);
    for _ in 0..2000 {
        let line = record_line().new_tree(&mut runner).unwrap().current();
        if serde_json::from_str::<Record<'_>>(&line).is_ok() {
            valid += 1;
            taken += usize::from(parse_into(&line, &mut Record::default()));
        }
    }
    assert!(
        valid > 200,
        "only {valid} of 2000 generated lines are valid records"
    );
    assert!(
        taken > valid / 4,
        "the fast parser took {taken} of {valid} valid lines"
    );
}
