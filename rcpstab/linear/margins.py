"""Gain, phase and delay margins of a model's loop at one (alpha, beta), for any loop.

All frequencies are normalized (w*d0, rad per round trip) and the delay margin is in
units of d0: multiply by d0 for seconds. Stability itself comes from the rightmost
characteristic root (:mod:`.roots`); the Bode count of :mod:`.phasecross` is reported beside
it (``unstable_roots``) so the two can be compared.

Definitions, valid whatever the phase at low frequency (RCP starts at -180 deg, RCP-AC at -270):

- gain margin: the loop K*G is stable for K in a set of intervals, whose ends are
  1/``|G|`` at the crossings of -180 + k*360 deg (:meth:`PhaseCrossings.unstable` gives Z for
  every K). For a stable loop, ``gain_margin`` is the upper end of the interval holding
  K = 1 and ``gain_margin_lower`` its lower end (RCP-AC is conditionally stable: too little
  gain destabilizes it too). For an unstable loop, ``gain_margin`` is the end of the nearest
  stable interval: the factor (< 1: shrink) that brings the loop to the edge of stability;
  null when no K stabilizes it. For RCP, K*G is G with both router gains scaled by K.
- phase margin: 180 deg + the phase at the gain crossover (``|G|`` = 1), wrapped to
  (-180, 180] deg; with several crossovers, the smallest (python-control's convention).
- delay margin: the extra loop delay that first rotates a gain crossover onto -180 deg,
  min over crossovers of ((phase + 180 deg) mod 360 deg)/w. For an unstable loop with a
  negative phase margin it is that negative margin over w (the delay to remove); otherwise null.

Every null comes with a reason in ``notes``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, SupportsFloat

import numpy as np

from ..errors import InputError
from ..models import as_model
from .grid import check_gains
from .openloop import OpenLoop, open_loop
from .phasecross import PhaseCrossings, gain_crossovers, phase_crossings
from .roots import rightmost_root

if TYPE_CHECKING:
    from ..models.spec import ModelSpec

Notes = dict[str, str]
"""Why a field is None, or how to read it, by field name."""
Interval = tuple[float, float, float, float]
"""Loop-gain factors (lo, hi) keeping K*G stable and the crossings' w*d0 at those ends (NaN: none)."""
GainReading = tuple[float | None, float | None, float | None]
"""(gain_margin, gain_margin_lower, w*d0 of the crossing setting gain_margin), None where it does not exist."""

__all__ = ["Margins", "margin_from_intervals", "margins", "stable_gain_intervals"]


