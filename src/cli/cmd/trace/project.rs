//! `paf trace java --maven DIR` and `--randoop DIR`: the class path, the packages to instrument
//! and the test classes, taken from a Maven project or from Randoop's output folder instead of
//! from flags (docs/java.md, "Maven projects" and "Randoop's output folder").

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

use regex::Regex;

use super::super::super::{CliError, output};
use super::JavaArgs;

/// What `paf trace java` traces, once --maven and --randoop have said their part.
pub struct Job {
    pub classpath: String,
    pub include: String,
    pub tests: String,
    pub sourcepath: Option<String>,
    /// The classes compiled from --randoop's folder, removed when the job is dropped.
    _compiled: Option<tempfile::TempDir>,
}

/// The class path, packages, tests and sources from the flags, the Maven project and Randoop's
/// folder: a flag wins over what a project says; --maven's class path comes first.
pub fn resolve(a: &JavaArgs, junit: &str) -> Result<Job, CliError> {
    let found = match &a.maven {
        Some(dir) => {
            let mvn = a
                .mvn
                .clone()
                .or_else(|| {
                    std::env::var_os("PAF_MVN")
                        .filter(|v| !v.is_empty())
                        .map(PathBuf::from)
                })
                .unwrap_or_else(|| PathBuf::from("mvn"));
            let how = Maven {
                mvn: &mvn,
                args: &a.mvn_args,
                verbose: a.verbose,
            };
            maven(dir, &how)?
        }
        None => Found::default(),
    };
    let mut classpath = found.classpath;
    classpath.extend(a.classpath.iter().cloned());
    let classpath = classpath.join(":");
    let include = match (&a.include, found.include.is_empty()) {
        (Some(i), _) => i.clone(),
        (None, false) => found.include.join(","),
        (None, true) => {
            return Err(CliError::Usage(
                "--include: the Maven project's target/classes names no package (classes in the \
                 default package, or none); give the packages to instrument"
                    .into(),
            ));
        }
    };
    let sourcepath = a
        .sourcepath
        .clone()
        .or_else(|| (!found.sourcepath.is_empty()).then(|| found.sourcepath.join(":")));
    let (tests, compiled) = match (&a.tests, &a.randoop) {
        (Some(t), _) => (t.clone(), None),
        (None, Some(dir)) => {
            let into = tempfile::Builder::new()
                .prefix("paf-randoop-")
                .tempdir()
                .map_err(|e| CliError::Internal(format!("a temporary directory: {e}")))?;
            let javac = a.javac.clone().unwrap_or_else(|| {
                a.java
                    .as_ref()
                    .map(|j| j.with_file_name("javac"))
                    .filter(|j| j.is_file())
                    .unwrap_or_else(|| PathBuf::from("javac"))
            });
            let against = [classpath.as_str(), junit].join(":");
            let tests = randoop(dir, &javac, &against, into.path(), a.verbose)?;
            (tests.join(","), Some(into))
        }
        (None, None) if !found.tests.is_empty() => (found.tests.join(","), None),
        (None, None) => {
            return Err(CliError::Usage(
                "--tests: the Maven project's target/test-classes holds no class Surefire runs \
                 by default (Test*, *Test, *Tests, *TestCase) nor Randoop's; name the test \
                 classes"
                    .into(),
            ));
        }
    };
    let classpath = match &compiled {
        Some(dir) => format!("{classpath}:{}", dir.path().display()),
        None => classpath,
    };
    Ok(Job {
        classpath,
        include,
        tests,
        sourcepath,
        _compiled: compiled,
    })
}

impl Job {
    /// The directory the test classes of `--randoop`'s folder were compiled into, if any: new
    /// files at every run.
    pub fn compiled(&self) -> Option<&std::path::Path> {
        self._compiled.as_ref().map(|d| d.path())
    }
}

/// What a project says; each field is empty when it says nothing.
#[derive(Debug, Default)]
pub struct Found {
    /// Class path entries, in order.
    pub classpath: Vec<String>,
    /// Test classes, fully qualified, in the order they run.
    pub tests: Vec<String>,
    /// Package prefixes of the code under test.
    pub include: Vec<String>,
    /// Source roots.
    pub sourcepath: Vec<String>,
}

