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


def add_arguments(parser):
    parser.add_argument("--model", default="rcp", help="model name (default: rcp)")
    parser.add_argument("--alpha", type=str, required=True, help="rate gain alpha (> 0)")
    parser.add_argument("--beta", type=str, required=True, help="queue gain beta (> 0)")
    parser.add_argument("--json", action="store_true", help="print a JSON object")


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
    print(f"model {model.name}, alpha = {m.alpha:g}, beta = {m.beta:g}: {'STABLE' if m.stable else 'UNSTABLE'}")
    print(f"  gain margin          {gm}")
    print(f"  phase margin         {m.phase_margin_deg:.6g} deg")
    print(f"  gain crossover       w*d0 = {m.crossover_w:.6g}")
    print(f"  phase crossover      w*d0 = {wc}")
    print(f"  delay margin         {m.delay_margin:.6g} d0")
    print(f"  rightmost root       s*d0 = {re:.6g} {'+' if im >= 0 else '-'} {abs(im):.6g}j")
    return 0
