#!/usr/bin/env bash
# Benchmarks of issues 6 and 17 (docs/performance.md): figures are printed, never asserted.
#   scripts/bench.sh [WORKDIR] [RUNS]
# 1. makes an Ant2-scale bundle (1,462 failing, 36,106 passing tests, 560 events per test:
#    about 20.7 million events, 1.6 GB of JSON Lines) with `paf synth`, and measures the floors
#    on it: `cat` (reading the file) and a syntax-only JSON parse of every line on one core
#    (examples/parse_floor.rs: serde_json into IgnoredAny);
# 2. times the syntax-only parse on all cores, `paf validate` and `paf rank` on it, and `paf rank`
#    on the same bundle without its tests.marks, one run of each in turn, RUNS rounds (default
#    3), then validate and rank with `-j 1`, and prints the medians, the ratios rank / floor and
#    rank / validate, rank / floor in CPU time, and the same for rank without marks;
# 2b. makes the same bundle as zstd (`--compress zstd`: paf trace java's default form, with the
#    same marks) and times the syntax-only parse of it (decompressed as paf opens a file),
#    `paf validate` and `paf rank` on it, in turn, RUNS rounds, with the ratios to its own floor
#    and to the plain file's rank and floor; its rank must print the plain bundle's output;
# 3. runs `paf rank` at 1x, 2x, 4x and 8x the passing tests and prints time and peak memory;
# 4. makes a bundle of one failing and one passing test of millions of events each (at least 5
#    million by default) and prints `paf validate` and `paf rank` time and peak memory on it;
# 5. traces the shipped Java examples (testdata/java: library, static-state, cases) with
#    `paf trace java` and runs them with plain JUnit, alternately, RUNS times each (at least 9
#    for the examples under a second: on a 2-core virtual machine their runs vary by a third),
#    and prints the medians and the tracer's overhead, every class instrumented
#    (--no-class-cache) and warm (replayed from the class cache a run before recorded), and its
#    floor: the same command with
#    `--max-events 1`, which records next to nothing (each test is truncated at its first
#    event and runs on unrecorded), so what is left is the fixed costs, a compaction tried per
#    test and the instrumented code (skipped, saying so, without a JDK, JUnit 4 and ASM:
#    tracer/java/install.sh installs them).
# Needs GNU time (/usr/bin/time, Debian package `time`) and about 14 GB free in WORKDIR for the
# 8x bundle (each bundle is deleted before the next is made). BENCH_FAILING, BENCH_PASSING and
# BENCH_EVENTS override the sizes, BENCH_BIG_EVENTS the average events of the two tests of 4
# (default 7,500,000: 5.1 and 6.8 million with the seed). Exits 1 if `rank -j 1`, `rank`,
# `rank` without marks and `rank` of the zstd bundle print different output, or if a peak passes
# BENCH_MEMORY_MIB (default 256). BENCH_SCALES (default "1 2 4 8", must start with 1) chooses the
# scales of step 3, for a shorter run;
# BENCH_JAVA=0 skips step 5.
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
cargo build --release --locked --quiet --manifest-path "$ROOT/Cargo.toml" --bins --examples
PAF="$ROOT/target/release/paf"
FLOOR="$ROOT/target/release/examples/parse_floor"
CORES=$(nproc)
mkdir -p "$WORK"

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "paf: $("$PAF" --version); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# Runs "$@" and prints "SECONDS PEAK_KIB CPU_SECONDS" (wall time, peak resident memory, user
# and system time). The wall time is taken to the millisecond around the command:
# /usr/bin/time's %e counts in steps of 10 ms, a twentieth of the shipped Java examples'
# traced runs (docs/performance.md, "Sixteenth round").
measure() {
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f "%M %U %S" -o "$WORK/time.txt" "$@" > /dev/null
  t1=$(date +%s%N)
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b - a) / 1e9}') $(awk '{printf "%d %.2f", $1, $2 + $3}' "$WORK/time.txt")"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b + 0 == 0) print "-"; else printf "%.2f", a / b}'; }
# Runs "$@" RUNS times and prints the median wall time (the runs go to $WORK/runs).
median_of() {
  : > "$WORK/runs"
  for _ in $(seq "$RUNS"); do measure "$@" >> "$WORK/runs"; done
  cut -d' ' -f1 "$WORK/runs" | median
}

