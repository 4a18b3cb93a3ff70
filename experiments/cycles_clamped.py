"""Issue 29: periodic orbits of the clamped RCP models, criticality map, bistability band (run by hand).

``python experiments/cycles_clamped.py [--out rcpstab/bifurcation/data/cycles_clamped.json]``

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
from rcpstab.bifurcation.kernel_orbits import (
    RCP_CLAMPED,
    KernelOrbitSystem,
    continue_kernel_orbits,
    orbit_from_simulation,
    solve_kernel_orbit,
)
from rcpstab.bifurcation.measure import measure_cycles
from rcpstab.bifurcation.periodic import PeriodicSystem, continue_from_hopf
from rcpstab.bifurcation.smooth import RCP_UNCLAMPED
from rcpstab.phaseplane.setup import make_integrator

BETAS_L1 = np.round(np.concatenate([np.arange(0.02, 0.3, 0.02), np.arange(0.3, 0.61, 0.05)]), 3)
BETAS_BRANCH = (0.05, 0.1, 0.2, 0.3, 0.5)
SWITCHED_BETAS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
SWITCHED_START = {0.05: 1.58, 0.1: 1.56, 0.2: 1.5, 0.3: 1.44, 0.4: 1.38, 0.5: 1.3, 0.6: 1.25}
START_ALPHA = {0.05: 1.85, 0.1: 1.8, 0.2: 1.75, 0.3: 1.7, 0.5: 1.5}


def simulate_cycle(model, alpha, beta, rtts=800.0, gamma0=0.5, kick=None, measured=0.25):
    """Amplitude, period and envelope growth over the last quarter of long runs (default step).

    ``alpha`` and ``kick`` may be arrays (one trajectory each). With ``kick`` the run starts at the
    equilibrium with its rate (and rate history) moved by ``kick`` (relative), else at ``gamma0``.
    """
    alpha = np.atleast_1d(np.asarray(alpha, dtype=float))
    B = alpha.size if kick is None else np.broadcast(alpha, np.atleast_1d(kick)).size
    alpha = np.broadcast_to(alpha, (B,)).copy()
    integ = make_integrator(model, {"alpha": alpha, "beta": beta}, {"gamma0": np.full(B, gamma0)})
    if kick is not None:
        eq = 0.1 * 0.15e9  # C/N at the defaults
        k = np.broadcast_to(np.asarray(kick, dtype=float), (B,))
        integ._x[:, 0] = eq * (1 + k)
        integ._x[:, 1] = 0.0
        integ._ring_values[:, 0, :] = (eq * (1 + k))[:, None]
        integ._ring_values[:, 1, :] = 0.0
    d0 = 0.2
    n = int(round(rtts * d0 / integ.dt))
    every = max(1, int(round(0.01 * d0 / integ.dt)))
    rec = integ.run(n, record_every=every)
    g = rec[:, :, 0] / 0.15e9
    t = np.arange(1, g.shape[0] + 1) * every * integ.dt / d0
    m = measure_cycles(t, g, 0 * g, (1 - measured) * rtts)
    return m.amplitude, m.period_rtt, m.growth_rtt


def kernel_escape(system, orbit, eps=1e-3, periods=8):
    """Start the kernel on the orbit scaled about the equilibrium by 1 +- eps.

    Returns the median per-period ratio of successive |amplitude - orbit amplitude| (the
    amplitude measured over each period): the largest multiplier if the orbit's unstable
    direction is its amplitude.
    """
    eqv = []
    for i in system.loop:
        e = float(system.compiled.equilibrium[i](*[0.0] * system.compiled.n_states, *_params(system, orbit.gain)))
        eqv.append(np.concatenate([[e], np.full(system.L, e), np.zeros(system.L)]) / system.scale[i])
    eq = np.concatenate(eqv)
    out = {}
    for sign in (+1, -1):
        z = (eq + (1 + sign * eps) * (orbit.z - eq))[:, None]
        gaps = []
        for _ in range(periods):
            z, gamma = system.run(z, orbit.period, np.array([orbit.gain]), record=True)
            gaps.append(abs(0.5 * np.ptp(gamma) - orbit.amplitude))
        ratios = np.array(gaps[1:]) / np.array(gaps[:-1])
        out["out" if sign > 0 else "in"] = float(np.median(ratios[2:]))
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


def switched_onsets(betas, alphas_start):
    """The switched system's (eq. 5.14) critical gain per beta: a kernel orbit with the gain left free.

    Eq. 5.14 is positively homogeneous (the clamp max(0, .) and the linear right-hand sides), so
    its periodic orbits come as rays: at one gain every multiple of the orbit about the
    equilibrium is an orbit. The start is a run just past the onset (its shape is the ray's);
    the check: the orbit scaled by 2 is again a fixed point, and two multipliers are 1.
    """
    from rcpstab.bifurcation.kernel_orbits import _state_from
    from rcpstab.models import get_model

    sw = get_model("switched")
    out = []
    for beta, alpha in zip(betas, alphas_start):
        integ = make_integrator(sw, {"alpha": alpha, "beta": beta}, {"gamma0": 0.11})
        n = int(round(300 * 0.2 / integ.dt))
        g = integ.run(n, record_every=1)[:, :, 0] / 1.5e9
        m = measure_cycles(np.arange(1, n + 1) * integ.dt / 0.2, g, 0 * g, 200)
        period = float(m.period_rtt[0])
        system = KernelOrbitSystem(sw, "alpha", period=period, beta=beta)
        dt = period * 0.2 / system.N
        integ = make_integrator(sw, {"alpha": alpha, "beta": beta}, {"gamma0": 0.11}, dt=dt)
        integ.run(int(round(300 * 0.2 / dt)))
        o = solve_kernel_orbit(system, _state_from(system, integ, dt), period, alpha, free_gain=True)
        if o is None:
            print(f"switched beta={beta}: Newton failed from alpha={alpha} (period {period:.3f})")
            continue
        eq = np.concatenate([np.concatenate([[1.0], np.ones(system.L), np.zeros(system.L)]), np.zeros(1 + 2 * system.L)])
        res = [
            float(np.abs(system.run(zz[:, None], o.period, np.array([o.gain]))[:, 0] - zz).max() / np.abs(zz - eq).max())
            for zz in (o.z, eq + 2 * (o.z - eq))
        ]
        out.append(
            {
                "beta": beta,
                "alpha_c": o.gain,
                "period": o.period,
                "multipliers_abs": [float(x) for x in np.abs(o.multipliers[:3])],
                "relative_defect": res[0],
                "relative_defect_scaled_2x": res[1],
            }
        )
        print(
            f"switched beta={beta}: alpha_c={o.gain:.5f} period {o.period:.4f} |mu| {np.abs(o.multipliers[:3])} "
            f"defect {res[0]:.1e}, scaled x2 {res[1]:.1e}"
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="rcpstab/bifurcation/data/cycles_clamped.json")
    ap.add_argument("--switched-only", action="store_true", help="add the switched onsets to an existing file")
    args = ap.parse_args()
    t0 = time.perf_counter()
    if args.switched_only:
        with open(args.out) as f:
            result = json.load(f)
        result["switched"] = switched_onsets(SWITCHED_BETAS, [SWITCHED_START[b] for b in SWITCHED_BETAS])
        with open(args.out, "w") as f:
            json.dump(_strict(result), f, allow_nan=False, indent=1)
        return
    result = {}

    # 1. criticality along the whole boundary of the smooth model
    pts = boundary_criticality(RCP_UNCLAMPED, BETAS_L1)
    result["criticality"] = [{"beta": p.values["beta"], "alpha": p.critical, "l1": p.l1, "omega_rtt": p.omega_rtt} for p in pts]
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
        z = np.concatenate(
            [
                np.concatenate([[v[-1]], v[:-1], d[:-1]])
                for v, d in ((vals[i] * ps.scale[i] / ks.scale[i], sl[i] * ps.scale[i] / ks.scale[i] / p.period) for i in ks.loop)
            ]
        )
        o = solve_kernel_orbit(ks, z, p.period, p.gain)
        esc = kernel_escape(ks, o)
        checks.append(
            {
                "alpha": p.gain,
                "collocation": {"amplitude": p.amplitude, "period": p.period, "max_multiplier": p.max_multiplier},
                "kernel": {"amplitude": o.amplitude, "period": o.period, "max_multiplier": o.max_multiplier},
                "escape_per_period": esc,
            }
        )
        print(
            f"smooth a={p.gain:.4f}: amp {p.amplitude:.6f}/{o.amplitude:.6f} period {p.period:.5f}/{o.period:.5f} "
            f"mult {p.max_multiplier:.4f}/{o.max_multiplier:.4f} escape {esc}"
        )
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
        # simulations (independent starts: the equilibrium with its rate kicked by 0.5 and 1.5 times the
        # orbit's amplitude; a 20x finer step), 4000 RTTs: near the onset the approach takes ~1000s of RTTs
        sims = []
        chosen = stable[1::2]
        if chosen:
            gains = np.repeat([p.gain for p in chosen], 2)
            kicks = np.array([f * p.amplitude / 0.1 for p in chosen for f in (0.5, 1.5)])
            amp, per, growth = simulate_cycle(RCP_CLAMPED, gains, beta, rtts=4000, kick=kicks, measured=0.05)
            from rcpstab.models import get_model

            sampled, sampled_period, _ = simulate_cycle(get_model("rcp"), gains[1::2], beta, rtts=1500, kick=kicks[1::2])
            for j, p in enumerate(chosen):
                sims.append(
                    {
                        "alpha": p.gain,
                        "kernel_amplitude": p.amplitude,
                        "kernel_period": p.period,
                        "max_multiplier": p.max_multiplier,
                        "sim_amplitude_start_small": amp[2 * j],
                        "sim_amplitude_start_large": amp[2 * j + 1],
                        "sim_period": per[2 * j + 1],
                        "sim_growth_rtt": [growth[2 * j], growth[2 * j + 1]],
                        "rcp_sampled_amplitude": sampled[j],
                        "rcp_sampled_period": sampled_period[j],
                    }
                )
        onset = down.points[-1]
        branches[str(beta)] = {
            "points": [
                {
                    "alpha": p.gain,
                    "amplitude": p.amplitude,
                    "period": p.period,
                    "stable": p.stable,
                    "max_multiplier": p.max_multiplier,
                }
                for p in pts
            ],
            "folds": down.folds + up.folds,
            "stop_down": down.stop,
            "stop_up": up.stop,
            "last_alpha": onset.gain,
            "last_amplitude": onset.amplitude,
            "simulation": sims,
        }
        settled = [s for s in sims if s["max_multiplier"] < 0.95]  # e-folding < ~80 RTTs: settled in 1500
        worst = max(
            (
                abs(x / s["kernel_amplitude"] - 1)
                for s in settled
                for x in (s["sim_amplitude_start_small"], s["sim_amplitude_start_large"])
            ),
            default=math.nan,
        )
        slow = [s for s in sims if s["max_multiplier"] >= 0.95]
        worst_slow = max(
            (
                abs(x / s["kernel_amplitude"] - 1)
                for s in slow
                for x in (s["sim_amplitude_start_small"], s["sim_amplitude_start_large"])
            ),
            default=math.nan,
        )
        print(
            f"beta={beta}: {len(pts)} orbits, alpha {min(p.gain for p in pts):.4f}..{max(p.gain for p in pts):.4f}, "
            f"folds {len(down.folds + up.folds)}, unstable {sum(not p.stable for p in pts)}, "
            f"sims vs orbits: worst amplitude rel. diff {worst:.2e} ({len(settled)} points with multiplier < 0.95), "
            f"{worst_slow:.2e} ({len(slow)} slower ones) ({time.perf_counter() - t1:.0f} s)"
        )
    result["clamped"] = branches

    # 4. both sides just inside the onset: small kick and large start, clamped and sampled rcp
    from rcpstab.models import get_model

    probes = []
    for beta, b in branches.items():
        alpha = round(b["last_alpha"] - 0.01, 4)
        row = {"beta": float(beta), "alpha": alpha}
        for name, spec in (("rcp-clamped", RCP_CLAMPED), ("rcp", get_model("rcp"))):
            small = simulate_cycle(spec, alpha, float(beta), rtts=1500, kick=1e-3)[0][0]
            large = simulate_cycle(spec, alpha, float(beta), rtts=1500, gamma0=1.0)[0][0]
            row[name] = {"small_amplitude": float(small), "large_amplitude": float(large)}
        probes.append(row)
        print(f"probe beta={beta} alpha={alpha}: {row}")
    result["probes"] = probes
    result["switched"] = switched_onsets(SWITCHED_BETAS, [SWITCHED_START[b] for b in SWITCHED_BETAS])
    result["seconds"] = time.perf_counter() - t0
    with open(args.out, "w") as f:
        json.dump(_strict(result), f, allow_nan=False, indent=1)
    print(f"wrote {args.out} ({result['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
