#!/usr/bin/env bash
# Measures the order-dependence filter on a real generated suite (docs/order-dependence.md,
# "Measured on real suites"):
#   scripts/od-measure.sh SUITE_DIR OUT_DIR [STEPS]
# SUITE_DIR is a compiled suite as prepared under /work/suites (classes/, test-classes/,
# tests.txt, info.txt with "package prefix (--include): PKG", optional extra-cp.txt and
# jvm-opts.txt). STEPS (default "trace triage triage-fresh isolate isolate-fresh") picks what
# to run: the trace (paf trace java), triage with the schedules batched in one JVM (a class
# loader each) and in a fresh JVM each, and isolate (every test alone) both ways. Each step
# prints one line: wall seconds, peak memory of paf and its children, runs, findings; the
# reports are in OUT_DIR. $PAF (default target/release/paf), $JOBS (default 2), $BATCH
# (default 250); $BUDGET (e.g. 10m) stops each od step cleanly after that long (the report
# then says how many of the planned runs were made). Nothing of the suite is written outside
# OUT_DIR.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SUITE="$(cd "${1:?usage: od-measure.sh SUITE_DIR OUT_DIR [STEPS]}" && pwd)"
OUT="${2:?usage: od-measure.sh SUITE_DIR OUT_DIR [STEPS]}"
STEPS="${3:-trace triage triage-fresh isolate isolate-fresh}"
PAF="${PAF:-$ROOT/target/release/paf}"
JOBS="${JOBS:-2}"
BATCH="${BATCH:-250}"
LIMIT=(); [ -z "${BUDGET:-}" ] || LIMIT=(--budget "$BUDGET")
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
[ -x "$PAF" ] || { echo "od-measure.sh: no paf binary at $PAF (cargo build --release, or set PAF)" >&2; exit 2; }

CP="$SUITE/classes:$SUITE/test-classes"
[ -f "$SUITE/extra-cp.txt" ] && CP="$CP:$(tr '\n' ':' < "$SUITE/extra-cp.txt" | sed 's/:*$//')"
INCLUDE="$(sed -n 's/^package prefix (--include): *\([^ ]*\).*/\1/p' "$SUITE/info.txt" | head -1)"
[ -n "$INCLUDE" ] || { echo "od-measure.sh: no 'package prefix (--include):' line in $SUITE/info.txt" >&2; exit 2; }
JVM_TRACE=()
JVM_RUN=()
if [ -f "$SUITE/jvm-opts.txt" ]; then
  for o in $(cat "$SUITE/jvm-opts.txt"); do JVM_TRACE+=(--jvm-arg "$o"); JVM_RUN+=(--jvm-arg "$o"); done
fi
RUNNER="$(printf '%q ' "$ROOT/tracer/java/run-order.sh" --classpath "$CP" ${JVM_RUN[@]+"${JVM_RUN[@]}"})"
BUNDLE="$OUT/bundle"

# STEP NAME, then the command: one line of figures (wall s, peak KB) from GNU time.
timed() {
  local name="$1"; shift
  /usr/bin/time -f "%e %M" -o "$OUT/$name.time" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err" || {
    echo "od-measure.sh: $name failed; see $OUT/$name.err" >&2; tail -5 "$OUT/$name.err" >&2; exit 1; }
}

summary() { # NAME REPORT
  read -r wall kb < "$1.time"
  python3 - "$2" "$wall" "$kb" "$(basename "$1")" <<'EOF'
import json, sys
path, wall, kb, name = sys.argv[1:]
r = json.load(open(path))
s = r["summary"]
algos = ", ".join(f"{a['algo']} {a['runs']}/{a['schedules']}" for a in r["algorithms"])
edges = [e for e in r["dependencies"] if e["confirmed"]]
kinds = {}
for e in edges:
    kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
print(f"{name}: {float(wall):.0f} s, {int(kb) // 1024} MB peak; {s['runs']} runs ({algos}); "
      f"{s['tests']} tests, {s['failing_in_default_order']} failing; "
      f"{s['order_caused_failures']} order-caused, {s['masked_failures']} masked, "
      f"{s['non_deterministic']} non-deterministic, {s['inconclusive']} inconclusive; "
      f"{len(edges)} confirmed edges {kinds}, {s['unconfirmed']} unconfirmed")
EOF
}

for step in $STEPS; do
  case "$step" in
    trace)
      rm -rf "$BUNDLE"
      timed trace "$PAF" trace java --quiet --classpath "$CP" --include "$INCLUDE" \
        --tests "$(paste -sd, "$SUITE/tests.txt")" ${JVM_TRACE[@]+"${JVM_TRACE[@]}"} -o "$BUNDLE"
      read -r wall kb < "$OUT/trace.time"
      echo "trace: ${wall%.*} s, $((kb / 1024)) MB peak; $("$PAF" validate "$BUNDLE" | sed 's/^[^:]*: //')"
      ;;
    triage|triage-fresh|isolate|isolate-fresh)
      algo="${step%-fresh}"
      batch="$BATCH"
      [ "$step" = "${step%-fresh}" ] || batch=1
      rm -f "$OUT/$step.json" "$OUT/$step.json.runs.jsonl"
      timed "$step" "$PAF" od detect --runner "$RUNNER" --bundle "$BUNDLE" --algo "$algo" \
        --batch "$batch" -j "$JOBS" --timeout 5m ${LIMIT[@]+"${LIMIT[@]}"} --no-progress --format json \
        -o "$OUT/$step.json"
      summary "$OUT/$step" "$OUT/$step.json"
      ;;
    *) echo "od-measure.sh: unknown step $step" >&2; exit 2 ;;
  esac
done
