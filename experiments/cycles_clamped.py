"""Issue 29: periodic orbits of the clamped RCP models, criticality map, bistability band (run by hand).

``python experiments/cycles_clamped.py [--out docs/notebooks/data/08_cycles.json]``

- l1 along the whole exact boundary of ``rcp-unclamped`` (both branches, beta 0.02..0.6);
- branches of periodic orbits of ``rcp-clamped`` (rcp with the update continuous in time: clamp,
  saturation kept) by shooting on the compiled kernel, from a simulated attractor down to zero
  amplitude, at several beta; folds (if any) give the bistability band;
- every stable stretch checked against simulation (amplitude, period) at points not used to
  start the branch;
- the smooth ``rcp-unclamped`` branch at beta = 0.1 by the kernel shooting and by collocation
  (:mod:`rcpstab.bifurcation.periodic`): two methods, and its unstable orbits checked by
  starting the kernel on them (they leave at the rate of the largest multiplier);
- bistability probed by simulation from small and large initial functions on both ``rcp``
  (sampled) and ``rcp-clamped`` just inside the onset.

Writes one JSON file the notebook (08) reads; prints a summary. ~10 minutes on the shared machine.
"""
from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

from rcpstab.bifurcation.criticality import boundary_criticality
from rcpstab.bifurcation.kernel_orbits import (RCP_CLAMPED, KernelOrbitSystem, continue_kernel_orbits,
                                                orbit_from_simulation, solve_kernel_orbit)
from rcpstab.bifurcation.measure import measure_cycles
from rcpstab.bifurcation.periodic import PeriodicSystem, continue_from_hopf
from rcpstab.bifurcation.smooth import RCP_UNCLAMPED
from rcpstab.phaseplane.setup import make_integrator

BETAS_L1 = np.round(np.concatenate([np.arange(0.02, 0.3, 0.02), np.arange(0.3, 0.61, 0.05)]), 3)
BETAS_BRANCH = (0.05, 0.1, 0.2, 0.3, 0.5)
START_ALPHA = {0.05: 1.85, 0.1: 1.8, 0.2: 1.75, 0.3: 1.7, 0.5: 1.5}


def simulate_cycle(model, alpha, beta, rtts=800.0, gamma0=0.5, kick=None):
    """Amplitude and period of the last quarter of a long run (default step)."""
    integ = make_integrator(model, {"alpha": alpha, "beta": beta}, {"gamma0": gamma0})
    if kick is not None:                        # start at the equilibrium, rate nudged by ``kick`` (relative)
        eq = 0.1 * 0.15e9
        integ._x[:, 0] = eq * (1 + kick)
        integ._ring_values[:, 0, :] = eq * (1 + kick)
    d0 = 0.2
    n = int(round(rtts * d0 / integ.dt))
    rec = integ.run(n, record_every=1)
    g = rec[:, :, 0] / 0.15e9
    t = np.arange(1, n + 1) * integ.dt / d0
    m = measure_cycles(t, g, 0 * g, 0.75 * rtts)
    return float(m.amplitude[0]), float(m.period_rtt[0]), float(m.growth_rtt[0])


def kernel_escape(system, orbit, eps=1e-3, periods=6):
    """Start the kernel on the orbit scaled about the equilibrium by 1 +- eps: per-period growth of the gap."""
    # equilibrium in scaled units: each state's equilibrium / scale (the queue's is 0)
    eqv = []
    for i in system.loop:
        e = float(system.compiled.equilibrium[i](*[0.0] * system.compiled.n_states, *_params(system, orbit.gain)))
        eqv.append(np.concatenate([[e], np.full(system.L, e), np.zeros(system.L)]) / system.scale[i])
    eq = np.concatenate(eqv)
    out = {}
    for sign in (+1, -1):
        z0 = eq + (1 + sign * eps) * (orbit.z - eq)
        z, gaps = z0[:, None], []
        ref = orbit.z[:, None]
        for _ in range(periods):
            z = system.run(z, orbit.period, np.array([orbit.gain]))
            gaps.append(float(np.linalg.norm(z - ref)))
        ratios = np.array(gaps[1:]) / np.array(gaps[:-1])
        out["out" if sign > 0 else "in"] = float(np.median(ratios[1:]))
    return out


