"""Issue 24, Figs. 4.22-4.24: why RCP's flows across every link of the chain degrade with the
number of hops: the bound's shape (flow-level max-min and proportional fairness on the same
arrivals, rcpstab.fct.fair_share) against RCP's cost (packet simulator), and RCP's cost against
the routers' queues on the flows' path.

Set-up of experiments/fct_multilink.py: n = 1, 2, 4, 8 links of 50 Mb/s, group 0's RTPD 0.1 s,
load 0.9 on every link, Pareto sizes (shape 1.2, mean 25 packets), RCP (0.1, 1.0), seeds 1-3.
2000 flows per group by default: the settled run (routers at 11-21 packets). With 400 flows per
group the window is spent in the routers' descent from R = C (40-75 packets a router): the
start-up run, stored as fct_multilink_hops_startup400.{txt,csv} (--flows 400).

For group 0 (every link) and the cross groups (one link), short flows (< 500 packets): AFCT over
eq. 4.1's PS at the link's load (the published ratio) for RCP, max-min (``maxmin``) and
proportional fairness (``pf``) (each 1.5 RTPD + its sojourn); RCP's extra over max-min, ms; the
queueing delay the flow's SYN (at its arrival) and data (one RTPD later) meet on its path, summed
over the routers' queues (``queues``), ms; their difference, the part of the extra not in the
queues (``rate_lag``: the flows' rates lagging the max-min share), ms, and its ratio to the
queues (geometric mean over seeds, interval by Student t on the logs); flow by flow, the slope and
correlation of RCP's extra against that queueing delay. Each is the mean over seeds with its 95%
Student-t half-width (rcpstab.intervals; t(0.975, 2) = 4.30 for 3 seeds). Also the growth from
the shortest to the longest chain (per seed, paired by seed number).

Writes --out (CSV: one row per chain length and group, ``<quantity>_mean`` and ``<quantity>_ci95``)
and prints the per-seed values. Stored: fct_multilink_hops_2000.{txt,csv} (seeds 1-3) and
fct_multilink_hops_2000_seeds1-8.{txt,csv} (--seeds 1,2,3,4,5,6,7,8 --out ..., notebook 07's source;
about 30 s of CPU a seed).

Usage: python experiments/fct_multilink_hops.py [--links 1,2,4,8] [--seeds 1,2,3] [--flows 2000] [--out CSV]
"""

from __future__ import annotations

import argparse
import csv

import numpy as np

from rcpstab.fct.fair_share import chain_fair_sojourn
from rcpstab.fct.multilink import chain_fct, path_queue_delay
from rcpstab.fct.ps import processor_sharing_fct
from rcpstab.intervals import mean_interval, t_half_width
from rcpstab.packet.hosts.flow_traffic import parse_sizes

C, RTT0, LOAD = 50e6, 0.1, 0.9
SIZES = parse_sizes("pareto:mean=25,shape=1.2")


def one(n: int, seed: int, flows: int) -> dict:
    r = chain_fct(
        "rcp", 0.1, 1.0, n_links=n, capacity_bps=C, rtt0_s=RTT0, load=LOAD, sizes=SIZES, n_flows=flows, seed=seed, queues=True
    )
    f, z, g, a, rtt = r["fct_s"], r["size_pkts"], r["group"], r["arrival_s"], r["rtt_s"]
    bits = z * 8000.0
    ps = processor_sharing_fct(bits, C, rtt, LOAD)
    ideal = {rule: 1.5 * rtt + chain_fair_sojourn(a, bits, g, n, C, rule) for rule in ("maxmin", "proportional")}
    path = [range(n) if k == 0 else [k - 1] for k in range(n + 1)]
    queues = np.array(
        [
            path_queue_delay(r["queue_trace"], path[k], [t], C)[0] + path_queue_delay(r["queue_trace"], path[k], [t + d], C)[0]
            for t, k, d in zip(a, g, rtt)
        ]
    )
    tq = r["queue_trace"]
    inside = (tq["t_s"] > 0.1 * a[-1]) & (tq["t_s"] <= a[-1])
    out = {"link_queue_pkts": float(tq["queue_bytes"][inside].mean() / 1000)}
    for name, sel in (("g0", (g == 0) & (z < 500)), ("cross", (g > 0) & (z < 500))):
        out[name] = {
            "rcp": f[sel].mean() / ps[sel].mean(),
            "maxmin": ideal["maxmin"][sel].mean() / ps[sel].mean(),
            "pf": ideal["proportional"][sel].mean() / ps[sel].mean(),
            "extra_ms": 1e3 * (f[sel] - ideal["maxmin"][sel]).mean(),
            "queues_ms": 1e3 * queues[sel].mean(),
            "rate_lag_ms": 1e3 * (f[sel] - ideal["maxmin"][sel] - queues[sel]).mean(),
            # flow by flow: the extra against the path's queues (slope, correlation)
            "slope": np.polyfit(queues[sel], (f - ideal["maxmin"])[sel], 1)[0],
            "corr": np.corrcoef(queues[sel], (f - ideal["maxmin"])[sel])[0, 1],
        }
    return out


