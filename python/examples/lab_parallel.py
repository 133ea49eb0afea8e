#!/usr/bin/env python3
"""Query many instruments in parallel: one asyncio task per instrument, one connection.

Each accessory has its own queue in the daemon, so the queries run at the same time; the
whole round takes about as long as the slowest instrument, not the sum of them.

    python3 lab_parallel.py [--socket PATH] [--query '*IDN?'] [--prefix inst] [NAME ...]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import List, Optional, Tuple

import accessoryd
from accessoryd import aio


async def query(client: aio.Client, name: str, command: str) -> Tuple[str, str, float]:
    started = time.monotonic()
    try:
        reply = await client.transact(name, command, timeout=5)
        text = " | ".join(frame.text or frame.data.hex() for frame in reply)
    except accessoryd.AccessorydError as error:
        text = f"error: {error} ({type(error).__name__})"
    return name, text, (time.monotonic() - started) * 1000


async def run(socket: Optional[str], names: List[str], prefix: str, command: str) -> int:
    async with aio.Client(socket) as client:
        if not names:
            names = [d.name for d in await client.devices() if d.name.startswith(prefix) and d.state == "ready"]
        if not names:
            print(f"no ready accessory whose name starts with {prefix!r}")
            return 1
        started = time.monotonic()
        results = await asyncio.gather(*(query(client, name, command) for name in names))
        elapsed = (time.monotonic() - started) * 1000
    for name, text, ms in results:
        print(f"{name:12} {ms:7.1f} ms  {text}")
    print(f"{len(results)} instruments in {elapsed:.1f} ms")
    return 0 if all(not text.startswith("error:") for _, text, _ in results) else 1


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", help="the daemon's socket (default: as accessoryctl finds it)")
    parser.add_argument("--query", default="*IDN?", help="what to send each instrument")
    parser.add_argument("--prefix", default="inst", help="without names: every ready accessory named so")
    parser.add_argument("names", nargs="*", help="the instruments (accessory names)")
    args = parser.parse_args(argv)
    return asyncio.run(run(args.socket, args.names, args.prefix, args.query))


if __name__ == "__main__":
    raise SystemExit(main())
