"""Print a model's linearization about its equilibrium and its open-loop G(s), as a textbook would.

The linear delay system and G(s) are derived symbolically from the model (App. B); the
substitutions made first (eta = 1) and the delays that drop out (rcp's update interval T)
are stated with the reason; the normalized characteristic equation shows which parameters
survive (for RCP only alpha and beta: N and C cancel). --latex prints one compilable
``equation`` environment (--standalone: a whole document).
"""
from __future__ import annotations

from ..linear.linearization import linearize
from ..linear.linearization_text import describe, latex_document
from ..models import get_model
from .output import model_help, report

EXAMPLES = (
    ("rcpstab linearize --model rcp", "RCP's linear delay system and G(s) (thesis App. B)"),
    ("rcpstab linearize --model xcp --latex", "XCP's, as LaTeX"),
)


def add_arguments(parser):
    parser.add_argument("--model", default="rcp", help=model_help())
    parser.add_argument("--latex", action="store_true", help="print a LaTeX equation environment instead of text")
    parser.add_argument("--standalone", action="store_true", help="with --latex: a complete LaTeX document")


def run(args) -> int:
    model = get_model(args.model)
    system = linearize(model)
    if args.quiet:
        return 0
    if args.latex:
        print(latex_document(system, standalone=args.standalone))
        return 0
    print(describe(system))
    if model.sampled:
        held = ", ".join(f"{x.__name__} every {interval}" for x, interval in model.sampled.items())
        print(f"sampling: {held}, held in between; G above treats these states as continuous. The hold "
              "adds about half an interval of delay; the exact sampled loop is a polynomial in z = exp(s*T)"
              + (" (rcpstab.models.rcp_router.sampled_characteristic)" if model.name == "rcp-router" else ""))
    left = sorted(map(str, system.free_parameters()))
    report(args, f"{model.name} linearized about its equilibrium: {len(model.loop_states)} states, "
                 f"{len(system.delayed)} delay(s); the loop's stability depends on {', '.join(left)} only")
    return 0
