#!/usr/bin/env bash
# make demo: start accessoryd on its embedded default (simulated accessories), show a short
# accessoryctl session against it, then stop everything cleanly. Stops only what it started.
set -euo pipefail
BIN="${1:?usage: demo.sh BIN_DIR}"
RUN="$(mktemp -d /tmp/accessoryd-demo.XXXXXX)"
SOCK="$RUN/accessoryd.sock"
CTL() { echo; echo "\$ accessoryctl $*"; "$BIN/accessoryctl" --socket "$SOCK" "$@" || echo "(exit code $?)"; }

"$BIN/accessoryd" --runtime-dir "$RUN" 2> "$RUN/daemon.log" &
DAEMON=$!
cleanup() {
  kill -TERM "$DAEMON" 2>/dev/null || true
  wait "$DAEMON" 2>/dev/null || true
  echo; echo "--- daemon log ---"; cat "$RUN/daemon.log" || true
  rm -rf "$RUN"
}
trap cleanup EXIT

for _ in $(seq 1 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
[ -S "$SOCK" ] || { echo "accessoryd did not create $SOCK"; exit 1; }
# Give the simulated accessories a moment to appear and open.
for _ in $(seq 1 50); do
  "$BIN/accessoryctl" --socket "$SOCK" list 2>/dev/null | grep -q "modem.*ready" && break; sleep 0.1
done

echo "accessoryd is running (pid $DAEMON) with its embedded default: simulated accessories on ptys."
CTL list
CTL transact echo "hello, accessory"
CTL transact modem ATI
CTL transact modem AT+CSQ
CTL transact slip --hex 01c0db02
CTL monitor modem --count 2 --duration 8000
CTL transact modem AT+CSQ --timeout 5   # the modem needs 20 ms: a timeout, then a resync
CTL transact modem AT          # the late reply above was discarded: this gets its own OK
echo; echo "\$ printf 'raw bytes, no JSON\\n' | accessoryctl attach echo"
printf 'raw bytes, no JSON\n' | "$BIN/accessoryctl" --socket "$SOCK" attach echo || echo "(exit code $?)"
CTL status echo
CTL status
