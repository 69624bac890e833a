#!/usr/bin/env bash
# Checks the built binaries' command lines: --help and a mistyped flag start
# nothing and touch no data dir, a missing or unreachable display is a clear
# error (no panic) that leaves no tray behind, and both binaries carry the
# version `git describe` gives. Usage: check-binaries.sh (after build.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
source build/scripts/lib.sh
bin=build/bin/jarvis
cli=build/bin/jarvis-cli
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
home="$work/home"
out="$work/out"
passed=0
fail() { echo "binary check: $*"; exit 1; }

# expect CODE NAME COMMAND...: runs COMMAND on the throwaway home and checks
# its exit code, that it did not panic, and that it left no process behind.
expect() {
  local want="$1" name="$2"; shift 2
  local mark="bincheck-$$-$RANDOM$RANDOM" rc=0 left
  env JARVIS_RUN_MARK="$mark" JARVIS_HOME="$home" "$@" >"$out" 2>&1 || rc=$?
  sleep 0.5 # a detached child gets a moment to show up
  left="$(marked_pids "$mark")"
  if [ -n "$left" ]; then
    kill $left 2>/dev/null || true # started by this check: stopped by pid
    fail "$name left processes running ($left): $(cat "$out")"
  fi
  [ "$rc" = "$want" ] || fail "$name exited $rc, want $want: $(cat "$out")"
  if grep -qE '^panic:|^goroutine [0-9]+ ' "$out"; then fail "$name panicked: $(head -5 "$out")"; fi
  passed=$((passed + 1))
}
contains() { grep -qF -- "$1" "$out" || fail "$2: output lacks \"$1\": $(cat "$out")"; }
untouched() { [ ! -e "$home" ] || fail "$1 created $(find "$home" | head -5 | tr '\n' ' ')"; }

expect 0 "jarvis --help" "$bin" --help
contains "Usage: jarvis" "jarvis --help"
untouched "jarvis --help"

expect 2 "jarvis --bogus" "$bin" --bogus
contains "flag provided but not defined: -bogus" "jarvis --bogus"
contains "Usage: jarvis" "jarvis --bogus"
untouched "jarvis --bogus"

expect 2 "jarvis extra" "$bin" extra-argument
untouched "jarvis extra-argument"

expect 1 "jarvis without a display" env -u DISPLAY -u WAYLAND_DISPLAY "$bin"
contains "no display" "jarvis without a display"
grep -q "no display" "$home/logs/jarvis.log" || fail "the failed start is not in jarvis.log"

# A display nobody serves: GTK cannot start.
n=4000
while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
expect 1 "jarvis on an unreachable display" env -u WAYLAND_DISPLAY DISPLAY=":$n" "$bin"
contains "cannot open the window" "jarvis on an unreachable display"
if [ -e "$home/state/scheduler.lock" ] && ! flock -n "$home/state/scheduler.lock" true; then
  fail "a tray holds the scheduler after the window failed"
fi

version="$(git describe --tags --always --dirty 2>/dev/null || echo dev)"
expect 0 "jarvis --version" "$bin" --version
[ "$(cat "$out")" = "jarvis $version" ] || fail "jarvis --version printed \"$(cat "$out")\", want \"jarvis $version\""
expect 0 "jarvis-cli --version" "$cli" --version
[ "$(cat "$out")" = "jarvis-cli version $version" ] || fail "jarvis-cli --version printed \"$(cat "$out")\", want $version"
if git rev-parse --git-dir >/dev/null 2>&1 && [ "$version" = dev ]; then fail "git describe gave no version"; fi

# The README names the exact Go version go.mod requires.
gover="$(go mod edit -json | sed -n 's/^[[:space:]]*"Go": "\([^"]*\)".*/\1/p')"
grep -qF "Go $gover " README.md || fail "README.md does not name Go $gover (go.mod's go directive)"
passed=$((passed + 1))

echo "binary checks: $passed passed, 0 failed"
