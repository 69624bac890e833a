# Helpers shared by the test scripts (sourced, not run).

# marked_pids MARK: the pids of processes whose environment carries
# JARVIS_RUN_MARK=MARK, i.e. everything a run started with that mark that is
# still alive, however detached (setsid, daemonised).
marked_pids() {
  local want="JARVIS_RUN_MARK=$1" env pid
  for env in /proc/[0-9]*/environ; do
    pid="${env#/proc/}"; pid="${pid%/environ}"
    if tr '\0' '\n' 2>/dev/null <"$env" | grep -qxF "$want"; then
      echo "$pid"
    fi
  done
}

# run_clean NAME COMMAND...: runs COMMAND with a fresh mark and fails when it
# leaves any process behind. Leftovers are listed, then stopped by pid (they
# are this run's own).
run_clean() {
  local name="$1"; shift
  local mark="$name-$$-$RANDOM$RANDOM" left pid
  JARVIS_RUN_MARK="$mark" "$@"
  sleep 0.5 # a process exiting with its parent gets a moment to go
  left="$(marked_pids "$mark")"
  if [ -n "$left" ]; then
    echo "$name left processes running:"
    for pid in $left; do
      echo "  $pid $(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")"
    done
    for pid in $left; do kill "$pid" 2>/dev/null || true; done
    return 1
  fi
}