/// A Randoop test class's place in the order Randoop's users run: the `RegressionTest` suite
/// first, then `ErrorTest`, each class in its number's order (`RegressionTest10` after
/// `RegressionTest9`). `None` for a class that is not one of Randoop's numbered classes (the
/// suites `RegressionTest` and `ErrorTest` themselves only list the numbered classes).
fn randoop_place(simple: &str) -> Option<(u8, u64)> {
    let numbered = |prefix: &str| {
        simple
            .strip_prefix(prefix)
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse().ok())
    };
    numbered("RegressionTest")
        .map(|n| (0, n))
        .or_else(|| numbered("ErrorTest").map(|n| (1, n)))
}

/// Surefire's default includes (`Test*`, `*Test`, `*Tests`, `*TestCase`), on a simple name.
fn surefire_default(simple: &str) -> bool {
    simple.starts_with("Test")
        || simple.ends_with("Test")
        || simple.ends_with("Tests")
        || simple.ends_with("TestCase")
}

fn simple_name(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

/// Test classes in run order: every class Surefire would run by default, by name, then
/// Randoop's numbered classes in Randoop's order (Randoop's suite classes left out).
fn order_tests(classes: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut plain = Vec::new();
    let mut randoop = Vec::new();
    for class in classes {
        match randoop_place(simple_name(&class)) {
            Some(place) => randoop.push((place, class)),
            // Randoop's suites list its numbered classes: running them too would run every
            // test twice.
            None if matches!(simple_name(&class), "RegressionTest" | "ErrorTest") => {}
            None if surefire_default(simple_name(&class)) => plain.push(class),
            None => {}
        }
    }
    plain.sort();
    randoop.sort();
    plain.extend(randoop.into_iter().map(|(_, c)| c));
    plain
}

/// The packages of `packages` that no other one of them contains (`org.a` covers `org.a.b`).
fn package_roots(packages: &BTreeSet<String>) -> Vec<String> {
    let mut roots: Vec<String> = Vec::new();
    // Sorted order puts `org.a` before `org.a.b` and `org.a.b` before `org.ab`.
    for p in packages {
        let covered = roots.last().is_some_and(|r| {
            p.strip_prefix(r.as_str())
                .is_some_and(|s| s.starts_with('.'))
        });
        if !covered {
            roots.push(p.clone());
        }
    }
    roots
}

/// Every top-level `.class` under `root` as (package, fully qualified name), sorted.
fn classes_under(root: &Path) -> std::io::Result<Vec<(String, String)>> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let Some(stem) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".class"))
            else {
                continue;
            };
            if stem.contains('$') || stem == "package-info" || stem == "module-info" {
                continue;
            }
            let rel = path.parent().and_then(|p| p.strip_prefix(root).ok());
            let package: Vec<&str> = rel
                .map(|r| r.iter().filter_map(|c| c.to_str()).collect())
                .unwrap_or_default();
            let package = package.join(".");
            let class = if package.is_empty() {
                stem.to_string()
            } else {
                format!("{package}.{stem}")
            };
            found.push((package, class));
        }
    }
    found.sort();
    Ok(found)
}

/// How to run Maven: the executable and extra arguments (`--mvn`, `--mvn-arg`).
pub struct Maven<'a> {
    pub mvn: &'a Path,
    pub args: &'a [String],
    pub verbose: bool,
}

