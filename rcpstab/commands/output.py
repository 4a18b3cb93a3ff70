"""Helpers shared by the subcommands: checked output paths, shared options (the buffer, any model
parameter by name) and the one-line summary."""

from __future__ import annotations

import argparse
import contextlib
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


def check_outputs(args: argparse.Namespace) -> None:
    """Check ``--out`` (a figure) and ``--csv`` early, if the command was given them."""
    if getattr(args, "out", None):
        writable_path(args.out, "--out", FIGURE_FORMATS)
    if getattr(args, "csv", None):
        writable_path(args.csv, "--csv")


def add_param_argument(parser: argparse.ArgumentParser) -> None:
    """``--param NAME=VALUE``: any parameter the model declares, by its own name (one value)."""
    parser.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="any other parameter of the model by name (its default otherwise); repeatable. "
        "E.g. --param gamma_AC=0.2 (rcpac), --param tau=0.05 (a user protocol)",
    )


OUTPUT_OPTIONS = ("out", "csv", "boundary")  # argparse destinations of files a command writes


@contextlib.contextmanager
def safe_outputs(args: argparse.Namespace):
    """Run a command with its output files written atomically (:mod:`rcpstab.runtime.atomic`).

    One path for two outputs, or for an output and ``--checkpoint``, is refused first; the
    outputs are checked under their real names; then each option points at a temporary file
    beside its target, renamed over it only when the command returned (an error, a full disk or
    Ctrl-C leaves the old file, and the message names the target).
    """
    from ..api.files import AtomicOutputs, check_distinct

    paths = {dest: getattr(args, dest, None) for dest in OUTPUT_OPTIONS}
    paths = {dest: path for dest, path in paths.items() if isinstance(path, str) and path}
    check_distinct({**{f"--{dest}": path for dest, path in paths.items()}, "--checkpoint": getattr(args, "checkpoint", None)})
    check_outputs(args)
    if paths.get("boundary"):
        writable_path(paths["boundary"], "--boundary")
    outputs = AtomicOutputs({f"--{dest}": path for dest, path in paths.items()})
    with outputs as temporary:
        for dest in paths:
            setattr(args, dest, temporary[f"--{dest}"])
        args.output_targets = dict(paths)
        try:
            yield
        finally:
            for dest, path in paths.items():
                setattr(args, dest, path)
            del args.output_targets


def add_sweep_arguments(parser: argparse.ArgumentParser, what: str = "phaseplane: ") -> None:
    """Network configurations and execution options of a phase-plane sweep."""
    parser.add_argument(
        "--C",
        type=float,
        nargs="+",
        metavar="BPS",
        help=f"{what}link capacities, bit/s; every combination of C, d0, N is swept (default: 0.15e9, App. E)",
    )
    parser.add_argument(
        "--d0",
        "--rtt",
        type=float,
        nargs="+",
        metavar="SECONDS",
        action=DeprecatedAlias,
        help=f"{what}round-trip propagation delays, s (default: 0.2)",
    )
    parser.add_argument("--N", type=float, nargs="+", metavar="FLOWS", help=f"{what}numbers of flows (default: 10)")
    parser.add_argument("--T", type=float, metavar="SECONDS", help=f"{what}rate update interval, s (default: 0.01)")
    parser.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUES",
        help=f"{what}any other parameter of the model by name, one value or several "
        "(V1,V2,... or START:STOP:STEP): several are swept like --C; repeatable. "
        "E.g. --param gamma_AC=0.2 (rcpac), --param tau=0.05,0.1 (a user protocol)",
    )
    add_buffer_argument(parser, what)
    add_worker_argument(parser)
    parser.add_argument("--scheduler", metavar="DASK_ADDRESS", help="run the sweep on a Dask cluster (default: local processes)")
    parser.add_argument(
        "--checkpoint", metavar="FILE", help="save finished chunks to FILE and resume from them; kept on Ctrl-C (default: none)"
    )


