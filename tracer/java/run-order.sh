#!/usr/bin/env bash
# The order-dependence runner (docs/order-dependence.md, docs/java.md):
#   run-order.sh --classpath CP [--jvm-arg ARG]... TESTS_FILE [-o OUT.jsonl]
#     runs the listed tests, in order, in one fresh JVM (no agent);
#   run-order.sh --classpath CP [--jvm-arg ARG]... --batch SCHEDULES -o OUT.jsonl
#     (paf od detect --batch N) runs many schedules in one JVM, each in a fresh class loader.
# TESTS_FILE: one ClassName.method per line. Output: one JSON object per test
#   {"test": id, "outcome": "pass"|"fail", "exception": type|null, "class": throwing class|null, "line": int|null}
# (in batch mode with "schedule": k first). --jvm-arg passes an option to the JVM (e.g. -Duser.timezone=UTC);
# the JVMs are short-lived, so they run with the client compiler and the serial collector unless told otherwise.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
[ "${1:-}" = "--classpath" ] || { echo "usage: run-order.sh --classpath CP [--jvm-arg ARG]... TESTS_FILE [-o OUT.jsonl]" >&2; exit 2; }
CP="$2"; shift 2
JVM=(-XX:-OmitStackTraceInFastThrow -XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
while [ "${1:-}" = "--jvm-arg" ]; do JVM+=("$2"); shift 2; done
if [ ! -f "$HERE/build/paf-runner.jar" ]; then "$HERE/build.sh" >&2; fi
RCP="$HERE/build/paf-runner.jar:/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar"
if [ "${1:-}" = "--batch" ]; then
  # The suite's classes stay off the JVM's class path: each schedule loads them afresh.
  exec java "${JVM[@]}" -cp "$RCP" paf.runner.BatchRunner --classpath "$CP" "$@"
fi
exec java "${JVM[@]}" -cp "$RCP:$CP" paf.runner.OrderRunner "$@"
