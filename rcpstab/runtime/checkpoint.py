"""Durable record of finished sweep chunks: one self-delimiting, checksummed record per line.

A record is ``rcpck1 <sha256 of the payload, 16 hex> <JSON payload>\\n``. A sweep killed at any
moment (even SIGKILL, or a disk that fills up mid-write) leaves at worst a partial last line:
on opening, that tail is truncated away, so the next record starts on a fresh line and the file
stays readable however often it is resumed. A complete line whose checksum or JSON does not
verify (a flipped bit, a hand edit) is skipped with a warning and its chunk is computed again.
Every record is fsynced before :meth:`Checkpoint.save` returns.

Chunks are keyed by a hash of everything that determines their result, so a checkpoint file
can only ever feed back results of the same computation. The path is checked when the
:class:`Checkpoint` is made (before any work): it must be a regular file (or not exist yet) in
a writable place, and an existing file must be a checkpoint, so a wrong path (``/dev/full``, a
source file) is refused with one line rather than read or overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import warnings
from typing import Any

from ..errors import InputError

__all__ = ["Checkpoint", "CheckpointWarning", "chunk_key", "encode_record"]

MAGIC = b"rcpck1"
DIGEST_CHARS = 16


class CheckpointWarning(UserWarning):
    """A damaged record was skipped (its chunk is computed again)."""


def chunk_key(description: dict[str, Any]) -> str:
    """A stable identifier of a chunk from its JSON-serializable description."""
    return hashlib.sha256(json.dumps(description, sort_keys=True).encode()).hexdigest()[:32]


def _digest(payload: bytes) -> bytes:
    return hashlib.sha256(payload).hexdigest()[:DIGEST_CHARS].encode()


def encode_record(key: str, result: dict[str, Any]) -> bytes:
    """One line: magic, checksum of the payload, payload (JSON without NaN-unsafe surprises)."""
    payload = json.dumps({"key": key, "result": result}, separators=(",", ":")).encode()
    return MAGIC + b" " + _digest(payload) + b" " + payload + b"\n"


def _decode_record(line: bytes) -> tuple[str, Any] | None:
    """``(key, result)`` of a complete line, or None if it does not verify."""
    parts = line.rstrip(b"\n").split(b" ", 2)
    if len(parts) == 3 and parts[0] == MAGIC:
        if parts[1] != _digest(parts[2]):
            return None
        payload = parts[2]
    elif line.startswith(b"{"):  # format of earlier versions: a bare JSON line, no checksum
        payload = line
    else:
        return None
    try:
        entry = json.loads(payload.decode("utf-8"))
        return str(entry["key"]), entry["result"]
    except (ValueError, KeyError, TypeError):
        return None


class Checkpoint:
    """Finished chunks stored in ``path`` (created if missing).

    Parameters
    ----------
    path : str or None
        The file; None keeps nothing (every chunk is computed).

    Raises
    ------
    InputError
        ``path`` is not a regular file, cannot be read or written, or is not a checkpoint.
    """

    def __init__(self, path: str | None):
        self.path = path
        self.done: dict[str, Any] = {}
        self.skipped = 0
        if path:
            _check_path(path)
            if os.path.exists(path):
                self.done, self.skipped = _read_and_repair(path)

    def get(self, key: str) -> Any:
        return self.done.get(key)

    def save(self, key: str, result: dict[str, Any]) -> None:
        """Record a finished chunk durably before returning.

        If the write fails (disk full), the partial record is cut off again when possible, and
        otherwise on the next open; :class:`InputError` names the file (one line, exit 2).
        """
        self.done[key] = result
        if not self.path:
            return
        record = encode_record(key, result)
        try:
            with open(self.path, "ab") as fh:
                size = fh.tell()
                try:
                    fh.write(record)
                    fh.flush()
                    os.fsync(fh.fileno())
                except OSError:
                    try:
                        fh.truncate(size)
                    except OSError:
                        pass
                    raise
        except OSError as exc:
            raise InputError(
                f"--checkpoint {self.path!r}: cannot write ({exc.strerror or exc}); the chunks finished before are kept"
            ) from None


def _check_path(path: str) -> None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise InputError(f"--checkpoint {path!r}: folder {folder!r} does not exist") from None
        try:
            with open(path, "ab"):
                pass
        except OSError as exc:
            raise InputError(f"--checkpoint {path!r}: cannot create ({exc.strerror})") from None
        os.remove(path)
        return
    except OSError as exc:
        raise InputError(f"--checkpoint {path!r}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"--checkpoint {path!r}: not a regular file")
    if not os.access(path, os.R_OK | os.W_OK):
        raise InputError(f"--checkpoint {path!r}: not readable and writable")


def _read_and_repair(path: str) -> tuple[dict[str, Any], int]:
    """Records of ``path``; a partial last line is truncated away; damaged lines are skipped."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise InputError(f"--checkpoint {path!r}: cannot read ({exc.strerror})") from None
    complete = data.rfind(b"\n") + 1  # bytes up to the end of the last complete line
    lines = data[:complete].splitlines(keepends=True)
    done, damaged = {}, []
    for number, line in enumerate(lines, start=1):
        record = _decode_record(line)
        if record is None:
            damaged.append(number)
            continue
        done[record[0]] = record[1]
    if lines and not done and not any(line.startswith((MAGIC, b"{")) for line in lines):
        # Not one line verifies or even looks like a record: this file is not a checkpoint (a
        # wrong path); refusing keeps it from being appended to. A damaged first line of a real
        # checkpoint is skipped like any other (its chunk is computed again).
        raise InputError(f"--checkpoint {path!r}: not an rcpstab checkpoint (no line is a chunk record)")
    for number in damaged:
        warnings.warn(
            f"checkpoint {path!r}: line {number} is damaged; its chunk is computed again", CheckpointWarning, stacklevel=3
        )
    skipped = len(damaged)
    if complete == 0 and data:
        # A single partial line and nothing else: the first write was cut short.
        if not data.startswith(MAGIC[: len(data)]) and not data.startswith(b"{"):
            raise InputError(f"--checkpoint {path!r}: not an rcpstab checkpoint")
    if complete < len(data):
        try:
            os.truncate(path, complete)  # the next record must not be appended to a partial line
        except OSError as exc:
            raise InputError(f"--checkpoint {path!r}: cannot cut the partial last record ({exc.strerror})") from None
    return done, skipped
