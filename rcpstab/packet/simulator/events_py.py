"""The event machinery both Python twins share (:mod:`.sim_py`, :mod:`.flows_py`): twin of ``csrc/events.h``.

An event heap ordered by (time, scheduling order) and the loop that pops it, as a base class:
a simulator subclasses :class:`EventLoop` and defines ``_dispatch(etype, arg, gen)``. Time is
integer nanoseconds and ties break by scheduling order, so the events come out in the C heap's
order. The host timer constants are the host's (:mod:`..hosts.rtcp_host_py`, as ``csrc/rtcp_host.h``).
"""

from __future__ import annotations

import heapq
from typing import Any

__all__ = ["EventLoop", "NS_PER_MS", "NS_PER_S"]

NS_PER_MS = 1_000_000
NS_PER_S = 1_000_000_000


class EventLoop:
    """Events ``(t, order, type, arg, gen)`` in a heap; ``gen`` is a flow slot's generation (0 if unused)."""

    def __init__(self) -> None:
        self.now = 0
        self.next_seq = 0
        self.heap: list[tuple[int, int, int, object, int]] = []
        self.events = 0

    def _schedule(self, t: int, etype: int, arg: Any, gen: int = 0) -> None:
        heapq.heappush(self.heap, (t, self.next_seq, etype, arg, gen))
        self.next_seq += 1

    def _dispatch(self, etype: int, arg: Any, gen: int) -> None:
        raise NotImplementedError

    def run_until(self, t_ns: int) -> None:
        """Process every event strictly before ``t_ns`` (ns), then set the clock to ``t_ns``."""
        heap, dispatch = self.heap, self._dispatch
        while heap and heap[0][0] < t_ns:
            t, _, etype, arg, gen = heapq.heappop(heap)
            self.now = t
            self.events += 1
            dispatch(etype, arg, gen)
        self.now = max(self.now, t_ns)

    def _pending(self, etype: int) -> int:
        """Scheduled events of one type (packets in flight on a wire, for one)."""
        return sum(1 for e in self.heap if e[2] == etype)
