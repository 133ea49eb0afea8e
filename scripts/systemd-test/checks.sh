#!/usr/bin/env bash
# The checks of `make systemd-test`, run as root inside a container booted with systemd as PID 1
# (scripts/systemd-test.sh starts it and copies this folder to /mnt/accessoryd). Each check is
# one feature of the package proven under the shipped units; each prints `ok` or `not ok` with
# the cause and the daemon's journal since the check began. The checks run in order (later ones
# use what earlier ones installed); the exit status is the number of failures (0: all passed).
# No pipefail: a `… | grep -q` ends early, and the SIGPIPE of the command before it must not
# count as a failure.
set -u
SHARE=/mnt/accessoryd
USER_IN_DIALOUT=tester
OUTSIDER=outsider
SOCKET=/run/accessoryd/accessoryd.sock
export DEBIAN_FRONTEND=noninteractive
failures=0
passed=0
check_started=0
current=""

# --- helpers --------------------------------------------------------------------------------
# `fail MESSAGE`: the current check fails with MESSAGE and stops (each check runs in a subshell).
fail() {
  echo "  cause: $*"
  exit 1
}
# A command as the unprivileged user in dialout (bounded: a client must never hang a check).
as_user() { timeout --kill-after=2 20 runuser -u "$USER_IN_DIALOUT" -- "$@"; }
as_outsider() { timeout --kill-after=2 20 runuser -u "$OUTSIDER" -- "$@"; }
# `wait_for SECONDS DESCRIPTION COMMAND…`: polls a real process's state, at most SECONDS.
wait_for() {
  local limit=$1 what=$2 i last="" end=$((SECONDS + $1))
  shift 2
  # Bounded in tries and in time (a try that itself takes seconds must not stretch the limit).
  for ((i = 0; i < limit * 10 && SECONDS <= end; i++)); do
    last="$("$@" 2>&1)" && return 0
    sleep 0.1
  done
  fail "$what: not so after ${limit} s${last:+; the last try said: ${last:0:400}}"
}
main_pid() { systemctl show -p MainPID --value accessoryd.service; }
# The daemon's simulators: every accessory-sim but the one check_restart starts for its device.
daemon_sims() {
  pgrep -x accessory-sim | grep -vxF -e "$(cat /run/accessoryd-kept-test/sim.pid 2>/dev/null || echo none)" \
    -e "$(cat /run/accessoryd-kept-test/slow.pid 2>/dev/null || echo none)"
}
no_daemon_sims() { [ -z "$(daemon_sims)" ]; }
# The journal since the check began (--since, to the second: journalctl 252 combines
# --after-cursor badly with other filters).
journal_since_check() { journalctl --no-pager -q --since="@$check_started" "$@"; }
# `contains HAYSTACK NEEDLE WHAT`
contains() { [[ "$1" == *"$2"* ]] || fail "$3: expected '$2' in: $1"; }

check() {
  local name=$1
  shift
  if [ -n "${SYSTEMD_TEST_ONLY:-}" ] && [[ " $SYSTEMD_TEST_ONLY " != *" $name "* ]]; then return 0; fi
  current=$name
  check_started="$(date +%s)"
  local t0=$SECONDS
  echo "-- $name: $*"
  if ("check_$name"); then
    echo "ok - $name ($((SECONDS - t0)) s)"
    passed=$((passed + 1))
  else
    echo "not ok - $name ($((SECONDS - t0)) s)"
    echo "  journal since the check began:"
    journal_since_check -u 'accessoryd*' | tail -40 | sed 's/^/    /'
    failures=$((failures + 1))
  fi
}

# --- the checks -----------------------------------------------------------------------------
check_install() {
  local out
  out="$(apt-get install -y -q "$SHARE/accessoryd.deb" 2>&1)" || { echo "$out" | tail -20; fail "apt-get install failed"; }
  # What dh_installsystemd would do on a first install: the socket enabled and listening.
  [ "$(systemctl is-enabled accessoryd.socket)" = enabled ] || fail "accessoryd.socket is not enabled after install"
  [ "$(systemctl is-active accessoryd.socket)" = active ] || fail "accessoryd.socket is not listening after install"
  [ -S "$SOCKET" ] || fail "no socket at $SOCKET"
  [ "$(systemctl is-active accessoryd.service)" != active ] || fail "the daemon started before any client came"
  useradd --create-home --groups dialout "$USER_IN_DIALOUT"
  useradd --create-home "$OUTSIDER"
}

