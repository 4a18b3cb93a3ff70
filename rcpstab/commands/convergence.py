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

import json
import sys

import numpy as np

from ..linear.grid import parse_range
from ..models import get_model
from ..phaseplane.sweep import STARTS, phaseplane_region
from .output import add_sweep_arguments, check_outputs, check_workers, model_help, network_text, parse_params, report

EXAMPLES = (
    ("rcpstab convergence --alpha 0.2:1.0:0.4 --beta 0.2:1.0:0.4", "convergence times on a 3 x 3 grid, summary only"),
    ("rcpstab convergence --alpha 0.1:1.0:0.3 --beta 0.1:1.0:0.3 --out convergence.png --csv convergence.csv",
     "a coarse Fig. 5.13 as a figure and a table"),
)

DEFAULT_RANGE = "0.1:1.0:0.1"
DEFAULT_START = "load-doubling"
START_HELP = {
    "load-doubling": "R(0) = 2 Re, q(0) = 0: the old equilibrium when the load doubles (thesis Figs. 5.10-5.13, 7.1)",
    "appE": "App. E's six conditions: R/C in {5, 1, 0.1} x C/N, q in {2 C*d0, 0}",
    "half-load": "R(0) = Re/2, q(0) = 0: the load halves",
}


def add_arguments(parser):
    parser.add_argument("--model", default="rcp", help=model_help())
    for name in ("alpha", "beta"):
        parser.add_argument(f"--{name}", default=DEFAULT_RANGE,
                            help=f"{'rate' if name == 'alpha' else 'queue'} gain grid START:STOP:STEP, STOP inclusive "
                                 f"(default {DEFAULT_RANGE})")
    parser.add_argument("--start", default=DEFAULT_START, choices=STARTS,
                        help="initial conditions: " + "; ".join(f"{k}: {v}" for k, v in START_HELP.items())
                        + f" (default: {DEFAULT_START})")
    parser.add_argument("--out", metavar="FIG", help="write the map (.png, .svg or .pdf)")
    parser.add_argument("--csv", metavar="FILE", help="write one row per grid point and configuration")
    parser.add_argument("--json", action="store_true", help="print the times as JSON on stdout")
    add_sweep_arguments(parser, what="")


def _null(values):
    return [None if not np.isfinite(v) else float(v) for v in np.asarray(values, dtype=float)]


def run(args) -> int:
    model = get_model(args.model)
    alphas = parse_range(args.alpha, "alpha")
    betas = parse_range(args.beta, "beta")
    check_workers(args)
    check_outputs(args)
    region = phaseplane_region(model, alphas, betas, C=args.C, d0=args.d0, N=args.N, T=args.T,
                               params=parse_params(args.param), workers=args.workers, scheduler=args.scheduler, checkpoint=args.checkpoint,
                               progress=sys.stderr.isatty(), start=args.start, buffer_bdp=args.buffer)
    if args.csv:
        region.to_csv(args.csv)
    if args.out:
        from ..figures import draw_and_save
        from ..phaseplane.plotting import convergence_plot
        draw_and_save(convergence_plot, region, args.out)
    table = region.table
    times = np.asarray(table["convergence_rtt"], dtype=float)
    if args.json:
        print(json.dumps({**region.to_dict(), "start": args.start, "convergence_rtt": _null(times),
                          "convergence_estimate_rtt": _null(table["convergence_estimate_rtt"]),
                          "verdict": [str(v) for v in table["verdict"]]}, allow_nan=False))
    best = np.nanargmin(times) if np.isfinite(times).any() else None
    where = "no point converged" if best is None else (
        f"fastest {times[best]:.1f} RTTs at alpha={table['alpha'][best]:g}, beta={table['beta'][best]:g}")
    configs = region.meta.get("configurations") or []
    at = f" at {network_text(configs[0])}" if len(configs) == 1 else f" over {len(configs)} configurations"
    report(args, f"convergence of {model.name}{at}, start {args.start}: {region.stable.sum()} of {region.stable.size} "
                 f"grid points converge (blank in the map otherwise); {where}")
    return 0