synth() { # PASSING DIR
  rm -rf "$2"
  /usr/bin/time -f "%e" -o "$WORK/time.txt" \
    "$PAF" synth --failing "$FAILING" --passing "$1" --events-per-test "$EVENTS" --seed "$SEED" -o "$2" 2> "$WORK/synth.txt"
  echo "synth: $(cat "$WORK/synth.txt"); $(du -m "$2/tests.jsonl" | cut -f1) MB tests.jsonl, $(cat "$WORK/time.txt") s"
}

echo
echo "== 1. Ant2 scale: the floors"
B="$WORK/ant2"
synth "$PASSING" "$B"
MB=$(( $(stat -c %s "$B/tests.jsonl") / 1000000 ))
cat "$B/tests.jsonl" > /dev/null # into the page cache, as for every run below
cat_s=$(median_of cat "$B/tests.jsonl")
floor_1=$(median_of "$FLOOR" "$B" -j 1)
echo "cat: $cat_s s ($(awk -v b="$MB" -v s="$cat_s" 'BEGIN {printf "%.0f", b / s}') MB/s)"
echo "syntax-only parse, 1 thread: $floor_1 s"

echo
echo "== 2. Ant2 scale: the syntax-only parse on all cores, validate and rank, in turn, $RUNS rounds"
# one run of each per round, so that a slower minute of the machine slows all three: on a shared
# 2-core machine the same command's runs vary by a fifth (docs/performance.md, "Twenty-fourth round")
# paf synth writes tests.marks beside the plain tests file, as paf trace java --plain keeps its
# agent's: rank's pass 1 follows them. The same bundle without them (the files linked, not
# copied) is timed too: what rank costs where a bundle has no marks (docs/trace-format.md).
U="$WORK/ant2-unmarked"
rm -rf "$U" && mkdir -p "$U"
for f in "$B"/*; do [ "$(basename "$f")" = tests.marks ] || ln -f "$f" "$U/"; done
for cmd in floor validate rank unmarked; do : > "$WORK/$cmd.runs"; done
for _ in $(seq "$RUNS"); do
  measure "$FLOOR" "$B" -j "$CORES" >> "$WORK/floor.runs"
  for cmd in validate rank; do measure "$PAF" "$cmd" "$B" >> "$WORK/$cmd.runs"; done
  measure "$PAF" rank "$U" >> "$WORK/unmarked.runs"
done
for cmd in floor validate rank unmarked; do
  echo "$cmd: runs (s KiB cpu-s): $(tr '\n' ';' < "$WORK/$cmd.runs")"
done
floor_n=$(cut -d' ' -f1 "$WORK/floor.runs" | median)
floor_cpu=$(cut -d' ' -f3 "$WORK/floor.runs" | median)
echo "syntax-only parse, $CORES threads: $floor_n s ($(awk -v b="$MB" -v s="$floor_n" 'BEGIN {printf "%.0f", b / s}') MB/s), $floor_cpu s of CPU"
v=$(cut -d' ' -f1 "$WORK/validate.runs" | median)
r=$(cut -d' ' -f1 "$WORK/rank.runs" | median)
r_cpu=$(cut -d' ' -f3 "$WORK/rank.runs" | median)
vm=$(cut -d' ' -f2 "$WORK/validate.runs" | sort -n | tail -1)
rm_=$(cut -d' ' -f2 "$WORK/rank.runs" | sort -n | tail -1)
echo "median: validate $v s (peak $((vm / 1024)) MiB), rank $r s (peak $((rm_ / 1024)) MiB, $(awk -v b="$MB" -v s="$r" 'BEGIN {printf "%.0f", b / s}') MB/s)"
for cmd in validate rank; do
  out=$(measure "$PAF" "$cmd" -j 1 "$B")
  read -r s kib _ <<< "$out"
  echo "$cmd -j 1 (one thread): $s s, peak $(( kib / 1024 )) MiB"
  eval "${cmd}_1=$s"
done
echo "ratios: rank / parse floor = $(ratio "$r" "$floor_n") (target: at most 2); rank / validate = $(ratio "$r" "$v") (target: at most 1.5); rank -j 1 / parse floor -j 1 = $(ratio "$rank_1" "$floor_1"); rank -j 1 / rank = $(ratio "$rank_1" "$r")"
echo "CPU time (user + system, medians): rank $r_cpu s / parse floor $floor_cpu s = $(ratio "$r_cpu" "$floor_cpu")"
u=$(cut -d' ' -f1 "$WORK/unmarked.runs" | median)
u_cpu=$(cut -d' ' -f3 "$WORK/unmarked.runs" | median)
echo "rank without tests.marks: median $u s, $u_cpu s of CPU; rank without marks / parse floor = $(ratio "$u" "$floor_n"), in CPU time $(ratio "$u_cpu" "$floor_cpu"); rank / rank without marks = $(ratio "$r" "$u")"
"$PAF" rank "$U" --format json > "$WORK/rank.unmarked.json"
"$PAF" rank -j 1 "$B" --format json > "$WORK/rank.j1.json"
"$PAF" rank "$B" --format json > "$WORK/rank.jN.json"
if cmp -s "$WORK/rank.j1.json" "$WORK/rank.jN.json" && cmp -s "$WORK/rank.jN.json" "$WORK/rank.unmarked.json"; then
  echo "rank -j 1, rank (all cores) and rank without tests.marks: identical output"
else
  echo "rank -j 1, rank (all cores) and rank without tests.marks: OUTPUTS DIFFER" >&2
  exit 1
fi

echo
echo "== 2b. the same bundle as zstd (paf trace java's default form): the syntax-only parse, validate and rank, in turn, $RUNS rounds"
# paf synth writes the same tests, in 1 MiB zstd frames with a seek table, and the same marks:
# the reads start decompressing at the frames of the tests they want (docs/trace-format.md)
Z="$WORK/ant2-zstd"
rm -rf "$Z"
"$PAF" synth --failing "$FAILING" --passing "$PASSING" --events-per-test "$EVENTS" --seed "$SEED" \
  --compress zstd -o "$Z" 2> /dev/null
zb=$(stat -c %s "$Z/tests.jsonl.zst")
echo "tests.jsonl.zst: $(( zb / 1000000 )) MB ($(ratio "$zb" "$(stat -c %s "$B/tests.jsonl")") of the plain file's bytes)"
for cmd in floor validate rank; do : > "$WORK/$cmd.zstd.runs"; done
for _ in $(seq "$RUNS"); do
  measure "$FLOOR" "$Z" -j "$CORES" >> "$WORK/floor.zstd.runs"
  for cmd in validate rank; do measure "$PAF" "$cmd" "$Z" >> "$WORK/$cmd.zstd.runs"; done
done
for cmd in floor validate rank; do
  echo "$cmd (zstd): runs (s KiB cpu-s): $(tr '\n' ';' < "$WORK/$cmd.zstd.runs")"
done
zf=$(cut -d' ' -f1 "$WORK/floor.zstd.runs" | median)
zv=$(cut -d' ' -f1 "$WORK/validate.zstd.runs" | median)
zr=$(cut -d' ' -f1 "$WORK/rank.zstd.runs" | median)
zr_cpu=$(cut -d' ' -f3 "$WORK/rank.zstd.runs" | median)
zvm=$(cut -d' ' -f2 "$WORK/validate.zstd.runs" | sort -n | tail -1)
zrm=$(cut -d' ' -f2 "$WORK/rank.zstd.runs" | sort -n | tail -1)
echo "median (zstd): validate $zv s (peak $((zvm / 1024)) MiB), rank $zr s (peak $((zrm / 1024)) MiB, $zr_cpu s of CPU)"
echo "syntax-only parse of the zstd file (decompressed as paf opens it), $CORES threads: $zf s"
echo "ratios (zstd): rank / its parse floor = $(ratio "$zr" "$zf") (target: at most 2); rank / rank of the plain file = $(ratio "$zr" "$r"); rank / parse floor of the plain file = $(ratio "$zr" "$floor_n"); rank / validate = $(ratio "$zr" "$zv")"
"$PAF" rank "$Z" --format json > "$WORK/rank.zstd.json"
if cmp -s "$WORK/rank.jN.json" "$WORK/rank.zstd.json"; then
  echo "rank of the zstd bundle and of the plain one: identical output"
else
  echo "rank of the zstd bundle and of the plain one: OUTPUTS DIFFER" >&2
  exit 1
fi
rm -rf "$Z"

echo
echo "== 3. rank at $(echo "$SCALES" | sed 's/ /x, /g')x the passing tests"
printf '%-6s %10s %12s %10s %10s %12s\n' scale passing events seconds 'peak MiB' 's per 1M ev'
base_mem=""
for k in $SCALES; do
  if [ "$k" = 1 ]; then D="$B"; else D="$WORK/ant2x$k"; synth $((PASSING * k)) "$D" > "$WORK/synth.$k.txt"; fi
  events=$(grep -o '[0-9]* events' "$WORK/synth.txt" | cut -d' ' -f1)
  out=$(measure "$PAF" rank "$D")
  read -r s kib _ <<< "$out"
  m=$(( kib / 1024 ))
  [ -z "$base_mem" ] && base_mem=$m
  last_mem=$m
  printf '%-6s %10d %12d %10s %10d %12.3f\n' "${k}x" $((PASSING * k)) "$events" "$s" "$m" "$(awk -v s="$s" -v e="$events" 'BEGIN {print s / (e / 1e6)}')"
  [ "$k" = 1 ] || rm -rf "$D"
done
echo "peak memory at ${k}x / 1x: $(awk -v a="$last_mem" -v b="$base_mem" 'BEGIN {printf "%.2f", a / b}') (target: at most 1.5)"
peak=$(( rm_ > vm ? rm_ / 1024 : vm / 1024 ))
for k in "$zvm" "$zrm"; do peak=$(( k / 1024 > peak ? k / 1024 : peak )); done
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
  read -r s kib _ <<< "$out"
  m=$(( kib / 1024 ))
  peak=$(( m > peak ? m : peak ))
  echo "$cmd: $s s, peak $m MiB"
done
rm -rf "$D"
echo "peak memory of every run above: $peak MiB (bound: $BOUND_MIB MiB)"
[ "$peak" -le "$BOUND_MIB" ] || { echo "bench.sh: peak memory $peak MiB is over $BOUND_MIB MiB" >&2; exit 1; }

echo
echo "== 5. the tracer on the shipped Java examples: paf trace java against plain JUnit, alternately, medians"
J=/usr/share/java
if [ "${BENCH_JAVA:-1}" = 0 ]; then
  echo "skipped (BENCH_JAVA=0)"
elif ! command -v javac > /dev/null || [ ! -f "$J/junit4.jar" ] || [ ! -f "$J/asm.jar" ]; then
  echo "skipped: needs a JDK, JUnit 4 and ASM (tracer/java/install.sh installs them)"
else
  TD="$ROOT/testdata/java"
  HAMCREST="$J/hamcrest-core.jar"; [ -f "$HAMCREST" ] || HAMCREST="$J/hamcrest.jar"
  # the gigabytes the steps above wrote, written back now rather than while the tracer writes
  # its own files: la4j's traced run took 4.3 to 6.1 s with two of its old tests files still
  # dirty in the page cache, against 3.0 s once they were deleted and synced (docs/performance.md,
  # "Nineteenth round")
  sync
  # paf builds its tracer's jars at its first run in a fresh checkout: not a cost to measure
  "$PAF" trace java --quiet --classpath "$WORK" --include none --tests none -o "$WORK/warm-up" > /dev/null 2>&1 || true
  printf '%-13s %6s %5s %9s %9s %9s %9s %9s %9s %9s %10s %10s\n' example tests runs 'plain s' 'traced s' overhead \
    'warm s' 'warm x' 'floor s' 'floor x' events 'bundle KB'
  for spec in "library org.shelf" "static-state org.cli" "cases cases"; do
    ex=${spec% *}; inc=${spec#* }
    C="$WORK/java/$ex"; rm -rf "$C"; mkdir -p "$C/classes"
    javac --release 11 -g -nowarn -encoding UTF-8 -d "$C/classes" -cp "$J/junit4.jar" $(find "$TD/$ex/src" "$TD/$ex/test" -name '*.java')
    tests=$(cd "$TD/$ex/test" && find . -name '*.java' | sed 's|^\./||; s|\.java$||; s|/|.|g' | sort | paste -sd, -)
    # a user's first traced run makes the tracer's class archive, once per JDK and jars (docs/java.md,
    # "The class archive"): made here, before the runs measured
    [ "$ex" != library ] || "$PAF" trace java --quiet --classpath "$C/classes" --include "$inc" --tests "$tests" \
      -o "$C/warm-up" > /dev/null 2>&1 || true
    # the class cache of these classes (docs/java.md, "The class cache"), recorded before the
    # warm runs measured, which replay it; the traced and floor runs instrument every class
    "$PAF" trace java --quiet --classpath "$C/classes" --include "$inc" --tests "$tests" \
      -o "$C/warm" > /dev/null 2>&1 || true
    # one plain run, then one traced, and again: a slower minute of the machine slows both
    runs=$RUNS
    [ "$ex" = cases ] || [ "$runs" -ge 9 ] || runs=9
    : > "$WORK/plain.runs"; : > "$WORK/traced.runs"; : > "$WORK/warm.runs"; : > "$WORK/floor.runs"
    for _ in $(seq "$runs"); do
      # plain JUnit exits 1 when a test fails: its time is what counts
      measure sh -c 'java -XX:-OmitStackTraceInFastThrow -cp "$1" org.junit.runner.JUnitCore $2 || true' sh \
        "$C/classes:$J/junit4.jar:$HAMCREST" "${tests//,/ }" >> "$WORK/plain.runs"
      # its summary line (stderr) is left out of the table
      measure sh -c '"$@" 2> /dev/null' sh "$PAF" trace java --quiet --no-class-cache --classpath "$C/classes" \
        --include "$inc" --tests "$tests" -o "$C/bundle" >> "$WORK/traced.runs"
      measure sh -c '"$@" 2> /dev/null' sh "$PAF" trace java --quiet --classpath "$C/classes" \
        --include "$inc" --tests "$tests" -o "$C/warm" >> "$WORK/warm.runs"
      measure sh -c '"$@" 2> /dev/null' sh "$PAF" trace java --quiet --no-class-cache --classpath "$C/classes" \
        --include "$inc" --tests "$tests" --max-events 1 -o "$C/floor" >> "$WORK/floor.runs"
    done
    plain=$(cut -d' ' -f1 "$WORK/plain.runs" | median)
    traced=$(cut -d' ' -f1 "$WORK/traced.runs" | median)
    warm=$(cut -d' ' -f1 "$WORK/warm.runs" | median)
    floor=$(cut -d' ' -f1 "$WORK/floor.runs" | median)
    # "DIR: ok: N tests (F failing, P passing), E events, S statements"
    read -r n ev < <("$PAF" validate "$C/bundle" | sed -E 's/.*ok: ([0-9]+) tests? .*\), ([0-9]+) events?.*/\1 \2/')
    printf '%-13s %6d %5d %9s %9s %8sx %9s %8sx %9s %8sx %10d %10d\n' "$ex" "$n" "$runs" "$plain" "$traced" \
      "$(ratio "$traced" "$plain")" "$warm" "$(ratio "$warm" "$plain")" "$floor" "$(ratio "$floor" "$plain")" "$ev" \
      "$(du -k "$C/bundle" | tail -1 | cut -f1)"
    # cases' stack overflow test records as many frames as the stack holds, which differs from
    # run to run with or without the cache
    [ "$ex" = cases ] || cmp -s <(zstd -dc "$C/bundle/tests.jsonl.zst") <(zstd -dc "$C/warm/tests.jsonl.zst") \
      || { echo "bench.sh: $ex: the warm run's tests differ from the traced run's" >&2; exit 1; }
  done
  echo "(traced: the whole command, its default zstd bundle, every class instrumented (--no-class-cache): JVM starts, the agent, the analysis of the failing tests, the static DUAs, the compression; target: at most 2x)"
  echo "(warm: the same command run again, its classes replayed from the class cache a first run recorded: a user's second run of the same suite)"
  echo "(floor: the same with --max-events 1, next to nothing recorded: what no change to the recording can take off)"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
