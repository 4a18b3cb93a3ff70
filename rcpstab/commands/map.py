"""Map the stable (alpha, beta) region of a model with one method.

Methods: exact (true delayed loop), bode (eqs. 5.8-5.12, counted for any loop), nyquist
(indented contour; --pade N to use python-control's Pade approximation), margins (gain,
phase and delay margins and the rightmost root per point; --out draws contour maps),
phaseplane (nonlinear model integrated from App. E's initial conditions), packet (reference
implementation), certified (a Lyapunov-Krasovskii functional found by SDP: sufficient,
switched/linear models).
Without --alpha/--beta the thesis' Fig. 5.2 plane (linear methods) or App. E's
0.1..2.0 grid (phaseplane, packet) is used.
"""
from __future__ import annotations

import sys

from ..errors import InputError
from ..linear.grid import parse_range
from ..models import get_model
from ..runtime.validation import check_grid_size
from .output import (
    add_sweep_arguments,
    check_outputs,
    check_workers,
    model_help,
    parse_params,
    region_summary,
    report,
    writable_path,
)

LINEAR_METHODS = ("exact", "bode", "nyquist", "margins")
SIMULATED_METHODS = ("phaseplane", "packet")
# Single-core cost of one grid point and configuration, for the refusal estimates: measured by
# benchmarks/bench_cost_per_point.py (2026-11-25, 2 shared cores under load ~8, so on the high side),
# rounded up; the exact map's memory also from the command's peak at 2000x2000 (CSV and figure included).
SECONDS_PER_POINT = {"exact": 1e-7, "bode": 1e-4, "nyquist": 0.08, "margins": 2e-3, "phaseplane": 2e-3, "packet": 0.4,
                     "certified": 0.1}
BYTES_PER_POINT = {"exact": 120}
# The exact map costs ~1e-7 s a point: its grid is bounded by the memory estimate, not the default 1M points.
POINT_LIMITS = {"exact": 25_000_000}

EXAMPLES = (
    ("rcpstab map --method exact --alpha 0.05:2:0.05 --beta 0.05:1:0.05 --out exact.png --csv exact.csv",
     "the exact linear region on a coarse grid, as a figure and a table"),
    ("rcpstab map --method phaseplane --alpha 0.2:1.4:0.4 --beta 0.2:1.0:0.4 --C 0.15e9 10e9 --workers 2",
     "the nonlinear model's region common to two link capacities"),
)
DEFAULT_RANGES = {
    "linear": ("0.02:2.0:0.02", "0.01:1.0:0.01"),      # Fig. 5.2's plane
    "margins": ("0.05:2.0:0.05", "0.025:1.0:0.025"),   # same plane, coarser (1600 root computations)
    "simulated": ("0.1:2.0:0.1", "0.1:2.0:0.1"),       # App. E's grid
}


def add_arguments(parser):
    parser.add_argument("--model", default="rcp", help=model_help())
    parser.add_argument("--method", default="exact", choices=LINEAR_METHODS + SIMULATED_METHODS + ("certified",),
                        help="which lens maps the region: %(choices)s (default: exact)")
    parser.add_argument("--alpha", help="rate gain grid START:STOP:STEP, STOP inclusive, dimensionless (default: "
                        f"{DEFAULT_RANGES['linear'][0]} for linear methods, {DEFAULT_RANGES['simulated'][0]} otherwise)")
    parser.add_argument("--beta", help="queue gain grid START:STOP:STEP, STOP inclusive, dimensionless (default: "
                        f"{DEFAULT_RANGES['linear'][1]} for linear methods, {DEFAULT_RANGES['simulated'][1]} otherwise)")
    parser.add_argument("--pade", type=int, metavar="N", help="nyquist: Pade order for the delay (default: exact delay)")
    parser.add_argument("--scenario", help="packet: scenario name (default: fig5.3)")
    parser.add_argument("--out", metavar="FIG", help="write a figure (.png, .svg or .pdf)")
    parser.add_argument("--csv", metavar="FILE", help="write one row per grid point")
    parser.add_argument("--boundary", metavar="FILE", help="exact: write the stable boundary curve as CSV")
    parser.add_argument("--json", action="store_true", help="print the map as JSON on stdout")
    add_sweep_arguments(parser)


