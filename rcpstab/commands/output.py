"""Helpers shared by the subcommands: checked output paths, shared options (the buffer, any model
parameter by name) and the one-line summary."""
from __future__ import annotations

import argparse
import contextlib
import os

from ..errors import InputError
from ..units import rate_text

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
    """Check ``--out`` (a figure) and ``--csv`` early, if the command was given them."""
    if getattr(args, "out", None):
        writable_path(args.out, "--out", FIGURE_FORMATS)
    if getattr(args, "csv", None):
        writable_path(args.csv, "--csv")


OUTPUT_OPTIONS = ("out", "csv", "boundary")  # argparse destinations of files a command writes


@contextlib.contextmanager
def safe_outputs(args):
    """Run a command with its output files written atomically (:mod:`rcpstab.runtime.atomic`).

    One path for two outputs, or for an output and ``--checkpoint``, is refused first; the
    outputs are checked under their real names; then each option points at a temporary file
    beside its target, renamed over it only when the command returned (an error, a full disk or
    Ctrl-C leaves the old file, and the message names the target).
    """
    from ..runtime.atomic import AtomicOutputs, check_distinct

    paths = {dest: getattr(args, dest, None) for dest in OUTPUT_OPTIONS}
    paths = {dest: path for dest, path in paths.items() if isinstance(path, str) and path}
    check_distinct({**{f"--{dest}": path for dest, path in paths.items()},
                    "--checkpoint": getattr(args, "checkpoint", None)})
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


def add_sweep_arguments(parser, what: str = "phaseplane: ") -> None:
    """Network configurations and execution options of a phase-plane sweep."""
    parser.add_argument("--C", type=float, nargs="+", metavar="BPS",
                        help=f"{what}link capacities, bit/s; every combination of C, d0, N is swept (default: 0.15e9, App. E)")
    parser.add_argument("--d0", type=float, nargs="+", metavar="SECONDS", help=f"{what}propagation RTTs, s (default: 0.2)")
    parser.add_argument("--N", type=float, nargs="+", metavar="FLOWS", help=f"{what}numbers of flows (default: 10)")
    parser.add_argument("--T", type=float, metavar="SECONDS", help=f"{what}rate update interval, s (default: 0.01)")
    parser.add_argument("--param", action="append", metavar="NAME=VALUES",
                        help=f"{what}any other parameter of the model by name, one value or several "
                             "(V1,V2,... or START:STOP:STEP): several are swept like --C; repeatable. "
                             "E.g. --param gamma_AC=0.2 (rcpac), --param tau=0.05,0.1 (a user protocol)")
    add_buffer_argument(parser, what)
    add_worker_argument(parser)
    parser.add_argument("--scheduler", metavar="DASK_ADDRESS", help="run the sweep on a Dask cluster (default: local processes)")
    parser.add_argument("--checkpoint", metavar="FILE",
                        help="save finished chunks to FILE and resume from them; kept on Ctrl-C (default: none)")


def parse_params(items) -> dict:
    """``--param NAME=VALUES`` options as ``{name: [values]}`` (one line naming a malformed one)."""
    from ..linear.grid import parse_range

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


def add_point_arguments(parser, drawing: str, json_help: str) -> None:
    """The options of a single-point loop plot (``bode``, ``nyquist``): model, gains, Pade order, figure, JSON."""
    parser.add_argument("--model", default="rcp", help=model_help("rcp"))
    parser.add_argument("--alpha", required=True, help="rate gain alpha (> 0, dimensionless)")
    parser.add_argument("--beta", required=True, help="queue gain beta (> 0, dimensionless)")
    parser.add_argument("--pade", type=int, metavar="N", help="Pade order 1..20 for the delay (default: exact)")
    parser.add_argument("--out", metavar="FIG", help=f"write the {drawing} (.png, .svg or .pdf)")
    parser.add_argument("--json", action="store_true", help=json_help)


def add_worker_argument(parser) -> None:
    parser.add_argument("--workers", type=int, default=1, help=f"local worker processes (default: 1; this machine has {os.cpu_count() or 1} cores)")


def check_workers(args) -> None:
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


