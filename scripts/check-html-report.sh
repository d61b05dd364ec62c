#!/usr/bin/env bash
# The HTML report in a real browser: writes `paf report` of the Java example library (with its
# sources and truth, so every section is there), opens it in headless chromium, checks that its
# flow-set rows render and that clicking one shows its chain, and takes a screenshot.
# Usage: scripts/check-html-report.sh [SCREENSHOT.png]   (PAF=path/to/paf, default target/release/paf)
# Needs scripts/install-chromium.sh first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
paf="${PAF:-$root/target/release/paf}"
shot="${1:-$(mktemp -d)/report.png}"
out=$(mktemp -d)
lib=testdata/java/library
"$paf" report "$lib/bundle" --source-root "$lib/src" --truth "$lib/truth.csv" -o "$out/report.html"
rows=$("$paf" rank "$lib/bundle" --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["flow_sets"]))')
node scripts/browser/check-report.mjs "$out/report.html" "$rows" "$shot"
echo "screenshot: $shot"
