"""Start the phase-plane integrator on a periodic orbit: the independent check of an unstable cycle.

A stable cycle is checked by letting a simulation settle on it; an unstable one never is. Its
check is the opposite experiment: start the compiled phase-plane kernel (an integrator
independent of :mod:`.periodic`'s scheme: Hermite history, its own step) with the orbit
itself as history, scaled about the equilibrium by ``1 + eps``. If the orbit is a saddle
cycle whose unstable direction is its own amplitude, ``eps > 0`` leaves it outwards and
``eps < 0`` inwards (to the equilibrium), and ``eps = 0`` stays near it for many periods.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..phaseplane.setup import make_integrator
from .periodic import OrbitPoint, PeriodicSystem

__all__ = ["simulate_from_orbit"]

START_STEP = 64  # the injected history is laid at steps far from t = 0 (no start-up breakpoints)


def _orbit_at(profile: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Band-limited values and time derivatives (per unit of the profile's period) of a periodic profile."""
    n, N = profile.shape
    spectrum = np.fft.rfft(profile, axis=1) / N
    k = np.arange(spectrum.shape[1])
    weight = np.where((k == 0) | ((N % 2 == 0) & (k == N // 2)), 1.0, 2.0)
    phase = np.exp(2j * np.pi * np.outer(k, times))  # (K, T)
    values = np.real((spectrum * weight) @ phase)
    slopes = np.real((spectrum * weight * 2j * np.pi * k) @ phase)
    return values, slopes


def simulate_from_orbit(
    system: PeriodicSystem, point: OrbitPoint, eps: Any, rtts: float, dt: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Integrate the model with the orbit (scaled by ``1 + eps`` about the equilibrium) as its history.

    Parameters
    ----------
    system : PeriodicSystem
    point : OrbitPoint
    eps : array_like
        Relative scalings of the orbit's deviation from the equilibrium, one trajectory each.
    rtts : float
        Duration, in the model's time unit.
    dt : float, optional
        Step (s); the model's default otherwise.

    Returns
    -------
    t_rtt : ndarray, shape (n,)
        Time since the start, in the model's unit.
    gamma : ndarray, shape (n, B)
        The normalised rate (R/C for RCP).
    """
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    B = eps.size
    gains = {system.parameter: np.full(B, point.gain)}
    eq = system.equilibrium(point.gain) * system.scale  # SI
    integrator = make_integrator(system.model, {**system.values, **gains}, {"gamma0": np.full(B, 0.1)}, dt)
    dt = integrator.dt
    L = integrator.length
    K = START_STEP * L
    period_s = point.period * system.time_unit
    steps = np.arange(K - L + 1, K + 1)
    values, slopes = _orbit_at(point.profile, (steps - K) * dt / period_s)  # the orbit's phase 0 at step K
    values = values * system.scale[:, None]
    slopes = slopes * system.scale[:, None] * dt / period_s  # derivative times step, as stored
    deviation = values - eq[:, None]
    for b in range(B):
        x = eq[:, None] + (1 + eps[b]) * deviation
        s = (1 + eps[b]) * slopes
        integrator._ring_values[b][:, steps % L] = x
        integrator._ring_slopes[b][:, steps % L] = s
        integrator._x[b] = x[:, -1]
    integrator.k = K
    n = int(round(rtts * system.time_unit / dt))
    recorded = integrator.run(n, record_every=1)
    states = [recorded[:, :, s] for s in range(system.n)]
    gamma = np.asarray(system.compiled.gamma(*states, *integrator.params)) * np.ones_like(states[0])
    return np.arange(1, n + 1) * dt / system.time_unit, gamma
