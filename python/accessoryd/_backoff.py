"""The waits between attempts to reach a daemon that went away: bounded, doubling, jittered."""

from __future__ import annotations

import random
import time
from typing import Optional

#: The first wait and the longest, in seconds. Each wait is drawn between half and all of the
#: current step (jitter: clients of one daemon do not all knock at the same instant), and the
#: step doubles up to the longest.
FIRST_STEP = 0.05
LONGEST_STEP = 1.0


class Backoff:
    """One round of attempts, given up ``total`` seconds after it began. A value owned by the
    one thread that reconnects."""

    def __init__(self, total: float) -> None:
        self._deadline = time.monotonic() + total
        self._step = FIRST_STEP

    def next_wait(self) -> Optional[float]:
        """Seconds to wait before the next attempt, or ``None`` when the round is over."""
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            return None
        wait = random.uniform(self._step / 2, self._step)
        self._step = min(self._step * 2, LONGEST_STEP)
        return min(wait, remaining)
