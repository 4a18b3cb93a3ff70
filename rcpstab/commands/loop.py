"""``rcpstab margins --tf NUM DEN --delay SECONDS``: margins of any SISO loop with a delay.

NUM and DEN are comma-separated coefficients in s (rad/s), highest power first, as python-control
writes them: ``--tf 2 1,-1 --delay 0.3`` is L(s) = 2 e^{-0.3 s}/(s - 1). Several ``--delay`` values
add (an input and an output delay). Output in SI units: rad/s and seconds.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from .. import api
from ..api.validation import check_value
from ..errors import InputError
from .output import TypedNumber, report

__all__ = ["add_loop_arguments", "parse_coefficients", "run_loop"]


def add_loop_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tf",
        nargs=2,
        metavar=("NUM", "DEN"),
        help="an LTI loop instead of a model: coefficients in s, highest power first, comma-separated "
        "(e.g. --tf 2 1,-1 for 2/(s - 1))",
    )
    parser.add_argument(
        "--delay",
        type=str,
        action="append",
        metavar="SECONDS",
        help="with --tf: the loop delay in seconds (repeat to add an input and an output delay)",
    )
    parser.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="with --model dcqcn or timely: a parameter by the paper's name, SI units (e.g. --param N=10 --param tau_star=50e-6)",
    )


def parse_coefficients(text: str, name: str) -> list[float]:
    """Comma-separated finite numbers (``1,-1``), naming the bad value."""
    try:
        values = [float(x) for x in text.split(",")]
    except ValueError:
        raise InputError(f"--tf {name} {text!r}: expected comma-separated numbers, e.g. 1,-1") from None
    if not values or any(v != v or v in (float("inf"), float("-inf")) for v in values):
        raise InputError(f"--tf {name} {text!r}: coefficients must be finite")
    return values


def _delays(texts: Sequence[str] | None) -> list[float]:
    out = []
    for t in texts or ["0"]:
        try:
            value = TypedNumber(t)  # the refusal names the delay as typed (1e9, not 1000000000.0)
        except ValueError:
            raise InputError(f"--delay {t!r}: expected seconds, e.g. 0.3") from None
        out.append(check_value("loop_delay", value, "--delay"))
    return out


def parse_params(texts: Sequence[str] | None) -> dict[str, float]:
    """``NAME=VALUE`` pairs (``N=10``) as {name: float}, naming a bad one."""
    out = {}
    for text in texts or []:
        name, sep, value = text.partition("=")
        try:
            if not sep or not name:
                raise ValueError
            out[name.strip()] = float(value)
        except ValueError:
            raise InputError(f"--param {text!r}: expected NAME=VALUE, e.g. N=10") from None
    return out


def run_loop(args: argparse.Namespace) -> int:
    given = "--tf" if args.tf is not None else f"--model {args.model}"
    for option, value, belongs in (("--delay", args.delay, "--tf"), ("--param", args.param, "a loop model")):
        if value and (belongs == "--tf") != (args.tf is not None):  # given, but nothing would read it
            raise InputError(f"{option}: only with {belongs}, not with {given}")
    if args.tf is not None:
        num = parse_coefficients(args.tf[0], "NUM")
        den = parse_coefficients(args.tf[1], "DEN")
        m = api.margins((num, den), delay=_delays(args.delay))
        title = f"L(s) = ({args.tf[0]})/({args.tf[1]}) * exp(-{m.delay:g} s)"
    else:
        params = parse_params(args.param)
        m = api.margins(args.model, **params)
        title = f"the {args.model} loop at " + (", ".join(f"{k} = {v:g}" for k, v in params.items()) or "defaults")
    if args.json:
        print(json.dumps(m.to_dict(), allow_nan=False))
        return 0
    if args.quiet:
        return 0

    def v(x: float | None, fmt: str, unit: str = "") -> str:
        return "none" if x is None else f"{x:{fmt}}{unit}"

    print(f"margins of {title}:")
    print(f"  stable               {m.stable} ({m.unstable_roots} roots in the right half-plane)")
    print(
        f"  gain margin          {v(m.gain_margin, '.6g')}"
        + (f" (lower {m.gain_margin_lower:.6g})" if m.gain_margin_lower is not None else "")
    )
    print(f"  phase margin         {v(m.phase_margin_deg, '.6g', ' deg')} at {v(m.crossover_w, '.6g', ' rad/s')}")
    print(f"  delay margin         {v(m.delay_margin, '.6g', ' s')}")
    print(
        f"  rightmost root       {m.rightmost_root[0]:.6g} {'+' if m.rightmost_root[1] >= 0 else '-'} "
        f"{abs(m.rightmost_root[1]):.6g}j rad/s"
    )
    print(f"  open-loop RHP poles  {m.open_loop_rhp_poles}")
    for key, text in m.notes.items():
        print(f"  note ({key}): {text}")
    report(
        args,
        f"{title} is {'STABLE' if m.stable else 'UNSTABLE'}: phase margin "
        f"{v(m.phase_margin_deg, '.4g', ' deg')}, delay margin {v(m.delay_margin, '.4g', ' s')}",
    )
    return 0
