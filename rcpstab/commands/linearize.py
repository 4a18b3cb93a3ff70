"""Print a model's linearization about its equilibrium and its open-loop G(s), as a textbook would.

The linear delay system and G(s) are derived symbolically from the model (App. B); the
substitutions made first (eta = 1; rcp-router's T = d0/20, set with --T-over-d0) and the delays
that drop out (rcp's update interval T) are stated with the reason; the normalized characteristic
equation shows which parameters survive (for RCP only alpha and beta: N and C cancel). --latex
prints one compilable ``equation`` environment (--standalone: a whole document).
"""

from __future__ import annotations

import argparse

from ..api.linear import linearize
from .output import model_help, report

EXAMPLES = (
    ("rcpstab linearize --model rcp", "RCP's linear delay system and G(s) (thesis App. B)"),
    ("rcpstab linearize --model xcp --latex", "XCP's, as LaTeX"),
    ("rcpstab linearize --model rcp-router --T-over-d0 0.01", "the router's loop with T = d0/100"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="rcp", help=model_help())
    parser.add_argument(
        "--T-over-d0",
        type=float,
        metavar="RATIO",
        help="for a model that fixes its update interval before linearizing (rcp-router, "
        "rcpac-router: T = d0/20), the ratio T/d0 to use instead",
    )
    parser.add_argument("--latex", action="store_true", help="print a LaTeX equation environment instead of text")
    parser.add_argument("--standalone", action="store_true", help="with --latex: a complete LaTeX document")
    parser.add_argument(
        "--json", action="store_true", help="print the states, substitutions, delays, G(s) and the parameters left as JSON"
    )


def run(args: argparse.Namespace) -> int:
    result = linearize(args.model, T_over_d0=args.T_over_d0)
    if args.json:
        print(result.to_json())
        return 0
    if args.quiet:
        return 0
    if args.latex:
        print(result.latex(standalone=args.standalone))
        return 0
    print(result.text())
    report(args, result.summary())
    return 0
