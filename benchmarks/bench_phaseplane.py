"""Phase-plane benchmarks (run by hand, not a timed test): ``python benchmarks/bench_phaseplane.py``.

1. App. E's 20 x 20 sweep (alpha, beta in 0.1..2.0 by 0.1, six initial conditions): wall time
   of :func:`phaseplane_region` for ``rcp`` and per-trajectory cost, with the verdict counts and
   the largest horizon a trajectory needed. ``--before GIT_REV`` times the same sweep with the
   code of that revision (checked out into a temporary folder) to give the cost of the longer,
   adaptive horizons, and runs part 2's batch at that revision's default step: its cost, its
   error against this run's reference and its speed ratio at equal error (``*_before``).
2. Against jitcdde **at matched accuracy**, trajectory by trajectory: the same App. E
   trajectories of the ``linear`` model (jitcdde has neither an exact clamp nor a sampled
   update, so the smooth model is the one both integrate exactly) over 100 RTTs, batched here,
   one by one there (a random sample, cost extrapolated per trajectory). Both are compared with
   a tight reference (ours at 1/32 of the default step, itself checked against jitcdde at
   1e-10); jitcdde's tolerance is the loosest of 1e-3..1e-10 whose error is at most ours, so
   both differ from the reference by about the same amount. Reported: both errors (largest
   difference relative to each trajectory's amplitude), the tolerance, and the speed ratio.
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
TIGHT = 1e-10          # jitcdde's tightest working tolerance here (at 1e-11 it hits its minimum step)


def app_e_batch():
    """Every (alpha, beta, initial condition) of App. E's sweep as flat arrays."""
    gammas, queues = (v[0] for v in initial_conditions(APP_E["C"], APP_E["d0"], APP_E["N"]))
    aa, bb = (m.ravel() for m in np.meshgrid(GRID, GRID))
    n = gammas.size
    return (np.repeat(aa, n), np.repeat(bb, n)), {"gamma0": np.tile(gammas, aa.size), "q0": np.tile(queues, aa.size)}


def jitcdde_trajectories(alphas, betas, initial, times, tol=1e-10):
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
        dde.set_integration_parameters(atol=tol, rtol=tol)
        dde.step_on_discontinuities()
        out.append([dde.integrate(s) for s in times])
        elapsed += time.perf_counter() - start
    return np.array(out), elapsed / len(alphas)


def _worst(run, reference):
    """Largest difference from ``reference`` (shape (B, n, 2)) relative to each trajectory's amplitude."""
    worst = 0.0
    for j in range(reference.shape[0]):
        amplitude = np.abs(reference[j] - [1.0, 0.0]).max()
        if amplitude > 0:  # a trajectory started at the equilibrium has no amplitude to compare against
            worst = max(worst, float(np.abs(run[j] - reference[j]).max() / amplitude))
    return worst


def _ours(alphas, betas, y0, q0, dt=None):
    """The linear model in normalized units (rates in C, queue in C*d0, time in RTTs), every RTT recorded."""
    unit = {"C": 1.0, "d0": 1.0, "N": APP_E["N"]}
    steps = int(round(1.0 / (dt or 1.0 / 20)))
    traj = simulate(get_model("linear"), dict(unit, alpha=alphas, beta=betas), {"gamma0": y0 / APP_E["N"], "q0": q0},
                    HORIZON_RTT, dt=dt, record_every=steps)
    return traj, np.stack([traj.states["y"][1:].T, traj.states["q"][1:].T], axis=-1)


def sample_indices(size: int, sample: int = 48, seed: int = 1) -> np.ndarray:
    """The trajectories jitcdde integrates (and whose errors are compared)."""
    return np.random.default_rng(seed).choice(size, sample, replace=False)


