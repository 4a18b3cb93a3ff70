"""Issue 24, Figs. 4.22-4.24: why RCP's flows across every link of the chain degrade with the
number of hops: the bound's shape (flow-level max-min and proportional fairness on the same
arrivals, rcpstab.fct.fair_share) against RCP's cost (packet simulator), and RCP's cost against
the routers' queues on the flows' path.

Set-up of experiments/fct_multilink.py: n = 1, 2, 4, 8 links of 50 Mb/s, group 0's RTPD 0.1 s,
load 0.9 on every link, Pareto sizes (shape 1.2, mean 25 packets), 400 flows per group, seeds
1-3, RCP (0.1, 1.0). For group 0 (every link) and the cross groups (one link), short flows
(< 500 packets): AFCT over eq. 4.1's PS at the link's load (the published ratio) for RCP,
max-min (``maxmin``) and proportional fairness (``pf``) (each 1.5 RTPD + its sojourn); RCP's
extra over max-min, ms; and the queueing delay the flow's SYN (at its arrival) and data (one
RTPD later) meet on its path, summed over the routers' queues (``queues``), ms; flow by flow, the
slope and correlation of RCP's extra against that queueing delay. Means over seeds.

Writes experiments/results/fct_multilink_hops.csv (--out), one row per chain length and group.

Usage: python experiments/fct_multilink_hops.py [--links 1,2,4,8] [--seeds 1,2,3] [--flows 400] [--out CSV]
"""

from __future__ import annotations

import argparse
import csv

import numpy as np

from rcpstab.fct.fair_share import chain_fair_sojourn
from rcpstab.fct.multilink import chain_fct, path_queue_delay
from rcpstab.fct.ps import processor_sharing_fct
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
            # flow by flow: the extra against the path's queues (slope, correlation)
            "slope": np.polyfit(queues[sel], (f - ideal["maxmin"])[sel], 1)[0],
            "corr": np.corrcoef(queues[sel], (f - ideal["maxmin"])[sel])[0, 1],
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--links", default="1,2,4,8")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--flows", type=int, default=400)
    ap.add_argument("--out", default="experiments/results/fct_multilink_hops.csv")
    args = ap.parse_args()
    fh = open(args.out, "w", newline="")
    w = csv.writer(fh)
    w.writerow(
        [
            "n_links",
            "group",
            "flows_per_group",
            "seeds",
            "rcp_over_ps",
            "maxmin_over_ps",
            "pf_over_ps",
            "rcp_minus_maxmin_ms",
            "path_queues_ms",
            "mean_router_queue_pkts",
        ]
    )
    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"C {C / 1e6:g} Mb/s, RTPD {RTT0} s, load {LOAD}, {args.flows} flows a group, seeds {args.seeds}")
    for n in (int(x) for x in args.links.split(",")):
        runs = [one(n, s, args.flows) for s in seeds]
        for name in ("g0", "cross"):
            m = {k: np.mean([r[name][k] for r in runs]) for k in runs[0][name]}
            print(
                f"n={n} {name:5s} short AFCT/PS: RCP {m['rcp']:.3f} max-min {m['maxmin']:.3f} PF {m['pf']:.3f} | "
                f"RCP - max-min {m['extra_ms']:6.1f} ms, path queues (SYN + data) {m['queues_ms']:6.1f} ms; "
                f"per flow: slope {m['slope']:.2f}, correlation {m['corr']:.2f}",
                flush=True,
            )
            w.writerow(
                [n, name, args.flows, len(seeds)]
                + [f"{m[k]:.4g}" for k in ("rcp", "maxmin", "pf", "extra_ms", "queues_ms")]
                + [f"{np.mean([r['link_queue_pkts'] for r in runs]):.4g}"]
            )
        print(f"n={n} mean router queue {np.mean([r['link_queue_pkts'] for r in runs]):.1f} packets", flush=True)
    fh.close()


if __name__ == "__main__":
    main()
