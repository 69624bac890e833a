#!/usr/bin/env bash
# Starts the built app on a private Xvfb display with a throwaway JARVIS_HOME,
# checks that it stays up and paints a non-blank window, and saves a
# screenshot. Usage: smoke-window.sh BINARY SCREENSHOT.png
set -euo pipefail
bin="$1"; shot="$2"
home="$(mktemp -d)"
display=":$((RANDOM % 400 + 100))"
Xvfb "$display" -screen 0 1280x860x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
app_pid=""
cleanup() {
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null || true
  kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$home"
}
trap cleanup EXIT
sleep 1
JARVIS_HOME="$home" JARVIS_NO_TRAY=1 DISPLAY="$display" "$bin" >"$home/app.log" 2>&1 &
app_pid=$!
sleep 8
if ! kill -0 "$app_pid" 2>/dev/null; then
  echo "window smoke test: the app exited early"; cat "$home/app.log"; exit 1
fi
DISPLAY="$display" import -window root "$shot"
# A painted shell has many colours; a blank or black screen has one or two.
colours=$(convert "$shot" -format '%k' info:)
if [ "$colours" -lt 20 ]; then
  echo "window smoke test: screenshot looks blank ($colours colours)"; exit 1
fi
echo "window smoke test: ok (app alive after 8 s, $colours colours, screenshot $shot)"

# The tray process: it must start the scheduler (status file with its pid),
# refuse a second instance, and stop cleanly on SIGTERM.
tray_home="$(mktemp -d)"
dbus-run-session -- env JARVIS_HOME="$tray_home" "$bin" --tray >"$tray_home/tray.log" 2>&1 &
tray_pid=$!
status="$tray_home/state/sync_status.json"
for _ in $(seq 1 50); do [ -s "$status" ] && break; sleep 0.2; done
if [ ! -s "$status" ]; then
  echo "tray smoke test: no status file"; cat "$tray_home/tray.log"; exit 1
fi
second=$(JARVIS_HOME="$tray_home" timeout 10 "$bin" --tray 2>&1 || true)
case "$second" in
  *"already running"*) ;;
  *) echo "tray smoke test: a second tray did not refuse: $second"; exit 1 ;;
esac
pkill -TERM -f "$bin --tray" || true
for _ in $(seq 1 25); do kill -0 "$tray_pid" 2>/dev/null || break; sleep 0.2; done
if kill -0 "$tray_pid" 2>/dev/null; then echo "tray smoke test: did not stop on SIGTERM"; exit 1; fi
grep -q "tray stopped" "$tray_home/logs/sync.log" || { echo "tray smoke test: no clean stop in sync.log"; cat "$tray_home/logs/sync.log"; exit 1; }
rm -rf "$tray_home"
echo "tray smoke test: ok (scheduler status written, single instance, clean stop)"

# The desktop app for real: the same window, its real Wails bindings and
# events, a seeded home (vault, fixture models, a local server speaking
# Ollama's protocol). Ask a question with the mouse and keyboard, then read
# the answer off the screen.
bridge="$(dirname "$bin")/jarvis-bridge"
desk_home="$(mktemp -d)"
"$bridge" -seed-home "$desk_home" >"$desk_home/brain.log" 2>&1 &
brain_pid=$!
for _ in $(seq 1 50); do grep -q seeded "$desk_home/brain.log" && break; sleep 0.2; done
JARVIS_HOME="$desk_home" JARVIS_NO_TRAY=1 DISPLAY="$display" "$bin" >"$desk_home/app.log" 2>&1 &
desk_pid=$!
sleep 6
# Wails centres the 1200x800 window on the 1280x860 screen: origin (40,30).
DISPLAY="$display" xdotool mousemove $((40 + 730)) $((30 + 290)) click 1   # "Start a chat"
sleep 1.5
DISPLAY="$display" xdotool mousemove $((40 + 700)) $((30 + 762)) click 1   # the composer
DISPLAY="$display" xdotool type --delay 15 "how should I water my tomatoes"
DISPLAY="$display" xdotool key Return
sleep 4
DISPLAY="$display" import -window root "$(dirname "$shot")/desktop-chat.png"
seen=$(tesseract "$(dirname "$shot")/desktop-chat.png" - 2>/dev/null | tr '\n' ' ')
kill "$desk_pid" "$brain_pid" 2>/dev/null || true
case "$seen" in
  *"From your notes"*tomatoes*) ;;
  *) echo "desktop e2e: no cited answer on screen; OCR saw: $seen"; cat "$desk_home/app.log" | tail -20; exit 1 ;;
esac
rm -rf "$desk_home"
echo "desktop e2e: ok (question typed into the real window, cited answer read off the screen)"
echo "3 passed, 0 failed"
