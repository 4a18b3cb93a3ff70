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
(--C, --rtt, --N change it). --model rcp-router compares the RCP packet run with the fluid model
that has the router's timing and RTT average (the one it should match; --model rcp: eqs. 5.1-5.4,
whose d = d0 + q/C the router's average does not follow). --json prints, for each of "fluid" and "packet", peak_queue_bdp,
dropped_bdp (C*d0, after the crowd), recovery_rtt (RTTs from the crowd's first data at the router
until R/C and the queue re-enter the convergence band and stay; null with a reason when not
measured), the band used and the measurements that explain a difference (trough_R_over_C,
overload_rtt, overload_input, stall_rtt, overload_d_over_d0); then relative_difference,
differences (each disagreement beyond 30% with its measured cause) and conservation (sent,
delivered, dropped, in_flight packets). --out draws R/C, the queue and the drops of both runs.

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

from ..cosim.network import NETWORK_SCENARIOS, NETWORK_T_END_S
from ..cosim.packet_vs_fluid import PACKET_PROTOCOL, TRANSIENT_RTT, cosimulate
from ..errors import InputError
from ..models import get_model, is_model_path
from ..packet.protocols.registry import model_protocol
from ..packet.simulator.run import PROTOCOLS
from ..packet.simulator.scenarios import FLASH_CROWD, SCENARIOS, flash_crowd, get_scenario
from ..packet.simulator.segments import flow_segments
from ..runtime.validation import check_integer, check_run_cost
from .output import buffer_bdp, check_outputs, off_target_links, report

EXAMPLES = (
    ("rcpstab cosim --alpha 0.4 --beta 0.6 --scenario fig5.3 --t-end 60", "thesis Fig. 5.3's first 60 s, packet and fluid"),
    ("rcpstab cosim --alpha 0.4 --beta 0.6 --scenario fig5.3 --out fig5_3.png --csv fig5_3.csv",
     "the whole scenario as an overlay figure and a time series"),
)

# Rough costs per simulated second (benchmark runs of fig5.3 and fig5.7), for refusing runs that
# would not fit: the single-link trace keeps one sample per control interval min(RTT, 10 ms).
TRACE_BYTES_PER_SAMPLE = 240
CPU_S_PER_SAMPLE = 1.2e-5
NETWORK_BYTES_PER_S, NETWORK_CPU_PER_S = 130e3, 0.03


def add_arguments(parser):
    parser.add_argument("--alpha", type=float, required=True, help="rate gain (> 0)")
    parser.add_argument("--beta", type=float, required=True, help="queue gain (> 0)")
    parser.add_argument("--model", default="rcp", help=f"{', '.join(PROTOCOLS)} or a protocol file defining MODEL and "
                        "PACKET_PROTOCOL: router, senders and fluid model "
                        "(default: rcp; xcp compares y/(N*C); rcp-router, rcpac-router: the RCP, RCP-AC router "
                        "against the fluid model with its timing)")
    parser.add_argument("--scenario", default="fig5.3", help=f"one of {', '.join([*SCENARIOS, *NETWORK_SCENARIOS])} (default: fig5.3)")
    parser.add_argument("--rtt", type=float, metavar="SECONDS", help="override the scenario's round-trip delay, s")
    parser.add_argument("--buffer", type=buffer_bdp, metavar="BDP",
                        help="bottleneck buffer in bandwidth-delay products C*d0, packet and fluid alike "
                             "(default: the scenario's, 1)")
    parser.add_argument("--C", type=float, metavar="BPS", help="flash-crowd: bottleneck capacity, bit/s (default 100e6)")
    parser.add_argument("--N", type=int, metavar="FLOWS", help="flash-crowd: flows before the crowd (default 2)")
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
    if args.model not in (*PROTOCOLS, *PACKET_PROTOCOL) and not (is_model_path(args.model)
                                                                  and model_protocol(get_model(args.model))):
        raise InputError(f"--model {args.model}: the packet simulator runs {', '.join(PROTOCOLS)}")
    if not args.transient_rtt >= 0:
        raise InputError(f"--transient-rtt {args.transient_rtt}: must be >= 0")
    if args.scenario in NETWORK_SCENARIOS:
        return run_network_scenario(args)
    if args.scenario == FLASH_CROWD.name:
        return run_flash_crowd(args)
    for option in ("C", "N"):
        if getattr(args, option) is not None:
            raise InputError(f"--{option}: only for the flash-crowd scenario")
    scenario = get_scenario(args.scenario)
    buffer = None if args.buffer is None else check_integer(
        "buffer_bytes", max(int(round(args.buffer * scenario.bdp_bytes)), 1), "--buffer")  # never wraps in C
    overrides = {"rtt_s": args.rtt, "buffer_bytes": buffer}
    scenario = dataclasses.replace(scenario, **{k: v for k, v in overrides.items() if v is not None})
    _check_length(scenario, args)
    result = cosimulate(scenario, args.alpha, args.beta, seed=args.seed, t_end=args.t_end,
                        transient_rtt=args.transient_rtt, model=args.model)
    if args.csv:
        result.to_csv(args.csv)
    if args.out:
        from ..cosim.plot import save_cosim_figure
        save_cosim_figure(result, args.out)
    if args.json:
        print(json.dumps(result.summary()))
    plateaus = ", ".join(f"{s.packet_plateau:.4g}/{s.fluid_plateau:.4g}" for s in result.segments)
    report(args, f"{scenario.name} {args.model} alpha={args.alpha:g} beta={args.beta:g}: R/C plateaus packet/fluid {plateaus}; "
                 f"RMS difference outside transients {result.rms_R_over_C:.3g} ({100 * result.rms_relative:.2g}% of eta/N; "
                 f"the first {args.transient_rtt:g} RTTs after each flow-count change left out)")
    return 0


