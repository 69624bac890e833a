#!/usr/bin/env bash
# One command for a fresh machine: set up, then run every test suite — the
# plain Go commands on a fresh clone, frontend unit tests and type checks, a
# real Wails build, checks of the binaries' command lines, Go vet, Go tests,
# end-to-end tests of the real frontend against the real Go services in
# headless Chromium, and smoke tests that open the window (and the tray
# process) under Xvfb. Each step that starts processes must leave none behind.
set -euo pipefail
cd "$(dirname "$0")/../.."
source build/scripts/lib.sh
clone="$(mktemp -d)"
trap 'rm -rf "$clone"' EXIT

# Temporary files at fixed paths collide between runs and outlive them: the
# scripts make theirs with mktemp (only X11's own sockets are named).
if grep -nE '[/]tmp/' build/scripts/*.sh .ci/* | grep -vE '[/]tmp/\.X(11-unix/X)?\$n'; then
  echo "a script names a fixed path in /tmp (use mktemp)"; exit 1
fi

bash build/scripts/setup.sh
export PATH="$(go env GOPATH)/bin:$PATH"
# Clients of the MCP server that are not ours, for the tests only: the
# TypeScript SDK, the conformance suite and the Node 22 it needs.
(cd build/mcp-clients && npm ci --no-audit --no-fund --loglevel=error)

printf '\n==> go build and go vet on a fresh clone, before any frontend build\n'
git clone -q . "$clone/src"
(
  cd "$clone/src"
  [ ! -e frontend/dist/index.html ] || { echo "the clone has a built frontend"; exit 1; }
  go build ./... && go vet ./...
)
rm -rf "$clone/src"

printf '\n==> frontend: type check and unit tests\n'
(cd frontend && npm run --silent check && npm test --silent)

printf '\n==> desktop build\n'
(cd frontend && npm run --silent build >/dev/null) # vite copies public/.keep into dist/, so plain go builds keep working
bash build/scripts/build.sh --skip-frontend
# The binaries find ONNX Runtime beside them; go test's binaries are built
# elsewhere and are told where it is. JARVIS_REQUIRE_TOOLS below makes the
# ONNX Runtime tests fail, not skip, when setup could not install it.
. build/scripts/onnxruntime.sh
install_ort_beside build/bin
export JARVIS_ORT_LIB="${JARVIS_ORT_LIB:-$ORT_LIB}"

printf '\n==> binaries: flags, display errors, versions\n'
run_clean check-binaries bash build/scripts/check-binaries.sh

printf '\n==> go vet\n'
go vet ./...

printf '\n==> go test (race detector on)\n'
run_clean go-test env JARVIS_REQUIRE_TOOLS=1 go test -race -count=1 ./...

printf '\n==> end-to-end tests (headless Chromium against the Go services)\n'
go build -o build/bin/jarvis-bridge ./app/bridge/jarvis-bridge
(cd frontend && npm run --silent build >/dev/null)
run_clean e2e bash -c 'cd frontend && node e2e/run.mjs ../build/bin/jarvis-bridge dist ../build/bin/e2e'

printf '\n==> window smoke test\n'
run_clean smoke-window bash build/scripts/smoke-window.sh build/bin/jarvis build/bin/screenshot.png


printf '\n==> release packages (.deb for WebKitGTK 4.1 and 4.0, tar.gz) and lintian\n'
bash build/scripts/package.sh --skip-frontend
for deb in dist/jarvis_"$(cat dist/VERSION)"_*_amd64.deb; do
  # lintian exits non-zero on errors only (warnings are reported).
  lintian --fail-on error "$deb"
done

printf '\n==> the packages on fresh Debian roots (debootstrap; install, use, upgrade, remove)\n'
# Debian 12 ships WebKitGTK 4.0 and 4.1; Debian 13 only 4.1.
v="$(cat dist/VERSION)"
shot() { command -v convert >/dev/null && echo "build/bin/package-$1.png" || true; }
bash build/scripts/package-test.sh "dist/jarvis_${v}_webkit40_amd64.deb" bookworm "$(shot bookworm)"
bash build/scripts/package-test.sh "dist/jarvis_${v}_webkit41_amd64.deb" trixie "$(shot trixie)"
