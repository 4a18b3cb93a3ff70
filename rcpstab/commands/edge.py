"""Check every parsed command-line value against the shared domains before any command runs.

argparse only checks types: ``--T inf``, ``--rtt nan``, ``--alpha 1e6`` or ``--buffer 2**64 + 1500``
parse fine and used to fail deep inside a lens (a traceback, a hang, 4.7 GB allocated, a wrapped
integer). Here each option, by its destination name, is checked against
:data:`rcpstab.runtime.validation.DOMAINS`; an empty string (``--out ''``) is refused rather than
silently treated as "not given"; ``--workers`` is capped at the usable cores unless the work
goes to a Dask cluster.
"""

from __future__ import annotations

import argparse
import os
import warnings

from ..api.validation import DOMAINS, check_integer, check_value
from ..errors import InputError

__all__ = ["COMMAND_DOMAINS", "NOT_NUMBERS", "OPTION_DOMAINS", "TEXT_NUMBERS", "check_arguments", "domain_of", "usable_cores"]

# argparse destination -> domain name. Range strings (map's START:STOP:STEP) are checked by parse_range,
# the text of --delay where it is parsed (commands/loop.py), each against the same domain.
OPTION_DOMAINS = {
    "alpha": "alpha",
    "beta": "beta",
    "T": "T",
    "d0": "d0",
    "C": "C",
    "N": "N",
    "t_end": "t_end",
    "rtts": "rtts",
    "transient_rtt": "transient_rtt",
    "buffer": "buffer_bdp",
    "seed": "seed",
    "workers": "workers",
    "samples": "samples",
    "pade": "pade",
    "load": "load",
    "flows": "flows",
    "replications": "replications",
    "eta": "eta",
    "seeds": "seeds",
    "T_over_d0": "T_over_d0",
    "delay": "loop_delay",
    "start_jitter": "time",
    "window": "window",
    "branch_steps": "branch_steps",
}
# A command whose option of a shared name has its own domain.
COMMAND_DOMAINS = {"bifurcation": {"rtts": "bifurcation_rtts"}}
# Options whose text holds numbers with no one domain, and where each number is checked (tests/test_domains.py
# runs each with a hostile number: one line, exit 2).
TEXT_NUMBERS = {
    "param": "NAME=VALUES: a name of the domain table (C, d0, N, T) against its domain, any other against the "
    "model's declared range (api/common.network_params, phaseplane.setup)",
    "tf": "polynomial coefficients: any finite numbers (commands/loop.parse_coefficients)",
    "fixed_rate": "rates in (0, C] b/s, C the run's capacity (fct.protocols)",
    "sizes": "a size distribution's mean or size, packets (packet.hosts.flow_traffic)",
    "arrivals": "a Pareto gap shape > 1 (packet.hosts.flow_traffic)",
}
# Options that hold no number: names, files, choices, flags.
NOT_NUMBERS = {
    "model",
    "method",
    "scenario",
    "out",
    "csv",
    "boundary",
    "scheduler",
    "checkpoint",
    "start",
    "example",
    "criterion",
    "flows_csv",
    "links_csv",
    "protocol",
    "json",
    "quiet",
    "help",
    "version",
    "command",
}


def domain_of(command: str | None, dest: str) -> str | None:
    """The domain name of option ``dest`` of ``command`` (None: no domain)."""
    return COMMAND_DOMAINS.get(command or "", {}).get(dest, OPTION_DOMAINS.get(dest))


def usable_cores() -> int:
    """Cores this process may run on (the affinity mask, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _option(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def check_arguments(args: argparse.Namespace) -> None:
    """Raise :class:`InputError` for the first out-of-domain value; cap ``--workers`` (with a warning)."""
    for dest, value in vars(args).items():
        if isinstance(value, str) and not value.strip():
            raise InputError(f"{_option(dest)} {value!r}: empty value")
        empty = [v for v in value if isinstance(v, str) and not v.strip()] if isinstance(value, list) else []
        if empty:
            raise InputError(f"{_option(dest)} {empty[0]!r}: empty value")
        name = domain_of(getattr(args, "command", None), dest)
        if name is None or value is None or isinstance(value, (str, bool)):
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):  # a range or list text (--alpha 0.1:2:0.1): checked where it is parsed
                continue
            if DOMAINS[name].integer:
                check_integer(name, item, _option(dest))
            else:
                check_value(name, item, _option(dest))
    workers = getattr(args, "workers", None)
    if workers and workers > usable_cores() and not getattr(args, "scheduler", None):
        warnings.warn(
            f"--workers {workers}: capped at the {usable_cores()} usable cores (use --scheduler for a cluster)", stacklevel=2
        )
        args.workers = usable_cores()
