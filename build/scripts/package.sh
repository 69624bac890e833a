#!/usr/bin/env bash
# Release build: two .deb packages for amd64 — WebKitGTK 4.1 (Debian 13+,
# Ubuntu 24.04+) and WebKitGTK 4.0 (Debian 12, Ubuntu 22.04) — and a portable
# tar.gz, all in dist/. Packed with Debian's own dpkg-deb (see the notes in
# README "Install"): the control file, md5sums and dependencies come from the
# same tools Debian uses (dpkg-shlibdeps), so the Depends line lists exactly
# the runtime libraries the binaries link, never a -dev package.
#
# Reproducible: every file's mtime is SOURCE_DATE_EPOCH (default: the last
# commit's time), modes are set explicitly, owners are root, archives are
# sorted and gzip carries no name or time.
#
# Usage: package.sh [--skip-frontend] [--version V] [--flavours "4.1 4.0"]
set -euo pipefail
cd "$(dirname "$0")/../.."
root_dir="$PWD"
export PATH="$(go env GOPATH)/bin:$PATH"
. build/scripts/onnxruntime.sh

skip=() version="" flavours="4.1 4.0"
while [ $# -gt 0 ]; do
  case "$1" in
    --skip-frontend) skip=(-s) ;;
    --version) version="$2"; shift ;;
    --flavours) flavours="$2"; shift ;;
    *) echo "package.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# Debian version from git describe: v1.2.3-4-gabc → 1.2.3+4.gabc; without a
