"""The XCP paper's efficiency sweeps (its Figs. 4-6) with TCP over RED from ns-3 beside XCP and
RCP from the packet simulator (issue 24), at a reduced, stated scale.

Set-up (the paper's in brackets): one bottleneck, long-lived flows only [plus 50 reverse-path
flows for two-way traffic], 1000-byte packets, buffer one BDP, RED gentle with thresholds a third
and two thirds of the buffer, ECN off (tcp_red) or on (tcp_red_ecn, the paper's); TCP NewReno
with SACK [ns-2's TCP Reno flavour of the time]; XCP (0.4, 0.226), RCP (0.1, 1.0) (thesis Ch. 4); TCP flows start uniformly
in the first RTT (seeded); every run lasts max(4 s, 40 RTT) [paper: > 300 RTT] and is measured
over its second half: utilisation (bytes the bottleneck sent over C x time), average queue over
the buffer, drops over packets sent.
  Fig. 4: 50 flows, RTT 80 ms, C = 10, 50 Mb/s [paper 1.5 Mb/s - 4 Gb/s].
  Fig. 5: 50 flows, C = 50 Mb/s [150], RTT = 10, 80, 300 ms [up to 1.4 s].
  Fig. 6: C = 50 Mb/s [150], RTT 80 ms, 1, 10, 50, 200 flows [up to 1000].
(ns-3 runs about 4,000 packets per CPU second here, so the sweep is cut to ~180,000 packets.)
One run per point (TCP: seed 1). Writes experiments/results/xcp_efficiency_tcp.csv.

Usage: python experiments/xcp_efficiency_tcp.py [--out CSV] [--protocols tcp,xcp,rcp]
"""

from __future__ import annotations

import argparse
import csv
import math
import os

import numpy as np

POINTS = (
    [("4", 10e6, 0.08, 50), ("4+5+6", 50e6, 0.08, 50)]
    + [("5", 50e6, r, 50) for r in (0.01, 0.3)]
    + [("6", 50e6, 0.08, n) for n in (1, 10, 200)]
)
GAINS = {"xcp": (0.4, 0.226), "rcp": (0.1, 1.0)}
PACKET_BYTES = 1000


def t_end_s(rtt: float) -> float:
    return max(4.0, 40 * rtt)


def packet_point(protocol: str, C: float, rtt: float, n: int) -> dict:
    """XCP or RCP from the packet simulator, as experiments/xcp_efficiency.py measures them."""
    from rcpstab.packet.simulator.run import run_scenario
    from rcpstab.packet.simulator.scenarios import Scenario

    t_end = t_end_s(rtt)
    sc = Scenario(
        name="xcp-eff",
        capacity_bps=C,
        rtt_s=rtt,
        eta=1.0,
        long_flows=tuple((0.0, math.inf) for _ in range(n)),
        t_end_s=t_end,
        packet_bytes=PACKET_BYTES,
    )
    r = run_scenario(sc, *GAINS[protocol], protocol=protocol, t_end=t_end)
    half = r.t >= t_end / 2
    i0 = int(np.argmax(half))
    drops = float(r.dropped_packets[-1] - r.dropped_packets[i0]) if len(r.dropped_packets) else 0.0
    carried = C * (r.t[-1] - r.t[i0]) / (8 * PACKET_BYTES)
    return {
        "utilization": float(np.mean(r.utilization[half])),
        "queue_over_buffer": float(np.mean(r.queue_bytes[half]) / sc.effective_buffer_bytes),
        "drop_fraction": drops / carried if carried else 0.0,
    }


def tcp_points(points, ecn: bool) -> list[dict]:
    """TCP NewReno over RED in ns-3 at every point, one ns-3 process."""
    from rcpstab.fct.tcp_ns3 import red_spec, tcp_runs

    specs = []
    for _, C, rtt, n in points:
        bdp = max(int(C * rtt / 8 / PACKET_BYTES), 1)
        rng = np.random.default_rng(1)
        specs.append(
            {
                "links": [{"C": C, "delay_s": rtt / 2, "buffer_pkts": bdp, "red": red_spec(bdp, ecn=ecn)}],
                "flows": [{"src": 0, "dst": 1, "start_s": float(t), "size_pkts": 0} for t in np.sort(rng.uniform(0, rtt, n))],
                "stop_s": t_end_s(rtt),
                "sample_s": min(rtt / 4, 0.01),
                "ecn": ecn,
                "snd_buf_bytes": max(4 * bdp * PACKET_BYTES, 1 << 17),
            }
        )
    out = []
    for (_, C, rtt, _n), r in zip(points, tcp_runs(specs)):
        port = r["ports"][0]
        t, q, sent, drops = (np.array(port[k]) for k in ("t", "q", "sent", "drops"))
        half = t >= t_end_s(rtt) / 2
        i0, i1 = int(np.argmax(half)), len(t) - 1
        bdp = max(int(C * rtt / 8 / PACKET_BYTES), 1)
        pkts = (sent[i1] - sent[i0]) / (PACKET_BYTES + 2)
        out.append(
            {
                "utilization": float((sent[i1] - sent[i0]) * 8 / (C * (t[i1] - t[i0]))),
                "queue_over_buffer": float(q[half].mean() / bdp),
                "drop_fraction": float((drops[i1] - drops[i0]) / pkts) if pkts else 0.0,
                "ecn_marks": port["disc_marks"],
                "wall_s": r["wall_s"],
            }
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="experiments/results/xcp_efficiency_tcp.csv")
    ap.add_argument("--protocols", default="xcp,rcp,tcp_red", help="xcp, rcp, tcp_red, tcp_red_ecn")
    args = ap.parse_args()
    protos = args.protocols.split(",")
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    new = not os.path.exists(args.out)
    with open(args.out, "a", newline="") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(
                ["fig", "C_bps", "rtt_s", "flows", "protocol", "utilization", "queue_over_buffer", "drop_fraction", "ecn_marks"]
            )
        for proto in protos:
            results = (
                tcp_points(POINTS, ecn=proto.endswith("ecn"))
                if proto.startswith("tcp")
                else [packet_point(proto, C, rtt, n) for _, C, rtt, n in POINTS]
            )
            for (fig, C, rtt, n), m in zip(POINTS, results):
                w.writerow(
                    [
                        fig,
                        f"{C:g}",
                        f"{rtt:g}",
                        n,
                        proto,
                        f"{m['utilization']:.4f}",
                        f"{m['queue_over_buffer']:.4f}",
                        f"{m['drop_fraction']:.3e}",
                        m.get("ecn_marks", ""),
                    ]
                )
                fh.flush()
                print(
                    f"Fig {fig} {proto} C={C:g} RTT={rtt:g} N={n}: utilization {m['utilization']:.3f}, queue "
                    f"{m['queue_over_buffer']:.3f} of buffer, drops {m['drop_fraction']:.2e}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
