"""Issue 24: why the flow-level fluid model (with the packet-scale queue) runs above the packet
flow simulator at high load, ingredient by ingredient, in both methods on the same arrivals.

Fixed 37-packet flows, C = 20 Mb/s, RTPD 0.1 s (BDP 250 packets), RCP (0.1, 1.0), 4000 flows,
seeds 1-3, loads 0.8 and 0.85 (below u* = 0.876). Two ingredients the fluid model leaves out
are switched on and off in both methods:

* the R-TCP sender's window: at most ceil(R srtt / MSS) packets in flight (packet simulator:
  ``run_flows(sender_window=False)`` lifts it; fluid: ``window_mss_bits`` adds it);
* the router's RTT: App. F's average of the header RTTs, queueing included (packet:
  ``router_rtt="propagation"`` holds it at RTPD; fluid: ``rtt="with_queue"`` uses d + q/C).

Reported per variant: AFCT over PS on the same arrivals (all flows, ``afct``), the time-average
number of flows in progress over the measurement window (``EN``), and the window's mean router
rate over C (``RC``); the mean over seeds, and the ratio to the packet simulator as it is; for the
packet runs also the router's mean avg_rtt and its queue's mean and 99th percentile.
Also the flows of the fluid model driven by the packet run's own rate trace R(t) (no rate law):
if they reproduce the packet FCTs, the gap is in the router's rate, not on the flows' side.

Usage: python experiments/fct_fluid_gap.py [--flows 4000] [--seeds 1,2,3] [--loads 0.8,0.85]
"""

from __future__ import annotations

import argparse

import numpy as np

from rcpstab.fct.flow_run import NS_PER_S, draw_workload, run_flows
from rcpstab.fct.fluid_flows import fluid_flow_run, time_average_in_progress
from rcpstab.fct.ps import processor_sharing_sojourn
from rcpstab.packet.hosts.flow_traffic import ArrivalProcess, parse_sizes

C, D, PKT = 20e6, 0.1, 1000
SIZES = parse_sizes("fixed:size=37")
MSS_BITS = (PKT - 40) * 8.0
PACKET = {
    "packet": {},
    "packet, no window": dict(sender_window=False),
    "packet, d = RTPD": dict(router_rtt="propagation"),
    "packet, no window, d = RTPD": dict(sender_window=False, router_rtt="propagation"),
}
FLUID = {
    "fluid": {},
    "fluid + window": dict(window_mss_bits=MSS_BITS),
    "fluid, d + q/C": dict(rtt="with_queue"),
    "fluid + window, d + q/C": dict(window_mss_bits=MSS_BITS, rtt="with_queue"),
    "fluid, rate every 10 ms": dict(interval_s=0.01),
    "fluid, rate in 8 kb/s steps": dict(quantum_bps=8000.0),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, default=4000)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--loads", default="0.8,0.85")
    args = ap.parse_args()
    n = args.flows
    for load in (float(x) for x in args.loads.split(",")):
        rows: dict[str, list] = {}
        rtt_ms: dict[str, list] = {}  # the packet router's mean avg_rtt over the window
        for seed in (int(s) for s in args.seeds.split(",")):
            st, sz, warm = draw_workload(SIZES, ArrivalProcess(), n, load, C, PKT, seed)
            bits = sz * PKT * 8.0
            ps = 1.5 * D + processor_sharing_sojourn(st, bits, C)
            t0, t1 = st[warm], st[-1]
            for name, kw in PACKET.items():
                r = run_flows(
                    0.1, 1.0, capacity_bps=C, rtt_s=D, load=load, sizes=SIZES, n_flows=n, seed=seed, keep_trace=True, **kw
                )
                f = np.full(n, np.nan)
                f[r.records["id"]] = r.records["fct_ns"] / NS_PER_S
                rows.setdefault(name, []).append(
                    (np.nanmean(f) / ps.mean(), time_average_in_progress(st, f, t0, t1), r.mean_R_over_C)
                )
                inside = (r.trace["t_s"] > t0) & (r.trace["t_s"] <= t1)
                q_pkts = r.trace["queue_bytes"][inside] / PKT
                rtt_ms.setdefault(name, []).append(
                    (float(r.trace["avg_rtt_ms"][inside].mean()), float(q_pkts.mean()), float(np.percentile(q_pkts, 99)))
                )
                if not kw:
                    # the rate set at the end of each interval is in force until the next; senders see it an RTPD late
                    g = fluid_flow_run(
                        0.1,
                        1.0,
                        capacity_bps=C,
                        rtt_s=D,
                        arrival_s=st,
                        size_bits=bits,
                        dt_s=0.001,
                        rate_trace=(r.trace["t_s"], r.trace["R_over_C"] * C),
                    ).fct_s
                    rows.setdefault("fluid flows on the packet's R(t)", []).append(
                        (np.mean(g) / ps.mean(), time_average_in_progress(st, g, t0, t1), r.mean_R_over_C)
                    )
            for name, kw in FLUID.items():
                fl = fluid_flow_run(
                    0.1, 1.0, capacity_bps=C, rtt_s=D, arrival_s=st, size_bits=bits, packet_bits=PKT * 8.0, dt_s=0.001, **kw
                )
                w = (fl.t_s > t0) & (fl.t_s <= t1)
                rows.setdefault(name, []).append(
                    (
                        np.nanmean(fl.fct_s) / ps.mean(),
                        time_average_in_progress(st, fl.fct_s, t0, t1),
                        float(np.mean(fl.R_bps[w]) / C),
                    )
                )
        ref = np.mean([x[0] for x in rows["packet"]])
        print(f"load {load}, {n} flows, seeds {args.seeds}: mean over seeds (per seed AFCT/PS)")
        for name, v in rows.items():
            a = np.array(v)
            print(
                f"  {name:34s} AFCT/PS {a[:, 0].mean():.3f} ({', '.join(f'{x:.2f}' for x in a[:, 0])})  "
                f"x packet {a[:, 0].mean() / ref:.3f}  E[N] {a[:, 1].mean():6.2f}  R/C {a[:, 2].mean():.4f}"
                + (
                    "  router avg_rtt {:.1f} ms, queue mean {:.2f} p99 {:.1f} pkts".format(*np.mean(rtt_ms[name], axis=0))
                    if name in rtt_ms
                    else ""
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
