"""Margins at 2,000 points against tdscontrol's rightmost roots on the same loops (run by hand).

``python benchmarks/bench_margins_batch.py [--points N] [--repeats R]``: RCP's loop at N points
of a regular (alpha, beta) grid over the thesis' plane (alpha 0.02..2, beta 0.01..1; not the random
points the batch's collocation size was calibrated on). In each repeat, interleaved so that the
machine's load weighs on both alike:

- ``rcpstab.margins("rcp", alpha=..., beta=...)``: every margin, the crossovers, the rightmost root
  and the verdict at every point;
- tdscontrol (``pip install tdscontrol``, the Python binding of TDS-CONTROL): ``roots(sys, -1)``, the
  characteristic roots with Re(s d0) >= -1, at every point, from the same normalized matrices
  (A0, A1 at delay 1).

Prints the per-point times (medians of the repeats), their ratio, the ratio within each repeat, and
how many points' rightmost roots agree (to 1e-6), as one JSON line. On a shared machine run it
with ``OPENBLAS_NUM_THREADS=1``: both sides' small eigenproblems slow down by an order of
magnitude when a multi-threaded BLAS competes with other processes for the cores.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import rcpstab
from rcpstab.linear.roots import _normalized_matrices
from rcpstab.models import get_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import tdscontrol as tds

    na = 50
    nb = max(1, args.points // na)
    A, B = np.meshgrid(np.linspace(0.02, 2.0, na), np.linspace(0.01, 1.0, nb))
    a, b = A.ravel(), B.ravel()
    model = get_model("rcp")
    A0f, delayed = _normalized_matrices(model)
    ((theta, A1f),) = delayed.items()
    rcpstab.margins("rcp", a[:4], b[:4])  # warm caches of both sides
    ours_t, theirs_t = [], []
    for _ in range(args.repeats):
        t = time.perf_counter()
        batch = rcpstab.margins("rcp", a, b)
        ours_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        theirs = []
        for x, y in zip(a, b):
            sys = tds.tds([np.asarray(A0f(x, y), float), np.asarray(A1f(x, y), float)], [0.0, theta])
            r = np.asarray(tds.roots(sys, -1.0))
            theirs.append(r[np.argmax(r.real)] if r.size else np.nan)
        theirs_t.append(time.perf_counter() - t)
    ours_root = batch.rightmost_root
    theirs = np.array(theirs)
    found = np.isfinite(theirs)
    agree = np.abs(ours_root.real[found] - theirs.real[found]) < 1e-6
    ours_m, theirs_m = float(np.median(ours_t)), float(np.median(theirs_t))
    out = {
        "points": int(a.size),
        "ours_ms_per_point": 1e3 * ours_m / a.size,
        "tdscontrol_ms_per_point": 1e3 * theirs_m / a.size,
        "ratio_ours_over_tdscontrol": ours_m / theirs_m,
        "ratio_per_repeat": [round(o / t, 3) for o, t in zip(ours_t, theirs_t)],
        "rightmost_roots_compared": int(found.sum()),
        "rightmost_roots_agree": int(agree.sum()),
        "stable_points": int(np.sum(batch.stable)),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
