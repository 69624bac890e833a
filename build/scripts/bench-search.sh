#!/usr/bin/env bash
# A cold one-shot `jarvis-cli kb search` beside `grep -ril` over the same
# vault (#33), both as whole processes: start-up, the index snapshot's load
# and the answer included. The vault is generated (kbbench vault, three
# passages a note) and indexed by keyword; the two alternate, TRIALS times
# each, and the medians are printed.
#
#   build/scripts/bench-search.sh [NOTES]        (default 20000: ~59k chunks)
#
# CLI=PATH measures another jarvis-cli build (an older commit). Everything
# lives in one temporary folder.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
notes="${1:-20000}"; trials="${TRIALS:-9}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$repo" && go build -o "$work/jarvis-cli" ./cmd/jarvis-cli && go build -o "$work/kbbench" ./cmd/kbbench)
cli="${CLI:-$work/jarvis-cli}"
mkdir -p "$work/home"
"$work/kbbench" vault -dir "$work/vault" -notes "$notes"
printf '[vault]\npath = "%s"\n' "$work/vault" > "$work/home/config.toml"
JARVIS_HOME="$work/home" "$cli" kb index-vault --no-embed > "$work/index.txt" 2>&1 || { tail "$work/index.txt"; exit 1; }
echo "$(JARVIS_HOME="$work/home" "$cli" kb stats | head -1), $(du -sh "$work/vault" | cut -f1) of Markdown"
# A phrase from the middle of one note, so both find something.
phrase="$(sed -n 8p "$(find "$work/vault" -name 'n00042.md')" | cut -d' ' -f5-7)"
echo "query: \"$phrase\""
for _ in $(seq "$trials"); do
  /usr/bin/time -a -o "$work/grep.t" -f "%e %M" grep -ril "$phrase" "$work/vault" > /dev/null
  JARVIS_HOME="$work/home" /usr/bin/time -a -o "$work/kb.t" -f "%e %M" "$cli" kb search "$phrase" > /dev/null 2>&1
done
median() { sort -n "$1" | awk '{ t[NR] = $1; m[NR] = $2 } END { i = int((NR + 1) / 2); printf "%.3f s (peak %d MB)", t[i], m[i] / 1024 }'; }
echo "grep -ril:     $(median "$work/grep.t")"
echo "kb search:     $(median "$work/kb.t")"
