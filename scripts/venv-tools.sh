#!/usr/bin/env bash
# Makes .build/venv-tools (or $1): a virtual environment of Debian's python3 with exactly the
# pinned packages of python/tools-tests/requirements-tools.txt (esptool, labgrid and what they
# pull in) from PyPI. Done again only when the requirements changed (their hash is kept in the
# environment). Prints the environment's folder. Never touches the system's Python.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:-$repo/.build/venv-tools}"
requirements="$repo/python/tools-tests/requirements-tools.txt"
python="${PYTHON:-/usr/bin/python3}"
wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.requirements-sha256" 2>/dev/null)" = "$wanted" ]; then
  echo "$venv"
  exit 0
fi
"$python" -c 'import venv, ensurepip' 2>/dev/null || {
  echo "error: $python has no venv/ensurepip module: install Debian's python3-venv" >&2
  exit 1
}
rm -rf "$venv"
"$python" -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$requirements" >&2
echo "$wanted" >"$venv/.requirements-sha256"
echo "$venv"
