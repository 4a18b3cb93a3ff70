"""Run RCP's fluid model on a multi-link network scenario (thesis Fig. 5.7, Figs. 5.8-5.9).

Scenario fig5.7: L1 155 Mb/s and L3 100 Mb/s (1 ms), L2 622 Mb/s (10 s); 49 flows with a
4 ms RTT cross L1 and L3, one flow with a 20 s RTT crosses L1 and L2. Every link runs
App. F's control path with the RTT estimator of eqs. 5.16-5.17. --out draws the rates at
L1 and L3 and the RTT estimate at L1; --csv writes t_s,L1_rate_bps,L3_rate_bps,
L1_avg_rtt_s,L1_rtt_sample_s,L1_queue_bits,L3_queue_bits; --json prints the convergence
summary (settling times, final rates against the max-min targets, RTT-estimate swings).
"""

from __future__ import annotations

import argparse

from ..api.runs import NETWORK_SCENARIOS, network
from .output import check_outputs, report

EXAMPLES = (
    ("rcpstab network --alpha 0.1 --beta 1.0 --t-end 100", "the three-link network for 100 s, summary only"),
    ("rcpstab network --alpha 0.1 --beta 1.0 --out fig5_8.png --csv fig5_8.csv", "Figs. 5.8-5.9 as a figure and a time series"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scenario", default="fig5.7", help=f"scenario: one of {', '.join(NETWORK_SCENARIOS)} (default: fig5.7)")
    parser.add_argument("--alpha", type=float, required=True, help="rate gain (> 0, dimensionless)")
    parser.add_argument("--beta", type=float, required=True, help="queue gain (> 0, dimensionless)")
    parser.add_argument(
        "--t-end",
        type=float,
        default=400.0,
        metavar="SECONDS",
        help="simulated time, s (default 400: 20 round trips of the long flow)",
    )
    parser.add_argument("--out", metavar="FIG", help="write the figure (.png, .svg or .pdf)")
    parser.add_argument("--csv", metavar="FILE", help="write the time series")
    parser.add_argument("--json", action="store_true", help="print the convergence summary as JSON")


def run(args: argparse.Namespace) -> int:
    check_outputs(args)
    result = network(args.alpha, args.beta, args.scenario, args.t_end)
    if args.csv:
        result.to_csv(args.csv)
    if args.out:
        result.save(args.out)
    if args.json:
        print(result.to_json())
    else:
        report(args, result.summary())
    return 0
