"""Multi-link fluid network (thesis Fig. 5.7): the compiled stepping loop against its Python reference.

Both engines run the same batch of (alpha, beta) on Fig. 5.7's network with L2's delay shortened
(so the Python loop finishes quickly), in one process and one run, and the ratio of wall times is
printed with the largest difference between their traces.

    python benchmarks/bench_network.py [--t-end 60] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from rcpstab.network import fig57, simulate_network

GAINS = ([0.1, 0.5, 1.0, 1.4], [1.0, 0.1, 0.5, 0.8])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-end", type=float, default=60.0, help="simulated time, s")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    net = fig57(l2_delay=0.05)
    simulate_network(net, 0.1, 1.0, 0.01)  # compile (or load) the kernel outside the timing
    runs, seconds = {}, {}
    for engine in ("python", "c"):
        start = time.perf_counter()
        runs[engine] = simulate_network(net, *GAINS, args.t_end, engine=engine)
        seconds[engine] = time.perf_counter() - start
    worst = max(
        float(np.max(np.abs(getattr(runs["python"], f) - getattr(runs["c"], f))) / np.max(np.abs(getattr(runs["python"], f))))
        for f in ("rate", "avg_rtt", "rtt_sample", "queue")
    )
    steps = int(round(args.t_end / 1e-3))
    out = {
        "simulated_s": args.t_end,
        "batch": len(GAINS[0]),
        "python_s": seconds["python"],
        "c_s": seconds["c"],
        "speedup": seconds["python"] / seconds["c"],
        "python_us_per_step": 1e6 * seconds["python"] / steps,
        "c_us_per_step": 1e6 * seconds["c"] / steps,
        "max_relative_difference": worst,
    }
    print(json.dumps(out) if args.json else "\n".join(f"{k}: {v:.4g}" for k, v in out.items()))


if __name__ == "__main__":
    main()
