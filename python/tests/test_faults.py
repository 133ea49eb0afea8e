"""Faults in the middle of a call: an accessory unplugged, the daemon stopping. Each ends in an
exception, within a bound, never in a hang."""

from __future__ import annotations

import asyncio
import signal
from typing import Iterator

import pytest

import accessoryd
from harness import Daemon, bounded, echo, wait_until
from schema_check import Recorder


@pytest.fixture
def flaky(recorder: Recorder) -> Iterator[Daemon]:
    """An echo that answers once after 300 ms, then hangs up instead of answering (the
    simulator closes its pty: what the daemon sees of an unplug) and reappears 500 ms later."""
    running = Daemon([echo("flaky", delay_ms=300, hangup_after=1, reappear_after_ms=500)], recorder)
    yield running
    running.stop()


def test_unplugged_mid_call_raises_device_removed(flaky: Daemon) -> None:
    with flaky.client() as client, client.subscribe("flaky", ["state"]) as states:
        assert client.transact("flaky", "one") == [accessoryd.Frame(b"one")]
        with pytest.raises(accessoryd.DeviceRemoved) as removed:
            bounded(10, lambda: client.transact("flaky", "two"))
        assert removed.value.code == 1005 and "flaky" in removed.value.message
        # Subscribers hear it go and come back.
        seen = []
        while "ready" not in seen:
            event = states.get(timeout=10)
            assert isinstance(event, accessoryd.StateEvent), f"no state event after {seen}"
            seen.append(event.state)
        assert seen[0] == "absent" and seen[-1] == "ready"


def test_unplugged_mid_call_raises_device_removed_in_asyncio(flaky: Daemon) -> None:
    async def main() -> None:
        async with await flaky.aio_client() as client:
            await client.transact("flaky", "one")
            with pytest.raises(accessoryd.DeviceRemoved):
                await client.transact("flaky", "two")

    asyncio.run(asyncio.wait_for(main(), 20))


@pytest.mark.parametrize("number", [signal.SIGKILL, signal.SIGTERM])
def test_daemon_stopping_mid_call_is_a_connection_error(recorder: Recorder, number: int) -> None:
    running = Daemon([echo("slow", delay_ms=1500)], recorder)
    try:
        # Without reconnecting: the connection ends for good (test_reconnect.py has the default).
        client = running.client(reconnect=False)
        subscription = client.subscribe("slow")
        call = client.submit("transact", {"device": "slow", "data": "in flight"})
        wait_until(lambda: client.status("slow").counters["frames_out"] > 0, 5, "the request to start")
        running.signal(number)
        if number == signal.SIGKILL:
            with pytest.raises(accessoryd.DaemonRestarted):
                bounded(10, lambda: call.result())
        else:
            # A graceful stop answers what it holds (here: "the daemon is stopping"), then
            # closes: an answer or a lost connection, promptly.
            try:
                bounded(10, lambda: call.result())
            except accessoryd.AccessorydError:
                pass
        with pytest.raises(accessoryd.ConnectionLost):
            bounded(10, lambda: [event for event in subscription])
        with pytest.raises(accessoryd.ConnectionLost):
            bounded(10, client.devices)
        assert not client.connected
    finally:
        running.stop()


def test_daemon_killed_mid_call_in_asyncio(recorder: Recorder) -> None:
    running = Daemon([echo("slow", delay_ms=1500)], recorder)

    async def main() -> None:
        client = await running.aio_client()
        call = asyncio.ensure_future(client.transact("slow", "in flight"))
        for _ in range(500):
            if (await client.status("slow")).counters["frames_out"] > 0:
                break
            await asyncio.sleep(0.01)
        running.signal(signal.SIGKILL)
        with pytest.raises(accessoryd.DaemonRestarted):
            await asyncio.wait_for(call, 10)
        with pytest.raises(accessoryd.ConnectionLost):
            await client.devices()

    try:
        asyncio.run(asyncio.wait_for(main(), 20))
    finally:
        running.stop()


def test_raw_stream_ends_with_connection_lost_when_the_device_goes(flaky: Daemon) -> None:
    with flaky.client() as client:
        with client.attach("flaky", timeout=5) as raw:
            raw.write(b"one\n")
            assert raw.readline() == b"one\n"
            # The simulator's second answer is a hang-up: the daemon ends the raw connection.
            raw.write(b"two\n")
            with pytest.raises(accessoryd.ConnectionLost):
                bounded(10, lambda: raw.read(100))
