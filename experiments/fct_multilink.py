"""Thesis Figs. 4.22-4.24 at a reduced, stated scale (issue 24): RCP, XCP (packet simulator) and
TCP NewReno (ns-3) on the multiple-bottleneck chain of rcpstab.fct.multilink, same arrivals.

n = 1, 2, 4, 8 cascaded links of C = 50 Mb/s [thesis 0.64 Gb/s], group 0's RTPD 0.1 s (the
caption's; its text says 0.2 s), offered load 0.9 on every link (group 0 and one cross group at
0.45 each), Pareto sizes (shape 1.2, E[L] = 25 packets), 1000-byte packets, one-BDP drop-tail
buffers, 400 flows per group and seed (--flows; TCP runs at 150), seeds 1-3. Reported for group 0 (the
flows crossing every link), short (< 500 packets) and long flows: AFCT over eq. 4.1's PS at the
link's load (1.5 RTPD + L / (C (1 - 0.9))), mean over seeds with a 95% t-interval; and the cross
groups' short flows likewise (their RTPD is 0.1 / n s). RCP (0.1, 1.0), XCP (0.4, 0.226).
TCP rows also count the drops a second way (``dropped_conservation``: each flow's packets sent
minus received, rcpstab.fct.tcp_ns3.flow_losses) and give, per seed, the fraction of short flows
of group 0 and of the cross groups that lost at least one data packet (``*_short_lossy``), the
same for group 0's long flows (``g0_long_lossy``), and the data packets lost per data packet sent
by group 0 and by the cross groups (``*_loss_rate``).

Usage: python experiments/fct_multilink.py [--out CSV] [--protocols rcp,xcp,tcp] [--links 1,2,4,8]
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os

import numpy as np

GAINS = {"rcp": (0.1, 1.0), "xcp": (0.4, 0.226), "tcp": (0.0, 0.0)}
C, RTT0, LOAD, FLOWS = 50e6, 0.1, 0.9, 400


def stats(values):
    from scipy.stats import t as student

    v = np.array([x for x in values if x is not None and math.isfinite(x)])
    if len(v) == 0:
        return None, None
    half = float(student.ppf(0.975, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else None
    return float(v.mean()), half


def chain_tcp_batch(n: int, seeds, flows: int, sizes) -> list[dict]:
    """chain_fct("tcp", ...) for every seed in one ns-3 worker."""
    from rcpstab.fct.multilink import chain_tcp_spec, chain_workload
    from rcpstab.fct.protocols import _default_drain_s
    from rcpstab.fct.tcp_ns3 import flow_fct, flow_losses, port_drops, tcp_runs

    loads = [chain_workload(n, C, LOAD, sizes, flows, seed) for seed in seeds]
    specs = [
        {**chain_tcp_spec(n, C, RTT0, s, z, g, _default_drain_s(z, RTT0, C, 1000)), "count_packets": True} for s, z, g in loads
    ]
    out = []
    for (s, z, g), r in zip(loads, tcp_runs(specs)):
        lost = flow_losses(r)
        out.append(
            {
                "fct_s": flow_fct(r, s, z),
                "size_pkts": z,
                "group": g,
                "rtt_s": np.where(g == 0, RTT0, RTT0 / n),
                "dropped": sum(port_drops(p) for p in r["ports"]),
                # the same drops counted per flow: packets sent minus received (both directions)
                "dropped_conservation": int(lost.sum()),
                "data_lost": lost[:, 0],
                "data_sent": np.array(r["flow_packets"])[:, 0],
            }
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="experiments/results/fct_multilink.csv")
    ap.add_argument("--protocols", default="rcp,xcp,tcp")
    ap.add_argument("--links", default="1,2,4,8")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--flows", type=int, default=FLOWS, help="flows per group and seed")
    args = ap.parse_args()
    from rcpstab.fct.multilink import chain_fct
    from rcpstab.fct.ps import processor_sharing_fct
    from rcpstab.packet.hosts.flow_traffic import parse_sizes

    sizes = parse_sizes("pareto:mean=25,shape=1.2")
    seeds = [int(s) for s in args.seeds.split(",")]
    new = not os.path.exists(args.out)
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "a", newline="") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(
                [
                    "n_links",
                    "protocol",
                    "flows_per_group",
                    "seeds",
                    "g0_short_mean",
                    "g0_short_ci95",
                    "g0_long_mean",
                    "g0_long_ci95",
                    "cross_short_mean",
                    "cross_short_ci95",
                    "g0_short_afct_s",
                    "unfinished",
                    "dropped",
                    "g0_short_per_seed",
                    "g0_long_per_seed",
                    "dropped_conservation",
                    "g0_short_lossy",
                    "cross_short_lossy",
                    "g0_long_lossy",
                    "g0_loss_rate",
                    "cross_loss_rate",
                ]
            )
        for n in [int(x) for x in args.links.split(",")]:
            for proto in args.protocols.split(","):
                per: dict[str, list] = {
                    k: [] for k in ("g0s", "g0l", "xs", "g0s_abs", "g0s_lossy", "xs_lossy", "g0l_lossy", "g0_rate", "x_rate")
                }
                unfinished = dropped = 0
                conserved = None
                if proto == "tcp":  # every seed in one ns-3 process
                    runs = chain_tcp_batch(n, seeds, args.flows, sizes)
                else:
                    runs = [
                        chain_fct(
                            proto,
                            *GAINS[proto],
                            n_links=n,
                            capacity_bps=C,
                            rtt0_s=RTT0,
                            load=LOAD,
                            sizes=sizes,
                            n_flows=args.flows,
                            seed=seed,
                        )
                        for seed in seeds
                    ]
                for r in runs:
                    f, z, g = r["fct_s"], r["size_pkts"], r["group"]
                    ps = processor_sharing_fct(z * 8000.0, C, r["rtt_s"], LOAD)
                    for key, sel in (("g0s", (g == 0) & (z < 500)), ("g0l", (g == 0) & (z >= 500)), ("xs", (g > 0) & (z < 500))):
                        per[key].append(float(np.nanmean(f[sel]) / ps[sel].mean()) if sel.any() else None)
                    per["g0s_abs"].append(float(np.nanmean(f[(g == 0) & (z < 500)])))
                    unfinished += int(np.isnan(f).sum())
                    dropped += int(r["dropped"])
                    if "data_lost" in r:  # TCP: which flows lost a data packet (any retransmission needed)
                        conserved = (conserved or 0) + r["dropped_conservation"]
                        per["g0s_lossy"].append(float(np.mean(r["data_lost"][(g == 0) & (z < 500)] > 0)))
                        per["xs_lossy"].append(float(np.mean(r["data_lost"][(g > 0) & (z < 500)] > 0)))
                        long0 = (g == 0) & (z >= 500)
                        per["g0l_lossy"].append(float(np.mean(r["data_lost"][long0] > 0)) if long0.any() else None)
                        # data packets lost per data packet sent: the chance a packet is lost on the path
                        for key, sel in (("g0_rate", g == 0), ("x_rate", g > 0)):
                            per[key].append(float(r["data_lost"][sel].sum() / r["data_sent"][sel].sum()))
                row = [n, proto, args.flows, len(seeds)]
                for key in ("g0s", "g0l", "xs"):
                    m, h = stats(per[key])
                    row += ["" if m is None else f"{m:.4g}", "" if h is None else f"{h:.4g}"]
                row += [f"{np.mean(per['g0s_abs']):.4g}", unfinished, dropped, json.dumps(per["g0s"]), json.dumps(per["g0l"])]
                row += ["" if conserved is None else conserved]
                row += [json.dumps(per[k]) if per[k] else "" for k in ("g0s_lossy", "xs_lossy", "g0l_lossy", "g0_rate", "x_rate")]
                w.writerow(row)
                fh.flush()
                print(
                    f"n={n} {proto}: group 0 AFCT/PS short {row[4]} +- {row[5]}, long {row[6]} +- {row[7]}; "
                    f"cross short {row[8]} +- {row[9]}; unfinished {unfinished}, drops {dropped} (by conservation {row[15]}); "
                    f"short flows that lost a packet: group 0 {row[16]}, cross {row[17]}; long group 0 {row[18]}; "
                    f"data packets lost per sent: group 0 {row[19]}, cross {row[20]}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
