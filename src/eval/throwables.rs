//! Superclass chains of thrown types, for JCrasher's split of errors, checked and runtime
//! exceptions and its "bug exceptions" (matched by subclass, as `instanceof` does). A chain
//! comes from, in order: the `superclasses` the tracer recorded with the exception; for each
//! class, the statement table's `superclass` (instrumented application classes); a built-in
//! table of the JDK's (and JUnit's) throwables. When none of them knows a class, the chain is
//! incomplete and the type's name decides (as JCrasher's baseline did before the hierarchy).

use super::jcrasher::AccessTable;
use crate::trace::ExceptionInfo;

/// What kind of throwable a type is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A subclass of `java.lang.Error`.
    Error,
    /// A subclass of `java.lang.Throwable` that is neither an error nor a runtime exception.
    Checked,
    /// A subclass of `java.lang.RuntimeException`.
    Runtime,
}

/// Direct superclasses of the JDK's and JUnit's throwables that generated tests meet (binary
/// names). Sorted by class name, so it can be searched.
const JDK: &[(&str, &str)] = &[
    ("java.io.CharConversionException", "java.io.IOException"),
    ("java.io.EOFException", "java.io.IOException"),
    ("java.io.FileNotFoundException", "java.io.IOException"),
    ("java.io.IOError", "java.lang.Error"),
    ("java.io.IOException", "java.lang.Exception"),
    ("java.io.InterruptedIOException", "java.io.IOException"),
    (
        "java.io.InvalidClassException",
        "java.io.ObjectStreamException",
    ),
    (
        "java.io.InvalidObjectException",
        "java.io.ObjectStreamException",
    ),
    (
        "java.io.NotSerializableException",
        "java.io.ObjectStreamException",
    ),
    ("java.io.ObjectStreamException", "java.io.IOException"),
    (
        "java.io.OptionalDataException",
        "java.io.ObjectStreamException",
    ),
    (
        "java.io.StreamCorruptedException",
        "java.io.ObjectStreamException",
    ),
    ("java.io.UTFDataFormatException", "java.io.IOException"),
    ("java.io.UncheckedIOException", "java.lang.RuntimeException"),
    (
        "java.io.UnsupportedEncodingException",
        "java.io.IOException",
    ),
    (
        "java.lang.AbstractMethodError",
        "java.lang.IncompatibleClassChangeError",
    ),
    (
        "java.lang.ArithmeticException",
        "java.lang.RuntimeException",
    ),
    (
        "java.lang.ArrayIndexOutOfBoundsException",
        "java.lang.IndexOutOfBoundsException",
    ),
    (
        "java.lang.ArrayStoreException",
        "java.lang.RuntimeException",
    ),
    ("java.lang.AssertionError", "java.lang.Error"),
    ("java.lang.BootstrapMethodError", "java.lang.LinkageError"),
    ("java.lang.ClassCastException", "java.lang.RuntimeException"),
    ("java.lang.ClassCircularityError", "java.lang.LinkageError"),
    ("java.lang.ClassFormatError", "java.lang.LinkageError"),
    (
        "java.lang.ClassNotFoundException",
        "java.lang.ReflectiveOperationException",
    ),
    (
        "java.lang.CloneNotSupportedException",
        "java.lang.Exception",
    ),
    (
        "java.lang.EnumConstantNotPresentException",
        "java.lang.RuntimeException",
    ),
    ("java.lang.Error", "java.lang.Throwable"),
    ("java.lang.Exception", "java.lang.Throwable"),
    (
        "java.lang.ExceptionInInitializerError",
        "java.lang.LinkageError",
    ),
    (
        "java.lang.IllegalAccessError",
        "java.lang.IncompatibleClassChangeError",
    ),
    (
        "java.lang.IllegalAccessException",
        "java.lang.ReflectiveOperationException",
    ),
    (
        "java.lang.IllegalArgumentException",
        "java.lang.RuntimeException",
    ),
    (
        "java.lang.IllegalCallerException",
        "java.lang.RuntimeException",
    ),
    (
        "java.lang.IllegalMonitorStateException",
        "java.lang.RuntimeException",
    ),
    (
        "java.lang.IllegalStateException",
        "java.lang.RuntimeException",
    ),
    (
        "java.lang.IllegalThreadStateException",
        "java.lang.IllegalArgumentException",
    ),
    (
        "java.lang.IncompatibleClassChangeError",
        "java.lang.LinkageError",
    ),
    (
        "java.lang.IndexOutOfBoundsException",
        "java.lang.RuntimeException",
    ),
    (
        "java.lang.InstantiationError",
        "java.lang.IncompatibleClassChangeError",
    ),
    (
        "java.lang.InstantiationException",
        "java.lang.ReflectiveOperationException",
    ),
    ("java.lang.InternalError", "java.lang.VirtualMachineError"),
    ("java.lang.InterruptedException", "java.lang.Exception"),
    ("java.lang.LinkageError", "java.lang.Error"),
    (
        "java.lang.NegativeArraySizeException",
        "java.lang.RuntimeException",
    ),
    ("java.lang.NoClassDefFoundError", "java.lang.LinkageError"),
    (
        "java.lang.NoSuchFieldError",
        "java.lang.IncompatibleClassChangeError",
    ),
    (
        "java.lang.NoSuchFieldException",
        "java.lang.ReflectiveOperationException",
    ),
    (
        "java.lang.NoSuchMethodError",
        "java.lang.IncompatibleClassChangeError",
    ),
    (
        "java.lang.NoSuchMethodException",
        "java.lang.ReflectiveOperationException",
    ),
    (
        "java.lang.NullPointerException",
        "java.lang.RuntimeException",
    ),
    (
        "java.lang.NumberFormatException",
        "java.lang.IllegalArgumentException",
    ),
    (
        "java.lang.OutOfMemoryError",
        "java.lang.VirtualMachineError",
    ),
    (
        "java.lang.ReflectiveOperationException",
        "java.lang.Exception",
    ),
    ("java.lang.RuntimeException", "java.lang.Exception"),
    ("java.lang.SecurityException", "java.lang.RuntimeException"),
    (
        "java.lang.StackOverflowError",
        "java.lang.VirtualMachineError",
    ),
    (
        "java.lang.StringIndexOutOfBoundsException",
        "java.lang.IndexOutOfBoundsException",
    ),
    ("java.lang.ThreadDeath", "java.lang.Error"),
    ("java.lang.Throwable", "java.lang.Object"),
    (
        "java.lang.TypeNotPresentException",
        "java.lang.RuntimeException",
    ),
    ("java.lang.UnknownError", "java.lang.VirtualMachineError"),
    ("java.lang.UnsatisfiedLinkError", "java.lang.LinkageError"),
    (
        "java.lang.UnsupportedOperationException",
        "java.lang.RuntimeException",
    ),
    ("java.lang.VerifyError", "java.lang.LinkageError"),
    ("java.lang.VirtualMachineError", "java.lang.Error"),
    (
        "java.lang.invoke.WrongMethodTypeException",
        "java.lang.RuntimeException",
    ),
    (
        "java.lang.reflect.InvocationTargetException",
        "java.lang.ReflectiveOperationException",
    ),
    (
        "java.lang.reflect.MalformedParametersException",
        "java.lang.RuntimeException",
    ),
    (
        "java.lang.reflect.UndeclaredThrowableException",
        "java.lang.RuntimeException",
    ),
    ("java.net.MalformedURLException", "java.io.IOException"),
    ("java.net.SocketException", "java.io.IOException"),
    ("java.net.URISyntaxException", "java.lang.Exception"),
    ("java.net.UnknownHostException", "java.io.IOException"),
    (
        "java.nio.BufferOverflowException",
        "java.lang.RuntimeException",
    ),
    (
        "java.nio.BufferUnderflowException",
        "java.lang.RuntimeException",
    ),
    (
        "java.nio.ReadOnlyBufferException",
        "java.lang.UnsupportedOperationException",
    ),
    (
        "java.nio.charset.CharacterCodingException",
        "java.io.IOException",
    ),
    (
        "java.nio.charset.IllegalCharsetNameException",
        "java.lang.IllegalArgumentException",
    ),
    (
        "java.nio.charset.UnsupportedCharsetException",
        "java.lang.IllegalArgumentException",
    ),
    ("java.nio.file.FileSystemException", "java.io.IOException"),
    (
        "java.nio.file.InvalidPathException",
        "java.lang.IllegalArgumentException",
    ),
    (
        "java.nio.file.NoSuchFileException",
        "java.nio.file.FileSystemException",
    ),
    (
        "java.security.GeneralSecurityException",
        "java.lang.Exception",
    ),
    (
        "java.security.InvalidParameterException",
        "java.lang.IllegalArgumentException",
    ),
    (
        "java.security.NoSuchAlgorithmException",
        "java.security.GeneralSecurityException",
    ),
    ("java.sql.SQLException", "java.lang.Exception"),
    ("java.text.ParseException", "java.lang.Exception"),
    ("java.time.DateTimeException", "java.lang.RuntimeException"),
    (
        "java.time.format.DateTimeParseException",
        "java.time.DateTimeException",
    ),
    (
        "java.time.temporal.UnsupportedTemporalTypeException",
        "java.time.DateTimeException",
    ),
    (
        "java.time.zone.ZoneRulesException",
        "java.time.DateTimeException",
    ),
    (
        "java.util.ConcurrentModificationException",
        "java.lang.RuntimeException",
    ),
    (
        "java.util.DuplicateFormatFlagsException",
        "java.util.IllegalFormatException",
    ),
    (
        "java.util.EmptyStackException",
        "java.lang.RuntimeException",
    ),
    (
        "java.util.FormatFlagsConversionMismatchException",
        "java.util.IllegalFormatException",
    ),
    (
        "java.util.FormatterClosedException",
        "java.lang.IllegalStateException",
    ),
    (
        "java.util.IllegalFormatCodePointException",
        "java.util.IllegalFormatException",
    ),
    (
        "java.util.IllegalFormatConversionException",
        "java.util.IllegalFormatException",
    ),
    (
        "java.util.IllegalFormatException",
        "java.lang.IllegalArgumentException",
    ),
    (
        "java.util.IllegalFormatFlagsException",
        "java.util.IllegalFormatException",
    ),
    (
        "java.util.IllegalFormatPrecisionException",
        "java.util.IllegalFormatException",
    ),
    (
        "java.util.IllegalFormatWidthException",
        "java.util.IllegalFormatException",
    ),
    (
        "java.util.IllformedLocaleException",
        "java.lang.RuntimeException",
    ),
    (
        "java.util.InputMismatchException",
        "java.util.NoSuchElementException",
    ),
    (
        "java.util.MissingFormatArgumentException",
        "java.util.IllegalFormatException",
    ),
    (
        "java.util.MissingFormatWidthException",
        "java.util.IllegalFormatException",
    ),
    (
        "java.util.MissingResourceException",
        "java.lang.RuntimeException",
    ),
    (
        "java.util.NoSuchElementException",
        "java.lang.RuntimeException",
    ),
    ("java.util.ServiceConfigurationError", "java.lang.Error"),
    ("java.util.TooManyListenersException", "java.lang.Exception"),
    (
        "java.util.UnknownFormatConversionException",
        "java.util.IllegalFormatException",
    ),
    (
        "java.util.UnknownFormatFlagsException",
        "java.util.IllegalFormatException",
    ),
    (
        "java.util.concurrent.BrokenBarrierException",
        "java.lang.Exception",
    ),
    (
        "java.util.concurrent.CancellationException",
        "java.lang.IllegalStateException",
    ),
    (
        "java.util.concurrent.CompletionException",
        "java.lang.RuntimeException",
    ),
    (
        "java.util.concurrent.ExecutionException",
        "java.lang.Exception",
    ),
    (
        "java.util.concurrent.RejectedExecutionException",
        "java.lang.RuntimeException",
    ),
    (
        "java.util.concurrent.TimeoutException",
        "java.lang.Exception",
    ),
    (
        "java.util.regex.PatternSyntaxException",
        "java.lang.IllegalArgumentException",
    ),
    ("java.util.zip.DataFormatException", "java.lang.Exception"),
    ("java.util.zip.ZipException", "java.io.IOException"),
    (
        "junit.framework.AssertionFailedError",
        "java.lang.AssertionError",
    ),
    (
        "junit.framework.ComparisonFailure",
        "junit.framework.AssertionFailedError",
    ),
    ("org.junit.ComparisonFailure", "java.lang.AssertionError"),
    (
        "org.junit.internal.ArrayComparisonFailure",
        "java.lang.AssertionError",
    ),
    (
        "org.opentest4j.AssertionFailedError",
        "java.lang.AssertionError",
    ),
];

