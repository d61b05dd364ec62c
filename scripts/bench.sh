#!/usr/bin/env bash
# Benchmarks of issue 6 (docs/performance.md): figures are printed, never asserted.
#   scripts/bench.sh [WORKDIR] [RUNS]
# 1. makes an Ant2-scale bundle (1,462 failing, 36,106 passing tests, 560 events per test:
#    about 20.7 million events, 1.6 GB of JSON Lines) with `paf synth`;
# 2. times `paf validate` (the parsing floor) and `paf rank` on it RUNS times each (default 3)
#    and prints the medians and the ratio rank / validate;
# 3. runs `paf rank` at 1x, 2x, 4x and 8x the passing tests and prints time and peak memory;
# 4. makes a bundle of one failing and one passing test of millions of events each (at least 5
#    million by default) and prints `paf validate` and `paf rank` time and peak memory on it.
# Needs GNU time (/usr/bin/time, Debian package `time`) and about 14 GB free in WORKDIR for the
# 8x bundle (each bundle is deleted before the next is made). BENCH_FAILING, BENCH_PASSING and
# BENCH_EVENTS override the sizes, BENCH_BIG_EVENTS the average events of the two tests of 4
# (default 7,500,000: 5.1 and 6.8 million with the seed). Exits 1 if `rank -j 1` and `rank`
# print different output, or if a peak passes BENCH_MEMORY_MIB (default 256). BENCH_SCALES
# (default "1 2 4 8", must start with 1) chooses the scales of step 3, for a shorter run.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${1:-${TMPDIR:-/tmp}/paf-bench}"
RUNS="${2:-3}"
# The sizes can be overridden (CI runs the script on a tiny bundle to keep it working).
FAILING="${BENCH_FAILING:-1462}"
PASSING="${BENCH_PASSING:-36106}"
EVENTS="${BENCH_EVENTS:-560}"
BIG_EVENTS="${BENCH_BIG_EVENTS:-7500000}"
BOUND_MIB="${BENCH_MEMORY_MIB:-256}"
SCALES="${BENCH_SCALES:-1 2 4 8}"
SEED=7
[ -x /usr/bin/time ] || { echo "bench.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
cargo build --release --locked --quiet --manifest-path "$ROOT/Cargo.toml"
PAF="$ROOT/target/release/paf"
mkdir -p "$WORK"

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "paf: $("$PAF" --version); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# Runs "$@" and prints "SECONDS KIB" (wall time, peak resident memory).
measure() {
  /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" > /dev/null
  cat "$WORK/time.txt"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

synth() { # PASSING DIR
  rm -rf "$2"
  /usr/bin/time -f "%e" -o "$WORK/time.txt" \
    "$PAF" synth --failing "$FAILING" --passing "$1" --events-per-test "$EVENTS" --seed "$SEED" -o "$2" 2> "$WORK/synth.txt"
  echo "synth: $(cat "$WORK/synth.txt"); $(du -m "$2/tests.jsonl" | cut -f1) MB tests.jsonl, $(cat "$WORK/time.txt") s"
}

echo
echo "== 1-2. Ant2 scale: validate (parsing floor) against rank, $RUNS runs each"
B="$WORK/ant2"
synth "$PASSING" "$B"
for cmd in validate rank; do
  : > "$WORK/$cmd.runs"
  for _ in $(seq "$RUNS"); do
    measure "$PAF" "$cmd" "$B" >> "$WORK/$cmd.runs"
  done
  echo "$cmd: runs (s KiB): $(tr '\n' ';' < "$WORK/$cmd.runs")"
done
v=$(cut -d' ' -f1 "$WORK/validate.runs" | median)
r=$(cut -d' ' -f1 "$WORK/rank.runs" | median)
vm=$(cut -d' ' -f2 "$WORK/validate.runs" | sort -n | tail -1)
rm_=$(cut -d' ' -f2 "$WORK/rank.runs" | sort -n | tail -1)
echo "median: validate $v s (peak $((vm / 1024)) MiB), rank $r s (peak $((rm_ / 1024)) MiB); rank / validate = $(awk -v r="$r" -v v="$v" 'BEGIN {printf "%.2f", r / v}')"
for cmd in validate rank; do
  rs=$(measure "$PAF" "$cmd" -j 1 "$B")
  echo "$cmd -j 1 (one thread): ${rs% *} s, peak $(( ${rs#* } / 1024 )) MiB"
done
"$PAF" rank -j 1 "$B" --format json > "$WORK/rank.j1.json"
"$PAF" rank "$B" --format json > "$WORK/rank.jN.json"
if cmp -s "$WORK/rank.j1.json" "$WORK/rank.jN.json"; then
  echo "rank -j 1 and rank (all cores): identical output"
else
  echo "rank -j 1 and rank (all cores): OUTPUTS DIFFER" >&2
  exit 1
fi

echo
echo "== 3. rank at $(echo "$SCALES" | sed 's/ /x, /g')x the passing tests"
printf '%-6s %10s %12s %10s %10s %12s\n' scale passing events seconds 'peak MiB' 's per 1M ev'
base_mem=""
for k in $SCALES; do
  if [ "$k" = 1 ]; then D="$B"; else D="$WORK/ant2x$k"; synth $((PASSING * k)) "$D" > "$WORK/synth.$k.txt"; fi
  events=$(grep -o '[0-9]* events' "$WORK/synth.txt" | cut -d' ' -f1)
  out=$(measure "$PAF" rank "$D")
  s=${out% *}; m=$(( ${out#* } / 1024 ))
  [ -z "$base_mem" ] && base_mem=$m
  last_mem=$m
  printf '%-6s %10d %12d %10s %10d %12.3f\n' "${k}x" $((PASSING * k)) "$events" "$s" "$m" "$(awk -v s="$s" -v e="$events" 'BEGIN {print s / (e / 1e6)}')"
  [ "$k" = 1 ] || rm -rf "$D"
done
echo "peak memory at ${k}x / 1x: $(awk -v a="$last_mem" -v b="$base_mem" 'BEGIN {printf "%.2f", a / b}') (target: at most 1.5)"
peak=$(( rm_ > vm ? rm_ / 1024 : vm / 1024 ))
peak=$(( last_mem > peak ? last_mem : peak ))

echo
echo "== 4. one failing and one passing test of millions of events each"
D="$WORK/big"
rm -rf "$D"
"$PAF" synth --failing 1 --passing 1 --events-per-test "$BIG_EVENTS" --seed "$SEED" -o "$D" 2> "$WORK/synth.txt"
echo "synth: $(cat "$WORK/synth.txt"); $(du -m "$D/tests.jsonl" | cut -f1) MB tests.jsonl"
echo "events per test: $(grep '"k":"end"' "$D/tests.jsonl" | sed -E 's/.*"outcome":"([a-z]+)".*"events":([0-9]+).*/\1 \2/' | tr '\n' ';')"
for cmd in validate rank; do
  out=$(measure "$PAF" "$cmd" "$D")
  m=$(( ${out#* } / 1024 ))
  peak=$(( m > peak ? m : peak ))
  echo "$cmd: ${out% *} s, peak $m MiB"
done
rm -rf "$D"
echo "peak memory of every run above: $peak MiB (bound: $BOUND_MIB MiB)"
[ "$peak" -le "$BOUND_MIB" ] || { echo "bench.sh: peak memory $peak MiB is over $BOUND_MIB MiB" >&2; exit 1; }
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
