"""Draw a phase portrait: App. E's six initial conditions in the (R/C, q) plane (Figs. E.1-E.2).

Integrates the model at one (alpha, beta) from R/C in {0.5, 0.1, 0.01} x q in {2*C*d0, 0}
(placed relative to the model's own equilibrium; the full queue held to the buffer when --buffer
is smaller) for --rtts round trips and judges each trajectory (rcpstab.phaseplane.decide, with
its own adaptive horizon); --out draws the trajectories with the equilibrium marked, each
labelled with its verdict, and for a limit cycle the cycle itself (three periods after the
horizon its verdict needed, however long), --csv writes them (columns ic, gamma0, q0_bits,
t_s, R_over_C, queue_bits), --json the verdicts and final states. The summary line gives each verdict.
"""

from __future__ import annotations

import argparse

from ..api.trajectories import portrait, portrait_png_without_matplotlib
from ..errors import InputError
from .output import add_buffer_argument, add_network_arguments, add_param_argument, check_outputs, model_help, report

EXAMPLES = (
    ("rcpstab portrait --alpha 0.4 --beta 0.2 --rtts 50", "App. E's six starts at the thesis' gains, summary only"),
    (
        "rcpstab portrait --alpha 1.4 --beta 0.8 --out portrait.png --csv portrait.csv",
        "Fig. E.2's oscillating point, figure and table",
    ),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="rcp", help=model_help())
    parser.add_argument("--alpha", type=float, required=True, help="rate gain (> 0, dimensionless)")
    parser.add_argument("--beta", type=float, required=True, help="queue gain (> 0, dimensionless)")
    add_network_arguments(parser)
    add_param_argument(parser)
    add_buffer_argument(parser)
    parser.add_argument("--rtts", type=float, default=100.0, help="duration in round trips d0 (default 100)")
    parser.add_argument("--out", metavar="FIG", help="write the portrait (.png, .svg or .pdf)")
    parser.add_argument(
        "--csv",
        metavar="FILE",
        help="write the trajectories, one row per sample and start: "
        "ic (index), gamma0 (R/C at t = 0), q0_bits, t_s, R_over_C, queue_bits",
    )
    parser.add_argument("--json", action="store_true", help="print the verdicts and final states as JSON")


def figure_needs_matplotlib(args: argparse.Namespace) -> bool:
    """Whether ``--out`` is drawn by matplotlib's figure: SVG and PDF are; a PNG is drawn with Pillow."""
    return not portrait_png_without_matplotlib(args.out)


def run(args: argparse.Namespace) -> int:
    from ..api.common import parse_params

    check_outputs(args)
    params = parse_params(args.param)
    # portrait() takes C, d0, N, T as keywords and the rest as **params: --param d0=... was a TypeError
    network = {"C": args.C, "d0": args.d0, "N": args.N, "T": args.T}
    for name in [n for n in params if n in network or n in ("alpha", "beta", "rtts", "buffer_bdp", "model")]:
        if network.get(name) is not None or name not in network:
            shown = {"buffer_bdp": "buffer"}.get(name, name)
            raise InputError(f"--param {name}: the same parameter as --{shown}; give it once")
        network[name] = params.pop(name)
    result = portrait(args.model, args.alpha, args.beta, args.rtts, **network, buffer_bdp=args.buffer, **params)
    if args.csv:
        result.to_csv(args.csv)
    if args.out:
        result.save(args.out)
    if args.json:
        print(result.to_json())
    report(args, result.summary())
    return 0
