"""The exact stable region of the delayed linear loop, by D-subdivision with crossing directions.

Roots of Delta(lambda; alpha, beta) = D0 + alpha*D1 + beta*D2 can only enter the right
half-plane by crossing the imaginary axis: at lambda = j*w on the crossing curves
(alpha(w), beta(w)) of :mod:`.dcurves`, or at lambda = 0 on the line Delta(0) = 0. Each
crossing comes with its direction, the change (+-2 for a pair, +-1 at 0) in the number Z of
right-half-plane roots as the swept gain grows through it. So Z at every grid point follows
from Z at one reference point by adding up directions along a path:

1. one reference count Z_ref at a point of the column alpha = alpha_c (half the smallest grid
   alpha) in the middle of its widest crossing-free stretch, by the argument principle
   (:meth:`QuasiPolynomial.count_unstable`), where no root is near the axis;
2. up and down that column, adding the directions of the column's crossings;
3. along every row, adding the directions of the row's crossings.

The decision at a grid point is then a sum of integers located by bisection on monotone
pieces of the curves: no root count is taken near the boundary, so the verdict is exact up
to the rounding of the crossing gains (about 1e-15), at the tip of a curve (two crossings
close together), near beta = 0 and where two curves meet. Argument-principle counts at the
midpoints of a sample of row intervals are kept as a cross-check (``meta['crosscheck']``).
For RCP the curves are alpha = w sin w, beta = w**2 cos w (thesis Fig. 5.2's bell).

The map (:func:`exact_region`), the boundary curve and its table (:func:`boundary_table`)
all come from :func:`row_structure`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from os import PathLike
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..models import as_model
from .dcurves import crossings_many, sample_curves
from .grid import check_gains
from .quasipoly import QuasiPolynomial, quasi_polynomial
from .result import RegionMap

if TYPE_CHECKING:
    from ..models.spec import ModelSpec

__all__ = [
    "RowStructure",
    "row_structure",
    "row_crossings",
    "exact_region",
    "boundary_table",
    "has_linear_boundary",
    "boundary_points",
    "write_boundary_csv",
]

REFERENCE_STEP = 0.005  # argument-principle step at the reference point (rad per unit delay)
CROSSCHECK_POINTS = 8  # argument-principle counts kept as a cross-check per map


@dataclass(frozen=True)
class RowStructure:
    """Crossings of every row beta = betas[j] for alpha in (alpha_c, alpha_max], with Z at alpha_c.

    Attributes
    ----------
    betas : ndarray
        The rows.
    alpha_c : float
        Where every row starts (left of the grid).
    z_start : ndarray
        Right-half-plane roots at (alpha_c, beta_j); NaN where the row has a root at 0 throughout.
    row, alpha, direction, piece, w : ndarray
        One entry per crossing, sorted by (row, alpha): its row, gain, direction (+-2 for
        a pair at +-j w, +-1 for a real root at 0 with w = 0) and curve piece (-1 at 0).
    reference : dict
        The reference point and its count.
    model : ModelSpec
        The model (for cross-checks).
    """

    betas: np.ndarray
    alpha_c: float
    z_start: np.ndarray
    row: np.ndarray
    alpha: np.ndarray
    direction: np.ndarray
    piece: np.ndarray
    w: np.ndarray
    reference: dict[str, float]
    model: ModelSpec

    def row_slice(self, j: int) -> slice:
        lo, hi = np.searchsorted(self.row, [j, j + 1])
        return slice(int(lo), int(hi))


def _zero_root_crossings(
    qp: QuasiPolynomial, fixed: np.ndarray, coordinate: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Crossings of the line Delta(0) = 0 (a real root at lambda = 0) by lines coordinate = fixed."""
    z0, z1, z2 = (float(np.real(p)) for p in qp.parts(np.array(0.0)))
    swept, kept = (z1, z2) if coordinate == "beta" else (z2, z1)
    if swept == 0.0:
        degenerate = np.abs(z0 + kept * fixed) == 0.0  # a root at 0 all along the line
        return np.zeros(0, int), np.zeros(0), np.zeros(0), degenerate
    at = -(z0 + kept * fixed) / swept
    a, b = (at, fixed) if coordinate == "beta" else (fixed, at)
    slope = qp.derivative(np.zeros_like(at), a, b).real
    with np.errstate(divide="ignore", invalid="ignore"):
        direction = np.sign(-swept / slope)
    ok = np.isfinite(direction) & (direction != 0)
    return np.nonzero(ok)[0], at[ok], direction[ok], np.zeros(fixed.size, bool)


