"""Exact margins of any SISO loop with a delay: L(s) = n(s)/d(s) * exp(-s*tau).

A python-control ``TransferFunction`` or ``StateSpace`` (or a plain ``(num, den)`` pair) closed
by unit negative feedback through a delay tau has the characteristic quasi-polynomial

    Delta(s) = d(s) + n(s) exp(-s*tau),

retarded when the loop is strictly proper. Nothing here is a second engine: in the normalized
variable lambda = s*d0 (d0 = tau) the loop is an :class:`~rcpstab.linear.openloop.OpenLoop` with
the loop's numerator in the ``alpha`` slot (evaluated at alpha = K, the loop-gain factor, beta = 0)
and Delta a :class:`~rcpstab.linear.quasipoly.QuasiPolynomial`, so the verdict, the root count,
the Bode/Nyquist crossings and the margins come from the same code as the bundled models':

- ``stable``: no root in the closed right half-plane, by the argument principle on the imaginary
  axis (:meth:`QuasiPolynomial.count_unstable`, an exact integer count), and the rightmost root
  (Chebyshev collocation of the generator, :func:`~rcpstab.linear.roots.collocated_generator`,
  polished by Newton on Delta) beside it;
- gain margins both ways, phase margin and delay margin as in :mod:`rcpstab.linear.margins`
  (the delay margin is exact: the extra delay min over gain crossovers w_c of
  ((phase(w_c) + pi) mod 2 pi)/w_c puts a root on j*w_c, and no smaller one puts a root
  anywhere on the axis, since ``|L|`` does not depend on the delay);
- ``notes`` whenever a margin's sign and the roots disagree (an unstable open loop).

All outputs are in SI units (rad/s, s), not normalized.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError
from ..runtime.validation import check_value
from .margins import _assemble, margin_from_intervals
from .openloop import OpenLoop
from .phasecross import gain_crossovers, phase_crossings
from .quasipoly import QuasiPolynomial
from .roots import collocated_generator

__all__ = ["DelayedLoop", "LoopMargins", "LoopRegion", "as_loop", "is_loop", "loop_margins", "loop_region", "loop_roots"]

NODES = 32  # collocation nodes: the companion realization is small, so more nodes cost little


@dataclass(frozen=True)
class DelayedLoop:
    """The loop L(s) = num(s)/den(s) * exp(-s*delay), closed by unit negative feedback.

    Attributes
    ----------
    num, den : ndarray
        Polynomial coefficients in s (s in rad/s), highest power first (python-control's order).
    delay : float
        Total loop delay tau in seconds (input and output delays of a SISO loop add).
    """

    num: np.ndarray
    den: np.ndarray
    delay: float
    extra: tuple = ()

    def __post_init__(self):
        num = np.trim_zeros(np.atleast_1d(np.asarray(self.num, float)), "f")
        den = np.trim_zeros(np.atleast_1d(np.asarray(self.den, float)), "f")
        if den.size == 0 or not np.all(np.isfinite(den)) or not np.all(np.isfinite(num)):
            raise InputError(f"loop denominator {list(self.den)!r}: must be finite and nonzero")
        if num.size == 0:
            raise InputError("loop numerator is zero: there is no loop")
        if num.size > den.size or (num.size == den.size and self.delay > 0):
            raise InputError(
                f"loop of numerator degree {num.size - 1} over denominator degree {den.size - 1}: "
                "with a delay only strictly proper loops are supported (a proper one is of neutral type)"
            )
        if not np.isfinite(self.delay) or self.delay < 0:
            raise InputError(f"delay = {self.delay!r}: must be a finite number >= 0 (seconds)")
        object.__setattr__(self, "num", num)
        object.__setattr__(self, "den", den)
        object.__setattr__(self, "delay", float(self.delay))
        extra = []
        for n, d in self.extra:
            other = DelayedLoop(n, den, d)  # the same checks, term by term
            extra.append((other.num, other.delay))
        object.__setattr__(self, "extra", tuple(extra))

    @property
    def terms(self) -> tuple:
        """((num, delay), ...): L(s) = sum num(s)/den(s) exp(-s delay)."""
        return ((self.num, self.delay),) + self.extra

    def __call__(self, s):
        """L(s) for complex ``s`` (rad/s)."""
        s = np.asarray(s, dtype=complex)
        with np.errstate(divide="ignore", invalid="ignore"):  # a pole at s = 0 gives inf, as it should
            return sum(np.polyval(n, s) * np.exp(-s * d) for n, d in self.terms) / np.polyval(self.den, s)

    def with_delay(self, delay: float) -> DelayedLoop:
        """The loop with its first delay set to ``delay`` (s) and every other shifted alike."""
        shift = delay - self.delay
        return DelayedLoop(self.num, self.den, delay, tuple((n, d + shift) for n, d in self.extra))

    @property
    def time_scale(self) -> float:
        """d0 (s): the delay, or for a delay-free loop the inverse of its largest pole or zero modulus."""
        if self.delay > 0 or self.extra:
            return max(d for _, d in self.terms)
        roots = np.concatenate([np.roots(self.num), np.roots(self.den)])
        roots = np.abs(roots[np.abs(roots) > 0])
        return 1.0 / float(roots.max()) if roots.size else 1.0

    def normalized(self):
        """(d0, OpenLoop or None, QuasiPolynomial) in lambda = s*d0 (see the module docstring).

        The OpenLoop (the Bode and Nyquist machinery's form) exists for one delay only.
        """
        d0 = self.time_scale
        den = self.den[::-1] / d0 ** np.arange(self.den.size)  # ascending, in lambda
        nums = [n[::-1] / d0 ** np.arange(n.size) for n, _ in self.terms]
        lead = den[-1]
        P = den.size
        coeffs = np.zeros((len(nums) + 1, P, 3))
        coeffs[0, :, 0] = den / lead
        for k, n in enumerate(nums):
            coeffs[k + 1, : n.size, 1] = n / lead
        thetas = np.array([0.0] + [d / d0 for _, d in self.terms])
        qp = QuasiPolynomial(thetas=thetas, coeffs=coeffs, degree=P - 1)
        if self.extra:
            return d0, None, qp
        num = nums[0]
        k_den = int(np.argmax(den != 0))
        k_num = int(np.argmax(num != 0))
        cancel = min(k_den, k_num)  # common factors lambda
        num, den = num[cancel:], den[cancel:]
        k = k_den - cancel  # poles at 0 left
        den_rest = den[k:]
        scale = den_rest[0]
        ol_num = np.zeros((num.size, 3))
        ol_num[:, 1] = num / scale
        ol = OpenLoop(theta=self.delay / d0, num=ol_num, den=den_rest / scale, integrators=k)
        return d0, ol, qp


def is_loop(sys) -> bool:
    """Whether ``sys`` is an LTI loop :func:`as_loop` takes (python-control system, DelayedLoop, (num, den))."""
    return (
        isinstance(sys, DelayedLoop)
        or type(sys).__name__ in ("TransferFunction", "StateSpace")
        or (isinstance(sys, tuple) and len(sys) == 2)
    )


def as_loop(sys, delay=0.0) -> DelayedLoop:
    """A :class:`DelayedLoop` from a python-control SISO system or a ``(num, den)`` pair.

    Parameters
    ----------
    sys : control.TransferFunction, control.StateSpace, DelayedLoop or (num, den)
        Continuous-time SISO loop; coefficients highest power first.
    delay : float or sequence of float
        Loop delay(s) in seconds; several (e.g. an input and an output delay) add.

    Returns
    -------
    DelayedLoop

    Examples
    --------
    >>> as_loop(([2.0], [1.0, 0.0]), delay=0.5).delay
    0.5
    """
    try:
        delays = np.atleast_1d(np.asarray(delay, dtype=float))
    except (TypeError, ValueError):
        delays = np.empty((0, 0))
    if delays.ndim != 1:
        raise InputError(f"delay = {delay!r}: must be seconds (one number, or several that add)")
    for value in delays:
        check_value("loop_delay", value, field="delay")
    total = check_value("loop_delay", float(delays.sum()), field="delay (the sum)")
    if isinstance(sys, DelayedLoop):
        return sys.with_delay(sys.delay + total) if total else sys
    if isinstance(sys, tuple) and len(sys) == 2:
        return DelayedLoop(sys[0], sys[1], total)
    kind = type(sys).__name__
    if kind not in ("TransferFunction", "StateSpace"):
        raise InputError(f"{kind} is not a loop: expected a python-control TransferFunction or StateSpace, or a (num, den) pair")
    if getattr(sys, "ninputs", 1) != 1 or getattr(sys, "noutputs", 1) != 1:
        raise InputError(f"the loop has {sys.ninputs} inputs and {sys.noutputs} outputs: only SISO loops")
    if sys.dt not in (0, None):
        raise InputError(f"dt = {sys.dt!r}: only continuous-time loops")
    if kind == "StateSpace":
        import control  # the optional python-control extra, only for its own objects

        sys = control.ss2tf(sys)
    return DelayedLoop(np.asarray(sys.num[0][0], float), np.asarray(sys.den[0][0], float), total)


@dataclass(frozen=True)
class LoopMargins:
    """Stability margins of a delayed LTI loop, in SI units.

    Attributes
    ----------
    delay : float
        The loop delay tau (s).
    stable : bool
        No characteristic root in the closed right half-plane (exact count).
    gain_margin : float or None
        Factor by which the loop gain can grow before instability (see :mod:`.margins`).
    gain_margin_lower : float or None
        Factor below which a conditionally stable loop is unstable (None: any smaller gain is stable).
    phase_margin_deg : float or None
        180 deg + the phase at the gain crossover, wrapped to (-180, 180].
    crossover_w : float or None
        Gain crossover (rad/s) of the phase margin.
    phase_crossover_w : float or None
        Frequency (rad/s) of the -180 deg crossing that sets ``gain_margin``.
    delay_margin : float or None
        Smallest extra delay (s) that puts a root on the imaginary axis (stable loops).
    rightmost_root : tuple of float
        (Re, Im) of the rightmost characteristic root (rad/s).
    open_loop_rhp_poles : int
        Poles of L with Re > 0.
    unstable_roots : int or None
        Closed-loop roots with Re > 0 (argument principle), None on the boundary.
    notes : dict
        Why a field is None, and every disagreement between a margin's sign and the verdict.
    """

    delay: float
    stable: bool
    gain_margin: float | None
    gain_margin_lower: float | None
    phase_margin_deg: float | None
    crossover_w: float | None
    phase_crossover_w: float | None
    delay_margin: float | None
    rightmost_root: tuple
    open_loop_rhp_poles: int
    unstable_roots: int | None
    notes: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Strict-JSON-ready dict (non-finite numbers become None with a note)."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["rightmost_root"] = [float(x) if np.isfinite(x) else None for x in self.rightmost_root]
        notes = dict(self.notes)
        for key, value in out.items():
            if isinstance(value, float) and not np.isfinite(value):
                out[key] = None
                notes.setdefault(key, f"not finite ({value})")
        out["notes"] = notes
        return out

    def columns(self) -> dict:
        """The long table: one row, SI units in the column names (the names of a batch of loop margins)."""
        d = self.to_dict()
        return {
            "delay_s": [d["delay"]],
            "stable": [d["stable"]],
            "unstable_roots": [d["unstable_roots"]],
            "open_loop_rhp_poles": [d["open_loop_rhp_poles"]],
            "gain_margin": [d["gain_margin"]],
            "gain_margin_lower": [d["gain_margin_lower"]],
            "phase_margin_deg": [d["phase_margin_deg"]],
            "crossover_w_rad_s": [d["crossover_w"]],
            "phase_crossover_w_rad_s": [d["phase_crossover_w"]],
            "delay_margin_s": [d["delay_margin"]],
            "rightmost_root_re_per_s": [d["rightmost_root"][0]],
            "rightmost_root_im_rad_s": [d["rightmost_root"][1]],
        }

    def to_pandas(self):
        """:meth:`columns` as a one-row :class:`pandas.DataFrame` (None as NaN)."""
        from ..runtime.frames import data_frame

        return data_frame({k: np.array([np.nan if x is None else x for x in v]) for k, v in self.columns().items()})

    def __repr__(self):
        def f(x):
            return "None" if x is None else f"{x:.6g}"

        return (
            f"LoopMargins(stable={self.stable}, gain_margin={f(self.gain_margin)}, "
            f"phase_margin_deg={f(self.phase_margin_deg)}, delay_margin={f(self.delay_margin)}, "
            f"open_loop_rhp_poles={self.open_loop_rhp_poles})"
        )


def loop_roots(loop: DelayedLoop, count: int = 4) -> np.ndarray:
    """The ``count`` rightmost characteristic roots with Im >= 0 (rad/s), rightmost first.

    Delay-free loops: the roots of d + n. Delayed ones: eigenvalues of the collocated generator
    of x' = A x - b c x(t - tau) (A, b, c a companion realization of n/d), polished by Newton's
    method on Delta and kept only where Delta vanishes to rounding.
    """
    d0, _, qp = loop.normalized()
    if qp.thetas.max() == 0:
        lam = np.roots(np.polyadd(loop.den, loop.num)) * d0
    else:
        c = qp.coeffs
        deg = qp.degree
        A = np.zeros((deg, deg))
        A[:-1, 1:] = np.eye(deg - 1)
        A[-1, :] = -c[0, :deg, 0]
        delayed: dict[Any, Any] = {}
        for k, theta in enumerate(qp.thetas[1:], start=1):
            A1 = np.zeros((deg, deg))
            A1[-1, :] = -c[k, :deg, 1]
            delayed[theta] = delayed.get(theta, 0) + A1
        if 0.0 in delayed:  # a delay-free term of the loop joins A
            A += delayed.pop(0.0)
        eig = np.linalg.eigvals(collocated_generator(A, delayed, NODES))
        eig = eig[eig.imag >= -1e-9]
        lam = eig[np.argsort(-eig.real)][: 3 * count]
        for _ in range(40):
            step = qp(lam, 1.0, 0.0) / qp.derivative(lam, 1.0, 0.0)
            lam = lam - step
            if np.all(np.abs(step) < 1e-15 * (1 + np.abs(lam))):
                break
        with np.errstate(invalid="ignore", over="ignore"):
            ok = np.isfinite(lam) & (np.abs(qp(lam, 1.0, 0.0)) <= 1e-9 * (1 + np.abs(lam)) ** deg)
        lam = lam[ok]
    lam = np.where(np.abs(lam.imag) < 1e-12 * (1 + np.abs(lam)), lam.real + 0j, lam)
    lam = lam[lam.imag >= 0]
    unique: list[Any] = []
    for r in lam[np.argsort(-lam.real)]:
        if all(abs(r - u) > 1e-8 * (1 + abs(r)) for u in unique):
            unique.append(r)
    return np.array(unique[:count]) / d0


def _count_unstable(loop: DelayedLoop, qp: QuasiPolynomial) -> int | None:
    """Closed-loop roots with Re > 0: the argument principle (None: a root on the axis)."""
    if qp.thetas.max() == 0:
        roots = np.roots(np.polyadd(loop.den, loop.num))
        if np.any(np.abs(roots.real) <= 1e-12 * np.maximum(1, np.abs(roots))):
            return None
        return int((roots.real > 0).sum())
    z = float(qp.count_unstable(1.0, 0.0))
    return None if not np.isfinite(z) else int(z)


def loop_margins(sys, delay=0.0) -> LoopMargins:
    """Exact verdict and margins of ``sys`` closed through ``delay`` (see the module docstring).

    Parameters
    ----------
    sys : control.TransferFunction, control.StateSpace, DelayedLoop or (num, den)
        The SISO loop L without its delay (coefficients in s, rad/s).
    delay : float or sequence of float
        Loop delay(s), seconds.

    Returns
    -------
    LoopMargins

    Examples
    --------
    >>> m = loop_margins(([1.0], [1.0, 0.0]), delay=1.0)       # e^{-s}/s
    >>> m.stable, round(m.phase_margin_deg, 6), round(m.delay_margin, 6)
    (True, 32.70422, 0.570796)
    """
    loop = as_loop(sys, delay)
    d0, ol, qp = loop.normalized()
    roots = loop_roots(loop, count=2)
    rightmost = complex(roots[0]) if roots.size else complex(-np.inf, 0.0)
    z = _count_unstable(loop, qp)
    notes: dict = {}
    # The count samples the axis: a root within ~1e-3/d0 of it can fool it, while Newton's root does
    # not; elsewhere the count cannot miss a root far out, as the collocation could.
    near_axis = abs(rightmost.real) * d0 < 1e-3
    if z is None or near_axis:
        stable = bool(rightmost.real < 0)
        if z is None:
            notes["unstable_roots"] = "a root lies on or very near the imaginary axis: not counted"
    else:
        stable = z == 0
    if z is not None and (z == 0) != (rightmost.real < 0):
        notes["rightmost_root"] = (
            f"the argument principle counts {z} unstable roots but the rightmost root found has Re = {rightmost.real:.3g} rad/s"
        )
    poles = np.roots(loop.den)
    p_rhp = int((poles.real > 1e-12 * np.maximum(1.0, np.abs(poles))).sum())
    if ol is None:
        m = _multi_delay_margins(loop, d0, qp, stable, rightmost, z, notes)
        crossovers = m.pop("crossovers")
    else:
        pc = phase_crossings(ol, [1.0], [0.0])
        gm, gm_lower, w_pc = _gain_margins(loop, ol, qp, stable, notes)
        wz, phase = gain_crossovers(ol, 1.0, 0.0)
        crossovers = wz.size
        m = _assemble(1.0, 0.0, stable, rightmost * d0, int(pc.unstable()[0]), (gm, gm_lower, w_pc), wz, phase, notes).__dict__
    out = LoopMargins(
        delay=loop.delay,
        stable=stable,
        gain_margin=m["gain_margin"],
        gain_margin_lower=m["gain_margin_lower"],
        phase_margin_deg=m["phase_margin_deg"],
        crossover_w=None if m["crossover_w"] is None else m["crossover_w"] / d0,
        phase_crossover_w=None if m["phase_crossover_w"] is None else m["phase_crossover_w"] / d0,
        delay_margin=None if m["delay_margin"] is None else m["delay_margin"] * d0,
        rightmost_root=(rightmost.real, rightmost.imag),
        open_loop_rhp_poles=p_rhp,
        unstable_roots=z,
        notes=m["notes"],
    )
    _sign_notes(out, crossovers)
    return out


MULTI_GAIN_LIMIT = 100.0  # several delays: gain-margin search up to this factor (counted per interval)


def _multi_delay_margins(loop: DelayedLoop, d0: float, qp: QuasiPolynomial, stable: bool, rightmost, z, notes):
    """Margins of a loop with several delays, on the normalized frequency axis (w*d0).

    The same definitions as for one delay; the crossings are bracketed on a grid and refined
    to rounding, and the number of unstable roots of K*L between consecutive crossing gains is
    counted by the argument principle (Bode's count needs one delay).
    """
    from .bisection import bisect_brackets

    def L(w):
        return loop(1j * np.asarray(w) / d0)

    c = qp.coeffs
    s_num = np.abs(c[1:, :, 1]).sum()
    s_den = np.abs(c[0, :-1, 0]).sum()
    end = 1.05 * max(1.0, MULTI_GAIN_LIMIT * s_num + s_den)
    if end > 4096.0:
        raise InputError(
            f"the loop's gain stays above {1 / MULTI_GAIN_LIMIT:g} up to w*tau = {end:.3g}: too wide a band to sample"
        )
    w = np.concatenate((np.geomspace(1e-9, 1.0, 1000, endpoint=False), np.arange(1.0, end + 0.005, 0.005)))
    values = L(w)
    logmag = np.log(np.abs(values))
    i = np.nonzero(np.sign(logmag[:-1]) * np.sign(logmag[1:]) < 0)[0]
    wz = bisect_brackets(lambda x, k: np.log(np.abs(L(x))), w[i], w[i + 1])
    angle = np.angle(L(wz))
    wrapped = (angle + np.pi) % (2 * np.pi)
    signed = np.where(wrapped > np.pi, wrapped - 2 * np.pi, wrapped)
    out = {
        "gain_margin": None,
        "gain_margin_lower": None,
        "phase_margin_deg": None,
        "crossover_w": None,
        "phase_crossover_w": None,
        "delay_margin": None,
        "notes": notes,
        "crossovers": wz.size,
    }
    if wz.size == 0:
        notes["phase_margin_deg"] = "|L| never crosses 1"
        notes["delay_margin"] = "no gain crossover: no extra delay can put a root on the axis"
    else:
        k = int(np.argmin(signed))
        out["phase_margin_deg"], out["crossover_w"] = float(np.degrees(signed[k])), float(wz[k])
        if stable:
            out["delay_margin"] = float(np.min(wrapped / wz))
        elif signed[k] < 0:
            out["delay_margin"] = float(signed[k] / wz[k])
            notes["delay_margin"] = "negative: the loop is unstable; removing this much delay puts a root on the axis"
        else:
            notes["delay_margin"] = "the loop is unstable with a positive phase margin: no delay margin"
    # -180 deg crossings (Im L changes sign where Re L < 0) and the real root through 0
    im = values.imag
    j = np.nonzero((np.sign(im[:-1]) * np.sign(im[1:]) < 0) & (values.real[:-1] < 0))[0]
    wp = bisect_brackets(lambda x, k: L(x).imag, w[j], w[j + 1])
    ends = [(1.0 / abs(L(x)), x) for x in wp if L(x).real < 0]
    l0 = L(np.zeros(1))[0]
    if np.isfinite(l0) and l0.real < 0:
        ends.append((1.0 / abs(l0), 0.0))
    ends = sorted(e for e in ends if e[0] < MULTI_GAIN_LIMIT)
    edges = [0.0] + [e for e, _ in ends] + [np.inf]
    edge_w = [None] + [x for _, x in ends] + [None]
    reps = [
        0.5 * hi if lo == 0 else (min(2 * lo, MULTI_GAIN_LIMIT) if np.isinf(hi) else np.sqrt(lo * hi))
        for lo, hi in zip(edges[:-1], edges[1:])
    ]
    ok = [
        (z == 0 if (z is not None and lo < 1 < hi) else qp.count_unstable(K, 0.0) == 0)
        for K, lo, hi in zip(reps, edges[:-1], edges[1:])
    ]
    for idx, good in enumerate(ok):
        lo, hi = edges[idx], edges[idx + 1]
        if good and lo < 1.0 < hi and stable:
            if np.isinf(hi):
                notes["gain_margin"] = f"K*L is stable for every K from 1 to {MULTI_GAIN_LIMIT:g} (searched)"
            else:
                out["gain_margin"], out["phase_crossover_w"] = float(hi), edge_w[idx + 1]
            if lo > 0:
                out["gain_margin_lower"] = float(lo)
                notes["gain_margin_lower"] = "conditionally stable: below this factor the loop is unstable"
            else:
                notes["gain_margin_lower"] = "stable for every smaller loop gain"
    if not stable:
        best = min(
            (
                (abs(np.log(e)), e, x)
                for n, good in enumerate(ok)
                if good
                for e, x in ((edges[n], edge_w[n]), (edges[n + 1], edge_w[n + 1]))
                if 0 < e < np.inf
            ),
            default=None,
        )
        if best is None:
            notes["gain_margin"] = f"no loop-gain factor up to {MULTI_GAIN_LIMIT:g} makes K*L stable"
        else:
            out["gain_margin"], out["phase_crossover_w"] = float(best[1]), best[2]
            notes["gain_margin"] = (
                "the loop is unstable: multiplying the loop gain by this factor reaches the edge of the stable range"
            )
        notes.setdefault("gain_margin_lower", "defined for a stable loop only")
    return out


GAIN_LIMITS = (1e4, 256.0, 16.0)  # searched from the widest the frequency grid allows


def _gain_margins(loop: DelayedLoop, ol: OpenLoop, qp: QuasiPolynomial, stable: bool, notes: dict):
    """(gain_margin, gain_margin_lower, w of the crossing setting gain_margin (normalized)) with notes.

    The loop K*L has a root on the axis exactly at K = 1/|L(j w)| for w > 0 on a -180 + k*360 deg
    crossing, or K = 1/|L(0)| when L(0) < 0 (a real root through 0). Between consecutive such K
    the number of unstable roots is constant: it is counted (argument principle) once per interval.
    """
    for limit in GAIN_LIMITS:
        try:
            pc = phase_crossings(ol, [1.0], [0.0], gain_limit=limit)
            break
        except InputError:
            continue
    else:
        notes["gain_margin"] = "not computed: the loop gain stays above 1 beyond the frequencies sampled"
        return None, None, None
    ends = list(zip(1.0 / pc.magnitude[pc.magnitude > 0], pc.w[pc.magnitude > 0]))
    l0 = ol.rational(np.zeros(1), 1.0, 0.0)[0].real if ol.integrators == 0 else np.inf
    if np.isfinite(l0) and l0 < 0:
        ends.append((1.0 / abs(l0), 0.0))
    ends = sorted((k, w) for k, w in ends if k < limit)
    edges = [0.0] + [k for k, _ in ends] + [np.inf]
    edge_w = [np.nan] + [w for _, w in ends] + [np.nan]

    # Z(K): counted once at K = 1 (argument principle), then carried across each end: a -180 deg
    # crossing changes it by 2 in the Bode count's direction, the real root through 0 by 1, its
    # direction the sign of ds/dK = -n(0) e^0 / Delta'(0) there.
    z1 = _count_unstable(loop, qp)
    if z1 is None:
        z1 = 0 if stable else 1
    base = pc.unstable(1.0)[0]
    lam0 = np.zeros(1, complex)

    def z_at(K):
        z = z1 + pc.unstable(K)[0] - base
        if np.isfinite(l0) and l0 < 0:
            k0 = 1.0 / abs(l0)
            if min(K, 1.0) < k0 < max(K, 1.0):
                slope = -qp.parts(lam0)[1][0].real / qp.derivative(lam0, k0, 0.0)[0].real
                z += np.sign(slope) * np.sign(K - 1.0)
        return z

    reps = [0.5 * hi if lo == 0 else (2 * lo + 1 if np.isinf(hi) else np.sqrt(lo * hi)) for lo, hi in zip(edges[:-1], edges[1:])]
    ok = [z_at(K) == 0 for K in reps]
    intervals = [(edges[i], edges[i + 1], edge_w[i], edge_w[i + 1]) for i in range(len(reps)) if ok[i]]
    return margin_from_intervals(
        intervals,
        stable,
        notes,
        {
            "none": f"no loop-gain factor K up to {limit:g} makes K*L stable",
            "unbounded": f"K*L is stable for every K from 1 to {limit:g} (searched)",
            "disagree": "the gain intervals disagree with the roots at K = 1 (on the boundary?)",
            "no_end": "unstable; the stable gains have no finite end",
        },
    )


def _sign_notes(m: LoopMargins, crossovers: int) -> None:
    """Say where a margin's sign and the verdict disagree (they can, once the open loop is unstable)."""
    notes = m.notes
    P = m.open_loop_rhp_poles
    pm_says_stable = m.phase_margin_deg is not None and m.phase_margin_deg > 0
    if P:
        notes["open_loop_rhp_poles"] = (
            f"the open loop has {P} right-half-plane pole(s): stability needs {P} "
            "counter-clockwise encirclement(s) of -1, so the sign of a margin is no "
            "stability test; the verdict comes from the roots"
        )
    if crossovers == 0 and not m.stable:
        notes["verdict"] = "unstable although |L(jw)| != 1 everywhere: no gain crossover, so no phase margin can warn of it"
    elif pm_says_stable and not m.stable:
        notes["verdict"] = "the phase margin is positive, yet the closed loop is unstable (roots)"
    elif m.phase_margin_deg is not None and m.phase_margin_deg < 0 and m.stable:
        notes["verdict"] = "the phase margin is negative, yet the closed loop is stable (roots)"


@dataclass(frozen=True)
class LoopRegion:
    """Where K*L closed through a delay tau is stable, on a (gain, delay) grid.

    Attributes
    ----------
    gain : ndarray, shape (ng,)
        Loop-gain factors K (dimensionless).
    delay : ndarray, shape (nd,)
        Loop delays tau (s).
    stable : ndarray of bool, shape (nd, ng)
        ``stable[j, i]`` for (gain[i], delay[j]): no root in the closed right half-plane (exact count).
    """

    gain: np.ndarray
    delay: np.ndarray
    stable: np.ndarray

    def columns(self) -> dict:
        """The long table: one row per (gain, delay) point, delay in seconds."""
        K, tau = np.meshgrid(self.gain, self.delay)
        return {"gain": K.ravel(), "delay_s": tau.ravel(), "stable": self.stable.ravel()}

    def to_pandas(self):
        """:meth:`columns` as a :class:`pandas.DataFrame`."""
        from ..runtime.frames import data_frame

        return data_frame(self.columns())

    def to_xarray(self):
        """The region as an :class:`xarray.Dataset`: ``stable`` over dimensions ``delay`` (s) and ``gain``
        (``ds.stable.values[j, i]`` at ``(gain[i], delay[j])``), units in ``attrs`` (needs ``rcpstab[xarray]``)."""
        from ..runtime.frames import grid_dataset

        K, tau = np.meshgrid(self.gain, self.delay)
        return grid_dataset(
            {"gain": K.ravel(), "delay": tau.ravel(), "stable": self.stable.ravel()},
            {"delay": self.delay, "gain": self.gain},
            {"gain": "1", "delay": "s", "stable": "1"},
            {"command": "map"},
        )

    def plot(self, ax=None):
        """The stable set shaded over (K, tau); returns the Axes."""
        from ..figures import new_figure

        ax = ax or new_figure((6, 4.5)).subplots()
        ax.contourf(self.gain, self.delay, self.stable.astype(float), levels=[0.5, 1.5], colors=["tab:green"], alpha=0.4)
        ax.set_xlabel("loop-gain factor K")
        ax.set_ylabel("loop delay tau (s)")
        return ax


def loop_region(sys, gain, delay) -> LoopRegion:
    """The exact stable region of K*L(s) e^{-s tau} over a grid of gains K and delays tau (s).

    Each point is decided by the argument principle on the imaginary axis (a root count, not a
    margin reading), so open-loop-unstable loops are judged right.

    Examples
    --------
    >>> r = loop_region(([1.0], [1.0, -0.5]), gain=[0.4, 1.0, 2.0], delay=[0.1, 1.0])
    >>> r.stable.tolist()          # k e^{-s tau}/(s - a), a = 0.5: stable iff k > a, tau < arccos(a/k)/sqrt(k^2 - a^2)
    [[False, True, True], [False, True, False]]
    """
    loop = as_loop(sys)
    gains = np.atleast_1d(np.asarray(gain, float))
    delays = np.atleast_1d(np.asarray(delay, float))
    if np.any(~np.isfinite(gains)) or np.any(gains <= 0):
        raise InputError(f"gain = {gain!r}: loop-gain factors must be finite and > 0")
    stable = np.zeros((delays.size, gains.size), bool)
    for j, tau in enumerate(delays):
        for i, k in enumerate(gains):
            scaled = DelayedLoop(
                k * loop.num, loop.den, float(tau), tuple((k * n, d - loop.delay + float(tau)) for n, d in loop.extra)
            )
            z = _count_unstable(scaled, scaled.normalized()[2])
            stable[j, i] = z == 0
    return LoopRegion(gain=gains, delay=delays, stable=stable)
