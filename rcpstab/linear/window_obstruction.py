"""Why no quadratic functional over a short window can certify a point just outside the linear region.

Theorem (proof in ``docs/certificates-beyond-linear.md``). Let the free mode of the clamped loop
(eq. 5.15 for the queue) have a characteristic root s = sigma + i omega with sigma >= 0 and
omega * L < pi/2 (omega >= 0, in radians per round trip). Then no functional V that is a
quadratic form of the last L round trips of history, positive on every state, decreases strictly
along every trajectory of the switched loop (eq. 5.14): rotating the eigen-solution v e^{s tau}
by a unit complex number c puts the phase of its queue component over the whole window inside
(0, pi/2), so Re(c v e^{s theta}) and Im(c v e^{s theta}), theta in [-L, 0], are two real
histories with a positive queue throughout (states of the switched loop in its free mode) and
V(x_a) + V(x_b) grows like e^{2 sigma tau} along them.

On the linear boundary s = i omega with omega = arg(beta + i alpha omega) < pi/2, so every point
just outside the linear region is out of reach of one round trip (L = 1), whatever the functional
knows about the switch; a window L > pi / (2 omega) escapes this argument.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..models import as_model
from .roots import rightmost_roots

__all__ = ["Obstruction", "obstruction", "witness_histories"]


@dataclass
class Obstruction:
    """The root that rules a window out (time in round trips).

    Attributes
    ----------
    root : complex
        sigma + i omega (1/round trip), sigma >= 0, omega >= 0.
    window : int
        L (round trips).
    spread : float
        omega * L (rad), < pi/2.
    """

    root: complex
    window: int
    spread: float


def obstruction(
    model: Any, alpha: float, beta: float, window: int, params: dict[str, Any] | None = None, count: int = 6
) -> Obstruction | None:
    """The root that proves no quadratic functional over ``window`` round trips exists, or None.

    Parameters
    ----------
    model : ModelSpec or str
        Its linearization is the free mode (clamps ignored), as in ``linear``.
    alpha, beta : float
        Gains (dimensionless).
    window : int
        L, round trips of history in the functional.
    count : int
        Rightmost roots examined.
    """
    model = as_model(model).with_values(params)
    for r in rightmost_roots(model, alpha, beta, count=count):
        if r.real >= 0 and abs(r.imag) * window < np.pi / 2:
            return Obstruction(complex(r.real, abs(r.imag)), int(window), float(abs(r.imag) * window))
    return None


def witness_histories(A: np.ndarray, Ad: np.ndarray, clamped: int, root: complex, window: int, theta: ArrayLike) -> np.ndarray:
    """The two real histories of the theorem, sampled at ``theta`` (round trips, in [-window, 0]).

    Parameters
    ----------
    A, Ad : ndarray (n, n)
        The free loop in round trips (:func:`rcpstab.linear.certified_window.loop_matrices`).
    clamped : int
        Index of the clamped state.
    root : complex
        A characteristic root of the free loop (sigma + i omega, omega * window < pi/2).

    Returns
    -------
    ndarray (2, len(theta), n)
        Re and Im of c v e^{root theta}: solutions of the free loop whose clamped state is > 0 on the window.
    """
    A, Ad = np.asarray(A, complex), np.asarray(Ad, complex)
    delta = root * np.eye(A.shape[0]) - A - Ad * np.exp(-root)
    v = np.linalg.svd(delta)[2][-1].conj()  # null vector of the characteristic matrix
    spread = root.imag * window
    # queue phase over the window: arg(c v_z) + omega*theta, theta in [-L, 0] -> centre it at pi/4
    c = np.exp(1j * (np.pi / 4 + spread / 2 - np.angle(v[clamped])))
    z = c * v[None, :] * np.exp(root * np.asarray(theta, float))[:, None]
    return np.stack([z.real, z.imag])
