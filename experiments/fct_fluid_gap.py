"""Issue 24, item 4 (partial): the flow-level fluid model (with the packet-scale queue) against the
packet flow simulator at high load: router rate, queue, flows in progress and the packet queue
against the M/D/1 number the fluid model assumes, binned by the input utilisation of each
control interval. Fixed 37-packet flows, C = 20 Mb/s, RTPD 0.1 s (BDP 250 packets), RCP
(0.1, 1.0), 4000 flows, seed 1, loads 0.85 and 0.9.

Usage: python experiments/fct_fluid_gap.py
"""
from __future__ import annotations

import numpy as np

from rcpstab.fct.flow_run import draw_workload, run_flows
from rcpstab.fct.fluid_flows import fluid_flow_run
from rcpstab.packet.hosts.flow_traffic import ArrivalProcess, parse_sizes

C, D = 20e6, 0.1
SIZES = parse_sizes("fixed:size=37")


def main() -> None:
    for load in (0.85, 0.9):
        r = run_flows(0.1, 1.0, capacity_bps=C, rtt_s=D, load=load, sizes=SIZES, n_flows=4000, seed=1,
                      keep_trace=True)
        tr = r.trace
        u, q = tr["input_bps"] / C, tr["queue_bytes"] / 1000
        print(f"load {load}: packet mean R/C {tr['R_over_C'].mean():.4f}, mean u {u.mean():.4f}, mean queue "
              f"{q.mean():.2f} pkts, E[N] {tr['n_active'].mean():.1f}, AFCT {np.mean(r.fct_s):.3f} s")
        for lo, hi in ((0.7, 0.8), (0.8, 0.85), (0.85, 0.9), (0.9, 0.95), (0.95, 1.0)):
            s = (u >= lo) & (u < hi)
            if s.sum() > 5:
                um = u[s].mean()
                print(f"   u in [{lo}, {hi}): {s.sum()} intervals, queue {q[s].mean():.2f} pkts, "
                      f"M/D/1 {um ** 2 / (2 * (1 - um)):.2f}")
        st, sz, _ = draw_workload(SIZES, ArrivalProcess(), 4000, load, C, 1000, 1)
        fl = fluid_flow_run(0.1, 1.0, capacity_bps=C, rtt_s=D, arrival_s=st, size_bits=sz * 8000.0,
                            packet_bits=8000.0, dt_s=0.001)
        span = fl.t_s <= st[-1]
        print(f"   fluid + packet queue: mean R/C {np.mean(fl.R_bps[span]) / C:.4f}, mean queue "
              f"{np.mean(fl.queue_bits[span]) / 8000:.2f} pkts, flows sending {np.mean(fl.sending[span]):.1f}, "
              f"AFCT {np.nanmean(fl.fct_s):.3f} s")


if __name__ == "__main__":
    main()
