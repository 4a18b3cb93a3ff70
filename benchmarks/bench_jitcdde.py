"""rcpstab against jitcdde at equal error (run by hand): ``python benchmarks/bench_jitcdde.py [--quick]``.

Both codes integrate the ``linear`` model (thesis eq. 5.15) in normalized units (C = d0 = 1,
N = 10, time in RTTs) from App. E's six initial conditions, over ``--horizon`` RTTs, recorded
every RTT. jitcdde has neither an exact clamp nor a sampled update, so it cannot integrate the
``rcp`` model itself: the ``rcp`` model only names the classes (its verdict at App. E's set-up,
printed next to each class). Classes, reported separately:

- **stable** (alpha, beta) = (0.4, 0.2): ``rcp`` converges; the linear model decays fast;
- **cycling** (1.4, 0.8): ``rcp`` settles on a limit cycle (the queue clamp); the linear model,
  which has no clamp, grows (by orders of magnitude over 100 RTTs);
- **slow** (0.1, 0.1): ``rcp`` converges slowly; the linear model oscillates slowly with little
  change of amplitude over the horizon.

**The reference is neither code's own**: :func:`reference_linear` below, a NumPy RK4 on the
method of steps (step 1/``REF_STEPS`` RTT, the delayed values by cubic Hermite interpolation
of the stored states and slopes, the delay a whole number of steps so no step straddles a
breakpoint of the constant past). Its own error is estimated by the same integration at half
the step and printed (it must be far below the errors compared).

**jitcdde's set-up**: the constant past on [-1, 0], ``adjust_diff`` (an anchor at -1e-6 RTT
with the past's zero slope, and the slope of the dynamics at t = 0+ in the anchor at 0, so the
kink is between two anchors instead of smeared over jitcdde's first step; the past changes only
on [-1e-6, 0], an effect far below the errors compared), then plain ``integrate`` to each sample
time, steps capped at the delay (``max_step = 1``) so that no step reads its own extrapolation.
No ``step_on_discontinuities``: it steps past the first sample times and jitcdde then returns
extrapolated values there. Before any
timing, every jitcdde and rcpstab run is compared with the reference: the errors are the
largest difference (either state, every RTT) relative to the trajectory's amplitude.

**Equal error**: rcpstab at steps d0/k (k in ``STEPS``, RK4) and jitcdde at tolerances
``TOLERANCES`` give two cost-error curves per class; each rcpstab point's error is located on
jitcdde's curve by log-log interpolation (no extrapolation: outside jitcdde's range the ratio
is not reported), and the ratio of costs is printed. Costs are per trajectory: jitcdde
integrates one trajectory at a time; rcpstab integrates a batch, timed twice: the class's six
trajectories (one point's portrait, where its fixed cost per call dominates) and those six
repeated ``SWEEP_COPIES`` times (a sweep-sized batch, how App. E's maps run). Each cost is the
median of ``--repeats`` interleaved repeats (every configuration of both codes once per
repeat), so load changes affect both codes alike.

**Compile time excluded**: jitcdde's C module is compiled once and cached in
``$XDG_CACHE_HOME/rcpstab/bench_jitcdde`` (reused by later runs); rcpstab's kernel is built
(or loaded from its cache) by a warm-up run. Neither compile is in any timing.

Printed: per class, the errors and costs of both codes, the ratio at equal error at each of
rcpstab's steps, the load average; then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

import numpy as np

from rcpstab.models import get_model
from rcpstab.phaseplane import simulate
from rcpstab.phaseplane.sweep import initial_conditions

APP_E = {"C": 0.15e9, "d0": 0.2, "N": 10.0, "T": 0.01}
CLASSES = {"stable": (0.4, 0.2), "cycling": (1.4, 0.8), "slow": (0.1, 0.1)}
STEPS = (4, 5, 10, 20, 40)  # rcpstab steps d0/k
TOLERANCES = (1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10)  # jitcdde atol = rtol (1e-11: its minimum step)
REF_STEPS = 400  # reference steps per RTT
HORIZON = 100.0  # RTTs
SWEEP_COPIES = 50  # rcpstab also timed on a sweep-sized batch: the class's six trajectories 50 times over
SHIFT = 1e-6  # jitcdde's adjust_diff: the past deviates from constant only on [-1e-6, 0] RTT
# The accuracy check's stated bounds (relative to amplitude), against the reference: rcpstab's
# RK4 at its default step d0/20 within (1/20)^4 (4th order, the gains below 1/RTT), jitcdde
# within 100x its tolerance (local tolerances summed over its steps). From the methods' orders,
# not fitted to a run.
STATED = {"rcpstab_step": 20, "rcpstab_bound": (1 / 20) ** 4, "jitcdde_tol": 1e-6, "jitcdde_bound": 1e-4}


def starts() -> tuple[np.ndarray, np.ndarray]:
    """App. E's six initial conditions, normalized: aggregate rate y0 (in C) and queue q0 (in C*d0)."""
    gammas, queues = (v[0] for v in initial_conditions(APP_E["C"], APP_E["d0"], APP_E["N"]))
    return gammas * APP_E["N"], queues / (APP_E["C"] * APP_E["d0"])


