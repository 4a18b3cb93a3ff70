"""Compile generated C into a shared library once per source, cache it on disk, load it with ctypes.

The cache is keyed by a hash of the source and the compiler command, so a changed model or
loop gets a new library and an unchanged one is never rebuilt. Several worker processes may
build the same library at once: each compiles into its own temporary file and renames it into
place atomically, so a reader only ever sees a complete library.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

# -O3 vectorizes the interleaved trajectories; -ffp-contract=off: no fused multiply-adds, so results
# match the NumPy reference to rounding
FLAGS = ("-O3", "-fPIC", "-shared", "-ffp-contract=off", "-fno-math-errno")
CACHE_ENV = "RCPSTAB_CACHE_DIR"


def cache_dir() -> Path:
    """Where compiled kernels live: ``$RCPSTAB_CACHE_DIR``, else ``$XDG_CACHE_HOME/rcpstab/kernels``
    (``~/.cache/rcpstab/kernels``); :func:`load_library` falls back to the temporary directory."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rcpstab" / "kernels"


def compiler() -> str:
    """The C compiler: ``$CC``, else ``gcc`` or ``cc`` on the PATH."""
    found = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if not found:
        raise RuntimeError("the compiled kernels (phase plane, fluid network) are built at run time: install gcc (or set CC)")
    return found


def load_library(name: str, source: str) -> ctypes.CDLL:
    """The shared library built from ``source`` (compiled on first use, then read from the cache).

    Parameters
    ----------
    name : str
        Readable prefix of the cached file name (the model name).
    source : str
        A complete C translation unit.
    """
    cc = compiler()
    digest = hashlib.sha256("\0".join((source, cc, *FLAGS)).encode()).hexdigest()[:20]
    directory = cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:  # no writable home (some CI and containers): a per-user temporary cache
        directory = Path(tempfile.gettempdir()) / f"rcpstab-kernels-{os.getuid()}"
        directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{name}-{digest}.so"
    if not target.exists():
        with tempfile.TemporaryDirectory(dir=directory) as work:
            c_file = Path(work) / "kernel.c"
            c_file.write_text(source)
            built = Path(work) / "kernel.so"
            result = subprocess.run([cc, *FLAGS, "-o", str(built), str(c_file), "-lm"],
                                    capture_output=True, text=True)
            if result.returncode != 0:
                raise RuntimeError(f"compiling the {name} kernel failed:\n{result.stderr}")
            os.replace(built, target)  # atomic: concurrent builders each install a complete file
    return ctypes.CDLL(str(target))
