"""The asyncio client against the real daemon: every method, and task cancellation."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Dict, List

import pytest

import accessoryd
from accessoryd import Frame, aio
from harness import Daemon


def run(body: Callable[[], Awaitable[None]], seconds: float = 30) -> None:
    """Runs `body` in a new event loop, failing after `seconds` instead of hanging."""
    asyncio.run(asyncio.wait_for(body(), seconds))


def test_every_method(daemon: Daemon) -> None:
    async def main() -> None:
        async with await daemon.aio_client() as client:
            names = {d.name for d in await client.devices()}
            assert {"echo", "modem", "gps"} <= names
            assert (await client.status("echo")).state == "ready"
            assert (await client.daemon_status()).pid == daemon.pid
            assert await client.transact("echo", "hi") == [Frame(b"hi")]
            assert [f.text for f in await client.transact("modem", "AT")][-1] == "OK"
            frames = await client.read("gps", timeout=5)
            assert frames[0].text is not None and frames[0].text.startswith("$GP")
            async with await client.subscribe("echo", ["data"]) as events:
                assert await client.write("echo", "event") == len("event")
                event = await events.get(timeout=5)
                assert isinstance(event, accessoryd.DataEvent) and event.data == b"event"
            async with client.lock("echo", lease=5) as lease:
                assert lease.device == "echo"
                assert (await client.status("echo")).locked
            assert not (await client.status("echo")).locked
            lease = await client.lock("echo")
            await lease.release()
            with pytest.raises(accessoryd.UnknownDevice):
                await client.status("nonesuch")
            with pytest.raises(accessoryd.TimedOut):
                await client.transact("slow", "late", timeout=0.1)
            async with await client.attach("echo") as raw:
                assert isinstance(raw.fileno(), int)
                raw.write(b"raw\n")
                await raw.drain()
                assert await raw.readline() == b"raw\n"
            assert await client.transact("echo", "again") == [Frame(b"again")]

    run(main)


def test_cancelling_a_task_sends_cancel(daemon: Daemon) -> None:
    sent: List[Dict[str, Any]] = []
    tracer = daemon.recorder.tracer()

    def trace(direction: str, message: Dict[str, Any]) -> None:
        tracer(direction, message)
        if direction == "send":
            sent.append(message)

    async def main() -> None:
        async with aio.Client(daemon.socket, trace=trace) as client:
            counters = (await client.status("slow")).counters
            before, frames_sent = counters["requests_cancelled"], counters["frames_out"]
            task = asyncio.ensure_future(client.transact("slow", "cancel me"))
            # Until the accessory has the request (the simulator answers after 1.5 s).
            for _ in range(500):
                if (await client.status("slow")).counters["frames_out"] > frames_sent:
                    break
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            transact_id = next(m["id"] for m in sent if m["method"] == "transact")
            cancels = [m for m in sent if m["method"] == "cancel"]
            assert [m["params"] for m in cancels] == [{"id": transact_id}]
            # The daemon counts it (the cancel is answered after the request's own response).
            for _ in range(500):
                status = await client.status("slow")
                if status.counters["requests_cancelled"] == before + 1:
                    break
                await asyncio.sleep(0.01)
            assert status.counters["requests_cancelled"] == before + 1
            assert await client.transact("echo", "still here") == [Frame(b"still here")]

    run(main)


def test_closed_client_and_connect_errors(daemon: Daemon) -> None:
    async def main() -> None:
        client = await daemon.aio_client()
        pending = asyncio.ensure_future(client.transact("slow", "in flight"))
        await asyncio.sleep(0)
        await client.close()
        with pytest.raises(accessoryd.ConnectionLost):
            await pending
        with pytest.raises(accessoryd.ConnectionLost):
            await client.devices()
        with pytest.raises(accessoryd.DaemonNotRunning):
            await aio.connect("/tmp/no-such-dir/accessoryd.sock")

    run(main)
