#!/usr/bin/env bash
# make systemd-test: the Debian package under a real systemd. A minimal Debian 12 root (made by
# debootstrap once, kept in .build-systemd/ keyed by its package list) is copied, booted with
# systemd-nspawn (systemd 252 as PID 1), the packages of `make deb` are installed into it with
# `apt install ./…deb` (the real maintainer scripts run), and scripts/systemd-test/checks.sh runs
# inside it as root, switching to an unprivileged user in dialout where a user would.
#
#   systemd-test.sh DEB [DEB_UPGRADE]
#     DEB          the package to install (build/accessoryd_VERSION_ARCH.deb)
#     DEB_UPGRADE  the same programs with a higher version, installed over DEB (upgrade check)
#
# The container is powered off by pid, bounded in time, whatever happens; its copy is removed.
# On failure the journal is printed. Needs root, debootstrap and systemd-nspawn
# (scripts/install-deps.sh --systemd). Environment: SYSTEMD_TEST_KEEP=1 keeps the copy and
# prints how to enter it (for debugging); SYSTEMD_TEST_ONLY="name …" runs only those checks.
set -euo pipefail
DEB="$(realpath "${1:?usage: systemd-test.sh DEB [DEB_UPGRADE]}")"
DEB_UPGRADE="${2:+$(realpath "$2")}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
[ "$(id -u)" -eq 0 ] || { echo "systemd-test: needs root (debootstrap, systemd-nspawn)" >&2; exit 1; }
started=$SECONDS

# What the container root holds: systemd as PID 1, and the package's dependencies, so that
# `apt install ./…deb` needs no download (it still resolves them as on any system).
SUITE=bookworm
MIRROR="${SYSTEMD_TEST_MIRROR:-http://deb.debian.org/debian}"
# gpsd and python3 for check restart_views: programs nobody here wrote, on a view and on the
# Python client, across a restart. (Not gpsd-clients: it pulls in GTK, which debootstrap cannot
# configure in a minimal root; the check reads gpsd's JSON on its port itself.)
INCLUDE="systemd,systemd-sysv,dbus,libudev1,libyaml-0-2,util-linux,procps,gpsd,python3"
key="$(printf '%s\n' "$SUITE" "$INCLUDE" "$(dpkg --print-architecture)" | sha256sum | cut -c1-16)"
CACHE="$HERE/.build-systemd"
ROOT="$CACHE/root-$key"
if [ ! -x "$ROOT/lib/systemd/systemd" ]; then
  echo "-- making the container root (debootstrap --variant=minbase $SUITE: $INCLUDE)"
  mkdir -p "$CACHE"
  rm -rf "$ROOT.partial"
  t=$SECONDS
  debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$ROOT.partial" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
    || { tail -20 "$CACHE/debootstrap.log"; echo "systemd-test: debootstrap failed (log: $CACHE/debootstrap.log)" >&2; exit 1; }
  # No getty on the console: the container's console is a log file here.
  ln -sf /dev/null "$ROOT.partial/etc/systemd/system/console-getty.service"
  mv "$ROOT.partial" "$ROOT"
  echo "-- container root made in $((SECONDS - t)) s ($(du -sh "$ROOT" | cut -f1))"
else
  echo "-- container root reused: $ROOT"
fi

WORK="$(mktemp -d /tmp/accessoryd-systemd-test.XXXXXX)"
COPY="$WORK/root"
SHARE="$WORK/share"
mkdir -p "$SHARE"
cp "$DEB" "$SHARE/accessoryd.deb"
[ -z "$DEB_UPGRADE" ] || cp "$DEB_UPGRADE" "$SHARE/accessoryd-upgrade.deb"
cp "$HERE/scripts/systemd-test/checks.sh" "$HERE/scripts/systemd-test/"*.yaml "$HERE/scripts/systemd-test/"*.py "$SHARE/"
mkdir -p "$SHARE/python"
cp -r "$HERE/python/accessoryd" "$SHARE/python/"
t=$SECONDS
cp -a --reflink=auto "$ROOT" "$COPY"
echo "-- copied the root in $((SECONDS - t)) s"