def row_structure(model: ModelSpec, betas: ArrayLike, alpha_lo: float, alpha_hi: float) -> RowStructure:
    """Crossings and starting counts of the rows ``betas`` over alphas in [alpha_lo, alpha_hi]."""
    qp = quasi_polynomial(model)
    rows = np.asarray(betas, dtype=float)
    alpha_c = 0.5 * float(alpha_lo)
    b_lo, b_hi = 0.5 * float(rows.min()), 2.0 * float(rows.max())
    curves = sample_curves(qp, float(alpha_hi), b_hi)

    (row, w, alpha, direction, piece), (_, _, col_beta, col_dir, _) = crossings_many(
        qp, curves, [("beta", rows, (alpha_c, alpha_hi)), ("alpha", [alpha_c], (b_lo, b_hi))]
    )
    zrow, zalpha, zdir, degenerate = _zero_root_crossings(qp, rows, "beta")
    keep = (zalpha > alpha_c) & (zalpha <= alpha_hi)
    row = np.concatenate((row, zrow[keep]))
    alpha = np.concatenate((alpha, zalpha[keep]))
    direction = np.concatenate((direction, zdir[keep]))
    piece = np.concatenate((piece, np.full(keep.sum(), -1)))
    w = np.concatenate((w, np.zeros(keep.sum())))
    order = np.lexsort((alpha, row))

    # The column alpha = alpha_c, from the reference point to every row.
    _, zb, zd, col_degenerate = _zero_root_crossings(qp, np.array([alpha_c]), "alpha")
    if col_degenerate.any():
        raise InputError(f"alpha = {alpha_c:g}: the loop has a root at 0 for every beta")
    inside = (zb >= b_lo) & (zb <= b_hi)
    col_beta = np.concatenate((col_beta, zb[inside]))
    col_dir = np.concatenate((col_dir, zd[inside]))
    ordering = np.argsort(col_beta)
    col_beta, col_dir = col_beta[ordering], col_dir[ordering]
    reference = _reference(qp, alpha_c, np.concatenate(([b_lo], col_beta, [b_hi])))
    cumulative = np.concatenate(([0.0], np.cumsum(col_dir)))

    def passed(b: ArrayLike) -> np.ndarray:
        count: np.ndarray = cumulative[np.searchsorted(col_beta, b, side="right")]
        return count

    z_start = reference["unstable_roots"] + passed(rows) - passed(reference["beta"])
    z_start = np.where(degenerate, np.nan, z_start)
    return RowStructure(
        betas=rows,
        alpha_c=alpha_c,
        z_start=z_start,
        row=row[order],
        alpha=alpha[order],
        direction=direction[order],
        piece=piece[order],
        w=w[order],
        reference=reference,
        model=model,
    )


def _reference(qp: QuasiPolynomial, alpha_c: float, edges: np.ndarray) -> dict[str, float]:
    """Argument-principle count at the middle of the widest crossing-free stretch of the column."""
    gaps = np.diff(edges)
    for k in np.argsort(-gaps):
        beta_ref = 0.5 * (edges[k] + edges[k + 1])
        z = float(qp.count_unstable(np.array([alpha_c]), np.array([beta_ref]), step=REFERENCE_STEP)[0])
        if np.isfinite(z):
            return {"alpha": float(alpha_c), "beta": float(beta_ref), "unstable_roots": int(z)}
    raise InputError(f"no reference point on alpha = {alpha_c:g} has its roots away from the axis")


