#!/usr/bin/env python3
"""Read NMEA sentences from a GPS while a modem is used, on one connection.

gpsd and ModemManager each want a port to themselves; through accessoryd both accessories
serve this script and anyone else at once. The GPS sentences arrive as `device.data`
events; the modem's commands are transactions on a second thread (the client is thread-safe).

    python3 gps_while_modem.py [--socket PATH] [--gps gps] [--modem modem] [--sentences 10]
"""

from __future__ import annotations

import argparse
import threading
from typing import List, Optional

import accessoryd


def use_modem(client: accessoryd.Client, modem: str, commands: List[str], done: threading.Event) -> None:
    for command in commands:
        reply = client.transact(modem, command, timeout=2)
        print(f"modem  {command} -> {' | '.join(frame.text or frame.data.hex() for frame in reply)}", flush=True)
    done.set()


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", help="the daemon's socket (default: as accessoryctl finds it)")
    parser.add_argument("--gps", default="gps")
    parser.add_argument("--modem", default="modem")
    parser.add_argument("--sentences", type=int, default=10, help="stop after this many NMEA sentences")
    args = parser.parse_args(argv)

    with accessoryd.Client(args.socket) as client:
        with client.subscribe(args.gps, events=["data", "state"]) as gps:
            modem_done = threading.Event()
            worker = threading.Thread(
                target=use_modem, args=(client, args.modem, ["AT", "ATI", "AT+CSQ"], modem_done)
            )
            worker.start()
            sentences = 0
            while sentences < args.sentences or not modem_done.is_set():
                event = gps.get(timeout=10)
                if event is None:
                    print("no NMEA sentence for 10 s", flush=True)
                    return 1
                if isinstance(event, accessoryd.StateEvent):
                    print(f"gps    is {event.state} {event.reason}", flush=True)
                elif isinstance(event, accessoryd.DataEvent) and sentences < args.sentences:
                    sentences += 1
                    print(f"gps    {event.frame.text}", flush=True)
            worker.join()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
