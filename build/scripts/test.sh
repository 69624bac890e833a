#!/usr/bin/env bash
# One command for a fresh machine: set up, then run every test suite — Go vet,
# Go tests, frontend unit tests and type checks, a real Wails build,
# end-to-end tests of the real frontend against the real Go services in
# headless Chromium, and a smoke test that opens the window (and the tray
# process) under Xvfb and screenshots it.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash build/scripts/setup.sh
export PATH="$(go env GOPATH)/bin:$PATH"

printf '\n==> frontend: type check and unit tests\n'
(cd frontend && npm run --silent check && npm test --silent)

printf '\n==> desktop build\n'
(cd frontend && npm run --silent build >/dev/null)
wails build -s -skipbindings -clean >/tmp/jarvis-wails-build.log 2>&1 || { cat /tmp/jarvis-wails-build.log; exit 1; }
go build -o build/bin/jarvis-cli ./cmd/jarvis-cli
# The binaries find ONNX Runtime beside them; go test's binaries are built
# elsewhere and are told where it is. JARVIS_REQUIRE_TOOLS below makes the
# ONNX Runtime tests fail, not skip, when setup could not install it.
. build/scripts/onnxruntime.sh
install_ort_beside build/bin
export JARVIS_ORT_LIB="${JARVIS_ORT_LIB:-$ORT_LIB}"

printf '\n==> go vet\n'
go vet ./...

printf '\n==> go test (race detector on)\n'
JARVIS_REQUIRE_TOOLS=1 go test -race -count=1 ./...

printf '\n==> end-to-end tests (headless Chromium against the Go services)\n'
go build -o build/bin/jarvis-bridge ./app/bridge/jarvis-bridge
(cd frontend && npm run --silent build >/dev/null && node e2e/run.mjs ../build/bin/jarvis-bridge dist ../build/bin/e2e)

printf '\n==> window smoke test\n'
bash build/scripts/smoke-window.sh build/bin/jarvis build/bin/screenshot.png
