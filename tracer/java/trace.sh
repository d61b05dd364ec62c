#!/usr/bin/env bash
# paf trace java, reference implementation:
#   trace.sh --classpath CP --include PKG[,PKG...] --tests CLASS[,CLASS...] -o BUNDLE
#            [--exclude PKG[,PKG...]] [--timeout SECS] [--sourcepath DIRS] [--gzip] [--max-events N]
# Builds the jars if needed, then runs the supervisor (docs/java.md, "How tracing runs").
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
if [ ! -f "$HERE/build/paf-runner.jar" ] || [ ! -f "$HERE/build/paf-agent.jar" ]; then
  "$HERE/build.sh" >&2
fi
# the supervisor only starts and watches workers and copies their files: C1 and a serial collector
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$HERE/build/paf-runner.jar" paf.runner.Supervisor "$@"
