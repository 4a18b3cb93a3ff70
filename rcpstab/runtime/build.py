"""Compile generated C into a shared library once per source, cache it on disk, load it with ctypes.

The cache is keyed by a hash of the source and the compiler command, so a changed model or
loop gets a new library and an unchanged one is never rebuilt. Several worker processes may
build the same library at once: each compiles into its own temporary file and renames it into
place atomically, so a reader only ever sees a complete library.

What is loaded is verified first: every cached library ends with a trailer holding the digest
of the source it was built from and the SHA-256 of the library bytes before the trailer (ELF
loaders ignore bytes after the sections). A truncated, emptied or overwritten entry (which
used to crash every run with a bus error) fails the check and is rebuilt atomically.

Where the cache lives: ``$RCPSTAB_CACHE_DIR``, else ``$XDG_CACHE_HOME/rcpstab/kernels``
(``~/.cache/rcpstab/kernels``). When that folder cannot be created or written (read-only home,
some CI containers), a verified library already in it is still used, and otherwise the kernel
is built in a per-user temporary cache (``$TMPDIR/rcpstab-kernels-UID``, mode 0700, which must
be owned by the user). Without a C compiler the phase plane cannot run: one line naming what
is missing (there is no silent fallback; the NumPy reference integrator,
:class:`~rcpstab.phaseplane.reference.ReferenceIntegrator`, remains available from Python).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

from ..errors import InputError

__all__ = ["cache_dir", "compiler", "load_library", "private_matplotlib_cache", "user_cache_root", "verified"]

# -O3 vectorizes the interleaved trajectories; -ffp-contract=off: no fused multiply-adds, so results
# match the NumPy reference to rounding
FLAGS = ("-O3", "-fPIC", "-shared", "-ffp-contract=off", "-fno-math-errno")
CACHE_ENV = "RCPSTAB_CACHE_DIR"
TRAILER_MAGIC = b"\n#rcpstab-kernel "
TRAILER_SIZE = len(TRAILER_MAGIC) + 20 + 1 + 64 + 1  # magic, source digest, space, sha256, newline


def cache_dir() -> Path:
    """Where compiled kernels live: ``$RCPSTAB_CACHE_DIR``, else ``$XDG_CACHE_HOME/rcpstab/kernels``
    (``~/.cache/rcpstab/kernels``); :func:`load_library` falls back to a per-user temporary cache."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    root = user_cache_root()
    return root / "rcpstab" / "kernels" if root is not None else _private_temp_cache()


def user_cache_root() -> Path | None:
    """``$XDG_CACHE_HOME``, else ``$HOME/.cache``, if absolute; None when neither is usable (``HOME=''``
    used to put the caches in ``.cache`` of the working folder, ``/.cache`` at the root): the callers
    then use a private temporary cache."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg)
    home = os.environ.get("HOME")
    if home is None:
        try:
            home = str(Path.home())  # from the password database
        except (KeyError, RuntimeError):
            return None
    return Path(home) / ".cache" if os.path.isabs(home) and home != "/" else None


def private_matplotlib_cache() -> None:
    """With no user cache (``HOME=''``), point matplotlib's font cache at a private temporary folder too:
    importing matplotlib created ``/.cache/matplotlib`` at the filesystem root. ``$MPLCONFIGDIR`` wins."""
    if "MPLCONFIGDIR" not in os.environ and user_cache_root() is None:
        os.environ["MPLCONFIGDIR"] = str(_private_temp_cache("rcpstab-matplotlib"))


def compiler() -> str:
    """The C compiler: ``$CC``, else ``gcc`` or ``cc`` on the PATH.

    Raises
    ------
    InputError
        No compiler found (the command line prints it as one line, exit code 2).
    """
    given = os.environ.get("CC")
    found = shutil.which(given) if given else (shutil.which("gcc") or shutil.which("cc"))
    if not found:
        what = f"CC={given!r} is not an executable" if given else "no C compiler (gcc or cc) on the PATH"
        raise InputError(
            f"the compiled kernels (phase plane, fluid network) are built at run time: {what}; install gcc or set CC"
        )
    return found


def _trailer(source_digest: str, body: bytes) -> bytes:
    return TRAILER_MAGIC + source_digest.encode() + b" " + hashlib.sha256(body).hexdigest().encode() + b"\n"


def verified(path: Path, source_digest: str) -> bool:
    """Whether ``path`` is a complete library built from the source with ``source_digest``."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    if len(data) <= TRAILER_SIZE:
        return False
    body, trailer = data[:-TRAILER_SIZE], data[-TRAILER_SIZE:]
    return trailer == _trailer(source_digest, body)


def _writable_folder(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(directory, os.W_OK | os.X_OK) and _can_create_in(directory)


def _can_create_in(directory: Path) -> bool:
    """os.access says yes to root on a read-only mount or /proc: try it."""
    try:
        with tempfile.TemporaryFile(dir=directory):
            return True
    except OSError:
        return False


def _private_temp_cache(prefix: str = "rcpstab-kernels") -> Path:
    """``$TMPDIR/<prefix>-UID``, owned by this user and closed to others (else a fresh one)."""
    directory = Path(tempfile.gettempdir()) / f"{prefix}-{os.getuid()}"
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        info = directory.lstat()
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022:
            return directory
    except OSError:
        pass
    # Someone else's (or a symlink planted by them): libraries from there would run their code.
    return Path(tempfile.mkdtemp(prefix=f"{prefix}-"))


def _build(cc: str, name: str, source: str, source_digest: str, target: Path) -> None:
    """Compile ``source`` and install it at ``target`` atomically, with its verification trailer."""
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        c_file = Path(work) / "kernel.c"
        c_file.write_text(source)
        built = Path(work) / "kernel.so"
        result = subprocess.run([cc, *FLAGS, "-o", str(built), str(c_file), "-lm"], capture_output=True, text=True)
        if result.returncode != 0:
            first = (result.stderr.strip().splitlines() or ["(no message)"])[0][:200]
            if os.environ.get("CC"):  # the user's compiler: bad input (one line, exit 2), not a bug of ours
                raise InputError(
                    f"$CC={os.environ['CC']!r}: compiling the {name} kernel failed ({first}); "
                    "set CC to a working C compiler or unset it"
                )
            raise RuntimeError(f"compiling the {name} kernel with {cc} failed: {first}")
        body = built.read_bytes()
        with open(built, "ab") as fh:
            fh.write(_trailer(source_digest, body))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(built, target)  # atomic: concurrent builders each install a complete file


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
    filename = f"{name}-{digest}.so"
    preferred = cache_dir()
    if verified(preferred / filename, digest):  # a read-only cache of good kernels is fine
        return ctypes.CDLL(str(preferred / filename))
    directory = preferred if _writable_folder(preferred) else _private_temp_cache()
    target = directory / filename
    if not verified(target, digest):
        _build(cc, name, source, digest, target)  # replaces a damaged entry atomically
    try:
        return ctypes.CDLL(str(target))
    except OSError:
        # Verified yet not loadable (e.g. built by another compiler for another machine): once more.
        _build(cc, name, source, digest, target)
        return ctypes.CDLL(str(target))