check_activation() {
  local out
  # The first client starts the daemon; the embedded example's simulated accessory runs.
  out="$(as_user accessoryctl list 2>&1)" || fail "accessoryctl list as a user in dialout failed: $out"
  contains "$out" "sim-echo" "accessoryctl list"
  [ "$(systemctl is-active accessoryd.service)" = active ] || fail "accessoryd.service is not active"
  wait_for 10 "sim-echo ready" sh -c "out=\$(runuser -u $USER_IN_DIALOUT -- accessoryctl list 2>&1); echo \"\$out\"; echo \"\$out\" | grep -q 'sim-echo.*ready'"
  out="$(as_user accessoryctl transact sim-echo hello-from-a-user 2>&1)" || fail "transact on sim-echo failed: $out"
  contains "$out" "hello-from-a-user" "the simulator's echo"
  # systemctl status shows the daemon's STATUS= line.
  out="$(systemctl show -p StatusText --value accessoryd.service)"
  [ -n "$out" ] || fail "no STATUS= text in systemctl show"
  contains "$(systemctl status --no-pager accessoryd.service 2>&1)" "Status: \"$out\"" "systemctl status"
  echo "  STATUS=$out"
  # The simulator runs inside the service (its cgroup), as the daemon's transient user.
  local sim
  sim="$(pgrep -x accessory-sim | head -1)"
  [ -n "$sim" ] || fail "no accessory-sim process"
  grep -q '/system.slice/accessoryd.service$' "/proc/$sim/cgroup" || fail "accessory-sim is not in the service's cgroup"
  [ "$(stat -c %u "/proc/$sim")" = "$(stat -c %u "/proc/$(main_pid)")" ] || fail "accessory-sim runs as another user"
  # Someone outside dialout cannot reach the socket at all.
  if out="$(as_outsider accessoryctl list 2>&1)"; then fail "a user outside dialout was served: $out"; fi
  contains "$out" "ermission denied" "the outsider's refusal"
}

check_features() {
  local out
  install -m 0644 "$SHARE/features.yaml" /etc/accessoryd/accessoryd.yaml
  out="$(accessoryd --check-config --config /etc/accessoryd/accessoryd.yaml 2>&1)" || fail "--check-config: $out"
  systemctl reload accessoryd.service || fail "systemctl reload failed"
  wait_for 15 "the three accessories ready" sh -c \
    "[ \$(runuser -u $USER_IN_DIALOUT -- accessoryctl list | grep -cE '^(modem|gps|echo) .*ready') -eq 3 ]"
  # transact, write/read, lock
  out="$(as_user accessoryctl transact modem ATI 2>&1)" || fail "transact modem ATI: $out"
  contains "$out" "OK" "transact modem ATI"
  out="$(printf 'transact modem AT\nwrite modem AT\n' | as_user accessoryctl lock modem 2>&1)" \
    || fail "lock with a transact and a write: $out"
  contains "$out" "OK" "lock's transaction"
  # read: the next frames the accessory sends (the NMEA simulator's sentences)
  out="$(as_user accessoryctl read gps --timeout 3000 2>&1)" || fail "read gps: $out"
  contains "$out" "\$G" "read's NMEA sentence"
  # subscribe: frames no request claimed
  out="$(as_user accessoryctl monitor gps --count 2 --duration 5000 2>&1)" || fail "monitor gps: $out"
  contains "$out" "\$G" "NMEA sentences from monitor"
  # attach: raw bytes both ways
  out="$(printf 'raw-bytes-through-attach\n' | as_user accessoryctl attach echo 2>&1)" || fail "attach echo: $out"
  contains "$out" "raw-bytes-through-attach" "attach's echo"
  # control: a pty has no modem lines; the ioctl answers ENOTTY (not the sandbox's EPERM, which
  # would fail the request), and the daemon gives a simulated accessory's lines to its simulator
  # instead (the pty stand-in for modem lines, docs/testing.md)
  out="$(as_user accessoryctl line modem --dtr on 2>&1)" || fail "line --dtr on the simulated modem failed: $out"
  contains "$out" "dtr: true" "line control on a simulated accessory"
  [[ "$out" != *EPERM* ]] || fail "the sandbox refused line control: $out"
  # metrics, as the user
  out="$(as_user accessoryctl metrics 2>&1)" || fail "accessoryctl metrics: $out"
  contains "$out" "accessoryd_" "metrics"
}

