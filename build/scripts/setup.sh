#!/usr/bin/env bash
# Installs everything Jarvis needs on a fresh Debian/Ubuntu machine: system
# libraries for the Wails window (GTK 3, WebKitGTK), Xvfb for headless runs,
# LaTeX (latexmk, pdflatex) and pandoc for draft compile and export, an
# emoji font (titles and answers may carry emoji), Tesseract with English
# and Chinese data (scans and images; the CJK test draws with Droid Sans
# Fallback, and makes WebP images with cwebp), the frontend's npm
# dependencies, the Wails CLI and ONNX Runtime's shared library. Safe to
# re-run: each step is skipped when already satisfied.
set -euo pipefail
cd "$(dirname "$0")/../.."

log() { printf '\n==> %s\n' "$*"; }

APT_PACKAGES=(gcc pkg-config libgtk-3-dev libwebkit2gtk-4.0-dev libwebkit2gtk-4.1-dev dpkg-dev lintian debootstrap desktop-file-utils xvfb xauth imagemagick dbus-daemon dbus-bin
  latexmk texlive-latex-base texlive-latex-recommended texlive-xetex lmodern pandoc chromium
  xdotool tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim fonts-droid-fallback webp fonts-noto-color-emoji)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing system packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

log "installing frontend dependencies"
(cd frontend && npm ci --no-audit --no-fund --loglevel=error)

# The Wails CLI v2.9.2 pins an x/tools that no longer compiles with current Go,
# so it is built in a scratch module with a newer x/tools.
WAILS_VERSION=v2.9.2
XTOOLS_VERSION=v0.52.0
GOBIN_DIR="$(go env GOPATH)/bin"
export PATH="$GOBIN_DIR:$PATH"
if ! wails version 2>/dev/null | grep -q "$WAILS_VERSION"; then
  log "building the Wails CLI $WAILS_VERSION"
  scratch="$PWD/.cache/wails-cli" # the checkout's own (ignored) cache, not the user's
  mkdir -p "$scratch"
  (
    cd "$scratch"
    [ -f go.mod ] || go mod init jarvis-wails-cli >/dev/null 2>&1
    go get "github.com/wailsapp/wails/v2/cmd/wails@$WAILS_VERSION" "golang.org/x/tools@$XTOOLS_VERSION" >/dev/null 2>&1
    mkdir -p "$GOBIN_DIR"
    go build -o "$GOBIN_DIR/wails" github.com/wailsapp/wails/v2/cmd/wails
  )
fi

# ONNX Runtime for the embedder and the reranker: the library npm's
# onnxruntime-node ships, fetched without running its install script (which
# would download more). A failure is not fatal: Jarvis then runs the models
# on its pure-Go backend, several times slower.
. build/scripts/onnxruntime.sh
if [ -n "$ORT_LIB" ] && [ ! -f "$ORT_LIB" ]; then
  log "installing ONNX Runtime (npm onnxruntime-node@$ORT_NODE_VERSION) into $ORT_CACHE"
  mkdir -p "$ORT_CACHE"
  npm install --prefix "$ORT_CACHE" --ignore-scripts --no-audit --no-fund --no-save --loglevel=error \
    "onnxruntime-node@$ORT_NODE_VERSION" ||
    echo "warning: ONNX Runtime could not be installed; inference will use the pure-Go backend" >&2
fi

log "downloading Go modules"
go mod download

log "setup complete"