def run_flash_crowd(args) -> int:
    """``cosim --scenario flash-crowd``: the crowd packet by packet and in the fluid model, same buffer."""
    from ..cosim.flash_crowd import AGREEMENT, check_flash_crowd, flash_crowd_cosim

    if args.csv:
        raise InputError("--csv: the flash-crowd scenario writes --json and --out (the runs have different grids)")
    if args.t_end is not None:
        raise InputError("--t-end: the flash-crowd scenario runs 40 RTTs before and 80 after the crowd")
    default = FLASH_CROWD
    capacity = default.capacity_bps if args.C is None else args.C
    rtt = default.rtt_s if args.rtt is None else args.rtt
    flows = default.n_flows(0.0) if args.N is None else args.N
    check_flash_crowd(capacity, rtt, flows, 1.0 if args.buffer is None else args.buffer)
    scenario = flash_crowd(capacity, rtt, flows, buffer_bdp=1.0 if args.buffer is None else args.buffer)
    result = flash_crowd_cosim(scenario, args.alpha, args.beta, seed=args.seed, model=args.model)
    if args.out:
        from ..cosim.plot import save_flash_crowd_figure
        save_flash_crowd_figure(result, args.out)
    summary = result.summary()
    if args.json:
        print(json.dumps(summary))
    f, p = result.fluid, result.packet

    def rec(r):
        return f"{r.recovery_rtt:.3g} RTTs" if r.reason is None else "not recovered"
    # the one line says whether the two agree; each disagreement's measured cause is printed above it
    differences = summary["differences"]
    if not (args.json or args.quiet):
        for text in differences:
            print(f"  differs, {text}")
    agreement = (f"; {len(differences)} difference(s) beyond {AGREEMENT:.0%}, each with its measured cause above"
                 if differences else f"; they agree within {AGREEMENT:.0%}")
    report(args, f"flash crowd ({args.model}, alpha={args.alpha:g}, beta={args.beta:g}) at "
                 f"{scenario.capacity_bps / 1e6:.4g} Mb/s, {rtt * 1000:.4g} ms, N {flows} -> "
                 f"{scenario.n_flows(result.crowd_s)}, buffer {scenario.effective_buffer_bytes / scenario.bdp_bytes:.3g} "
                 f"C*d0: fluid/packet peak queue {f.peak_queue_bdp:.3g}/{p.peak_queue_bdp:.3g} C*d0, dropped "
                 f"{f.dropped_bdp:.3g}/{p.dropped_bdp:.3g} C*d0, recovery {rec(f)}/{rec(p)}{agreement}")
    return 0


def _check_length(scenario, args) -> None:
    """Refuse a run too short to compare (every plateau would be NaN) or too long to hold in memory."""
    t_end = scenario.t_end_s if args.t_end is None else args.t_end
    transient = args.transient_rtt * scenario.rtt_s
    for segment in flow_segments(scenario, t_end):
        if segment.stop_s - segment.start_s <= transient:
            given = " ".join(f"--{o.replace('_', '-')} {getattr(args, o):g}" for o in ("rtt", "t_end")
                             if getattr(args, o) is not None) or f"scenario {scenario.name}"
            raise InputError(f"{given}: the {segment.n_flows}-flow stretch {segment.start_s:g}-{segment.stop_s:g} s "
                             f"is not longer than the transient ({args.transient_rtt:g} RTTs = {transient:g} s), so "
                             "there is nothing to compare; use a longer --t-end, a shorter --rtt or a smaller "
                             "--transient-rtt")
    samples = t_end / min(scenario.rtt_s, 0.01)
    check_run_cost(f"cosim --t-end {t_end:g}", samples * CPU_S_PER_SAMPLE, samples * TRACE_BYTES_PER_SAMPLE)


def run_network_scenario(args) -> int:
    """``cosim --scenario fig5.7``: packet and fluid runs of a multi-link network."""
    from ..cosim.network import cosimulate_network

    if args.model != "rcp":
        raise InputError(f"--model {args.model}: scenario {args.scenario} runs rcp only")
    for option in ("rtt", "buffer", "C", "N"):
        if getattr(args, option) is not None:
            raise InputError(f"--{option}: does not apply to the network scenario {args.scenario}")
    t_end = NETWORK_T_END_S if args.t_end is None else args.t_end
    check_run_cost(f"cosim --scenario {args.scenario} --t-end {t_end:g}", t_end * NETWORK_CPU_PER_S,
                   t_end * NETWORK_BYTES_PER_S)
    result = cosimulate_network(args.scenario, args.alpha, args.beta, t_end=t_end)
    if args.csv:
        result.to_csv(args.csv)
    if args.out:
        from ..cosim.network_plot import save_network_cosim_figure
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
