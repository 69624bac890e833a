#!/usr/bin/env bash
# Smoke tests of the built desktop app on a private Xvfb display and a private
# D-Bus session bus: the window paints (screenshot), the tray process runs the
# scheduler as the data dir's only one and stops cleanly, and a question typed
# into the real window gets a cited answer read back off the screen.
# Everything runs with throwaway data dirs and a throwaway HOME inside one
# temporary folder, so nothing is written outside it; every process started
# here is stopped by its pid.
# Usage: smoke-window.sh BINARY SCREENSHOT.png   (jarvis-cli and jarvis-bridge
# are expected next to BINARY)
set -euo pipefail
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; shot="$2"
cli="$(dirname "$bin")/jarvis-cli"
bridge="$(dirname "$bin")/jarvis-bridge"
work="$(mktemp -d)"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "$1"; [ -n "${2:-}" ] && tail -20 "$2"; exit 1; }
# waitfile FILE: until FILE has content (10 s at most).
waitfile() { for _ in $(seq 1 50); do [ -s "$1" ] && return 0; sleep 0.2; done; return 1; }

# Xvfb picks a free display itself and says which (-displayfd), so parallel
# runs never collide; the bus is ours alone, so GTK and WebKit never
# autolaunch one that would outlive the test, and its socket lives in $work.
Xvfb -displayfd 3 -screen 0 1280x860x24 -nolisten tcp 3>"$work/display" >/dev/null 2>&1 &
pids+=($!)
waitfile "$work/display" || fail "Xvfb did not start"
export DISPLAY=":$(head -1 "$work/display")"
dbus-daemon --session --nofork --nopidfile --address="unix:dir=$work" --print-address=3 3>"$work/bus" >/dev/null 2>&1 &
pids+=($!)
waitfile "$work/bus" || fail "dbus-daemon did not start"
export DBUS_SESSION_BUS_ADDRESS="$(head -1 "$work/bus")"
export HOME="$work/home" XDG_CACHE_HOME="" XDG_DATA_HOME="" XDG_CONFIG_HOME=""
mkdir -p "$HOME"

# 1. The window paints, and keeps its caches in the data dir.
app_home="$work/app"
JARVIS_HOME="$app_home" JARVIS_NO_TRAY=1 "$bin" >"$work/app.log" 2>&1 &
app_pid=$!; pids+=($app_pid)
sleep 8
kill -0 "$app_pid" 2>/dev/null || fail "window smoke test: the app exited early" "$work/app.log"
import -window root "$shot"
# A painted shell has many colours; a blank or black screen has one or two.
colours=$(convert "$shot" -format '%k' info:)
[ "$colours" -ge 20 ] || fail "window smoke test: screenshot looks blank ($colours colours)"
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
[ -d "$app_home/cache/jarvis" ] || fail "window smoke test: no WebKit cache under JARVIS_HOME/cache"
[ ! -e "$HOME/.cache/jarvis" ] || fail "window smoke test: the app wrote a cache to ~/.cache/jarvis instead of JARVIS_HOME"
echo "window smoke test: ok (app alive after 8 s, $colours colours, screenshot $shot, caches under JARVIS_HOME)"

# 2. The tray: it runs the scheduler (status file with its pid), is the data
# dir's only scheduler (a second tray and `jarvis-cli sync` both refuse), and
# stops cleanly on SIGTERM.
tray_home="$work/tray"
JARVIS_HOME="$tray_home" "$bin" --tray >"$work/tray.log" 2>&1 &
tray_pid=$!; pids+=($tray_pid)
waitfile "$tray_home/state/sync_status.json" || fail "tray smoke test: no status file" "$work/tray.log"
second=$(JARVIS_HOME="$tray_home" timeout 10 "$bin" --tray 2>&1 || true)
case "$second" in
  *"already running"*"pid $tray_pid"*) ;;
  *) fail "tray smoke test: a second tray did not refuse naming pid $tray_pid: $second" ;;
esac
set +e
sync_out=$(JARVIS_HOME="$tray_home" timeout 10 "$cli" sync 2>&1); sync_rc=$?
set -e
[ "$sync_rc" -eq 4 ] || fail "tray smoke test: jarvis-cli sync beside the tray exited $sync_rc: $sync_out"
case "$sync_out" in
  *"already running"*"pid $tray_pid"*) ;;
  *) fail "tray smoke test: jarvis-cli sync did not name the tray: $sync_out" ;;
esac
kill -TERM "$tray_pid"
for _ in $(seq 1 25); do kill -0 "$tray_pid" 2>/dev/null || break; sleep 0.2; done
kill -0 "$tray_pid" 2>/dev/null && fail "tray smoke test: did not stop on SIGTERM"
grep -q "tray stopped" "$tray_home/logs/sync.log" || fail "tray smoke test: no clean stop in sync.log" "$tray_home/logs/sync.log"
echo "tray smoke test: ok (scheduler status written, one scheduler per data dir, clean stop)"

# 3. The desktop app for real: the same window, its real Wails bindings and
# events, a seeded home (vault, fixture models, a local server speaking
# Ollama's protocol). Ask a question with the mouse and keyboard, then read
# the answer off the screen.
desk_home="$work/desk"
"$bridge" -seed-home "$desk_home" >"$work/brain.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q seeded "$work/brain.log" && break; sleep 0.2; done
JARVIS_HOME="$desk_home" JARVIS_NO_TRAY=1 "$bin" >"$work/desk.log" 2>&1 &
pids+=($!)
sleep 6
# Wails centres the 1200x800 window on the 1280x860 screen: origin (40,30).
xdotool mousemove $((40 + 730)) $((30 + 290)) click 1   # "Start a chat"
sleep 1.5
xdotool mousemove $((40 + 700)) $((30 + 762)) click 1   # the composer
xdotool type --delay 15 "how should I water my tomatoes"
xdotool key Return
sleep 4
import -window root "$(dirname "$shot")/desktop-chat.png"
seen=$(tesseract "$(dirname "$shot")/desktop-chat.png" - 2>/dev/null | tr '\n' ' ')
case "$seen" in
  *"From your notes"*tomatoes*) ;;
  *) fail "desktop e2e: no cited answer on screen; OCR saw: $seen" "$work/desk.log" ;;
esac
echo "desktop e2e: ok (question typed into the real window, cited answer read off the screen)"
echo "3 passed, 0 failed"
