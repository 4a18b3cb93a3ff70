"""The high-load regime map (issue 24, item 2): RCP's AFCT over PS on the same arrivals by the
packet flow simulator and the flow-level fluid model (without / with the packet-scale queue),
against load and mean flow size / BDP, for the thesis' Ch. 4 gains and the box's (0.5, 0.4).

Scale (stated): RTPD 0.1 s, 1000-byte packets, exponential sizes, Poisson arrivals, 2000 flows
per point, seed 1; C = 20 Mb/s (BDP 250 packets) and, for the packet-queue effect, 200 Mb/s.

Usage: python experiments/fct_regime.py [--flows N] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json

from rcpstab.fct.regime import compare_methods
from rcpstab.packet.hosts.flow_traffic import parse_sizes

GAINS = [(0.1, 1.0), (0.5, 0.4)]
LOADS = [0.5, 0.8, 0.9]
SIZE_OVER_BDP = [0.02, 0.12, 0.5]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--flows", type=int, default=2000)
    ap.add_argument("--out")
    args = ap.parse_args()
    rows = []
    for C in (20e6, 200e6):
        bdp = C * 0.1 / 8000
        for gains in GAINS:
            for load in LOADS:
                for frac in SIZE_OVER_BDP if C == 20e6 else [0.12]:
                    r = compare_methods(
                        *gains,
                        capacity_bps=C,
                        rtt_s=0.1,
                        load=load,
                        sizes=parse_sizes(f"exponential:mean={frac * bdp:g}"),
                        n_flows=args.flows,
                        seed=1,
                        fluid_dt_s=0.001,
                    )
                    row = {"C": C, "gains": gains, "load": load, "size_over_bdp": frac, **r}
                    rows.append(row)
                    print(
                        f"C={C:.0e} {gains} rho={load} L/BDP={frac}: u*={r['rho_star']:.3f} | AFCT/PS packet "
                        f"{r['packet']['afct_over_ps']:.2f} fluid {r['fluid']['afct_over_ps']:.2f} fluid+pq "
                        f"{r['fluid_packet_queue']['afct_over_ps']:.2f} | E[N] packet {r['packet']['mean_in_progress']:.1f} "
                        f"fluid {r['fluid']['mean_in_progress']:.1f} fluid+pq {r['fluid_packet_queue']['mean_in_progress']:.1f} "
                        f"PS {r['ps']['mean_in_progress']:.1f}",
                        flush=True,
                    )
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
