#!/usr/bin/env bash
# make deb-check (CI): the Debian package works on a machine without a Swift toolchain.
#   check-deb.sh PACKAGE.deb
#  1. lintian: no errors (accepted warnings: packaging/lintian-accepted, docs/packaging.md).
#  2. The package is unpacked into a scratch root (dpkg-deb -x); in a private mount namespace
#     with a tmpfs over the toolchain (/opt/swift, or TOOLCHAIN) and a minimal environment, its
#     programs must load no library from the toolchain, no Foundation, no ICU and no libstdc++ (ldd; the
#     daemon contains no Foundation code at all), print their version, accept the
#     installed example configuration (--check-config), start accessoryd on a test
#     configuration with a simulated accessory (the packaged accessory-sim, --simulator), and
#     answer an accessoryctl transact from the package.
#  3. Each man page renders without a warning (man -l --warnings, mandoc -T lint).
# Stops only the daemon it started, by pid. Needs root or unprivileged user namespaces.
set -euo pipefail
DEB="${1:?usage: check-deb.sh PACKAGE.deb}"
DEB="$(cd "$(dirname "$DEB")" && pwd)/$(basename "$DEB")"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
TOOLCHAIN="${TOOLCHAIN:-/opt/swift}"

echo "-- lintian $(basename "$DEB")"
lintian --fail-on error --suppress-tags-from-file "$HERE/packaging/lintian-accepted" "$DEB"

ROOT="$(mktemp -d /tmp/accessoryd-deb-check.XXXXXX)"
trap 'rm -rf "$ROOT"' EXIT
dpkg-deb -x "$DEB" "$ROOT/pkg"
# The Python client's package, built beside it by make-deb.sh, unpacked into the same root.
PYDEB="$(dirname "$DEB")/python3-accessoryd_$(dpkg-deb -f "$DEB" Version)_all.deb"
echo "-- lintian $(basename "$PYDEB")"
lintian --fail-on error --suppress-tags-from-file "$HERE/packaging/lintian-accepted" "$PYDEB"
dpkg-deb -x "$PYDEB" "$ROOT/pkg"
echo "-- unpacked into $ROOT/pkg: $(cd "$ROOT/pkg" && find . -type f | wc -l) files"

echo "-- the man pages render cleanly"
for page in "$ROOT"/pkg/usr/share/man/man*/*.gz; do
  warnings="$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)"
  [ -z "$warnings" ] || { echo "$warnings"; echo "check-deb: man warns about $(basename "$page")" >&2; exit 1; }
  zcat "$page" | mandoc -T lint -W warning || { echo "check-deb: mandoc -T lint: $(basename "$page")" >&2; exit 1; }
  echo "ok: $(basename "$page")"
done

# The test run, inside the namespace (this script, called again with --inside).
cat > "$ROOT/inside.sh" <<'INSIDE'
#!/bin/sh
# Runs with the toolchain hidden; $1: scratch folder, $2: the hidden toolchain path.
set -eu
ROOT="$1"; TOOLCHAIN="$2"; BIN="$ROOT/pkg/usr/bin"
[ -z "$(ls -A "$TOOLCHAIN")" ] || { echo "check-deb: $TOOLCHAIN is still visible" >&2; exit 1; }
for p in accessoryd accessoryctl accessory-sim; do
  libs="$(ldd "$BIN/$p")"
  # libstdc++ too: make release links it in statically (docs/packaging.md, "Footprint").
  if echo "$libs" | grep -E "not found|$TOOLCHAIN|[Ff]oundation|icu|libstdc\+\+"; then
    echo "check-deb: $p loads a library it should not (above)" >&2; exit 1
  fi
  "$BIN/$p" --version
done
# Foundation: the daemon has none at all (its own option parser). accessoryctl and accessory-sim
# have FoundationEssentials linked in (swift-argument-parser imports it; no ICU): finding it
# there shows the probe can see it.
if grep -q -a FoundationEssentials "$BIN/accessoryd"; then
  echo "check-deb: accessoryd contains FoundationEssentials code" >&2; exit 1
fi
for p in accessoryctl accessory-sim; do
  grep -q -a FoundationEssentials "$BIN/$p" || { echo "check-deb: no FoundationEssentials found in $p: the probe is broken" >&2; exit 1; }
done
echo "Foundation: none in accessoryd; FoundationEssentials linked into accessoryctl and accessory-sim"
"$BIN/accessoryd" --check-config --config "$ROOT/pkg/etc/accessoryd/accessoryd.yaml"

RUN="$ROOT/run"; mkdir -p "$RUN"
cat > "$RUN/test.yaml" <<YAML
socket:
  path: $RUN/accessoryd.sock
accessories:
  - name: echo
    simulate: {personality: echo}
YAML
"$BIN/accessoryd" --config "$RUN/test.yaml" --runtime-dir "$RUN" --simulator "$BIN/accessory-sim" 2> "$RUN/daemon.log" &
DAEMON=$!
stop() { kill -TERM "$DAEMON" 2>/dev/null || true; wait "$DAEMON" 2>/dev/null || true; }
trap stop EXIT
i=0
until "$BIN/accessoryctl" --socket "$RUN/accessoryd.sock" list 2>/dev/null | grep -q "echo.*ready"; do
  i=$((i + 1))
  if [ "$i" -gt 100 ]; then cat "$RUN/daemon.log"; echo "check-deb: the echo accessory was not ready within 10 s" >&2; exit 1; fi
  sleep 0.1
done
answer="$("$BIN/accessoryctl" --socket "$RUN/accessoryd.sock" transact echo "hello from the package")"
[ "$answer" = "hello from the package" ] || { cat "$RUN/daemon.log"; echo "check-deb: transact answered: $answer" >&2; exit 1; }
echo "transact echo: $answer"
answer="$(PYTHONPATH="$ROOT/pkg/usr/lib/python3/dist-packages" /usr/bin/python3 -c '
import sys, accessoryd
with accessoryd.Client(sys.argv[1]) as client:
    print(client.transact("echo", "hello from python3-accessoryd")[0].text)
' "$RUN/accessoryd.sock")"
[ "$answer" = "hello from python3-accessoryd" ] || { echo "check-deb: the packaged Python client got: $answer" >&2; exit 1; }
echo "python3-accessoryd transact echo: $answer"
stop
trap - EXIT
INSIDE
chmod +x "$ROOT/inside.sh"

echo "-- the packaged programs with $TOOLCHAIN hidden (private mount namespace, empty environment)"
if [ "$(id -u)" -eq 0 ]; then ns=(unshare --mount --propagation private); else ns=(unshare --map-root-user --mount); fi
"${ns[@]}" sh -c 'mount -t tmpfs -o ro,size=1k hidden "$2" && exec env -i PATH=/usr/bin:/bin LANG=C.UTF-8 "$1/inside.sh" "$1" "$2"' \
  sh "$ROOT" "$TOOLCHAIN"
echo "check-deb: passed"
