"""Each map method's cost per grid point: the figures behind the refusal estimates of ``rcpstab map``.

Times every method of ``rcpstab map`` on a grid of its own size (large enough that the per-point
cost dominates the fixed one, small enough to run in seconds), in one warm process, single core
(one worker), and reports seconds and peak resident bytes per point. The table
``seconds_per_point`` / ``bytes_per_point`` of each method in :data:`rcpstab.api.methods.METHODS` hold these figures
(rounded up) with the date and load they were measured under.

Usage: python benchmarks/bench_cost_per_point.py [--repeat 3] [--only exact,phaseplane] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time

import numpy as np

GRIDS = {  # method -> (alphas, betas): points spread over the thesis' plane
    "exact": (np.linspace(0.001, 2.0, 2000), np.linspace(0.0005, 1.0, 2000)),
    "bode": (np.linspace(0.01, 2.0, 200), np.linspace(0.005, 1.0, 200)),
    "nyquist": (np.linspace(0.1, 2.0, 5), np.linspace(0.1, 1.0, 4)),
    "margins": (np.linspace(0.1, 2.0, 10), np.linspace(0.05, 1.0, 10)),
    "phaseplane": (np.linspace(0.1, 2.0, 20), np.linspace(0.1, 2.0, 20)),
    "packet": (np.array([0.4, 1.2]), np.array([0.2])),
}


def run_method(method, alphas, betas):
    """The method's engine on the grid, as ``rcpstab.region`` calls it (the API's own checks left out)."""
    from rcpstab.api.methods import METHODS
    from rcpstab.models import get_model

    return METHODS[method].function()(get_model("rcp"), alphas, betas)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default=",".join(GRIDS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from rcpstab.linear.dcurves import clear_cache

    out = {"load_1min": os.getloadavg()[0]}
    for method in args.only.split(","):
        alphas, betas = GRIDS[method]
        run_method(method, alphas[:2], betas[:2])  # imports, compiled kernels, cached derivations
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        times = []
        for _ in range(args.repeat):
            clear_cache()
            start = time.process_time()
            run_method(method, alphas, betas)
            times.append(time.process_time() - start)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - rss0
        points = alphas.size * betas.size
        out[method] = {
            "points": points,
            "cpu_s_median": round(float(np.median(times)), 4),
            "seconds_per_point": float(f"{np.median(times) / points:.3g}"),
            "extra_peak_bytes_per_point": float(f"{max(rss, 0) / points:.3g}"),
        }
    print(json.dumps(out, indent=None if args.json else 1))


if __name__ == "__main__":
    main()