/// The JDK table's superclass of `class`.
fn jdk_superclass(class: &str) -> Option<&'static str> {
    JDK.binary_search_by(|(c, _)| (*c).cmp(class))
        .ok()
        .map(|i| JDK[i].1)
}

/// The superclass chain of a thrown type, nearest first, and whether it reaches
/// `java.lang.Throwable`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain {
    /// The type itself, then its superclasses as far as they are known.
    pub classes: Vec<String>,
    pub complete: bool,
    /// Where the chain came from: `recorded` (the trace), `table` (the statement table and the
    /// built-in table), or `name` (nothing knew the type).
    pub source: &'static str,
}

impl Chain {
    /// The chain of `exception`'s type.
    pub fn of(exception: &ExceptionInfo, access: &AccessTable) -> Chain {
        if let Some(recorded) = &exception.superclasses {
            let mut classes = vec![exception.kind.clone()];
            classes.extend(recorded.iter().cloned());
            let complete = classes.iter().any(|c| c == "java.lang.Throwable");
            return Chain {
                classes,
                complete,
                source: "recorded",
            };
        }
        let mut classes = vec![exception.kind.clone()];
        // A class chain is finite; the bound guards against a table that loops.
        for _ in 0..64 {
            let last = classes.last().map_or("", String::as_str);
            if last == "java.lang.Throwable" {
                break;
            }
            let next = access
                .classes
                .get(last)
                .and_then(|c| c.superclass.clone())
                .or_else(|| jdk_superclass(last).map(str::to_string));
            match next {
                Some(sup) if sup != "java.lang.Object" => classes.push(sup),
                _ => break,
            }
        }
        let complete = classes.last().is_some_and(|c| c == "java.lang.Throwable");
        let source = if complete || classes.len() > 1 {
            "table"
        } else {
            "name"
        };
        Chain {
            classes,
            complete,
            source,
        }
    }

