"""Thesis Fig. 5.7 at full size, packet and fluid, at both thesis points (run by hand, not a timed test).

``python experiments/fig57.py [--t-end 2000]``: L2 delay 10 s (long flow 20.002 s, short
flows 4 ms) at (alpha, beta) = (0.1, 1.0) and (0.5, 0.1). Per point and run: settling time of
the rates at L1 and L3 into 2% of their max-min targets (raw, and of the 1 s mean, which
packet-counting noise at L3 needs), final rates against the targets, the RTT estimate at L1
and its late swing ratio, the L1 peak queue, wall times; then one JSON line.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from rcpstab.cosim.network import cosimulate_network
from rcpstab.network.convergence import settling_time
from rcpstab.network.fig57 import THESIS_POINTS

MEAN_WINDOW_S = 1.0


def moving_mean(x: np.ndarray, n: int) -> np.ndarray:
    """Trailing mean over ``n`` samples (shorter at the start)."""
    c = np.cumsum(np.insert(x, 0, 0.0))
    k = np.arange(1, x.size + 1)
    return (c[k] - c[np.maximum(k - n, 0)]) / np.minimum(k, n)


def report(run, summary: dict) -> dict:
    """The benchmark's figures of one run (packet or fluid)."""
    n = max(1, int(round(MEAN_WINDOW_S / (run.t[1] - run.t[0]))))
    out = {}
    for name in ("L1", "L3"):
        i = run.link(name)
        target = run.target_rate[i]
        out[f"{name}_settling_s"] = summary[f"{name}_settling_s"]
        out[f"{name}_settling_1s_mean_s"] = float(settling_time(run.t, moving_mean(run.rate[:, i, 0], n)[:, None], target)[0])
        out[f"{name}_final_Mbps"] = summary[f"{name}_final_rate_bps"] / 1e6
        out[f"{name}_target_Mbps"] = target / 1e6
        out[f"{name}_peak_queue_MB"] = float(run.queue[:, i, 0].max() / 8e6)
    out["L1_rtt_final_s"] = summary["rtt_final_s"]
    out["L1_rtt_target_s"] = summary["rtt_target_s"]
    out["L1_rtt_swing_ratio"] = summary["rtt_swing_ratio"]
    out["L1_rtt_peak_s"] = float(run.avg_rtt[:, run.link("L1"), 0].max())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-end", type=float, default=2000.0, help="simulated seconds (default 2000)")
    args = parser.parse_args()
    results = []
    for alpha, beta in THESIS_POINTS:
        result = cosimulate_network("fig5.7", alpha, beta, t_end=args.t_end)
        summary = result.summary()
        row = {
            "alpha": alpha,
            "beta": beta,
            "t_end_s": args.t_end,
            "packet": report(result.packet, summary["packet"]),
            "fluid": report(result.fluid, summary["fluid"]),
            "packet_events": summary["packet_events"],
            "packet_dropped": summary["packet_dropped"],
            "packet_wall_s": result.packet_wall_time_s,
            "fluid_wall_s": result.fluid_wall_time_s,
        }
        results.append(row)
        print(
            f"(alpha, beta) = ({alpha:g}, {beta:g}), {args.t_end:g} s simulated; "
            f"wall packet {row['packet_wall_s']:.1f} s ({row['packet_events'] / 1e6:.0f} M events), "
            f"fluid {row['fluid_wall_s']:.1f} s"
        )
        for side in ("packet", "fluid"):
            r = row[side]
            print(
                f"  {side:6s} L1 {r['L1_final_Mbps']:.2f}/{r['L1_target_Mbps']:.0f} Mb/s settles "
                f"{r['L1_settling_s']:.0f} s (1 s mean {r['L1_settling_1s_mean_s']:.0f} s), peak queue "
                f"{r['L1_peak_queue_MB']:.1f} MB; L3 {r['L3_final_Mbps']:.3f}/{r['L3_target_Mbps']:.3f} Mb/s settles "
                f"{r['L3_settling_s']:.1f} s (1 s mean {r['L3_settling_1s_mean_s']:.1f} s); RTT estimate at L1 "
                f"{r['L1_rtt_final_s']:.2f}/{r['L1_rtt_target_s']:.2f} s (peak {r['L1_rtt_peak_s']:.1f} s, "
                f"late swing ratio {r['L1_rtt_swing_ratio']:.2g})"
            )
    print(json.dumps(results, default=lambda v: None))


if __name__ == "__main__":
    main()
