#!/usr/bin/env bash
# Resident memory of the real desktop window while it answers (#33: at most
# 500 MB with a 20k-note knowledge base, ~60,000 chunks, both real-size
# models). The window (built from HEAD: `git archive`, its frontend built
# with the checkout's node_modules) runs on a private Xvfb display and D-Bus
# bus with a throwaway JARVIS_HOME: a generated store of CHUNKS chunks
# (kbbench build, keyword only) whose vectors kbbench fill stores under the
# id the window gives the embedding folder ("local:" + its folder name), so
# the window searches them as they are (no backfill); the embedder and the
# reranker are the model folders given (real-shape graphs are enough: the
# memory and the time are a real model's). The Library's search box is
# driven with xdotool: QUERIES searches, each embedded, matched and
# reranked. VmRSS, RssAnon and RssFile of the app process (and the RSS of
# its WebKit children) are sampled once a second in four phases:
#   open      idle after start-up, before any search (models loaded)
#   loaded    idle after the first search (the index snapshot is loaded)
#   answering QUERIES searches, one every PACE seconds
#   rest      after rag.model_idle_minutes (1 here) released the models
#
#   build/scripts/bench-window.sh EMBED_DIR RERANK_DIR
#
# Needs JARVIS_ORT_LIB (or an ONNX Runtime the app finds), Xvfb, dbus-daemon,
# xdotool, ImageMagick (import), tesseract (optional: checks the screen).
# Env: CHUNKS (60000), QUERIES (24), PACE (2), BIN (a built window binary
# instead of building one; kbbench is still built), KEEP=DIR (copy the
# samples, screenshots and logs there). Everything else lives in one
# temporary folder, removed on exit; every process started here is stopped
# by its pid.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
embed_dir="${1:?usage: bench-window.sh EMBED_DIR RERANK_DIR}"
rerank_dir="${2:?usage: bench-window.sh EMBED_DIR RERANK_DIR}"
chunks="${CHUNKS:-60000}"; queries="${QUERIES:-24}"; pace="${PACE:-2}"
work="$(mktemp -d)"
pids=()
cleanup() {
  local p
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[$i]}" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp -r "$work"/*.png "$work"/samples.tsv "$work"/app.log "$work"/home/logs "$KEEP"/ 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "$1"; [ -n "${2:-}" ] && tail -20 "$2"; exit 1; }
waitfile() { for _ in $(seq 1 50); do [ -s "$1" ] && return 0; sleep 0.2; done; return 1; }

# 1. Build: kbbench, and the window from HEAD (the checkout is not touched).
mkdir "$work/src"
(cd "$repo" && git archive HEAD) | tar -x -C "$work/src"
(cd "$work/src" && go build -o "$work/kbbench" ./cmd/kbbench)
if [ -n "${BIN:-}" ]; then
  bin="$BIN"
else
  ln -s "$repo/frontend/node_modules" "$work/src/frontend/node_modules"
  (cd "$work/src/frontend" && npx vite build >"$work/vite.log" 2>&1) || fail "frontend build failed" "$work/vite.log"
  (cd "$work/src" && go build -tags desktop,production,webkit2_41 -o "$work/jarvis" .)
  bin="$work/jarvis"
fi
rm -rf "$work/src"

# 2. The store: CHUNKS generated chunks, their vectors stored under the
# window's id for the embedding folder.
model_id="local:$(basename "$embed_dir")"
"$work/kbbench" build -dir "$work/rag" -chunks "$chunks" -dims 0
"$work/kbbench" fill -dir "$work/rag" -model "$model_id" -dims 384
mkdir -p "$work/home" "$work/userhome"
cat >"$work/home/config.toml" <<EOF
[rag]
dir = "$work/rag"
embed_model = "$embed_dir"
rerank_model = "$rerank_dir"
model_idle_minutes = 1
EOF
chmod 600 "$work/home/config.toml"

# 3. A private display and bus, then the window.
Xvfb -displayfd 3 -screen 0 1280x860x24 -nolisten tcp 3>"$work/display" >/dev/null 2>&1 &
pids+=($!)
waitfile "$work/display" || fail "Xvfb did not start"
export DISPLAY=":$(head -1 "$work/display")"
dbus-daemon --session --nofork --nopidfile --address="unix:dir=$work" --print-address=3 3>"$work/bus" >/dev/null 2>&1 &
pids+=($!)
waitfile "$work/bus" || fail "dbus-daemon did not start"
export DBUS_SESSION_BUS_ADDRESS="$(head -1 "$work/bus")"
export HOME="$work/userhome" XDG_CACHE_HOME="" XDG_DATA_HOME="" XDG_CONFIG_HOME=""
JARVIS_HOME="$work/home" JARVIS_NO_TRAY=1 "$bin" >"$work/app.log" 2>&1 &
app=$!; pids+=($app)