check_views() {
  local link target out
  link=/run/accessoryd/daemon/tty/modem
  wait_for 10 "the view link $link" test -L "$link"
  target="$(readlink "$link")"
  [[ "$target" == /dev/pts/* ]] || fail "$link leads to $target, not a pty"
  out="$(stat -c '%G %a' "$target")"
  [ "$out" = "dialout 660" ] || fail "the view's pty $target is '$out', not 'dialout 660'"
  [ "$(stat -c '%G %a' "$(readlink /run/accessoryd/daemon/tty/gps)")" = "dialout 640" ] || fail "gps view mode"
  # A program the user runs opens the view as a tty: a line it writes is a transaction.
  out="$(as_user bash -c "exec 3<>'$link'; stty -F '$link' raw -echo; printf 'ATI\r\n' >&3;
    while IFS= read -r -t 3 line <&3; do echo \"\$line\"; [[ \"\$line\" == OK* ]] && break; done" 2>&1)" \
    || fail "the shared view did not answer: $out"
  contains "$out" "OK" "a transaction through the shared view"
  # Someone outside dialout cannot open it.
  if as_outsider bash -c "exec 3<>'$target'" 2>/dev/null; then fail "a user outside dialout opened $target"; fi
}

check_trace() {
  local file=/var/log/accessoryd/modem.trace
  as_user accessoryctl transact modem AT+TRACEME >/dev/null 2>&1 || true
  wait_for 5 "the trace file $file" grep -q "AT+TRACEME" "$file"
  # Written by the daemon's own user, readable by nobody else.
  [ "$(stat -L -c '%a' "$file")" = 600 ] || fail "trace file mode $(stat -L -c '%a' "$file")"
  if as_user cat "$file" >/dev/null 2>&1; then fail "a user could read the trace file"; fi
}

check_owner() {
  # `owner:` needs CAP_CHOWN, which the unit does not grant: refused before start, said clearly.
  local config=/etc/accessoryd/owner.yaml out
  sed 's/group: dialout, perm: "0660"}/owner: tester, group: dialout, perm: "0660"}/' \
    /etc/accessoryd/accessoryd.yaml >"$config"
  grep -q 'owner: tester' "$config" || fail "could not make the owner: configuration"
  out="$(systemd-run --quiet --wait --pipe --collect -p DynamicUser=yes -p SupplementaryGroups=dialout \
    -p CapabilityBoundingSet= accessoryd --check-config --config "$config" 2>&1)" \
    && fail "--check-config accepted owner: without CAP_CHOWN: $out"
  contains "$out" "CAP_CHOWN" "--check-config's reason"
  echo "  --check-config says: $(echo "$out" | grep -m1 CAP_CHOWN)"
  rm -f "$config"
}

check_metrics_timer() {
  local file=/var/lib/accessoryd-metrics/accessoryd.prom
  systemctl start accessoryd-metrics.service || fail "accessoryd-metrics.service failed"
  [ -s "$file" ] || fail "no textfile at $file"
  grep -q '^accessoryd_' "$file" || fail "$file has no accessoryd_ metric"
  # Written as the metrics user, not root, in a folder only that user may write, mode 0644.
  [ "$(stat -c '%U %a' "$file")" = "accessoryd-metrics 644" ] || fail "$file is $(stat -c '%U %a' "$file")"
  [ "$(stat -c '%U %a' "$(dirname "$file")")" = "accessoryd-metrics 755" ] || fail "the folder is $(stat -c '%U %a' "$(dirname "$file")")"
  if as_user touch "$(dirname "$file")/planted" 2>/dev/null; then fail "another user could add a name to the folder"; fi
  # No leak: an accessory only root may use, and the daemon's process figures, are not in it.
  if grep -q 'accessory="secret"' "$file"; then fail "the metrics list an accessory hidden from their user"; fi
  if grep -qE '^accessoryd_(pid|uptime_seconds)' "$file"; then fail "the metrics show the administrator's figures"; fi
  grep -q 'accessory="modem"' "$file" || fail "the metrics lack the modem"
  systemctl enable --now accessoryd-metrics.timer >/dev/null 2>&1 || fail "cannot enable the metrics timer"
  [ "$(systemctl is-active accessoryd-metrics.timer)" = active ] || fail "the metrics timer is not active"
}

check_reload() {
  local before after
  before="$(main_pid)"
  systemctl reload accessoryd.service || fail "systemctl reload failed"
  after="$(main_pid)"
  [ "$before" = "$after" ] || fail "reload restarted the daemon ($before -> $after)"
  wait_for 10 "the reload in the journal" sh -c "journalctl -q -u accessoryd.service --since=@$check_started | grep -qi 'reload'"
  as_user accessoryctl transact modem AT >/dev/null || fail "the daemon does not serve after the reload"
}

check_journal_priorities() {
  # The daemon's own levels reach the journal (the <N> prefixes journald reads on a stream):
  # the test hook's warning (logged in the watchdog check) is under -p warning, the start-up
  # line (info) is not, and nothing is at debug with the default level (info).
  local daemon='accessoryd\['
  journalctl -q -u accessoryd.service -p warning --no-pager | grep "$daemon" | grep -q 'test hooks are on' \
    || fail "the test hook's warning is not under -p warning"
  journalctl -q -u accessoryd.service -p info..notice --no-pager | grep "$daemon" | grep -q 'control socket listening' \
    || fail "the start-up line is not at info"
  if journalctl -q -u accessoryd.service -p warning --no-pager | grep "$daemon" | grep -q 'control socket listening'; then
    fail "an info line (control socket listening) is logged at warning"
  fi
  if journalctl -q -u accessoryd.service -p debug..debug --no-pager | grep -q "$daemon"; then
    fail "debug lines at the default level: $(journalctl -q -u accessoryd.service -p debug..debug --no-pager | head -3)"
  fi
}

check_watchdog() {
  # The test hook (environment only this drop-in sets) stalls the device loop; the watchdog must
  # kill the daemon with SIGABRT and systemd restart it.
  local before after n
  mkdir -p /run/systemd/system/accessoryd.service.d
  printf '[Service]\nEnvironment=ACCESSORYD_TEST_HOOKS=1 ACCESSORYD_TEST_STALL_MS=30000\nWatchdogSec=3s\n' \
    >/run/systemd/system/accessoryd.service.d/watchdog-test.conf
  systemctl daemon-reload
  systemctl restart accessoryd.service || fail "restart with the test hook failed"
  before="$(main_pid)"
  # journald reads the daemon's stderr on its own schedule: the line may follow READY=1.
  # (--since, not --after-cursor: journalctl 252 returns nothing when -p and --after-cursor meet.)
  wait_for 5 "the test hook's warning in the journal at priority warning" sh -c \
    "journalctl -q -u accessoryd.service -p warning --since=@$check_started | grep -q 'test hooks are on'"
  kill -USR1 "$before"
  wait_for 20 "a new daemon after the watchdog" sh -c "p=\$(systemctl show -p MainPID --value accessoryd.service); [ \"\$p\" != 0 ] && [ \"\$p\" != $before ]"
  wait_for 5 "the watchdog timeout in the journal" sh -c \
    "journalctl -q -u accessoryd.service --since=@$check_started | grep -q 'Watchdog timeout'"
  wait_for 5 "the daemon killed with SIGABRT, in the journal" sh -c \
    "journalctl -q -u accessoryd.service --since=@$check_started | grep -q 'SIGABRT'"
  n="$(systemctl show -p NRestarts --value accessoryd.service)"
  [ "$n" -ge 1 ] || fail "NRestarts is $n"
  rm -f /run/systemd/system/accessoryd.service.d/watchdog-test.conf
  systemctl daemon-reload
  systemctl restart accessoryd.service
  wait_for 10 "accessoryctl list after the watchdog restart" runuser -u "$USER_IN_DIALOUT" -- accessoryctl list
}

# An accessory outside the daemon (as a real device is): a simulator started here, on a pty the
# daemon's group may open, counting the closes of its pty (the stand-in for a DTR drop).
KEPT=/run/accessoryd-kept-test
closes() { cat "$KEPT/closes"; }
transact_kept() { as_user accessoryctl transact kept "ping $1" | grep -q "ping $1"; }
# Restarts faster than systemd's start rate limit allows (5 in 10 s): the counter is reset first.
restart_fast() {
  systemctl reset-failed accessoryd.service accessoryd.socket 2>/dev/null
  systemctl restart accessoryd.service
}
restart_and_serve() {
  restart_fast || fail "systemctl restart failed"
  wait_for 15 "the restarted daemon serves kept" transact_kept "$1"
}

check_restart() {
  mkdir -p "$KEPT"
  accessory-sim --personality echo --link "$KEPT/tty" --count-closes "$KEPT/closes" >"$KEPT/sim.log" 2>&1 &
  echo $! >"$KEPT/sim.pid"
  # A second one answering after 3 s, for check restart_in_flight.
  accessory-sim --personality echo --delay-ms 3000 --link "$KEPT/slow" >"$KEPT/slow.log" 2>&1 &
  echo $! >"$KEPT/slow.pid"
  wait_for 10 "the simulators' ptys" test -e "$KEPT/closes" -a -e "$KEPT/slow"
  chgrp dialout "$(readlink -f "$KEPT/tty")" "$(readlink -f "$KEPT/slow")"
  chmod 0660 "$(readlink -f "$KEPT/tty")" "$(readlink -f "$KEPT/slow")"
  printf '%s\n' "  - name: kept" "    path: $KEPT/tty" '    framing: {type: line, delimiter: "\n"}' \
    "  - name: slow" "    path: $KEPT/slow" '    framing: {type: line, delimiter: "\n"}' \
    '    response: {timeout_ms: 10000}' >>/etc/accessoryd/accessoryd.yaml
  systemctl reload accessoryd.service
  wait_for 10 "kept is served" transact_kept 0
  local before i
  before="$(closes)"
  for i in $(seq 1 10); do restart_and_serve "$i"; done
  [ "$(closes)" = "$before" ] || fail "10 restarts with the store closed the pty $(($(closes) - before)) times"
  journal_since_check -u accessoryd.service | grep -q "kept: kept open across the restart" ||
    fail "the daemon did not say it kept the device"
  # Without the store, each restart closes it (the check would see a regression as a difference).
  mkdir -p /run/systemd/system/accessoryd.service.d
  printf '[Service]\nFileDescriptorStoreMax=0\n' >/run/systemd/system/accessoryd.service.d/no-store.conf
  systemctl daemon-reload
  restart_and_serve 11
  before="$(closes)"
  restart_and_serve 12
  restart_and_serve 13
  [ "$(closes)" = $((before + 2)) ] || fail "2 restarts without the store closed the pty $(($(closes) - before)) times, not 2"
  rm /run/systemd/system/accessoryd.service.d/no-store.conf
  systemctl daemon-reload
  restart_and_serve 14
  echo "  closes of the pty: 0 over 10 restarts with the store, 2 over 2 without"
}

# The gap a client sees during a restart: a client transacts on `kept` in a loop (a new
# accessoryctl each time, as a script would) while the daemon is restarted 20 times; for each
# restart, the time from the last reply before `systemctl restart` to the first reply after it.
# A measurement, printed; it fails only if a restart is never followed by a reply.
check_restart_gap() {
  [ -f "$KEPT/closes" ] || fail "needs the accessory of check restart"
  local log=/tmp/restart-gap.log loop i
  : >"$log"
  (
    for ((i = 0; i < 100000; i++)); do
      if as_user accessoryctl transact kept gap >/dev/null 2>&1; then echo "ok $(date +%s%N)" >>"$log"; fi
    done
  ) &
  loop=$!
  sleep 1
  for i in $(seq 1 20); do
    echo "restart $(date +%s%N)" >>"$log"
    restart_fast
    sleep 1
  done
  kill "$loop" 2>/dev/null
  wait "$loop" 2>/dev/null
  awk '
    $1 == "ok" { if (pending) { gaps[n++] = ($2 - last) / 1e6; pending = 0 } last = $2; okcount++ }
    $1 == "restart" { pending = 1 }
    END {
      if (n < 20) { print "  only " n " of 20 restarts were followed by a reply"; exit 1 }
      for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (gaps[j] < gaps[i]) { t = gaps[i]; gaps[i] = gaps[j]; gaps[j] = t }
      printf "  restart gap over %d restarts (last reply before to first after, ms): p50 %.0f, worst %.0f (%d replies in all)\n", n, gaps[int(n / 2)], gaps[n - 1], okcount
    }' "$log" || fail "a restart was not followed by a reply"
}

# A transact in flight when the daemon restarts: the client says so (daemon_restarted), and the
# request is not sent again (the slow accessory's simulator saw it once).
check_restart_in_flight() {
  [ -f "$KEPT/slow.pid" ] || fail "needs the accessories of check restart"
  local out=/tmp/in-flight.out status
  (as_user accessoryctl transact slow "in flight" >"$out" 2>&1; echo "exit $?" >>"$out") &
  local client=$!
  wait_for 5 "the transact is in flight" sh -c "accessoryctl status slow 2>/dev/null | grep -Eq 'queue.?depth[^0-9]*1'"
  restart_fast || fail "systemctl restart failed"
  wait "$client"
  status="$(cat "$out")"
  contains "$status" "daemon_restarted" "the in-flight client's message"
  contains "$status" "exit 1" "the in-flight client's exit status"
  wait_for 15 "slow is served after the restart" sh -c "runuser -u $USER_IN_DIALOUT -- accessoryctl transact slow after | grep -q after"
  echo "  the in-flight transact ended with: $(head -1 "$out")"
}

# A program on a pty view (gpsd, on the gps accessory's monitor view) and a Python client with a
# subscription (scripts/systemd-test/subscriber.py, no reconnect code of its own) across a
# restart: gpsd keeps the same /dev/pts/N and logs nothing, and both get data again once the new
# daemon's simulator runs (simulators die with the daemon; the view does not).
gps_fix() { timeout 10 python3 "$SHARE/gpsd_fix.py" 29470; }
subscriber_count() { cat /tmp/subscriber.count 2>/dev/null || echo 0; }
check_restart_views() {
  command -v gpsd >/dev/null && command -v python3 >/dev/null || fail "gpsd or python3 is not in the container"
  local view=/run/accessoryd/daemon/tty/gps pts gpsd_pid sub_pid before log_before
  wait_for 10 "the gps view" test -e "$view"
  pts="$(readlink -f "$view")"
  gpsd -N -n -S 29470 -F /tmp/gpsd.sock -P /tmp/gpsd.pid "$view" >/tmp/gpsd.log 2>&1 &
  gpsd_pid=$!
  wait_for 20 "gpsd reports fixes from the view (its log: $(tail -3 /tmp/gpsd.log))" gps_fix
  rm -f /tmp/subscriber.count
  runuser -u "$USER_IN_DIALOUT" -- env PYTHONPATH="$SHARE/python" \
    timeout 60 python3 "$SHARE/subscriber.py" "$SOCKET" gps /tmp/subscriber.count 45 >/tmp/subscriber.log 2>&1 &
  sub_pid=$!
  wait_for 10 "the subscriber receives device.data" sh -c "[ \"\$(cat /tmp/subscriber.count 2>/dev/null || echo 0)\" -gt 0 ]"
  log_before="$(cat /tmp/gpsd.log)"
  restart_fast || fail "systemctl restart failed"
  wait_for 15 "gps is ready again" sh -c "accessoryctl list | grep -q 'gps .*ready'"
  [ "$(readlink -f "$view")" = "$pts" ] || fail "the view's pty changed: $pts -> $(readlink -f "$view")"
  ls -l "/proc/$gpsd_pid/fd" | grep -q " $pts\$" || fail "gpsd no longer holds $pts"
  before="$(subscriber_count)"
  wait_for 20 "gpsd reports fixes after the restart" gps_fix
  wait_for 15 "the subscriber receives device.data after the restart" sh -c "[ \"\$(cat /tmp/subscriber.count)\" -gt $before ]"
  [ "$(cat /tmp/gpsd.log)" = "$log_before" ] || fail "gpsd logged during the restart: $(tail -5 /tmp/gpsd.log)"
  kill "$gpsd_pid" "$sub_pid" 2>/dev/null
  wait "$gpsd_pid" "$sub_pid" 2>/dev/null
  echo "  gpsd kept $pts and its fixes; the Python subscriber went on ($before events before the restart, $(subscriber_count) in all)"
}

check_stop() {
  systemctl stop accessoryd.service || fail "systemctl stop failed"
  wait_for 10 "no simulator of the daemon's left" no_daemon_sims
  [ -z "$(pgrep -x accessoryd)" ] || fail "accessoryd still runs"
  # The socket still listens: the next client starts the daemon again.
  as_user accessoryctl list >/dev/null || fail "socket activation after stop"
}

check_upgrade() {
  [ -f "$SHARE/accessoryd-upgrade.deb" ] || { echo "  (no upgrade package given: skipped)"; return 0; }
  local before after starts
  echo "# edited by the administrator" >>/etc/accessoryd/accessoryd.yaml
  as_user accessoryctl list >/dev/null || fail "the daemon is not serving before the upgrade"
  before="$(main_pid)"
  local kept_before=""
  [ -f "$KEPT/closes" ] && kept_before="$(closes)"
  local starts_before
  starts_before="$(journalctl -q -u accessoryd.service | grep -c 'Started accessoryd.service')"
  apt-get install -y -q "$SHARE/accessoryd-upgrade.deb" >/tmp/upgrade.log 2>&1 || { tail -20 /tmp/upgrade.log; fail "the upgrade failed"; }
  after="$(main_pid)"
  [ "$after" != 0 ] && [ "$after" != "$before" ] || fail "the daemon was not restarted by the upgrade ($before -> $after)"
  starts=$(($(journalctl -q -u accessoryd.service | grep -c 'Started accessoryd.service') - starts_before))
  [ "$starts" = 1 ] || fail "the upgrade started the daemon $starts times"
  tail -1 /etc/accessoryd/accessoryd.yaml | grep -q "edited by the administrator" || fail "the upgrade replaced the edited configuration"
  as_user accessoryctl transact modem AT >/dev/null || fail "the upgraded daemon does not serve"
  if [ -f "$KEPT/closes" ]; then
    wait_for 15 "kept is served after the upgrade" transact_kept upgrade
    [ "$(closes)" = "$kept_before" ] || fail "the upgrade closed the kept pty $(($(closes) - kept_before)) times"
    echo "  the kept accessory's pty was not closed by the upgrade"
  fi
}

check_remove() {
  apt-get remove -y -q accessoryd >/tmp/remove.log 2>&1 || { tail -20 /tmp/remove.log; fail "apt-get remove failed"; }
  [ "$(systemctl is-active accessoryd.service)" != active ] || fail "the daemon runs after remove"
  [ "$(systemctl is-active accessoryd.socket)" != active ] || fail "the socket listens after remove"
  [ ! -e "$SOCKET" ] || fail "$SOCKET is still there"
  [ -f /etc/accessoryd/accessoryd.yaml ] || fail "remove deleted the configuration (only purge may)"
  [ -n "$(daemon_sims)" ] && fail "a simulator survived the removal"
  [ -f "$KEPT/sim.pid" ] && kill "$(cat "$KEPT/sim.pid")" "$(cat "$KEPT/slow.pid")"
  apt-get purge -y -q accessoryd >/tmp/purge.log 2>&1 || { tail -20 /tmp/purge.log; fail "apt-get purge failed"; }
  [ ! -e /etc/accessoryd ] || fail "purge left /etc/accessoryd: $(ls -A /etc/accessoryd)"
  [ -z "$(find /etc/systemd/system -name 'accessoryd*')" ] || fail "purge left enablement links: $(find /etc/systemd/system -name 'accessoryd*')"
}

check install "apt install ./accessoryd.deb enables and starts the socket, not the daemon"
check activation "a user in dialout starts the daemon by socket activation; STATUS=; simulators in the sandbox"
check features "transact, write/read, lock, monitor, attach, line control (the pty stand-in), metrics under the unit"
check views "pty views with group:/perm: published in the runtime directory, opened by a user"
check trace "a trace: file in the unit's LogsDirectory"
check owner "owner: is refused by --check-config where CAP_CHOWN is missing"
check metrics_timer "the metrics timer writes its textfile as its own user, with nothing hidden from that user"
check reload "systemctl reload: SIGHUP, same process, logged"
check watchdog "a stalled device loop: killed with SIGABRT by the watchdog, restarted, serving"
check journal_priorities "warnings under -p warning, info not, no debug lines at the default level"
check restart "10 restarts close no device (the file descriptor store); without the store each closes it"
check restart_gap "the gap a client sees during a restart, measured over 20 restarts"
check restart_in_flight "a transact in flight when the daemon restarts ends with daemon_restarted, not silence"
check restart_views "gpsd on a view keeps its pty and fixes, a Python subscriber its data, across a restart"
check stop "systemctl stop leaves no simulator; the socket starts it again"
check upgrade "a newer package restarts the daemon once and keeps the edited configuration"
check remove "apt remove stops and disables; apt purge removes the configuration"

echo "systemd-test: $passed passed, $failures failed"
exit "$failures"
