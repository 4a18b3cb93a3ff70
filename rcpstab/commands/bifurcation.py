"""Continue a model's attractor along one gain, up then down: limit-cycle amplitude, period, hysteresis.

Sweep --alpha START:STOP:STEP at each --beta (or --beta START:STOP:STEP at each --alpha: the
gain given as a range is swept, the other may list several values). Each run starts from the
previous run's end state; the last half of each run is measured. --out draws the bifurcation
diagram with the exact linear boundary; --json gives the points. Models: the bundled ones and
the smooth variants rcp-unclamped and rcp-rate (see rcpstab.bifurcation.smooth).
"""
from __future__ import annotations

import math

from ..errors import InputError
from ..linear.grid import parse_range
from ..models import MODELS, get_model
from .output import check_outputs, model_help

EXAMPLES = (
    ("rcpstab bifurcation --model rcp --beta 0.3 --alpha 1.2:1.6:0.1", "limit cycles past RCP's boundary at beta = 0.3"),
    ("rcpstab bifurcation --model linear --beta 0.3 --alpha 1.3:1.5:0.1 --json", "the linear model, as JSON"),
)


def add_arguments(parser):
    parser.add_argument("--model", default="rcp", help=model_help("rcp"))
    parser.add_argument("--alpha", required=True, help="START:STOP:STEP to sweep, or value(s) held (comma-separated)")
    parser.add_argument("--beta", required=True, help="START:STOP:STEP to sweep, or value(s) held (comma-separated)")
    parser.add_argument("--rtts", type=float, default=200.0, help="run per gain value, RTTs (default 200)")
    parser.add_argument("--C", type=float, metavar="BPS", help="link capacity, bit/s (default 0.15e9)")
    parser.add_argument("--d0", type=float, metavar="SECONDS", help="propagation RTT, s (default 0.2)")
    parser.add_argument("--N", type=float, metavar="FLOWS", help="number of flows (default 10)")
    parser.add_argument("--T", type=float, metavar="SECONDS", help="rate update interval, s (default 0.01)")
    parser.add_argument("--out", metavar="FIG", help="write the bifurcation diagram (.png, .svg or .pdf)")
    parser.add_argument("--json", action="store_true", help="print the points as JSON")


def _model(name):
    from ..bifurcation.smooth import SMOOTH_MODELS
    return SMOOTH_MODELS[name] if name in SMOOTH_MODELS and name not in MODELS else get_model(name)


def _held(text: str, name: str):
    """Comma-separated held values of a gain."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise InputError(f"--{name} {text!r}: not a number (or a list of numbers)") from None
    bad = [v for v in values if not (math.isfinite(v) and v > 0)]
    if bad:
        raise InputError(f"--{name} {bad[0]!r}: must be a finite number > 0")
    twice = [v for i, v in enumerate(values) if v in values[:i]]
    if twice:  # each held value is one curve of the diagram; a repeat merged two (KeyError 'hysteresis')
        raise InputError(f"--{name} {text!r}: {twice[0]:g} is given twice")
    return values


def run(args) -> int:
    from ..bifurcation import bifurcation_sweep

    model = _model(args.model)
    swept = [name for name in ("alpha", "beta") if ":" in getattr(args, name)]
    if len(swept) != 1:
        raise InputError(f"--alpha {args.alpha!r} --beta {args.beta!r}: give exactly one gain as START:STOP:STEP")
    parameter = swept[0]
    other = "beta" if parameter == "alpha" else "alpha"
    values = parse_range(getattr(args, parameter), parameter)
    fixed = _held(getattr(args, other), other)
    if not (math.isfinite(args.rtts) and args.rtts >= 20):
        raise InputError(f"--rtts {args.rtts}: must be at least 20")
    check_outputs(args)
    network = {"C": args.C, "d0": args.d0, "N": args.N, "T": args.T}
    diagram = bifurcation_sweep(model, values, fixed, parameter=parameter, rtts=args.rtts, network=network)
    if args.out:
        from ..bifurcation.plotting import bifurcation_plot
        from ..figures import draw_and_save
        draw_and_save(bifurcation_plot, diagram, args.out)
    if args.json:
        print(diagram.to_json())
    elif not args.quiet:
        print(diagram.summary())
    return 0
