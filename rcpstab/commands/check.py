"""Check a router's RCP constants (a TOML file) over the networks it will see.

Runs the exact linear stability and margins, the nonlinear phase-plane verdict over the
envelope (corners and a sample inside), convergence after the load doubles and recovery after a
flash crowd (N -> 10 N: peak queue, dropped volume, recovery time), the drops of a doubling and
the effect of the update interval T, every fluid run with the envelope's buffer (buffer_bdp C*d0,
default 1; the queue held in [0, B], overflow dropped); with ``--packet`` the reference
implementation on the worst envelope corner and the flash crowd packet by packet on the slowest
one, same buffer. Exit 0 if
every finding of the chosen criterion passes, 1 if one fails (with a verified suggestion),
2 for a bad file. ``--schema`` prints the file format (every key at its default, with units);
``--example NAME`` prints one of the bundled example configurations (``--example`` alone lists them).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..api.checker import CRITERIA, check, check_example, check_examples, check_schema
from ..errors import InputError
from .output import add_worker_argument

EXAMPLES = (
    (
        "rcpstab check --example thesis_box_a0.6_b0.2_T2ms > router.toml && rcpstab check router.toml --no-suggest",
        "write a bundled example and check it (exit 0: every finding passes)",
    ),
    ("rcpstab check --schema", "the configuration format, every key at its default"),
)

GREEN, RED, RESET = "\033[32m", "\033[31m", "\033[0m"


LIST_EXAMPLES = "*"  # --example without a NAME: list them (an empty string would read as an empty value)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "config", metavar="CONFIG.toml", nargs="?", help="router constants, envelope and thresholds (format: --schema)"
    )
    parser.add_argument(
        "--example",
        metavar="NAME",
        nargs="?",
        const=LIST_EXAMPLES,
        help="print the bundled example configuration NAME and exit; without NAME list them",
    )
    parser.add_argument(
        "--schema", action="store_true", help="print the configuration format (TOML, defaults and units) and exit"
    )
    parser.add_argument("--json", action="store_true", help='print {"passed": ..., "findings": [...]} as JSON')
    parser.add_argument(
        "--criterion", choices=CRITERIA, default="all", help="which verdicts must hold: %(choices)s (default: all)"
    )
    parser.add_argument("--samples", type=int, default=4, help="envelope points inside the box, besides its corners (default: 4)")
    add_worker_argument(parser)
    parser.add_argument(
        "--packet", action="store_true", help="confirm with the reference implementation on the worst envelope corner"
    )
    parser.add_argument(
        "--fct", action="store_true", help="measure flow completion times against processor sharing at a typical set-up"
    )
    parser.add_argument("--no-suggest", action="store_true", help="do not search for a passing (alpha, beta)")


def _table(report: Any, colour: bool, packet: bool = False) -> str:
    def mark(passed: bool) -> str:
        word = "pass" if passed else "FAIL"
        return f"{GREEN if passed else RED}{word}{RESET}" if colour else word

    def num(x: float | None) -> str:
        return "-" if x is None else f"{x:.4g}"

    lines = [f"rcpstab check: alpha = {report.alpha:g}, beta = {report.beta:g}, criterion {report.criterion}", ""]
    lines.append(f"{'check':<20} {'result':<6} {'figure':>10} {'threshold':>10}  unit")
    for f in report.findings:
        gate = "" if f.gates(report.criterion) else " (not gating)"
        lines.append(f"{f.name:<20} {mark(f.passed):<6} {num(f.figure):>10} {num(f.threshold):>10}  {f.unit}{gate}")
        lines.append(f"    {f.explanation}")
    lines += ["", report.summary]
    if not report.passed:
        s = report.suggestion
        lines.append("suggestion search not run (--no-suggest)" if s is None else s["text"])
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.schema or args.example is not None:
        if args.schema:
            print(check_schema(), end="")
        elif args.example != LIST_EXAMPLES:
            print(check_example(args.example), end="")
        else:
            print("\n".join(check_examples()))
        return 0
    if args.config is None:
        raise InputError("CONFIG.toml: required (or --schema, --example NAME)")
    result = check(
        args.config, args.criterion, args.samples, args.workers, packet=args.packet, fct=args.fct, suggest=not args.no_suggest
    )
    if args.json:
        print(result.to_json())
    elif not args.quiet:
        print(_table(result.value, sys.stdout.isatty(), args.packet))
    return 0 if result.passed else 1
