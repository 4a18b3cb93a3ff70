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
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise InputError(f"{option} {path!r}: not writable")
    if os.path.isdir(path):
        raise InputError(f"{option} {path!r}: is a folder")
    return path
