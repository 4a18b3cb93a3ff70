"""Flow completion times of RCP against processor sharing at thesis Fig. 4.1's full network,
and the flow simulator's speed.

Network: C = 2.4 Gb/s, RTPD = 0.1 s, 1 BDP buffer, Poisson arrivals of Pareto flows (mean 25
packets of 1000 bytes, shape 1.2); rho in {0.5, 0.9}; gains (0.1, 1.0) (thesis Ch. 4) and
(0.5, 0.4) (inside the recommended box); seeds 11, 12, 13 (none of them looked at while the
test's factor was chosen). Per run: AFCT/PS for every size bin, PS both eq. 4.1 at the
nominal rho and an exact PS queue fed the same arrivals; the load the run drew; utilization,
loss; the mean number of flows against Little's law; flows per wall second.

Speed: finished flows per wall-clock second of the C simulator (control path in Python
included), and of its Python twin on a smaller run of the same set-up (the twins must agree).

Usage: python experiments/fct.py [--flows N] [--seeds 11 12 13] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from rcpstab.fct import fct_study
from rcpstab.fct.flow_run import run_flows
from rcpstab.packet.hosts.flow_traffic import parse_sizes

NETWORK = dict(capacity_bps=2.4e9, rtt_s=0.1, buffer_bdp=1.0)
SIZES = "pareto:mean=25,shape=1.2"
GAINS = ((0.1, 1.0), (0.5, 0.4))
LOADS = (0.5, 0.9)
SHORT_PKTS = 255
MIN_BIN_FLOWS = 20
TWIN_FLOWS = 2000


def one(alpha, beta, load, seed, flows) -> dict:
    t0 = time.perf_counter()
    r = fct_study(alpha, beta, load=load, sizes=parse_sizes(SIZES), n_flows=flows, seed=seed, **NETWORK)
    wall = time.perf_counter() - t0
    short = [b for b in r.bins if b.size_hi_pkts <= SHORT_PKTS and b.flows >= MIN_BIN_FLOWS]
    run = r.runs[0]
    return {
        "alpha": alpha,
        "beta": beta,
        "load": load,
        "seed": seed,
        "flows": r.flows,
        "flows_completed": r.flows_completed,
        "measured_load": r.measured_load,
        "utilization": r.utilization,
        "loss_probability": r.loss_probability,
        "mean_queue_bdp": run.mean_queue_bytes * 8 / (NETWORK["capacity_bps"] * NETWORK["rtt_s"]),
        "mean_R_over_C": run.mean_R_over_C,
        "mean_active": r.mean_active,
        "mean_active_stderr": r.mean_active_stderr,
        "little_mean_active": r.little_mean_active,
        "ps_mean_active": r.ps_mean_active,
        "short_max_afct_over_ps": max(b.afct_over_ps_eq41 for b in short),
        "short_max_afct_over_ps_same_arrivals": max(b.afct_over_ps_same_arrivals for b in short),
        "short_min_afct_over_ps_same_arrivals": min(b.afct_over_ps_same_arrivals for b in short),
        "bins": [
            {
                "size_lo_pkts": b.size_lo_pkts,
                "size_hi_pkts": b.size_hi_pkts,
                "flows": b.flows,
                "afct_over_ps_eq41": round(b.afct_over_ps_eq41, 4),
                "afct_over_ps_same_arrivals": round(b.afct_over_ps_same_arrivals, 4),
                "max_fct_over_ps": round(b.max_fct_s / b.ps_afct_s, 4),
            }
            for b in r.bins
        ],
        "events": run.counters["events"],
        "wall_s": wall,
        "sim_wall_s": run.wall_time_s,
        "flows_per_wall_s": r.flows_completed / run.wall_time_s,
    }


def twin_speed(seed: int = 11) -> dict:
    kw = dict(load=0.9, sizes=parse_sizes(SIZES), n_flows=TWIN_FLOWS, seed=seed, **NETWORK)
    c = run_flows(0.1, 1.0, backend="c", **kw)
    py = run_flows(0.1, 1.0, backend="python", **kw)
    assert np.array_equal(c.records, py.records) and c.counters == py.counters, "twins disagree"
    return {
        "flows": TWIN_FLOWS,
        "events": c.counters["events"],
        "c_flows_per_wall_s": c.flows_per_wall_s,
        "py_flows_per_wall_s": py.flows_per_wall_s,
        "ratio": py.wall_time_s / c.wall_time_s,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, default=100_000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[11, 12, 13])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    runs = []
    for alpha, beta in GAINS:
        for load in LOADS:
            for seed in args.seeds:
                row = one(alpha, beta, load, seed, args.flows)
                runs.append(row)
                if not args.json:
                    print(
                        f"({alpha}, {beta}) rho={load} seed={seed}: drawn {row['measured_load']:.3f}, short-flow AFCT/PS "
                        f"{row['short_min_afct_over_ps_same_arrivals']:.3f}-{row['short_max_afct_over_ps_same_arrivals']:.3f} "
                        f"(same arrivals), max {row['short_max_afct_over_ps']:.3f} vs eq. 4.1; util "
                        f"{row['utilization']:.3f}, loss {row['loss_probability']:.1e}, queue {row['mean_queue_bdp']:.3f} BDP, "
                        f"N {row['mean_active']:.0f}+-{row['mean_active_stderr']:.0f} vs Little {row['little_mean_active']:.0f}; "
                        f"{row['flows_per_wall_s']:.0f} flows/s",
                        flush=True,
                    )
    twin = twin_speed()
    out = {"network": dict(NETWORK, sizes=SIZES), "runs": runs, "twin": twin}
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"twin: C {twin['c_flows_per_wall_s']:.0f} flows/s, Python {twin['py_flows_per_wall_s']:.0f} flows/s, "
            f"ratio {twin['ratio']:.1f} ({twin['flows']} flows, identical records)"
        )


if __name__ == "__main__":
    main()
