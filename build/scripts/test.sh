#!/usr/bin/env bash
# One command for a fresh machine: set up, then run every test suite — Go vet,
# Go tests, frontend unit tests and type checks, a real Wails build, and a
# smoke test that opens the window under Xvfb and screenshots it.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash build/scripts/setup.sh
export PATH="$(go env GOPATH)/bin:$PATH"

printf '\n==> frontend: type check and unit tests\n'
(cd frontend && npm run --silent check && npm test --silent)

printf '\n==> desktop build\n'
(cd frontend && npm run --silent build >/dev/null)
wails build -s -clean >/tmp/jarvis-wails-build.log 2>&1 || { cat /tmp/jarvis-wails-build.log; exit 1; }
go build -o build/bin/jarvis-cli ./cmd/jarvis-cli

printf '\n==> go vet\n'
go vet ./...

printf '\n==> go test\n'
JARVIS_REQUIRE_TOOLS=1 go test -count=1 ./...

printf '\n==> window smoke test\n'
bash build/scripts/smoke-window.sh build/bin/jarvis build/bin/screenshot.png
