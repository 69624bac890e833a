#!/usr/bin/env bash
# Fresh-system test of a release package: debootstraps a minimal Debian root
# into a temp folder, installs the .deb with apt (dependencies from the
# mirror only), then as an unprivileged user: jarvis-cli from PATH, doctor,
# kb add + kb search on a note, autostart on and off (the entry checked),
# the tray started with the scheduler lock seen taken and a second tray
# stepping aside, the window launched through the desktop entry's Exec line
# under Xvfb (screenshot), an upgrade to a rebuilt package keeping the
# store, and removal leaving ~/.jarvis. Needs root (debootstrap, chroot).
# Every process started inside is stopped by pid; the root is unmounted and
# deleted on exit.
# Usage: package-test.sh DEB [SUITE] [SCREENSHOT.png]   (SUITE: bookworm)
set -euo pipefail
deb="$(readlink -f "$1")"; suite="${2:-bookworm}"; shot="${3:-}"
mirror="$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)"
mirror="${mirror:-http://deb.debian.org/debian}"
work="$(mktemp -d)"; root="$work/root"
start=$(date +%s)
cleanup() {
  # Processes the test started inside the root: every pid whose root is ours.
  local p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill "${p#/proc/}" 2>/dev/null || true
  done
  sleep 0.5
  for m in dev/shm dev/pts dev proc; do umount "$root/$m" 2>/dev/null || true; done
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
as_user() { in_root su - alice -c "$1"; }
# expect CMD PATTERN WHY: the user's CMD prints PATTERN. The output is read
# whole before grep looks (grep -q in a pipe closes early, the writer dies
# of SIGPIPE and pipefail fails a passing check); CMD's exit code is its own
# check where it matters, not this one's.
expect() { local out; out="$(as_user "$1" 2>&1 || true)"; grep -q -i -- "$2" <<<"$out" || { printf '%s\n' "$out" | tail -20; fail "$3"; }; }

echo "debootstrap $suite from $mirror"
debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log"; fail "debootstrap"; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"; mount --bind /dev/pts "$root/dev/pts"; mount -t tmpfs tmpfs "$root/dev/shm"
in_root apt-get update -qq

echo "install $(basename "$deb")"
# The packages go to a folder of the root no other process uses.
inbox=/var/cache/jarvis-test; mkdir -p "$root$inbox"
cp "$deb" "$root$inbox/jarvis.deb"
in_root dpkg-query -W -f '${Package}\n' | sort >"$work/before"
DEBIAN_FRONTEND=noninteractive in_root apt-get install -y -qq --no-install-recommends "$inbox/jarvis.deb" >"$work/install.log" 2>&1 ||
  { tail -20 "$work/install.log"; fail "apt-get install"; }
in_root dpkg-query -W -f '${Package}\n' | sort >"$work/after"
pulled="$(comm -13 "$work/before" "$work/after")"
echo "  pulled $(echo "$pulled" | wc -l) packages; installed size $(in_root dpkg-query -W -f '${Installed-Size}' jarvis) KiB"
if echo "$pulled" | grep -E -- '-dev$|^texlive|^pandoc$|^golang'; then fail "a build-time package was pulled"; fi

in_root useradd -m -s /bin/bash alice
as_user 'jarvis-cli --version' || fail "jarvis-cli not on PATH"
as_user 'jarvis --version' || fail "jarvis --version"
as_user 'jarvis-cli doctor' >"$work/doctor.log" 2>&1 || { cat "$work/doctor.log"; fail "doctor"; }
as_user 'printf "# Tidal locking\n\nThe moon shows one face because of tidal locking.\n" >note.md && jarvis-cli kb add note.md' || fail "kb add"
expect 'jarvis-cli kb search "tidal locking"' tidal "kb search found nothing"
test -f "$root/usr/share/man/man1/jarvis-cli.1.gz" || fail "man page"
test -f "$root/usr/share/bash-completion/completions/jarvis-cli" || fail "bash completion"

echo "autostart"
entry="$root/home/alice/.config/autostart/jarvis-tray.desktop"
as_user 'jarvis-cli autostart on' >/dev/null || fail "autostart on"
grep -qx 'Exec=/usr/bin/jarvis --tray' "$entry" || { cat "$entry"; fail "the autostart entry does not start the tray"; }
expect 'jarvis-cli doctor' 'autostart: on' "doctor does not see autostart on"
as_user 'jarvis-cli autostart off' >/dev/null || fail "autostart off"
grep -qx 'Hidden=true' "$entry" || fail "autostart off left the entry active"
expect 'jarvis-cli doctor' 'autostart: off' "doctor does not see autostart off"

# The window and the tray need an X server and a session bus.
DEBIAN_FRONTEND=noninteractive in_root apt-get install -y -qq --no-install-recommends xvfb x11-apps dbus-daemon >/dev/null 2>&1 ||
  DEBIAN_FRONTEND=noninteractive in_root apt-get install -y -qq --no-install-recommends xvfb x11-apps dbus >/dev/null

echo "tray"
# No tray host runs here, so the menu is not shown; the scheduler runs anyway.
as_user "dbus-run-session -- sh -c 'jarvis --tray >tray.log 2>&1 & echo \$! >tray.pid
    for i in \$(seq 50); do jarvis-cli sync status >status.txt 2>&1; grep -q \"scheduler: running\" status.txt && break; sleep 0.2; done
    jarvis --tray >tray2.log 2>&1; echo \$? >tray2.rc
    kill \$(cat tray.pid)'" || true
grep -q 'scheduler: running' "$root/home/alice/status.txt" || { cat "$root/home/alice/status.txt" "$root/home/alice/tray.log"; fail "the tray did not take the scheduler lock"; }
[ "$(cat "$root/home/alice/tray2.rc")" = 0 ] && grep -qi 'already' "$root/home/alice/tray2.log" ||
  { cat "$root/home/alice/tray2.log"; fail "a second tray did not step aside"; }
echo "  $(head -1 "$root/home/alice/status.txt"); a second tray: $(head -1 "$root/home/alice/tray2.log")"

echo "window from the desktop entry"
exec_line="$(sed -n 's/^Exec=//p' "$root/usr/share/applications/jarvis.desktop")"
as_user "Xvfb :57 -screen 0 1280x860x24 -nolisten tcp >/dev/null 2>&1 & echo \$! >xvfb.pid; sleep 2
  DISPLAY=:57 JARVIS_NO_TRAY=1 dbus-run-session -- sh -c '$exec_line >window.log 2>&1 & echo \$! >win.pid; sleep 25; xwd -root -display :57 >shot.xwd; kill -0 \$(cat win.pid) && echo alive >win.state; kill \$(cat win.pid)' || true
  kill \$(cat xvfb.pid)"
[ -f "$root/home/alice/win.state" ] || { cat "$root/home/alice/window.log"; fail "the window did not stay up"; }
if [ -n "$shot" ]; then
  convert "$root/home/alice/shot.xwd" "$shot" && echo "  screenshot $shot"
fi

echo "upgrade"
v="$(dpkg-deb -f "$deb" Version)"
dpkg-deb -R "$deb" "$work/re"
sed -i "s/^Version: .*/Version: $v.1/" "$work/re/DEBIAN/control"
dpkg-deb --root-owner-group -b "$work/re" "$root$inbox/jarvis-up.deb" >/dev/null
DEBIAN_FRONTEND=noninteractive in_root apt-get install -y -qq "$inbox/jarvis-up.deb" >/dev/null
[ "$(in_root dpkg-query -W -f '${Version}' jarvis)" = "$v.1" ] || fail "upgrade"
expect 'jarvis-cli kb search "tidal locking"' tidal "store lost in upgrade"

echo "remove"
in_root apt-get remove -y -qq jarvis | grep -i "jarvis removed" || fail "postrm message"
test -d "$root/home/alice/.jarvis" || fail "removal took ~/.jarvis"
test ! -e "$root/usr/bin/jarvis" || fail "binary left"
echo "package test passed in $(( $(date +%s) - start )) s"
