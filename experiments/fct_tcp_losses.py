"""Issue 24: which of TCP's flows lose packets, and do the ones that lose leave the thesis' slow-start
curve (Sec. 4.2.1: [log2(L + 1) + 1/2] RTPD + L/C, no queueing)? The Fig. 4.13 points at 10 and 50
Mb/s (RTPD 0.1 s, load 0.9, Pareto 1.2 sizes of mean 25, 1500 flows, seeds 1-3: the arrivals of
fct_tcp_figs.py), ns-3 NewReno with each flow's losses counted by conservation
(rcpstab.fct.tcp_ns3.flow_losses). Prints per seed the drops (queue counters and conservation) and,
for short (< 500 packets) and long flows with and without a loss, their number and median FCT over
the curve. Results in experiments/results/README.md.

Usage: python experiments/fct_tcp_losses.py
"""

import json

import numpy as np

from rcpstab.fct.protocols import tcp_protocol_batch
from rcpstab.packet.hosts.flow_traffic import parse_sizes

SIZES = parse_sizes("pareto:mean=25,shape=1.2")
pts = [
    dict(capacity_bps=C, rtt_s=0.1, load=0.9, sizes=SIZES, n_flows=1500, seeds=(1, 2, 3), count_packets=True)
    for C in (10e6, 50e6)
]
for p, runs in zip(pts, tcp_protocol_batch(pts)):
    C = p["capacity_bps"]
    for seed, r in zip(p["seeds"], runs):
        f, z, lost = r["fct_s"], r["size_pkts"], r["data_lost"]
        ss = (np.log2(z + 1) + 0.5) * 0.1 + z * 8000 / C  # the thesis' slow-start curve (no queueing)
        x = f / ss
        out = {"C": C, "seed": seed, "dropped": r["dropped"], "conservation": r["dropped_conservation"]}
        for name, sel in (("lossy", lost > 0), ("clean", lost == 0)):
            for szname, ssel in (("short", z < 500), ("long", z >= 500)):
                m = sel & ssel
                out[f"{name}_{szname}"] = [int(m.sum()), round(float(np.median(x[m])), 3) if m.any() else None]
        print(json.dumps(out), flush=True)