def bench_against_jitcdde(sample: int, seed: int = 1, before: np.ndarray | None = None) -> dict:
    (alphas, betas), initial = app_e_batch()
    y0, q0 = initial["gamma0"] * APP_E["N"], initial["q0"] / (APP_E["C"] * APP_E["d0"])
    start = time.perf_counter()
    traj, _ = _ours(alphas, betas, y0, q0)
    ours_per_trajectory = (time.perf_counter() - start) / alphas.size
    pick = sample_indices(alphas.size, sample, seed)
    times = traj.t[1:]
    _, mine = _ours(alphas[pick], betas[pick], y0[pick], q0[pick])
    _, reference = _ours(alphas[pick], betas[pick], y0[pick], q0[pick], dt=1.0 / 640)
    jit_tight, _ = jitcdde_trajectories(alphas[pick], betas[pick], (y0[pick], q0[pick]), times, tol=TIGHT)
    ours_error = _worst(mine, reference)
    scan = {}
    for tol in (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, TIGHT):
        try:
            run, per = jitcdde_trajectories(alphas[pick], betas[pick], (y0[pick], q0[pick]), times, tol=tol)
        except Exception:  # jitcdde.UnsuccessfulIntegration
            continue
        scan[tol] = (_worst(run, reference), per)
    matched = next((tol for tol, (err, _) in scan.items() if err <= ours_error), TIGHT)
    jit_error, jit_per_trajectory = scan[matched]
    # jitcdde's cost at exactly our error: log-log interpolation between the scanned tolerances
    # that bracket it (the scan's steps are 10x in tolerance, so the nearest one is up to ~10x off)
    errs = np.array([e for e, _ in scan.values()])
    costs = np.array([c for _, c in scan.values()])
    order = np.argsort(errs)
    def jit_cost_at(error):
        return float(np.exp(np.interp(np.log(error), np.log(errs[order]), np.log(costs[order]))))

    interpolated = jit_cost_at(ours_error)
    # the same comparison at other accuracies: our step d0/k (RK4, 4th order) against jitcdde at equal error
    curve = {}
    for k in (10, 20, 40, 80):
        started = time.perf_counter()
        _ours(alphas, betas, y0, q0, dt=1.0 / k)
        cost = (time.perf_counter() - started) / alphas.size
        _, run = _ours(alphas[pick], betas[pick], y0[pick], q0[pick], dt=1.0 / k)
        error = _worst(run, reference)
        curve[f"d0/{k}"] = {"error": error, "ours_s_per_trajectory": cost,
                            "speed_ratio_at_equal_error": jit_cost_at(error) / cost}
    earlier = {}
    if before is not None:  # the --before revision's default step, against the same reference and jitcdde scan
        error = _worst(before, reference)
        earlier = {"ours_error_vs_reference_before": error,
                   "jitcdde_s_per_trajectory_interpolated_to_error_before": jit_cost_at(error)}
    return {**earlier, "trajectories": int(alphas.size), "jitcdde_sample": sample,
            "reference_vs_jitcdde_tight": _worst(jit_tight, reference), "jitcdde_tight_tolerance": TIGHT,
            "ours_error_vs_reference": ours_error, "jitcdde_matched_tolerance": matched,
            "jitcdde_error_vs_reference": jit_error,
            "ours_s_per_trajectory": ours_per_trajectory, "jitcdde_s_per_trajectory": jit_per_trajectory,
            "speed_ratio_at_matched_tolerance": jit_per_trajectory / ours_per_trajectory,
            "jitcdde_s_per_trajectory_interpolated_to_our_error": interpolated,
            "speed_ratio_interpolated_to_equal_error": interpolated / ours_per_trajectory,
            "speed_ratio_vs_jitcdde_1e-10": scan[1e-10][1] / ours_per_trajectory,
            "accuracy_curve": curve,
            "jitcdde_scan": {f"{tol:g}": {"error": err, "s_per_trajectory": per} for tol, (err, per) in scan.items()}}


def bench_app_e_sweep() -> tuple[dict, object]:
    start = time.perf_counter()
    region = phaseplane_region(get_model("rcp"), GRID, GRID)
    wall = time.perf_counter() - start
    return {"app_e_wall_s": wall, "app_e_s_per_trajectory": wall / (GRID.size**2 * 6),
            "app_e_stable_points": int(region.stable.sum()), "app_e_verdicts": region.meta["verdict_counts"]}, region


