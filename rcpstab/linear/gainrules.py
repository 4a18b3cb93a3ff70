"""The margins' reading rules for many loops at once (NumPy over the points, no per-point Python).

:func:`~rcpstab.linear.margins._gain_margin` and :func:`~rcpstab.linear.margins._assemble` read
one loop's crossings; here the same rules run on every loop of a batch together, with the same
floating-point operations, so each point's numbers and notes are those of the single-point
functions exactly. The crossings of all loops are padded into a (points, crossings) table:

- the ends of the stable gain intervals are the distinct 1/``|G|`` at the -180 + k*360 deg
  crossings, sorted; Z between consecutive ends is P + 2 (low + sum of the directions of the
  crossings with K ``|G|`` > 1), evaluated at the single-point rule's representative gains;
- runs of stable sub-intervals are the intervals; the one holding K = 1 gives a stable loop's
  margins, the end nearest to 1 (in log scale) an unstable loop's.

A point whose stable interval reaches past the first search limit needs a wider search of its
crossings (a new frequency sweep): :func:`gain_margins_many` leaves those (rare) points to the
single-point function.
"""

from __future__ import annotations

import numpy as np

from .margins import GAIN_LIMITS, GainReading, Margins, Notes, _crossover_notes, _gain_margin, _single
from .openloop import OpenLoop
from .phasecross import PhaseCrossings

GainRule = tuple[GainReading, Notes]
"""One loop's gain margin triple and the notes written with it."""
Readings = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""Per point: phase margin (deg), gain crossover w*d0, delay margin (d0) and the crossovers' kind."""

__all__ = ["assemble_many", "crossover_readings", "gain_margins_many", "read_margins"]


