#!/usr/bin/env bash
# Installs what the Java front end of paf needs, from Debian packages (idempotent):
# a JDK (javac, jar), ASM 9 (asm, asm-tree, asm-analysis, asm-commons), JUnit 4 (+ hamcrest),
# python3 and zstd (for the checks).
# With --maven, also Maven and the plugins `paf trace java --maven` runs offline from Debian's
# repository /usr/share/maven-repo (the e2e's Maven check). With --libraries, also the real
# libraries load-check.sh loads under the agent (commons-lang3, commons-io, commons-collections4,
# commons-cli, Guava).
set -euo pipefail
need=()
command -v javac >/dev/null 2>&1 || need+=(default-jdk-headless)
command -v jar >/dev/null 2>&1 || need+=(default-jdk-headless)
[ -f /usr/share/java/asm.jar ] && [ -f /usr/share/java/asm-tree.jar ] && [ -f /usr/share/java/asm-analysis.jar ] || need+=(libasm-java)
[ -f /usr/share/java/junit4.jar ] || need+=(junit4)
[ -f /usr/share/java/hamcrest-core.jar ] || [ -f /usr/share/java/hamcrest.jar ] || need+=(libhamcrest-java)
command -v python3 >/dev/null 2>&1 || need+=(python3)
# the zstd tool: the e2e checks read `paf trace java`'s default zstd bundles with it
command -v zstd >/dev/null 2>&1 || need+=(zstd)
if [ "${1:-}" = --maven ]; then
  command -v mvn >/dev/null 2>&1 || need+=(maven)
  for p in compiler resources dependency; do
    [ -d "/usr/share/maven-repo/org/apache/maven/plugins/maven-$p-plugin" ] || need+=("libmaven-$p-plugin-java")
  done
  # the compiler plugin's dependencies import JUnit's BOM at Debian's version "debian", which
  # only the junit5 package installs (a fresh machine without it cannot resolve the plugin)
  [ -f /usr/share/maven-repo/org/junit/junit-bom/debian/junit-bom-debian.pom ] || need+=(junit5)
fi
if [ "${1:-}" = --libraries ]; then
  for p in commons-lang3 commons-io commons-collections4 commons-cli guava; do
    [ -f "/usr/share/java/$p.jar" ] || need+=("lib$p-java")
  done
fi
if [ ${#need[@]} -eq 0 ]; then
  echo "install.sh: everything is already installed"
  exit 0
fi
# de-duplicate
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
echo "install.sh: installing ${need[*]}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
echo "install.sh: done"
