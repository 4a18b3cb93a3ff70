"""Tables handed to pandas and xarray: the long format as a DataFrame, a grid as a labelled Dataset.

Both libraries are optional extras (``rcpstab[pandas]``, ``rcpstab[xarray]``), imported only when asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError

if TYPE_CHECKING:  # optional extras
    import pandas
    import xarray

__all__ = ["data_frame", "grid_dataset"]


def data_frame(columns: Mapping[str, Any]) -> pandas.DataFrame:
    """``columns`` (name -> equal-length 1-D array) as a :class:`pandas.DataFrame`, one row per entry."""
    try:
        import pandas
    except ImportError:
        raise InputError("to_pandas needs pandas: pip install 'rcpstab[pandas]'") from None
    return pandas.DataFrame({k: np.asarray(v) for k, v in columns.items()})


def grid_dataset(
    table: Mapping[str, Any],
    axes: Mapping[str, Any],
    units: Mapping[str, str],
    attrs: Mapping[str, Any] | None = None,
    configuration: Sequence[str] = (),
) -> xarray.Dataset:
    """A long table over a grid as an :class:`xarray.Dataset` with one dimension per axis.

    Parameters
    ----------
    table : dict of str to ndarray
        Equal-length 1-D columns, one row per grid point (and configuration); the names of ``axes``
        and ``configuration`` among them.
    axes : dict of str to ndarray
        The grid axes in the result's own order, e.g. ``{"beta": ..., "alpha": ...}``: the Dataset's last
        dimensions, in this order (so a variable's values index as the result's ``[j, i]`` arrays).
    units : dict of str to str
        Unit of each column (``"1"`` dimensionless); written to that variable's ``attrs["units"]``.
    attrs : dict, optional
        The Dataset's own attributes (model, method...).
    configuration : sequence of str
        Further columns that label a row (network parameters): those taking more than one value become
        leading dimensions, the others scalar coordinates.

    Returns
    -------
    xarray.Dataset
        One variable per other column; a point absent from the table is NaN.
    """
    try:
        import xarray
    except ImportError:
        raise InputError("to_xarray needs xarray: pip install 'rcpstab[xarray]'") from None
    frame = data_frame(table)
    varying = [c for c in configuration if c in frame and frame[c].nunique() > 1]
    fixed = [c for c in configuration if c in frame and c not in varying]
    dims = [*varying, *axes]
    if frame.duplicated(dims).any():
        raise InputError(f"to_xarray: the rows are not one per ({', '.join(dims)}): not a grid")
    scalars = {c: frame[c].iloc[0] for c in fixed}
    ds = xarray.Dataset.from_dataframe(frame.drop(columns=fixed).set_index(dims))
    ds = ds.reindex({name: np.asarray(values) for name, values in axes.items()})  # the result's order, not sorted
    ds = ds.assign_coords(scalars)
    for name in [*ds.variables]:
        if name in units:
            ds[name].attrs["units"] = units[str(name)]  # a key of units: a str already
    ds.attrs.update(attrs or {})
    return ds
