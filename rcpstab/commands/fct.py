"""Flow completion times of RCP against processor sharing (thesis Ch. 4, Fig. 4.1).

Flows arrive at one RCP bottleneck (Poisson, or Pareto gaps as in Sec. 4.2.4) with sizes
from --sizes, open a connection (the SYN carries the rate request, the SYN-ACK returns the
router's rate), send at the stamped rate and leave; the reference router (App. F) sets the
rate. FCT = SYN sent to last data packet received. Reported per flow-size bin (whole
packets, doubling bins [1,1], [2,3], [4,7], ...): AFCT and largest FCT beside processor
sharing's eq. 4.1, 1.5 RTPD + L/(C(1 - rho)), and the lower bound 1.5 RTPD + L/C; then
link utilization, loss probability at the bottleneck and the mean number of flows in
progress against Little's law (lambda x AFCT) and PS (lambda x eq. 4.1).

--sizes: pareto:mean=M,shape=S | exponential:mean=M | fixed:size=L (packets of 1000 bytes;
drawn sizes are rounded up to whole packets and lambda uses their exact mean, so rho is the
offered load). With Pareto shape near 1 a finite run draws less load than rho (infinite
variance): --json reports measured_load and, per bin, ps_measured_load_afct_s (eq. 4.1 at
that load).

--json prints {"bins": [{"size_lo_pkts", "size_hi_pkts", "flows", "afct_s", "max_fct_s",
"ps_afct_s", "lower_bound_s", "afct_over_ps", "ps_measured_load_afct_s"}, ...],
"utilization", "loss_probability", "flows_completed", "flows", "measured_load", "afct_s",
"mean_active_flows", "mean_active_flows_stderr", "little_mean_active_flows",
"ps_mean_active_flows", "setup"} (times in s; null where a value does not exist).
--csv writes one row per bin; --out draws Fig. 4.1 (log axes, PS curve).
"""
from __future__ import annotations

from ..api.flows import DEFAULT_SIZES, fct
from .output import DeprecatedAlias, add_worker_argument, check_outputs, check_workers

EXAMPLES = (
    ("rcpstab fct --alpha 0.1 --beta 1.0 --C 10e6 --d0 0.1 --load 0.5 --flows 2000", "AFCT against processor sharing"),
    ("rcpstab fct --alpha 0.5 --beta 0.4 --C 10e6 --d0 0.1 --load 0.9 --flows 2000 --json", "the same at load 0.9, as JSON"),
)


def add_arguments(parser):
    parser.add_argument("--alpha", type=float, required=True, help="rate gain (> 0)")
    parser.add_argument("--beta", type=float, required=True, help="queue gain (>= 0)")
    parser.add_argument("--C", type=float, required=True, metavar="BPS", help="bottleneck capacity, bit/s")
    parser.add_argument("--d0", "--rtt", type=float, required=True, metavar="SECONDS", action=DeprecatedAlias,
                        help="round-trip propagation delay, s")
    parser.add_argument("--load", type=float, required=True, metavar="RHO", help="offered load, in (0, 1)")
    parser.add_argument("--sizes", default=DEFAULT_SIZES,
                        help=f"flow sizes in packets (default: {DEFAULT_SIZES}, thesis Ch. 4)")
    parser.add_argument("--arrivals", default="poisson", help="poisson (default) or pareto:shape=S (Sec. 4.2.4)")
    parser.add_argument("--buffer", "--buffer-bdp", type=float, default=1.0, metavar="BDP", action=DeprecatedAlias,
                        help="bottleneck buffer in bandwidth-delay products C*d0 (default 1, thesis Ch. 4)")
    parser.add_argument("--flows", type=int, default=10000, metavar="N", help="flows to simulate (default 10000)")
    parser.add_argument("--replications", type=int, default=1,
                        help="independent runs the flows are split over (default 1)")
    parser.add_argument("--eta", type=float, default=1.0, help="router's target utilisation (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of arrivals and sizes (default 0)")
    add_worker_argument(parser)
    parser.add_argument("--out", metavar="FIG", help="write Fig. 4.1 (.png, .svg or .pdf)")
    parser.add_argument("--csv", metavar="FILE", help="write one row per size bin")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args) -> int:
    check_outputs(args)
    check_workers(args)
    result = fct(args.alpha, args.beta, C=args.C, d0=args.d0, load=args.load, sizes=args.sizes,
                 arrivals=args.arrivals, buffer_bdp=args.buffer, flows=args.flows, replications=args.replications,
                 eta=args.eta, seed=args.seed, workers=args.workers)
    if args.csv:
        result.to_csv(args.csv)
    if args.out:
        result.save(args.out)
    if args.json:
        print(result.to_json())
    elif not args.quiet:
        print(result.summary())
    return 0
