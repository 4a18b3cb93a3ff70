"""The contract every API function's result keeps: a short repr, ``.plot()``, strict JSON, a long table.

An API result wraps what the engine returned (``.value``) with the inputs of the call; the engine's
own fields stay readable on it (``rcpstab.region(...).stable``, ``rcpstab.margins(...).gain_margin``).
``to_dict()`` is exactly what the command prints with ``--json``; ``columns()`` is the long format
(one row per point or sample, units in the column names) that ``to_pandas()`` turns into a DataFrame
and ``to_csv()`` writes; ``summary()`` is the command's one-line summary.
"""

from __future__ import annotations

import json
import math

import numpy as np

from ..runtime.atomic import atomic_path
from ..runtime.csvtable import write_csv_table

__all__ = ["Result", "strict"]


def strict(value):
    """``value`` made strict-JSON-ready: NaN and infinities become None, numpy scalars and arrays plain Python."""
    if isinstance(value, dict):
        return {str(k): strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict(v) for v in value]
    if isinstance(value, np.ndarray):
        return strict(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value


class Result:
    """Base of the API results (see the module docstring). Subclasses set ``command`` and override
    :meth:`to_dict`, :meth:`columns`, :meth:`summary` and :meth:`plot`."""

    command = ""

    def __init__(self, value, **inputs):
        self.value = value
        self.inputs = inputs

    def __getattr__(self, name):
        # only reached for names the wrapper does not define: the engine result's own fields
        if name.startswith("__") or name in ("value", "inputs"):
            raise AttributeError(name)
        return getattr(self.value, name)

    def to_dict(self) -> dict:
        """What ``rcpstab COMMAND --json`` prints (strict: null where a number does not exist)."""
        return strict(self.value.to_dict())

    def to_json(self) -> str:
        """Strict JSON (``allow_nan=False``) of :meth:`to_dict`."""
        return json.dumps(self.to_dict(), allow_nan=False)

    def columns(self) -> dict:
        """The long table: column name (with its unit) -> equal-length 1-D array."""
        raise NotImplementedError

    def to_pandas(self):
        """:meth:`columns` as a :class:`pandas.DataFrame` (long format, one row per point or sample)."""
        from ..runtime.frames import data_frame

        return data_frame(self.columns())

    def to_csv(self, path: str) -> None:
        """Write :meth:`columns` with a header row; floats round-trippable, NaN as an empty cell
        (the file :class:`csv.writer` writes, a column at a time: :mod:`rcpstab.runtime.csvtable`)."""
        with atomic_path(path) as temporary:  # a full disk leaves the old file, not a torn one
            write_csv_table(temporary, self.columns())

    def summary(self) -> str:
        """The one line the command prints."""
        raise NotImplementedError

    def plot(self, ax=None, **kwargs):
        """Draw the result (matplotlib is imported only now)."""
        return self.value.plot(ax, **kwargs)

    def save(self, path: str) -> None:
        """Write the command's figure (``--out``) to ``path``."""
        from ..figures import draw_and_save

        draw_and_save(lambda result, ax: result.plot(ax=ax), self, path)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._repr_text()})"

    def _repr_text(self) -> str:
        text = self.summary()
        return text if len(text) < 200 else text[:197] + "..."
