"""Many threads (and tasks) on one connection: every reply reaches its own caller."""

from __future__ import annotations

import asyncio
import threading
import uuid
from typing import List

from accessoryd import Frame
from harness import Daemon, bounded

THREADS = 8
PER_THREAD = 60


def test_eight_threads_share_one_connection_without_crossed_replies(daemon: Daemon) -> None:
    crossed: List[str] = []
    done = [0] * THREADS
    start = threading.Barrier(THREADS)
    with daemon.client() as client:

        def worker(index: int) -> None:
            start.wait()
            for n in range(PER_THREAD):
                # A payload unique to this request: a reply meant for another caller shows.
                payload = f"t{index}-{n}-{uuid.uuid4().hex}"
                device = "echo" if n % 3 else "slip"
                reply = client.transact(device, payload)
                if reply != [Frame(payload.encode())]:
                    crossed.append(f"{payload} got {reply}")
                done[index] += 1

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
        for thread in threads:
            thread.start()
        bounded(60, lambda: [thread.join() for thread in threads])
        assert not crossed
        assert done == [PER_THREAD] * THREADS
        # They really overlapped: the daemon saw several requests of this client in flight.
        assert client.daemon_status().raw["requests_decoded"] >= THREADS * PER_THREAD


def test_requests_from_eight_threads_are_in_the_daemon_at_once(daemon: Daemon) -> None:
    """Pipelining, seen from the daemon: while eight threads wait on one connection, the
    accessory's queue holds all eight requests (a client that sent one request at a time would
    never have more than one there)."""
    replies: List[str] = []
    with daemon.client() as client, daemon.client() as observer:

        def ask(index: int) -> None:
            reply = client.transact("lag", f"lag {index}")
            replies.append(f"{index}: {reply[0].text}")

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(THREADS)]
        for thread in threads:
            thread.start()
        deepest = 0
        for _ in range(200):
            deepest = max(deepest, observer.status("lag").queue_depth)
            if deepest >= THREADS:
                break
        bounded(30, lambda: [thread.join() for thread in threads])
    assert deepest >= THREADS
    assert sorted(replies) == sorted(f"{i}: lag {i}" for i in range(THREADS))


def test_submitted_calls_are_answered_by_id_in_any_order(daemon: Daemon) -> None:
    with daemon.client() as client:
        slow = client.submit("transact", {"device": "slow", "data": "first sent"})
        fast = [client.submit("transact", {"device": "echo", "data": f"fast {i}"}) for i in range(20)]
        # The echo answers finish while the slow one is still in flight.
        for i, call in enumerate(fast):
            assert call.result(5)["frames"][0]["data"] == f"fast {i}"
        assert not slow.done()
        assert slow.result(5)["frames"][0]["data"] == "first sent"


def test_eight_tasks_share_one_asyncio_connection(daemon: Daemon) -> None:
    async def main() -> None:
        client = await daemon.aio_client()
        try:

            async def worker(index: int) -> List[str]:
                wrong = []
                for n in range(PER_THREAD):
                    payload = f"task{index}-{n}-{uuid.uuid4().hex}"
                    reply = await client.transact("echo", payload)
                    if reply != [Frame(payload.encode())]:
                        wrong.append(f"{payload} got {reply}")
                return wrong

            results = await asyncio.wait_for(asyncio.gather(*(worker(i) for i in range(THREADS))), 60)
            assert [r for r in results if r] == []
            # And all at once in the daemon: eight tasks' requests fill the accessory's queue.
            lagging = asyncio.gather(*(client.transact("lag", f"task {i}") for i in range(THREADS)))
            deepest = 0
            for _ in range(200):
                deepest = max(deepest, (await client.status("lag")).queue_depth)
                if deepest >= THREADS:
                    break
            replies = await asyncio.wait_for(lagging, 30)
            assert deepest >= THREADS
            assert [reply[0].text for reply in replies] == [f"task {i}" for i in range(THREADS)]
        finally:
            await client.close()

    asyncio.run(main())