def run(args) -> int:
    model = get_model(args.model)
    kind = "margins" if args.method == "margins" else "linear" if args.method in LINEAR_METHODS else "simulated"
    alpha_text, beta_text = DEFAULT_RANGES[kind]
    alphas = parse_range(args.alpha or alpha_text, "alpha")
    betas = parse_range(args.beta or beta_text, "beta")
    _reject_unused_options(args)
    if args.pade is not None and not 1 <= args.pade <= 20:
        raise InputError(f"--pade {args.pade}: order must be between 1 and 20")
    check_workers(args)
    configs = len(args.C or [0]) * len(args.d0 or [0]) * len(args.N or [0])
    check_grid_size(alphas.size * betas.size * configs, SECONDS_PER_POINT[args.method], f"map --method {args.method}",
                    bytes_per_point=BYTES_PER_POINT.get(args.method, 0.0), default_limit=POINT_LIMITS.get(args.method))
    check_outputs(args)
    if args.boundary:
        writable_path(args.boundary, "--boundary")

    region = compute_map(model, args.method, alphas, betas, args)

    if args.csv:
        region.to_csv(args.csv)
    if args.boundary:
        from ..linear.exact import write_boundary_csv
        write_boundary_csv(model, float(alphas.max()), float(betas.max()), args.boundary)
    if args.out:
        if args.method == "margins":
            from ..linear.marginmap_plot import save_margin_figure
            save_margin_figure(region, args.out)
        else:
            from ..plotting import save_region_figure
            save_region_figure(region, args.out)
    if args.json:
        print(region.to_json())
    else:
        report(args, region_summary(region))
    return 0


# Options that only some methods read; given to another method they would be silently ignored.
OPTION_METHODS = {
    "pade": ("nyquist",),
    "C": ("phaseplane",),
    "d0": ("phaseplane",),
    "N": ("phaseplane",),
    "T": ("phaseplane",),
    "param": ("phaseplane",),
    "buffer": ("phaseplane",),
    "scenario": ("packet",),
    "boundary": ("exact",),
    "scheduler": ("phaseplane",),
    "checkpoint": ("phaseplane", "packet"),
}


def _reject_unused_options(args):
    for option, methods in OPTION_METHODS.items():
        value = getattr(args, option)
        if value is not None and args.method not in methods:
            raise InputError(f"--{option} {value if not isinstance(value, list) else ' '.join(map(str, value))}: "
                             f"not used by --method {args.method} (only by {', '.join(methods)})")


def compute_map(model, method, alphas, betas, args):
    """Dispatch to the engine of ``method``; engines are imported only when used."""
    if method == "exact":
        from ..linear.exact import exact_region
        return exact_region(model, alphas, betas)
    if method == "bode":
        from ..linear.bode import bode_region
        return bode_region(model, alphas, betas)
    if method == "nyquist":
        from ..linear.nyquist import nyquist_region
        return nyquist_region(model, alphas, betas, pade=args.pade)
    if method == "certified":   # Lyapunov-Krasovskii SDP (optional extra rcpstab[sdp]); App. E's grid by default
        from ..linear.certified import certified_region
        return certified_region(model, alphas, betas)
    if method == "margins":
        from ..linear.marginmap import margin_map
        return margin_map(model, alphas, betas)
    progress = sys.stderr.isatty()
    if method == "phaseplane":
        from ..phaseplane.sweep import phaseplane_region
        return phaseplane_region(model, alphas, betas, C=args.C, d0=args.d0, N=args.N, T=args.T,
                                 params=parse_params(args.param), workers=args.workers, scheduler=args.scheduler,
                                 checkpoint=args.checkpoint, progress=progress, buffer_bdp=args.buffer)
    from ..packet.lens.region import packet_region
    return packet_region(model, alphas, betas, scenario=args.scenario, workers=args.workers,
                         checkpoint=args.checkpoint, progress=progress)
