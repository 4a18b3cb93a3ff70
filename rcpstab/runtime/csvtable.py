"""Write a table of equal-length columns as CSV, a column at a time.

The file is the one :class:`csv.writer` (default dialect: ``,``, ``\\r\\n``, minimal quoting) writes
from the cells of :func:`cell`, byte for byte; only the work differs. Converting a numeric
NumPy column at once (``tolist`` and one ``map``) instead of cell by cell through ``isinstance``
tests is what makes a map's table cost a fraction of its computation rather than most of the
command (``benchmarks/bench_commands.py`` times both writers).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["cell", "column_text", "write_csv_table"]

_SPECIAL = (",", '"', "\r", "\n")
CHUNK_ROWS = 1 << 16


def cell(value: Any) -> Any:
    """A cell as :class:`csv.writer` receives it: integers without a decimal point, floats round-trippable
    (``repr``), NaN and infinities empty, anything else as it is."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return repr(float(value)) if np.isfinite(value) else ""
    if isinstance(value, np.integer):
        return int(value)
    return value


def _quoted(text: str) -> str:
    # csv.QUOTE_MINIMAL with the default dialect: quote a field holding the delimiter, the quote
    # character or a line break, doubling the quote characters inside.
    if any(c in text for c in _SPECIAL):
        return '"' + text.replace('"', '""') + '"'
    return text


def _generic_text(value: Any) -> str:
    value = cell(value)
    if value is None:
        return ""
    return _quoted(value if isinstance(value, str) else str(value))


def column_text(values: Sequence[Any] | NDArray[Any]) -> list[str]:
    """The CSV text of every cell of one column (quoted where :class:`csv.writer` would quote)."""
    if isinstance(values, np.ndarray) and values.ndim == 1:
        kind = values.dtype.kind
        if kind == "b":
            return ["1" if v else "0" for v in values.tolist()]
        if kind in "iu":
            return _by_value(values, values, str)
        if kind == "f":
            values = values.astype(float, copy=False)  # float32 too: repr(float(v)), as cell() does
            finite = np.isfinite(values)
            text = _by_value(values.view(np.int64), values, repr)
            if not finite.all():
                for k in np.nonzero(~finite)[0].tolist():
                    text[k] = ""
            return text
    return [_generic_text(v) for v in values]


def _by_value(keys: NDArray[Any], values: NDArray[Any], fmt: Callable[[Any], str]) -> list[str]:
    """``fmt`` of every value, formatted once per distinct ``keys`` entry where values repeat (a grid's axes)."""
    if values.size < 64:
        return list(map(fmt, values.tolist()))
    distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    if 2 * distinct.size > values.size:
        return list(map(fmt, values.tolist()))
    # keys are the bit patterns of floats: -0.0 and 0.0 (equal, printed differently) stay apart
    text = list(map(fmt, values[first].tolist()))
    return list(map(text.__getitem__, inverse.ravel().tolist()))


def write_csv_table(path: str | os.PathLike[str], columns: Mapping[str, Sequence[Any] | NDArray[Any]]) -> None:
    """Write ``columns`` ({name: 1-D sequence}, equal lengths) as a header row and one row per index.

    Parameters
    ----------
    path : str or path-like
        The file to write (overwritten).
    columns : dict of str to sequence
        Column name -> values; NumPy bool, integer and float columns take the fast path,
        any other sequence is converted cell by cell with :func:`cell`. Rows stop at the
        shortest column, as :func:`zip` does.
    """
    names = list(columns)
    rows = min((len(columns[n]) for n in names), default=0)
    with open(path, "w", newline="") as fh:
        if len(names) == 1:
            # csv.writer quotes a row made of one empty field ('""'), so that it reads back as a field.
            fh.write((_quoted(str(names[0])) or '""') + "\r\n")
        else:
            fh.write(",".join(_quoted(str(n)) for n in names) + "\r\n")
        for start in range(0, rows, CHUNK_ROWS):  # in chunks: the text of a whole 4M-point map would be GBs
            texts = [column_text(columns[n][start : start + CHUNK_ROWS]) for n in names]
            if len(names) == 1:
                body = [t or '""' for t in texts[0]]
            else:
                body = list(map(",".join, zip(*texts)))
            if body:
                fh.write("\r\n".join(body))
                fh.write("\r\n")
