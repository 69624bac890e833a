#!/usr/bin/env bash
# Builds build/bin/jarvis (the desktop app, with Wails) and build/bin/jarvis-cli,
# both stamped with the version `git describe` gives (`jarvis --version`).
# Usage: build.sh [--skip-frontend]   (skip: the frontend is already built)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$(go env GOPATH)/bin:$PATH"
skip=()
[ "${1:-}" = "--skip-frontend" ] && skip=(-s)
version="$(git describe --tags --always --dirty 2>/dev/null || echo dev)"
ldflags="-X github.com/jarvis-kb/jarvis/backend/version.Version=$version"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! wails build "${skip[@]}" -skipbindings -clean -ldflags "$ldflags" >"$log" 2>&1; then
  cat "$log"; exit 1
fi
go build -ldflags "$ldflags" -o build/bin/jarvis-cli ./cmd/jarvis-cli
echo "built build/bin/jarvis and build/bin/jarvis-cli ($version)"
