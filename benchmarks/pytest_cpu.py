"""CPU seconds per test and per pytest-xdist worker: a pytest plugin, and its summary.

On a shared machine wall time says little; CPU time (the process's own and its finished children's) per
test does, and where the workers' loads and their last tests fall shows the schedule's tail.

Record (from ``tests/``, one JSON-lines file per worker in the folder given)::

    PYTHONPATH=..:../benchmarks TEST_CPU_OUT=/tmp/cpu python -m pytest -m "not slow" -n 2 -p pytest_cpu

Summarise (per worker, the costliest files and tests; ``--compare OTHER`` for before/after per file)::

    python benchmarks/pytest_cpu.py /tmp/cpu [--top 30] [--compare /tmp/cpu_before]
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import resource
import time
from typing import Any

_handle: Any = None


def _cpu() -> tuple[float, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _write(record: dict) -> None:
    global _handle
    if _handle is None:
        folder = os.environ.get("TEST_CPU_OUT", "test_cpu")
        os.makedirs(folder, exist_ok=True)
        _handle = open(os.path.join(folder, os.environ.get("PYTEST_XDIST_WORKER", "main") + ".jsonl"), "a")  # noqa: SIM115
    _handle.write(json.dumps(record) + "\n")
    _handle.flush()


def pytest_sessionstart(session: Any) -> None:
    own, children = _cpu()
    _write({"event": "start", "self": own, "children": children, "wall": time.time()})


def pytest_runtest_protocol(item: Any, nextitem: Any) -> Any:
    # set up, call and tear down: a module fixture is charged to the first test that uses it
    own0, children0 = _cpu()
    start = time.time()
    yield
    own1, children1 = _cpu()
    _write(
        {
            "event": "test",
            "id": item.nodeid,
            "self": own1 - own0,
            "children": children1 - children0,
            "w0": start,
            "w1": time.time(),
        }
    )


pytest_runtest_protocol.hookwrapper = True  # type: ignore[attr-defined]


def pytest_sessionfinish(session: Any) -> None:
    own, children = _cpu()
    _write({"event": "end", "self": own, "children": children, "wall": time.time()})


def _load(folder: str) -> tuple[dict, dict]:
    tests, workers = {}, {}
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        records = [json.loads(line) for line in open(path)]
        ran = [r for r in records if r["event"] == "test"]
        end = [r for r in records if r["event"] == "end"]
        for r in ran:
            tests[r["id"]] = r["self"] + r["children"]
        if ran:
            total = end[-1]["self"] + end[-1]["children"] if end else float("nan")
            workers[os.path.basename(path)[:-6]] = (len(ran), sum(tests[r["id"]] for r in ran), total, max(r["w1"] for r in ran))
    return tests, workers


def _per_file(tests: dict) -> collections.Counter:
    files: collections.Counter = collections.Counter()
    for name, cpu in tests.items():
        files[name.split("::")[0]] += cpu
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--compare", help="a folder recorded before: per-file CPU before -> after")
    args = parser.parse_args()
    tests, workers = _load(args.folder)
    last = max(w[3] for w in workers.values())
    print("worker  tests  tests' CPU (s)  process CPU (s)  last test ends (s before the last worker's)")
    for name, (count, cpu, total, end) in sorted(workers.items()):
        print(f"{name:6s} {count:6d} {cpu:14.1f} {total:16.1f} {last - end:10.1f}")
    print(f"all tests: {sum(tests.values()):.1f} s CPU over {len(tests)} tests")
    files = _per_file(tests)
    before = _per_file(_load(args.compare)[0]) if args.compare else None
    print("\nfiles:")
    for name, cpu in files.most_common(args.top):
        print(f"{before[name]:7.1f} -> {cpu:7.1f}  {name}" if before is not None else f"{cpu:7.1f}  {name}")
    print("\ntests:")
    for name, cpu in sorted(tests.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"{cpu:7.2f}  {name}")


if __name__ == "__main__":
    main()
