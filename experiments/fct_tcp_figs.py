"""RCP, XCP and TCP (ns-3 NewReno) on the same arrivals at thesis Figs. 4.4, 4.10, 4.13, 4.14
(issue 24), reduced scale, 3 seeds, AFCT over PS fed the same arrivals with 95% t-intervals.

Scale (thesis: 2.4 Gb/s and up to 9.6 Gb/s, ns-2, many more flows): Pareto sizes (shape 1.2),
Poisson arrivals with the drawn workload offering exactly the load, 1000-byte packets, one-BDP
drop-tail buffer, seeds 1-3; RCP (0.1, 1.0) as thesis Ch. 4, XCP (0.4, 0.226); TCP NewReno from
ns-3 (rcpstab.fct.tcp_ns3: initial window 2, SACK, ns-3's RTO and delayed ACKs; FCT to the last
data byte). Short flows < 500 packets, long >= 500 (the thesis' split for Figs. 4.10-4.14).
  Fig. 4.13: RTPD 0.1 s, load 0.9, E[L] = 25, C = 10, 50, 150, 600 Mb/s; 1500 flows.
  Fig. 4.14: C = 150 Mb/s, load 0.9, E[L] = 25, RTPD 0.025, 0.1, 0.4, 1.0 s; 1500 flows.
  Fig. 4.4:  C = 150 Mb/s, RTPD 0.1 s, load 0.8, E[L] = 25 (1500 flows), 250 (300), 2500 (60).
  Fig. 4.10: C = 150 Mb/s, RTPD 0.1 s, E[L] = 25, loads 0.2, 0.5, 0.8, 0.9; 1500 flows.
A point shared by two figures is run once (rows name every figure it belongs to). Every TCP run
of a figure shares one ns-3 process (its import is most of a small run's cost).

TCP drops: ``dropped`` sums the bottleneck's queue counters (drop-tail drops happen in ns-3's
traffic-control layer; rows run before that was counted read 0 and were rerun), and
``dropped_conservation`` counts them again as each flow's packets sent minus received (both
directions, rcpstab.fct.tcp_ns3.flow_losses); the two agree when every flow finished.

TCP rows labelled tcp_rwnd2 ran with the receiver's window at 2 BDP (pipe plus buffer): ns-3's
sender walks its list of unacknowledged segments for every segment sent, so a run costs packets
x flight, and Fig. 4.4's flows of hundreds of BDPs did not finish with an unbounded window.

Usage: python experiments/fct_tcp_figs.py [--out CSV] [--only 4.13,4.14] [--flows-scale F] [--rwnd-bdp 2]
       python experiments/fct_tcp_figs.py --table CSV      (the markdown table of a stored CSV)
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import time

SEEDS = (1, 2, 3)
GAINS = {"rcp": (0.1, 1.0), "xcp": (0.4, 0.226)}
POINTS = {  # figure -> list of (C b/s, RTPD s, load, E[L] packets, flows)
    "4.13": [(c, 0.1, 0.9, 25, 1500) for c in (10e6, 50e6, 150e6, 600e6)],
    "4.14": [(150e6, r, 0.9, 25, 1500) for r in (0.025, 0.1, 0.4, 1.0)],
    "4.4": [(150e6, 0.1, 0.8, 25, 1500), (150e6, 0.1, 0.8, 250, 300), (150e6, 0.1, 0.8, 2500, 60)],
    "4.10": [(150e6, 0.1, x, 25, 1500) for x in (0.2, 0.5, 0.8, 0.9)],
}
COLUMNS = [
    "figs",
    "C_bps",
    "rtpd_s",
    "load",
    "mean_pkts",
    "flows",
    "protocol",
    "small_mean",
    "small_ci95",
    "large_mean",
    "large_ci95",
    "all_mean",
    "all_ci95",
    "queue_bdp",
    "dropped",
    "unfinished",
    "small_per_seed",
    "large_per_seed",
    "wall_s",
    "dropped_conservation",
    "lossy_small_per_seed",
    "lossy_large_per_seed",
]


def _cell(x):
    return "" if x is None else f"{x:.4g}"


def _lossy(runs, split_pkts: int = 500) -> tuple[str, str]:
    """Per seed, the fraction of short (< split_pkts) and of long flows that lost a data packet (JSON)."""
    out = []
    for sel in (lambda z: z < split_pkts, lambda z: z >= split_pkts):
        out.append(
            json.dumps(
                [float((r["data_lost"][sel(r["size_pkts"])] > 0).mean()) if sel(r["size_pkts"]).any() else None for r in runs]
            )
        )
    return out[0], out[1]


def run(args) -> None:
    from rcpstab.fct.protocols import protocol_fct, summarize_protocol, tcp_protocol_batch
    from rcpstab.packet.hosts.flow_traffic import parse_sizes

    figs = args.only.split(",") if args.only else list(POINTS)
    done = set()
    if os.path.exists(args.out):
        with open(args.out) as fh:
            done = {(r["C_bps"], r["rtpd_s"], r["load"], r["mean_pkts"], r["protocol"]) for r in csv.DictReader(fh)}
    else:
        with open(args.out, "w", newline="") as fh:
            csv.writer(fh).writerow(COLUMNS)
    owners = {}
    for fig in POINTS:
        for p in POINTS[fig]:
            owners.setdefault(p, []).append(fig)
    seen = set()
    for fig in figs:
        points = [p for p in POINTS[fig] if p not in seen and (not args.mean_pkts or p[3] in args.mean_pkts)]
        seen.update(points)
        tcp_label = "tcp" if args.rwnd_bdp is None else f"tcp_rwnd{args.rwnd_bdp:g}"
        for proto in ("rcp", "xcp", tcp_label):
            todo = [p for p in points if (_cell(p[0]), _cell(p[1]), _cell(p[2]), _cell(p[3]), proto) not in done]
            if not todo:
                continue
            kws = [
                dict(
                    capacity_bps=C,
                    rtt_s=rtt,
                    load=load,
                    sizes=parse_sizes(f"pareto:mean={m},shape=1.2"),
                    n_flows=max(int(n * args.flows_scale), 30),
                )
                for C, rtt, load, m, n in todo
            ]
            wall = time.perf_counter()
            for p, kw in zip(todo, kws):  # each point written as soon as it is done
                t0 = time.perf_counter()
                if proto.startswith("tcp"):  # one ns-3 process per point (its seeds batched)
                    runs = tcp_protocol_batch([{**kw, "seeds": SEEDS, "rwnd_bdp": args.rwnd_bdp, "count_packets": True}])[0]
                    w = sum(r["ns3_wall_s"] for r in runs)
                else:
                    runs = [protocol_fct(proto, *GAINS[proto], seed=s, **kw) for s in SEEDS]
                    w = time.perf_counter() - t0
                s = summarize_protocol(runs, GAINS.get(proto, (None, None)), capacity_bps=p[0], rtt_s=p[1])
                row = [
                    "+".join(owners[p]),
                    _cell(p[0]),
                    _cell(p[1]),
                    _cell(p[2]),
                    _cell(p[3]),
                    kw["n_flows"],
                    proto,
                    _cell(s["small"]["mean"]),
                    _cell(s["small"]["ci95"]),
                    _cell(s["large"]["mean"]),
                    _cell(s["large"]["ci95"]),
                    _cell(s["all"]["mean"]),
                    _cell(s["all"]["ci95"]),
                    _cell(s["queue_bdp"]["mean"]),
                    s["dropped"],
                    s["unfinished"],
                    json.dumps(s["small"]["per_seed"]),
                    json.dumps(s["large"]["per_seed"]),
                    f"{w:.1f}",
                    # TCP: the same drops counted a second way (each flow's packets sent minus received)
                    sum(r["dropped_conservation"] for r in runs) if proto.startswith("tcp") else "",
                    # TCP: per seed, the fraction of short / long flows that lost a data packet
                    *(_lossy(runs) if proto.startswith("tcp") else ("", "")),
                ]
                with open(args.out, "a", newline="") as fh:
                    csv.writer(fh).writerow(row)
                print(
                    f"Fig {row[0]} C={p[0]:g} RTPD={p[1]:g} load={p[2]:g} E[L]={p[3]} {proto}: AFCT/PS short "
                    f"{row[7]} +- {row[8]}, long {row[9]} +- {row[10]}, queue {row[13]} BDP, drops {row[14]}, "
                    f"unfinished {row[15]} ({w:.0f} s); drops by conservation {row[19]}; lossy short {row[20]} long {row[21]}",
                    flush=True,
                )
            print(f"  {proto} batch {time.perf_counter() - wall:.0f} s wall", flush=True)


def _paired(num, den, key):
    """Mean and 95% t half-width of the per-seed ratio num / den (same arrivals per seed)."""
    import math

    import numpy as np
    from scipy.stats import t as student

    a, b = json.loads(num[f"{key}_per_seed"]), json.loads(den[f"{key}_per_seed"])
    v = np.array([x / y for x, y in zip(a, b) if x is not None and y is not None])
    if len(v) < 2:
        return "-"
    return f"{v.mean():.2f} ± {student.ppf(0.975, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v)):.2f}"


def _lossy_cell(row) -> str:
    """Mean over seeds of the short and long flows' fractions that lost a data packet, in %."""
    if row is None or not row.get("lossy_small_per_seed"):
        return "-"
    out = []
    for k in ("small", "large"):
        v = [x for x in json.loads(row[f"lossy_{k}_per_seed"]) if x is not None]
        out.append(f"{100 * sum(v) / len(v):.1f}" if v else "-")
    return " / ".join(out)