# tag, the app's productVersion plus the commit count (so a later commit
# always upgrades an earlier one).
if [ -z "$version" ]; then
  desc="$(git describe --tags --always --dirty 2>/dev/null || echo dev)"
  if [[ "$desc" =~ ^v?([0-9]+\.[0-9A-Za-z.]*)(-([0-9]+)-g([0-9a-f]+))?(-dirty)?$ ]]; then
    version="${BASH_REMATCH[1]}"
    [ -n "${BASH_REMATCH[3]}" ] && version+="+${BASH_REMATCH[3]}.g${BASH_REMATCH[4]}"
  else
    base="$(sed -n 's/.*"productVersion": *"\([^"]*\)".*/\1/p' wails.json)"
    version="${base:-0.0.0}+git$(git rev-list --count HEAD 2>/dev/null || echo 0).g${desc%-dirty}"
  fi
  [[ "$desc" == *-dirty ]] && version+=".dirty"
fi
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
[ -f "$ORT_LIB" ] || { echo "package.sh: ONNX Runtime is missing ($ORT_LIB); run build/scripts/setup.sh" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p dist
ldflags="-s -w -X github.com/jarvis-kb/jarvis/backend/version.Version=$version"
log="$work/build.log"

# Files both flavours share: jarvis-cli, docs, completions, icons, metadata.
common="$work/common"
mkdir -p "$common"
echo "jarvis-cli ($version)"
CGO_ENABLED=1 go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$common/jarvis-cli" ./cmd/jarvis-cli
go run ./cmd/jarvis-cli/gendocs -out "$common/gen"

# stage DIR BINARY: the installed tree (usr/...) under DIR.
stage() {
  local d="$1" bin="$2" s
  install -d -m 0755 "$d/usr/bin" "$d/usr/lib/jarvis" "$d/usr/share/applications" \
    "$d/usr/share/metainfo" "$d/usr/share/man/man1" "$d/usr/share/doc/jarvis" \
    "$d/usr/share/bash-completion/completions" "$d/usr/share/zsh/vendor-completions" \
    "$d/usr/share/fish/vendor_completions.d"
  install -m 0755 "$bin" "$d/usr/bin/jarvis"
  install -m 0755 "$common/jarvis-cli" "$d/usr/bin/jarvis-cli"
  # Private dir, outside the linker's path: only Jarvis loads it (it looks
  # in <prefix>/lib/jarvis beside <prefix>/bin).
  install -m 0644 "$ORT_LIB" "$d/usr/lib/jarvis/libonnxruntime.so.1"
  install -m 0644 build/linux/onnxruntime-LICENSE "$d/usr/lib/jarvis/LICENSE-onnxruntime"
  install -m 0644 build/linux/jarvis.desktop "$d/usr/share/applications/jarvis.desktop"
  sed -e "s/@VERSION@/$version/" -e "s/@DATE@/$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)/" \
    build/linux/io.github.jarvis_kb.jarvis.metainfo.xml >"$d/usr/share/metainfo/io.github.jarvis_kb.jarvis.metainfo.xml"
  chmod 0644 "$d/usr/share/metainfo/"*.xml
  for s in 16 24 32 48 64 128 256; do
    install -d -m 0755 "$d/usr/share/icons/hicolor/${s}x${s}/apps"
    convert build/appicon.png -resize "${s}x${s}" -strip -define png:exclude-chunks=date,time \
      "$d/usr/share/icons/hicolor/${s}x${s}/apps/jarvis.png"
    chmod 0644 "$d/usr/share/icons/hicolor/${s}x${s}/apps/jarvis.png"
  done
  install -m 0644 build/linux/jarvis.1 "$common/gen/man/man1/jarvis.1"
  for s in "$common"/gen/man/man1/*.1; do
    gzip -9n <"$s" >"$d/usr/share/man/man1/$(basename "$s").gz"
  done
  chmod 0644 "$d"/usr/share/man/man1/*
  install -m 0644 "$common/gen/completions/jarvis-cli.bash" "$d/usr/share/bash-completion/completions/jarvis-cli"
  install -m 0644 "$common/gen/completions/_jarvis-cli" "$d/usr/share/zsh/vendor-completions/_jarvis-cli"
  install -m 0644 "$common/gen/completions/jarvis-cli.fish" "$d/usr/share/fish/vendor_completions.d/jarvis-cli.fish"
  install -m 0644 build/linux/copyright "$d/usr/share/doc/jarvis/copyright"
  install -d -m 0755 "$d/usr/share/lintian/overrides"
  grep -v '^#' build/linux/lintian-overrides >"$d/usr/share/lintian/overrides/jarvis"
  chmod 0644 "$d/usr/share/lintian/overrides/jarvis"
  printf 'jarvis (%s) unstable; urgency=medium\n\n  * Release build %s.\n\n -- Jarvis contributors <jarvis-kb@users.noreply.github.com>  %s\n' \
    "$version" "$version" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")" | gzip -9n >"$d/usr/share/doc/jarvis/changelog.gz"
  chmod 0644 "$d/usr/share/doc/jarvis/changelog.gz"
}

# depends DIR: the Depends line dpkg-shlibdeps derives from what the
# binaries and the library link (run in a scratch debian/ tree it needs).
depends() {
  local d="$1" scratch="$work/shlibs"
  rm -rf "$scratch"; mkdir -p "$scratch/debian"
  printf 'Source: jarvis\n\nPackage: jarvis\nArchitecture: amd64\n' >"$scratch/debian/control"
  (cd "$scratch" && dpkg-shlibdeps -O --ignore-missing-info \
    "$d/usr/bin/jarvis" "$d/usr/bin/jarvis-cli" "$d/usr/lib/jarvis/libonnxruntime.so.1" 2>/dev/null) |
    sed -n 's/^shlibs:Depends=//p'
}

# pin DIR: every file and dir at SOURCE_DATE_EPOCH.
pin() { find "$1" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +; }

for flavour in $flavours; do
  case "$flavour" in
    4.1) tags=(-tags webkit2_41) suffix=webkit41 ;;
    4.0) tags=() suffix=webkit40 ;;
    *) echo "package.sh: unknown flavour $flavour (4.1 or 4.0)" >&2; exit 2 ;;
  esac
  echo "jarvis, WebKitGTK $flavour ($version)"
  if ! wails build "${skip[@]}" "${tags[@]}" -skipbindings -clean -trimpath -ldflags "$ldflags" -o jarvis >"$log" 2>&1; then
    cat "$log"; exit 1
  fi
  skip=(-s) # the frontend is built once
  git checkout -q -- frontend/package.json.md5 2>/dev/null || true
  bin="$work/jarvis-$suffix"
  mv build/bin/jarvis "$bin"

  pkg="$work/deb-$suffix"
  stage "$pkg" "$bin"
  install -d -m 0755 "$pkg/DEBIAN"
  size="$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)"
  cat >"$pkg/DEBIAN/control" <<EOF
Package: jarvis
Version: $version
Architecture: amd64
Maintainer: Jarvis contributors <jarvis-kb@users.noreply.github.com>
Installed-Size: $size
Depends: $(depends "$pkg")
Recommends: tesseract-ocr, tesseract-ocr-eng
Suggests: latexmk, texlive-latex-recommended, pandoc
Section: utils
Priority: optional
Homepage: https://github.com/jarvis-kb/jarvis
Description: local-first knowledge base and research assistant
 Jarvis indexes a notes vault and a library of papers on this machine and
 answers questions with citations, with a tray process that keeps the vault,
 the PDF inbox and the paper digest in sync. Notes in private vault folders
 never reach a cloud model.
 .
 This build uses WebKitGTK $flavour.
EOF
  install -m 0755 build/linux/postrm "$pkg/DEBIAN/postrm"
  (cd "$pkg" && find usr -type f | LC_ALL=C sort | xargs md5sum) >"$pkg/DEBIAN/md5sums"
  chmod 0644 "$pkg/DEBIAN/control" "$pkg/DEBIAN/md5sums"
  pin "$pkg"
  out="dist/jarvis_${version}_${suffix}_amd64.deb"
  dpkg-deb --root-owner-group -Zxz --build "$pkg" "$out" >/dev/null
  echo "  $out ($(du -k "$out" | cut -f1) KiB, installed $size KiB)"

  # The portable tree: the same layout under jarvis-VERSION/, run from
  # anywhere (bin/jarvis finds lib/jarvis beside it).
  if [ "$flavour" = 4.1 ]; then
    tree="$work/tar/jarvis-$version"
    mkdir -p "$tree"
    cp -a "$pkg/usr/." "$tree/"
    install -m 0644 README.md "$tree/README.md"
    pin "$work/tar"
    tgz="dist/jarvis-${version}-linux-amd64.tar.gz"
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
      -C "$work/tar" -cf - "jarvis-$version" | gzip -9n >"$tgz"
    echo "  $tgz ($(du -k "$tgz" | cut -f1) KiB)"
  fi
done
echo "$version" >dist/VERSION
