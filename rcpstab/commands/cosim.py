"""Co-simulate a scenario packet by packet and with a fluid model (rcp, xcp, rcpac), and compare them.

Runs the reference router and hosts and the fluid model on the same scenario (capacity,
RTT, eta, flow schedule as N(t)); --out overlays R/C and the queue (two panels), --csv writes
the columns t,packet_R_over_C,fluid_R_over_C,packet_queue_bytes,fluid_queue_bytes (s, -, -,
bytes, bytes) on a common grid, --json prints the agreement summary::

  scenario, alpha, beta       the run
  transient_rtt               RTTs after each flow-count change left out of the figures below
  settle_band                 relative band of eta/N used for settling times
  rms_R_over_C                RMS of packet minus fluid R/C outside transients
  rms_relative                the same divided by eta/N (fraction of the fair share)
  segments                    per constant flow count: start_s, stop_s, n_flows, equilibrium (eta/N),
                              packet_plateau, fluid_plateau (mean R/C after the transient),
                              packet_settling_s, fluid_settling_s (null: never settles), rms_R_over_C
  packet_wall_time_s, fluid_wall_time_s
  fluid_omits                 what the fluid model leaves out
  conservation                packets sent, delivered, dropped, in_flight (sent = the other three summed)

Scenario flash-crowd: N long-lived flows at equilibrium, then 9 N more at once, with a drop-tail
buffer of --buffer bandwidth-delay products (default 1) in the packet run and the same buffer in
the fluid model (queue held in [0, B], overflow dropped). Default network 100 Mb/s, 50 ms, N = 2
(--C, --d0, --N change it). --model rcp-router compares the RCP packet run with the fluid model
that has the router's timing and RTT average (the one it should match; --model rcp: eqs. 5.1-5.4,
whose d = d0 + q/C the router's average does not follow). --json prints, for each of "fluid" and "packet", peak_queue_bdp,
dropped_bdp (C*d0, after the crowd), recovery_rtt (RTTs from the crowd's first data at the router
until R/C and the queue re-enter the convergence band and stay; null with a reason when not
measured), the band used and the measurements that explain a difference (trough_R_over_C,
overload_rtt, overload_input, stall_rtt, overload_d_over_d0); then relative_difference,
differences (each disagreement beyond 30% with its measured cause) and conservation (sent,
delivered, dropped, in_flight packets). --out draws R/C, the queue and the drops of both runs.

Scenario fig5.7 (thesis Fig. 5.7, Figs. 5.8-5.9) is a network: every link's router runs App. F,
the fluid side is rcpstab.network (--model rcp only; --d0 and --buffer do not apply; --t-end
defaults to 400 s). --out overlays packet and fluid: rates at L1 and L3 and L1's RTT estimate;
--csv writes t, then per link L in L1, L2, L3 and quantity Q in R_over_C, queue_bytes,
avg_rtt_s (d, eq. 5.17), rtt_sample_s (d_T, eq. 5.16) the columns packet_L_Q, fluid_L_Q;
--json prints scenario, alpha, beta, t_end_s, packet and fluid convergence summaries (per link
L1, L3: <L>_settling_s, <L>_final_rate_bps, <L>_target_rate_bps, <L>_final_error; rtt_final_s,
rtt_target_s, rtt_swings_s, rtt_swing_ratio), packet_over_fluid (ratios of the final rates and
RTT estimate), max_allowable_rtt_ms, packet_events, packet_dropped, wall times, fluid_omits.
"""

from __future__ import annotations

import argparse

from ..api.runs import NETWORK_SCENARIOS, cosim, default_transient_rtt, packet_models, scenario_names
from ..errors import InputError
from .output import DeprecatedAlias, buffer_bdp, check_outputs, report

