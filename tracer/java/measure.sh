#!/usr/bin/env bash
# Measures tracing overhead and trace size on the library suite (testdata/java/library):
#   tracer/java/measure.sh [WORKDIR] [RUNS]
# Prints untraced and traced wall times (median of RUNS), events, bytes per event, events/s.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
W="${1:-/tmp/paf-measure}"; RUNS="${2:-5}"
mkdir -p "$W"; W="$(cd "$W" && pwd)"
TD="$ROOT/testdata/java/library"
J=/usr/share/java
[ -f "$HERE/build/paf-runner.jar" ] || "$HERE/build.sh"
rm -rf "$W/classes"; mkdir -p "$W/classes"
javac --release 11 -g -nowarn -XDsuppressNotes -d "$W/classes" -cp "$J/junit4.jar" $(find "$TD/src" "$TD/test" -name '*.java')
TESTS=$(cd "$TD/test" && ls *.java | sed 's/\.java$//' | sort | paste -sd, -)
CP="$J/junit4.jar:$J/hamcrest-core.jar:$W/classes"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
now() { date +%s%N; }
: > "$W/untraced"; : > "$W/traced"; : > "$W/traced-gz"
for i in $(seq "$RUNS"); do
  t0=$(now); java -XX:-OmitStackTraceInFastThrow -cp "$CP" org.junit.runner.JUnitCore ${TESTS//,/ } > /dev/null || true; t1=$(now)
  echo $(( (t1 - t0) / 1000000 )) >> "$W/untraced"
  t0=$(now); "$HERE/trace.sh" --quiet --classpath "$W/classes" --include org.shelf --tests "$TESTS" -o "$W/bundle" 2> "$W/trace.log"; t1=$(now)
  echo $(( (t1 - t0) / 1000000 )) >> "$W/traced"
  t0=$(now); "$HERE/trace.sh" --quiet --gzip --classpath "$W/classes" --include org.shelf --tests "$TESTS" -o "$W/bundle-gz" 2>/dev/null; t1=$(now)
  echo $(( (t1 - t0) / 1000000 )) >> "$W/traced-gz"
done
U=$(median < "$W/untraced"); T=$(median < "$W/traced"); G=$(median < "$W/traced-gz")
EV=$(grep -vc '"k":"\(begin\|end\)"' "$W/bundle/tests.jsonl")
TESTN=$(grep -c '"k":"end"' "$W/bundle/tests.jsonl")
EB=$(grep -v '"k":"\(begin\|end\)"' "$W/bundle/tests.jsonl" | wc -c)
ALLB=$(cat "$W/bundle/tests.jsonl" "$W/bundle/statements.jsonl" | wc -c)
GZB=$(cat "$W/bundle-gz/tests.jsonl.gz" "$W/bundle-gz/statements.jsonl.gz" | wc -c)
echo "tests: $TESTN; events: $EV; event bytes: $EB ($(( EB / EV )) bytes/event); bundle: $ALLB bytes plain, $GZB bytes gzip"
echo "wall ms (median of $RUNS): untraced JUnitCore $U; traced $T (x$(awk "BEGIN{printf \"%.2f\", $T/$U}")); traced+gzip $G"
echo "events per second of traced wall time: $(awk "BEGIN{printf \"%d\", $EV/($T/1000)}")"

# Throughput: one test that makes many library calls (the Randoop suite is too small to show it).
mkdir -p "$W/stress"
cat > "$W/stress/StressTest.java" <<'JAVA'
public class StressTest {
    @org.junit.Test
    public void loop() {
        long t0 = System.nanoTime();
        org.shelf.RingLog log = new org.shelf.RingLog(64);
        org.shelf.Catalog cat = new org.shelf.Catalog();
        org.shelf.Grid g = new org.shelf.Grid(8, 8);
        long sum = 0;
        for (int i = 0; i < 20000; i++) {
            log.append("x" + (i & 7));
            if (log.size() < 64) sum += log.get(0).length();
            cat.add("item" + (i & 31), i);
            sum += cat.priceOf("item" + (i & 31));
            g.set(i & 7, (i >> 3) & 7, i);
            sum += g.rowSum(i & 7);
        }
        System.err.println("STRESS_MS " + (System.nanoTime() - t0) / 1000000 + " " + sum);
    }
}
JAVA
javac -nowarn -d "$W/stress" -cp "$W/classes:$J/junit4.jar" "$W/stress/StressTest.java"
SU=$(java -cp "$CP:$W/stress" org.junit.runner.JUnitCore StressTest 2>&1 | awk '/STRESS_MS/ {print $2}')
"$HERE/trace.sh" --max-events 100000000 --classpath "$W/classes:$W/stress" --include org.shelf --tests StressTest -o "$W/stress-bundle" 2> "$W/stress.log"
ST=$(awk '/STRESS_MS/ {print $2}' "$W/stress.log")
SEV=$(grep -vc '"k":"\(begin\|end\)"' "$W/stress-bundle/tests.jsonl")
SB=$(wc -c < "$W/stress-bundle/tests.jsonl")
echo "stress test: untraced ${SU} ms; traced ${ST} ms (x$(awk "BEGIN{printf \"%.0f\", $ST/($SU>0?$SU:1)}")); $SEV events, $(( SB / SEV )) bytes/event, $(awk "BEGIN{printf \"%d\", $SEV/($ST/1000)}") events/s inside the test"
