"""The optimal-rate U curve (issue 24, item 4): thesis App. A's Fig. A.3 set-up and the M/Pareto
report's Figs. 3-6, by App. A's model and an exact packet FCFS queue at fixed rates.

Fig. A.3 (its caption, and Fig. 3.7 of the same set-up for the packet size): C = 150 Mb/s,
lambda = 600 flows/s, bounded Pareto of mean 25 packets of 1000 bytes, shape 1.2, so
rho = 0.8; the thesis gives neither M nor m (m follows from the mean): M = 1e3 and 1e4 packets;
50 000 flows, seeds 1-5, the same flows at every rate (paired). Report: C = 100 Mb/s, Pareto
shape 1.1, mean 10 packets of 1000 bytes bounded at M = 1e5 (its sizes were bounded only by its
run), 20 000 flows of interest at R, 30 000 background flows at 0.02 C per link, seeds 1-5.
Figs. 3/4: one link, rho_B = 0.4972 / 0.1657. Figs. 5/6: two links in tandem, the bottleneck
(rho_B = 0.4972 at 0.02 C) second / first, the other link rho_B = 0.1471 at 0.2 C; the flows of
interest cross both, their duration is from the first packet's sending to the last packet's
departure from the second link (propagation left out: a constant). rho_I = 0.0672 or 0.3358.

Per curve: the optimum of the seed-mean curve and of each seed, the rates within 10% of the
minimum, and paired 95% t intervals of duration(R) / duration(optimum) at the report's and
App. A's optima and a factor 2 either side.

Usage: python experiments/fct_ucurve.py [--out FILE.json] [--seeds 1,2,3,4,5]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from rcpstab.fct.ucurve import BoundedPareto, app_a_duration, durations_at_rates, fcfs_trace
from rcpstab.intervals import t_half_width

FRACS = np.array([0.01, 0.02, 0.05, 0.07, 0.1, 0.15, 0.2, 0.25, 1 / 3, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0, 1.5, 2.0])
P = 8000.0


def paired(sims: np.ndarray, i: int, j: int) -> list[float]:
    """Mean and 95% half-width over seeds of duration(R_i) / duration(R_j)."""
    r = sims[:, i] / sims[:, j]
    return [float(r.mean()), float(t_half_width(r))]


def summarise(name: str, sims: np.ndarray, model: np.ndarray | None = None, claims: dict[str, float] | None = None) -> dict:
    mean = sims.mean(axis=0)
    best = int(np.argmin(mean))
    row: dict = {
        "name": name,
        "R_over_C": FRACS.tolist(),
        "sim_ms": (mean * 1e3).tolist(),
        "sim_ci95_ms": (t_half_width(sims.T) * 1e3).tolist(),
        "sim_ms_per_seed": (sims * 1e3).tolist(),
        "sim_opt": float(FRACS[best]),
        "sim_opt_per_seed": [float(FRACS[np.argmin(s)]) for s in sims],
        "sim_within10": [float(FRACS[mean <= 1.1 * mean.min()].min()), float(FRACS[mean <= 1.1 * mean.min()].max())],
        "cost_vs_opt": {},
    }
    for label, f in {"half": FRACS[best] / 2, "double": min(2 * FRACS[best], FRACS[-1]), **(claims or {})}.items():
        k = int(np.argmin(abs(FRACS - f)))
        row["cost_vs_opt"][f"{label} ({FRACS[k]:.3g} C)"] = paired(sims, k, best)
    if model is not None:
        row.update(model_ms=(model * 1e3).tolist(), model_opt=float(FRACS[np.argmin(model)]))
        row["cost_vs_opt"][f"App. A's optimum ({row['model_opt']:.3g} C)"] = paired(sims, int(np.argmin(model)), best)
    print(
        f"{name}: sim optimum {row['sim_opt']:.3g} C (per seed {[round(x, 3) for x in row['sim_opt_per_seed']]}), "
        f"{mean[best] * 1e3:.2f}+-{row['sim_ci95_ms'][best]:.2f} ms, within 10% {row['sim_within10']}"
        + (f"; App. A optimum {row['model_opt']:.3g} C ({model.min() * 1e3:.2f} ms)" if model is not None else "")
        + "; cost vs optimum "
        + ", ".join(f"{k}: {v[0]:.3f}+-{v[1]:.3f}" for k, v in row["cost_vs_opt"].items()),
        flush=True,
    )
    return row


def background(rng: np.random.Generator, d: BoundedPareto, C: float, load: float, span: float) -> tuple[np.ndarray, np.ndarray]:
    """The report's 30 000 background flows: Poisson over ``span`` at the rate their drawn sizes offer ``load``."""
    pool = d.sample(rng, 30000)
    lam = load * C / (pool.mean() * P)
    start = np.cumsum(rng.exponential(1.0 / lam, 4 * 30000 + 100))
    start = start[start <= span]
    return start, pool[np.arange(len(start)) % len(pool)]


