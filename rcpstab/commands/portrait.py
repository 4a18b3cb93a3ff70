"""Draw a phase portrait: App. E's six initial conditions in the (R/C, q) plane (Figs. E.1-E.2).

Integrates the model at one (alpha, beta) from R/C in {0.5, 0.1, 0.01} x q in {2*C*d0, 0}
(placed relative to the model's own equilibrium; the full queue held to the buffer when --buffer
is smaller) for --rtts round trips and judges each trajectory (rcpstab.phaseplane.decide, with
its own adaptive horizon); --out draws the trajectories with the equilibrium marked, each
labelled with its verdict, and for a limit cycle the cycle itself (three periods after the
horizon its verdict needed, however long), --csv writes them (columns ic, gamma0, q0_bits,
t_s, R_over_C, queue_bits). The summary line gives each verdict.
"""
from __future__ import annotations

import csv
import math

import numpy as np

from ..errors import InputError
from ..models import get_model
from ..phaseplane.compiled import compile_model
from ..phaseplane.decide import decide
from ..phaseplane.setup import make_integrator, parameter_values
from ..phaseplane.sweep import buffer_bits, configurations, equilibrium_starts
from ..phaseplane.trajectory import simulate
from .output import (
    add_buffer_argument,
    add_param_argument,
    check_outputs,
    model_help,
    network_params,
    network_text,
    report,
)

EXAMPLES = (
    ("rcpstab portrait --alpha 0.4 --beta 0.2 --rtts 50", "App. E's six starts at the thesis' gains, summary only"),
    ("rcpstab portrait --alpha 1.4 --beta 0.8 --out portrait.png --csv portrait.csv", "Fig. E.2's oscillating point, figure and table"),
)
SWING_RTT = 10.0  # the summary's swing is measured over the run's last this many round trips


def add_arguments(parser):
    parser.add_argument("--model", default="rcp", help=model_help())
    parser.add_argument("--alpha", type=float, required=True, help="rate gain (> 0, dimensionless)")
    parser.add_argument("--beta", type=float, required=True, help="queue gain (> 0, dimensionless)")
    parser.add_argument("--C", type=float, metavar="BPS", help="link capacity, bit/s (default 0.15e9)")
    parser.add_argument("--d0", type=float, metavar="SECONDS", help="propagation RTT, s (default 0.2)")
    parser.add_argument("--N", type=float, metavar="FLOWS", help="number of flows (default 10)")
    parser.add_argument("--T", type=float, metavar="SECONDS", help="rate update interval, s (default 0.01)")
    add_param_argument(parser)
    add_buffer_argument(parser)
    parser.add_argument("--rtts", type=float, default=100.0, help="duration in round trips d0 (default 100)")
    parser.add_argument("--out", metavar="FIG", help="write the portrait (.png, .svg or .pdf)")
    parser.add_argument("--csv", metavar="FILE", help="write the trajectories, one row per sample and start: "
                        "ic (index), gamma0 (R/C at t = 0), q0_bits, t_s, R_over_C, queue_bits")


def run(args) -> int:
    model = get_model(args.model)
    check_outputs(args)
    if not args.rtts > 0:
        raise InputError(f"--rtts {args.rtts}: must be > 0")
    (config,) = configurations(model, network_params(model, args, single=True))
    params = dict(config, alpha=args.alpha, beta=args.beta)
    held = buffer_bits(model, args.buffer, params)
    params.update(held)
    gammas, queues = (v[0] for v in equilibrium_starts(model, params))
    if held:  # App. E's full-queue start (2 C*d0) cannot exceed the buffer
        queues = queues.clip(max=next(iter(held.values())))
    rtt = float(compile_model(model).time_scale(*parameter_values(compile_model(model), params)))
    start = {"gamma0": gammas, "q0": queues}
    traj = simulate(model, params, start, args.rtts * rtt)
    judged = decide(model, params, start)
    if args.csv:
        write_csv(traj, args.csv)
    if args.out:
        from ..figures import draw_and_save
        from ..phaseplane.plotting import portrait_plot
        first, second = (sym.name for sym in model.loop_parameters)  # the model's own names of the two gains
        draw_and_save(portrait_plot, traj, args.out, verdicts=judged, cycles=limit_cycles(model, params, start, judged),
                      title=f"Phase portrait, model '{model.name}', {first} = {args.alpha:g}, {second} = {args.beta:g}")
    report(args, portrait_summary(traj, config, args.alpha, args.beta, args.rtts, judged))
    return 0


def limit_cycles(model, params, start, judged, periods: float = 3.0) -> dict:
    """``{index: (gamma, queue_bits)}`` over ``periods`` periods of each limit cycle, recorded every
    step after the horizon its verdict needed (the trajectory is then on the cycle)."""
    cycles = {}
    for b in np.flatnonzero(judged.names == "limit_cycle"):
        one = {k: np.asarray(v)[b] if np.ndim(v) else v for k, v in start.items()}
        integrator = make_integrator(model, params, one)
        steps_per_rtt = float(np.max(integrator.model.time_scale(*integrator.params))) / integrator.dt
        integrator.run(int(math.ceil(judged.horizon_rtt[b] * steps_per_rtt)))
        period = judged.period_rtt[b] if np.isfinite(judged.period_rtt[b]) else 20.0
        rows = integrator.run(int(math.ceil(periods * period * steps_per_rtt)), record_every=1)
        states = [rows[:, 0, i] for i in range(rows.shape[2])]
        values = integrator.params
        cycles[int(b)] = tuple(np.broadcast_to(f(*states, *values), states[0].shape)
                               for f in (integrator.model.gamma, integrator.model.queue))
    return cycles


def portrait_summary(traj, config, alpha, beta, rtts, judged=None) -> str:
    """Each start's verdict (with its adaptive horizon), how many end in the band, and how far R/C still swings."""
    from ..verdicts.band import STANDARD, band_distance

    last = traj.rtt >= traj.rtt[-1] - min(SWING_RTT, rtts / 2)
    inside = band_distance(traj.gamma[-1], traj.queue[-1], traj.gamma_eq, traj.queue_eq,
                           traj.queue_scale) <= 1.0
    swing = np.max(np.abs(traj.gamma[last] / traj.gamma_eq - 1.0))
    verdicts = "" if judged is None else (
        ", ".join(f"{int((judged.names == v).sum())} {v.replace('_', ' ')}" for v in dict.fromkeys(judged.names))
        + " of App. E's six starts; ")
    return (f"{traj.model.name} at alpha = {alpha:g}, beta = {beta:g} ({network_text(config)}): {verdicts}after {rtts:g} RTTs "
            f"{int(inside.sum())} of {inside.size} starts end inside the convergence band ({STANDARD.describe('C*d0')}) "
            f"and over the last {min(SWING_RTT, rtts / 2):g} RTTs R/C deviates up to {100 * swing:.1f}% from equilibrium")


def write_csv(traj, path: str) -> None:
    """One row per sample and initial condition."""
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["ic", "gamma0", "q0_bits", "t_s", "R_over_C", "queue_bits"])
        for b in range(traj.gamma.shape[1]):
            for time, gamma, queue in zip(traj.t, traj.gamma[:, b], traj.queue[:, b]):
                writer.writerow([b, repr(float(traj.gamma[0, b])), repr(float(traj.queue[0, b])),
                                 repr(float(time)), repr(float(gamma)), repr(float(queue))])
