"""Bode diagram of the loop at one (alpha, beta), exact delay (or --pade N), margins marked.

Prints the verdict and margins in one line; --out draws magnitude and phase against
w*d0 with the crossovers marked (python-control's layout); --json prints the margins.
"""

from __future__ import annotations

import argparse

from ..api.point import bode
from .output import add_point_arguments, check_outputs

EXAMPLES = (
    ("rcpstab bode --alpha 0.4 --beta 0.2", "verdict and margins of the thesis' gains in one line"),
    ("rcpstab bode --model rcpac --alpha 0.4 --beta 0.1 --out bode.png", "RCP-AC's Bode diagram (phase starts at -270 deg)"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_point_arguments(parser, "diagram", "print the margins as JSON")


def run(args: argparse.Namespace) -> int:
    check_outputs(args)
    result = bode(args.model, args.alpha, args.beta, args.pade)
    if args.out:
        result.save(args.out)
    if args.json:
        print(result.to_json())
    elif not args.quiet:
        print(result.summary())
    return 0
