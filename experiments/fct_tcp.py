"""TCP baseline for the FCT comparison: ns-3 TCP NewReno on the same workload as RCP and PS.

The workload is one RCP run's arrivals (times and sizes, from `run_flows` with the same seed)
replayed in ns-3 (the `bench` extra: pip install 'rcpstab[bench]'): one sender node and one
receiver node joined by the bottleneck (C, RTPD/2 each way, drop-tail of one BDP, no queue
disc), one BulkSend per flow (NewReno, initial window 2 segments as in thesis Ch. 4, 960-byte
segments so data packets are 1000-byte datagrams, no timestamps), one PacketSink. A flow's FCT
is FlowMonitor's last packet received minus first packet sent (the SYN) of its 5-tuple; the
last packet is the FIN, sent right behind the last data segment, so this slightly overstates
TCP's FCT (by at most a packet time when the FIN rides in the same window). Reported per size
bin: AFCT of RCP (reference router), TCP and an exact PS queue fed the same arrivals, and eq. 4.1.

Usage: python experiments/fct_tcp.py [--flows N] [--load RHO] [--seed S] [--C BPS] [--rtt S] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile

import numpy as np

SIZES = "pareto:mean=25,shape=1.2"
PACKET_BYTES = 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, default=5000)
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--C", type=float, default=2.4e9)
    ap.add_argument("--rtt", type=float, default=0.1)
    ap.add_argument("--drain", type=float, default=60.0, help="simulated seconds after the last arrival")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from rcpstab.fct.flow_run import NS_PER_S, run_flows
    from rcpstab.fct.ps import processor_sharing_fct
    from rcpstab.fct.study import combine_runs, size_bins
    from rcpstab.packet.hosts.flow_traffic import parse_sizes

    rcp_run = run_flows(
        0.1,
        1.0,
        capacity_bps=args.C,
        rtt_s=args.rtt,
        load=args.load,
        sizes=parse_sizes(SIZES),
        n_flows=args.flows,
        seed=args.seed,
    )
    rcp = combine_runs([rcp_run])
    order = np.argsort(rcp_run.records["id"])
    rec = rcp_run.records[order]
    start_s, size = rec["start_ns"] / NS_PER_S, rec["size_pkts"]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(
            {"C": args.C, "rtt": args.rtt, "start_s": start_s.tolist(), "size_pkts": size.tolist(), "drain_s": args.drain}, fh
        )
    # The ns-3 replay lives in the package (rcpstab/fct/tcp_ns3.py), run in its own process.
    proc = subprocess.run([sys.executable, "-m", "rcpstab.fct.tcp_ns3", fh.name], capture_output=True, text=True)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        print(
            json.dumps(
                {
                    "tcp": None,
                    "note": "ns-3 run failed or ns3 not installed: " + (proc.stderr.strip().splitlines() or ["no output"])[-1],
                }
            )
        )
        return
    ns3 = json.loads(lines[-1])
    # A flow's first packet is its SYN, sent when its BulkSend starts: match it to the arrival.
    tcp_fct = np.full(len(size), np.nan)
    for _, first, last, rx_bytes, _ in ns3["flows"]:
        i = int(np.argmin(np.abs(start_s - first)))
        if abs(start_s[i] - first) < 1e-6 and rx_bytes >= size[i] * PACKET_BYTES:
            tcp_fct[i] = last - first
    tcp_done = np.isfinite(tcp_fct)
    n = len(size)
    tcp = ns3["flows"]
    rcp_fct = rec["fct_ns"] / NS_PER_S
    ps_same = {b.size_lo_pkts: b.ps_same_arrivals_afct_s for b in rcp.bins}
    rows = []
    for lo, hi in size_bins(int(size.max())):
        sel = (size[:n] >= lo) & (size[:n] <= hi) & tcp_done[:n]
        if not sel.any():
            continue
        mean_bits = size[:n][sel].mean() * PACKET_BYTES * 8
        rows.append(
            {
                "size_lo_pkts": lo,
                "size_hi_pkts": hi,
                "flows": int(sel.sum()),
                "rcp_afct_s": float(rcp_fct[:n][sel].mean()),
                "tcp_afct_s": float(tcp_fct[:n][sel].mean()),
                "tcp_max_fct_s": float(tcp_fct[:n][sel].max()),
                "ps_same_arrivals_afct_s": ps_same.get(lo),
                "ps_eq41_afct_s": float(processor_sharing_fct(mean_bits, args.C, args.rtt, args.load)),
            }
        )
    out = {
        "C": args.C,
        "rtt": args.rtt,
        "load": args.load,
        "measured_load": rcp_run.measured_load,
        "flows": args.flows,
        "tcp_flows_seen": len(tcp),
        "tcp_flows_complete": int(tcp_done.sum()),
        "tcp_lost_packets": int(sum(f[4] for f in tcp)),
        "rcp_loss_probability": rcp_run.loss_probability,
        "ns3_wall_s": ns3["wall_s"],
        "ns3_events": ns3["events"],
        "rcp_wall_s": rcp_run.wall_time_s,
        "bins": rows,
    }
    if args.json:
        print(json.dumps(out))
        return
    print(
        f"C = {args.C:g} b/s, RTPD = {args.rtt:g} s, rho = {args.load:g} (drawn {rcp_run.measured_load:.3f}), "
        f"{args.flows} flows; TCP complete {out['tcp_flows_complete']}/{args.flows}, "
        f"ns-3 {ns3['wall_s']:.1f} s wall, RCP {rcp_run.wall_time_s:.1f} s"
    )
    print(" size bin      flows  RCP/PS  TCP/PS  (PS = exact PS queue, same arrivals)")
    for r in rows:
        ps = r["ps_same_arrivals_afct_s"]
        print(
            f" {r['size_lo_pkts']:6d}-{r['size_hi_pkts']:<6d} {r['flows']:6d}  {r['rcp_afct_s'] / ps:6.2f}  "
            f"{r['tcp_afct_s'] / ps:6.2f}"
        )


if __name__ == "__main__":
    main()