def add_network_arguments(parser: argparse.ArgumentParser, what: str = "") -> None:
    """One network configuration: ``--C``, ``--d0`` (alias ``--rtt``, deprecated), ``--N``, ``--T``."""
    parser.add_argument("--C", type=float, metavar="BPS", help=f"{what}link capacity, bit/s (default 0.15e9)")
    parser.add_argument(
        "--d0",
        "--rtt",
        type=float,
        metavar="SECONDS",
        action=DeprecatedAlias,
        help=f"{what}round-trip propagation delay, s (default 0.2)",
    )
    parser.add_argument("--N", type=float, metavar="FLOWS", help=f"{what}number of flows (default 10)")
    parser.add_argument("--T", type=float, metavar="SECONDS", help=f"{what}rate update interval, s (default 0.01)")


class DeprecatedAlias(argparse.Action):
    """Store the value; when given under a name other than the first, warn once that the first is the name."""

    def __call__(self, parser: argparse.ArgumentParser, namespace, values, option_string=None):
        if option_string and option_string != self.option_strings[0]:
            import warnings

            warnings.warn(f"{option_string} is deprecated: use {self.option_strings[0]} (same value and unit)", stacklevel=2)
            # messages about this value then name the option as it was typed (see rcpstab.cli.as_typed)
            namespace.typed_aliases = {**getattr(namespace, "typed_aliases", {}), self.option_strings[0]: option_string}
        setattr(namespace, self.dest, values)


def add_point_arguments(parser: argparse.ArgumentParser, drawing: str, json_help: str) -> None:
    """The options of a single-point loop plot (``bode``, ``nyquist``): model, gains, Pade order, figure, JSON."""
    parser.add_argument("--model", default="rcp", help=model_help("rcp"))
    parser.add_argument("--alpha", required=True, help="rate gain alpha (> 0, dimensionless)")
    parser.add_argument("--beta", required=True, help="queue gain beta (> 0, dimensionless)")
    parser.add_argument("--pade", type=int, metavar="N", help="Pade order 1..20 for the delay (default: exact)")
    parser.add_argument("--out", metavar="FIG", help=f"write the {drawing} (.png, .svg or .pdf)")
    parser.add_argument("--json", action="store_true", help=json_help)


def add_worker_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help=f"local worker processes (default: 1; this machine has {os.cpu_count() or 1} cores)",
    )


def check_workers(args: argparse.Namespace) -> None:
    if args.workers < 1:
        raise InputError(f"--workers {args.workers}: must be at least 1")


def buffer_bdp(text: str) -> float:
    """``--buffer BDP`` as a number (argparse type): a non-number ends the command with one line, exit 2.

    The range is checked with every other option against the one table of domains
    (:func:`rcpstab.commands.edge.check_arguments`, ``buffer_bdp``) before the command runs.
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


def add_buffer_argument(parser: argparse.ArgumentParser, what: str = "") -> None:
    """``--buffer BDP``: the bottleneck buffer of the fluid model (default: unbounded, the thesis' eqs.)."""
    parser.add_argument(
        "--buffer",
        type=buffer_bdp,
        metavar="BDP",
        help=f"{what}buffer in bandwidth-delay products C*d0: the queue is held in [0, BDP*C*d0] "
        "and the overflow dropped (default: unbounded, as eqs. 5.1-5.4)",
    )


# --- the one-line human summary every command ends with -------------------------------------


def report(args: argparse.Namespace, line: str) -> None:
    """Print a command's one-line human summary, unless ``--json`` (machine output only) or ``--quiet``."""
    if getattr(args, "json", False) or getattr(args, "quiet", False):
        return
    print(line + files_written(args))


def files_written(args: argparse.Namespace) -> str:
    """``"; figure in X, table in Y"`` for the output files the command was given ('' if none)."""
    targets = getattr(args, "output_targets", {})  # safe_outputs: the real names behind the temporary files
    parts = [
        f"{what} in {targets.get(option, getattr(args, option))}"
        for option, what in (("out", "figure"), ("csv", "table"), ("boundary", "boundary curve"))
        if getattr(args, option, None)
    ]
    return "; " + ", ".join(parts) if parts else ""


def model_help(default: str = "rcp", names=None) -> str:
    """Help text of ``--model`` listing the valid names (every registered model unless ``names``)."""
    if names is None:
        from ..api.common import model_names

        names = model_names()
    return f"model: one of {', '.join(names)}, or a protocol file (FILE.py defining MODEL) (default: {default})"
