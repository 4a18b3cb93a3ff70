"""SymPy's lambdify kept as text: generated once with SymPy, rebuilt later without it.

The derivation cache (:mod:`.derivation_cache`) stores the text :func:`lambdify_source` gives, and
:func:`compile_lambdified` turns it back into the function lambdify made, in the namespace lambdify
gives a NumPy function, so a cached model computes the same bits and never imports SymPy.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["SOURCE", "compile_lambdified", "lambdify_source"]

SOURCE = Path(__file__).resolve()
"""This file: a derivation whose text it generates lists it among its sources (a change derives afresh)."""


def lambdify_source(args: Any, expr: Any, *, cse: bool = False, modules: str | ModuleType = "numpy") -> str:
    """The source ``sympy.lambdify(args, expr, modules=modules, cse=cse)`` generates, with an import line for
    each name it reads that the compile namespace lacks or binds otherwise (the printer's own imports, e.g.
    ``functools.reduce`` for a ``Min``), so that :func:`compile_lambdified` rebuilds the same function.

    Parameters
    ----------
    args : sequence of sympy.Symbol
        The function's arguments.
    expr : sympy.Expr or sympy.Matrix
        What it computes.
    cse : bool
        Common subexpressions pulled out (lambdify's ``cse``).
    modules : {"numpy", numpy}
        What lambdify is given. The module itself prints the same NumPy code without SymPy's
        ``from numpy import *``, which loads numpy.f2py, .testing, .ma and more.

    Returns
    -------
    str
        Python source defining ``_lambdifygenerated``.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> float(compile_lambdified(lambdify_source((x,), sp.Min(x, 2 * x)))(-1.0))   # Min: functools.reduce
    -2.0
    """
    import importlib
    import inspect
    import types

    import sympy as sp

    f = sp.lambdify(args, expr, modules=modules, cse=cse)
    names, stack = set(), [f.__code__]
    while stack:
        code = stack.pop()
        names |= set(code.co_names)
        stack += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    base, imports = _namespace(), []
    for name in sorted(n for n in names if n in f.__globals__ and base.get(n, f) is not f.__globals__[n]):
        value = f.__globals__[name]
        module, attr = getattr(value, "__module__", None), getattr(value, "__name__", None)
        if module is None or attr is None or getattr(importlib.import_module(module), attr, None) is not value:
            raise ValueError(f"lambdify's {name!r} ({value!r}) is not an importable name")
        imports.append(f"from {module} import {attr} as {name}\n")
    return "".join(imports) + inspect.getsource(f)


def _namespace() -> dict[str, Any]:
    """The namespace lambdify gives a NumPy function: NumPy's names, ``numpy`` itself, SymPy's ``I``."""
    return {**vars(np), "numpy": np, "I": 1j}


def compile_lambdified(text: str, label: str = "<rcpstab lambdified>") -> Any:
    """The function ``text`` (from :func:`lambdify_source`) defines, in lambdify's namespace.

    Parameters
    ----------
    text : str
        The cached source.
    label : str
        The file name tracebacks show for it.

    Returns
    -------
    callable
        ``_lambdifygenerated``.

    Examples
    --------
    >>> float(compile_lambdified("def _lambdifygenerated(x):\\n    return numpy.exp(x)\\n")(0.0))
    1.0
    """
    namespace = _namespace()
    exec(compile(text, label, "exec"), namespace)  # noqa: S102 (our own cached lambdify output)
    return namespace["_lambdifygenerated"]
