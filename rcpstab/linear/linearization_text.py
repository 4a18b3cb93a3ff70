"""A linearization written as a textbook would: delayed arguments as x(t - tau), substitutions stated.

SymPy orders the terms of ``t - d0`` canonically and prints ``R(-d0 + t)``; the printers
here put the time variable first (``R(t - d_0)``), in plain text and in LaTeX. The
:func:`describe` text lists the equilibrium, the substitutions made before linearizing
(eta = 1) and the delays that drop out with the reason, then the linear delay system
equation by equation, G(s) and the normalized characteristic equation.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp
from sympy.printing.latex import LatexPrinter
from sympy.printing.str import StrPrinter

from ..models.spec import t
from .linearization import LinearDelaySystem, lam, s

__all__ = ["TimeFirstStrPrinter", "TimeFirstLatexPrinter", "text", "latex", "describe", "latex_document"]


def _time_first(printer: StrPrinter | LatexPrinter, expr: sp.Add) -> str | None:
    """Print an Add with the time symbol first and the other terms as `` - a`` / `` + b``."""
    terms = list(expr.args)
    if t not in terms:
        return None
    terms.remove(t)
    out: str = printer._print(t)
    for term in terms:
        if term.could_extract_minus_sign():
            out += " - " + printer.parenthesize(-term, sp.printing.precedence.PRECEDENCE["Add"])
        else:
            out += " + " + printer.parenthesize(term, sp.printing.precedence.PRECEDENCE["Add"])
    return out


class TimeFirstStrPrinter(StrPrinter):  # type: ignore[misc]  # SymPy ships no type hints: its classes are Any
    """StrPrinter that writes ``t - d_0`` rather than ``-d_0 + t``."""

    def _print_Add(self, expr: sp.Add, order: str | None = None) -> str:
        printed: str = _time_first(self, expr) or super()._print_Add(expr, order)
        return printed


class TimeFirstLatexPrinter(LatexPrinter):  # type: ignore[misc]  # SymPy ships no type hints: its classes are Any
    """LatexPrinter that writes ``t - d_{0}`` rather than ``- d_{0} + t``."""

    def _print_Add(self, expr: sp.Add, order: str | None = None) -> str:
        printed: str = _time_first(self, expr) or super()._print_Add(expr, order)
        return printed


def text(expr: sp.Basic) -> str:
    printed: str = TimeFirstStrPrinter().doprint(expr)
    return printed


def latex(expr: sp.Basic) -> str:
    printed: str = TimeFirstLatexPrinter().doprint(expr)
    return printed


def _time_unit(system: LinearDelaySystem, printer: Callable[[sp.Basic], str]) -> str:
    """The model's time scale as ``printer`` writes it: a parameter by its public name (``d0``, ``d_0`` in
    LaTeX, for RCP), an expression as it is."""
    scale = sp.sympify(system.model.time_scale)
    if isinstance(scale, sp.Symbol):
        return system.model.public_name(scale) if printer is text else printer(scale).replace("{", "").replace("}", "")
    return printer(scale)


def _dropped_delays(system: LinearDelaySystem) -> list[sp.Expr]:
    """Delays of the model whose coefficient matrix vanishes at the equilibrium.

    The delayed matrices are keyed by the delay after the ``linearize_at`` substitutions (rcp-router's
    T = d0/20): a delay that survives under its substituted value is not dropped."""
    at = system.model.linearize_at
    return [tau for tau in system.model.delays if sp.sympify(tau).subs(at) not in system.delayed]


def _equations(system: LinearDelaySystem) -> list[tuple[str, list[tuple[sp.Expr, str, sp.Expr]]]]:
    """Per state: (name, list of (coefficient, state name, argument)) of the linear system."""
    names = [x.__name__ for x in system.model.loop_states]  # the loop's states: no buffer drop counter
    rows = []
    for i, name in enumerate(names):
        terms = [(system.A0[i, j], names[j], t) for j in range(len(names)) if system.A0[i, j] != 0]
        for tau, A in system.delayed.items():
            terms += [(A[i, j], names[j], t - tau) for j in range(len(names)) if A[i, j] != 0]
        rows.append((name, terms))
    return rows


def describe(system: LinearDelaySystem) -> str:
    """The textbook text printed by ``rcpstab linearize``."""
    model = system.model
    lines = [model.title, ""]
    lines.append(
        "equilibrium: " + ", ".join(f"{x.__name__} = {text(v)}" for x, v in model.equilibrium.items() if x in model.loop_states)
    )
    subs = [f"{text(k)} = {text(v)}" for k, v in model.linearize_at.items()]
    lines.append(
        "substitutions before linearizing: "
        + (", ".join(subs) if subs else "none")
        + (
            " (the linear analysis takes full target utilization; thesis lines 2310-2311: eta moves the "
            "equilibrium, not the stability)"
            if subs
            else ""
        )
    )
    for tau in _dropped_delays(system):
        lines.append(
            f"dropped: the delay {text(tau)}: every term delayed by it has a zero coefficient at the "
            f"equilibrium (it multiplies the rate law's bracket, which vanishes there), so the "
            f"linear loop does not depend on {text(tau)}"
        )
    lines.append("")
    lines.append("linear delay system (d = small perturbation about the equilibrium):")
    for name, terms in _equations(system):
        body = ""
        for k, (coef, state, arg) in enumerate(terms):
            c = sp.simplify(coef)
            sign = "-" if c.could_extract_minus_sign() else "+"
            c = -c if sign == "-" else c
            factor = "" if c == 1 else f"{text(c)}*"
            piece = f"{factor}d{state}({text(arg)})"
            body += (f"-{piece}" if sign == "-" else piece) if k == 0 else f" {sign} {piece}"
        lines.append(f"  d/dt d{name}(t) = {body or '0'}")
    lines.append("")
    lines.append(f"G(s) = {text(system.open_loop)}")
    lines.append(sp.pretty(system.open_loop, use_unicode=False).replace("\n", "\n       ").join(["       ", ""]))
    lines.append(
        f"closed loop 1 + G(s) = 0; in lambda = s*{_time_unit(system, text)}: {text(system.normalized_characteristic)} = 0"
    )
    lines.append(f"parameters left after normalization: {', '.join(sorted(map(str, system.free_parameters())))}")
    return "\n".join(lines)


def latex_document(system: LinearDelaySystem, standalone: bool = False) -> str:
    """The linear system, G(s) and Delta(lambda) in one ``equation`` environment (``aligned`` inside).

    With ``standalone`` a complete compilable document (article class, amsmath) is returned.
    """
    rows = []
    for name, terms in _equations(system):
        body = " ".join(
            (
                ""
                if k == 0 and not sp.simplify(c).could_extract_minus_sign()
                else ("- " if sp.simplify(c).could_extract_minus_sign() else "+ ")
            )
            + (lambda cc: "" if cc == 1 else latex(cc) + r"\,")(
                -sp.simplify(c) if sp.simplify(c).could_extract_minus_sign() else sp.simplify(c)
            )
            + rf"\delta {latex(sp.Symbol(state))}({latex(arg)})"
            for k, (c, state, arg) in enumerate(terms)
        )
        rows.append(rf"\frac{{d}}{{dt}}\,\delta {latex(sp.Symbol(name))}(t) &= {body or '0'}")
    rows.append(rf"G(s) &= {latex(system.open_loop)}")
    rows.append(
        rf"\Delta(\lambda) &= {latex(system.normalized_characteristic)} = 0, "
        rf"\qquad \lambda = s\,{_time_unit(system, latex)}"
    )
    body = "\\begin{equation}\n\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}\n\\end{equation}"
    if not standalone:
        return body
    return "\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n" + body + "\n\\end{document}\n"


del lam, s
