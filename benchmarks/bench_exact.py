"""Exact engine (D-subdivision) vs rightmost roots point by point with the qpmr root finder.

Both answer "is every characteristic root of lambda^2 + (alpha lambda + beta) e^{-lambda}
in the left half-plane?" on the same (alpha, beta) grid. qpmr (Vyhlidal and Zitek's
QPmR, from PyPI: ``pip install ".[bench]"``) maps the roots in a rectangle of the
complex plane at each point; the exact engine needs one D-subdivision for the whole grid.

Usage: python benchmarks/bench_exact.py [--grid N] [--json]
Prints the wall times, their ratio and how many verdicts match (points whose rightmost
root lies within qpmr's accuracy of the imaginary axis are counted apart).
"""
from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np

from rcpstab.models import get_model
from rcpstab.regions.exact import exact_region
from rcpstab.regions.quasipoly import quasi_polynomial

QPMR_REGION = [-3.0, 1.0, 0.0, 10.0]     # holds the rightmost roots for alpha <= 2, beta <= 1
QPMR_ACCURACY = 1e-6
QPMR_STEP = 0.05    # qpmr's own grid-step heuristic misses roots near the origin (e.g. at (0.06, 0.1))


def qpmr_rightmost(qp, alpha, beta):
    """Real part of the rightmost root found by qpmr at one grid point (NaN if it finds none)."""
    import qpmr

    warnings.filterwarnings("ignore", module="numpy")   # qpmr casts complex grids internally
    coefs = qp.coeffs[..., 0] + alpha * qp.coeffs[..., 1] + beta * qp.coeffs[..., 2]
    roots, _ = qpmr.qpmr(coefs, qp.thetas, region=QPMR_REGION, e=QPMR_ACCURACY, ds=QPMR_STEP)
    return roots.real.max() if roots.size else np.nan


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", type=int, default=100, help="points per axis (default 100; 500 takes ~1 h)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    model = get_model("rcp")
    alphas = np.linspace(2.0 / args.grid, 2.0, args.grid)
    betas = np.linspace(1.0 / args.grid, 1.0, args.grid)
    exact_region(model, alphas[:2], betas[:2])          # compile the model once, outside the timing

    start = time.perf_counter()
    region = exact_region(model, alphas, betas)
    t_exact = time.perf_counter() - start

    qp = quasi_polynomial(model)
    start = time.perf_counter()
    rightmost = np.array([[qpmr_rightmost(qp, a, b) for a in alphas] for b in betas])
    t_qpmr = time.perf_counter() - start

    found = np.isfinite(rightmost)
    decided = found & (np.abs(np.nan_to_num(rightmost)) > 10 * QPMR_ACCURACY)
    match = (rightmost < 0) == region.stable
    result = {
        "grid": f"{args.grid}x{args.grid}",
        "exact_s": round(t_exact, 4),
        "qpmr_s": round(t_qpmr, 2),
        "ratio": round(t_qpmr / t_exact, 1),
        "points": int(region.stable.size),
        "verdicts_match": int(match[decided].sum()),
        "decided_points": int(decided.sum()),
        "qpmr_found_no_root": int((~found).sum()),
        "near_axis_points": int((found & ~decided).sum()),
        "mismatches_near_axis": int((~match & found & ~decided).sum()),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>22}: {value}")


if __name__ == "__main__":
    main()
