"""Write a table of equal-length columns as CSV, a column at a time.

The file is the one :class:`csv.writer` (default dialect: ``,``, ``\\r\\n``, minimal quoting) writes
from the cells of :func:`cell`, byte for byte; only the work differs. Converting a numeric
NumPy column at once (``tolist`` and one ``map``) instead of cell by cell through ``isinstance``
tests is what makes a map's table cost a fraction of its computation rather than most of the
command (``benchmarks/bench_commands.py`` times both writers).
"""
from __future__ import annotations

import numpy as np

__all__ = ["cell", "column_text", "write_csv_table"]

_SPECIAL = (",", '"', "\r", "\n")


def cell(value):
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


def _generic_text(value) -> str:
    value = cell(value)
    if value is None:
        return ""
    return _quoted(value if isinstance(value, str) else str(value))


def column_text(values) -> list[str]:
    """The CSV text of every cell of one column (quoted where :class:`csv.writer` would quote)."""
    if isinstance(values, np.ndarray) and values.ndim == 1:
        kind = values.dtype.kind
        if kind == "b":
            return ["1" if v else "0" for v in values.tolist()]
        if kind in "iu":
            return list(map(str, values.tolist()))
        if kind == "f":
            text = list(map(repr, values.tolist()))
            if not np.isfinite(values).all():
                for k in np.nonzero(~np.isfinite(values))[0].tolist():
                    text[k] = ""
            return text
    return [_generic_text(v) for v in values]


def write_csv_table(path, columns: dict) -> None:
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
    texts = [column_text(columns[n]) for n in names]
    with open(path, "w", newline="") as fh:
        if len(names) == 1:
            # csv.writer quotes a row made of one empty field ('""'), so that it reads back as a field.
            head = [_quoted(names[0]) or '""']
            body = [t or '""' for t in texts[0]]
        else:
            head = [",".join(_quoted(str(n)) for n in names)]
            body = list(map(",".join, zip(*texts))) if texts else []
        fh.write("\r\n".join(head + body))
        fh.write("\r\n")