KEYS = ("rcp", "maxmin", "pf", "extra_ms", "queues_ms", "rate_lag_ms", "slope", "corr")
COLUMNS = ("rcp_over_ps", "maxmin_over_ps", "pf_over_ps", "rcp_minus_maxmin_ms", "path_queues_ms", "rate_lag_ms")


def ci(values: list[float]) -> str:
    """Mean +- 95% Student-t half-width of per-seed values."""
    return f"{np.mean(values):.3g} +- {float(t_half_width(values)):.2g}"


def geo(values: list[float]) -> tuple[float, float, float]:
    """Geometric mean of positive per-seed ratios and its 95% interval (Student t on the logs): the
    seeds' spread is multiplicative (a seed that is low is low for every quantity)."""
    m, lo, hi = mean_interval(np.log(values))
    return float(np.exp(m)), float(np.exp(lo)), float(np.exp(hi))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--links", default="1,2,4,8")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--flows", type=int, default=2000)
    ap.add_argument("--out", default="experiments/results/fct_multilink_hops_2000.csv")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    links = [int(x) for x in args.links.split(",")]
    print(f"C {C / 1e6:g} Mb/s, RTPD {RTT0} s, load {LOAD}, {args.flows} flows a group, seeds {args.seeds}")
    print("mean +- 95% Student-t half-width over seeds; per-seed values in [ ]")
    runs = {n: [one(n, s, args.flows) for s in seeds] for n in links}
    with open(args.out, "w", newline="") as fh:
        w = csv.writer(fh)
        head = ["n_links", "group", "flows_per_group", "seeds"]
        for c in (*COLUMNS, "mean_router_queue_pkts"):
            head += [c + "_mean", c + "_ci95"]
        head += ["lag_over_queues_geomean", "lag_over_queues_lo95", "lag_over_queues_hi95"]
        w.writerow(head)
        for n in links:
            q = [r["link_queue_pkts"] for r in runs[n]]
            for name in ("g0", "cross"):
                v = {k: [r[name][k] for r in runs[n]] for k in KEYS}
                print(
                    f"n={n} {name:5s} short AFCT/PS: RCP {ci(v['rcp'])} max-min {ci(v['maxmin'])} PF {ci(v['pf'])} | "
                    f"RCP - max-min {ci(v['extra_ms'])} ms = path queues (SYN + data) {ci(v['queues_ms'])} ms + "
                    f"rate lag {ci(v['rate_lag_ms'])} ms; per flow: slope {ci(v['slope'])}, correlation {ci(v['corr'])}",
                    flush=True,
                )
                print(
                    f"      per seed: RCP {np.round(v['rcp'], 3).tolist()} extra {np.round(v['extra_ms'], 1).tolist()} queues {np.round(v['queues_ms'], 1).tolist()}"
                )
                lag = geo([lg / q for lg, q in zip(v["rate_lag_ms"], v["queues_ms"])])
                print(f"      rate lag / path queues: geometric mean {lag[0]:.2f}, 95% [{lag[1]:.2f}, {lag[2]:.2f}]")
                row = [n, name, args.flows, len(seeds)]
                for k in (*KEYS[:6],):
                    row += [f"{np.mean(v[k]):.4g}", f"{float(t_half_width(v[k])):.3g}"]
                w.writerow(row + [f"{np.mean(q):.4g}", f"{float(t_half_width(q)):.3g}"] + [f"{x:.3g}" for x in lag])
            print(f"n={n} mean router queue {ci(q)} packets {np.round(q, 1).tolist()}", flush=True)
    # the growth with hops, paired by seed number (group 0 draws its sizes from the same generator)
    lo, hi = links[0], links[-1]
    for name in ("g0", "cross"):
        for k in ("rcp", "extra_ms", "queues_ms", "rate_lag_ms"):
            d = [b[name][k] - a[name][k] for a, b in zip(runs[lo], runs[hi])]
            print(f"growth n={lo} -> {hi} {name:5s} {k:11s}: {ci(d)}  {np.round(d, 3).tolist()}")


if __name__ == "__main__":
    main()
