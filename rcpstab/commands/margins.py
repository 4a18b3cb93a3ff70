"""Gain, phase and delay margins and the rightmost root at one (alpha, beta).

Frequencies are normalized (w*d0) and the delay margin is in round trips (units of d0).
"""
from __future__ import annotations

import json
import math

from ..errors import InputError
from ..models import get_model
from ..regions.grid import parse_range
from ..regions.margins import margins
from .output import model_help, report

EXAMPLES = (
    ("rcpstab margins --alpha 0.4 --beta 0.2", "margins of the thesis' recommended gains, as a table"),
    ("rcpstab margins --model xcp --alpha 0.4 --beta 0.226 --json", "XCP's published gains, as JSON"),
)


def add_arguments(parser):
    parser.add_argument("--model", default="rcp", help=model_help())
    parser.add_argument("--alpha", type=str, required=True, help="rate gain alpha (> 0, dimensionless)")
    parser.add_argument("--beta", type=str, required=True, help="queue gain beta (> 0, dimensionless)")
    parser.add_argument("--json", action="store_true", help="print a JSON object (null with a reason where a margin does not exist)")


def _gain(text, name):
    values = parse_range(text, name)
    if values.size != 1:
        raise InputError(f"--{name} {text!r}: expected a single number")
    return float(values[0])


def run(args) -> int:
    model = get_model(args.model)
    m = margins(model, _gain(args.alpha, "alpha"), _gain(args.beta, "beta"))
    if args.json:
        print(json.dumps(m.to_dict()))
        return 0
    gm = "none (phase never returns to -180 deg: alpha/beta <= 1)" if m.gain_margin is None else \
        f"{m.gain_margin:.6g} ({20 * math.log10(m.gain_margin):.3g} dB)"
    wc = "none" if m.phase_crossover_w is None else f"{m.phase_crossover_w:.6g}"
    re, im = m.rightmost_root
    if args.quiet:
        return 0
    print(f"margins of model {model.name} at alpha = {m.alpha:g}, beta = {m.beta:g} (normalized: w*d0, s*d0):")
    print(f"  gain margin          {gm}")
    print(f"  phase margin         {m.phase_margin_deg:.6g} deg")
    print(f"  gain crossover       w*d0 = {m.crossover_w:.6g}")
    print(f"  phase crossover      w*d0 = {wc}")
    print(f"  delay margin         {m.delay_margin:.6g} d0")
    print(f"  rightmost root       s*d0 = {re:.6g} {'+' if im >= 0 else '-'} {abs(im):.6g}j")
    report(args, f"{model.name} at alpha = {m.alpha:g}, beta = {m.beta:g} is {'STABLE' if m.stable else 'UNSTABLE'} "
                 f"(linear loop): rightmost root Re(s*d0) = {re:.3g}, phase margin {m.phase_margin_deg:.3g} deg, "
                 f"delay margin {m.delay_margin:.3g} d0")
    return 0