@dataclass(frozen=True)
class Margins:
    """Stability margins of the loop G at one (alpha, beta).

    Attributes
    ----------
    alpha, beta : float
        The router gains (dimensionless).
    stable : bool
        Every characteristic root has a negative real part (from the rightmost root).
    gain_margin : float or None
        See the module docstring: > 1 for a stable loop; for an unstable one the factor to the
        nearest stable loop gain. None (with a note) when there is no such end.
    phase_margin_deg : float or None
        180 + phase of G at the gain crossover, wrapped to (-180, 180], degrees.
    crossover_w : float or None
        Gain crossover w_z*d0 (``|G|`` = 1) of the phase margin.
    phase_crossover_w : float or None
        w*d0 of the -180 + k*360 deg crossing that sets ``gain_margin``.
    delay_margin : float or None
        Extra delay, in units of d0, before a root reaches the axis (negative: to remove).
    rightmost_root : tuple of float
        (Re, Im) of the rightmost characteristic root, normalized (s*d0).
    gain_margin_lower : float or None
        For a stable loop, the smallest loop-gain factor that keeps it stable (None: any).
    unstable_roots : int or None
        Right-half-plane roots by the Bode count (crossings of -180 + k*360 deg).
    notes : dict
        Why a field is None, or how to read it.
    """

    alpha: float
    beta: float
    stable: bool
    gain_margin: float | None
    phase_margin_deg: float | None
    crossover_w: float | None
    phase_crossover_w: float | None
    delay_margin: float | None
    rightmost_root: tuple[float, float]
    gain_margin_lower: float | None = None
    unstable_roots: int | None = 0
    notes: Notes = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON-ready: every non-finite number is None and ``notes`` says why."""
        out = asdict(self)
        out["rightmost_root"] = [_finite(x) for x in self.rightmost_root]
        notes = dict(self.notes)
        for key, value in out.items():
            if isinstance(value, float) and not np.isfinite(value):
                out[key] = None
                notes.setdefault(key, f"not finite ({value})")
        out["notes"] = notes
        return out

    def __repr__(self) -> str:
        gm = "None" if self.gain_margin is None else f"{self.gain_margin:.4g}"
        pm = "None" if self.phase_margin_deg is None else f"{self.phase_margin_deg:.4g}"
        return f"Margins(alpha={self.alpha:g}, beta={self.beta:g}, stable={self.stable}, gain_margin={gm}, phase_margin_deg={pm})"


def _finite(x: SupportsFloat) -> float | None:
    value = float(x)
    return value if np.isfinite(value) else None


def stable_gain_intervals(pc: PhaseCrossings, index: int = 0) -> list[Interval]:
    """The loop-gain factors K for which K*G is stable, as sorted (lo, hi) pairs (hi may be inf).

    ``pc`` is a :class:`~rcpstab.linear.phasecross.PhaseCrossings`; ``index`` picks the loop.
    Also returns, per pair, the frequencies w*d0 of the crossings that set lo and hi (NaN: none).
    """
    sub = _single(pc, index)
    mags, ws = sub.magnitude, sub.w
    ok = mags > 0
    ends, order = np.unique(1.0 / mags[ok], return_index=True)
    end_w = ws[ok][order]
    edges = np.concatenate(([0.0], ends, [np.inf]))
    lo, hi = edges[:-1], edges[1:]
    with np.errstate(invalid="ignore"):
        reps = np.where(np.isinf(hi), 2.0 * lo + 1.0, np.where(lo == 0, 0.5 * hi, np.sqrt(lo * hi)))
    # Z for every representative gain at once (what sub.unstable(k) gives one k at a time)
    counted = (reps[:, None] * sub.magnitude[None, :] > 1) @ sub.direction
    stable = np.rint(sub.rhp_poles + 2 * (sub.low[0] + counted)).astype(int) == 0
    edge_w = np.concatenate(([np.nan], end_w, [np.nan]))
    out: list[Interval] = []
    i = 0
    while i < stable.size:
        if stable[i]:
            j = i
            while j + 1 < stable.size and stable[j + 1]:
                j += 1
            out.append((edges[i], edges[j + 1], edge_w[i], edge_w[j + 1]))
            i = j + 1
        else:
            i += 1
    return out


def _single(pc: PhaseCrossings, index: int) -> PhaseCrossings:
    """The crossings of loop ``index`` alone (``pc.point`` is sorted)."""
    lo, hi = np.searchsorted(pc.point, [index, index + 1])
    mine = slice(int(lo), int(hi))
    return PhaseCrossings(
        point=np.zeros(hi - lo, int),
        w=pc.w[mine],
        level=pc.level[mine],
        direction=pc.direction[mine],
        magnitude=pc.magnitude[mine],
        low=pc.low[index : index + 1],
        gain_count=pc.gain_count[index : index + 1],
        rhp_poles=pc.rhp_poles,
        gain_limit=pc.gain_limit,
    )


GAIN_LIMITS = (16.0, 256.0, 4096.0, 65536.0, 1e6)  # searched in turn until the margin is inside


def _gain_margin(
    ol: OpenLoop, alpha: float, beta: float, stable: bool, notes: Notes, first: PhaseCrossings | None = None
) -> GainReading:
    """(gain_margin, gain_margin_lower, w of the crossing setting gain_margin) with notes.

    Crossings are first searched as far as they matter for K <= 16, further only if the
    stable interval reaches past that: a crossing beyond never changes Z for smaller K.
    """
    previous = GAIN_LIMITS[0]
    for limit in GAIN_LIMITS:
        try:
            pc = (
                first
                if (first is not None and limit == GAIN_LIMITS[0])
                else phase_crossings(ol, [alpha], [beta], gain_limit=limit)
            )
        except InputError as exc:
            if limit == GAIN_LIMITS[0]:
                notes["gain_margin"] = f"not computed: {exc}"
                return None, None, None
            limit = previous
            break
        previous = limit
        intervals = [(lo, hi, wl, wh) for lo, hi, wl, wh in stable_gain_intervals(pc) if lo < limit]
        intervals = [(lo, hi if hi <= limit else np.inf, wl, wh if hi <= limit else np.nan) for lo, hi, wl, wh in intervals]
        reaches = any(np.isinf(hi) for _, hi, _, _ in intervals)
        if not reaches or limit == GAIN_LIMITS[-1]:
            break
    if reaches:
        notes["gain_margin_limit"] = f"loop gains searched up to {limit:g}"
    return margin_from_intervals(
        intervals,
        stable,
        notes,
        {
            "none": (
                "no loop gain K makes K*G stable (for RCP: alpha/beta <= 1, the phase falls through -180 deg "
                "at w -> 0 with |G| infinite; App. C)"
            ),
            "unbounded": f"no -180 deg crossing limits the gain: K*G is stable for every K from 1 to {limit:g} (searched)",
            "disagree": "the Bode count disagrees with the rightmost root at K = 1 (point on the boundary?)",
            "no_end": "unstable; stable only for loop gains without a finite end",
        },
    )


def margin_from_intervals(intervals: list[Interval], stable: bool, notes: Notes, say: dict[str, str]) -> GainReading:
    """(gain_margin, gain_margin_lower, w of the crossing setting gain_margin) from the stable loop-gain intervals.

    Parameters
    ----------
    intervals : list of (lo, hi, w_lo, w_hi)
        The loop-gain factors K in (lo, hi) that keep K*G stable (``hi`` inf: up to the search limit) and
        the frequencies (normalized) of the crossings at their ends.
    stable : bool
        The verdict at K = 1 (from the roots).
    notes : dict
        Written: ``gain_margin`` and ``gain_margin_lower`` notes.
    say : dict
        The notes in the caller's terms (a model's G, an LTI loop's L): ``none`` (no stable interval),
        ``unbounded`` (stable from 1 to the search limit), ``disagree`` (stable, yet no interval holds 1),
        ``no_end`` (unstable, and no stable interval has a finite end).

    Notes
    -----
    Stable: the interval holding K = 1 gives the margin (its upper end) and the lower margin (its
    lower end, if > 0: conditionally stable). Unstable: the end of the nearest stable interval, in
    log scale, is the factor that reaches the stable range.
    """
    if not intervals:
        notes["gain_margin"] = say["none"]
        return None, None, None
    if stable:
        for lo, hi, _w_lo, w_hi in intervals:
            if lo < 1.0 < hi:
                if not np.isfinite(hi):
                    notes["gain_margin"] = say["unbounded"]
                if lo > 0:
                    notes["gain_margin_lower"] = "conditionally stable: below this factor the loop is unstable"
                else:
                    notes["gain_margin_lower"] = "stable for every smaller loop gain"
                finite = bool(np.isfinite(hi))
                return (float(hi) if finite else None), (float(lo) if lo > 0 else None), (float(w_hi) if finite else None)
        notes["gain_margin"] = say["disagree"]
        return None, None, None
    best = min(
        ((abs(np.log(e)), e, w) for lo, hi, w_lo, w_hi in intervals for e, w in ((lo, w_lo), (hi, w_hi)) if 0 < e < np.inf),
        default=None,
    )
    if best is None:
        notes["gain_margin"] = say["no_end"]
        return None, None, None
    _, end, w = best
    notes["gain_margin"] = (
        f"the loop is unstable: multiplying the loop gain by this factor "
        f"({'shrinking' if end < 1 else 'raising'} it) reaches the edge of the stable range"
    )
    return float(end), None, (float(w) if np.isfinite(w) else None)


def margins(model: ModelSpec, alpha: float, beta: float, params: dict[str, float] | None = None) -> Margins:
    """Compute :class:`Margins` for ``model`` at (``alpha``, ``beta``).

    ``params`` maps any other parameter the model declares, by name, to one value (the model's
    own values otherwise): the linear loop at those values.

    Examples
    --------
    >>> from rcpstab.models import get_model
    >>> m = margins(get_model("rcp"), 0.4, 0.2)
    >>> m.stable, round(m.gain_margin, 4), round(m.phase_margin_deg, 2)
    (True, 2.6779, 16.25)
    """
    model = as_model(model).with_values(params)  # a name works too; anything else is an InputError
    alpha = float(check_gains(alpha, "alpha")[0])
    beta = float(check_gains(beta, "beta")[0])
    ol = open_loop(model)
    root = rightmost_root(model, alpha, beta)
    stable = bool(root.real < 0)
    notes: Notes = {}
    try:
        z = int(phase_crossings(ol, [alpha], [beta]).unstable()[0])
    except InputError as exc:
        # Gains in the thousands: the verdict (rightmost root) stands, the frequency reading does not.
        why = f"not computed: {exc}"
        notes.update(
            {
                k: why
                for k in (
                    "gain_margin",
                    "gain_margin_lower",
                    "phase_margin_deg",
                    "crossover_w",
                    "phase_crossover_w",
                    "delay_margin",
                    "unstable_roots",
                )
            }
        )
        return Margins(
            alpha=alpha,
            beta=beta,
            stable=stable,
            gain_margin=None,
            phase_margin_deg=None,
            crossover_w=None,
            phase_crossover_w=None,
            delay_margin=None,
            rightmost_root=(float(root.real), float(root.imag)),
            unstable_roots=None,
            notes=notes,
        )
    gm, gm_lower, w_pc = _gain_margin(ol, alpha, beta, stable, notes)

    wz, phase = gain_crossovers(ol, alpha, beta)
    return _assemble(alpha, beta, stable, root, z, (gm, gm_lower, w_pc), wz, phase, notes)


def _assemble(
    alpha: float,
    beta: float,
    stable: bool,
    root: complex,
    z: int | None,
    gain: GainReading,
    wz: np.ndarray,
    phase: np.ndarray,
    notes: Notes,
) -> Margins:
    """Margins from the pieces: gain margin triple, gain crossovers (w, phase) and the verdict."""
    gm, gm_lower, w_pc = gain
    pm: float | None = None
    dm: float | None = None
    w_z: float | None = None
    if wz.size == 0:
        kind = "none"
    else:
        wrapped = (phase + np.pi) % (2 * np.pi)
        signed = np.where(wrapped > np.pi, wrapped - 2 * np.pi, wrapped)
        i = int(np.argmin(signed))
        pm, w_z = float(np.degrees(signed[i])), float(wz[i])
        if stable:
            dm, kind = float(np.min(wrapped / wz)), "stable"
        elif signed[i] < 0:
            dm, kind = float(signed[i] / wz[i]), "negative"
        else:
            kind = "positive"
    _crossover_notes(notes, kind, w_pc, w_z, gm_lower)
    return Margins(
        alpha=alpha,
        beta=beta,
        stable=stable,
        gain_margin=gm,
        phase_margin_deg=pm,
        crossover_w=w_z,
        phase_crossover_w=w_pc,
        delay_margin=dm,
        rightmost_root=(float(root.real), float(root.imag)),
        gain_margin_lower=gm_lower,
        unstable_roots=z,
        notes=notes,
    )


def _crossover_notes(notes: Notes, kind: str, w_pc: float | None, w_z: float | None, gm_lower: float | None) -> None:
    """The notes :func:`_assemble` adds; ``kind`` is how the gain crossovers read ("none": there is
    none; "stable"; "negative"/"positive": an unstable loop with that sign of the phase margin)."""
    if kind == "none":
        notes["phase_margin_deg"] = "|G| never crosses 1"
        notes["delay_margin"] = "no gain crossover: no extra delay can put a root on the axis"
    elif kind == "negative":
        notes["delay_margin"] = "negative: the loop is unstable; removing this much delay puts a root on the axis"
    elif kind == "positive":
        notes["delay_margin"] = "the loop is unstable with a positive phase margin: no delay margin"
    if w_pc is None:
        notes.setdefault("phase_crossover_w", "no -180 + k*360 deg crossing sets the gain margin")
    if w_z is None:
        notes.setdefault("crossover_w", "|G| never crosses 1")
    if gm_lower is None:
        notes.setdefault("gain_margin_lower", "defined for a stable loop only")
