"""XCP's Theorem 1 against the exact linear region: the bound, where its curve leaves, tightness.

Theorem 1 (xcp-katabi.txt lines 238-260) guarantees stability on beta = sqrt(2) alpha**2 for
0 < alpha < pi/(4 sqrt 2). The exit point is found from the rightmost characteristic root
(independent of the theorem's proof); tightness = exit / bound.
"""

from __future__ import annotations

import argparse

from ..api.linear import theorem1
from .output import model_help

EXAMPLES = (
    ("rcpstab theorem1", "XCP's bound, where its curve leaves the exact region, and the tightness"),
    ("rcpstab theorem1 --details --json", "the same as JSON"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="xcp", help=model_help("xcp"))
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.add_argument("--details", action="store_true", help="also the exit point, root and tightness, one per line")


def run(args: argparse.Namespace) -> int:
    result = theorem1(args.model)
    if args.json:
        print(result.to_json())
        return 0
    if args.quiet:
        return 0
    r = result.value
    if args.details and r["exit_alpha"] is not None:
        print(f"  exit point           (alpha, beta) = ({r['exit_alpha']:.9f}, {r['exit_beta']:.9f})")
        print(f"  root on the axis     s*d0 = +-{r['exit_w']:.9f}j (pi/4 = {3.141592653589793 / 4:.9f})")
        verdict = (
            "tight: the theorem covers its curve exactly up to the linear boundary"
            if abs(r["tightness"] - 1) < 1e-6
            else "conservative"
            if r["tightness"] > 1
            else "NOT sufficient: the curve leaves before the bound"
        )
        print(f"  tightness            exit / bound = {r['tightness']:.9f}: {verdict}")
    print(result.summary())
    return 0