def add_buffer_argument(parser, what: str = "") -> None:
    """``--buffer BDP``: the bottleneck buffer of the fluid model (default: unbounded, the thesis' eqs.)."""
    parser.add_argument("--buffer", type=buffer_bdp, metavar="BDP",
                        help=f"{what}buffer in bandwidth-delay products C*d0: the queue is held in [0, BDP*C*d0] "
                             "and the overflow dropped (default: unbounded, as eqs. 5.1-5.4)")
# --- the one-line human summary every command ends with -------------------------------------

def report(args, line: str) -> None:
    """Print a command's one-line human summary, unless ``--json`` (machine output only) or ``--quiet``."""
    if getattr(args, "json", False) or getattr(args, "quiet", False):
        return
    print(line + files_written(args))


def files_written(args) -> str:
    """``"; figure in X, table in Y"`` for the output files the command was given ('' if none)."""
    targets = getattr(args, "output_targets", {})  # safe_outputs: the real names behind the temporary files
    parts = [f"{what} in {targets.get(option, getattr(args, option))}" for option, what in
             (("out", "figure"), ("csv", "table")) if getattr(args, option, None)]
    return "; " + ", ".join(parts) if parts else ""


def network_text(config: dict) -> str:
    """``C = 150 Mb/s, d0 = 200 ms, N = 10, T = 10 ms`` from a configuration in SI units."""
    parts = []
    if "C" in config:
        parts.append(f"C = {rate_text(config['C'])}")
    if "d0" in config:
        parts.append(f"d0 = {config['d0'] * 1e3:.4g} ms")
    if "N" in config:
        parts.append(f"N = {config['N']:g}")
    if "T" in config:
        parts.append(f"T = {config['T'] * 1e3:.4g} ms")
    return ", ".join(parts)


def region_summary(region) -> str:
    """What a region map decided, and which configurations it left out of the common region and why."""
    n, total = int(region.stable.sum()), region.stable.size
    line = f"{region.method} region of {region.model}: {n} of {total} grid points stable ({100 * region.stable_fraction:.1f}%)"
    configs = region.meta.get("configurations") or []
    if len(configs) == 1:
        line += f" at {network_text(configs[0])}"
        if region.meta.get("unreachable_configurations"):
            line += "; this configuration cannot reach equilibrium (C/N < MIN_RATE), whatever the gains"
    elif configs:
        lost = region.meta.get("unreachable_configurations") or []
        line += f" in every one of the {len(configs) - len(lost)} configurations whose equilibrium is reachable"
        if lost:
            everywhere = region.meta.get("stable_points_all_configurations", 0)
            line += (f"; {len(lost)} of {len(configs)} configurations cannot reach equilibrium (C/N < MIN_RATE) "
                     f"and are not in the common region; over all {len(configs)} the common region is "
                     + ("empty" if everywhere == 0 else f"{everywhere} points"))
    counts = region.meta.get("verdict_counts")
    if counts:
        line += " (" + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items() if v) + " point-configurations)"
    return line


def model_help(default: str = "rcp", names=None) -> str:
    """Help text of ``--model`` listing the valid names (every registered model unless ``names``)."""
    if names is None:
        from ..models import MODELS
        names = MODELS
    return f"model: one of {', '.join(names)}, or a protocol file (FILE.py defining MODEL) (default: {default})"


def off_target_links(summary: dict, label: str = "") -> str:
    """``"; L1 ends 42% below its max-min target (not within the 2% band at the end of the run)"`` or ''.

    ``summary`` has ``<L>_final_error`` (relative) per link, as the network summaries do.
    """
    from ..verdicts.judgement import RATE_BAND

    off = [(key[: -len("_final_error")], value) for key, value in summary.items()
           if key.endswith("_final_error") and value is not None and abs(value) > RATE_BAND]
    if not off:
        return ""
    words = ", ".join(f"{link} ends {100 * abs(err):.2g}% {'below' if err < 0 else 'above'}" for link, err in off)
    return (f"; {label}{words} its max-min target (outside the {100 * RATE_BAND:g}% band at the end of the run: "
            "not settled, or settled elsewhere; see --json)")
