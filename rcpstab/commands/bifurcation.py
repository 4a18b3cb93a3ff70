"""Continue a model's attractor along one gain, up then down: limit-cycle amplitude, period, hysteresis.

Sweep --alpha START:STOP:STEP at each --beta (or --beta START:STOP:STEP at each --alpha: the
gain given as a range is swept, the other may list several values). Each run starts from the
previous run's end state; the last half of each run is measured. --out draws the bifurcation
diagram with the exact linear boundary; --json gives the points. --continuation adds the branches of
periodic orbits, stable and unstable (rcpstab.bifurcation.branches). Models: the bundled ones and
the smooth variants rcp-unclamped and rcp-rate (see rcpstab.bifurcation.smooth), and rcp-clamped
(rcp with its update continuous in time: rcpstab.bifurcation.kernel_orbits).
"""

from __future__ import annotations

import argparse

from ..api.sweeps import bifurcation
from .output import add_network_arguments, add_param_argument, check_outputs, model_help

EXAMPLES = (
    ("rcpstab bifurcation --model rcp --beta 0.3 --alpha 1.2:1.6:0.1", "limit cycles past RCP's boundary at beta = 0.3"),
    ("rcpstab bifurcation --model linear --beta 0.3 --alpha 1.3:1.5:0.1 --json", "the linear model, as JSON"),
    (
        "rcpstab bifurcation --model rcp-unclamped --beta 0.1 --alpha 1.3:1.6:0.05 --continuation --out b.png",
        "stable and unstable periodic orbits, folds, the simulations on top",
    ),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="rcp", help=model_help("rcp"))
    parser.add_argument("--alpha", required=True, help="START:STOP:STEP to sweep, or value(s) held (comma-separated)")
    parser.add_argument("--beta", required=True, help="START:STOP:STEP to sweep, or value(s) held (comma-separated)")
    parser.add_argument("--rtts", type=float, default=200.0, help="run per gain value, RTTs (default 200)")
    add_network_arguments(parser)
    add_param_argument(parser)
    parser.add_argument(
        "--continuation",
        action="store_true",
        help="also continue the periodic orbits, stable and unstable, over the swept range (one held "
        "value): from the Hopf points (smooth models) or the settled cycles (clamped models, "
        "shooting on the compiled kernel); a sampled model's orbits are those of its "
        "continuous-update variant. --json adds per point amplitude, period, stable and the "
        "largest Floquet multiplier",
    )
    parser.add_argument(
        "--branch-steps",
        type=int,
        default=30,
        help="continuation steps per branch and direction (default 30; with --continuation)",
    )
    parser.add_argument("--out", metavar="FIG", help="write the bifurcation diagram (.png, .svg or .pdf)")
    parser.add_argument("--json", action="store_true", help="print the points as JSON")


def run(args: argparse.Namespace) -> int:
    from ..api.common import parse_params

    check_outputs(args)
    result = bifurcation(
        args.model,
        args.alpha,
        args.beta,
        args.rtts,
        C=args.C,
        d0=args.d0,
        N=args.N,
        T=args.T,
        params=parse_params(args.param),
        continuation=args.continuation,
        branch_steps=args.branch_steps,
    )
    if args.out:
        result.save(args.out)
    if args.json:
        print(result.to_json())
    elif not args.quiet:
        print(result.summary())
    return 0