    /// Whether the type is `class` or a subclass of it (as far as the chain is known).
    pub fn is_a(&self, class: &str) -> bool {
        self.classes.iter().any(|c| c == class)
    }

    /// The kind of throwable; for an incomplete chain, decided by the names: `...Error` is an
    /// error, a type under `java.io`, `java.net` or `java.sql`, or named `Exception` or
    /// `Throwable`, checked, anything else (application exceptions) unchecked.
    pub fn kind(&self) -> Kind {
        if self.is_a("java.lang.Error") {
            Kind::Error
        } else if self.is_a("java.lang.RuntimeException") {
            Kind::Runtime
        } else if self.complete {
            Kind::Checked
        } else {
            let last = self.classes.last().map_or("", String::as_str);
            let simple = last.rsplit('.').next().unwrap_or(last);
            if simple.ends_with("Error") {
                Kind::Error
            } else if ["java.io.", "java.net.", "java.sql."]
                .iter()
                .any(|p| last.starts_with(p))
                || ["Exception", "Throwable"].contains(&simple)
            {
                Kind::Checked
            } else {
                Kind::Runtime
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::jcrasher::ClassAccess;

    fn exception(kind: &str, superclasses: Option<&[&str]>) -> ExceptionInfo {
        ExceptionInfo {
            kind: kind.into(),
            message: None,
            frames: Vec::new(),
            superclasses: superclasses.map(|s| s.iter().map(|c| c.to_string()).collect()),
            ..ExceptionInfo::default()
        }
    }

    #[test]
    fn the_jdk_table_is_sorted_and_reaches_throwable() {
        assert!(JDK.windows(2).all(|w| w[0].0 < w[1].0), "not sorted");
        let none = AccessTable::default();
        for (class, _) in JDK {
            let chain = Chain::of(&exception(class, None), &none);
            assert!(chain.complete, "{class}: {:?}", chain.classes);
        }
    }

    #[test]
    fn kinds_by_hierarchy() {
        let none = AccessTable::default();
        let kind = |t: &str| Chain::of(&exception(t, None), &none).kind();
        assert_eq!(
            kind("java.lang.ArrayIndexOutOfBoundsException"),
            Kind::Runtime
        );
        assert_eq!(kind("java.io.UncheckedIOException"), Kind::Runtime);
        assert_eq!(kind("java.net.URISyntaxException"), Kind::Checked);
        assert_eq!(kind("junit.framework.ComparisonFailure"), Kind::Error);
        assert_eq!(kind("java.lang.ExceptionInInitializerError"), Kind::Error);
        // A subclass of a bug exception is one, as for instanceof.
        let aioobe = Chain::of(
            &exception("java.lang.ArrayIndexOutOfBoundsException", None),
            &none,
        );
        assert!(aioobe.is_a("java.lang.IndexOutOfBoundsException"));
        // Unknown: by name.
        assert_eq!(kind("org.app.Broken"), Kind::Runtime);
        assert_eq!(kind("org.app.BadError"), Kind::Error);
        assert_eq!(
            Chain::of(&exception("org.app.Broken", None), &none).source,
            "name"
        );
    }

    #[test]
    fn application_exceptions_by_the_statement_table_or_the_record() {
        // org.app.Checked extends org.app.Base extends java.lang.Exception, known from the
        // statement table: checked, although its name says nothing.
        let mut access = AccessTable::default();
        for (class, sup) in [
            ("org.app.Checked", "org.app.Base"),
            ("org.app.Base", "java.lang.Exception"),
        ] {
            access.classes.insert(
                class.into(),
                ClassAccess {
                    superclass: Some(sup.into()),
                    ..ClassAccess::default()
                },
            );
        }
        let chain = Chain::of(&exception("org.app.Checked", None), &access);
        assert_eq!(
            chain.classes,
            [
                "org.app.Checked",
                "org.app.Base",
                "java.lang.Exception",
                "java.lang.Throwable"
            ]
        );
        assert_eq!(chain.kind(), Kind::Checked);
        // The recorded chain wins over everything.
        let recorded = exception(
            "org.app.Checked",
            Some(&[
                "java.lang.IllegalStateException",
                "java.lang.RuntimeException",
                "java.lang.Exception",
                "java.lang.Throwable",
            ]),
        );
        let chain = Chain::of(&recorded, &access);
        assert_eq!((chain.kind(), chain.source), (Kind::Runtime, "recorded"));
    }
}
