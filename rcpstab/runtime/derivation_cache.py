"""A disk cache for symbolic derivations (SymPy work that takes longer than the computation after it).

Linearizing a model with SymPy (Jacobians, ``simplify``) takes about half a second, which
would be most of ``rcpstab margins``' run time although its result depends only on the
model and on the code that derives it. The result is pickled under a key that hashes the
model (its full ``repr``), the SymPy version and the source of the deriving modules, so
a changed model or a changed derivation is derived afresh, never read stale. Any problem
with the cache (unwritable folder, corrupt or foreign file) just means deriving again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar, cast

T = TypeVar("T")

CACHE_ENV = "RCPSTAB_CACHE_DIR"


def cache_dir() -> Path:
    """``$RCPSTAB_CACHE_DIR/symbolic``, else ``$XDG_CACHE_HOME/rcpstab/symbolic`` (``~/.cache/...``)."""
    from .build import _private_temp_cache, user_cache_root

    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]) / "symbolic"
    root = user_cache_root()
    return root / "rcpstab" / "symbolic" if root is not None else _private_temp_cache("rcpstab-symbolic")


def sympy_version() -> str:
    """SymPy's version, read from its ``release.py`` when it is not imported (importing it costs more
    than a cached command's work)."""
    if "sympy" in sys.modules:
        return str(sys.modules["sympy"].__version__)
    spec = importlib.util.find_spec("sympy")
    assert spec is not None and spec.origin is not None, "SymPy is a dependency"
    text = (Path(spec.origin).parent / "release.py").read_text()
    return text.split("__version__", 1)[1].split("=", 1)[1].split("\n", 1)[0].strip().strip("'\"")


def key(kind: str, model: Any, sources: Iterable[str | os.PathLike[str]]) -> str:
    """Hash of what the derivation depends on: the model, SymPy's version, the deriving code.

    A bundled model as registered (:class:`~rcpstab.models.lazy.BundledModel`, built or not) is
    identified by the source of the files its expressions are built from, which determines its
    ``repr``: so the key, and the cached value, need no SymPy. Any other model by its ``repr``.
    """
    bundled = getattr(model, "bundled_sources", None)
    identity = (f"bundled {model.name}", *(Path(p).read_bytes().decode() for p in bundled)) if bundled else (repr(model),)
    digest = hashlib.sha256()
    for part in (kind, *identity, sympy_version(), *(Path(p).read_bytes().decode() for p in sources)):
        digest.update(part.encode())
        digest.update(b"\0")
    return f"{kind}-{model.name}-{digest.hexdigest()[:24]}"


def cached(kind: str, model: Any, sources: Iterable[str | os.PathLike[str]], derive: Callable[[], T]) -> T:
    """``derive()``, read from the cache when the same model and code derived it before.

    Parameters
    ----------
    kind : str
        What is derived (part of the file name).
    model : ModelSpec
    sources : sequence of path
        The files whose code ``derive`` runs; a change to any of them invalidates the entry.
    derive : callable
        Returns a picklable value.
    """
    path = cache_dir() / f"{key(kind, model, sources)}.pkl"
    try:
        with open(path, "rb") as cached_file:
            return cast(T, pickle.load(cached_file))
    except Exception:  # missing, truncated or from an incompatible library: derive again
        pass
    value = derive()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write then rename: concurrent workers each install a complete file.
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as fh:
            pickle.dump(value, fh)
        os.replace(fh.name, path)
    except OSError:
        pass
    return value