def table(path: str) -> str:
    """Markdown: per point, AFCT / same-arrivals PS (mean ± 95% CI over seeds) of short and long
    flows per protocol, the per-seed ratios XCP / RCP and TCP / RCP, the mean queue, TCP's drops over
    the seeds (counted a second way in brackets, where recorded) and the share of its short and long
    flows that lost a packet. A point with only a ``tcp_rwndX`` row shows it as its TCP."""
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    by_point = {}
    for r in rows:
        by_point.setdefault((r["figs"], r["C_bps"], r["rtpd_s"], r["load"], r["mean_pkts"], r["flows"]), {})[r["protocol"]] = r
    lines = [
        "| figs | C (b/s) | RTPD (s) | load | E[L] | flows/seed | RCP short | XCP short | TCP short | RCP long | "
        "XCP long | TCP long | XCP/RCP short | TCP/RCP short | XCP/RCP long | TCP/RCP long | queue/BDP R, X, T | "
        "TCP drops (second count) | TCP flows with a loss, short / long (%) |",
        "|" + "---|" * 19,
    ]

    def cell(r, k):
        if r is None or not r[f"{k}_mean"]:
            return "-"
        return f"{float(r[f'{k}_mean']):.2f} ± {float(r[f'{k}_ci95'] or 'nan'):.2f}"

    for key, prot in by_point.items():
        for label in [p for p in prot if p.startswith("tcp_rwnd")]:  # a capped-window TCP row is this point's TCP
            prot.setdefault("tcp", prot[label])
        cells = [cell(prot.get(p), k) for k in ("small", "large") for p in ("rcp", "xcp", "tcp")]
        rcp = prot.get("rcp")
        for k in ("small", "large"):
            for p in ("xcp", "tcp"):
                cells.append(_paired(prot[p], rcp, k) if p in prot and rcp else "-")
        cells.append(
            ", ".join(
                f"{float(prot[p]['queue_bdp']):.3f}" if p in prot and prot[p]["queue_bdp"] else "-" for p in ("rcp", "xcp", "tcp")
            )
        )
        tcp = prot.get("tcp")
        cells.append(
            "-"
            if tcp is None
            else tcp["dropped"] + (f" ({tcp['dropped_conservation']})" if tcp.get("dropped_conservation") else "")
        )
        cells.append(_lossy_cell(tcp))
        lines.append("| " + " | ".join(key) + " | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="experiments/results/fct_tcp_figs.csv")
    ap.add_argument("--only")
    ap.add_argument("--flows-scale", type=float, default=1.0)
    ap.add_argument("--mean-pkts", type=lambda v: [int(x) for x in v.split(",")], help="only points of these E[L]")
    ap.add_argument(
        "--rwnd-bdp", type=float, help="TCP receiver window in BDPs (rows labelled tcp_rwndX); default: never binding"
    )
    ap.add_argument("--table")
    args = ap.parse_args()
    if args.table:
        print(table(args.table))
        return
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    run(args)


if __name__ == "__main__":
    main()
