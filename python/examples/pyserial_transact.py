#!/usr/bin/env python3
"""AFTER, the idiomatic change: let the daemon do the framing and the waiting. A transaction
sends one line and returns the reply lines up to the modem's final result code (the
accessory's `response.until` pattern), and other programs may use the modem between two
transactions.

    python3 pyserial_transact.py modem [--socket PATH]
"""

import sys

import accessoryd


def main(device, socket=None):
    with accessoryd.Client(socket) as client:
        for command in ("AT", "ATI"):
            reply = client.transact(device, command, timeout=2)  # TimedOut if no final result
            print(command, "->", " | ".join(frame.text for frame in reply))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--socket" else None)
