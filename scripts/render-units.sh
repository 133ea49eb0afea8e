#!/usr/bin/env bash
# Writes accessoryd.service, accessoryd.socket and accessoryd-metrics.service from the templates in systemd/ with the paths
# of one installation: the only place the units' paths are filled in (make install, make deb and
# scripts/check-units.sh all call it).
#   render-units.sh BINDIR DOCDIR OUTDIR
set -euo pipefail
BINDIR="${1:?usage: render-units.sh BINDIR DOCDIR OUTDIR}"
DOCDIR="${2:?usage: render-units.sh BINDIR DOCDIR OUTDIR}"
OUT="${3:?usage: render-units.sh BINDIR DOCDIR OUTDIR}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
case "$BINDIR$DOCDIR" in *'|'*) echo "render-units: paths may not contain |" >&2; exit 1 ;; esac
mkdir -p "$OUT"
for unit in accessoryd.service accessoryd.socket accessoryd-metrics.service; do
  sed -e "s|@BINDIR@|$BINDIR|g" -e "s|@DOCDIR@|$DOCDIR|g" "$HERE/systemd/$unit.in" > "$OUT/$unit"
  if grep -n '@[A-Z]*@' "$OUT/$unit"; then echo "render-units: $unit: a placeholder is left" >&2; exit 1; fi
done
