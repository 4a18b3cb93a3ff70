"""The ``rcpstab`` command line (its contract is in DESIGN.md).

Each subcommand lives in :mod:`rcpstab.commands` as a module with ``add_arguments(parser)``
and ``run(args) -> int``, and optionally ``EXAMPLES``: (command line, what it does) pairs shown
in its ``--help`` (tests run them). Only the module of the command being run is imported, so
that ``rcpstab --help`` starts as fast as Python does. Bad input anywhere becomes one line on
stderr and exit code 2; Ctrl-C one line and exit code 130.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from . import __version__
from .commands import COMMANDS, load
from .errors import InputError

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 1
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports it
DEBUG_ENV = "RCPSTAB_DEBUG"  # set to 1 to see the traceback of an unexpected error
DESCRIPTION = (
    "Stability analysis of explicit congestion control (RCP, XCP, RCP-AC): for which router "
    "gains (alpha, beta) is the protocol stable? Exit codes: 0 success, 1 a check that ran and "
    "failed, 2 bad usage or input, 130 interrupted (a sweep's --checkpoint is kept). "
    "Every command ends with a one-line summary on stdout unless --quiet or --json."
)
EPILOG = "Run 'rcpstab COMMAND --help' for a command's options, defaults, units and examples."


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are a single line and exit code 2, and that takes no
    abbreviation of a long option (``portrait --rtt 0.1`` must not run as ``--rtts 0.1``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the docstring's line breaks and appends each option's default unless its help names it;
    never breaks a line inside a hyphenated name (``rcp-router``)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(self._whitespace_matcher.sub(" ", text).strip(), width, break_on_hyphens=False)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            "default" in text
            or default in (None, False, argparse.SUPPRESS)
            or action.option_strings == []
            or isinstance(action, argparse._HelpAction)
        ):
            return text
        shown = " ".join(map(str, default)) if isinstance(default, (list, tuple)) else default
        return f"{text} (default: {shown})"


def examples_epilog(examples: Iterable[tuple[str, str]]) -> str | None:
    """The ``Examples:`` block of a command's help, from its ``EXAMPLES`` pairs."""
    if not examples:
        return None
    lines = ["examples:"]
    for command, what in examples:
        lines += [f"  # {what}", f"  {command}"]
    return "\n".join(lines)


def add_command(sub: Any, name: str) -> argparse.ArgumentParser:
    """Add subcommand ``name`` with all its options (this imports its module)."""
    module = load(name)
    doc = (module.__doc__ or "").strip()
    cmd: argparse.ArgumentParser = sub.add_parser(
        name,
        help=COMMANDS[name][1],
        description=doc,
        epilog=examples_epilog(getattr(module, "EXAMPLES", ())),
        formatter_class=HelpFormatter,
    )
    module.add_arguments(cmd)
    if "quiet" not in {a.dest for a in cmd._actions}:
        cmd.add_argument("-q", "--quiet", action="store_true", help="print nothing on success (errors still go to stderr)")
    cmd.set_defaults(run=module.run)
    return cmd


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole ``rcpstab`` parser, or with ``only`` the options of that one command.

    The other commands are then listed by name and summary without importing their modules.
    """
    parser = OneLineParser(prog="rcpstab", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"rcpstab {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser, metavar="COMMAND")
    for name, (_, summary) in COMMANDS.items():
        if only is None or name == only:
            add_command(sub, name)
        else:
            sub.add_parser(name, help=summary)
    return parser


def _one_line_warning(
    message: Warning | str, category: type[Warning], filename: str, lineno: int, line: str | None = None
) -> str:
    return f"rcpstab: warning: {message}\n"


def command_of(argv: Sequence[str]) -> str | None:
    """The command named in ``argv``: its first word that is not an option (the top level has no valued options)."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    previous = warnings.formatwarning
    warnings.formatwarning = _one_line_warning
    try:
        return _main(argv)
    finally:
        warnings.formatwarning = previous


