#!/usr/bin/env bash
# The man pages in man/ render cleanly: `mandoc -T lint -W warning` reports nothing (any warning
# or error fails), and, when man-db is installed, `man --warnings -l` prints no groff warning.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
command -v mandoc >/dev/null || { echo "check-man: mandoc is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
status=0
for page in "$HERE"/man/*.[0-9]; do
  mandoc -T lint -W warning "$page" || status=1
  if command -v man >/dev/null; then
    warnings="$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)"
    if [ -n "$warnings" ]; then echo "$warnings"; status=1; fi
  fi
done
[ "$status" -eq 0 ] && echo "check-man: $(ls "$HERE"/man/*.[0-9] | wc -l) pages render without warnings"
exit "$status"
