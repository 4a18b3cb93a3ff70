"""Helpers shared by the subcommands: checked output paths, figure formats, the buffer option."""
from __future__ import annotations

import argparse
import math
import os

from ..errors import InputError

FIGURE_FORMATS = (".png", ".svg", ".pdf")


def writable_path(path: str, option: str, suffixes=None) -> str:
    """Check early (before a long computation) that ``path`` can be written."""
    if suffixes and os.path.splitext(path)[1].lower() not in suffixes:
        raise InputError(f"{option} {path!r}: expected a file ending in {', '.join(suffixes)}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(f"{option} {path!r}: folder {folder!r} does not exist")
    if os.path.isdir(path):
        raise InputError(f"{option} {path!r}: is a folder")
    existed = os.path.exists(path)
    try:
        # Opening is the only honest test (permissions, read-only mounts, /proc, root).
        with open(path, "a"):
            pass
    except OSError as exc:
        raise InputError(f"{option} {path!r}: not writable ({exc.strerror})") from None
    if not existed:
        os.remove(path)
    return path


def check_outputs(args) -> None:
    """Check ``--out`` (a figure) and ``--csv`` early, if the command was given them (and ``--buffer``)."""
    check_buffer(args)
    if getattr(args, "out", None):
        writable_path(args.out, "--out", FIGURE_FORMATS)
    if getattr(args, "csv", None):
        writable_path(args.csv, "--csv")


def add_sweep_arguments(parser, what: str = "phaseplane: ") -> None:
    """Network configurations and execution options of a phase-plane sweep."""
    parser.add_argument("--C", type=float, nargs="+", metavar="BPS", help=f"{what}link capacities, bit/s")
    parser.add_argument("--d0", type=float, nargs="+", metavar="SECONDS", help=f"{what}propagation RTTs, s")
    parser.add_argument("--N", type=float, nargs="+", metavar="FLOWS", help=f"{what}numbers of flows")
    parser.add_argument("--T", type=float, metavar="SECONDS", help=f"{what}rate update interval, s")
    parser.add_argument("--param", action="append", metavar="NAME=VALUES",
                        help=f"{what}any other parameter of the model by name, one value or several "
                             "(V1,V2,... or START:STOP:STEP): several are swept like --C; repeatable. "
                             "E.g. --param gamma_AC=0.2 (rcpac), --param tau=0.05,0.1 (a user protocol)")
    add_buffer_argument(parser, what)
    add_worker_argument(parser)
    parser.add_argument("--scheduler", metavar="DASK_ADDRESS", help="run the sweep on a Dask cluster")
    parser.add_argument("--checkpoint", metavar="FILE", help="save finished chunks; resume from them")


def parse_params(items) -> dict:
    """``--param NAME=VALUES`` options as ``{name: [values]}`` (one line naming a malformed one)."""
    from ..regions.grid import parse_range

    params: dict = {}
    for item in items or ():
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name or not text.strip():
            raise InputError(f"--param {item!r}: expected NAME=VALUE, NAME=V1,V2,... or NAME=START:STOP:STEP")
        if name in params:
            raise InputError(f"--param {name}: given twice")
        if ":" in text:
            params[name] = [float(v) for v in parse_range(text, f"param {name}")]
            continue
        try:
            params[name] = [float(v) for v in text.split(",")]
        except ValueError:
            raise InputError(f"--param {item!r}: not a number") from None
    return params


def add_worker_argument(parser) -> None:
    parser.add_argument("--workers", type=int, default=1, help="local worker processes (default: 1)")


def check_workers(args) -> None:
    if args.workers < 1:
        raise InputError(f"--workers {args.workers}: must be at least 1")


def buffer_bdp(text: str) -> float:
    """``--buffer BDP`` as a number (argparse type): a non-number ends the command with one line, exit 2.

    The range is checked by :func:`check_buffer` when the command runs.
    """
    try:
        return TypedNumber(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number of bandwidth-delay products C*d0") from None


class TypedNumber(float):
    """A float that remembers how it was typed, so a message can name ``2**64 + 1500`` as the user wrote it."""

    def __new__(cls, text: str):
        number = super().__new__(cls, text)
        number.text = text.strip()
        return number


def check_buffer(args) -> None:
    """``--buffer`` must be finite and > 0 (:class:`InputError` naming the value otherwise)."""
    value = getattr(args, "buffer", None)
    if value is not None and not (math.isfinite(value) and value > 0):
        raise InputError(f"--buffer {value:g}: the buffer must be finite and > 0 (bandwidth-delay products C*d0)")


def add_buffer_argument(parser, what: str = "") -> None:
    """``--buffer BDP``: the bottleneck buffer of the fluid model (default: unbounded, the thesis' eqs.)."""
    parser.add_argument("--buffer", type=buffer_bdp, metavar="BDP",
                        help=f"{what}buffer in bandwidth-delay products C*d0: the queue is held in [0, BDP*C*d0] "
                             "and the overflow dropped (default: unbounded, as eqs. 5.1-5.4)")
