#!/usr/bin/env bash
# Builds the paf Java front end with javac and jar (no Maven) into tracer/java/build/:
#   paf-rt.jar      the runtime instrumented code calls (boot class path of the agent)
#   paf-instr.jar   the ASM instrumenter (loaded by the agent in its own class loader)
#   paf-agent.jar   the agent jar (Premain-Class paf.agent.Agent; -agentlib:instrument=JAR=OPTS)
#   paf-runner.jar  the supervisor (trace.sh), the traced JUnit worker and the order runner
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
B="${PAF_TRACER_BUILD:-$HERE/build}"
J=/usr/share/java
# ASM and JUnit: $PAF_ASM_CLASSPATH and $PAF_JUNIT_CLASSPATH (':'-separated jars), else Debian's
ASM="${PAF_ASM_CLASSPATH:-$J/asm.jar:$J/asm-tree.jar:$J/asm-analysis.jar}"
JUNIT="${PAF_JUNIT_CLASSPATH:-$J/junit4.jar}"
IFS=: read -r -a jars <<< "$ASM:$JUNIT"
for f in "${jars[@]}"; do
  [ -f "$f" ] || { echo "build.sh: $f is missing; run tracer/java/install.sh, or set PAF_ASM_CLASSPATH / PAF_JUNIT_CLASSPATH" >&2; exit 2; }
done
# the class archives (src/cli/cmd/trace/cds.rs) hold the old jars' classes
rm -rf "$B/classes" "$B/cds"
mkdir -p "$B/classes/rt" "$B/classes/instr" "$B/classes/agent" "$B/classes/runner"
# -XDstringConcat=inline: string concatenation as StringBuilder calls, not invokedynamic call
# sites that each cost a bootstrap when first run (several percent of a short traced run)
JC=(javac --release 11 -g -nowarn -XDsuppressNotes -XDstringConcat=inline -encoding UTF-8)
"${JC[@]}" -d "$B/classes/rt" $(find "$HERE/src/rt" -name '*.java')
"${JC[@]}" -d "$B/classes/instr" -cp "$B/classes/rt:$ASM" $(find "$HERE/src/instr" -name '*.java')
"${JC[@]}" -d "$B/classes/agent" -cp "$B/classes/rt" $(find "$HERE/src/agent" -name '*.java')
"${JC[@]}" -d "$B/classes/runner" -cp "$B/classes/rt:$JUNIT" $(find "$HERE/src/runner" -name '*.java')
cat > "$B/agent.mf" <<MF
Premain-Class: paf.agent.Agent
Boot-Class-Path: paf-rt.jar
Can-Retransform-Classes: false
MF
cat > "$B/runner.mf" <<MF
Main-Class: paf.runner.Supervisor
MF
jar --create --file "$B/paf-rt.jar" -C "$B/classes/rt" .
jar --create --file "$B/paf-instr.jar" -C "$B/classes/instr" .
jar --create --file "$B/paf-agent.jar" --manifest "$B/agent.mf" -C "$B/classes/agent" .
jar --create --file "$B/paf-runner.jar" --manifest "$B/runner.mf" -C "$B/classes/runner" .
echo "build.sh: built $B/paf-agent.jar paf-rt.jar paf-instr.jar paf-runner.jar"
