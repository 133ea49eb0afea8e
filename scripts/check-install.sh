#!/usr/bin/env bash
# make install-check: `make install DESTDIR=<scratch>` (default PREFIX) must install exactly the
# files in scripts/install-files.txt, with units naming the installed paths, and a second install
# must leave an edited /etc/accessoryd/accessoryd.yaml as it is.
#   check-install.sh BIN       (BIN: the folder holding the built programs)
set -euo pipefail
BIN="${1:?usage: check-install.sh BIN}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(mktemp -d /tmp/accessoryd-install-check.XXXXXX)"
trap 'rm -rf "$ROOT" "$ROOT.list"' EXIT
install_into() {
  make -s -C "$HERE" install RELEASE_BIN="$BIN" DESTDIR="$ROOT" >"$ROOT.log" 2>&1 \
    || { cat "$ROOT.log"; rm -f "$ROOT.log"; echo "check-install: make install failed" >&2; exit 1; }
  rm -f "$ROOT.log"
}
install_into
(cd "$ROOT" && find . -type f -o -type l | sed 's|^\.||' | LC_ALL=C sort) > "$ROOT.list"
if ! diff -u "$HERE/scripts/install-files.txt" "$ROOT.list"; then
  echo "check-install: the installed files differ from scripts/install-files.txt (- expected, + installed)" >&2
  exit 1
fi
unit="$ROOT/usr/local/lib/systemd/system/accessoryd.service"
grep -qx 'ExecStart=/usr/local/bin/accessoryd --config /etc/accessoryd/accessoryd.yaml' "$unit" \
  || { echo "check-install: accessoryd.service does not start /usr/local/bin/accessoryd" >&2; exit 1; }
grep -q 'file:///usr/local/share/doc/accessoryd/README.md' "$unit" \
  || { echo "check-install: accessoryd.service does not name the installed README" >&2; exit 1; }
for p in accessoryd accessoryctl accessory-sim; do
  [ -x "$ROOT/usr/local/bin/$p" ] || { echo "check-install: $p is not executable" >&2; exit 1; }
done
echo "# edited by the administrator" >> "$ROOT/etc/accessoryd/accessoryd.yaml"
install_into
tail -n 1 "$ROOT/etc/accessoryd/accessoryd.yaml" | grep -qx '# edited by the administrator' \
  || { echo "check-install: a second install overwrote /etc/accessoryd/accessoryd.yaml" >&2; exit 1; }
echo "check-install: $(wc -l < "$HERE/scripts/install-files.txt") files installed as listed; the configuration survives a reinstall"
