"""Thesis Ch. 4's comparisons at a reduced, stated scale (issue 24, item 4): RCP, RCP-AC and XCP
on the same arrivals, AFCT over PS fed the same arrivals, 95% t-intervals over 3 seeds.

Scale: Pareto sizes (shape 1.2), Poisson arrivals, 1000-byte packets, one-BDP buffer, 1500
flows per run, seeds 1-3; RCP and RCP-AC (0.1, 1.0) (thesis Ch. 4), XCP (0.4, 0.226).
  Fig. 4.10: C = 150 Mb/s, RTPD 0.1 s, E[L] = 25, loads 0.2-0.9.
  Fig. 4.13: RTPD 0.1 s, load 0.9, E[L] = 25, C = 10, 50, 150, 600 Mb/s.
  Fig. 4.14: C = 150 Mb/s, load 0.9, E[L] = 25, RTPD 0.025-1.0 s.
  Fig. 4.4 (reduced C): C = 150 Mb/s, RTPD 0.1 s, load 0.8, E[L] = 25, 250, 2500 packets.
TCP (--protocols tcp) is ns-3's NewReno (the bench extra), on the same arrivals.

Usage: python experiments/fct_protocols.py [--flows N] [--out FILE.json] [--only FIG]
"""

from __future__ import annotations

import argparse
import json

from rcpstab.fct.protocols import compare_protocols
from rcpstab.packet.hosts.flow_traffic import parse_sizes

GAINS = {"rcp": (0.1, 1.0), "rcpac": (0.1, 1.0), "xcp": (0.4, 0.226)}
SEEDS = (1, 2, 3)
FIGS = {
    "4.10": [dict(C=150e6, rtt=0.1, load=x, mean=25) for x in (0.2, 0.5, 0.8, 0.9)],
    "4.13": [dict(C=c, rtt=0.1, load=0.9, mean=25) for c in (10e6, 50e6, 150e6, 600e6)],
    "4.14": [dict(C=150e6, rtt=r, load=0.9, mean=25) for r in (0.025, 0.1, 0.4, 1.0)],
    "4.4": [dict(C=150e6, rtt=0.1, load=0.8, mean=m) for m in (25, 250, 2500)],
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--flows", type=int, default=1500)
    ap.add_argument("--out")
    ap.add_argument("--only")
    ap.add_argument("--protocols", default="rcp,rcpac,xcp", help="comma-separated; tcp needs ns-3")
    args = ap.parse_args()
    rows = []
    for fig, points in FIGS.items():
        if args.only and fig != args.only:
            continue
        for p in points:
            out = compare_protocols(
                args.protocols.split(","),
                GAINS,
                capacity_bps=p["C"],
                rtt_s=p["rtt"],
                load=p["load"],
                sizes=parse_sizes(f"pareto:mean={p['mean']},shape=1.2"),
                n_flows=args.flows,
                seeds=SEEDS,
            )
            rows.append({"fig": fig, **p, "protocols": out})
            cells = "  ".join(
                f"{k}: {v['small']['mean']:.2f}+-{v['small']['ci95']:.2f} / {(v['large']['mean'] or float('nan')):.2f}"
                for k, v in out.items()
            )
            print(f"Fig {fig} {p}: AFCT/PS <500 / >=500: {cells}", flush=True)
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