EXAMPLES = (
    ("rcpstab cosim --alpha 0.4 --beta 0.6 --scenario fig5.3 --t-end 60", "thesis Fig. 5.3's first 60 s, packet and fluid"),
    (
        "rcpstab cosim --alpha 0.4 --beta 0.6 --scenario fig5.3 --out fig5_3.png --csv fig5_3.csv",
        "the whole scenario as an overlay figure and a time series",
    ),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--alpha", type=float, required=True, help="rate gain (> 0)")
    parser.add_argument("--beta", type=float, required=True, help="queue gain (> 0)")
    parser.add_argument(
        "--model",
        default="rcp",
        help=f"{', '.join(packet_models())} or a protocol file defining "
        "MODEL and PACKET_PROTOCOL: router, senders and fluid model "
        "(default: rcp; xcp compares y/(N*C); rcp-router, rcpac-router: the RCP, RCP-AC router "
        "against the fluid model with its timing)",
    )
    parser.add_argument(
        "--scenario",
        default="fig5.3",
        help=f"one of {', '.join(scenario_names())}, or a topology file (.toml/.json, run as a "
        "network; format: examples/topologies/fig5.7.toml) (default: fig5.3)",
    )
    parser.add_argument(
        "--d0",
        "--rtt",
        type=float,
        metavar="SECONDS",
        action=DeprecatedAlias,
        help="override the scenario's round-trip propagation delay, s",
    )
    parser.add_argument(
        "--buffer",
        type=buffer_bdp,
        metavar="BDP",
        help="bottleneck buffer in bandwidth-delay products C*d0, packet and fluid alike (default: the scenario's, 1)",
    )
    parser.add_argument("--C", type=float, metavar="BPS", help="flash-crowd: bottleneck capacity, bit/s (default 100e6)")
    parser.add_argument("--N", type=int, metavar="FLOWS", help="flash-crowd: flows before the crowd (default 2)")
    parser.add_argument("--t-end", type=float, metavar="SECONDS", help="simulated time, s (default: the scenario's)")
    parser.add_argument(
        "--transient-rtt",
        type=float,
        default=default_transient_rtt(),
        help=f"RTTs after each flow-count change left out of the agreement figures (default {default_transient_rtt():g})",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the packet run (default 0)")
    parser.add_argument(
        "--seeds",
        type=int,
        metavar="N",
        help="N runs (seeds 0..N-1), each quantity's mean with a 95%% "
        "Student-t interval; --csv writes quantity, mean, std, ci_low, ci_high, n. A topology file: "
        "its packet run, the seeds drawing its start_jitter_s; a single-link preset: the whole "
        "co-simulation, the seeds drawing the starts within --start-jitter (required: the presets "
        "have no other random input)",
    )
    parser.add_argument(
        "--start-jitter",
        type=float,
        metavar="S",
        help="single-link presets: each flow starts at its "
        "scripted time plus a uniform draw from [0, S) s, from the seed (default: none)",
    )
    parser.add_argument("--out", metavar="FIG", help="write the overlay figure (.png, .svg or .pdf)")
    parser.add_argument(
        "--csv",
        metavar="FILE",
        help="write both runs on a common time grid: t (s), packet_R_over_C, "
        "fluid_R_over_C (-), packet_queue_bytes, fluid_queue_bytes (bytes); fig5.7: see above",
    )
    parser.add_argument(
        "--flows-csv",
        metavar="FILE",
        help="network or topology file: the packet run's per-flow "
        "trace, one row per flow and second: flow, t_s, delivered_bytes, throughput_bps",
    )
    parser.add_argument(
        "--links-csv",
        metavar="FILE",
        help="network or topology file: the packet run's per-link "
        "trace, one row per link and timer expiry: link, t_s, R_over_C, queue_bytes, avg_rtt_s, "
        "rtt_sample_s, interval_s, utilization",
    )
    parser.add_argument("--json", action="store_true", help="print the agreement summary as JSON")


def run(args: argparse.Namespace) -> int:
    check_outputs(args)
    if args.csv and args.scenario == "flash-crowd":
        raise InputError("--csv: the flash-crowd scenario writes --json and --out (the runs have different grids)")
    if (args.flows_csv or args.links_csv) and (args.seeds is not None or not _is_network(args.scenario)):
        raise InputError("--flows-csv/--links-csv: for one run of a network scenario or topology file")
    result = cosim(
        args.alpha,
        args.beta,
        args.scenario,
        args.model,
        d0=args.d0,
        buffer_bdp=args.buffer,
        C=args.C,
        N=args.N,
        t_end=args.t_end,
        transient_rtt=args.transient_rtt,
        seed=args.seed,
        seeds=args.seeds,
        start_jitter_s=args.start_jitter,
    )
    if args.csv:
        result.to_csv(args.csv)
    for path, table in ((args.flows_csv, "flows"), (args.links_csv, "links")):
        if path:
            result.packet_run.to_csv(path, table)
    if args.out:
        result.save(args.out)
    if args.json:
        print(result.to_json())
    elif not args.quiet:
        for text in result.differences():  # each disagreement's measured cause, above the one line
            print(f"  differs, {text}")
    report(args, result.summary())
    return 0


def _is_network(scenario: str) -> bool:
    return scenario in NETWORK_SCENARIOS or scenario.endswith((".toml", ".json"))
