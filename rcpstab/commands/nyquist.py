"""Nyquist plot of the loop at one (alpha, beta), exact delay (or --pade N), with the count.

Prints N (clockwise encirclements of -1), P (open-loop poles in the right half-plane) and
Z = N + P; --out draws G(j w) with its mirror, the unit circle, -1 and the margins.
"""

from __future__ import annotations

import argparse

from ..api.point import nyquist
from .output import add_point_arguments, check_outputs

EXAMPLES = (
    ("rcpstab nyquist --alpha 0.4 --beta 0.2", "the encirclement count of the exact-delay loop"),
    ("rcpstab nyquist --alpha 0.4 --beta 0.2 --pade 2 --out nyquist.png", "App. D's Pade-2 loop, drawn"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_point_arguments(parser, "plot", "print N, P, Z and the margins as JSON")


def run(args: argparse.Namespace) -> int:
    check_outputs(args)
    result = nyquist(args.model, args.alpha, args.beta, args.pade)
    if args.out:
        result.save(args.out)
    if args.json:
        print(result.to_json())
    elif not args.quiet:
        print(result.summary())
    return 0
