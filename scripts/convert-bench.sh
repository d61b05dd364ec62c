#!/usr/bin/env bash
# What `paf convert` gains: for each bundle given, a gzip copy and a one-stream zstd copy (as
# gzip and zstd's own tool write them: no seek table, no tests.marks), each converted back by
# `paf convert` (zstd in frames with a seek table, and marks); then `paf rank` of the bundle and
# of the four copies in turn, RUNS rounds, the median wall time of each, and a check that all
# five print the same ranking (exit 1 otherwise). docs/performance.md, "Thirtieth round".
#
#   scripts/convert-bench.sh [-n RUNS] BUNDLE...
#
# Needs `gzip` and `zstd` on the PATH; PAF names the binary (default: target/release/paf).
set -euo pipefail
cd "$(dirname "$0")/.."
PAF="${PAF:-$PWD/target/release/paf}"
RUNS=3
if [ "${1:-}" = "-n" ]; then RUNS="$2"; shift 2; fi
[ $# -ge 1 ] || { echo "usage: $0 [-n RUNS] BUNDLE..." >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
status=0
for bundle in "$@"; do
  name=$(basename "$bundle")
  # A plain copy first (paf convert --compress none), then the two foreign forms from it.
  "$PAF" convert "$bundle" -o "$WORK/$name-plain" --compress none 2> /dev/null
  for form in gz zst; do
    d="$WORK/$name-$form"
    mkdir "$d"
    for f in "$WORK/$name-plain"/*; do
      case "$f" in
        *.jsonl) if [ "$form" = gz ]; then gzip -1 -c "$f" > "$d/$(basename "$f").gz";
                 else zstd -q -1 -c "$f" > "$d/$(basename "$f").zst"; fi ;;
        */tests.marks) ;;
        *) cp "$f" "$d/" ;;
      esac
    done
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$PAF" convert "$d" -o "$d-converted" 2> /dev/null
    echo "$name: paf convert of the $form copy: $(awk '{printf "%s s, peak %d MiB", $1, $2 / 1024}' "$WORK/time")"
  done
  rm -rf "$WORK/$name-plain"
  copies=("$bundle" "$WORK/$name-gz" "$WORK/$name-gz-converted" "$WORK/$name-zst" "$WORK/$name-zst-converted")
  labels=(bundle "gzip copy" "gzip copy, converted" "one-stream zstd copy" "one-stream zstd copy, converted")
  for _ in $(seq "$RUNS"); do
    for i in "${!copies[@]}"; do
      /usr/bin/time -f "%e" -o "$WORK/time" "$PAF" rank "${copies[$i]}" --format json > "$WORK/rank.$i.json" 2> /dev/null
      cat "$WORK/time" >> "$WORK/times.$i"
    done
  done
  for i in "${!copies[@]}"; do
    same=same
    cmp -s "$WORK/rank.0.json" "$WORK/rank.$i.json" || { same="DIFFERENT"; status=1; }
    echo "$name: rank of the ${labels[$i]}: median $(median < "$WORK/times.$i") s over $RUNS runs ($same ranking)"
  done
  rm -rf "$WORK"/"$name"-* "$WORK"/times.* "$WORK"/rank.*
done
exit "$status"