def reference_linear(
    alpha: float, beta: float, y0: np.ndarray, q0: np.ndarray, horizon: float, steps_per_rtt: int = REF_STEPS
) -> np.ndarray:
    """The linear model by RK4 on the method of steps, in NumPy: states at t = 1..horizon RTTs, shape (B, n, 2).

    y' = -alpha (y(t-1) - 1) - beta q(t-1),  q' = y - 1,  constant past (y0, q0) on [-1, 0].
    The delayed value at a half step is the cubic Hermite interpolant of the stored states and
    slopes one RTT earlier (O(h^4), so the scheme stays 4th order); the past's slope is zero.
    """
    h = 1.0 / steps_per_rtt
    m = steps_per_rtt  # the delay in steps
    n = int(round(horizon * steps_per_rtt))
    x = np.zeros((n + m + 1, 2, y0.size))
    dx = np.zeros_like(x)  # slopes from the right (of the interval after each point)
    dx_left = np.zeros_like(x)  # and from the left: they differ at t = 0 only (the kink)
    x[: m + 1] = np.stack([y0, q0])  # index m is t = 0; the past has slope 0

    def f(state, delayed):
        return np.stack([-alpha * (delayed[0] - 1.0) - beta * delayed[1], state[0] - 1.0])

    def delayed_mid(i):  # the state at t_i + h/2 - 1, i.e. index i - m + 1/2
        a, b = i - m, i - m + 1
        return 0.5 * (x[a] + x[b]) + h / 8.0 * (dx[a] - dx_left[b])

    for i in range(m, m + n):
        mid = delayed_mid(i)
        k1 = f(x[i], x[i - m])
        dx[i] = k1
        if i > m:
            dx_left[i] = k1
        k2 = f(x[i] + 0.5 * h * k1, mid)
        k3 = f(x[i] + 0.5 * h * k2, mid)
        k4 = f(x[i] + h * k3, x[i + 1 - m])
        x[i + 1] = x[i] + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    picked = x[m + m :: m][: int(round(horizon))]  # t = 1, 2, ..., horizon
    return np.transpose(picked, (2, 0, 1))


def ours(alpha: float, beta: float, y0: np.ndarray, q0: np.ndarray, horizon: float, k: int) -> np.ndarray:
    """rcpstab's linear model at step d0/k, states every RTT, shape (B, n, 2)."""
    unit = {"C": 1.0, "d0": 1.0, "N": APP_E["N"]}
    traj = simulate(
        get_model("linear"),
        dict(unit, alpha=alpha, beta=beta),
        {"gamma0": y0 / APP_E["N"], "q0": q0},
        horizon,
        dt=1.0 / k,
        record_every=k,
    )
    return np.stack([traj.states["y"][1:].T, traj.states["q"][1:].T], axis=-1)


def compiled_jitcdde():
    """jitcdde's linear model, its C module compiled once and cached on disk (the compile is never timed)."""
    import symengine
    from jitcdde import jitcdde, t, y

    a, b = symengine.symbols("a b")
    rhs = [-a * (y(0, t - 1) - 1) - b * y(1, t - 1), y(0) - 1]
    folder = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "rcpstab", "bench_jitcdde")
    module = os.path.join(folder, "linear.so")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if os.path.exists(module):
            try:
                return jitcdde(rhs, control_pars=[a, b], max_delay=1.0, module_location=module, verbose=False)
            except Exception:  # a stale or foreign module: rebuild it
                pass
        os.makedirs(folder, exist_ok=True)
        dde = jitcdde(rhs, control_pars=[a, b], max_delay=1.0, verbose=False)
        dde.compile_C(verbose=False)
        dde.save_compiled(module, overwrite=True)
    return dde


