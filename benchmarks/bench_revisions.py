"""The same workloads timed on two revisions of rcpstab, interleaved, in one run.

Each revision is checked out into a temporary git worktree and its C extensions are built in place;
every timing runs in a fresh process with that worktree first on ``sys.path``, times only the
computation (after one untimed warm-up call that fills the compile cache), and goes through the
public API so that a layout change between the revisions does not matter. Repeats alternate
A, B, A, B, ... so that load on the machine hits both sides alike; the medians and their ratio
B/A are printed (below 1: B is faster).

Workloads: the exact region on a 500x500 grid (README's first command, computation only); App. E's
20x20 phase-plane sweep (``region(method="phaseplane")``); one packet run of the fig5.3 scenario
(20 simulated seconds).

Usage: python benchmarks/bench_revisions.py [--before REV] [--after REV] [--repeat N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

WORKLOADS = {
    "exact_500x500": """
import rcpstab
f = lambda: rcpstab.region("rcp", alpha="0.004:2:0.004", beta="0.002:1:0.002", method="exact")
""",
    "phaseplane_appE_20x20": """
import rcpstab
f = lambda: rcpstab.region("rcp", method="phaseplane")
""",
    "packet_fig5.3_20s": """
try:
    from rcpstab.packet import run_scenario
except ImportError:
    from rcpstab.reference_impl import run_scenario
f = lambda: run_scenario("fig5.3", 0.4, 0.6, t_end=20.0)
""",
}

TIMER = """
import time
f()
t0 = time.perf_counter(); f(); print(time.perf_counter() - t0)
"""


def checkout(rev: str, root: str, into: str) -> str:
    subprocess.run(["git", "-C", root, "worktree", "add", "--detach", into, rev], check=True, capture_output=True)
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=into, check=True, capture_output=True)
    return into


def time_once(tree: str, workload: str) -> float:
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run(
        [sys.executable, "-c", WORKLOADS[workload] + TIMER], env=env, cwd=tree, capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--before", default="HEAD~1", help="revision A (default HEAD~1)")
    parser.add_argument("--after", default="HEAD", help="revision B (default HEAD)")
    parser.add_argument("--repeat", type=int, default=3, help="timings per revision and workload (default 3)")
    parser.add_argument("--only", nargs="*", choices=sorted(WORKLOADS), help="workloads to run (default all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True).stdout.strip()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        try:
            for label, rev in (("A", args.before), ("B", args.after)):
                trees[label] = checkout(rev, root, os.path.join(tmp, label))
            for workload in args.only or WORKLOADS:
                times = {"A": [], "B": []}
                for _ in range(args.repeat):
                    for label in ("A", "B"):
                        times[label].append(time_once(trees[label], workload))
                a, b = statistics.median(times["A"]), statistics.median(times["B"])
                results[workload] = {
                    "before_s": a,
                    "after_s": b,
                    "ratio_after_over_before": b / a,
                    "before_all_s": times["A"],
                    "after_all_s": times["B"],
                }
                if not args.json:
                    print(
                        f"{workload:24s} before {a:8.3f} s  after {b:8.3f} s  after/before {b / a:5.2f}"
                        f"  (medians of {args.repeat}, interleaved)"
                    )
        finally:
            for tree in trees.values():
                subprocess.run(["git", "-C", root, "worktree", "remove", "--force", tree], capture_output=True)
    if args.json:
        print(json.dumps({"before": args.before, "after": args.after, "workloads": results}))


if __name__ == "__main__":
    main()
