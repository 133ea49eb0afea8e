#!/usr/bin/env python3
"""BEFORE: a typical pyserial script. It opens the port itself, so nothing else may use the
modem while it runs, and a replug means restarting it.

    python3 pyserial_before.py /dev/ttyUSB0
"""

import sys

import serial  # pyserial


def ask(ser, command):
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


def main(port):
    with serial.Serial(port, 115200, timeout=2) as ser:
        for command in ("AT", "ATI"):
            print(command, "->", " | ".join(ask(ser, command)))


if __name__ == "__main__":
    main(sys.argv[1])
