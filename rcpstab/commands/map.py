"""Map the stable (alpha, beta) region of a model with one method.

Methods (rcpstab.api.methods.METHODS, with each one's default grid):
{methods}
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..api.methods import METHODS
from ..api.regions import png_without_matplotlib, region
from ..errors import InputError
from .output import add_sweep_arguments, check_outputs, check_workers, model_help, report, writable_path

__doc__ = __doc__.format(
    methods="\n".join(
        f"  {m.name:<11} {m.about}\n              (default grid --alpha {m.grid[0]} --beta {m.grid[1]})" for m in METHODS.values()
    )
)

EXAMPLES = (
    (
        "rcpstab map --method exact --alpha 0.05:2:0.05 --beta 0.05:1:0.05 --out exact.png --csv exact.csv",
        "the exact linear region on a coarse grid, as a figure and a table",
    ),
    (
        "rcpstab map --method phaseplane --alpha 0.2:1.4:0.4 --beta 0.2:1.0:0.4 --C 0.15e9 10e9 --workers 2",
        "the nonlinear model's region common to two link capacities",
    ),
)

# command-line destination -> keyword of rcpstab.region (the registry's options are keywords)
KEYWORDS = {
    "pade": "pade",
    "window": "window",
    "C": "C",
    "d0": "d0",
    "N": "N",
    "T": "T",
    "param": "params",
    "buffer": "buffer_bdp",
    "scenario": "scenario",
    "scheduler": "scheduler",
    "checkpoint": "checkpoint",
    "seeds": "seeds",
    "start_jitter": "start_jitter_s",
}
# options read outside the engine call: the methods that use them
EXTRA = {"boundary": ("exact",)}


def _default_grid(axis: int) -> str:
    grids: dict[str, Any] = {}
    for m in METHODS.values():
        grids.setdefault(m.grid[axis], []).append(m.name)
    return "; ".join(f"{grid} for {', '.join(names)}" for grid, names in grids.items())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="rcp", help=model_help())
    parser.add_argument(
        "--method", default="exact", choices=list(METHODS), help="which lens maps the region: %(choices)s (default: exact)"
    )
    parser.add_argument(
        "--alpha",
        nargs="+",
        metavar="VALUES",
        help="rate gains, dimensionless: START:STOP:STEP (STOP inclusive), V1,V2,... or several "
        f"of these, as --C takes (default: {_default_grid(0)})",
    )
    parser.add_argument(
        "--beta", nargs="+", metavar="VALUES", help=f"queue gains, dimensionless, given as --alpha (default: {_default_grid(1)})"
    )
    parser.add_argument("--pade", type=int, metavar="N", help="nyquist: Pade order for the delay (default: exact delay)")
    parser.add_argument(
        "--window", type=int, metavar="L", help="certified-window: round trips of history in the functional, 1 to 3 (default: 3)"
    )
    parser.add_argument("--scenario", help="packet: scenario name or single-link topology file (default: fig5.3)")
    parser.add_argument(
        "--seeds",
        type=int,
        metavar="N",
        help="packet: run every point with seeds 0..N-1 (N >= 2), each drawing the flows' start "
        "jitter; the CSV gives per point the fraction of seeds that converged and the mean "
        "convergence time, each with a 95%% interval; stable = every seed converged",
    )
    parser.add_argument(
        "--start-jitter",
        type=float,
        metavar="S",
        help="packet: each flow starts up to S seconds late, uniform from the seed "
        "(default: none; one round trip d0 with --seeds)",
    )
    parser.add_argument("--out", metavar="FIG", help="write a figure (.png, .svg or .pdf)")
    parser.add_argument("--csv", metavar="FILE", help="write one row per grid point")
    parser.add_argument("--boundary", metavar="FILE", help="exact: write the stable boundary curve as CSV")
    parser.add_argument("--json", action="store_true", help="print the map as JSON on stdout")
    add_sweep_arguments(parser)


def options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword options of :func:`rcpstab.region` this command line sets (refusing one the method ignores)."""
    m = METHODS[args.method]
    out = {}
    for dest, methods in {**{d: None for d in KEYWORDS}, **EXTRA}.items():
        value = getattr(args, dest)
        used = methods if methods is not None else [n for n, x in METHODS.items() if KEYWORDS[dest] in x.options]
        if value is not None and args.method not in used:
            shown = value if not isinstance(value, list) else " ".join(map(str, value))
            raise InputError(f"--{dest} {shown}: not used by --method {args.method} (only by {', '.join(used)})")
        if dest in KEYWORDS and KEYWORDS[dest] in m.options and value is not None:
            out[KEYWORDS[dest]] = value
    if "params" in out:
        from ..api.common import parse_params

        out["params"] = parse_params(out["params"])
    for name in ("workers", "progress"):
        if name in m.options:
            out[name] = args.workers if name == "workers" else sys.stderr.isatty()
    return out


def figure_needs_matplotlib(args: argparse.Namespace) -> bool:
    """Whether ``--out`` is drawn by matplotlib's figure (the command line then imports it its fast way)."""
    return not png_without_matplotlib(args.method, args.out)


def run(args: argparse.Namespace) -> int:
    kwargs = options(args)
    check_workers(args)
    check_outputs(args)
    if args.boundary:
        writable_path(args.boundary, "--boundary")
    result = region(args.model, args.alpha, args.beta, method=args.method, **kwargs)
    if args.csv:
        result.to_csv(args.csv)
    if args.boundary:
        result.write_boundary(args.boundary)
    if args.out:
        result.save(args.out)
    if args.json:
        print(result.to_json())
    else:
        report(args, result.summary())
    return 0
