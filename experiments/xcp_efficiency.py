"""The XCP paper's efficiency sweeps (its Figs. 4-6) and sudden demand change (Fig. 11) for XCP
and RCP at a reduced, stated scale (issue 24): single bottleneck, long-lived flows only (the
paper adds short web flows), 1500-byte packets, one-BDP drop-tail buffer, XCP (0.4, 0.226) and
RCP (0.1, 1.0), one seed (deterministic: no random arrivals). Measured over the second half of
each run: bottleneck utilisation (input rate over C; no drops means input = output), average
queue over the buffer, and drops over the packets C carries in that half. TCP over RED (ns-3)
is not run here (ns-3 was installed late in issue 24's session).

  Fig. 4: 50 flows, RTT 80 ms, C = 10, 50, 150, 500 Mb/s.
  Fig. 5: 50 flows, C = 150 Mb/s, RTT = 10, 80, 300, 1000 ms.
  Fig. 6: C = 150 Mb/s, RTT 80 ms, 1, 10, 100, 500 flows.
  Fig. 11: C = 150 Mb/s, RTT 80 ms, 10 flows; 100 more from 4 s to 8 s.

Usage: python experiments/xcp_efficiency.py [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np

from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import Scenario

GAINS = {"xcp": (0.4, 0.226), "rcp": (0.1, 1.0)}


def measure(protocol, C, rtt, n, extra=(), t_end=None):
    t_end = t_end or max(10.0, 40 * rtt)
    flows = tuple((0.0, math.inf) for _ in range(n)) + tuple(extra)
    sc = Scenario(name="xcp-eff", capacity_bps=C, rtt_s=rtt, eta=1.0, long_flows=flows, t_end_s=t_end)
    r = run_scenario(sc, *GAINS[protocol], protocol=protocol, t_end=t_end)
    half = r.t >= t_end / 2
    # drops in the second half over the packets the link can carry in it (the input is ~C)
    i0 = int(np.argmax(half))
    drops = float(r.dropped_packets[-1] - r.dropped_packets[i0]) if len(r.dropped_packets) else 0.0
    carried = C * (r.t[-1] - r.t[i0]) / (8 * sc.packet_bytes)
    return {
        "utilization": float(np.mean(r.utilization[half])),
        "queue_over_buffer": float(np.mean(r.queue_bytes[half]) / sc.effective_buffer_bytes),
        "drop_fraction": drops / carried if carried else 0.0,
        "trace": r,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    args = ap.parse_args()
    rows = []
    sweeps = [
        ("4", "C", [(c, 0.08, 50) for c in (10e6, 50e6, 150e6, 500e6)]),
        ("5", "RTT", [(150e6, r, 50) for r in (0.01, 0.08, 0.3, 1.0)]),
        ("6", "N", [(150e6, 0.08, n) for n in (1, 10, 100, 500)]),
    ]
    for fig, _what, points in sweeps:
        for C, rtt, n in points:
            for p in GAINS:
                m = measure(p, C, rtt, n)
                m.pop("trace")
                rows.append({"fig": fig, "protocol": p, "C": C, "rtt": rtt, "n": n, **m})
                print(
                    f"Fig {fig} {p:3s} C={C:.0e} RTT={rtt} N={n}: utilization {m['utilization']:.3f}, queue "
                    f"{m['queue_over_buffer']:.3f} of buffer, drops {m['drop_fraction']:.2e}",
                    flush=True,
                )
    for p in GAINS:
        m = measure(p, 150e6, 0.08, 10, extra=[(4.0, 8.0)] * 100, t_end=12.0)
        r = m.pop("trace")
        for lo, hi in ((3.0, 4.0), (4.0, 5.0), (7.0, 8.0), (8.0, 9.0), (11.0, 12.0)):
            w = (r.t >= lo) & (r.t < hi)
            row = {
                "fig": "11",
                "protocol": p,
                "window": (lo, hi),
                "utilization": float(np.mean(r.utilization[w])),
                "max_queue_over_buffer": float(np.max(r.queue_bytes[w]) / (150e6 * 0.08 / 8)),
            }
            rows.append(row)
            print(
                f"Fig 11 {p:3s} {lo:g}-{hi:g} s: utilization {row['utilization']:.3f}, max queue "
                f"{row['max_queue_over_buffer']:.3f} BDP",
                flush=True,
            )
        print(f"Fig 11 {p:3s} drops in 6-12 s {m['drop_fraction']:.2e}", flush=True)
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
