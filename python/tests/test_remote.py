"""`Client(host="ssh://…")`, blocking and asyncio, through a real OpenSSH server started for
these tests on 127.0.0.1 (tests/sshd.py): ssh → sshd → `accessoryctl dial-stdio` → the daemon."""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from typing import Iterator, List

import pytest

import accessoryd
from accessoryd import aio
from accessoryd.remote import SSHDestination, resolve_endpoint
from harness import Daemon, bounded, echo, products
from schema_check import Recorder
from sshd import SSHServer


@pytest.fixture(scope="module")
def sshd() -> Iterator[SSHServer]:
    server = SSHServer()
    yield server
    server.stop()


def remote(daemon: Daemon, sshd: SSHServer, wrong_host_key: bool = False) -> dict:  # type: ignore[type-arg]
    """The keyword arguments that reach `daemon` through `sshd`."""
    return {
        "host": sshd.url,
        "remote_command": f"{products() / 'accessoryctl'} --socket {daemon.socket}",
        "ssh_config": sshd.config(wrong_host_key),
    }


def test_every_kind_of_call_works_through_ssh(daemon: Daemon, sshd: SSHServer) -> None:
    with accessoryd.Client(**remote(daemon, sshd)) as client:
        assert client.path == sshd.url
        assert "echo" in [device.name for device in client.devices()]
        assert client.transact("echo", "over ssh") == [accessoryd.Frame(b"over ssh")]
        with client.subscribe("gps", ["data"]) as events:
            event = events.get(timeout=10)
            assert isinstance(event, accessoryd.DataEvent) and event.data.startswith(b"$GP")
        # Requests from several threads share the one ssh pipe; each answer reaches its caller.
        answers: List[List[accessoryd.Frame]] = []
        threads = [
            threading.Thread(target=lambda i=i: answers.append(client.transact("echo", f"t{i}"))) for i in range(8)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
        assert sorted(frames[0].data for frames in answers) == sorted(f"t{i}".encode() for i in range(8))


def test_attach_through_ssh(daemon: Daemon, sshd: SSHServer) -> None:
    with accessoryd.Client(**remote(daemon, sshd)) as client:
        with client.attach("echo", timeout=10) as stream:
            stream.write(b"raw over ssh\n")
            assert stream.readline() == b"raw over ssh\n"


def test_asyncio_client_through_ssh(daemon: Daemon, sshd: SSHServer) -> None:
    async def main() -> None:
        async with aio.Client(**remote(daemon, sshd)) as client:
            assert await client.transact("echo", "async") == [accessoryd.Frame(b"async")]
            results = await asyncio.gather(*(client.transact("echo", f"a{i}") for i in range(8)))
            assert [frames[0].data for frames in results] == [f"a{i}".encode() for i in range(8)]
            async with await client.attach("echo") as stream:
                stream.write(b"async raw\n")
                await stream.drain()
                assert await asyncio.wait_for(stream.readline(), 10) == b"async raw\n"

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_wrong_host_key_raises_with_sshs_message(daemon: Daemon, sshd: SSHServer) -> None:
    with accessoryd.Client(**remote(daemon, sshd, wrong_host_key=True)) as client:
        with pytest.raises(accessoryd.ConnectionLost) as lost:
            bounded(20, client.devices)
    assert "Host key verification failed" in str(lost.value)
    assert sshd.url in str(lost.value)

    async def main() -> None:
        async with aio.Client(**remote(daemon, sshd, wrong_host_key=True)) as client:
            with pytest.raises(accessoryd.ConnectionLost) as lost:
                await client.devices()
            assert "Host key verification failed" in str(lost.value)

    asyncio.run(asyncio.wait_for(main(), 30))


def test_the_remote_daemon_stopping_mid_call_raises_not_hangs(recorder: Recorder, sshd: SSHServer) -> None:
    stopping = Daemon([echo("slow", delay_ms=60_000)], recorder, ready=["slow"])
    try:
        with accessoryd.Client(**remote(stopping, sshd)) as client:
            assert client.devices()
            failure: List[BaseException] = []

            def call() -> None:
                try:
                    client.transact("slow", "never answered", timeout=90)
                except BaseException as error:  # noqa: BLE001 - the test inspects it
                    failure.append(error)

            caller = threading.Thread(target=call)
            caller.start()
            time.sleep(0.5)  # the request reaches the daemon (a real process and ssh in between)
            started = time.monotonic()
            stopping.signal(signal.SIGKILL)  # gone, without a word (SIGTERM answers "stopping")
            caller.join(15)
            assert not caller.is_alive(), "the call still waits after the daemon stopped"
            assert time.monotonic() - started < 10
            assert failure and isinstance(failure[0], accessoryd.ConnectionLost), failure
            assert f"the connection to accessoryd on {sshd.url} was lost" in str(failure[0])
    finally:
        stopping.stop()


def test_host_urls_are_checked_strictly() -> None:
    assert SSHDestination.parse("ssh://pi@lab-3.local:2222") == SSHDestination("pi", "lab-3.local", 2222)
    assert SSHDestination.parse("ssh://[::1]:22").host == "::1"
    assert str(SSHDestination.parse("ssh://h")) == "ssh://h"
    for bad in [
        "tcp://h",
        "ssh://",
        "ssh://-oProxyCommand=x",
        "ssh://u;rm@h",
        "ssh://h:0",
        "ssh://h:99999",
        "ssh://h/path",
        "ssh://u:pw@h",
        "ssh://h h",
        "ssh://$(id)",
    ]:
        with pytest.raises(ValueError):
            SSHDestination.parse(bad)
    with pytest.raises(ValueError):
        resolve_endpoint(None, "ssh://h", remote_command="accessoryctl; rm -rf /")
    assert SSHDestination.parse("ssh://u@h:2").ssh_arguments(["accessoryctl"], "cfg") == [
        "-F", "cfg", "-l", "u", "-p", "2", "-T", "--", "h", "accessoryctl", "dial-stdio",
    ]  # fmt: skip


def test_the_host_comes_from_the_environment_unless_a_path_is_given() -> None:
    environ = {"ACCESSORYD_HOST": "ssh://lab", "ACCESSORYD_REMOTE_COMMAND": "/opt/bin/accessoryctl"}
    endpoint = resolve_endpoint(None, None, environ=environ)
    assert endpoint is not None and str(endpoint) == "ssh://lab" and endpoint.remote_command == ["/opt/bin/accessoryctl"]
    assert resolve_endpoint("/run/x.sock", None, environ=environ) is None
    assert resolve_endpoint(None, None, environ={}) is None