def _strict(x):
    """NaN -> None (strict JSON), NumPy scalars -> floats."""
    if isinstance(x, dict):
        return {k: _strict(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_strict(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (float, np.floating, int, np.integer)) and not isinstance(x, bool):
        return float(x) if math.isfinite(float(x)) else None
    return x


def _params(system, gain):
    p = list(system.params)
    p[system.gain_index] = gain
    return p


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="docs/notebooks/data/08_cycles.json")
    args = ap.parse_args()
    t0 = time.perf_counter()
    result = {}

    # 1. criticality along the whole boundary of the smooth model
    pts = boundary_criticality(RCP_UNCLAMPED, BETAS_L1)
    result["criticality"] = [{"beta": p.values["beta"], "alpha": p.critical, "l1": p.l1,
                              "omega_rtt": p.omega_rtt} for p in pts]
    print(f"criticality: {len(pts)} Hopf points ({time.perf_counter() - t0:.0f} s)")

    # 2. the smooth branch at beta = 0.1 by two methods, its unstable orbits left by the kernel
    smooth = continue_from_hopf(RCP_UNCLAMPED, (1.5, 1.55), beta=0.1, steps=6, first_amplitude=0.05)
    from rcpstab.bifurcation.orbit_start import _orbit_at
    checks = []
    ps = PeriodicSystem(RCP_UNCLAMPED, "alpha", beta=0.1)
    for p in smooth.points[2::3]:
        ks = KernelOrbitSystem(RCP_UNCLAMPED, "alpha", period=p.period, beta=0.1)
        times = np.arange(-ks.L, 1) / ks.N
        vals, sl = _orbit_at(p.profile, times)
        z = np.concatenate([np.concatenate([[v[-1]], v[:-1], d[:-1]]) for v, d in
                            ((vals[i] * ps.scale[i] / ks.scale[i], sl[i] * ps.scale[i] / ks.scale[i] / p.period)
                             for i in ks.loop)])
        o = solve_kernel_orbit(ks, z, p.period, p.gain)
        esc = kernel_escape(ks, o)
        checks.append({"alpha": p.gain, "collocation": {"amplitude": p.amplitude, "period": p.period,
                                                        "max_multiplier": p.max_multiplier},
                       "kernel": {"amplitude": o.amplitude, "period": o.period, "max_multiplier": o.max_multiplier},
                       "escape_per_period": esc})
        print(f"smooth a={p.gain:.4f}: amp {p.amplitude:.6f}/{o.amplitude:.6f} period {p.period:.5f}/{o.period:.5f} "
              f"mult {p.max_multiplier:.4f}/{o.max_multiplier:.4f} escape {esc}")
    result["smooth_beta_0.1"] = {"branch": smooth.as_dict(), "two_methods": checks}

    # 3. clamped branches
    branches = {}
    for beta in BETAS_BRANCH:
        t1 = time.perf_counter()
        system, first = orbit_from_simulation(RCP_CLAMPED, START_ALPHA[beta], beta=beta, rtts=400)
        if first is None:
            print(f"beta={beta}: no cycle at alpha={START_ALPHA[beta]}")
            continue
        down = continue_kernel_orbits(system, first, -1, steps=30, step=0.03, max_step=0.15, min_amplitude=2e-4)
        up = continue_kernel_orbits(system, first, +1, steps=6, step=0.03, max_step=0.1, gain_range=(0, 2.2))
        pts = list(reversed(down.points)) + up.points[1:]
        stable = [p for p in pts if p.stable]
        # simulation on the stable stretch: points not used to start (every 3rd)
        sims = []
        for p in stable[1::3]:
            amp, per, growth = simulate_cycle(RCP_CLAMPED, p.gain, beta, rtts=1000)
            sims.append({"alpha": p.gain, "kernel_amplitude": p.amplitude, "sim_amplitude": amp,
                         "kernel_period": p.period, "sim_period": per, "sim_growth_rtt": growth})
        onset = down.points[-1]
        branches[str(beta)] = {
            "points": [{"alpha": p.gain, "amplitude": p.amplitude, "period": p.period, "stable": p.stable,
                        "max_multiplier": p.max_multiplier} for p in pts],
            "folds": down.folds + up.folds, "stop_down": down.stop, "stop_up": up.stop,
            "last_alpha": onset.gain, "last_amplitude": onset.amplitude, "simulation": sims}
        worst = max((abs(s["sim_amplitude"] / s["kernel_amplitude"] - 1) for s in sims), default=math.nan)
        print(f"beta={beta}: {len(pts)} orbits, alpha {min(p.gain for p in pts):.4f}..{max(p.gain for p in pts):.4f}, "
              f"folds {len(down.folds + up.folds)}, unstable {sum(not p.stable for p in pts)}, "
              f"worst sim amplitude rel. diff {worst:.2e} ({time.perf_counter() - t1:.0f} s)")
    result["clamped"] = branches

    # 4. both sides just inside the onset: small kick and large start, clamped and sampled rcp
    probes = []
    for beta, b in branches.items():
        alpha = round(b["last_alpha"] - 0.01, 4)
        row = {"beta": float(beta), "alpha": alpha}
        for name, model in (("rcp-clamped", RCP_CLAMPED), ("rcp", "rcp")):
            from rcpstab.models import get_model
            spec = model if not isinstance(model, str) else get_model(model)
            small = simulate_cycle(spec, alpha, float(beta), rtts=600, kick=1e-3)
            large = simulate_cycle(spec, alpha, float(beta), rtts=600, gamma0=1.0)
            row[name] = {"small_amplitude": small[0], "large_amplitude": large[0]}
        probes.append(row)
        print(f"probe beta={beta} alpha={alpha}: {row}")
    result["probes"] = probes
    result["seconds"] = time.perf_counter() - t0
    with open(args.out, "w") as f:
        json.dump(_strict(result), f, allow_nan=False, indent=1)
    print(f"wrote {args.out} ({result['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
