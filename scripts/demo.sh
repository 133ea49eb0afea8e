#!/usr/bin/env bash
# make demo: start accessoryd on its embedded default (simulated accessories), show a short
# accessoryctl session against it, then stop everything cleanly. Stops only what it started.
# The session's transcript is then checked for the answers it must contain: a missing one is
# printed and the script exits 1 (CI runs `make demo`).
set -euo pipefail
BIN="${1:?usage: demo.sh BIN_DIR}"
RUN="$(mktemp -d /tmp/accessoryd-demo.XXXXXX)"
SOCK="$RUN/accessoryd.sock"
CTL() { echo; echo "\$ accessoryctl $*"; "$BIN/accessoryctl" --socket "$SOCK" "$@" || echo "(exit code $?)"; }

# --embedded-default: the demo is the same whatever /etc/accessoryd/accessoryd.yaml holds.
"$BIN/accessoryd" --embedded-default --runtime-dir "$RUN" 2> "$RUN/daemon.log" &
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

session() {
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
}
session 2>&1 | tee "$RUN/transcript.txt"
# The answers: the transcript without its command lines (which repeat what was sent).
grep -v '^\$ ' "$RUN/transcript.txt" > "$RUN/answers.txt" || true

# Each answer the session must show (extended regular expressions, matched per line).
expected=(
  '^echo +ready '
  '^modem +ready '
  '^gps +ready '
  '^slip +ready '
  '^hello, accessory$'
  '^Model: SIM-AT1$'
  '^\+CSQ: 23,99$'
  '^00000000  01 c0 db 02 '
  '^modem: (RING|\+CMTI: .*)$'
  'did not answer within 5 ms \(timed_out\)'
  '^raw bytes, no JSON$'
  '^state: +(ready|resyncing)$'
  '^accessories_ready: +4$'
)
missing=0
for answer in "${expected[@]}"; do
  if ! grep -qE -- "$answer" "$RUN/answers.txt"; then
    echo "demo: the transcript lacks the expected answer: $answer" >&2
    missing=$((missing + 1))
  fi
done
# After the timed-out AT+CSQ, the next AT gets its own answer, not the late one.
after_timeout="$(awk '/^\$ accessoryctl transact modem AT$/ { getline; print; exit }' "$RUN/transcript.txt")"
if [ "$after_timeout" != "OK" ]; then
  echo "demo: after the timeout, AT was answered \"$after_timeout\" instead of its own OK" >&2
  missing=$((missing + 1))
fi
if [ "$missing" -gt 0 ]; then
  echo "demo: FAILED ($missing expected answer(s) missing)" >&2
  exit 1
fi
echo; echo "demo: every expected answer is in the transcript ($(( ${#expected[@]} + 1 )) checked)"
