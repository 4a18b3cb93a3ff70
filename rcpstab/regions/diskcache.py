"""A small on-disk cache of the numbers compiled from a model's symbolic linearization.

Deriving the loop with SymPy takes about a second; the result is a few small arrays. They
are stored as ``.npz`` under ``$RCPSTAB_CACHE_DIR/linear`` (else ``$XDG_CACHE_HOME/rcpstab/linear``,
``~/.cache/rcpstab/linear``), keyed by a hash of the model's full symbolic definition and of
the code version, so a changed model or release never reads stale numbers. Any failure to
read or write the cache just means recomputing.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np
import sympy as sp

from .. import __version__
from ..models.spec import ModelSpec

CACHE_ENV = "RCPSTAB_CACHE_DIR"
FORMAT = 1            # bump when the stored arrays change meaning

__all__ = ["cached_arrays"]


def _folder() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]) / "linear"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rcpstab" / "linear"


def model_key(model: ModelSpec, what: str) -> str:
    """A hash of everything the linearization depends on."""
    parts = [what, str(FORMAT), __version__, model.name,
             *(sp.srepr(f) for f in model.rhs),
             *(f"{sp.srepr(k)}={sp.srepr(sp.sympify(v))}" for k, v in model.equilibrium.items()),
             *(f"{sp.srepr(k)}={sp.srepr(sp.sympify(v))}" for k, v in model.linearize_at.items()),
             *(sp.srepr(p) for p in model.loop_parameters), sp.srepr(model.time_scale),
             *(sp.srepr(s) for s in model.states)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def cached_arrays(model: ModelSpec, what: str, compute):
    """``compute()`` (a dict of arrays), read from the cache when present, stored otherwise."""
    path = _folder() / f"{what}-{model_key(model, what)}.npz"
    try:
        with np.load(path) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError, KeyError):
        pass
    arrays = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write then rename: concurrent runs never read a half-written file.
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npz", delete=False) as fh:
            np.savez(fh, **arrays)
        os.replace(fh.name, path)
    except OSError:
        pass
    return arrays
