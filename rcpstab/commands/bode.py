"""Bode diagram of the loop at one (alpha, beta), exact delay (or --pade N), margins marked.

Prints the verdict and margins in one line; --out draws magnitude and phase against
w*d0 with the crossovers marked (python-control's layout); --json prints the margins.
"""
from __future__ import annotations

import json

from ..models import get_model
from .margins import single_gain, summary
from .output import add_point_arguments, check_outputs

EXAMPLES = (
    ("rcpstab bode --alpha 0.4 --beta 0.2", "verdict and margins of the thesis' gains in one line"),
    ("rcpstab bode --model rcpac --alpha 0.4 --beta 0.1 --out bode.png", "RCP-AC's Bode diagram (phase starts at -270 deg)"),
)


def add_arguments(parser):
    add_point_arguments(parser, "diagram", "print the margins as JSON")


def run(args) -> int:
    from ..linear.bode_plot import bode_response, save_bode_figure
    from ..linear.nyquist import check_pade

    model = get_model(args.model)
    alpha, beta = single_gain(args.alpha, "alpha"), single_gain(args.beta, "beta")
    pade = check_pade(args.pade)
    check_outputs(args)
    response = bode_response(model, alpha, beta, pade)
    if args.out:
        save_bode_figure(response, args.out)
    if args.json:
        print(json.dumps(response.margins.to_dict(), allow_nan=False))
    elif not args.quiet:
        print(summary(model.name, response.margins))
    return 0
