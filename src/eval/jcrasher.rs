//! The JCrasher baseline: its exception filter, as `FilteringTestCase.throwIf` does it in the
//! default (CLASSIC_SPE) mode, applied to a failing test's stack trace.
//!
//! JCrasher trims the stack to the slice between the lowest and the highest frame that is a
//! public method (or constructor) of a public class, looking modifiers up by reflection; a slice
//! of height 0 is suppressed, height 1 reports only `ArrayIndexOutOfBoundsException`,
//! `NegativeArraySizeException`, `ArrayStoreException`, `ClassCastException` and
//! `ArithmeticException`, and a greater height reports any runtime exception. Here the modifiers
//! come from the statement table's optional `access` field; a frame whose class or method the
//! table does not describe (JDK and other uninstrumented code) "may be non-public", the answer
//! JCrasher's own predicate gives when it cannot rule that out, so it is trimmed. Errors, checked
//! and runtime exceptions are told apart by the thrown type's superclass chain
//! ([`super::throwables`]).

use std::collections::{HashMap, HashSet};

use super::throwables::{Chain, Kind};
use crate::trace::{ExceptionInfo, Modifier, StackFrame, StatementTable, Symbols};

/// What the statement table says about one class.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassAccess {
    /// `None` when no statement of the class carries its modifiers.
    pub public: Option<bool>,
    pub superclass: Option<String>,
    /// Methods with known modifiers.
    pub methods: HashSet<String>,
    /// Those of them that are not public (any overload counts, as for JCrasher).
    pub non_public: HashSet<String>,
}

/// Class and method modifiers from a statement table's `access` fields, by class name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccessTable {
    pub classes: HashMap<String, ClassAccess>,
}

impl AccessTable {
    pub fn from_statements(table: &StatementTable, symbols: &Symbols) -> AccessTable {
        let mut classes: HashMap<String, ClassAccess> = HashMap::new();
        for s in table.iter() {
            let Some(access) = &s.access else {
                continue;
            };
            let c = classes
                .entry(symbols.name(s.class).to_string())
                .or_default();
            if let Some(mods) = &access.class {
                c.public = Some(mods.contains(&Modifier::Public));
            }
            if let Some(sup) = &access.superclass {
                c.superclass = Some(sup.clone());
            }
            if let (Some(method), Some(mods)) = (s.method, &access.method) {
                let name = symbols.name(method).to_string();
                if !mods.contains(&Modifier::Public) {
                    c.non_public.insert(name.clone());
                }
                c.methods.insert(name);
            }
        }
        AccessTable { classes }
    }

    /// JCrasher's `mayBeNonPublicPublic`: the frame's class is not public, or (for a method) the
    /// class declares a non-public method of that name. A constructor or static initializer of
    /// a public class counts as public: JCrasher compares a `Constructor`'s name (the class name)
    /// with `<init>`, which never matches, and reflection does not list `<clinit>`. Unknown
    /// modifiers may be non-public.
    pub fn may_be_non_public(&self, frame: &StackFrame) -> bool {
        let Some(class) = self.classes.get(&frame.class) else {
            return true;
        };
        if class.public != Some(true) {
            return true;
        }
        if frame.method == "<init>" || frame.method == "<clinit>" {
            return false;
        }
        class.non_public.contains(&frame.method) || !class.methods.contains(&frame.method)
    }

    /// JCrasher's `callToThisOrSuper`: both frames are constructors and the called one's class
    /// is the calling one's class or one of its superclasses (as far as the table knows them).
    pub fn this_or_super_ctor(&self, called: &StackFrame, calling: &StackFrame) -> bool {
        if called.method != "<init>" || calling.method != "<init>" {
            return false;
        }
        let mut class = calling.class.as_str();
        // A class chain is finite; the bound guards against a table that says otherwise.
        for _ in 0..256 {
            if class == called.class {
                return true;
            }
            match self
                .classes
                .get(class)
                .and_then(|c| c.superclass.as_deref())
            {
                Some(sup) => class = sup,
                None => return false,
            }
        }
        false
    }
}

