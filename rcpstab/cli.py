"""The ``rcpstab`` command line (its contract is in DESIGN.md).

Each subcommand lives in :mod:`rcpstab.commands` as a module with ``add_arguments(parser)``
and ``run(args) -> int``. Bad input anywhere becomes one line on stderr and exit code 2.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings

from . import __version__
from .commands import COMMANDS
from .commands.edge import check_arguments
from .errors import InputError

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 1
DEBUG_ENV = "RCPSTAB_DEBUG"  # set to 1 to see the traceback of an unexpected error
DESCRIPTION = ("Stability analysis of explicit congestion control (RCP, XCP, RCP-AC): for which router "
               "gains (alpha, beta) is the protocol stable? Exit codes: 0 success, 1 a check that ran and "
               "failed, 2 bad usage or input.")


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are a single line and exit code 2."""

    def error(self, message):
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="rcpstab", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"rcpstab {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for name, module in COMMANDS.items():
        doc = (module.__doc__ or "").strip()
        cmd = sub.add_parser(name, help=doc.splitlines()[0] if doc else None, description=doc,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(cmd)
        cmd.set_defaults(run=module.run)
    return parser


def _one_line_warning(message, category, filename, lineno, line=None):
    return f"rcpstab: warning: {message}\n"


def main(argv=None) -> int:
    previous = warnings.formatwarning
    warnings.formatwarning = _one_line_warning
    try:
        return _main(argv)
    finally:
        warnings.formatwarning = previous


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    try:
        check_arguments(args)
        return args.run(args)
    except InputError as exc:
        print(f"rcpstab {args.command}: error: {_first_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:
        print(f"rcpstab {args.command}: error: not enough memory for this input (use a smaller grid, "
              "fewer points or a shorter run)", file=sys.stderr)
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
        print(f"rcpstab {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: still one line (the contract), the traceback on request
        if os.environ.get(DEBUG_ENV):
            raise
        print(f"rcpstab {args.command}: internal error: {type(exc).__name__}: {_first_line(exc)} "
              f"(a bug: please report it; {DEBUG_ENV}=1 shows the traceback)", file=sys.stderr)
        return EXIT_INTERNAL


def _first_line(exc) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
