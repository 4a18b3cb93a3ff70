"""When would each pytest-xdist worker finish? A replay of ``--dist loadfile`` on recorded per-test CPU.

pytest-xdist hands out whole test files. By default it orders them by number of tests (most first);
``tests/conftest.py`` hands out its ``DISPATCHED_FIRST`` files (the costliest) first instead. This replays
both orders on the per-test CPU that ``benchmarks/pytest_cpu.py`` recorded, with xdist's rule for handing
out the next file (a worker with at most two tests left gets one), and prints when each worker ends and the
files over ``--above`` seconds missing from ``DISPATCHED_FIRST``. A file's tests run in the order recorded; files are
collected alphabetically, as pytest collects ``tests/``. Record the quick and the slow tier separately if
you like and give both folders: their tests are merged.

    python benchmarks/xdist_schedule.py /tmp/cpu_quick /tmp/cpu_slow [--workers 2] [--start-up 14]
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

from pytest_cpu import _load

TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests")


def replay(units: dict[str, list[float]], order: list[str], workers: int, start_up: float) -> list[float]:
    """Each worker's end (s of CPU from its start) when ``units`` (file -> its tests' CPU) go out in ``order``."""
    queue = collections.deque(order)
    pending: list[collections.deque[float]] = [collections.deque() for _ in range(workers)]
    clock = [start_up] * workers

    def hand_out(worker: int) -> None:
        pending[worker].extend(units[queue.popleft()])

    for worker in range(workers):  # xdist: one file each, then a second to any worker with two tests or fewer
        if queue:
            hand_out(worker)
    for worker in range(workers):
        if queue and len(pending[worker]) <= 2:
            hand_out(worker)
    while any(pending):
        worker = min((w for w in range(workers) if pending[w]), key=lambda w: clock[w])
        clock[worker] += pending[worker].popleft()
        if queue and len(pending[worker]) <= 2:
            hand_out(worker)
    return clock


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--start-up", type=float, default=14.0, help="each worker's start-up and collection, s")
    parser.add_argument("--above", type=float, default=6.0, help="list files over this CPU (s) missing from DISPATCHED_FIRST")
    args = parser.parse_args()
    tests: dict[str, float] = {}
    for folder in args.folders:
        tests.update(_load(folder)[0])
    units: dict[str, list[float]] = collections.defaultdict(list)
    for name, cpu in tests.items():
        units[os.path.basename(name.split("::")[0])].append(cpu)
    sys.path.insert(0, TESTS)
    from conftest import DISPATCHED_FIRST, schedule_order

    files = sorted(units)
    orders = {
        "xdist's default (most tests first)": sorted(files, key=lambda f: -len(units[f])),
        "conftest (DISPATCHED_FIRST first)": schedule_order([f for f in files for _ in units[f]]),
    }
    total = sum(tests.values())
    print(f"{len(tests)} tests, {total:.1f} s CPU; even split {total / args.workers + args.start_up:.1f} s per worker")
    for label, order in orders.items():
        ends = replay(units, order, args.workers, args.start_up)
        print(f"{label:36s} workers end at {', '.join(f'{e:.1f}' for e in ends)} s; gap {max(ends) - min(ends):.1f} s")
    cost = {f: sum(units[f]) for f in files}
    missing = [f for f in sorted(files, key=lambda f: -cost[f]) if f not in DISPATCHED_FIRST and cost[f] > args.above]
    print(
        f"over {args.above:g} s of CPU but not in DISPATCHED_FIRST:",
        ", ".join(f"{f} ({cost[f]:.1f} s)" for f in missing) or "none",
    )


if __name__ == "__main__":
    main()