def _table(pc: PhaseCrossings, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(magnitude, direction, w) padded to (n, M) and each point's crossing count (``pc.point`` sorted)."""
    counts = np.bincount(pc.point, minlength=n)
    M = max(1, int(counts.max()) if counts.size else 1)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    col = np.arange(pc.point.size) - starts[pc.point]
    mag, direction, w = np.zeros((n, M)), np.zeros((n, M)), np.full((n, M), np.nan)
    mag[pc.point, col] = pc.magnitude
    direction[pc.point, col] = pc.direction
    w[pc.point, col] = pc.w
    return mag, direction, w


def gain_margins_many(first: PhaseCrossings, stable: np.ndarray) -> list[GainRule | None]:
    """Per point: ``(gain_margin, gain_margin_lower, w)`` and its notes, or None where the single-point
    rule must search further (see the module docstring).

    Parameters
    ----------
    first : PhaseCrossings
        Crossings of every point, searched up to ``GAIN_LIMITS[0]``.
    stable : ndarray of bool
        The verdict (rightmost roots) of each point.

    Returns
    -------
    list of ((float or None, float or None, float or None), dict) or None
    """
    limit = GAIN_LIMITS[0]
    n = stable.size
    mag, direction, wtab = _table(first, n)
    ok = mag > 0
    with np.errstate(divide="ignore"):
        inv = np.where(ok, 1.0 / np.where(ok, mag, 1.0), np.inf)
    order = np.argsort(inv, axis=1, kind="stable")  # np.unique's first occurrence among equal ends
    srt = np.take_along_axis(inv, order, axis=1)
    sw = np.take_along_axis(wtab, order, axis=1)
    keep = np.isfinite(srt)
    keep[:, 1:] &= srt[:, 1:] != srt[:, :-1]
    pos = np.cumsum(keep, axis=1) - 1
    k = keep.sum(axis=1)  # distinct ends per point
    M = srt.shape[1]
    ends, end_w = np.full((n, M), np.inf), np.full((n, M), np.nan)
    rows, cols = np.nonzero(keep)
    ends[rows, pos[rows, cols]] = srt[rows, cols]
    end_w[rows, pos[rows, cols]] = sw[rows, cols]
    edges = np.concatenate((np.zeros((n, 1)), ends, np.full((n, 1), np.inf)), axis=1)
    edge_w = np.concatenate((np.full((n, 1), np.nan), end_w, np.full((n, 1), np.nan)), axis=1)
    r = np.arange(M + 1)[None, :]
    valid = r <= k[:, None]  # sub-intervals [edges[r], edges[r+1]) of each point
    hi_edge = np.where(r == k[:, None], np.inf, edges[:, 1:])
    lo = edges[:, :-1]
    with np.errstate(invalid="ignore", over="ignore"):
        reps = np.where(np.isinf(hi_edge), 2.0 * lo + 1.0, np.where(lo == 0, 0.5 * hi_edge, np.sqrt(lo * hi_edge)))
        counted = np.einsum("nrm,nm->nr", (reps[:, :, None] * mag[:, None, :] > 1).astype(float), direction)
    sub_stable = valid & (np.rint(first.rhp_poles + 2 * (first.low[:, None] + counted)).astype(int) == 0)

    # runs of stable sub-intervals: first and last sub-interval of the run through each r
    idx = np.broadcast_to(r, sub_stable.shape)
    start = np.maximum.accumulate(np.where(~sub_stable, idx, -1), axis=1) + 1
    stop = np.minimum.accumulate(np.where(~sub_stable, idx, M + 1)[:, ::-1], axis=1)[:, ::-1] - 1
    stop = np.minimum(stop, k[:, None])
    run_lo = np.take_along_axis(edges, np.clip(start, 0, M + 1), axis=1)
    hi_index = np.clip(stop + 1, 0, M + 1)
    run_hi = np.where(stop >= k[:, None], np.inf, np.take_along_axis(edges, hi_index, axis=1))
    run_hi_w = np.where(stop >= k[:, None], np.nan, np.take_along_axis(edge_w, hi_index, axis=1))
    run_lo_w = np.take_along_axis(edge_w, np.clip(start, 0, M + 1), axis=1)
    listed = sub_stable & (run_lo < limit)  # the intervals the rule keeps
    reaches = np.any(listed & (run_hi > limit), axis=1)

    # K = 1: the sub-interval holding it (or the two it separates)
    below = np.sum(valid[:, 1:] & (ends < 1.0), axis=1)  # ends < 1
    on_end = np.any(valid[:, 1:] & (ends == 1.0), axis=1)
    here = np.take_along_axis(sub_stable, below[:, None], axis=1)[:, 0]
    after = np.take_along_axis(sub_stable, np.minimum(below + 1, M)[:, None], axis=1)[:, 0]
    found = here & (~on_end | after)
    at = below[:, None]
    one_lo = np.take_along_axis(run_lo, at, axis=1)[:, 0]
    one_hi = np.take_along_axis(run_hi, at, axis=1)[:, 0]
    one_hi_w = np.take_along_axis(run_hi_w, at, axis=1)[:, 0]

    # unstable loops: the finite end nearest to 1 in log scale (ties: the smaller end, as min over tuples)
    cand = np.concatenate(
        (
            np.where(listed & (run_lo > 0), run_lo, np.nan),
            np.where(listed & np.isfinite(run_hi) & (run_hi <= limit), run_hi, np.nan),
        ),
        axis=1,
    )
    cand_w = np.concatenate((run_lo_w, run_hi_w), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        key = np.where(np.isnan(cand), np.inf, np.abs(np.log(cand)))
    c_order = np.lexsort((cand_w, np.nan_to_num(cand, nan=np.inf), key), axis=1) if n else np.zeros((0, 1), int)
    best = c_order[:, 0] if n else np.zeros(0, int)
    best_e = cand[np.arange(n), best]
    best_w = cand_w[np.arange(n), best]
    any_listed = listed.any(axis=1)

    out: list[GainRule | None] = []
    for i in range(n):
        if reaches[i]:
            out.append(None)
            continue
        notes: Notes = {}
        if not any_listed[i]:
            notes["gain_margin"] = (
                "no loop gain K makes K*G stable (for RCP: alpha/beta <= 1, the phase "
                "falls through -180 deg at w -> 0 with |G| infinite; App. C)"
            )
            out.append(((None, None, None), notes))
        elif stable[i]:
            if found[i] and one_lo[i] < limit:
                lower = float(one_lo[i]) if one_lo[i] > 0 else None
                notes["gain_margin_lower"] = (
                    "stable for every smaller loop gain"
                    if lower is None
                    else "conditionally stable: below this factor the loop is unstable"
                )
                out.append(((float(one_hi[i]), lower, float(one_hi_w[i])), notes))
            else:
                notes["gain_margin"] = "the Bode count disagrees with the rightmost root at K = 1 (point on the boundary?)"
                out.append(((None, None, None), notes))
        elif np.isnan(best_e[i]):
            notes["gain_margin"] = "unstable; stable only for loop gains without a finite end"
            out.append(((None, None, None), notes))
        else:
            end = best_e[i]
            notes["gain_margin"] = (
                f"the loop is unstable: multiplying the loop gain by this factor "
                f"({'shrinking' if end < 1 else 'raising'} it) reaches the edge of the stable range"
            )
            out.append(((float(end), None, float(best_w[i])), notes))
    return out


def crossover_readings(n: int, point: np.ndarray, wz: np.ndarray, phase: np.ndarray, stable: np.ndarray) -> Readings:
    """Per point: (phase_margin_deg, crossover_w, delay_margin, kind) from its gain crossovers (sorted
    by point), as :func:`~rcpstab.linear.margins._assemble` reads them; kind is "none" (no crossover),
    "stable", "negative" or "positive" (unstable with that sign of the margin)."""
    wrapped = (phase + np.pi) % (2 * np.pi)
    signed = np.where(wrapped > np.pi, wrapped - 2 * np.pi, wrapped)
    counts = np.bincount(point, minlength=n)
    has = counts > 0
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    pm = np.full(n, np.nan)
    w_z = np.full(n, np.nan)
    dm = np.full(n, np.nan)
    if point.size:
        order = np.lexsort((np.arange(point.size), signed, point))  # first minimum of each point
        first = order[starts[has]]
        pm[has] = np.degrees(signed[first])
        w_z[has] = wz[first]
        dm_stable = np.minimum.reduceat(wrapped / wz, starts[has])
        dm[has] = np.where(stable[has], dm_stable, signed[first] / wz[first])
    kind = np.where(~has, "none", np.where(stable, "stable", np.where(pm < 0, "negative", "positive")))
    return pm, w_z, dm, kind


def assemble_many(
    alpha: np.ndarray,
    beta: np.ndarray,
    stable: np.ndarray,
    roots: np.ndarray,
    z: np.ndarray,
    gains: list[GainRule],
    readings: Readings,
) -> list[Margins]:
    """:class:`Margins` per point from :func:`gain_margins_many`'s and :func:`crossover_readings`' arrays."""
    pm, w_z, dm, kind = readings
    out: list[Margins] = []
    for i in range(len(gains)):
        (gm, gm_lower, w_pc), notes = gains[i]
        k = str(kind[i])
        p = None if k == "none" else float(pm[i])
        w = None if k == "none" else float(w_z[i])
        d = float(dm[i]) if k in ("stable", "negative") else None
        _crossover_notes(notes, k, w_pc, w, gm_lower)
        out.append(
            Margins(
                alpha=float(alpha[i]),
                beta=float(beta[i]),
                stable=bool(stable[i]),
                gain_margin=gm,
                phase_margin_deg=p,
                crossover_w=w,
                phase_crossover_w=w_pc,
                delay_margin=d,
                rightmost_root=(float(roots[i].real), float(roots[i].imag)),
                gain_margin_lower=gm_lower,
                unstable_roots=int(z[i]),
                notes=notes,
            )
        )
    return out


def read_margins(
    ol: OpenLoop,
    a: np.ndarray,
    b: np.ndarray,
    roots: np.ndarray,
    first: PhaseCrossings,
    z: np.ndarray,
    crossovers: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> list[Margins]:
    """:class:`Margins` of every loop (a[i], b[i]) from the batched pieces: the rightmost roots, the
    -180 deg crossings ``first`` (searched to ``GAIN_LIMITS[0]``) with their Bode count ``z``, and the
    gain ``crossovers`` (point, w, phase) of :func:`~rcpstab.linear.phasecross.gain_crossovers_many`."""
    point, wz, phase = crossovers
    stable = roots.real < 0
    many = gain_margins_many(first, stable)
    gains: list[GainRule] = []
    for i, rule in enumerate(many):
        if rule is None:  # an interval past the first search: widen it for this point alone
            notes: Notes = {}
            rule = (_gain_margin(ol, a[i], b[i], bool(stable[i]), notes, first=_single(first, i)), notes)
        gains.append(rule)
    return assemble_many(a, b, stable, roots, z, gains, crossover_readings(a.size, point, wz, phase, stable))
