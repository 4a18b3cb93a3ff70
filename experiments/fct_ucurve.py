"""The optimal-rate U curve (issue 24, item 3): thesis App. A's Fig. A.3 set-up and the M/Pareto
report's Figs. 3-4, by App. A's model and an exact packet FCFS queue at fixed rates.

Scales (stated): Fig. A.3: C = 150 Mb/s, lambda = 600 flows/s (rho = 0.8), bounded Pareto mean 25
packets of 1000 bytes, shape 1.2, max M = 1e3 or 1e4 packets (the thesis does not give M),
20 000 flows, seeds 1-3. Report: C = 100 Mb/s, Pareto shape 1.1, mean 10 packets bounded at
M = 1e5 packets (the report's sizes were limited only by its run), 20 000 flows of interest
at rate R and background flows at 0.02 C, rho_B = 0.4972 or 0.1657, rho_I = 0.0672 or 0.3358,
seeds 1-3. Optimum and the range of rates within 10% of the minimum per curve.

Usage: python experiments/fct_ucurve.py [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from rcpstab.fct.ucurve import BoundedPareto, app_a_duration, durations_at_rates

FRACS = np.array([0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0])
SEEDS = (1, 2, 3)


def flat_range(fracs, tau, within=0.10):
    ok = fracs[tau <= (1 + within) * tau.min()]
    return float(ok.min()), float(ok.max())


def summarise(name, fracs, sims, model=None):
    sims = np.array(sims)
    mean = sims.mean(axis=0)
    half = 4.30 * sims.std(axis=0, ddof=1) / np.sqrt(len(sims))  # 95% t interval, 3 seeds
    row = {
        "name": name,
        "R_over_C": fracs.tolist(),
        "sim_ms": (mean * 1e3).tolist(),
        "sim_ci95_ms": (half * 1e3).tolist(),
        "sim_opt": float(fracs[np.argmin(mean)]),
        "sim_flat10": flat_range(fracs, mean),
        "sim_opt_per_seed": [float(fracs[np.argmin(s)]) for s in sims],
    }
    if model is not None:
        row.update(
            model_ms=(model * 1e3).tolist(), model_opt=float(fracs[np.argmin(model)]), model_flat10=flat_range(fracs, model)
        )
    print(name, {k: (np.round(v, 2).tolist() if isinstance(v, list) else v) for k, v in row.items() if k != "name"}, flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    args = ap.parse_args()
    rows = []
    C = 150e6
    for M in (1e3, 1e4):
        d = BoundedPareto.with_mean(25.0, 1.2, M)
        for load in (0.5, 0.8, 0.9):
            lam = load * C / (d.moment(1) * 8000)
            sims = [durations_at_rates(FRACS * C, capacity_bps=C, dist=d, n_flows=20000, load=load, seed=s) for s in SEEDS]
            rows.append(summarise(f"figA3 M={M:g} rho={load}", FRACS, sims, app_a_duration(FRACS * C, C, lam, d)))
    C = 100e6
    d = BoundedPareto.with_mean(10.0, 1.1, 1e5)
    for rho_b in (0.4972, 0.1657):
        for rho_i in (0.0672, 0.3358):
            sims = [
                durations_at_rates(
                    FRACS * C, capacity_bps=C, dist=d, n_flows=20000, load=rho_i, seed=s, background=(d, 30000, rho_b, 0.02 * C)
                )
                for s in SEEDS
            ]
            rows.append(summarise(f"report rho_B={rho_b} rho_I={rho_i}", FRACS, sims))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
