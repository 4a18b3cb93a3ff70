"""C source of a model's whole stepping loop, generated from its symbolic spec.

The model-specific pieces (right-hand sides, saturation bounds, R/C and queue for the
envelope) are printed from SymPy with its C99 printer; the loop around them (ring-buffer
delays, clamps (and a buffer's overflow), RK4 or exact Euler steps, the sampled update, the envelope monitor and
recording) is the C file ``csrc/kernel.c`` (:data:`LOOP`), specialised by compile-time constants so the compiler can unroll
it, and written over blocks of trajectories side by side so that it vectorizes. It performs, operation for operation, what :mod:`.reference` does in NumPy.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources
from typing import Any

import sympy as sp
from sympy.printing.c import C99CodePrinter

from ..models.spec import ModelSpec, t
from ..verdicts.band import STANDARD, Band

# Arrays are row-major: x[B][S], history[B][S][L], parameters[B][P], envelope outputs [window][B]; inside the
# kernel a block of LANES trajectories is lane-contiguous: X[S][LANES], history[S][L][LANES].
TEMPLATE = "csrc/kernel.c"
"""The loop's C source, shipped as package data (compiled on its own by a test with -Wall -Wextra -Werror)."""
LOOP = (resources.files(__package__) / TEMPLATE).read_text()
"""The text of :data:`TEMPLATE`: everything of the kernel but the model."""


def _unused(signature: str) -> str:
    """``(void) name;`` for every parameter of ``signature``: a model need not read them all (-Wextra)."""
    names = [part.split()[-1].lstrip("*") for part in signature[signature.index("(") + 1 : -1].split(",")]
    return "  " + " ".join(f"(void) {n};" for n in names) + "\n"


def _function(signature: str, cases: dict[int, str], default: str) -> str:
    """``static inline signature``: a switch over the state index ``i``, ``default`` for other states."""
    body = "".join(f"    case {i}: {{\n{code}    }}\n" for i, code in cases.items())
    return f"static_inline {signature} {{\n{_unused(signature)}  switch (i) {{\n{body}  }}\n  {default}\n}}\n"


def _block(exprs: list[Any], result: str, printer: C99CodePrinter, names: dict[Any, str], cse: bool) -> str:
    """Statements computing ``exprs`` as ``r0, r1...``, then ``result``.

    The spec's own symbol names are kept (prefixed ``v_``), and common subexpressions are
    eliminated as ``lambdify(cse=True)`` does, so products are printed in the same order as in
    the NumPy reference and the two agree to the last bit wherever the operations allow.
    """
    temps, reduced = sp.cse(exprs) if cse else ([], exprs)
    rename = {sym: sp.Symbol("v_" + sym.name) for sym in set().union(*(sp.sympify(e).free_symbols for e in exprs))}
    rename.update({sym: sp.Symbol("v_" + sym.name) for sym, _ in temps})
    lines = [
        f"      const double v_{sym.name} = {source};\n"
        for sym, source in names.items()
        if any(sym in sp.sympify(e).free_symbols for e in exprs)
    ]
    lines += [f"      const double {rename[sym]} = {printer.doprint(e.xreplace(rename))};\n" for sym, e in temps]
    lines += [f"      const double r{j} = {printer.doprint(e.xreplace(rename))};\n" for j, e in enumerate(reduced)]
    return "".join(lines) + f"      {result}\n"


def _lane_function(signature: str, body: str) -> str:
    return f"static_inline {signature} {{\n{_unused(signature)}{body}}}\n"


