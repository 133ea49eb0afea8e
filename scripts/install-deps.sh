#!/usr/bin/env bash
# Installs what accessoryd needs to build and test on Debian, only when it is missing.
# Checks with pkg-config / command -v first; calls apt-get only for what is absent.
# `--bench` also installs what `make bench` compares accessoryd with (socat, ser2net);
# `--deb` what `make deb` and scripts/check-deb.sh use (dpkg-dev, lintian, man-db); `--systemd`
# what `make systemd-test` uses (debootstrap, systemd-nspawn); `--curve` what `make cost-curve` plots
# with (python3-matplotlib).
set -euo pipefail

missing=()
command -v swift >/dev/null 2>&1 || { echo "error: the Swift toolchain (swift) is not on PATH; install Swift 6.1 or later" >&2; exit 1; }
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if command -v pkg-config >/dev/null 2>&1; then
  pkg-config --exists libudev 2>/dev/null || missing+=(libudev-dev)
  pkg-config --exists yaml-0.1 2>/dev/null || missing+=(libyaml-dev)
else
  missing+=(libudev-dev libyaml-dev)
fi
# libstdc++'s static archive: `make release` links it into the shipped programs
# (docs/packaging.md, "Footprint"). Swift's own prerequisites on Debian include it.
if command -v gcc >/dev/null 2>&1; then
  [ -f "$(gcc -print-file-name=libstdc++.a)" ] || missing+=("libstdc++-$(gcc -dumpversion | cut -d. -f1)-dev")
else
  missing+=(gcc libstdc++-12-dev)
fi
# What the tests run, found on PATH (Tests: ExternalProgram): setpriv (other users), prlimit
# (the out-of-descriptors test), unshare (`make test`'s netlink tests), python3 (clients as
# other users, a lock holder), strace (what the unprivileged daemon writes).
for program in setpriv prlimit unshare; do
  command -v "$program" >/dev/null 2>&1 || { missing+=(util-linux); break; }
done
# mandoc: `mandoc -T lint` on the man pages (scripts/check-man.sh, run by make test).
command -v mandoc >/dev/null 2>&1 || missing+=(mandoc)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v strace >/dev/null 2>&1 || missing+=(strace)
# The Python client's checks (make test): Debian's interpreter and its packages, so that
# /usr/bin/python3 is what runs them (a python3 earlier on PATH may have none of these).
if [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 -c 'import pytest' 2>/dev/null || missing+=(python3-pytest)
  /usr/bin/python3 -c 'import jsonschema' 2>/dev/null || missing+=(python3-jsonschema)
  /usr/bin/python3 -c 'import mypy' 2>/dev/null || missing+=(mypy)
  /usr/bin/python3 -c 'import serial' 2>/dev/null || missing+=(python3-serial)
  # A JSON-RPC 2.0 client nobody here wrote (batches, notifications), and Prometheus' own
  # parser of the text format (`accessoryctl metrics`).
  /usr/bin/python3 -c 'import tinyrpc' 2>/dev/null || missing+=(python3-tinyrpc)
  /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null || missing+=(python3-prometheus-client)
else
  missing+=(python3 python3-pytest python3-jsonschema mypy python3-serial python3-tinyrpc python3-prometheus-client)
fi
# ssh, ssh-keygen and sshd: the remote-access tests (`--host ssh://…`) run a throwaway sshd on
# 127.0.0.1 with its own configuration. Where systemd runs, Debian's package also enables the
# system's ssh service (policy-rc.d keeps it stopped in containers).
command -v ssh >/dev/null 2>&1 && command -v ssh-keygen >/dev/null 2>&1 || missing+=(openssh-client)
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
# tmux: the interactive attach tests type into a tmux pane and read its screen.
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
# Programs nobody here wrote that the pty views are proven with (Tests: ProgramTests): gpsd and
# gpspipe read an NMEA accessory through a view, picocom opens one as a terminal (pyserial above).
# Each test starts its own gpsd on a private port and control socket; the system's gpsd is never used.
command -v gpsd >/dev/null 2>&1 || [ -x /usr/sbin/gpsd ] || missing+=(gpsd)
command -v gpspipe >/dev/null 2>&1 || missing+=(gpsd-clients)
command -v picocom >/dev/null 2>&1 || missing+=(picocom)
# The RFC 2217 tools tests (python/tools-tests): esptool and labgrid from PyPI in a venv of
# Debian's python3 (scripts/venv-tools.sh), and ser2net, the peer they are also run through.
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)
command -v ser2net >/dev/null 2>&1 || [ -x /usr/sbin/ser2net ] || missing+=(ser2net)
# systemd-analyze (make units) and systemd-socket-activate (the socket-activation test).
command -v systemd-socket-activate >/dev/null 2>&1 || missing+=(systemd)
if [ "${1:-}" = "--bench" ]; then
  command -v socat >/dev/null 2>&1 || missing+=(socat)
  command -v ser2net >/dev/null 2>&1 || [ -x /usr/sbin/ser2net ] || missing+=(ser2net)
fi

# `--curve`: what `make cost-curve` plots with.
if [ "${1:-}" = "--curve" ]; then
  /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || missing+=(python3-matplotlib)
fi

if [ "${1:-}" = "--deb" ]; then
  command -v dpkg-shlibdeps >/dev/null 2>&1 || missing+=(dpkg-dev)
  command -v lintian >/dev/null 2>&1 || missing+=(lintian)
  command -v man >/dev/null 2>&1 || missing+=(man-db)
  command -v unshare >/dev/null 2>&1 || missing+=(util-linux)
fi

# `--systemd`: what `make systemd-test` boots a real systemd with (a Debian root made by
# debootstrap, booted by systemd-nspawn).
if [ "${1:-}" = "--systemd" ]; then
  command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] || missing+=(debootstrap)
  command -v systemd-nspawn >/dev/null 2>&1 || missing+=(systemd-container)
  command -v nsenter >/dev/null 2>&1 || missing+=(util-linux)
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "installing missing packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  export DEBIAN_FRONTEND=noninteractive
  # Installing gpsd or openssh-server (test dependencies) must not start the system's gpsd or
  # sshd: while apt runs, a policy-rc.d that refuses every start is in place unless the machine
  # has one already; afterwards, under systemd, the units the packages enabled are disabled again.
  services=()
  [[ " ${missing[*]} " == *" gpsd "* ]] && services+=(gpsd.socket gpsd.service)
  [[ " ${missing[*]} " == *" openssh-server "* ]] && services+=(ssh.socket ssh.service)
  if [ ${#services[@]} -gt 0 ] && [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod 755 /usr/sbin/policy-rc.d
    trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  if [ ${#services[@]} -gt 0 ] && [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now "${services[@]}" >/dev/null 2>&1 || true
    echo "installed for the tests only, left disabled: ${services[*]}"
  fi
fi
