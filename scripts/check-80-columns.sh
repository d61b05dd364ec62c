#!/usr/bin/env bash
# `paf rank` in a real 80-column terminal: runs it inside tmux (80x150, a UTF-8 locale) on
# every shipped bundle and on the Java example library (long repository paths), by flow-set and
# by test, captures the screen, and fails if any line was wrapped by the terminal (tmux's
# joined capture differs) or is wider than 80 columns, or if the table is not the terminal's
# (box drawing, which only a UTF-8 terminal gets). Installs tmux if it is missing.
# Usage: scripts/check-80-columns.sh   (PAF=path/to/paf, default target/release/paf)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
paf="${PAF:-$root/target/release/paf}"
if ! command -v tmux > /dev/null; then
  apt-get update -q > /dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q tmux > /dev/null
fi
sock="paf-80-$$"
tmux_() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tmux_ kill-server 2> /dev/null || true' EXIT
# One session lives throughout, so the server never exits between screens.
tmux_ new-session -d -s keep "sleep 3600"
out=$(mktemp -d)
checked=0
run() {
  local name="$1"; shift
  local c="screen$checked"
  tmux_ new-session -d -x 80 -y 150 -s "$c" \
    "env LANG=C.UTF-8 LC_ALL=C.UTF-8 $paf $*; echo '[done]'; sleep 600"
  # A release build takes well under a second; poll a generous while (2 minutes) for the marker.
  for _ in $(seq 1 1200); do
    tmux_ capture-pane -p -t "$c" | grep -q '^\[done\]' && break
    sleep 0.1
  done
  tmux_ capture-pane -p -t "$c" > "$out/$name.plain"
  tmux_ capture-pane -p -J -t "$c" > "$out/$name.joined"
  if ! grep -q '^\[done\]' "$out/$name.plain"; then
    echo "FAIL: paf $*: no output on the screen"; cat "$out/$name.plain"; exit 1
  fi
  if ! cmp -s "$out/$name.plain" "$out/$name.joined"; then
    echo "FAIL: paf $*: the terminal wrapped a line"; diff "$out/$name.plain" "$out/$name.joined" || true; exit 1
  fi
  if [ "$(LC_ALL=C.UTF-8 wc -L < "$out/$name.plain")" -gt 80 ]; then
    echo "FAIL: paf $*: a line wider than 80 columns"; cat "$out/$name.plain"; exit 1
  fi
  if ! grep -q '│' "$out/$name.plain"; then
    echo "FAIL: paf $*: no box-drawing table on a UTF-8 terminal"; cat "$out/$name.plain"; exit 1
  fi
  tmux_ kill-session -t "$c" 2> /dev/null || true
  checked=$((checked + 1))
}
for b in traces/*/; do
  b="${b%/}"
  run "$(basename "$b")" rank "$b"
  run "$(basename "$b")-by-test" rank "$b" --by test
done
lib=testdata/java/library
run library rank "$lib/bundle" --source-root "$lib/src"
run library-by-test rank "$lib/bundle" --source-root "$lib/src" --by test
echo "80 columns: $checked screens, no wrapped line"
echo "--- paf rank $lib/bundle --source-root $lib/src, as the 80-column terminal showed it:"
sed '/^\[done\]/,$d' "$out/library.plain" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