/// JCrasher's decision on one failing test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Reported as a bug: "no precondition violation", an alarm.
    pub report: bool,
    /// Why, in words.
    pub reason: String,
}

/// JCrasher's `isBugException`: the exceptions the JVM raises for a fault of the throwing code,
/// or their subclasses (`instanceof`), as far as the chain knows them.
fn is_bug_exception(chain: &Chain) -> bool {
    [
        "java.lang.ArrayIndexOutOfBoundsException",
        "java.lang.NegativeArraySizeException",
        "java.lang.ArrayStoreException",
        "java.lang.ClassCastException",
        "java.lang.ArithmeticException",
    ]
    .iter()
    .any(|c| chain.is_a(c))
}

/// JCrasher's `getPublicToPublicSliceHeight` on `frames` (innermost first) with the test
/// method's frame at `test`: the top moves down past frames that may be non-public, then past
/// this/super constructor calls; the bottom (the frame the test called) moves up likewise.
pub fn slice_height(frames: &[StackFrame], test: usize, access: &AccessTable) -> usize {
    let mut top = 0;
    while top < test && access.may_be_non_public(&frames[top]) {
        top += 1;
    }
    while top < test && access.this_or_super_ctor(&frames[top], &frames[top + 1]) {
        top += 1;
    }
    // The test method is at `test`; the frame it called is the first bottom candidate. When the
    // top reached the test method, the height is 0 (bottom = top - 1).
    if top == test {
        return 0;
    }
    let mut bottom = test - 1;
    while bottom > top && access.may_be_non_public(&frames[bottom]) {
        bottom -= 1;
    }
    while bottom > top && access.this_or_super_ctor(&frames[bottom - 1], &frames[bottom]) {
        bottom -= 1;
    }
    bottom - top + 1
}

