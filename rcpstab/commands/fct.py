"""Flow completion times of RCP against processor sharing (thesis Ch. 4, Fig. 4.1).

Flows arrive at one RCP bottleneck (Poisson, or Pareto gaps as in Sec. 4.2.4) with sizes
from --sizes, open a connection (the SYN carries the rate request, the SYN-ACK returns the
router's rate), send at the stamped rate and leave; the reference router (App. F) sets the
rate. FCT = SYN sent to last data packet received. Reported per flow-size bin (whole
packets, doubling bins [1,1], [2,3], [4,7], ...): AFCT and largest FCT beside processor
sharing (PS) on the same arrivals (an exact PS queue fed the run's own flows, the headline),
eq. 4.1, 1.5 RTPD + L/(C(1 - rho)), and the lower bound 1.5 RTPD + L/C; then the load, link
utilization, loss probability and the mean number of flows in progress against Little's law.

Load: the run offers exactly --load on the sizes it draws. Sizes and gaps are drawn, then the
gaps are scaled so that the drawn data over C times the span of the arrivals is rho (for the
warm-up and the measurement window separately): the arrival rate comes from the drawn
workload, not from the distribution's mean (Poisson arrivals stay Poisson, conditioned on
their span). Without it a heavy tail (Pareto shape 1.2) offers far less than rho in any
finite run. No bounded Pareto is used.

--sizes: pareto:mean=M,shape=S | exponential:mean=M | fixed:size=L (packets of 1000 bytes,
drawn sizes rounded up to whole packets).

--json prints (times in s; null where a value does not exist):
  bins: one object per non-empty size bin:
    size_lo_pkts, size_hi_pkts   the bin's flow sizes, packets (inclusive)
    flows                        finished flows in the bin
    afct_s, max_fct_s            mean and largest FCT of the bin's flows
    ps_same_arrivals_afct_s      AFCT of the same flows in an exact PS queue fed the same arrivals (+ 1.5 RTPD), null if some flow did not finish
    afct_over_ps                 HEADLINE: afct_s / ps_same_arrivals_afct_s (eq. 4.1 if that is null)
    ps_reference                 which PS afct_over_ps divides by: "same_arrivals" or "eq_4_1"
    ps_afct_s                    eq. 4.1 at --load and the bin's mean size (null: non-Poisson arrivals)
    afct_over_ps_eq41            afct_s / ps_afct_s
    ps_measured_load_afct_s      eq. 4.1 at the offered load of the window
    lower_bound_s                1.5 RTPD + L/C at the bin's mean size

  nominal_load                   --load
  offered_load (= measured_load) data of the flows arriving in the measurement window over C x window
  carried_load (= utilization)   bytes the bottleneck sent in the window over C x window
  loss_probability               packets dropped at the bottleneck over packets offered, in the window
  flows, flows_completed         flows simulated and finished
  afct_s                         mean FCT of all finished flows
  mean_active_flows             time-average flows in progress in the window
  mean_active_flows_stderr      its batch-means standard error
  little_mean_active_flows       lambda x AFCT of the window's flows (Little's law, this system)
  ps_mean_active_flows           lambda x eq. 4.1 at the drawn mean size (Little's law, PS)
  setup                          alpha, beta, C_bps, rtt_s, load, sizes, arrivals, buffer_bytes, packet_bytes, seed, replications

The measurement window runs from the arrival of flow 0.1 x --flows to the last arrival.
--csv writes one row per bin (the bin columns above); --out draws Fig. 4.1 (log axes, PS curve).

--protocol P1,P2,... runs each of rcp, rcpac, xcp on the same arrivals through the packet
simulator's reference routers and senders (--replications seeds from --seed; FCT = SYN to the
last data packet at the receiver) and reports AFCT over PS on the same arrivals for all flows,
flows < 500 and >= 500 packets, the mean queue in BDPs, drops and unfinished flows, each as a
mean with a 95% t-interval over the seeds. --json: {"protocols": {P: {"alpha", "beta", "all",
"small", "large", "queue_bdp" (each {"mean", "ci95", "per_seed"}), "dropped", "unfinished"}},
"seeds"}. tcp is ns-3's TCP NewReno (the bench extra: initial window 2, SACK, 1000-byte packets,
one-BDP drop-tail; FCT from the SYN to the last packet, the FIN, received), refused in one line
without ns-3: rcpstab writes no TCP.

--fixed-rate R1,R2,... (bit/s) runs the optimal-rate U curve instead (thesis App. A): every flow
sent at each fixed rate (router rate held, buffer 1000 BDP), the mean flow duration (FCT - 1.5
RTPD) by the flow simulator, by an exact packet FCFS queue on the same arrivals and by App. A's
model (eqs. A.11/A.12, only for --sizes bpareto:mean=M,shape=S,max=X), beside PS (the duration
of a rate C(1 - rho) with no queue) and RCP with --alpha/--beta on the same arrivals. The flow
simulator's duration also holds the SYN's wait in the same queue (E[Q]/C by PASTA), which the
FCFS queue and App. A leave out; the FCFS queue with the SYNs in it (fcfs_syn_duration_s) is
the flow simulator's within the runs' noise. --json:
{"rows": [{"rate_bps", "rate_over_C", "flowsim_duration_s", "fcfs_duration_s",
"fcfs_syn_duration_s", "fcfs_syn_wait_s" (the FCFS queue with every flow's SYN in it and its
data sent after the SYN has left: mean duration and SYN wait), "app_a_duration_s",
"flowsim_dropped"}, ...], "ps": {"rate_over_C", "duration_s"},
"rcp": {"rate_over_C", "alpha", "beta", "duration_s"}, "mean_size_pkts", "offered_load",
"app_a_excess_at_C_s" (what App. A's duration misses at R = C: the last packet's queue above the
average, (E[L] - P) rho / C; null without a bounded Pareto)}.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..api.flows import DEFAULT_SIZES, fct, fct_fixed_rate, fct_protocols
from .output import DeprecatedAlias, add_worker_argument, check_outputs, check_workers

EXAMPLES = (
    ("rcpstab fct --alpha 0.1 --beta 1.0 --C 10e6 --d0 0.1 --load 0.5 --flows 2000", "AFCT against processor sharing"),
    ("rcpstab fct --alpha 0.5 --beta 0.4 --C 10e6 --d0 0.1 --load 0.9 --flows 2000 --json", "the same at load 0.9, as JSON"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--alpha", type=float, required=True, help="rate gain (> 0)")
    parser.add_argument("--beta", type=float, required=True, help="queue gain (>= 0)")
    parser.add_argument("--C", type=float, required=True, metavar="BPS", help="bottleneck capacity, bit/s")
    parser.add_argument(
        "--d0",
        "--rtt",
        type=float,
        required=True,
        metavar="SECONDS",
        action=DeprecatedAlias,
        help="round-trip propagation delay, s",
    )
    parser.add_argument("--load", type=float, required=True, metavar="RHO", help="offered load, in (0, 1)")
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help=f"flow sizes in packets (default: {DEFAULT_SIZES}, thesis Ch. 4)")
    parser.add_argument("--arrivals", default="poisson", help="poisson (default) or pareto:shape=S (Sec. 4.2.4)")
    parser.add_argument(
        "--buffer",
        "--buffer-bdp",
        type=float,
        default=1.0,
        metavar="BDP",
        action=DeprecatedAlias,
        help="bottleneck buffer in bandwidth-delay products C*d0 (default 1, thesis Ch. 4)",
    )
    parser.add_argument("--flows", type=int, default=10000, metavar="N", help="flows to simulate (default 10000)")
    parser.add_argument("--replications", type=int, default=1, help="independent runs the flows are split over (default 1)")
    parser.add_argument("--eta", type=float, default=1.0, help="router's target utilisation (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of arrivals and sizes (default 0)")
    add_worker_argument(parser)
    parser.add_argument("--out", metavar="FIG", help="write Fig. 4.1 (.png, .svg or .pdf)")
    parser.add_argument("--csv", metavar="FILE", help="write one row per size bin")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--protocol",
        metavar="P1,P2,...",
        help="compare rcp, rcpac, xcp (tcp: needs ns-3) on the same arrivals in the packet "
        "simulator; --alpha/--beta for rcp and rcpac, XCP's own (0.4, 0.226) for xcp",
    )
    parser.add_argument(
        "--fixed-rate",
        metavar="R1,R2,...",
        help="the U curve instead (App. A): every flow at each fixed rate (bit/s, <= C); "
        "--sizes may be bpareto:mean=M,shape=S,max=X for App. A's model",
    )


def run(args: argparse.Namespace) -> int:
    check_outputs(args)
    check_workers(args)
    if args.fixed_rate is not None:
        return run_fixed_rate(args)
    if args.protocol is not None:
        return run_protocols(args)
    result = fct(
        args.alpha,
        args.beta,
        C=args.C,
        d0=args.d0,
        load=args.load,
        sizes=args.sizes,
        arrivals=args.arrivals,
        buffer_bdp=args.buffer,
        flows=args.flows,
        replications=args.replications,
        eta=args.eta,
        seed=args.seed,
        workers=args.workers,
    )
    if args.csv:
        result.to_csv(args.csv)
    if args.out:
        result.save(args.out)
    if args.json:
        print(result.to_json())
    elif not args.quiet:
        print(result.summary())
    return 0


def run_protocols(args: argparse.Namespace) -> int:
    seeds = list(range(args.seed, args.seed + args.replications))
    out = fct_protocols(
        args.protocol,
        args.alpha,
        args.beta,
        C=args.C,
        d0=args.d0,
        load=args.load,
        sizes=args.sizes,
        flows=args.flows,
        seeds=seeds,
        buffer_bdp=args.buffer,
    )
    if args.json:
        print(json.dumps({"protocols": out, "seeds": seeds}, allow_nan=False))
    elif not args.quiet:

        def ci(d: dict[str, Any]) -> str:
            if d["mean"] is None:
                return "n/a"
            return f"{d['mean']:.2f}" + ("" if d["ci95"] is None else f" +- {d['ci95']:.2f}")

        print(
            f"fct --protocol: C={args.C:g} b/s, RTPD={args.d0:g} s, load {args.load:g}, {args.flows} flows x "
            f"{len(seeds)} seeds; AFCT / PS on the same arrivals (95% CI over seeds)"
        )
        for name, r in out.items():
            label = "ns-3 NewReno" if name == "tcp" else f"{r['alpha']:g}, {r['beta']:g}"
            print(
                f"  {name:5s} ({label}): all {ci(r['all'])}, <500 pkts {ci(r['small'])}, "
                f">=500 pkts {ci(r['large'])}; queue {ci(r['queue_bdp'])} BDP, drops {r['dropped']}, "
                f"unfinished {r['unfinished']}"
            )
    return 0


def run_fixed_rate(args: argparse.Namespace) -> int:
    out = fct_fixed_rate(
        args.fixed_rate,
        args.alpha,
        args.beta,
        C=args.C,
        d0=args.d0,
        load=args.load,
        sizes=args.sizes,
        flows=args.flows,
        seed=args.seed,
    )
    if args.json:
        print(json.dumps(out, allow_nan=False))
    elif not args.quiet:

        def ms(x: float | None) -> str:
            return "n/a" if x is None else f"{x * 1e3:.2f}"

        print(
            f"fct --fixed-rate: C={args.C:g} b/s, load {out['offered_load']:.3f}, mean size "
            f"{out['mean_size_pkts']:.1f} pkts; mean flow duration (ms) by flow simulator / FCFS queue with "
            "the SYNs (of which the SYN's wait) / FCFS queue / App. A"
        )
        for r in out["rows"]:
            print(
                f"  R = {r['rate_over_C']:.3f} C: {ms(r['flowsim_duration_s'])} / {ms(r['fcfs_syn_duration_s'])} "
                f"({ms(r['fcfs_syn_wait_s'])}) / {ms(r['fcfs_duration_s'])} / {ms(r['app_a_duration_s'])}"
            )
        print(
            "  The flow simulator's duration holds its SYN's wait in the same queue (E[Q]/C, PASTA) and its data "
            "start once the SYN has left it; the FCFS queue and App. A count the data alone (L/R + Q_l/C)"
        )
        if out["app_a_excess_at_C_s"] is not None:
            print(
                "  App. A's E[Q_l] = E[Q_a] leaves out the last packet's queue above the average: "
                f"(E[L] - P) rho / C = {ms(out['app_a_excess_at_C_s'])} at R = C (exact from C up); below C its "
                "M/Pareto/K step (A.7) errs most"
            )
        print(
            f"  PS: {ms(out['ps']['duration_s'])} (rate C(1 - rho) = {out['ps']['rate_over_C']:.3f} C, no queue); "
            f"RCP ({args.alpha:g}, {args.beta:g}): {ms(out['rcp']['duration_s'])} at mean R = "
            f"{out['rcp']['rate_over_C']:.3f} C"
        )
    return 0