/// Builds the Maven project in `dir` (`mvn test-compile`) and reads its test class path
/// (`dependency:build-classpath`, test scope), its classes and test classes.
pub fn maven(dir: &Path, how: &Maven<'_>) -> Result<Found, CliError> {
    let pom = dir.join("pom.xml");
    if !pom.is_file() {
        return Err(CliError::Usage(format!(
            "--maven {}: no pom.xml there; expected a Maven project directory (for a \
             multi-module build, the module whose tests to trace)",
            dir.display()
        )));
    }
    let scratch = tempfile::Builder::new()
        .prefix("paf-maven-")
        .tempdir()
        .map_err(|e| CliError::Internal(format!("a temporary directory: {e}")))?;
    let cp_file = scratch.path().join("classpath.txt");
    let mut cmd = Command::new(how.mvn);
    cmd.arg("-B")
        .arg("-q")
        .arg("-f")
        .arg(&pom)
        .args(["test-compile", "dependency:build-classpath"])
        .arg(format!("-Dmdep.outputFile={}", cp_file.display()))
        .arg("-Dmdep.includeScope=test")
        .args(how.args);
    if how.verbose {
        output::note(format!("paf trace: {cmd:?}"));
    }
    let run = super::dies_with_paf(&mut cmd).output().map_err(|e| {
        CliError::Usage(format!(
            "--maven: cannot run {}: {e} (is Maven installed? --mvn names it)",
            how.mvn.display()
        ))
    })?;
    if !run.status.success() {
        let said = String::from_utf8_lossy(&run.stdout) + String::from_utf8_lossy(&run.stderr);
        for line in said.lines().filter(|l| !l.trim().is_empty()).take(40) {
            output::error(format!("mvn: {line}"));
        }
        return Err(CliError::Usage(format!(
            "--maven {}: `mvn test-compile dependency:build-classpath` failed ({}); \
             its messages are above",
            dir.display(),
            run.status
        )));
    }
    let deps = std::fs::read_to_string(&cp_file).map_err(|e| {
        CliError::Internal(format!(
            "{}: Maven wrote no class path: {e}",
            cp_file.display()
        ))
    })?;
    let target = dir.join("target");
    let (classes, test_classes) = (target.join("classes"), target.join("test-classes"));
    let listed = |root: &Path| {
        if root.is_dir() {
            classes_under(root)
                .map_err(|e| CliError::Internal(format!("{}: cannot list: {e}", root.display())))
        } else {
            Ok(Vec::new())
        }
    };
    let main = listed(&classes)?;
    let tests = listed(&test_classes)?;
    let packages: BTreeSet<String> = main.iter().map(|(p, _)| p.clone()).collect();
    let mut found = Found {
        tests: order_tests(tests.into_iter().map(|(_, c)| c)),
        include: if packages.contains("") {
            Vec::new() // the default package has no prefix to name: --include must say
        } else {
            package_roots(&packages)
        },
        ..Found::default()
    };
    found.classpath = [classes, test_classes]
        .iter()
        .map(|p| p.display().to_string())
        .chain(
            deps.trim()
                .split(':')
                .filter(|s| !s.is_empty())
                .map(String::from),
        )
        .collect();
    for src in ["src/main/java", "src/test/java"] {
        if dir.join(src).is_dir() {
            found.sourcepath.push(dir.join(src).display().to_string());
        }
    }
    Ok(found)
}

static PACKAGE: LazyLock<Regex> = LazyLock::new(|| {
    // A package declaration at the start of a line (Randoop writes it first, before imports).
    Regex::new(r"(?m)^\s*package\s+([\w.]+)\s*;").expect("a valid regular expression")
});

/// Randoop's generated sources under `dir`: every `.java` file (suites and helpers too, since
/// the numbered classes may refer to them), and the numbered classes in run order.
fn randoop_sources(dir: &Path) -> Result<(Vec<PathBuf>, Vec<String>), CliError> {
    let unreadable =
        |p: &Path, e: std::io::Error| CliError::Usage(format!("{}: cannot read: {e}", p.display()));
    let mut files = Vec::new();
    let mut numbered = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).map_err(|e| unreadable(&d, e))? {
            let path = entry.map_err(|e| unreadable(&d, e))?.path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let Some(stem) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".java"))
                .map(String::from)
            else {
                continue;
            };
            if let Some(place) = randoop_place(&stem) {
                let text = std::fs::read_to_string(&path).map_err(|e| unreadable(&path, e))?;
                let class = match PACKAGE.captures(&text) {
                    Some(c) => format!("{}.{stem}", &c[1]),
                    None => stem,
                };
                numbered.push((place, class));
            }
            files.push(path);
        }
    }
    files.sort();
    numbered.sort();
    Ok((files, numbered.into_iter().map(|(_, c)| c).collect()))
}

