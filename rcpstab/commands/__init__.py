"""The subcommands of ``rcpstab``, in the order ``--help`` lists them."""
from . import check, convergence, cosim, fct, linearize, map, margins, network, portrait
from . import bode, nyquist, theorem1

COMMANDS = {
    "map": map,
    "margins": margins,
    "bode": bode,
    "nyquist": nyquist,
    "theorem1": theorem1,
    "linearize": linearize,
    "portrait": portrait,
    "convergence": convergence,
    "check": check,
    "cosim": cosim,
    "network": network,
    "fct": fct,
}
from . import bifurcation  # noqa: E402  (own lines at the end: merges with other new commands stay simple)
COMMANDS["bifurcation"] = bifurcation
