#!/usr/bin/env bash
# make deb: the Debian package, with dpkg's own tools, from the static release build.
#   make-deb.sh BIN VERSION      -> build/accessoryd_VERSION_ARCH.deb, then lintian on it
# The files are `make install` into a staging root with PREFIX=/usr (scripts/install.sh); then
# what Debian policy asks: stripped programs, gzipped man pages, the copyright file instead of
# LICENSE, changelog.gz (a native package), md5sums, the configuration as a conffile, Depends computed by
# dpkg-shlibdeps. The maintainer scripts are packaging/debian/{postinst,prerm,postrm}.
set -euo pipefail
BIN="${1:?usage: make-deb.sh BIN VERSION}"
VERSION="${2:?usage: make-deb.sh BIN VERSION}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ARCH="$(dpkg --print-architecture)"
NAME="accessoryd_${VERSION}_${ARCH}"
OUT="$HERE/build"
ROOT="$OUT/$NAME"
MAINTAINER="${DEBFULLNAME:-accessoryd authors} <${DEBEMAIL:-accessoryd@example.org}>"
# Reproducible: every date and mtime is the last commit's.
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$HERE" log -1 --format=%ct 2>/dev/null || date +%s)}"

rm -rf "$ROOT" "$OUT/$NAME.deb"
mkdir -p "$ROOT/DEBIAN"
"$HERE/scripts/install.sh" "$BIN" "$ROOT" /usr/bin /etc /usr/share/doc/accessoryd /usr/share/man \
  /usr/lib/systemd/system /usr/lib/udev/rules.d /usr/share/bash-completion/completions \
  /usr/share/zsh/vendor-completions /usr/share/fish/vendor_completions.d >/dev/null

doc="$ROOT/usr/share/doc/accessoryd"
rm "$doc/LICENSE"  # Debian keeps licences in the copyright file
install -m 0644 "$HERE/packaging/debian/copyright" "$doc/copyright"
changelog_date="$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
printf '%s\n' "accessoryd ($VERSION) unstable; urgency=medium" "" \
  "  * Release $VERSION (built from the accessoryd repository; see README.md)." "" \
  " -- $MAINTAINER  $changelog_date" | gzip -9n > "$doc/changelog.gz"  # a native package: changelog.gz
chmod 0644 "$doc/changelog.gz"
find "$ROOT/usr/share/man" -type f -exec gzip -9n {} +
for p in accessoryd accessoryctl accessory-sim; do
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$ROOT/usr/bin/$p"
done

# Depends: what the programs link (dpkg-shlibdeps wants a debian/control beside it).
shlib="$(mktemp -d /tmp/accessoryd-shlibdeps.XXXXXX)"
trap 'rm -rf "$shlib"' EXIT
mkdir -p "$shlib/debian"
printf 'Source: accessoryd\n\nPackage: accessoryd\nArchitecture: any\n' > "$shlib/debian/control"
depends="$(cd "$shlib" && dpkg-shlibdeps -O "$ROOT/usr/bin/accessoryd" "$ROOT/usr/bin/accessoryctl" \
  "$ROOT/usr/bin/accessory-sim" | sed -n 's/^shlibs:Depends=//p')"
[ -n "$depends" ] || { echo "make-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# The programs' relative relocations are packed (DT_RELR, Package.swift's shippedLinking), which
# glibc applies from 2.36 on; the linker records no symbol version that tells dpkg-shlibdeps so.
if readelf -d "$ROOT/usr/bin/accessoryd" | grep -q '(RELR)'; then
  depends="$(echo "$depends" | sed -E 's/libc6 \(>= [0-9.]+\)/libc6 (>= 2.36)/')"
  case "$depends" in *"libc6 (>= 2.36)"*) ;; *) echo "make-deb: cannot raise libc6 to 2.36 in: $depends" >&2; exit 1 ;; esac
fi

for script in postinst prerm postrm; do install -m 0755 "$HERE/packaging/debian/$script" "$ROOT/DEBIAN/"; done
echo /etc/accessoryd/accessoryd.yaml > "$ROOT/DEBIAN/conffiles"
(cd "$ROOT" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) > "$ROOT/DEBIAN/md5sums"
size="$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)"
cat > "$ROOT/DEBIAN/control" <<CONTROL
Package: accessoryd
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $size
Depends: $depends
Section: admin
Priority: optional
Description: daemon sharing serial and Bluetooth RFCOMM accessories
 accessoryd owns serial (USB, ACM, on-board UART) and Bluetooth RFCOMM
 accessories and serves them to many local programs over a Unix socket
 with JSON-RPC: typed request/response transactions, strictly one at a
 time per accessory, data subscriptions and raw sessions.
 .
 The package holds the daemon with its systemd units and udev rule,
 accessoryctl (the command-line client) and accessory-sim (simulated
 accessories on pseudo-terminals).
CONTROL
find "$ROOT" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
dpkg-deb --root-owner-group -Zxz --build "$ROOT" "$OUT/$NAME.deb" >/dev/null
echo "make-deb: $OUT/$NAME.deb (Depends: $depends)"

# MAKE_DEB_NO_LINT=1: the package only (make systemd-test's second, higher-versioned package
# for the upgrade check is the same files as the first, which lintian has seen).
if [ "${MAKE_DEB_NO_LINT:-0}" = 1 ]; then
  exit 0
fi
if command -v lintian >/dev/null; then
  echo "-- lintian (accepted warnings: docs/packaging.md)"
  lintian --fail-on error --suppress-tags-from-file "$HERE/packaging/lintian-accepted" "$OUT/$NAME.deb"
  "$HERE/scripts/make-python-deb.sh" "$VERSION"
  lintian --fail-on error --suppress-tags-from-file "$HERE/packaging/lintian-accepted" \
    "$OUT/python3-accessoryd_${VERSION}_all.deb"
else
  echo "make-deb: lintian is not installed (scripts/install-deps.sh --deb installs it)" >&2
  exit 1
fi
