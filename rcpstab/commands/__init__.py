"""The subcommands of ``rcpstab``, in the order ``--help`` lists them."""
from . import convergence, linearize, map, margins, portrait

COMMANDS = {
    "map": map,
    "margins": margins,
    "linearize": linearize,
    "portrait": portrait,
    "convergence": convergence,
}
