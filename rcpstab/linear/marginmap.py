"""Margins over a whole (alpha, beta) grid: the map a router engineer picks robust gains from.

Per grid point the same numbers as :func:`~rcpstab.linear.margins.margins` (and by the
same code: the frequency crossings and the rightmost roots are computed for all points at
once, then each point is assembled by the single-point function's own rules):
``gain_margin``, ``phase_margin_deg``, ``delay_margin`` (units of d0), ``rightmost_real``
and ``rightmost_imag`` (normalized s*d0). Missing margins are NaN in the arrays, empty in
CSV and null in JSON.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..models import as_model
from ..models.spec import ModelSpec
from .gainrules import read_margins
from .grid import check_gains
from .margins import GAIN_LIMITS
from .openloop import open_loop
from .phasecross import sweep
from .result import RegionMap
from .roots import rightmost_roots_many

FIELDS = ("gain_margin", "phase_margin_deg", "delay_margin", "rightmost_real", "rightmost_imag")

__all__ = ["FIELDS", "margin_map"]


def margin_map(model: ModelSpec, alphas: ArrayLike, betas: ArrayLike, params: dict[str, float] | None = None) -> RegionMap:
    """Margins and rightmost root at every point of ``alphas`` x ``betas``.

    Parameters
    ----------
    model : ModelSpec
    alphas, betas : array_like
        Grid axes (positive gains).
    params : dict, optional
        Any other parameter the model declares, by name, one value each (the model's own
        values otherwise): the linear loop at those values.

    Returns
    -------
    RegionMap
        ``method='margins'``; ``stable`` from the rightmost root; ``layers`` holds each of
        :data:`FIELDS` as an (nb, na) array (NaN where the margin does not exist), and
        ``table`` the same per point for CSV.

    Examples
    --------
    >>> from rcpstab.models import get_model
    >>> m = margin_map(get_model("rcp"), [0.4, 1.2], [0.2])
    >>> [round(float(x), 4) for x in m.layers["gain_margin"][0]]
    [2.6779, 1.2062]
    """
    model = as_model(model).with_values(params)
    alphas = check_gains(alphas, "alpha")
    betas = check_gains(betas, "beta")
    A, B = np.meshgrid(alphas, betas)
    a, b = A.ravel(), B.ravel()
    ol = open_loop(model)
    roots = rightmost_roots_many(model, a, b)
    first, crossovers = sweep(ol, a, b, gain_limit=GAIN_LIMITS[0])  # one sweep: crossings and crossovers
    z = first.unstable()  # its band holds every crossing that matters at K = 1 too
    values = {name: np.full(a.size, np.nan) for name in FIELDS}
    for i, m in enumerate(read_margins(ol, a, b, roots, first, z, crossovers)):
        for name, value in (
            ("gain_margin", m.gain_margin),
            ("phase_margin_deg", m.phase_margin_deg),
            ("delay_margin", m.delay_margin),
        ):
            values[name][i] = np.nan if value is None else value
    values["rightmost_real"], values["rightmost_imag"] = roots.real, roots.imag
    stable = roots.real < 0
    table = {"alpha": a, "beta": b, "stable": stable.astype(int), "unstable_roots": z, **values}
    return RegionMap(
        model=model,
        method="margins",
        alpha=alphas,
        beta=betas,
        stable=stable.reshape(A.shape),
        table=table,
        layers={k: v.reshape(A.shape) for k, v in values.items()},
        meta={
            "fields": {
                "gain_margin": "loop-gain factor (see rcpstab margins)",
                "phase_margin_deg": "deg",
                "delay_margin": "units of d0",
                "rightmost_real": "1/d0",
                "rightmost_imag": "rad/d0",
            }
        },
    )