# The sampler: once a second, the phase named in $work/phase, the app's
# VmRSS/RssAnon/RssFile and its WebKit children's RSS (kB).
echo open >"$work/phase"
(
  kb() { awk -v k="$1:" '$1 == k { print $2 }' "$2" 2>/dev/null || true; }
  while kill -0 "$app" 2>/dev/null; do
    cp "/proc/$app/status" "$work/st" 2>/dev/null || break
    web=0 net=0
    for c in $(ps --ppid "$app" -o pid= 2>/dev/null); do
      r=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$c/status" 2>/dev/null || echo 0)
      case "$(cat "/proc/$c/comm" 2>/dev/null)" in
        WebKitWebProces*) web=$((web + ${r:-0})) ;;
        *) net=$((net + ${r:-0})) ;;
      esac
    done
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date +%s)" "$(cat "$work/phase")" \
      "$(kb VmRSS "$work/st")" "$(kb RssAnon "$work/st")" "$(kb RssFile "$work/st")" "$(kb VmHWM "$work/st")" "$web" "$net" >>"$work/samples.tsv"
    sleep 1
  done
) &
pids+=($!)

sleep 12
kill -0 "$app" 2>/dev/null || fail "the window exited early" "$work/app.log"
import -window root "$work/open.png"

# 4. The Library, its search box (the window is 1200x800, centred on the
# 1280x860 screen: origin (40,30)).
search() {
  xdotool mousemove $((40 + 560)) $((30 + 285)) click 1
  xdotool key ctrl+a BackSpace
  xdotool type --delay 8 "$1"
  xdotool key Return
}
words=(protein market gene method cell paper result order power plant heart child music night model data)
query() { local i=$1; echo "${words[$((i % 16))]} ${words[$(((i * 7 + 3) % 16))]} ${words[$(((i * 5 + 1) % 16))]} study"; }
xdotool mousemove $((40 + 938)) $((30 + 24)) click 1   # "Library"
sleep 2
echo loaded >"$work/phase"
search "$(query 0)"
sleep 12
echo answering >"$work/phase"
for i in $(seq 1 "$queries"); do
  search "$(query "$i")"
  sleep "$pace"
done
sleep 2
import -window root "$work/answering.png"
seen=""
if command -v tesseract >/dev/null; then
  seen=$(tesseract "$work/answering.png" - 2>/dev/null | tr '\n' ' ')
  case "$seen" in
    *"Found by hybrid"*rerank*) seen="the screen shows: Found by hybrid (keyword + dense) + rerank search" ;;
    *) echo "warning: the last search's result line is not on the screen; OCR saw: ${seen:0:300}"; seen="" ;;
  esac
fi
# Models are released after a minute unused; then the rest.
echo wait >"$work/phase"
sleep 75
echo rest >"$work/phase"
sleep 20
kill -0 "$app" 2>/dev/null || fail "the window exited" "$work/app.log"
grep -q 'level=ERROR' "$work/home/logs/jarvis.log" 2>/dev/null && { echo "errors in jarvis.log:"; grep 'level=ERROR' "$work/home/logs/jarvis.log" | tail -5; }

# 5. The table.
echo "window: $chunks chunks (hybrid + rerank), $queries searches in the Library box, $pace s apart; $seen"
grep -h -E 'int8|mapped|rerank' "$work/home/logs/jarvis.log" 2>/dev/null | sed 's/^/log: /' | cut -c1-200 || true
awk -F'\t' '
  { p = $2; if (!(p in n)) { order[++k] = p; rmin[p] = amin[p] = fmin[p] = wmin[p] = 1e12 }
    n[p]++
    if ($3 < rmin[p]) rmin[p] = $3; if ($3 > rmax[p]) rmax[p] = $3
    if ($4 < amin[p]) amin[p] = $4; if ($4 > amax[p]) amax[p] = $4
    if ($5 < fmin[p]) fmin[p] = $5; if ($5 > fmax[p]) fmax[p] = $5
    if ($7 < wmin[p]) wmin[p] = $7; if ($7 > wmax[p]) wmax[p] = $7
    if ($6 > hwm) hwm = $6 }
  END {
    printf "%-10s %4s  %-13s %-13s %-13s %-13s\n", "phase", "n", "RSS MB", "RssAnon MB", "RssFile MB", "WebKit web MB"
    for (i = 1; i <= k; i++) { p = order[i]
      printf "%-10s %4d  %5.0f-%-7.0f %5.0f-%-7.0f %5.0f-%-7.0f %5.0f-%-7.0f\n", p, n[p],
        rmin[p]/1024, rmax[p]/1024, amin[p]/1024, amax[p]/1024, fmin[p]/1024, fmax[p]/1024, wmin[p]/1024, wmax[p]/1024 }
    printf "peak (VmHWM) %.0f MB\n", hwm/1024 }' "$work/samples.tsv"
