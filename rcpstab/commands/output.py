"""Helpers shared by the subcommands: checked output paths and figure formats."""
from __future__ import annotations

import os

from ..errors import InputError

FIGURE_FORMATS = (".png", ".svg", ".pdf")


def writable_path(path: str, option: str, suffixes=None) -> str:
    """Check early (before a long computation) that ``path`` can be written."""
    if suffixes and os.path.splitext(path)[1].lower() not in suffixes:
        raise InputError(f"{option} {path!r}: expected a file ending in {', '.join(suffixes)}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(f"{option} {path!r}: folder {folder!r} does not exist")
    if os.path.isdir(path):
        raise InputError(f"{option} {path!r}: is a folder")
    existed = os.path.exists(path)
    try:
        # Opening is the only honest test (permissions, read-only mounts, /proc, root).
        with open(path, "a"):
            pass
    except OSError as exc:
        raise InputError(f"{option} {path!r}: not writable ({exc.strerror})") from None
    if not existed:
        os.remove(path)
    return path