BEFORE_SCRIPT = """
import json, sys, time, numpy as np
from rcpstab.models import get_model
from rcpstab.phaseplane import phaseplane_region, simulate
simulate(get_model("rcp"), {}, {}, 1.0)
simulate(get_model("linear"), {}, {}, 1.0)
grid = np.round(np.arange(0.1, 2.01, 0.1), 10)
start = time.perf_counter()
region = phaseplane_region(get_model("rcp"), grid, grid)
wall = time.perf_counter() - start
# part 2's linear batch at that revision's default step: its cost, and the sample's trajectories for the error
batch = np.load(sys.argv[1])
unit = {"C": 1.0, "d0": 1.0, "N": float(batch["N"])}
probe = simulate(get_model("linear"), unit, {}, 1.0)  # its default step
def ours(a, b, y0, q0):
    return simulate(get_model("linear"), dict(unit, alpha=a, beta=b), {"gamma0": y0 / unit["N"], "q0": q0},
                    float(batch["horizon"]), record_every=int(round(1.0 / probe.dt)))
a, b, y0, q0, pick = (batch[k] for k in ("alpha", "beta", "y0", "q0", "pick"))
start = time.perf_counter()
ours(a, b, y0, q0)
per = (time.perf_counter() - start) / a.size
sample = ours(a[pick], b[pick], y0[pick], q0[pick])
np.save(sys.argv[2], np.stack([sample.states["y"][1:].T, sample.states["q"][1:].T], axis=-1))
print(json.dumps({"wall_s": wall, "stable": int(region.stable.sum()), "verdicts": region.meta["verdict_counts"],
                  "linear_s_per_trajectory": per, "linear_dt": probe.dt}))
"""


def bench_app_e_before(revision: str) -> tuple[dict, np.ndarray]:
    """The App. E sweep timed with the code of ``revision`` (a temporary checkout, its own process),
    and part 2's linear batch at that revision's default step: its cost per trajectory and the
    sample's trajectories (returned, for their error against this revision's reference)."""
    import os
    import subprocess
    import sys
    import tempfile

    (alphas, betas), initial = app_e_batch()
    y0, q0 = initial["gamma0"] * APP_E["N"], initial["q0"] / (APP_E["C"] * APP_E["d0"])
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as scratch:
        inputs, outputs = os.path.join(scratch, "batch.npz"), os.path.join(scratch, "sample.npy")
        np.savez(inputs, alpha=alphas, beta=betas, y0=y0, q0=q0, pick=sample_indices(alphas.size),
                 N=APP_E["N"], horizon=HORIZON_RTT)
        subprocess.run(["git", "worktree", "add", "--detach", folder, revision], check=True, capture_output=True)
        try:
            out = subprocess.run([sys.executable, "-c", BEFORE_SCRIPT, inputs, outputs], check=True,
                                 capture_output=True, text=True, env={**os.environ, "PYTHONPATH": folder},
                                 cwd=folder).stdout
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", folder], check=True, capture_output=True)
        sample = np.load(outputs)
    before = json.loads(out.strip().splitlines()[-1])
    return {"before_revision": revision, "app_e_wall_s_before": before["wall_s"],
            "app_e_stable_points_before": before["stable"], "app_e_verdicts_before": before["verdicts"],
            "ours_s_per_trajectory_before": before["linear_s_per_trajectory"],
            "ours_default_step_before": before["linear_dt"]}, sample


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
    parser.add_argument("--before", metavar="GIT_REV", help="also time the App. E sweep with this revision's code")
    args = parser.parse_args()
    for name in ("rcp", "linear"):  # build (or load) the compiled kernels before timing
        simulate(get_model(name), {}, {}, 1.0)
    results, app_e_region = bench_app_e_sweep()
    before = None
    if args.before:
        earlier, before = bench_app_e_before(args.before)
        results.update(earlier)
        if args.jitcdde_sample != 48:
            before = None  # the earlier revision integrated the default sample only
    results.update(bench_against_jitcdde(args.jitcdde_sample, before=before))
    if "jitcdde_s_per_trajectory_interpolated_to_error_before" in results:
        results["speed_ratio_interpolated_to_equal_error_before"] = (
            results.pop("jitcdde_s_per_trajectory_interpolated_to_error_before") / results["ours_s_per_trajectory_before"])
    if not args.skip_configurations:
        results.update(bench_configurations(args.workers, app_e_region))
    for key, value in results.items():
        if key not in ("stable_points_per_configuration", "jitcdde_scan", "accuracy_curve"):
            print(f"{key:40s} {value}")
    for step, row in results.get("accuracy_curve", {}).items():
        print(f"step {step:6s}: error {row['error']:.2e}, ours {row['ours_s_per_trajectory'] * 1e3:.3f} ms/trajectory, "
              f"jitcdde at equal error {row['speed_ratio_at_equal_error']:.0f}x slower")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
