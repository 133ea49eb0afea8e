#!/usr/bin/env bash
# make units: checks the systemd units in systemd/ the way systemd would load them.
#  1. systemd-analyze verify on the service and the socket. It exits 0 on unknown keys and bad
#     values (it only prints), so ANY output fails. ExecStart must name an executable that
#     exists, so the units are rendered from their templates (scripts/render-units.sh, as
#     `make install` does) with BINDIR the folder of the built accessoryd.
#  2. systemd-analyze security --offline=true: the exposure must be 2.0 or lower (--threshold is
#     in tenths). The score is printed.
# Needs no running systemd (PID 1 need not be systemd). Usage: check-units.sh BIN_DIR
set -euo pipefail
BIN="${1:?usage: check-units.sh BIN_DIR (the folder holding the built accessoryd)}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
[ -x "$BIN/accessoryd" ] || { echo "check-units: $BIN/accessoryd is not built" >&2; exit 1; }
BIN="$(cd "$BIN" && pwd)"   # ExecStart needs an absolute path
command -v systemd-analyze >/dev/null || { echo "check-units: systemd-analyze is missing (apt-get install systemd)" >&2; exit 1; }

WORK="$(mktemp -d /tmp/accessoryd-units.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
"$HERE/scripts/render-units.sh" "$BIN" /usr/local/share/doc/accessoryd "$WORK"
grep -q "^ExecStart=$BIN/accessoryd " "$WORK/accessoryd.service" \
  || { echo "check-units: the rendered ExecStart does not start $BIN/accessoryd" >&2; exit 1; }

# Documentation=man:… is checked by running man: the pages in man/, laid out as installed.
for page in "$HERE"/man/*.[0-9]; do
  mkdir -p "$WORK/man/man${page##*.}" && cp "$page" "$WORK/man/man${page##*.}/"
done
# The metrics timer (the service is rendered above): verified beside the daemon's units.
cp "$HERE/systemd/accessoryd-metrics.timer" "$WORK/"
echo "-- systemd-analyze verify accessoryd.service accessoryd.socket accessoryd-metrics.service accessoryd-metrics.timer"
output="$(cd "$WORK" && MANPATH="$WORK/man" systemd-analyze verify accessoryd.service accessoryd.socket \
  accessoryd-metrics.service accessoryd-metrics.timer 2>&1)" || {
  echo "$output"; echo "check-units: verify failed" >&2; exit 1; }
if [ -n "$output" ]; then
  echo "$output"; echo "check-units: verify printed warnings (treated as errors)" >&2; exit 1
fi
echo "verify: no findings"

echo "-- systemd-analyze security --offline=true --threshold=20 accessoryd.service"
(cd "$WORK" && systemd-analyze security --offline=true --threshold=20 accessoryd.service) > "$WORK/security.txt" 2>&1 \
  || { grep -v '^✓' "$WORK/security.txt"; echo "check-units: exposure above 2.0" >&2; exit 1; }
grep -v '^✓' "$WORK/security.txt"

echo "-- udev rules syntax (udevadm verify, when this udevadm has it)"
if udevadm verify --help >/dev/null 2>&1; then
  udevadm verify "$HERE/systemd/udev/60-accessoryd.rules"
else
  echo "udevadm verify is not available here (systemd < 253); skipped"
fi
