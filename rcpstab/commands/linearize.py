"""Print a model's linearization about its equilibrium and its open-loop G(s).

The linear delay system and G(s) are derived symbolically from the model (App. B);
the normalized characteristic equation shows which parameters survive (for RCP only
alpha and beta: N and C cancel).
"""
from __future__ import annotations

import sympy as sp

from ..linearization import linearize
from ..models import get_model
from .output import model_help, report

EXAMPLES = (
    ("rcpstab linearize --model rcp", "RCP's linear delay system and G(s) (thesis App. B)"),
    ("rcpstab linearize --model xcp --latex", "XCP's, as LaTeX"),
)


def add_arguments(parser):
    parser.add_argument("--model", default="rcp", help=model_help())
    parser.add_argument("--latex", action="store_true", help="print LaTeX instead of text")


def run(args) -> int:
    model = get_model(args.model)
    system = linearize(model)
    if args.quiet:
        return 0
    if args.latex:
        print(model.latex())
        print(system.latex())
        print(rf"\Delta(\lambda) = {sp.latex(system.normalized_characteristic)}")
        return 0
    names = [f"d{x.__name__}" for x in model.states]
    print(f"{model.title}")
    print("equilibrium: " + ", ".join(f"{x.__name__} = {v}" for x, v in model.equilibrium.items()))
    print(f"linearized (states {', '.join(names)}):")
    print(f"  A0 (coefficient of x(t)) = {system.A0.tolist()}")
    for tau, A in system.delayed.items():
        print(f"  A (coefficient of x(t - {tau})) = {A.tolist()}")
    print(f"G(s) = {system.open_loop}")
    print(f"characteristic, lambda = s*d0: {system.normalized_characteristic} = 0")
    left = sorted(map(str, system.free_parameters()))
    print(f"parameters left after normalization: {', '.join(left)}")
    report(args, f"{model.name} linearized about its equilibrium: {len(model.states)} states, "
                 f"{len(system.delayed)} delay(s); the loop's stability depends on {', '.join(left)} only")
    return 0
