"""Run by the labgrid test with the venv's python: through labgrid's own API (a `RemotePlace`
and its `SerialDriver`), opens the acquired place's serial port, sends `AT` and waits for the
modem's `OK`; prints what happened, holds the session until a line arrives on stdin, then
closes it."""

import sys

from labgrid import Target
from labgrid.driver import SerialDriver
from labgrid.resource import RemotePlace


def main() -> None:
    target = Target("accessory")
    RemotePlace(target, name=sys.argv[1])
    serial = SerialDriver(target, name=None, timeout=10.0)
    target.activate(serial)
    print("OPEN", flush=True)
    serial.write(b"AT\r")
    index, _, match, _ = serial.expect([b"OK", b"ERROR"], timeout=10)
    print("ANSWER", match.group(0).decode() if match else index, flush=True)
    sys.stdin.readline()
    target.deactivate(serial)
    print("CLOSED", flush=True)


if __name__ == "__main__":
    main()
