"""The subcommands of ``rcpstab``, in the order ``--help`` lists them.

Each subcommand is a module of this package with ``add_arguments(parser)`` and
``run(args) -> int``. The registry names the module instead of importing it, so that
``rcpstab --help`` and a command's start-up load only that command's module (the lenses
import SymPy, SciPy and matplotlib, which take a second). Adding a command is one line:
``"name": ("module", "its docstring's first line")``; tests/test_cli.py checks the pair.
"""

from __future__ import annotations

import importlib
from types import ModuleType

COMMANDS = {
    "map": ("map", "Map the stable (alpha, beta) region of a model with one method."),
    "margins": ("margins", "Gain, phase and delay margins and the rightmost root at one (alpha, beta)."),
    "bode": ("bode", "Bode diagram of the loop at one (alpha, beta), exact delay (or --pade N), margins marked."),
    "nyquist": ("nyquist", "Nyquist plot of the loop at one (alpha, beta), exact delay (or --pade N), with the count."),
    "theorem1": ("theorem1", "XCP's Theorem 1 against the exact linear region: the bound, where its curve leaves, tightness."),
    "linearize": (
        "linearize",
        "Print a model's linearization about its equilibrium and its open-loop G(s), as a textbook would.",
    ),
    "portrait": ("portrait", "Draw a phase portrait: App. E's six initial conditions in the (R/C, q) plane (Figs. E.1-E.2)."),
    "convergence": ("convergence", "Map RCP's convergence time over (alpha, beta), as thesis Figs. 5.10-5.13 and 7.1."),
    "check": ("check", "Check a router's RCP constants (a TOML file) over the networks it will see."),
    "cosim": ("cosim", "Co-simulate a scenario packet by packet and with a fluid model (rcp, xcp, rcpac), and compare them."),
    "network": ("network", "Run RCP's fluid model on a multi-link network scenario (thesis Fig. 5.7, Figs. 5.8-5.9)."),
    "fct": ("fct", "Flow completion times of RCP against processor sharing (thesis Ch. 4, Fig. 4.1)."),
    "bifurcation": (
        "bifurcation",
        "Continue a model's attractor along one gain, up then down: limit-cycle amplitude, period, hysteresis.",
    ),
}
"""Command name -> (module in :mod:`rcpstab.commands`, one-line summary)."""


def load(name: str) -> ModuleType:
    """Import and return the module of command ``name``."""
    return importlib.import_module(f"{__name__}.{COMMANDS[name][0]}")
