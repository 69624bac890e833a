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
JARVIS_HOME="$home" DISPLAY="$display" "$bin" >"$home/app.log" 2>&1 &
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
echo "1 passed, 0 failed"
