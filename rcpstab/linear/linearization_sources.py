"""The files a model's linear derivations are computed by: part of their disk-cache key.

Named by path, not by importing them, because :mod:`.linearization` and the model spec import
SymPy, which a cached derivation does not need (:mod:`rcpstab.runtime.derivation_cache`).
"""

from pathlib import Path

__all__ = ["DERIVING_SOURCES"]

_LINEAR = Path(__file__).resolve().parent

DERIVING_SOURCES = (_LINEAR / "linearization.py", _LINEAR.parent / "models" / "spec.py")
"""The linearization and the model spec: every derivation of :mod:`rcpstab.linear` runs their code."""