def jitcdde_run(dde, alpha: float, beta: float, y0: np.ndarray, q0: np.ndarray, horizon: float, tol: float) -> np.ndarray:
    """jitcdde one trajectory at a time from the constant past, plain ``integrate`` to t = 1..horizon; (B, n, 2).

    A failed integration (jitcdde's UnsuccessfulIntegration) gives NaN, which fails the accuracy check.
    """
    times = np.arange(1, int(round(horizon)) + 1, dtype=float)
    out = np.full((y0.size, times.size, 2), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "you did not explicitly handle initial discontinuities": done above
        for j in range(y0.size):
            dde.purge_past()
            dde.constant_past([y0[j], q0[j]], time=0.0)
            dde.set_parameters(alpha, beta)
            dde.set_integration_parameters(atol=tol, rtol=tol, first_step=1e-3, max_step=1.0)
            # the slope at t = 0+ (of these parameters: set them first) in the anchor at 0, the past
            # kept constant up to -SHIFT
            dde.adjust_diff(SHIFT)
            try:
                for i, s in enumerate(times):
                    out[j, i] = dde.integrate(s)
            except Exception:  # jitcdde.UnsuccessfulIntegration and its kin
                pass
    return out


def relative_error(run: np.ndarray, reference: np.ndarray, y0: np.ndarray, q0: np.ndarray) -> float:
    """Largest difference from ``reference`` relative to each trajectory's amplitude (its largest distance
    from the equilibrium (1, 0), the start included); a trajectory started at the equilibrium is skipped."""
    worst = 0.0
    for j in range(reference.shape[0]):
        amplitude = max(np.abs(reference[j] - [1.0, 0.0]).max(), abs(y0[j] - 1.0), abs(q0[j]))
        if amplitude > 0:
            diff = np.abs(run[j] - reference[j]).max()
            worst = max(worst, float(diff / amplitude) if np.isfinite(diff) else np.inf)
    return worst


def accuracy(horizon: float = HORIZON, classes=CLASSES, steps=STEPS, tolerances=TOLERANCES, dde=None) -> dict:
    """Every configuration's error against the reference, per class, and the reference's own error estimate."""
    y0, q0 = starts()
    dde = dde or compiled_jitcdde()
    simulate(get_model("linear"), {}, {}, 1.0)  # build or load rcpstab's kernel
    result = {}
    for name, (alpha, beta) in classes.items():
        reference = reference_linear(alpha, beta, y0, q0, horizon)
        half = reference_linear(alpha, beta, y0, q0, horizon, 2 * REF_STEPS)
        result[name] = {
            "alpha": alpha,
            "beta": beta,
            "reference": reference,
            "reference_error": relative_error(reference, half, y0, q0),
            "ours": {k: relative_error(ours(alpha, beta, y0, q0, horizon, k), half, y0, q0) for k in steps},
            "jitcdde": {
                tol: relative_error(jitcdde_run(dde, alpha, beta, y0, q0, horizon, tol), half, y0, q0) for tol in tolerances
            },
        }
    return result


def rcp_verdicts(classes=CLASSES) -> dict:
    """The ``rcp`` model's verdict at each class's point (App. E's set-up): what the class stands for."""
    from rcpstab.phaseplane import phaseplane_region

    out = {}
    for name, (alpha, beta) in classes.items():
        region = phaseplane_region(get_model("rcp"), np.array([alpha]), np.array([beta]))
        out[name] = region.meta["verdict_counts"]
    return out


def timings(checked: dict, horizon: float, repeats: int, dde) -> dict:
    """Median cost per trajectory (s) of every configuration, repeats interleaved across both codes."""
    y0, q0 = starts()
    samples: dict = {}
    for _ in range(repeats):
        for name, row in checked.items():
            alpha, beta = row["alpha"], row["beta"]
            for k in row["ours"]:
                for copies, calls in ((1, 10), (SWEEP_COPIES, 2)):  # calls: each sample spans >~ 10 ms
                    start = time.perf_counter()
                    for _ in range(calls):
                        ours(alpha, beta, np.tile(y0, copies), np.tile(q0, copies), horizon, k)
                    samples.setdefault((name, f"ours x{copies}", k), []).append(
                        (time.perf_counter() - start) / (calls * copies * y0.size)
                    )
            for tol in row["jitcdde"]:
                start = time.perf_counter()
                jitcdde_run(dde, alpha, beta, y0, q0, horizon, tol)
                samples.setdefault((name, "jitcdde", tol), []).append((time.perf_counter() - start) / y0.size)
    return {key: float(np.median(v)) for key, v in samples.items()}


def equal_error(errors: dict, costs: dict) -> dict:
    """jitcdde's cost at each of rcpstab's errors (log-log interpolation inside jitcdde's range) over rcpstab's."""
    jit = sorted((e, costs[tol]) for tol, e in errors["jitcdde"].items() if np.isfinite(e) and e > 0)
    out = {}
    for k, err in errors["ours"].items():
        ratio = None
        if len(jit) >= 2 and jit[0][0] <= err <= jit[-1][0]:
            le, lc = np.log([e for e, _ in jit]), np.log([c for _, c in jit])
            ratio = float(np.exp(np.interp(np.log(err), le, lc))) / costs[k]
        out[f"d0/{k}"] = ratio
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 RTTs, one repeat, fewer steps and tolerances")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--horizon", type=float, default=HORIZON, help="RTTs")
    args = parser.parse_args()
    horizon, repeats = (20.0, 1) if args.quick else (args.horizon, args.repeats)
    steps, tolerances = ((5, 10, 20), (1e-6, 1e-8, 1e-10)) if args.quick else (STEPS, TOLERANCES)
    dde = compiled_jitcdde()
    load_start = os.getloadavg()
    checked = accuracy(horizon, CLASSES, steps, tolerances, dde)
    costs = timings(checked, horizon, repeats, dde)
    verdicts = rcp_verdicts()
    load = os.getloadavg()
    report = {"horizon_rtt": horizon, "repeats": repeats, "load_average_start": load_start, "load_average": load, "classes": {}}
    for name, row in checked.items():
        jit = {tol: costs[(name, "jitcdde", tol)] for tol in row["jitcdde"]}
        print(
            f"\n{name}: (alpha, beta) = ({row['alpha']}, {row['beta']}); rcp's verdicts there {verdicts[name]}; "
            f"reference's own error {row['reference_error']:.1e}"
        )
        entry = {
            "alpha": row["alpha"],
            "beta": row["beta"],
            "rcp_verdicts": verdicts[name],
            "reference_error": row["reference_error"],
            "jitcdde": {f"{tol:g}": {"error": row["jitcdde"][tol], "s_per_trajectory": jit[tol]} for tol in row["jitcdde"]},
        }
        for copies in (1, SWEEP_COPIES):
            mine = {k: costs[(name, f"ours x{copies}", k)] for k in row["ours"]}
            ratios = equal_error({"ours": row["ours"], "jitcdde": row["jitcdde"]}, {**mine, **jit})
            print(f"  rcpstab, batch of {copies * 6}:")
            for k in row["ours"]:
                ratio = ratios[f"d0/{k}"]
                print(
                    f"    d0/{k:<3d} error {row['ours'][k]:.2e}  {mine[k] * 1e3:8.4f} ms/trajectory  "
                    f"jitcdde at equal error: {f'{ratio:.0f}x' if ratio else 'outside its range'}"
                )
            entry[f"rcpstab_batch_{copies * 6}"] = {
                f"d0/{k}": {
                    "error": row["ours"][k],
                    "s_per_trajectory": mine[k],
                    "jitcdde_cost_ratio_at_equal_error": ratios[f"d0/{k}"],
                }
                for k in row["ours"]
            }
        print("  jitcdde, one by one:")
        for tol in row["jitcdde"]:
            print(f"    {tol:<7g} error {row['jitcdde'][tol]:.2e}  {jit[tol] * 1e3:8.3f} ms/trajectory")
        report["classes"][name] = entry
    print(
        f"\nload average {load_start[0]:.2f} at the start, {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end; "
        "compile times excluded (both codes cached)"
    )
    print(json.dumps(_strict(report), allow_nan=False))


def _strict(value):
    """``value`` with every non-finite float (a failed jitcdde run's error) as None: strict JSON."""
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    return None if isinstance(value, float) and not np.isfinite(value) else value


if __name__ == "__main__":
    main()
