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

import json

from ..errors import InputError
from ..fct import fct_study, save_fct_figure
from ..packet.hosts.flow_traffic import parse_arrivals, parse_sizes
from .output import add_worker_argument, check_outputs, check_workers

SHORT_FLOW_PKTS = 255  # "flows up to a few hundred packets": the summary's headline range


EXAMPLES = (
    ("rcpstab fct --alpha 0.1 --beta 1.0 --C 10e6 --rtt 0.1 --load 0.5 --flows 2000", "AFCT against processor sharing"),
    ("rcpstab fct --alpha 0.5 --beta 0.4 --C 10e6 --rtt 0.1 --load 0.9 --flows 2000 --json", "the same at load 0.9, as JSON"),
)


def add_arguments(parser):
    parser.add_argument("--alpha", type=float, required=True, help="rate gain (> 0)")
    parser.add_argument("--beta", type=float, required=True, help="queue gain (>= 0)")
    parser.add_argument("--C", type=float, required=True, metavar="BPS", help="bottleneck capacity, bit/s")
    parser.add_argument("--rtt", type=float, required=True, metavar="SECONDS", help="round-trip propagation delay, s")
    parser.add_argument("--load", type=float, required=True, metavar="RHO", help="offered load, in (0, 1)")
    parser.add_argument("--sizes", default="pareto:mean=25,shape=1.2",
                        help="flow sizes in packets (default: pareto:mean=25,shape=1.2, thesis Ch. 4)")
    parser.add_argument("--arrivals", default="poisson", help="poisson (default) or pareto:shape=S (Sec. 4.2.4)")
    parser.add_argument("--buffer-bdp", type=float, default=1.0, metavar="BDP",
                        help="bottleneck buffer in bandwidth-delay products (default 1, thesis Ch. 4)")
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
    sizes = parse_sizes(args.sizes)
    arrivals = parse_arrivals(args.arrivals)
    if args.replications < 1:
        raise InputError(f"--replications {args.replications}: must be at least 1")
    if args.flows < args.replications:
        raise InputError(f"--flows {args.flows}: must be at least --replications ({args.replications})")
    result = fct_study(args.alpha, args.beta, capacity_bps=args.C, rtt_s=args.rtt, load=args.load, sizes=sizes,
                       n_flows=args.flows, buffer_bdp=args.buffer_bdp, arrivals=arrivals, seed=args.seed,
                       replications=args.replications, workers=args.workers, eta=args.eta)
    if args.csv:
        result.to_csv(args.csv)
    if args.out:
        save_fct_figure(result, args.out)
    if args.json:
        print(json.dumps(result.summary(), allow_nan=False))
    elif not args.quiet:
        print(summary_line(result))
    return 0


def summary_line(result) -> str:
    s = result.setup
    short = [b.afct_over_ps for b in result.bins if b.size_hi_pkts <= SHORT_FLOW_PKTS and b.afct_over_ps]
    ratio = (f"AFCT/PS {min(short):.2f}-{max(short):.2f} for flows up to {SHORT_FLOW_PKTS} pkts"
             if short else "AFCT/PS n/a (no PS reference)")
    return (f"fct: RCP ({s.alpha:g}, {s.beta:g}) at C={s.capacity_bps:g} b/s, RTPD={s.rtt_s:g} s, rho={s.load:g} "
            f"(drawn {result.measured_load:.3f}): {result.flows_completed}/{result.flows} flows, {ratio}, "
            f"utilization {result.utilization:.3f}, loss {result.loss_probability:.2e}, "
            f"mean flows {result.mean_active:.2f} (Little {result.little_mean_active:.2f})")