/// Compiles Randoop's output folder `dir` against `classpath` into `into` with `javac`, and
/// returns the numbered test classes in run order.
pub fn randoop(
    dir: &Path,
    javac: &Path,
    classpath: &str,
    into: &Path,
    verbose: bool,
) -> Result<Vec<String>, CliError> {
    if !dir.is_dir() {
        return Err(CliError::Usage(format!(
            "--randoop {}: not a directory; expected Randoop's output folder (its --junit-output-dir)",
            dir.display()
        )));
    }
    let (files, tests) = randoop_sources(dir)?;
    if tests.is_empty() {
        return Err(CliError::Usage(format!(
            "--randoop {}: no RegressionTest<N>.java or ErrorTest<N>.java there; expected \
             Randoop's output folder (its --junit-output-dir)",
            dir.display()
        )));
    }
    // An argument file: a real suite has hundreds of files, past a command line's length.
    let argfile = into.join("sources.txt");
    let list: String = files
        .iter()
        .map(|f| format!("\"{}\"\n", f.display().to_string().replace('\\', "\\\\")))
        .collect();
    std::fs::write(&argfile, list)
        .map_err(|e| CliError::Internal(format!("{}: cannot write: {e}", argfile.display())))?;
    let mut cmd = Command::new(javac);
    cmd.args(["-g", "-nowarn", "-encoding", "UTF-8", "-proc:none", "-d"])
        .arg(into)
        .arg("-cp")
        .arg(classpath)
        .arg(format!("@{}", argfile.display()));
    if verbose {
        output::note(format!("paf trace: {cmd:?}"));
    }
    let run = super::dies_with_paf(&mut cmd).output().map_err(|e| {
        CliError::Usage(format!(
            "--randoop: cannot run {}: {e} (is a JDK installed? --javac names it)",
            javac.display()
        ))
    })?;
    if !run.status.success() {
        let said = String::from_utf8_lossy(&run.stderr);
        for line in said.lines().take(40) {
            output::error(format!("javac: {line}"));
        }
        return Err(CliError::Usage(format!(
            "--randoop {}: javac could not compile the generated tests against --classpath \
             ({}); its first messages are above",
            dir.display(),
            run.status
        )));
    }
    Ok(tests)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn randoop_classes_run_regression_first_in_number_order() {
        let classes = [
            "p.ErrorTest1",
            "p.RegressionTest10",
            "p.ErrorTest0",
            "p.RegressionTest9",
            "p.RegressionTest",
            "p.ErrorTest",
            "p.RegressionTest0",
            "p.RegressionTestX",
        ];
        assert_eq!(
            order_tests(classes.iter().map(|c| c.to_string())),
            [
                "p.RegressionTest0",
                "p.RegressionTest9",
                "p.RegressionTest10",
                "p.ErrorTest0",
                "p.ErrorTest1"
            ]
        );
    }

    #[test]
    fn surefire_patterns_then_randoop() {
        let classes = [
            "a.FooTest",
            "a.TestBar",
            "a.Helper",
            "a.BazTests",
            "a.QuxTestCase",
        ];
        let mut all: Vec<String> = classes.iter().map(|c| c.to_string()).collect();
        all.push("a.ErrorTest0".into());
        assert_eq!(
            order_tests(all),
            [
                "a.BazTests",
                "a.FooTest",
                "a.QuxTestCase",
                "a.TestBar",
                "a.ErrorTest0"
            ]
        );
    }

    #[test]
    fn package_roots_keep_the_outermost() {
        let set: BTreeSet<String> = ["org.a", "org.a.b", "org.ab", "org.c.d", "org.c.d.e"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(package_roots(&set), ["org.a", "org.ab", "org.c.d"]);
    }

    #[test]
    fn randoop_sources_read_the_package() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("org/x");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            sub.join("ErrorTest0.java"),
            "// generated\npackage org.x;\n\npublic class ErrorTest0 {}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("RegressionTest0.java"),
            "public class RegressionTest0 {}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("RegressionTest.java"),
            "public class RegressionTest {}\n",
        )
        .unwrap();
        let (files, tests) = randoop_sources(dir.path()).unwrap();
        assert_eq!(files.len(), 3);
        assert_eq!(tests, ["RegressionTest0", "org.x.ErrorTest0"]);
    }
}