def _labels(structure: RowStructure, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Z at every (alphas[i], betas[j]) as integers, and where it is undefined.

    Returns ``(Z, undefined)``: ``Z`` (int64, shape (nb, na)) counts right-half-plane roots;
    ``undefined`` marks a root on the axis (a grid point on a crossing) and rows whose start
    count is undefined (a root at 0 all along). Each crossing adds its direction to every grid
    alpha right of it: one scatter of the directions at the first such alpha, then one running
    sum along the rows, for a cost of two passes over the grid whatever the number of crossings.
    """
    order = np.argsort(alphas, kind="stable")
    if np.any(order != np.arange(alphas.size)):  # a grid axis is sorted; any other order is put back after
        Z, undefined = _labels(structure, alphas[order])
        back = np.empty_like(order)
        back[order] = np.arange(order.size)
        return Z[:, back], undefined[:, back]
    nb, na = structure.betas.size, alphas.size
    start = np.nan_to_num(structure.z_start, nan=0.0).astype(np.int64)
    steps = np.zeros((nb, na + 1), np.int64)
    steps[:, 0] = start
    first = np.searchsorted(alphas, structure.alpha, side="right")  # first grid alpha > the crossing
    np.add.at(steps, (structure.row, first), structure.direction.astype(np.int64))
    Z = np.cumsum(steps[:, :na], axis=1)
    undefined = np.zeros((nb, na), bool)
    undefined[~np.isfinite(structure.z_start)] = True
    at = np.searchsorted(alphas, structure.alpha, side="left")  # a grid alpha equal to the crossing
    hit = at < na
    hit[hit] = alphas[at[hit]] == structure.alpha[hit]
    undefined[structure.row[hit], at[hit]] = True
    return Z, undefined


def _crosscheck(
    qp: QuasiPolynomial, structure: RowStructure, alphas: np.ndarray, Z_of: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> dict[str, int]:
    """Argument-principle counts at the midpoints of a sample of row intervals, against the labels."""
    rows = np.unique(np.linspace(0, structure.betas.size - 1, min(structure.betas.size, 8)).astype(int))
    mid_alphas: list[float] = []
    mid_betas: list[float] = []
    for j in rows:
        cross = structure.alpha[structure.row_slice(j)]
        edges = np.concatenate(([alphas.min()], cross[(cross > alphas.min()) & (cross < alphas.max())], [alphas.max()]))
        wide = np.diff(edges) > 1e-3 * (alphas.max() - alphas.min() + 1e-12)
        mids = 0.5 * (edges[:-1] + edges[1:])[wide]
        mid_alphas.extend(mids)
        mid_betas.extend([structure.betas[j]] * mids.size)
    pa, pb = np.array(mid_alphas[:CROSSCHECK_POINTS]), np.array(mid_betas[:CROSSCHECK_POINTS])
    if pa.size == 0:
        return {"points": 0, "agree": 0, "unresolved": 0}
    counted = qp.count_unstable(pa, pb)
    labelled = Z_of(pa, pb)
    resolved = np.isfinite(counted)
    agree = resolved & (counted == labelled)
    # A disagreement is put to a third method: the sign of the rightmost root (collocation + Newton).
    # The argument principle on a 0.01 grid misses the phase turn of a root within ~1e-5 of the axis.
    from .roots import rightmost_root

    model = structure.model
    checked = [(labelled[k] == 0) == (rightmost_root(model, pa[k], pb[k]).real < 0) for k in np.nonzero(resolved & ~agree)[0]]
    return {
        "points": int(pa.size),
        "agree": int(agree.sum()),
        "unresolved": int((~resolved).sum()),
        "disagree_but_roots_confirm_label": int(sum(checked)),
        "disagree_roots_confirm_count": int(len(checked) - sum(checked)),
    }


def row_crossings(model: ModelSpec, betas: ArrayLike, alpha_max: float) -> list[np.ndarray]:
    """For each beta, the sorted alphas in (0, alpha_max] where a characteristic root is on the axis."""
    rows = check_gains(betas, "beta")
    s = row_structure(model, rows, alpha_lo=1e-300, alpha_hi=float(alpha_max))
    return [s.alpha[s.row_slice(j)] for j in range(rows.size)]


def exact_region(
    model: ModelSpec, alphas: ArrayLike, betas: ArrayLike, crosscheck: bool = True, params: dict[str, float] | None = None
) -> RegionMap:
    """Exact linear stability of ``model`` on the grid ``alphas`` x ``betas``.

    Parameters
    ----------
    model : ModelSpec
        Any model whose normalized loop depends on (alpha, beta) only, affinely.
    alphas, betas : array_like
        Grid axes, positive.
    crosscheck : bool
        Also count roots by the argument principle at up to 8 interval midpoints.

    params : dict, optional
        Any other parameter the model declares, by name, one value each (the model's own
        values otherwise): the linear loop at those values.

    Returns
    -------
    RegionMap
        ``table['unstable_roots']`` is Z per point (-1 where a root is on the axis);
        ``meta['crossings']`` the alphas where roots cross the axis, per row;
        ``meta['reference']`` and ``meta['crosscheck']`` the counts by the argument principle
        (a disagreement is put to the rightmost root, which says who is right).

    Examples
    --------
    >>> from rcpstab.models import get_model
    >>> r = exact_region(get_model("rcp"), [0.4, 1.2], [0.2, 0.6])
    >>> r.stable.astype(int).tolist()
    [[1, 1], [0, 0]]
    """
    model = as_model(model).with_values(params)  # a name works too; anything else is an InputError
    a_axis = check_gains(alphas, "alpha")
    b_axis = check_gains(betas, "beta")
    structure = row_structure(model, b_axis, float(a_axis.min()), float(a_axis.max()))
    Z, undefined = _labels(structure, a_axis)
    stable = (Z == 0) & ~undefined
    # rows are sorted: one split instead of a search per row
    per_row = np.split(structure.alpha, np.searchsorted(structure.row, np.arange(1, b_axis.size)))
    meta: dict[str, Any] = {
        "crossings": [c.tolist() for c in per_row],
        "reference": structure.reference,
        "inconsistent_points": int(np.count_nonzero((Z < 0) & ~undefined)),
    }
    if crosscheck:
        qp = quasi_polynomial(model)

        def z_of(pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
            rows = np.searchsorted(b_axis, pb)
            out = np.empty(pa.size)
            for k, (a, j) in enumerate(zip(pa, rows)):
                sl = structure.row_slice(j)
                out[k] = structure.z_start[j] + structure.direction[sl][structure.alpha[sl] < a].sum()
            return out

        meta["crosscheck"] = _crosscheck(qp, structure, a_axis, z_of)
    A, B = np.meshgrid(a_axis, b_axis)
    Z[undefined] = -1
    table = {"alpha": A.ravel(), "beta": B.ravel(), "stable": stable.ravel().astype(int), "unstable_roots": Z.ravel()}
    return RegionMap(model=model, method="exact", alpha=a_axis, beta=b_axis, stable=stable, table=table, meta=meta)


def boundary_table(model: ModelSpec, alpha_max: float, beta_max: float, floor: float = 1e-9) -> dict[str, np.ndarray]:
    """Points of the crossing curves that bound the stable region in (0, alpha_max] x (0, beta_max].

    A sample (alpha(w), beta(w)) is on the boundary when Z = 0 just left or just right of it
    on its row, by the same row structure as :func:`exact_region`. Tips (critical points of
    beta(w)) are kept when both neighbours are. Gains below ``floor`` times the box are left out.

    Returns
    -------
    dict of ndarray
        ``w`` (w*d0 of the root on the axis), ``alpha``, ``beta`` and ``piece`` (curve piece),
        in curve order.
    """
    qp = quasi_polynomial(model)
    curves = sample_curves(qp, float(alpha_max), 2.0 * float(beta_max))
    pieces = curves.pieces("beta")
    piece_of = np.full(curves.w.size, -1)
    for p, (a, b) in enumerate(pieces):
        piece_of[a + 1 : b] = p
    tips = np.zeros(curves.w.size, bool)
    tips[curves.critical_beta] = True
    inside = (
        np.isfinite(curves.alpha)
        & (curves.alpha >= floor * alpha_max)
        & (curves.alpha <= alpha_max)
        & (curves.beta >= floor * beta_max)
        & (curves.beta <= beta_max)
    )
    candidates = np.nonzero(inside & (piece_of >= 0))[0]
    on = np.zeros(curves.w.size, bool)
    if candidates.size:
        s = row_structure(model, curves.beta[candidates], float(curves.alpha[candidates].min()), float(alpha_max))
        for j, i in enumerate(candidates):
            sl = s.row_slice(j)
            own = np.nonzero(s.piece[sl] == piece_of[i])[0]
            if own.size != 1 or not np.isfinite(s.z_start[j]):
                continue
            k = own[0]
            z_left = s.z_start[j] + s.direction[sl][:k].sum()
            on[i] = z_left == 0 or z_left + s.direction[sl][k] == 0
    for i in np.nonzero(tips & inside)[0]:
        on[i] = 0 < i < curves.w.size - 1 and on[i - 1] and on[i + 1]
    idx = np.nonzero(on)[0]
    piece = np.searchsorted(np.array([a for a, _ in pieces]), idx, side="right") - 1
    return {"w": curves.w[idx], "alpha": curves.alpha[idx], "beta": curves.beta[idx], "piece": piece}


def has_linear_boundary(model: ModelSpec) -> bool:
    """Whether ``model``'s linear loop is one this lens maps (affine in the two loop gains, retarded type),
    so that :func:`boundary_points` can draw its boundary."""
    try:
        quasi_polynomial(model)
    except InputError:
        return False
    return True


def boundary_points(model: ModelSpec, alpha_max: float, beta_max: float) -> tuple[np.ndarray, np.ndarray]:
    """The stable boundary of :func:`boundary_table` as ``(alpha, beta)`` arrays, NaN between pieces.

    Ready for ``plot``: consecutive points further apart than a sampling step are split.
    """
    t = boundary_table(model, alpha_max, beta_max)
    a, b, w = t["alpha"], t["beta"], t["w"]
    if a.size == 0:
        return a, b
    gap = np.nonzero(np.diff(w) > 0.05 + 0.2 * w[:-1])[0] + 1
    return np.insert(a, gap, np.nan), np.insert(b, gap, np.nan)


def write_boundary_csv(model: ModelSpec, alpha_max: float, beta_max: float, path: str | PathLike[str]) -> int:
    """Write :func:`boundary_table` as CSV (piece, w_d0, alpha, beta); returns the number of rows."""
    import csv

    from ..runtime.atomic import atomic_open

    t = boundary_table(model, alpha_max, beta_max)
    with atomic_open(path) as fh:  # a full disk leaves the old file, not a torn one
        writer = csv.writer(fh)
        writer.writerow(["piece", "w_d0", "alpha", "beta"])
        for row in zip(t["piece"], t["w"], t["alpha"], t["beta"]):
            writer.writerow([int(row[0])] + [repr(float(x)) for x in row[1:]])
    return int(t["w"].size)