def c_source(
    spec: ModelSpec, continuous: tuple[Any, ...], piecewise_constant: bool, wide: bool = False, band: Band = STANDARD
) -> str:
    """The complete C translation unit of ``spec``'s stepping loop (see :data:`LOOP` for the entry point).

    ``band``: the convergence band the envelope monitor measures distances in (compiled in).

    ``wide``: read smooth delayed states with the wide (degree-7) Hermite stencil where it applies
    (:func:`~rcpstab.phaseplane.history.wide_stencil`), else always with the cubic.
    """
    printer = C99CodePrinter()
    # every generated function computes lane ln of a block (arrays [index][LANES], see LOOP)
    names = {sym: f"X[{i} * LANES + ln]" for i, sym in enumerate(spec.current_symbols)}
    names.update({term.symbol: f"dl[{j} * LANES + ln]" for j, term in enumerate(spec.delayed_terms)})
    names.update({sym: f"P[{m} * LANES + ln]" for m, sym in enumerate(spec.parameters)})
    now = {s(t): sym for s, sym in zip(spec.states, spec.current_symbols)}

    def plain(expr: Any) -> Any:
        return sp.sympify(expr).xreplace(now)

    def value(expr: Any) -> str:
        return _block([plain(expr)], "return r0;", printer, names, cse=False)

    rhs = {i: _block([e], "return r0;", printer, names, cse=True) for i, e in enumerate(spec.plain_rhs())}
    saturate = {
        spec.states.index(sat.state): _block(
            [plain(sat.lower), plain(sat.upper)],
            f"double v = X[{spec.states.index(sat.state)} * LANES + ln]; v = v < r0 ? r0 : v; "
            f"X[{spec.states.index(sat.state)} * LANES + ln] = v > r1 ? r1 : v; return;",
            printer,
            names,
            cse=False,
        )
        for sat in spec.saturations
    }
    clamp = {spec.states.index(c.state): float(c.lower) for c in spec.clamps}
    spill = {spec.states.index(c.state): spec.states.index(c.overflow) for c in spec.clamps if c.bounded}
    upper = {
        spec.states.index(c.state): _block([plain(c.upper)], "return r0;", printer, names, cse=False)
        for c in spec.clamps
        if c.bounded
    }
    n, nd = len(spec.states), len(spec.delayed_terms)

    def array(ctype: str, name: str, values: Iterable[object]) -> str:
        return f"static const {ctype} {name}[] = {{{', '.join(str(v) for v in values) or '0'}}};\n"

    header = (
        # no-trapping-math: the lane loops' clamps (selects behind comparisons that could raise a
        # floating-point flag nobody reads) may then become blends, so they vectorize; no value changes
        '#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC optimize ("no-trapping-math")\n#endif\n'
        "#include <math.h>\n#include <stdlib.h>\n#define static_inline static inline __attribute__((always_inline))\n"
        f"#define NS {n}\n#define ND {nd}\n#define NP {len(spec.parameters)}\n#define NC {len(continuous)}\n#define LANES {32 if piecewise_constant else 8}\n#define TAIL_LANES 8\n"
        f"#define PIECEWISE_CONSTANT {int(piecewise_constant)}\n#define WIDE {int(wide)}\n"
        f"#define RATE_BAND {float(band.rate)!r}\n#define QUEUE_BAND {float(band.queue)!r}\n#define RCPSTAB_MODEL 1\n"
        + array("int", "CONT", continuous)
        + array("int", "DSTATE", [spec.states.index(term.state) for term in spec.delayed_terms])
        + array("int", "DSAMPLED", [int(term.state in spec.sampled) for term in spec.delayed_terms])
        + array("int", "HAS_CLAMP", [int(i in clamp) for i in range(n)])
        + array("double", "CLAMP", [repr(clamp.get(i, 0.0)) for i in range(n)])
        + array("int", "SPILL", [spill.get(i, -1) for i in range(n)])
        + array("int", "IS_SPILL", [int(i in spill.values()) for i in range(n)])
    )
    return (
        header
        + _function("double rhs(int i, const double *X, const double *dl, const double *P, int ln)", rhs, "return 0.0;")
        + _function("void saturate(int i, double *X, const double *P, int ln)", saturate, "return;")
        + _function("double upper_of(int i, const double *P, int ln)", upper, "return INFINITY;")
        + _lane_function("double gamma_of(const double *X, const double *P, int ln)", value(spec.gamma))
        + _lane_function("double queue_of(const double *X, const double *P, int ln)", value(spec.queue))
        + LOOP
    )
