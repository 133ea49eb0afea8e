#!/usr/bin/env bash
# Builds build/python3-accessoryd_VERSION_all.deb: the Python client (python/accessoryd, standard
# library only) where Debian's python3 finds it, /usr/lib/python3/dist-packages, as a package of
# its own beside accessoryd's (Debian names Python modules' packages python3-*; the client is
# also useful on a machine that only reaches a daemon over --host ssh://). Called by make-deb.sh;
# lintian checks it there.
#   make-python-deb.sh VERSION
set -euo pipefail
VERSION="${1:?usage: make-python-deb.sh VERSION}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
NAME="python3-accessoryd_${VERSION}_all"
OUT="$HERE/build"
ROOT="$OUT/$NAME"
MAINTAINER="${DEBFULLNAME:-accessoryd authors} <${DEBEMAIL:-accessoryd@example.org}>"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$HERE" log -1 --format=%ct 2>/dev/null || date +%s)}"

rm -rf "$ROOT" "$OUT/$NAME.deb"
mkdir -p "$ROOT/DEBIAN" "$ROOT/usr/lib/python3/dist-packages"
# The module's sources only: no byte-compiled caches (Debian compiles on the target).
(cd "$HERE/python" && find accessoryd -type f \( -name '*.py' -o -name py.typed \) -print0 |
  xargs -0 -I{} install -D -m 0644 {} "$ROOT/usr/lib/python3/dist-packages/{}")

doc="$ROOT/usr/share/doc/python3-accessoryd"
install -D -m 0644 "$HERE/packaging/debian/copyright" "$doc/copyright"
changelog_date="$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
printf '%s\n' "accessoryd ($VERSION) unstable; urgency=medium" "" \
  "  * Release $VERSION (built from the accessoryd repository; see README.md)." "" \
  " -- $MAINTAINER  $changelog_date" | gzip -9n > "$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

(cd "$ROOT" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) > "$ROOT/DEBIAN/md5sums"
size="$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)"
cat > "$ROOT/DEBIAN/control" <<CONTROL
Package: python3-accessoryd
Source: accessoryd
Version: $VERSION
Architecture: all
Maintainer: $MAINTAINER
Installed-Size: $size
Depends: python3:any (>= 3.9)
Suggests: accessoryd, openssh-client
Section: python
Priority: optional
Description: Python client for the accessoryd serial accessory daemon
 A blocking and an asyncio client for accessoryd's JSON-RPC protocol:
 transact, write, read, subscriptions, locks, control of the modem lines
 and raw attach sessions, with exceptions named after the protocol's
 error codes. It speaks to the local daemon's Unix socket, or to a
 daemon on another host through ssh (ssh://user@host).
CONTROL
find "$ROOT" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
dpkg-deb --root-owner-group -Zxz --build "$ROOT" "$OUT/$NAME.deb" >/dev/null
echo "make-python-deb: $OUT/$NAME.deb"
