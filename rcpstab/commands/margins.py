"""Gain, phase and delay margins and the rightmost root at one (alpha, beta).

Frequencies are normalized (w*d0) and the delay margin is in round trips (units of d0).
The margins are read from the Bode diagram for any loop (also one whose phase starts
below -180 deg, as RCP-AC's does); the verdict comes from the rightmost characteristic
root. Margins that do not exist are printed as "none" with the reason (null in JSON).
"""

from __future__ import annotations

import argparse
import math

from ..api.point import is_loop_model, margins
from ..errors import InputError
from .loop import add_loop_arguments, run_loop
from .output import model_help, report

EXAMPLES = (
    ("rcpstab margins --alpha 0.4 --beta 0.2", "margins of the thesis' recommended gains, as a table"),
    ("rcpstab margins --model xcp --alpha 0.4 --beta 0.226 --json", "XCP's published gains, as JSON"),
    ("rcpstab margins --tf 2 1,-1 --delay 0.3", "any LTI loop: L(s) = 2 e^{-0.3 s}/(s - 1), exact, in rad/s and s"),
    (
        "rcpstab margins --model dcqcn --param N=10 --param tau_star=50e-6 --json",
        "DCQCN (Zhu et al. 2016) with 10 flows and a 50 us feedback delay",
    ),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        default="rcp",
        help=model_help() + "; or dcqcn, timely (Zhu et al. 2016; their parameters with --param NAME=VALUE)",
    )
    parser.add_argument("--alpha", type=str, help="rate gain alpha (> 0, dimensionless)")
    parser.add_argument("--beta", type=str, help="queue gain beta (> 0, dimensionless)")
    add_loop_arguments(parser)
    parser.add_argument(
        "--json", action="store_true", help="print a JSON object (null with a reason where a margin does not exist)"
    )


def _value(x: float | None, fmt: str, unit: str = "", note: str | None = None) -> str:
    if x is None:
        return "none" + (f" ({note})" if note else "")
    return f"{x:{fmt}}{unit}"


def run(args: argparse.Namespace) -> int:
    if args.tf is not None or is_loop_model(args.model):
        return run_loop(args)
    if args.delay:  # read only by an LTI loop: given with a model's gains it was silently ignored
        raise InputError(f"--delay: only with --tf, not with --model {args.model}")
    if args.param:  # a gain model's normalized loop has alpha and beta only: --param N=5 was silently ignored
        raise InputError(
            f"--param {args.param[0]}: margins of model {args.model} take --alpha and --beta only "
            "(--param is for dcqcn, timely and other loop models)"
        )
    if args.alpha is None or args.beta is None:
        raise InputError("margins: --alpha and --beta are required (a model's gains), or give --tf NUM DEN --delay SECONDS")
    result = margins(args.model, args.alpha, args.beta)
    if args.json:
        print(result.to_json())
        return 0
    m = result.value
    notes = m.notes
    gm = m.gain_margin
    gm_text = _value(gm, ".6g", note=notes.get("gain_margin"))
    if gm is not None and gm > 0:
        gm_text += f" ({20 * math.log10(gm):.3g} dB)" + (f"; {notes['gain_margin']}" if "gain_margin" in notes else "")
    re, im = m.rightmost_root
    if args.quiet:
        return 0
    print(f"margins of model {result.inputs['model'].name} (normalized: w*d0, s*d0):")
    print(f"  gain margin          {gm_text}")
    if m.gain_margin_lower is not None:
        print(f"  lower gain margin    {m.gain_margin_lower:.6g} ({notes.get('gain_margin_lower', '')})")
    print(f"  phase margin         {_value(m.phase_margin_deg, '.6g', ' deg', notes.get('phase_margin_deg'))}")
    print(f"  gain crossover       w*d0 = {_value(m.crossover_w, '.6g')}")
    print(f"  phase crossover      w*d0 = {_value(m.phase_crossover_w, '.6g')}")
    dm_text = _value(m.delay_margin, ".6g", " d0", notes.get("delay_margin"))
    if m.delay_margin is not None and "delay_margin" in notes:
        dm_text += f" ({notes['delay_margin']})"
    print(f"  delay margin         {dm_text}")
    print(f"  rightmost root       s*d0 = {re:.6g} {'+' if im >= 0 else '-'} {abs(im):.6g}j")
    print(f"  roots in RHP (Bode)  {m.unstable_roots}")
    report(args, result.summary())
    return 0