NSPAWN=""
PID1=""
# The container's PID 1: the descendant of systemd-nspawn that is pid 1 in its own namespace.
find_pid1() {
  local queue=("$NSPAWN") p child
  while [ ${#queue[@]} -gt 0 ]; do
    p="${queue[0]}"; queue=("${queue[@]:1}")
    if [ "$p" != "$NSPAWN" ] && grep -qE '^NSpid:.*[[:space:]]1$' "/proc/$p/status" 2>/dev/null; then
      echo "$p"; return 0
    fi
    for child in $(cat /proc/"$p"/task/*/children 2>/dev/null); do queue+=("$child"); done
  done
  return 1
}
# A command inside the container, with its own clean environment, bounded in time.
in_ct() {
  timeout --kill-after=5 "${CT_TIMEOUT:-600}" nsenter -t "$PID1" -a \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM=dumb "$@"
}
power_off() {
  [ -n "$NSPAWN" ] || return 0
  if kill -0 "$NSPAWN" 2>/dev/null; then
    [ -z "$PID1" ] || CT_TIMEOUT=10 in_ct systemctl poweroff --no-block >/dev/null 2>&1 || true
    for _ in $(seq 1 300); do kill -0 "$NSPAWN" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$NSPAWN" 2>/dev/null; then
      echo "-- the container did not power off within 30 s: SIGTERM, then SIGKILL to systemd-nspawn ($NSPAWN)"
      kill -TERM "$NSPAWN" 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$NSPAWN" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$NSPAWN" 2>/dev/null || true
    fi
  fi
  wait "$NSPAWN" 2>/dev/null || true
  NSPAWN=""
}
cleanup() {
  local status=$?
  if [ $status -ne 0 ] && [ -n "$PID1" ] && [ -n "$NSPAWN" ] && kill -0 "$NSPAWN" 2>/dev/null; then
    echo "== the container's journal (accessoryd units, last 200 lines)"
    CT_TIMEOUT=20 in_ct journalctl --no-pager -n 200 -u 'accessoryd*' 2>&1 || true
  fi
  if [ "${SYSTEMD_TEST_KEEP:-0}" = 1 ] && [ -n "$NSPAWN" ]; then
    echo "-- kept: nsenter -t $PID1 -a bash   (stop: kill $NSPAWN; rm -rf $WORK)"
    exit $status
  fi
  power_off
  rm -rf "$WORK"
  echo "-- make systemd-test: $((SECONDS - started)) s"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "-- booting systemd in the container"
t=$SECONDS
systemd-nspawn --quiet --register=no --keep-unit -D "$COPY" -b \
  --bind-ro="$SHARE:/mnt/accessoryd" --resolv-conf=replace-host </dev/null >"$WORK/console.log" 2>&1 &
NSPAWN=$!
for _ in $(seq 1 300); do
  PID1="$(find_pid1 || true)"
  [ -n "$PID1" ] && break
  kill -0 "$NSPAWN" 2>/dev/null || { cat "$WORK/console.log"; echo "systemd-test: systemd-nspawn exited" >&2; exit 1; }
  sleep 0.1
done
[ -n "$PID1" ] || { echo "systemd-test: no PID 1 in the container after 30 s" >&2; exit 1; }
# systemctl reaches PID 1 through /run/systemd/private, which appears a moment after PID 1 starts.
for _ in $(seq 1 600); do
  CT_TIMEOUT=5 in_ct test -S /run/systemd/private 2>/dev/null && break
  sleep 0.1
done
state="$(CT_TIMEOUT=90 in_ct systemctl is-system-running --wait 2>&1 || true)"
echo "-- booted in $((SECONDS - t)) s: $state (PID 1 is $(in_ct cat /proc/1/comm), $(in_ct systemctl --version | head -1))"
case "$state" in
  running | degraded) ;;
  *) tail -30 "$WORK/console.log"; echo "systemd-test: the container did not boot: $state" >&2; exit 1 ;;
esac

echo "-- running scripts/systemd-test/checks.sh inside the container"
in_ct env SYSTEMD_TEST_ONLY="${SYSTEMD_TEST_ONLY:-}" bash /mnt/accessoryd/checks.sh
