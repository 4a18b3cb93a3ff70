"""Durable record of finished sweep chunks: one JSON line per chunk, appended and fsynced.

A sweep killed at any moment (even SIGKILL) leaves at worst a partial last line, which is
ignored on restart; every complete line is a chunk that is not computed again. Chunks are
keyed by a hash of everything that determines their result, so a checkpoint file can only
ever feed back results of the same computation.
"""
from __future__ import annotations

import hashlib
import json
import os

from ..errors import InputError


def chunk_key(description: dict) -> str:
    """A stable identifier of a chunk from its JSON-serializable description."""
    return hashlib.sha256(json.dumps(description, sort_keys=True).encode()).hexdigest()[:32]


class Checkpoint:
    """Finished chunks stored in ``path`` (created if missing).

    Parameters
    ----------
    path : str or None
        The file; None keeps nothing (every chunk is computed).
    """

    def __init__(self, path: str | None):
        self.path = path
        self.done: dict = {}
        if path and os.path.exists(path):
            self.done = _read(path)

    def get(self, key: str):
        return self.done.get(key)

    def save(self, key: str, result: dict) -> None:
        """Record a finished chunk durably before returning."""
        self.done[key] = result
        if not self.path:
            return
        line = json.dumps({"key": key, "result": result}) + "\n"
        with open(self.path, "a") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())


def _read(path: str) -> dict:
    done = {}
    try:
        with open(path) as fh:
            lines = fh.readlines()
    except OSError as exc:
        raise InputError(f"--checkpoint {path!r}: cannot read ({exc.strerror})") from None
    for number, line in enumerate(lines):
        try:
            entry = json.loads(line)
            done[entry["key"]] = entry["result"]
        except (ValueError, KeyError, TypeError):
            if number != len(lines) - 1:  # only the last line may be cut short by a kill
                raise InputError(f"--checkpoint {path!r}: line {number + 1} is not a chunk record") from None
    return done
