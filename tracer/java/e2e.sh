#!/usr/bin/env bash
# End-to-end check of the Java front end (issue 3):
#   tracer/java/e2e.sh OUTDIR
# installs (install.sh), builds (build.sh), compiles the examples of testdata/java, traces them
# into OUTDIR/motivating, OUTDIR/library, OUTDIR/static-state, OUTDIR/robustness, OUTDIR/cases
# and OUTDIR/cap, and checks the rankings with `paf rank --format json` ($PAF, default
# target/release/paf) against the answers worked out by hand beside each example.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:?usage: e2e.sh OUTDIR}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
PAF="${PAF:-$ROOT/target/release/paf}"
case "$PAF" in /*) ;; *) PAF="$ROOT/$PAF" ;; esac
[ -x "$PAF" ] || { echo "e2e.sh: no paf binary at $PAF (build it, or set PAF)" >&2; exit 2; }
TD="$ROOT/testdata/java"
J=/usr/share/java
CHECK="python3 $HERE/e2e_check.py"

"$HERE/install.sh"
"$HERE/build.sh"
JAVAC=(javac --release 11 -g -nowarn -encoding UTF-8)

compile() { # NAME: testdata/java/NAME/{src,test} -> OUT/classes/NAME
  local c="$OUT/classes/$1"
  rm -rf "$c"; mkdir -p "$c"
  "${JAVAC[@]}" -d "$c" -cp "$J/junit4.jar" $(find "$TD/$1/src" "$TD/$1/test" -name '*.java')
}
tests_of() { (cd "$TD/$1/test" && find . -name '*.java' | sed 's|^\./||; s|\.java$||; s|/|.|g' | sort | paste -sd, -); }

echo "== motivating (PAF Figure 2 / Table 1)"
compile motivating
"$PAF" trace java --quiet --classpath "$OUT/classes/motivating" --include org.example \
  --tests org.example.ProjectEntryTest --sourcepath "$TD/motivating/src" -o "$OUT/motivating"
"$PAF" rank "$OUT/motivating" --format json > "$OUT/motivating.rank.json"
$CHECK motivating "$OUT/motivating.rank.json" static
"$PAF" rank "$TD/motivating/bundle" --format json > "$OUT/motivating.committed.rank.json"
$CHECK motivating "$OUT/motivating.committed.rank.json" >/dev/null && echo "ok: the committed bundle testdata/java/motivating/bundle ranks the same"

echo "== library (Randoop-style suite, $(tests_of library | tr , '\n' | wc -l) test classes)"
compile library
"$PAF" trace java --quiet --gzip --classpath "$OUT/classes/library" --include org.shelf \
  --tests "$(tests_of library)" --sourcepath "$TD/library/src" -o "$OUT/library"
"$PAF" rank "$OUT/library" --format json > "$OUT/library.rank.json"
$CHECK library "$OUT/library.rank.json" "$TD/library/truth.csv"

echo "== static-state (order-dependent failure through a static field)"
compile static-state
"$PAF" trace java --quiet --classpath "$OUT/classes/static-state" --include org.cli \
  --tests RegressionTest0,ErrorTest0 --sourcepath "$TD/static-state/src" -o "$OUT/static-state"
"$PAF" rank "$OUT/static-state" --format json > "$OUT/static-state.rank.json"
printf 'ErrorTest0.test1\nErrorTest0.test2\n' > "$OUT/static-state.alone.txt"
printf 'RegressionTest0.test1\nErrorTest0.test1\nRegressionTest0.test3\nErrorTest0.test2\n' > "$OUT/static-state.after.txt"
"$HERE/run-order.sh" --classpath "$OUT/classes/static-state" "$OUT/static-state.alone.txt" -o "$OUT/static-state.alone.jsonl"
"$HERE/run-order.sh" --classpath "$OUT/classes/static-state" "$OUT/static-state.after.txt" -o "$OUT/static-state.after.jsonl"
$CHECK static-state "$OUT/static-state" "$OUT/static-state.alone.jsonl" "$OUT/static-state.after.jsonl" "$OUT/static-state.rank.json"

echo "== robustness (JVM death, time-out, uninstrumentable class)"
compile robustness
"$HERE/trace.sh" --quiet --timeout 3 --fail-class org.robust.Broken --classpath "$OUT/classes/robustness" \
  --include org.robust --tests RobustTest -o "$OUT/robustness" 2> "$OUT/robustness.log" || { cat "$OUT/robustness.log" >&2; exit 1; }
grep '^paf' "$OUT/robustness.log" | sed 's/^/  /'
"$PAF" validate "$OUT/robustness" > /dev/null
$CHECK robustness "$OUT/robustness"

echo "== cases (the hand-worked corpus, testdata/java/cases/README.md)"
compile cases
"$PAF" trace java --quiet --classpath "$OUT/classes/cases" --include cases --tests "$(tests_of cases)" \
  --sourcepath "$TD/cases/src" --jvm-arg -Xmx256m -o "$OUT/cases"
"$PAF" validate "$OUT/cases" > /dev/null
"$PAF" rank "$OUT/cases" --format json > "$OUT/cases.rank.json"
$CHECK cases "$TD/cases/src" "$TD/cases/expected.json" "$OUT/cases.rank.json" "$OUT/cases"

echo "== cap (a class initializer and a test past the event cap, testdata/java/cap/README.md)"
compile cap
"$PAF" trace java --quiet --max-events 40000 --classpath "$OUT/classes/cap" --include cap --tests cap.CapTest \
  --sourcepath "$TD/cap/src" -o "$OUT/cap"
"$PAF" validate "$OUT/cap" > /dev/null
"$PAF" rank "$OUT/cap" --format json > "$OUT/cap.rank.json"
$CHECK cases "$TD/cap/src" "$TD/cap/expected.json" "$OUT/cap.rank.json" "$OUT/cap"
python3 "$ROOT/scripts/check-schema.py" "$OUT/motivating" "$OUT/library" "$OUT/static-state" "$OUT/robustness" \
  "$OUT/cases" "$OUT/cap" > /dev/null && echo "ok: every bundle traced here matches docs/trace-format.schema.json"

echo "== order dependence (paf od detect through run-order.sh on static-state; rank --exclude-od)"
# The runner command is shell words (quoted with %q); paf appends the tests file and -o RESULTS
# as arguments of their own, so no test id is ever parsed by a shell. The read/write sets come
# from the bundle traced above (end.statics and the static def/use events). A fresh report each
# time: the same -o would resume from OD.runs.jsonl.
OD="$OUT/static-state.od.json"
rm -f "$OD" "$OD.runs.jsonl"
RUNNER="$(printf '%q ' "$HERE/run-order.sh" --classpath "$OUT/classes/static-state")"
"$PAF" od detect --runner "$RUNNER" --bundle "$OUT/static-state" --algo dep-aware,pradet --k 2 \
  --timeout 2m --no-progress -o "$OD" > "$OUT/static-state.od.txt"
"$PAF" rank "$OUT/static-state" --exclude-od "$OD" --format json > "$OUT/static-state.rank-od.json"
python3 "$HERE/od_check.py" "$OD" "$OUT/static-state.rank-od.json"

echo "e2e.sh: all checks passed; bundles in $OUT"
