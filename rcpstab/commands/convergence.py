"""Map RCP's convergence time over (alpha, beta), as thesis Fig. 5.13.

Integrates the model from the --start initial conditions at every grid point (default
0.1..1.0 by 0.1, the range of Figs. 5.10-5.13) and reports the slowest time (RTTs) to bring
R within 2% and q within 1% of C*d0 of equilibrium for good. Points that do not converge are
left blank. --start half-load (default) starts at half the equilibrium rate with an empty
queue, as Figs. 5.10-5.13 do; --start appE uses App. E's six initial conditions. --C/--d0/--N sweep configurations as in `map --method phaseplane`.
"""
from __future__ import annotations

import json
import sys

import numpy as np

from ..models import get_model
from ..phaseplane.sweep import STARTS, phaseplane_region
from ..regions.grid import parse_range
from .output import add_sweep_arguments, check_outputs, check_workers, model_help, network_text, report

EXAMPLES = (
    ("rcpstab convergence --alpha 0.2:1.0:0.4 --beta 0.2:1.0:0.4", "convergence times on a 3 x 3 grid, summary only"),
    ("rcpstab convergence --alpha 0.1:1.0:0.3 --beta 0.1:1.0:0.3 --out convergence.png --csv convergence.csv",
     "a coarse Fig. 5.13 as a figure and a table"),
)

DEFAULT_RANGE = "0.1:1.0:0.1"


def add_arguments(parser):
    parser.add_argument("--model", default="rcp", help=model_help())
    parser.add_argument("--alpha", default=DEFAULT_RANGE, help="rate gain grid START:STOP:STEP, STOP inclusive (default: %(default)s)")
    parser.add_argument("--beta", default=DEFAULT_RANGE, help="queue gain grid START:STOP:STEP, STOP inclusive (default: %(default)s)")
    parser.add_argument("--start", default="half-load", choices=STARTS, help="initial conditions (default: half-load)")
    parser.add_argument("--out", metavar="FIG", help="write the map (.png, .svg or .pdf)")
    parser.add_argument("--csv", metavar="FILE", help="write one row per grid point and configuration")
    parser.add_argument("--json", action="store_true", help="print the times as JSON on stdout")
    add_sweep_arguments(parser, what="")


def run(args) -> int:
    model = get_model(args.model)
    alphas = parse_range(args.alpha, "alpha")
    betas = parse_range(args.beta, "beta")
    check_workers(args)
    check_outputs(args)
    region = phaseplane_region(model, alphas, betas, C=args.C, d0=args.d0, N=args.N, T=args.T,
                               workers=args.workers, scheduler=args.scheduler, checkpoint=args.checkpoint,
                               progress=sys.stderr.isatty(), start=args.start)
    if args.csv:
        region.to_csv(args.csv)
    if args.out:
        from ..figures import draw_and_save
        from ..phaseplane.plotting import convergence_plot
        draw_and_save(convergence_plot, region, args.out)
    times = np.asarray(region.table["convergence_rtt"], dtype=float)
    if args.json:
        print(json.dumps({**region.to_dict(), "convergence_rtt": [None if np.isnan(v) else v for v in times]}))
    best = np.nanargmin(times) if np.isfinite(times).any() else None
    where = "no point converged" if best is None else (
        f"fastest {times[best]:.1f} RTTs at alpha={region.table['alpha'][best]:g}, beta={region.table['beta'][best]:g}")
    configs = region.meta.get("configurations") or []
    at = f" at {network_text(configs[0])}" if len(configs) == 1 else f" over {len(configs)} configurations"
    report(args, f"convergence of {model.name}{at}, start {args.start}: {region.stable.sum()} of {region.stable.size} "
                 f"grid points converge (blank in the map otherwise); {where}")
    return 0
