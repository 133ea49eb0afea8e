"""The daemon stops (SIGTERM, as `systemctl restart` sends it) and a new one starts on the same
socket path: the blocking client carries on with no code of the program's own."""

from __future__ import annotations

import signal
import threading
from typing import Any, Dict, Iterator

import pytest

import accessoryd
from harness import Daemon, bounded, echo, wait_until
from schema_check import Recorder


@pytest.fixture
def restartable(recorder: Recorder) -> Iterator[Daemon]:
    """`slow` answers 1.5 s after each request (to be caught in flight); `echo` at once."""
    running = Daemon([echo("slow", delay_ms=1500), echo("echo")], recorder)
    yield running
    running.stop()


def in_flight(client: accessoryd.Client, daemon: Daemon) -> accessoryd.Call:
    """A `transact` to `slow` that the accessory has started (its frame went out)."""
    call = client.submit("transact", {"device": "slow", "data": "in flight"})
    with daemon.client() as observer:
        wait_until(lambda: observer.status("slow").counters["frames_out"] > 0, 10, "the request to start")
    return call


def test_subscription_carries_on_and_the_call_in_flight_gets_daemon_restarted(restartable: Daemon) -> None:
    client = restartable.client()
    data = client.subscribe("echo", ["data"])
    call = in_flight(client, restartable)

    restartable.halt()
    with pytest.raises(accessoryd.DaemonRestarted) as restarted:
        bounded(10, call.result)
    assert "not resent" in str(restarted.value)
    assert not client.connected

    # A call made while no daemon runs waits for the next one, then is sent. (The new daemon
    # may serve its socket before its accessories are up: `wait` lets the call wait for that.)
    gap: Dict[str, Any] = {}
    waiting = threading.Thread(target=lambda: gap.update(frames=client.transact("echo", "made in the gap", wait=10)))
    waiting.start()
    restartable.start_again()
    waiting.join(20)
    assert not waiting.is_alive(), "the call made in the gap never finished"
    assert gap.get("frames") == [accessoryd.Frame(b"made in the gap")]

    # The subscription was sent again by the client: the new daemon's events arrive.
    with restartable.client() as other:
        other.write("echo", "after the restart")
    event = data.get(timeout=10)
    assert isinstance(event, accessoryd.DataEvent) and event.data == b"after the restart", event
    # The request in flight was not resent to the new daemon.
    assert client.status("slow").counters["frames_out"] == 0
    client.close()


def test_a_call_in_flight_when_the_daemon_is_killed_gets_daemon_restarted(restartable: Daemon) -> None:
    client = restartable.client()
    call = in_flight(client, restartable)
    restartable.signal(signal.SIGKILL)  # no answer at all: the socket just ends
    with pytest.raises(accessoryd.DaemonRestarted, match="in flight"):
        bounded(10, call.result)
    restartable.halt()
    restartable.start_again()
    assert bounded(20, lambda: client.transact("echo", "again", wait=10)) == [accessoryd.Frame(b"again")]
    assert client.status("slow").counters["frames_out"] == 0, "the call in flight was resent"
    client.close()


def test_a_held_lock_is_reported_lost_not_taken_again(restartable: Daemon) -> None:
    client = restartable.client()
    lease = client.lock("echo")
    restartable.halt()
    restartable.start_again()
    with pytest.raises(accessoryd.LockLost, match="lock on echo was lost"):
        bounded(20, lambda: client.transact("echo", "needs the lock"))
    assert lease.lost
    with restartable.client() as other:
        assert not other.status("echo").locked
    lease.release()  # forgets it: nothing to unlock on the new daemon
    assert bounded(20, lambda: client.transact("echo", "on my own")) == [accessoryd.Frame(b"on my own")]
    client.close()


def test_without_reconnect_the_connection_ends_for_good(restartable: Daemon) -> None:
    client = restartable.client(reconnect=False)
    data = client.subscribe("echo", ["data"])
    call = in_flight(client, restartable)
    restartable.halt()
    with pytest.raises(accessoryd.DaemonRestarted):
        bounded(10, call.result)
    restartable.start_again()
    with pytest.raises(accessoryd.ConnectionLost) as lost:
        bounded(10, client.devices)
    assert type(lost.value) is accessoryd.ConnectionLost
    with pytest.raises(accessoryd.ConnectionLost):
        bounded(10, lambda: data.get(timeout=5))
    client.close()


def test_a_daemon_that_stays_away_is_given_up_on(restartable: Daemon) -> None:
    client = restartable.client(reconnect_timeout=0.5)
    data = client.subscribe("echo", ["data"])
    restartable.halt()
    with pytest.raises(accessoryd.DaemonNotRunning, match="gave up reconnecting to accessoryd after 0.5 s"):
        bounded(10, client.devices)
    with pytest.raises(accessoryd.ConnectionLost, match="gave up reconnecting"):
        bounded(10, lambda: data.get(timeout=5))
    # Once a daemon is back, the next call connects again.
    restartable.start_again()
    assert "echo" in [device.name for device in bounded(10, client.devices)]
    client.close()