/// Classifies a failing test by its exception. The stack's last frame is the test method's (the
/// trace format cuts the stack there).
pub fn classify(exception: Option<&ExceptionInfo>, access: &AccessTable) -> Verdict {
    let suppress = |reason: &str| Verdict {
        report: false,
        reason: reason.to_string(),
    };
    let Some(e) = exception else {
        return suppress("no exception recorded");
    };
    let chain = Chain::of(e, access);
    // How the kind was known, when the hierarchy did not know the type.
    let by_name = if chain.complete {
        ""
    } else {
        " (superclass chain unknown: judged by the type's name)"
    };
    match chain.kind() {
        Kind::Checked => {
            return suppress(&format!(
                "a checked exception: JCrasher ignores checked exceptions{by_name}"
            ));
        }
        Kind::Error => {
            return suppress(&format!(
                "an Error: JCrasher hides errors unless asked to show them{by_name}"
            ));
        }
        Kind::Runtime => {}
    }
    if e.frames.len() <= 1 {
        return suppress("thrown by the test method itself (no frame above it)");
    }
    let test = e.frames.len() - 1;
    let (report, reason) = match slice_height(&e.frames, test, access) {
        0 => (
            false,
            "height 0: no public method of a public class between the test and the throw".into(),
        ),
        1 if is_bug_exception(&chain) => (
            true,
            "height 1 and an exception the JVM raises for a faulty method".into(),
        ),
        1 => (
            false,
            "height 1: the public method called directly probably got bad input".into(),
        ),
        h => (
            true,
            format!(
                "height {h}: a public method passed the exception on from another public method"
            ),
        ),
    };
    Verdict {
        report,
        reason: format!("{reason}{by_name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(class: &str, method: &str) -> StackFrame {
        StackFrame {
            class: class.into(),
            method: method.into(),
            file: None,
            line: 1,
        }
    }

    /// A table in which `P` and `Q extends P` are public classes with public `get` and `<init>`
    /// and a private `helper`; `H` is a package-private class.
    fn table() -> AccessTable {
        let public = |sup: &str| ClassAccess {
            public: Some(true),
            superclass: Some(sup.into()),
            methods: ["get", "helper", "<init>"].map(String::from).into(),
            non_public: ["helper"].map(String::from).into(),
        };
        let mut classes = HashMap::new();
        classes.insert("P".to_string(), public("java.lang.Object"));
        classes.insert("Q".to_string(), public("P"));
        classes.insert(
            "H".to_string(),
            ClassAccess {
                public: Some(false),
                superclass: None,
                methods: ["run"].map(String::from).into(),
                non_public: HashSet::new(),
            },
        );
        AccessTable { classes }
    }

    fn exc(kind: &str, frames: &[(&str, &str)]) -> ExceptionInfo {
        let mut frames: Vec<StackFrame> = frames.iter().map(|&(c, m)| frame(c, m)).collect();
        frames.push(frame("T", "test1"));
        ExceptionInfo {
            kind: kind.into(),
            message: None,
            frames,
            ..ExceptionInfo::default()
        }
    }

    const NPE: &str = "java.lang.NullPointerException";
    const AIOOBE: &str = "java.lang.ArrayIndexOutOfBoundsException";

    #[test]
    fn modifiers_decide_what_may_be_non_public() {
        let t = table();
        assert!(!t.may_be_non_public(&frame("P", "get")));
        assert!(t.may_be_non_public(&frame("P", "helper")));
        assert!(t.may_be_non_public(&frame("H", "run")), "class not public");
        assert!(
            t.may_be_non_public(&frame("java.util.HashMap", "get")),
            "unknown"
        );
        assert!(
            t.may_be_non_public(&frame("P", "unknown")),
            "unknown method"
        );
        assert!(!t.may_be_non_public(&frame("P", "<init>")));
        assert!(t.this_or_super_ctor(&frame("P", "<init>"), &frame("Q", "<init>")));
        assert!(!t.this_or_super_ctor(&frame("Q", "<init>"), &frame("P", "<init>")));
        assert!(!t.this_or_super_ctor(&frame("P", "get"), &frame("Q", "<init>")));
    }

    #[test]
    fn heights_by_hand() {
        let t = table();
        // P.helper (private) <- P.get <- test: the top moves past helper; height 1.
        let e = exc(AIOOBE, &[("P", "helper"), ("P", "get")]);
        assert_eq!(slice_height(&e.frames, 2, &t), 1);
        // JDK frame <- P.get <- Q.get <- test: the JDK frame is trimmed; height 2.
        let e = exc(
            NPE,
            &[("java.util.HashMap", "get"), ("P", "get"), ("Q", "get")],
        );
        assert_eq!(slice_height(&e.frames, 3, &t), 2);
        // Only non-public frames: height 0.
        let e = exc(NPE, &[("H", "run"), ("P", "helper")]);
        assert_eq!(slice_height(&e.frames, 2, &t), 0);
        // P.get <- H.run <- test: the bottom moves up past H.run; height 1.
        let e = exc(NPE, &[("P", "get"), ("H", "run")]);
        assert_eq!(slice_height(&e.frames, 2, &t), 1);
        // P.<init> called as super() by Q.<init>, called by the test: the top moves past the
        // super constructor; height 1.
        let e = exc(NPE, &[("P", "<init>"), ("Q", "<init>")]);
        assert_eq!(slice_height(&e.frames, 2, &t), 1);
    }

    #[test]
    fn verdicts_follow_the_classic_mode() {
        let t = table();
        let v = |kind: &str, frames: &[(&str, &str)]| classify(Some(&exc(kind, frames)), &t);
        assert!(
            v(AIOOBE, &[("P", "get")]).report,
            "height 1, a bug exception"
        );
        assert!(!v(NPE, &[("P", "get")]).report, "height 1, an NPE");
        assert!(v(NPE, &[("P", "get"), ("Q", "get")]).report, "height 2");
        assert!(!v(AIOOBE, &[("H", "run")]).report, "height 0");
        assert!(!v("java.lang.AssertionError", &[("P", "get")]).report);
        assert!(!v("java.io.IOException", &[("P", "get"), ("Q", "get")]).report);
        assert!(v("org.app.BadThing", &[("P", "get"), ("Q", "get")]).report);
        assert!(!v(NPE, &[]).report, "thrown by the test method");
        assert!(
            v(NPE, &[("P", "get"), ("Q", "get")])
                .reason
                .starts_with("height 2:")
        );
    }
}
