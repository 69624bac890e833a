#!/usr/bin/env bash
# Whole-process indexing speed beside ONNX Runtime's own binding (#33): a
# `jarvis-cli kb index-vault` of generated one-chunk notes (about 128
# tokens each) on the bge-small-shaped graph, and onnxruntime-node's embed
# case (32 x 128 tokens) on the same graph and the same libonnxruntime, in
# the same run, so the ratio means something on any machine.
#
#   build/scripts/bench-index.sh SHAPE_DIR [NOTES ...]      (default: 256 1024)
#
# SHAPE_DIR is built as ../shared/models/shape-graphs/README.md says:
# SHAPE_DIR/models/bge-small-shape and SHAPE_DIR/ortlib. REFERENCE is the
# reference script (default: ../shared/models/shape-graphs/ort-reference.js
# next to this repository). CLI=PATH measures another jarvis-cli build (an
# older commit, for a before/after). Everything else lives in one
# temporary folder.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
shape="$(cd "$1" && pwd)"; shift
sizes=("${@:-256}"); [ $# -eq 0 ] && sizes=(256 1024)
reference="${REFERENCE:-$repo/../shared/models/shape-graphs/ort-reference.js}"
node_pkg="$shape/ortlib/node_modules/onnxruntime-node"
lib="$node_pkg/bin/napi-v6/linux/x64/libonnxruntime.so.1"
model="$shape/models/bge-small-shape"
for f in "$reference" "$lib" "$model/model.onnx"; do
  [ -e "$f" ] || { echo "missing $f (see shape-graphs/README.md)"; exit 2; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$repo" && go build -o "$work/jarvis-cli" ./cmd/jarvis-cli && go build -o "$work/kbbench" ./cmd/kbbench)
cli="${CLI:-$work/jarvis-cli}"

echo "== onnxruntime-node, embed 32 x 128 tokens"
ORT_NODE="$node_pkg" MODELS="$shape/models" node "$reference" embed | tee "$work/node.txt"
node_rate="$(grep -oE '"items_per_s":[0-9.]+' "$work/node.txt" | cut -d: -f2)"

for n in "${sizes[@]}"; do
  home="$work/home-$n"; vault="$work/vault-$n"
  mkdir -p "$home" "$vault"
  "$work/kbbench" vault -dir "$vault" -notes "$n" -words 115
  cat > "$home/config.toml" <<TOML
[vault]
path = "$vault"
[rag]
embed_model = "$model"
rerank_model = ""
TOML
  echo "== jarvis-cli kb index-vault, $n notes"
  start=$(date +%s.%N)
  JARVIS_HOME="$home" JARVIS_ORT_LIB="$lib" /usr/bin/time -f "%e s wall, %U s user, %M KB peak" \
    "$cli" kb index-vault > "$work/index-$n.txt" 2>&1 || { tail -20 "$work/index-$n.txt"; exit 1; }
  end=$(date +%s.%N)
  tail -3 "$work/index-$n.txt"
  awk -v n="$n" -v s="$start" -v e="$end" -v ref="$node_rate" \
    'BEGIN { r = n / (e - s); printf "%d notes: %.1f chunks/s whole process, %.2f x onnxruntime-node (%.1f seq/s)\n", n, r, r / ref, ref }'
done
