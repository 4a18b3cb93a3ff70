"""Draw a phase portrait: App. E's six initial conditions in the (R/C, q) plane (Figs. E.1-E.2).

Integrates the model at one (alpha, beta) from R/C in {0.5, 0.1, 0.01} x q in {2*C*d0, 0}
for --rtts round trips; --out draws the trajectories with the equilibrium marked,
--csv writes them (columns ic, gamma0, q0_bits, t_s, R_over_C, queue_bits).
"""
from __future__ import annotations

import csv

import numpy as np

from ..errors import InputError
from ..models import get_model
from ..phaseplane.sweep import configurations, initial_conditions
from ..phaseplane.trajectory import simulate
from .output import check_outputs, model_help, network_text, report

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
    parser.add_argument("--rtts", type=float, default=100.0, help="duration in round trips d0 (default 100)")
    parser.add_argument("--out", metavar="FIG", help="write the portrait (.png, .svg or .pdf)")
    parser.add_argument("--csv", metavar="FILE", help="write the trajectories, one row per sample and start: "
                        "ic (index), gamma0 (R/C at t = 0), q0_bits, t_s, R_over_C, queue_bits")


def run(args) -> int:
    model = get_model(args.model)
    check_outputs(args)
    if not args.rtts > 0:
        raise InputError(f"--rtts {args.rtts}: must be > 0")
    (config,) = configurations(model, _listed(args.C), _listed(args.d0), _listed(args.N), args.T)
    gammas, queues = (v[0] for v in initial_conditions(config["C"], config["d0"], config["N"]))
    traj = simulate(model, dict(config, alpha=args.alpha, beta=args.beta), {"gamma0": gammas, "q0": queues},
                    args.rtts * config["d0"])
    if args.csv:
        write_csv(traj, args.csv)
    if args.out:
        from ..figures import draw_and_save
        from ..phaseplane.plotting import portrait_plot
        draw_and_save(portrait_plot, traj, args.out,
                      title=f"Phase portrait, model '{model.name}', alpha = {args.alpha:g}, beta = {args.beta:g}")
    report(args, portrait_summary(traj, config, args.alpha, args.beta, args.rtts))
    return 0


def portrait_summary(traj, config, alpha, beta, rtts) -> str:
    """How many starts end in the convergence band, and how far R/C still swings at the end."""
    from ..core.judgement import band_distance

    last = traj.rtt >= traj.rtt[-1] - min(SWING_RTT, rtts / 2)
    inside = band_distance(traj.gamma[-1], traj.queue[-1], traj.gamma_eq, traj.queue_eq,
                           traj.capacity * traj.d0) <= 1.0
    swing = np.max(np.abs(traj.gamma[last] / traj.gamma_eq - 1.0))
    return (f"{traj.model} at alpha = {alpha:g}, beta = {beta:g} ({network_text(config)}), {rtts:g} RTTs: "
            f"{int(inside.sum())} of {inside.size} starts end inside the convergence band (R within 2%, q within "
            f"1% of C*d0); over the last {min(SWING_RTT, rtts / 2):g} RTTs R/C deviates up to {100 * swing:.1f}% "
            "from equilibrium")


def _listed(value):
    """A single optional value as the list :func:`configurations` sweeps (None: the default)."""
    return None if value is None else [value]


def write_csv(traj, path: str) -> None:
    """One row per sample and initial condition."""
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["ic", "gamma0", "q0_bits", "t_s", "R_over_C", "queue_bits"])
        for b in range(traj.gamma.shape[1]):
            for time, gamma, queue in zip(traj.t, traj.gamma[:, b], traj.queue[:, b]):
                writer.writerow([b, repr(float(traj.gamma[0, b])), repr(float(traj.queue[0, b])),
                                 repr(float(time)), repr(float(gamma)), repr(float(queue))])
