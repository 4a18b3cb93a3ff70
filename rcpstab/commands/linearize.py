"""Print a model's linearization about its equilibrium and its open-loop G(s).

The linear delay system and G(s) are derived symbolically from the model (App. B);
the normalized characteristic equation shows which parameters survive (for RCP only
alpha and beta: N and C cancel).
"""
from __future__ import annotations

import sympy as sp

from ..linearization import linearize
from ..models import get_model


def add_arguments(parser):
    parser.add_argument("--model", default="rcp", help="model name (default: rcp)")
    parser.add_argument("--latex", action="store_true", help="print LaTeX instead of text")


def run(args) -> int:
    model = get_model(args.model)
    system = linearize(model)
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
    print(f"parameters left after normalization: {', '.join(sorted(map(str, system.free_parameters())))}")
    if model.linearize_at:
        print("linearized at: " + ", ".join(f"{k} = {v}" for k, v in model.linearize_at.items()))
    if model.sampled:
        held = ", ".join(f"{x.__name__} every {interval}" for x, interval in model.sampled.items())
        print(f"sampling: {held}, held in between; G above treats these states as continuous. The hold "
              "adds about half an interval of delay; the exact sampled loop is a polynomial in z = exp(s*T)"
              + (" (rcpstab.models.rcp_router.sampled_characteristic)" if model.name == "rcp-router" else ""))
    return 0