def tandem(d: BoundedPareto, C: float, rho_i: float, links: list[tuple[float, float]], seed: int) -> np.ndarray:
    """Mean duration of the flows of interest over links in series, each with its own background (load, rate/C)."""
    rng = np.random.default_rng(seed)
    size = d.sample(rng, 20000)
    lam = rho_i * C / (size.mean() * P)
    start = np.cumsum(rng.exponential(1.0 / lam, len(size)))
    bgs = [background(rng, d, C, load, start[-1]) + (frac * C,) for load, frac in links]
    out = []
    for f in FRACS:
        # packets of interest: paced at R into the first link; then as they leave each link
        t = np.repeat(start, size) + (np.arange(size.sum()) - np.repeat(np.cumsum(size) - size, size)) * P / (f * C)
        for bstart, bsize, brate in bgs:
            n_pk = len(t)
            tr = fcfs_trace(
                np.concatenate([t, bstart]),
                np.concatenate([np.ones(n_pk, np.int64), bsize]),
                np.concatenate([np.full(n_pk, f * C), np.full(len(bsize), brate)]),
                C,
                P,
            )
            t = t + tr.wait[:n_pk] + P / C  # one-packet "flows": wait is per packet
        last = np.cumsum(size) - 1
        out.append(float(np.mean(t[last] - start)))
    return np.array(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--seeds", default="1,2,3,4,5")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = []
    C = 150e6
    for M in (1e3, 1e4):
        d = BoundedPareto.with_mean(25.0, 1.2, M)
        sims = np.array([durations_at_rates(FRACS * C, capacity_bps=C, dist=d, n_flows=50000, load=0.8, seed=s) for s in seeds])
        model = np.asarray(app_a_duration(FRACS * C, C, 600.0 * 25.0 / d.moment(1), d))
        rows.append(summarise(f"figA3 M={M:g}", sims, model))
    C = 100e6
    d = BoundedPareto.with_mean(10.0, 1.1, 1e5)
    report_opt = {0.4972: 0.2, 0.1657: 0.5}  # Figs. 3 / 4, rho_I = 0.3358: "around 0.2" / "around 0.5"
    for rho_b in (0.4972, 0.1657):
        for rho_i in (0.0672, 0.3358):
            sims = np.array(
                [
                    durations_at_rates(
                        FRACS * C,
                        capacity_bps=C,
                        dist=d,
                        n_flows=20000,
                        load=rho_i,
                        seed=s,
                        background=(d, 30000, rho_b, 0.02 * C),
                    )
                    for s in seeds
                ]
            )
            claims = {"report": report_opt[rho_b], "flat 0.1": 0.1} if rho_i == 0.3358 else None
            rows.append(summarise(f"report fig{3 if rho_b > 0.3 else 4} rho_B={rho_b} rho_I={rho_i}", sims, claims=claims))
    for fig, links in ((5, [(0.1471, 0.2), (0.4972, 0.02)]), (6, [(0.4972, 0.02), (0.1471, 0.2)])):
        for rho_i in (0.0672, 0.3358):
            sims = np.array([tandem(d, C, rho_i, links, s) for s in seeds])
            rows.append(summarise(f"report fig{fig} rho_I={rho_i}", sims, claims={"report": 0.2} if rho_i == 0.3358 else None))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
