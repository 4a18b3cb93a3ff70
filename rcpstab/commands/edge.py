"""Check every parsed command-line value against the shared domains before any command runs.

argparse only checks types: ``--T inf``, ``--rtt nan``, ``--alpha 1e6`` or ``--buffer 2**64 + 1500``
parse fine and used to fail deep inside a lens (a traceback, a hang, 4.7 GB allocated, a wrapped
integer). Here each option, by its destination name, is checked against
:data:`rcpstab.runtime.validation.DOMAINS`; an empty string (``--out ''``) is refused rather than
silently treated as "not given"; ``--workers`` is capped at the usable cores unless the work
goes to a Dask cluster.
"""
from __future__ import annotations

import os
import warnings

from ..api.validation import DOMAINS, check_integer, check_value
from ..errors import InputError

__all__ = ["check_arguments", "usable_cores"]

# argparse destination -> domain name. Range strings (map's START:STOP:STEP) are checked by parse_range.
OPTION_DOMAINS = {
    "alpha": "alpha", "beta": "beta", "T": "T", "d0": "d0", "C": "C", "N": "N", "rtt": "rtt",
    "t_end": "t_end", "rtts": "rtts", "transient_rtt": "transient_rtt", "buffer": "buffer_bdp",
    "seed": "seed", "workers": "workers", "samples": "samples", "pade": "pade",
    "load": "load", "buffer_bdp": "buffer_bdp", "flows": "flows", "replications": "replications", "eta": "eta",
}
# Options that override a scenario field: the message names the field, as the library's own check does.
FIELDS = {"rtt": "rtt_s"}


def usable_cores() -> int:
    """Cores this process may run on (the affinity mask, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _option(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def check_arguments(args) -> None:
    """Raise :class:`InputError` for the first out-of-domain value; cap ``--workers`` (with a warning)."""
    for dest, value in vars(args).items():
        if isinstance(value, str) and not value.strip():
            raise InputError(f"{_option(dest)} {value!r}: empty value")
        empty = [v for v in value if isinstance(v, str) and not v.strip()] if isinstance(value, list) else []
        if empty:
            raise InputError(f"{_option(dest)} {empty[0]!r}: empty value")
        name = OPTION_DOMAINS.get(dest)
        if name is None or value is None or isinstance(value, (str, bool)):
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):  # a range or list text (--alpha 0.1:2:0.1): checked where it is parsed
                continue
            if DOMAINS[name].integer:
                check_integer(name, item, _option(dest), FIELDS.get(dest))
            else:
                check_value(name, item, _option(dest), FIELDS.get(dest))
    workers = getattr(args, "workers", None)
    if workers and workers > usable_cores() and not getattr(args, "scheduler", None):
        warnings.warn(f"--workers {workers}: capped at the {usable_cores()} usable cores "
                      "(use --scheduler for a cluster)", stacklevel=2)
        args.workers = usable_cores()
