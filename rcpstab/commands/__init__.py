"""The subcommands of ``rcpstab``, in the order ``--help`` lists them."""
from . import linearize, map, margins

COMMANDS = {
    "map": map,
    "margins": margins,
    "linearize": linearize,
}
