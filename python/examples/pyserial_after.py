#!/usr/bin/env python3
"""AFTER, the smallest change: the same code on a raw stream from accessoryd. `attach` holds
the modem for as long as the stream is open (other clients wait their turn), and the daemon,
not the script, owns the port: its settings, its reopening after a replug.

    python3 pyserial_after.py modem [--socket PATH]
"""

import sys

import accessoryd  # was: import serial


def ask(ser, command):  # unchanged
    ser.write(command.encode() + b"\r\n")
    lines = []
    while True:
        line = ser.readline()
        if not line:  # the read timed out
            raise TimeoutError(f"no final result for {command}")
        text = line.decode(errors="replace").strip()
        if text:
            lines.append(text)
        if text in ("OK", "ERROR"):
            return lines


def main(device, socket=None):
    # was: with serial.Serial(port, 115200, timeout=2) as ser:
    with accessoryd.Client(socket) as client, client.attach(device, timeout=2) as ser:
        for command in ("AT", "ATI"):
            print(command, "->", " | ".join(ask(ser, command)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--socket" else None)
