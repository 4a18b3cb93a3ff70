"""Map RCP's convergence time over (alpha, beta), as thesis Figs. 5.10-5.13 and 7.1.

By default every grid point (0.1..1.0 by 0.1, the range of Fig. 5.13) starts where the thesis'
convergence figures start: the old equilibrium when the load doubles, R(0) = 2 Re, q(0) = 0
(Fig. 5.12's N = 200 example: Re/C = 0.005, R(0)/C = 0.01; Fig. 7.1: "10 flows in equilibrium
... the traffic load doubles"). The time reported is the measured last exit from the band (R
within 2%, q within 1% of C*d0 of equilibrium), the slowest over the initial conditions; points
that do not converge are left blank, and a time that had to be extrapolated is only in the
``convergence_estimate_rtt`` column. --start appE uses App. E's six initial conditions,
--start half-load half the equilibrium rate (a load that halves). --C/--d0/--N sweep
configurations as in `map --method phaseplane` (Figs. 5.10-5.12).
"""

from __future__ import annotations

import argparse
import sys

from ..api.sweeps import CONVERGENCE_GRID, CONVERGENCE_START, convergence
from .output import add_sweep_arguments, check_outputs, check_workers, model_help, report

EXAMPLES = (
    ("rcpstab convergence --alpha 0.2:1.0:0.4 --beta 0.2:1.0:0.4", "convergence times on a 3 x 3 grid, summary only"),
    (
        "rcpstab convergence --alpha 0.1:1.0:0.3 --beta 0.1:1.0:0.3 --out convergence.png --csv convergence.csv",
        "a coarse Fig. 5.13 as a figure and a table",
    ),
)

START_HELP = {
    "load-doubling": "R(0) = 2 Re, q(0) = 0: the old equilibrium when the load doubles (thesis Figs. 5.10-5.13, 7.1)",
    "appE": "App. E's six conditions: R/C in {5, 1, 0.1} x C/N, q in {2 C*d0, 0}",
    "half-load": "R(0) = Re/2, q(0) = 0: the load halves",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="rcp", help=model_help())
    for name in ("alpha", "beta"):
        parser.add_argument(
            f"--{name}",
            nargs="+",
            default=[CONVERGENCE_GRID],
            metavar="VALUES",
            help=f"{'rate' if name == 'alpha' else 'queue'} gains: START:STOP:STEP (STOP inclusive), "
            f"V1,V2,... or several of these (default {CONVERGENCE_GRID})",
        )
    parser.add_argument(
        "--start",
        default=CONVERGENCE_START,
        choices=list(START_HELP),
        help="initial conditions: " + "; ".join(f"{k}: {v}" for k, v in START_HELP.items()) + f" (default: {CONVERGENCE_START})",
    )
    parser.add_argument("--out", metavar="FIG", help="write the map (.png, .svg or .pdf)")
    parser.add_argument("--csv", metavar="FILE", help="write one row per grid point and configuration")
    parser.add_argument("--json", action="store_true", help="print the times as JSON on stdout")
    add_sweep_arguments(parser, what="")


def run(args: argparse.Namespace) -> int:
    from ..api.common import parse_params

    check_workers(args)
    check_outputs(args)
    result = convergence(
        args.model,
        args.alpha,
        args.beta,
        args.start,
        C=args.C,
        d0=args.d0,
        N=args.N,
        T=args.T,
        params=parse_params(args.param) or None,
        buffer_bdp=args.buffer,
        workers=args.workers,
        scheduler=args.scheduler,
        checkpoint=args.checkpoint,
        progress=sys.stderr.isatty(),
    )
    if args.csv:
        result.to_csv(args.csv)
    if args.out:
        result.save(args.out)
    if args.json:
        print(result.to_json())
    report(args, result.summary())
    return 0