def _main(argv: Sequence[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    name = command_of(argv)
    args = build_parser(only=name if name in COMMANDS else "").parse_args(argv)
    try:
        from .commands.edge import check_arguments  # here, not at the top: --help stays as fast as Python

        check_arguments(args)
        from .api.files import private_matplotlib_cache

        private_matplotlib_cache()  # HOME='': matplotlib's cache went to /.cache at the filesystem root
        if getattr(args, "out", None) and figure_needs_matplotlib(args):
            import_figure_without_property_tables()
        from .commands.output import safe_outputs

        with safe_outputs(args):  # outputs written atomically, never one path for two of them
            code: int = args.run(args)
            return code
    except InputError as exc:
        print(f"rcpstab {args.command}: error: {as_typed(_first_line(exc), args)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:
        print(
            f"rcpstab {args.command}: error: not enough memory for this input (use a smaller grid, "
            "fewer points or a shorter run)",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    except RecursionError:
        print(f"rcpstab {args.command}: error: input nested too deeply", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: not an error worth a message.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        # An output that passed the early check can still fail to write (disk full, removed folder).
        what = f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else _first_line(exc)
        print(f"rcpstab {args.command}: error: {what}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"rcpstab {args.command}: interrupted{_kept(args)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug: still one line (the contract), the traceback on request
        if os.environ.get(DEBUG_ENV):
            raise
        print(
            f"rcpstab {args.command}: internal error: {type(exc).__name__}: {_first_line(exc)} "
            f"(a bug: please report it; {DEBUG_ENV}=1 shows the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def figure_needs_matplotlib(args: argparse.Namespace) -> bool:
    """Whether the command draws ``--out`` with matplotlib's figure: unless its module's
    ``figure_needs_matplotlib(args)`` says otherwise (a PNG the API draws with Pillow)."""
    says = getattr(load(args.command), "figure_needs_matplotlib", None)
    return says is None or bool(says(args))


def import_figure_without_property_tables(module: str = "matplotlib.figure") -> None:
    """Import :mod:`matplotlib.figure` (and the artists, axes and backends it loads) for a command that
    draws, skipping the property tables matplotlib writes into docstrings at import.

    Every Artist subclass builds, as it is defined, the list of its settable properties with their
    valid values for its ``set`` docstring (``matplotlib.artist.kwdoc``, parsing every setter's
    docstring): about 0.15 s of CPU, a third of the figure machinery's import and more than an exact
    map's computation. A command-line process shows no docstring, so ``kwdoc`` returns nothing while
    the modules load and is put back at once; the classes, their signatures and every drawing are
    unchanged. Only the command line does this: a library user's ``help(Line2D.set)`` keeps its table.

    ``kwdoc`` is a matplotlib internal, so nothing here may depend on it: the stand-in takes any
    arguments, the original is put back whatever the import raises, and if the import fails with the
    stand-in (a matplotlib that uses the table's text) it is imported again with the original, so a
    drawing command never fails for this speed-up.

    Parameters
    ----------
    module : str
        The module to import (the figure machinery; another name only to test this function).
    """
    if module in sys.modules:
        return
    try:
        import matplotlib.artist as artist
    except ImportError:  # the command reports a missing matplotlib itself
        return
    kwdoc = getattr(artist, "kwdoc", None)
    if kwdoc is None:
        return
    artist.kwdoc = lambda *_, **__: ""  # whatever signature a later matplotlib gives it
    try:
        importlib.import_module(module)
    except Exception:  # the stand-in may break any later matplotlib: import it as it comes
        artist.kwdoc = kwdoc
        importlib.import_module(module)
    finally:
        artist.kwdoc = kwdoc


def as_typed(message: str, args: argparse.Namespace) -> str:
    """``message`` naming each option as the user typed it (``--rtt 10``, not its new name ``--d0 10``)."""
    import re

    for name, typed in getattr(args, "typed_aliases", {}).items():
        message = re.sub(rf"{re.escape(name)}(?![\w-])", typed, message)
    return message


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _kept(args: argparse.Namespace) -> str:
    """What the interrupted run leaves behind to resume from."""
    checkpoint = getattr(args, "checkpoint", None)
    if checkpoint and os.path.exists(checkpoint) and os.path.getsize(checkpoint):
        return f"; finished chunks kept in {checkpoint} (run the same command again to resume)"
    if checkpoint:
        return f"; no chunk had finished, {checkpoint} has nothing to resume from"
    return ""


if __name__ == "__main__":
    sys.exit(main())
