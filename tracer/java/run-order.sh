#!/usr/bin/env bash
# The order-dependence runner: runs the listed tests, in order, in one fresh JVM (no agent).
#   run-order.sh --classpath CP TESTS_FILE [-o OUT.jsonl]
# TESTS_FILE: one ClassName.method per line. Output: one JSON object per test
#   {"test": id, "outcome": "pass"|"fail", "exception": type|null, "class": throwing class|null, "line": int|null}
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
[ "${1:-}" = "--classpath" ] || { echo "usage: run-order.sh --classpath CP TESTS_FILE [-o OUT.jsonl]" >&2; exit 2; }
CP="$2"; shift 2
if [ ! -f "$HERE/build/paf-runner.jar" ]; then "$HERE/build.sh" >&2; fi
exec java -XX:-OmitStackTraceInFastThrow -cp "$HERE/build/paf-runner.jar:/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar:$CP" \
  paf.runner.OrderRunner "$@"
