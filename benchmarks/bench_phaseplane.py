"""Phase-plane benchmarks (run by hand, not a timed test): ``python benchmarks/bench_phaseplane.py``.

1. App. E's 20 x 20 sweep (alpha, beta in 0.1..2.0 by 0.1, six initial conditions): wall time
   of :func:`phaseplane_region` for ``rcp`` and per-trajectory cost.
2. Against jitcdde, trajectory by trajectory: the same 2400 App. E trajectories of the
   ``linear`` model (jitcdde has neither an exact clamp nor a sampled update, so the smooth
   model is the one both integrate exactly) over 100 RTTs, batched here, one by one there (a
   random sample, cost extrapolated per trajectory): speed ratio and the largest difference
   relative to each trajectory's amplitude.
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
from rcpstab.phaseplane.sweep import initial_conditions

GRID = np.round(np.arange(0.1, 2.01, 0.1), 10)
APP_E = {"C": 0.15e9, "d0": 0.2, "N": 10.0, "T": 0.01}
THESIS_C = [56e3, 0.15e9, 2.5e9, 10e9, 1000e9]   # bit/s (Ch. 5 text: 56 kb/s; App. E: 5.6 kb/s)
THESIS_D0 = [0.01, 0.5, 1.0, 2.0]                 # s
THESIS_N = [10, 100, 1000, 5000]
HORIZON_RTT = 100.0


def app_e_batch():
    """Every (alpha, beta, initial condition) of App. E's sweep as flat arrays."""
    gammas, queues = (v[0] for v in initial_conditions(APP_E["C"], APP_E["d0"], APP_E["N"]))
    aa, bb = (m.ravel() for m in np.meshgrid(GRID, GRID))
    n = gammas.size
    return (np.repeat(aa, n), np.repeat(bb, n)), {"gamma0": np.tile(gammas, aa.size), "q0": np.tile(queues, aa.size)}


def jitcdde_trajectories(alphas, betas, initial, times):
    """Integrate the linear model (eq. 5.15, normalized: C = d0 = 1) one trajectory at a time."""
    import symengine
    from jitcdde import jitcdde, t, y

    a, b = symengine.symbols("a b")
    dde = jitcdde([-a * (y(0, t - 1) - 1) - b * y(1, t - 1), y(0) - 1], control_pars=[a, b], verbose=False)
    dde.compile_C(verbose=False)
    out, elapsed = [], 0.0
    for alpha, beta, y0, q0 in zip(alphas, betas, *initial):
        start = time.perf_counter()
        dde.purge_past()
        dde.constant_past([y0, q0], time=0.0)
        dde.set_parameters(alpha, beta)
        dde.set_integration_parameters(atol=1e-10, rtol=1e-10)
        dde.step_on_discontinuities()
        out.append([dde.integrate(s) for s in times])
        elapsed += time.perf_counter() - start
    return np.array(out), elapsed / len(alphas)


def bench_against_jitcdde(sample: int, seed: int = 1) -> dict:
    (alphas, betas), initial = app_e_batch()
    unit = {"C": 1.0, "d0": 1.0, "N": APP_E["N"]}  # rates in C, queue in C*d0, time in RTTs
    start = time.perf_counter()
    ours = simulate(get_model("linear"), dict(unit, alpha=alphas, beta=betas),
                    {"gamma0": initial["gamma0"], "q0": initial["q0"] / (APP_E["C"] * APP_E["d0"])},
                    HORIZON_RTT, record_every=20)
    ours_per_trajectory = (time.perf_counter() - start) / alphas.size
    pick = np.random.default_rng(seed).choice(alphas.size, sample, replace=False)
    times = ours.t[1:]
    y0 = initial["gamma0"][pick] * APP_E["N"]
    q0 = initial["q0"][pick] / (APP_E["C"] * APP_E["d0"])
    reference, jit_per_trajectory = jitcdde_trajectories(alphas[pick], betas[pick], (y0, q0), times)
    worst = 0.0
    for j, b in enumerate(pick):
        mine = np.column_stack([ours.states["y"][1:, b], ours.states["q"][1:, b]])
        amplitude = np.abs(reference[j] - [1.0, 0.0]).max()
        if amplitude > 0:  # a trajectory started at the equilibrium has no amplitude to compare against
            worst = max(worst, float(np.abs(mine - reference[j]).max() / amplitude))
    return {"trajectories": int(alphas.size), "jitcdde_sample": sample,
            "ours_s_per_trajectory": ours_per_trajectory, "jitcdde_s_per_trajectory": jit_per_trajectory,
            "speed_ratio": jit_per_trajectory / ours_per_trajectory, "max_relative_amplitude_difference": worst}


def bench_app_e_sweep() -> tuple[dict, object]:
    start = time.perf_counter()
    region = phaseplane_region(get_model("rcp"), GRID, GRID)
    wall = time.perf_counter() - start
    return {"app_e_wall_s": wall, "app_e_s_per_trajectory": wall / (GRID.size**2 * 6),
            "app_e_stable_points": int(region.stable.sum())}, region


def bench_configurations(workers: int, app_e_region) -> dict:
    model = get_model("rcp")
    start = time.perf_counter()
    region = phaseplane_region(model, GRID, GRID, C=THESIS_C, d0=THESIS_D0, N=THESIS_N, workers=workers)
    wall = time.perf_counter() - start
    per_config = region.table["stable"].reshape(-1, GRID.size, GRID.size).astype(bool)
    same = [bool(np.array_equal(s, app_e_region.stable)) for s in per_config]
    unreachable = region.meta["unreachable_configurations"]
    return {"configurations": len(per_config), "workers": workers, "config_sweep_wall_s": wall,
            "unreachable_configurations": len(unreachable),
            "common_stable_points_all_configurations": region.meta["stable_points_all_configurations"],
            "common_over_reachable_stable_points": int(region.stable.sum()),
            "common_over_reachable_equals_app_e": bool(np.array_equal(region.stable, app_e_region.stable)),
            "app_e_points_outside_common": int((app_e_region.stable & ~region.stable).sum()),
            "configurations_equal_to_app_e": int(sum(same)),
            "verdict_counts": region.meta["verdict_counts"],
            "stable_points_per_configuration": region.meta["stable_per_configuration"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--jitcdde-sample", type=int, default=48, help="trajectories integrated by jitcdde")
    parser.add_argument("--skip-configurations", action="store_true")
    args = parser.parse_args()
    for name in ("rcp", "linear"):  # build (or load) the compiled kernels before timing
        simulate(get_model(name), {}, {}, 1.0)
    results, app_e_region = bench_app_e_sweep()
    results.update(bench_against_jitcdde(args.jitcdde_sample))
    if not args.skip_configurations:
        results.update(bench_configurations(args.workers, app_e_region))
    for key, value in results.items():
        if key != "stable_points_per_configuration":
            print(f"{key:40s} {value}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
