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

Scenario fig5.7 (thesis Fig. 5.7, Figs. 5.8-5.9) is a network: every link's router runs App. F,
the fluid side is rcpstab.network (--model rcp only; --rtt and --buffer do not apply; --t-end
defaults to 400 s). --out overlays packet and fluid: rates at L1 and L3 and L1's RTT estimate;
--csv writes t, then per link L in L1, L2, L3 and quantity Q in R_over_C, queue_bytes,
avg_rtt_s (d, eq. 5.17), rtt_sample_s (d_T, eq. 5.16) the columns packet_L_Q, fluid_L_Q;
--json prints scenario, alpha, beta, t_end_s, packet and fluid convergence summaries (per link
L1, L3: <L>_settling_s, <L>_final_rate_bps, <L>_target_rate_bps, <L>_final_error; rtt_final_s,
rtt_target_s, rtt_swings_s, rtt_swing_ratio), packet_over_fluid (ratios of the final rates and
RTT estimate), max_allowable_rtt_ms, packet_events, packet_dropped, wall times, fluid_omits.
"""
from __future__ import annotations

import dataclasses
import json

from ..errors import InputError
from ..reference_impl.cosim import TRANSIENT_RTT, cosimulate
from ..reference_impl.network_cosim import NETWORK_SCENARIOS, NETWORK_T_END_S
from ..reference_impl.run import PROTOCOLS
from ..reference_impl.scenarios import SCENARIOS, get_scenario
from .output import check_outputs, off_target_links, report

EXAMPLES = (
    ("rcpstab cosim --alpha 0.4 --beta 0.6 --scenario fig5.3 --t-end 60", "thesis Fig. 5.3's first 60 s, packet and fluid"),
    ("rcpstab cosim --alpha 0.4 --beta 0.6 --scenario fig5.3 --out fig5_3.png --csv fig5_3.csv",
     "the whole scenario as an overlay figure and a time series"),
)


def add_arguments(parser):
    parser.add_argument("--alpha", type=float, required=True, help="rate gain (> 0)")
    parser.add_argument("--beta", type=float, required=True, help="queue gain (> 0)")
    parser.add_argument("--model", default="rcp", help=f"{', '.join(PROTOCOLS)}: router, senders and fluid model "
                        "(default: rcp; xcp compares y/(N*C))")
    parser.add_argument("--scenario", default="fig5.3", help=f"one of {', '.join([*SCENARIOS, *NETWORK_SCENARIOS])} (default: fig5.3)")
    parser.add_argument("--rtt", type=float, metavar="SECONDS", help="override the scenario's round-trip delay, s")
    parser.add_argument("--buffer", type=int, metavar="BYTES", help="override the bottleneck buffer, bytes")
    parser.add_argument("--t-end", type=float, metavar="SECONDS", help="simulated time, s (default: the scenario's)")
    parser.add_argument("--transient-rtt", type=float, default=TRANSIENT_RTT,
                        help=f"RTTs after each flow-count change left out of the agreement figures (default {TRANSIENT_RTT:g})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the packet run (default 0)")
    parser.add_argument("--out", metavar="FIG", help="write the overlay figure (.png, .svg or .pdf)")
    parser.add_argument("--csv", metavar="FILE", help="write both runs on a common time grid: t (s), packet_R_over_C, "
                        "fluid_R_over_C (-), packet_queue_bytes, fluid_queue_bytes (bytes); fig5.7: see above")
    parser.add_argument("--json", action="store_true", help="print the agreement summary as JSON")


def run(args) -> int:
    check_outputs(args)
    if args.model not in PROTOCOLS:
        raise InputError(f"--model {args.model}: the packet simulator runs {', '.join(PROTOCOLS)}")
    if not args.transient_rtt >= 0:
        raise InputError(f"--transient-rtt {args.transient_rtt}: must be >= 0")
    if args.scenario in NETWORK_SCENARIOS:
        return run_network_scenario(args)
    scenario = get_scenario(args.scenario)
    overrides = {"rtt_s": args.rtt, "buffer_bytes": args.buffer}
    scenario = dataclasses.replace(scenario, **{k: v for k, v in overrides.items() if v is not None})
    result = cosimulate(scenario, args.alpha, args.beta, seed=args.seed, t_end=args.t_end,
                        transient_rtt=args.transient_rtt, model=args.model)
    if args.csv:
        result.to_csv(args.csv)
    if args.out:
        from ..reference_impl.cosim_plot import save_cosim_figure
        save_cosim_figure(result, args.out)
    if args.json:
        print(json.dumps(result.summary()))
    plateaus = ", ".join(f"{s.packet_plateau:.4g}/{s.fluid_plateau:.4g}" for s in result.segments)
    report(args, f"{scenario.name} {args.model} alpha={args.alpha:g} beta={args.beta:g}: R/C plateaus packet/fluid {plateaus}; "
                 f"RMS difference outside transients {result.rms_R_over_C:.3g} ({100 * result.rms_relative:.2g}% of eta/N; "
                 f"the first {args.transient_rtt:g} RTTs after each flow-count change left out)")
    return 0


def run_network_scenario(args) -> int:
    """``cosim --scenario fig5.7``: packet and fluid runs of a multi-link network."""
    from ..reference_impl.network_cosim import cosimulate_network

    if args.model != "rcp":
        raise InputError(f"--model {args.model}: scenario {args.scenario} runs rcp only")
    for option in ("rtt", "buffer"):
        if getattr(args, option) is not None:
            raise InputError(f"--{option}: does not apply to the network scenario {args.scenario}")
    t_end = NETWORK_T_END_S if args.t_end is None else args.t_end
    result = cosimulate_network(args.scenario, args.alpha, args.beta, t_end=t_end)
    if args.csv:
        result.to_csv(args.csv)
    if args.out:
        from ..reference_impl.network_cosim_plot import save_network_cosim_figure
        save_network_cosim_figure(result, args.out)
    summary = result.summary()
    if args.json:
        print(json.dumps(summary))
    else:
        p, f = summary["packet"], summary["fluid"]
        report(args, f"{args.scenario} alpha={args.alpha:g} beta={args.beta:g} after {t_end:g} s, packet/fluid: "
              f"L1 {p['L1_final_rate_bps'] / 1e6:.4g}/{f['L1_final_rate_bps'] / 1e6:.4g} Mb/s "
              f"(target {f['L1_target_rate_bps'] / 1e6:.4g}), L3 {p['L3_final_rate_bps'] / 1e6:.4g}/"
              f"{f['L3_final_rate_bps'] / 1e6:.4g} Mb/s (target {f['L3_target_rate_bps'] / 1e6:.4g}), "
              f"RTT estimate at L1 {p['rtt_final_s']:.4g}/{f['rtt_final_s']:.4g} s (target {f['rtt_target_s']:.4g})"
                     + off_target_links(p, "packet: ") + off_target_links(f, "fluid: "))
    return 0
