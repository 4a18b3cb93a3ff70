"""Outputs that cannot destroy inputs: each output file is written to a temporary file in its own
folder and renamed over the target only when the whole command succeeded.

A full disk, an interrupt or an error half-way through then leaves the old file (or none), never
a torn one (a CSV cut mid-row), and two outputs can never be one file: :func:`check_distinct`
refuses one path given for two outputs or for an output and the checkpoint (the CSV used to
overwrite the checkpoint it was resuming from).

Examples
--------
>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> target = os.path.join(folder, "table.csv")
>>> with AtomicOutputs({"--csv": target}) as paths:
...     with open(paths["--csv"], "w") as fh:
...         _ = fh.write("a,b\\n")
>>> open(target).read(), sorted(os.listdir(folder))
('a,b\\n', ['table.csv'])
"""

from __future__ import annotations

import errno
import os
import uuid
from types import TracebackType
from typing import IO, Any, Literal

from ..errors import InputError

__all__ = ["AtomicOutputs", "OutputError", "atomic_open", "atomic_path", "check_distinct", "same_file"]


# errors only writing raises: a disk or quota that is full, a file over the size limit
_WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (the same path, a link to it, or one inode)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_distinct(paths: dict[str, str | None]) -> None:
    """Refuse one file given for two of ``paths`` (option -> path; None: not given), in one line."""
    given = [(option, path) for option, path in paths.items() if isinstance(path, str) and path]
    for i, (first, a) in enumerate(given):
        for second, b in given[i + 1 :]:
            if same_file(a, b):
                raise InputError(
                    f"{first} {a!r} and {second} {b!r} are the same file: the second would "
                    "overwrite the first; give each its own path"
                )


def _temporary_name(path: str) -> str:
    """A fresh name beside ``path`` keeping its suffix (matplotlib picks the format by it)."""
    folder, name = os.path.split(os.path.abspath(path))
    stem, suffix = os.path.splitext(name)
    return os.path.join(folder, f".{stem}.{uuid.uuid4().hex[:12]}.tmp{suffix}")


class AtomicOutputs:
    """Context manager: temporary paths for the outputs, renamed over the targets on success.

    Parameters
    ----------
    paths : dict
        Option (``--csv``) -> target path; None or "" entries are left alone.

    Notes
    -----
    Inside the block, ``self[option]`` (or the dict the ``with`` yields) is the temporary path to
    write. On a clean exit every temporary file that was written is flushed to disk and renamed
    over its target (``os.replace``: atomic on one file system); on an exception they are
    removed and the targets are untouched. An ``OSError`` while writing becomes one
    :class:`InputError` line naming the target file.
    """

    def __init__(self, paths: dict[str, str | None]) -> None:
        self.targets = {option: path for option, path in paths.items() if isinstance(path, str) and path}
        self.temporary = {option: _temporary_name(path) for option, path in self.targets.items()}

    def __getitem__(self, option: str) -> str:
        return self.temporary[option]

    def __enter__(self) -> dict[str, str]:
        return dict(self.temporary)

    def _discard(self) -> None:
        for path in self.temporary.values():
            try:
                os.remove(path)
            except OSError:
                pass

    def _failed_option(self, exc: OSError) -> str | None:
        """The output an error came from: by its file name, else the last temporary file written, else
        the only output when the error is one of writing (a writer that removes its own partial file on
        error, as PIL does for a figure, leaves no temporary file to tell by)."""
        for option, path in self.temporary.items():
            if exc.filename and same_file(str(exc.filename), path):
                return option
        written: list[tuple[int, str]] = [(os.stat(p).st_mtime_ns, o) for o, p in self.temporary.items() if os.path.exists(p)]
        if written:
            return max(written)[1]
        if len(self.temporary) == 1 and exc.errno in _WRITE_ERRORS:
            return next(iter(self.temporary))
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> Literal[False]:
        if exc is not None:
            option: str | None = None
            reason: str | None = None
            if isinstance(exc, OSError):
                option, reason = self._failed_option(exc), exc.strerror or str(exc)
            elif isinstance(exc, OutputError):  # a nested atomic writer failed on one of our temporary files
                option = next((o for o, p in self.temporary.items() if same_file(p, exc.path)), None)
                reason = exc.reason
            self._discard()
            if option is not None:
                old = "the old file is kept" if os.path.exists(self.targets[option]) else "nothing was written"
                shown = option if option == repr(self.targets[option]) else f"{option} {self.targets[option]!r}"
                raise OutputError(f"{shown}: cannot write ({reason}); {old}", self.targets[option], str(reason)) from None
            return False
        try:
            for option, path in self.temporary.items():
                if not os.path.exists(path):
                    continue  # this output was not written (the command did not produce it)
                target = self.targets[option]
                with open(path, "rb+") as fh:
                    os.fsync(fh.fileno())
                _copy_mode(target, path)
                os.replace(path, target)
        except OSError as error:
            self._discard()
            assert option is not None  # set by the loop before the first write
            raise OutputError(
                f"{option} {self.targets[option]!r}: cannot write ({error.strerror or error})",
                self.targets[option],
                error.strerror or str(error),
            ) from None
        return False


class OutputError(InputError):
    """An output could not be written (one line naming it); ``path`` and ``reason`` for an outer writer."""

    def __init__(self, message: str, path: str, reason: str) -> None:
        super().__init__(message)
        self.path, self.reason = path, reason


def _copy_mode(target: str, path: str) -> None:
    """Give the new file the old one's permissions, or what the umask gives a new file."""
    try:
        mode = os.stat(target).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(path, mode)


class atomic_path:  # noqa: N801 - used like open()
    """``with atomic_path(path) as tmp:`` write ``tmp`` (same folder and suffix); it replaces ``path``
    only if the block finished. An ``OSError`` becomes one :class:`InputError` line naming ``path``.

    For library writers (``to_csv``, figures) called outside the command line, which wraps every
    command's outputs already (:func:`rcpstab.commands.output.safe_outputs`).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self.outputs = AtomicOutputs({repr(self.path): self.path})  # the "option" is the path itself

    def __enter__(self) -> str:
        return self.outputs.__enter__()[repr(self.path)]

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> Literal[False]:
        return self.outputs.__exit__(kind, exc, tb)


class atomic_open:  # noqa: N801 - used like open()
    """``with atomic_open(path) as fh:`` a text file (``newline=""`` for csv) that replaces ``path`` atomically."""

    def __init__(self, path: str | os.PathLike[str], mode: str = "w", **kwargs: Any) -> None:
        self.target = atomic_path(path)
        self.mode, self.kwargs = mode, {"newline": "", **kwargs}
        self.fh: IO[Any] | None = None

    def __enter__(self) -> IO[Any]:
        temporary = self.target.__enter__()
        self.fh = open(temporary, self.mode, **self.kwargs)
        return self.fh

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> Literal[False]:
        try:
            assert self.fh is not None, "__exit__ without __enter__"
            self.fh.close()
        except OSError as error:  # the last buffered bytes did not fit
            if exc is None:
                kind, exc, tb = type(error), error, error.__traceback__
        return self.target.__exit__(kind, exc, tb)
