"""Run RCP's fluid model on a multi-link network scenario (thesis Fig. 5.7, Figs. 5.8-5.9).

Scenario fig5.7: L1 155 Mb/s and L3 100 Mb/s (1 ms), L2 622 Mb/s (10 s); 49 flows with a
4 ms RTT cross L1 and L3, one flow with a 20 s RTT crosses L1 and L2. Every link runs
App. F's control path with the RTT estimator of eqs. 5.16-5.17. --out draws the rates at
L1 and L3 and the RTT estimate at L1; --csv writes t_s,L1_rate_bps,L3_rate_bps,
L1_avg_rtt_s,L1_rtt_sample_s,L1_queue_bits,L3_queue_bits; --json prints the convergence
summary (settling times, final rates against the max-min targets, RTT-estimate swings).
"""
from __future__ import annotations

import csv
import json
import math

from ..errors import InputError
from ..network.convergence import summarize
from ..network.fig57 import simulate_fig57
from ..runtime.validation import check_run_cost
from .output import check_outputs, off_target_links, report

EXAMPLES = (
    ("rcpstab network --alpha 0.1 --beta 1.0 --t-end 100", "the three-link network for 100 s, summary only"),
    ("rcpstab network --alpha 0.1 --beta 1.0 --out fig5_8.png --csv fig5_8.csv", "Figs. 5.8-5.9 as a figure and a time series"),
)

SCENARIOS = {"fig5.7": simulate_fig57}
MIN_T_END_S = 1.0                        # shorter runs record too little to summarize
CPU_S_PER_S, BYTES_PER_S = 0.03, 30e3    # rough cost per simulated second (benchmark of fig5.7)


def add_arguments(parser):
    parser.add_argument("--scenario", default="fig5.7", help=f"scenario: one of {', '.join(SCENARIOS)} (default: fig5.7)")
    parser.add_argument("--alpha", type=float, required=True, help="rate gain (> 0, dimensionless)")
    parser.add_argument("--beta", type=float, required=True, help="queue gain (> 0, dimensionless)")
    parser.add_argument("--t-end", type=float, default=400.0, metavar="SECONDS",
                        help="simulated time, s (default 400: 20 round trips of the long flow)")
    parser.add_argument("--out", metavar="FIG", help="write the figure (.png, .svg or .pdf)")
    parser.add_argument("--csv", metavar="FILE", help="write the time series")
    parser.add_argument("--json", action="store_true", help="print the convergence summary as JSON")


def run(args) -> int:
    if args.scenario not in SCENARIOS:
        raise InputError(f"--scenario {args.scenario!r}: choose from {', '.join(SCENARIOS)}")
    for name in ("alpha", "beta"):
        value = getattr(args, name)
        if not value > 0:
            raise InputError(f"--{name} {value}: must be > 0")
    if not args.t_end >= MIN_T_END_S:
        raise InputError(f"--t-end {args.t_end:g}: too short to summarize (at least {MIN_T_END_S:g} s)")
    check_run_cost(f"network --t-end {args.t_end:g}", args.t_end * CPU_S_PER_S, args.t_end * BYTES_PER_S)
    check_outputs(args)
    result = SCENARIOS[args.scenario](args.alpha, args.beta, t_end=args.t_end)
    if args.csv:
        write_csv(result, args.csv)
    if args.out:
        from ..network.plotting import save_network_figure
        save_network_figure(result, args.out)
    (summary,) = summarize(result)
    if args.json:
        strict = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in summary.items()}
        print(json.dumps({"scenario": args.scenario, "t_end_s": args.t_end, **strict}, allow_nan=False))
    else:
        report(args, f"{args.scenario} at alpha={args.alpha:g}, beta={args.beta:g} after {args.t_end:g} s: "
              f"L1 {summary['L1_final_rate_bps'] / 1e6:.4g} Mb/s (target {summary['L1_target_rate_bps'] / 1e6:.4g}), "
              f"L3 {summary['L3_final_rate_bps'] / 1e6:.4g} Mb/s (target {summary['L3_target_rate_bps'] / 1e6:.4g}), "
              f"RTT estimate at L1 {summary['rtt_final_s']:.4g} s (target {summary['rtt_target_s']:.4g})"
                     + off_target_links(summary))
    return 0


def write_csv(result, path: str) -> None:
    """One row per recorded sample of the (single) run."""
    l1, l3 = result.link("L1"), result.link("L3")
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["t_s", "L1_rate_bps", "L3_rate_bps", "L1_avg_rtt_s", "L1_rtt_sample_s",
                         "L1_queue_bits", "L3_queue_bits"])
        for k, t in enumerate(result.t):
            writer.writerow([repr(float(v)) for v in (t, result.rate[k, l1, 0], result.rate[k, l3, 0],
                                                      result.avg_rtt[k, l1, 0], result.rtt_sample[k, l1, 0],
                                                      result.queue[k, l1, 0], result.queue[k, l3, 0])])
