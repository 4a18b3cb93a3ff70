"""Phase-plane benchmarks (run by hand, not a timed test): ``python benchmarks/bench_phaseplane.py``.

1. App. E's 20 x 20 sweep (alpha, beta in 0.1..2.0 by 0.1, six initial conditions): wall time
   of :func:`phaseplane_region` for ``rcp`` and per-trajectory cost, with the verdict counts and
   the largest horizon a trajectory needed. ``--before GIT_REV`` times the same sweep with the
   code of that revision (checked out into a temporary folder) to give the cost of the longer,
   adaptive horizons (``*_before``).
2. (Against jitcdde: ``benchmarks/bench_jitcdde.py``, at equal error per class of trajectory,
   against a reference that is neither code's own.)
3. The thesis' configuration sweep (5 C x 4 d0 x 4 N) on ``--workers`` processes: wall time,
   and whether the region common to all configurations equals App. E's. Configurations whose
   equilibrium is unreachable (C/N below MIN_RATE) are reported and left out of the common
   region (see :mod:`rcpstab.phaseplane.sweep`).

The integrator compiles its C kernel on first use (cached on disk): a warm-up integration runs
before any timing, so the times are of integration, not of gcc.

The results are printed as text and as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from rcpstab.models import get_model
from rcpstab.phaseplane import phaseplane_region, simulate

GRID = np.round(np.arange(0.1, 2.01, 0.1), 10)
APP_E = {"C": 0.15e9, "d0": 0.2, "N": 10.0, "T": 0.01}
THESIS_C = [56e3, 0.15e9, 2.5e9, 10e9, 1000e9]  # bit/s (Ch. 5 text: 56 kb/s; App. E: 5.6 kb/s)
THESIS_D0 = [0.01, 0.5, 1.0, 2.0]  # s
THESIS_N = [10, 100, 1000, 5000]


def bench_app_e_sweep() -> tuple[dict, object]:
    start = time.perf_counter()
    region = phaseplane_region(get_model("rcp"), GRID, GRID)
    wall = time.perf_counter() - start
    return {
        "app_e_wall_s": wall,
        "app_e_s_per_trajectory": wall / (GRID.size**2 * 6),
        "app_e_stable_points": int(region.stable.sum()),
        "app_e_verdicts": region.meta["verdict_counts"],
    }, region


BEFORE_SCRIPT = """
import json, time, numpy as np
from rcpstab.models import get_model
from rcpstab.phaseplane import phaseplane_region, simulate
simulate(get_model("rcp"), {}, {}, 1.0)
simulate(get_model("linear"), {}, {}, 1.0)
grid = np.round(np.arange(0.1, 2.01, 0.1), 10)
start = time.perf_counter()
region = phaseplane_region(get_model("rcp"), grid, grid)
wall = time.perf_counter() - start
print(json.dumps({"wall_s": wall, "stable": int(region.stable.sum()), "verdicts": region.meta["verdict_counts"]}))
"""


def bench_app_e_before(revision: str) -> dict:
    """The App. E sweep timed with the code of ``revision`` (a temporary checkout, its own process)."""
    import os
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["git", "worktree", "add", "--detach", folder, revision], check=True, capture_output=True)
        try:
            out = subprocess.run(
                [sys.executable, "-c", BEFORE_SCRIPT],
                check=True,
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": folder},
                cwd=folder,
            ).stdout
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", folder], check=True, capture_output=True)
    before = json.loads(out.strip().splitlines()[-1])
    return {
        "before_revision": revision,
        "app_e_wall_s_before": before["wall_s"],
        "app_e_stable_points_before": before["stable"],
        "app_e_verdicts_before": before["verdicts"],
    }


def bench_configurations(workers: int, app_e_region) -> dict:
    model = get_model("rcp")
    start = time.perf_counter()
    region = phaseplane_region(model, GRID, GRID, C=THESIS_C, d0=THESIS_D0, N=THESIS_N, workers=workers)
    wall = time.perf_counter() - start
    per_config = region.table["stable"].reshape(-1, GRID.size, GRID.size).astype(bool)
    same = [bool(np.array_equal(s, app_e_region.stable)) for s in per_config]
    unreachable = region.meta["unreachable_configurations"]
    return {
        "configurations": len(per_config),
        "workers": workers,
        "config_sweep_wall_s": wall,
        "unreachable_configurations": len(unreachable),
        "common_stable_points_all_configurations": region.meta["stable_points_all_configurations"],
        "common_over_reachable_stable_points": int(region.stable.sum()),
        "common_over_reachable_equals_app_e": bool(np.array_equal(region.stable, app_e_region.stable)),
        "app_e_points_outside_common": int((app_e_region.stable & ~region.stable).sum()),
        "configurations_equal_to_app_e": int(sum(same)),
        "verdict_counts": region.meta["verdict_counts"],
        "stable_points_per_configuration": region.meta["stable_per_configuration"],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--skip-configurations", action="store_true")
    parser.add_argument("--before", metavar="GIT_REV", help="also time the App. E sweep with this revision's code")
    args = parser.parse_args()
    for name in ("rcp", "linear"):  # build (or load) the compiled kernels before timing
        simulate(get_model(name), {}, {}, 1.0)
    results, app_e_region = bench_app_e_sweep()
    if args.before:
        results.update(bench_app_e_before(args.before))
    if not args.skip_configurations:
        results.update(bench_configurations(args.workers, app_e_region))
    for key, value in results.items():
        if key != "stable_points_per_configuration":
            print(f"{key:40s} {value}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
