"""Nyquist plot of the loop at one (alpha, beta), exact delay (or --pade N), with the count.

Prints N (clockwise encirclements of -1), P (open-loop poles in the right half-plane) and
Z = N + P; --out draws G(j w) with its mirror, the unit circle, -1 and the margins.
"""
from __future__ import annotations

import json

from ..models import get_model
from .margins import single_gain
from .output import add_point_arguments, check_outputs

EXAMPLES = (
    ("rcpstab nyquist --alpha 0.4 --beta 0.2", "the encirclement count of the exact-delay loop"),
    ("rcpstab nyquist --alpha 0.4 --beta 0.2 --pade 2 --out nyquist.png", "App. D's Pade-2 loop, drawn"),
)


def add_arguments(parser):
    add_point_arguments(parser, "plot", "print N, P, Z and the margins as JSON")


def run(args) -> int:
    from ..linear.margins import margins
    from ..linear.nyquist import check_pade, nyquist_curve

    model = get_model(args.model)
    alpha, beta = single_gain(args.alpha, "alpha"), single_gain(args.beta, "beta")
    pade = check_pade(args.pade)
    check_outputs(args)
    curve = nyquist_curve(model, alpha, beta, pade)
    m = margins(model, alpha, beta)
    N, P, Z = int(curve.count.clockwise), curve.count.rhp_poles, int(curve.count.unstable)
    if args.out:
        from ..figures import new_figure, save
        from ..linear.nyquist_plot import nyquist_plot
        fig = new_figure((6.4, 6.4))
        nyquist_plot(curve, ax=fig.subplots(), margins=m)
        save(fig, args.out)
    delay = "exact delay" if pade is None else f"Pade-{pade} delay"
    if args.json:
        print(json.dumps({"model": model.name, "alpha": alpha, "beta": beta, "pade": pade, "N": N, "P": P, "Z": Z,
                          "stable": Z == 0, "margins": m.to_dict()}, allow_nan=False))
    elif not args.quiet:
        print(f"{model.name} at alpha = {alpha:g}, beta = {beta:g} ({delay}): N = {N}, P = {P}, Z = {Z}: "
              f"{'STABLE' if Z == 0 else 'UNSTABLE'}")
    return 0
