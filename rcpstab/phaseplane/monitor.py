"""Envelopes of trajectories: observed online during a sweep, or read from a recorded Trajectory.

A sweep cannot keep every sample of thousands of trajectories over hundreds of round trips,
so :class:`EnvelopeMonitor` keeps only what :func:`~rcpstab.phaseplane.verdicts.classify` needs:
per-window peaks of the band distance, equilibrium crossings and the last time out of band.
"""
from __future__ import annotations

import math

import numpy as np

from .integrator import BatchIntegrator
from .trajectory import Trajectory
from .verdicts import WINDOW_RTT, Envelope, band_distance


class EnvelopeMonitor:
    """Observer of a :class:`BatchIntegrator` (pass it to ``run``) that builds an :class:`Envelope`.

    Parameters
    ----------
    integrator : BatchIntegrator
        The batch observed; its parameters fix the equilibrium and C*d0.
    """

    def __init__(self, integrator: BatchIntegrator):
        model = integrator.model
        values = integrator.params
        size = integrator.size
        zeros = [0.0] * model.n_states
        eq = [f(*zeros, *values) for f in model.equilibrium]
        self.gamma_eq = np.broadcast_to(model.gamma(*eq, *values), (size,)).copy()
        self.queue_eq = np.broadcast_to(model.queue(*eq, *values), (size,)).copy()
        capacity = values[model.param_names.index("C")]
        self.d0 = float(np.max(model.time_scale(*values)))
        self.queue_scale = np.broadcast_to(capacity * self.d0, (size,)).copy()
        self.steps_per_rtt = self.d0 / integrator.dt
        self.window_steps = max(1, int(round(WINDOW_RTT * self.steps_per_rtt)))
        self.peak = np.zeros(size)
        self.crossing = np.zeros(size, dtype=int)
        self.above = self._gamma(integrator) > self.gamma_eq
        self.last_out = np.zeros(size)
        self.peaks: list = []
        self.crossings: list = []

    def _gamma(self, it: BatchIntegrator) -> np.ndarray:
        return it.model.gamma(*it.states, *it.params)

    def __call__(self, it: BatchIntegrator) -> None:
        gamma = self._gamma(it)
        queue = it.model.queue(*it.states, *it.params)
        distance = band_distance(gamma, queue, self.gamma_eq, self.queue_eq, self.queue_scale)
        np.fmax(self.peak, distance, out=self.peak)
        self.peak[np.isnan(distance)] = np.inf  # a NaN state has left every bound
        self.last_out[~(distance <= 1.0)] = it.k
        above = gamma > self.gamma_eq
        self.crossing += above != self.above
        self.above = above
        if it.k % self.window_steps == 0:
            self.peaks.append(self.peak.copy())
            self.crossings.append(self.crossing.copy())
            self.peak[:] = 0.0
            self.crossing[:] = 0

    def envelope(self, k: int) -> Envelope:
        """The envelope after ``k`` steps (complete windows only)."""
        size = self.peak.size
        return Envelope(
            peaks=np.array(self.peaks).reshape(-1, size),
            crossings=np.array(self.crossings).reshape(-1, size),
            last_out_rtt=self.last_out / self.steps_per_rtt,
            horizon_rtt=k / self.steps_per_rtt,
            window_rtt=self.window_steps / self.steps_per_rtt,
        )

    def keep(self, mask: np.ndarray) -> None:
        """Follow only the trajectories where ``mask`` is true (as :meth:`BatchIntegrator.keep`)."""
        for name in ("gamma_eq", "queue_eq", "queue_scale", "peak", "crossing", "above", "last_out"):
            setattr(self, name, getattr(self, name)[mask])
        self.peaks = [p[mask] for p in self.peaks]
        self.crossings = [c[mask] for c in self.crossings]


def trajectory_envelope(traj: Trajectory) -> Envelope:
    """The :class:`Envelope` of a recorded trajectory (same windows as the online monitor)."""
    distance = band_distance(traj.gamma, traj.queue, traj.gamma_eq, traj.queue_eq, traj.capacity * traj.d0)
    rtt = traj.rtt
    window = np.floor((rtt - 1e-9) / WINDOW_RTT).astype(int)[1:]
    n_windows = int(math.floor(rtt[-1] / WINDOW_RTT + 1e-9))
    size = distance.shape[1]
    above = traj.gamma > traj.gamma_eq
    flips = (above[1:] != above[:-1]).astype(int)
    peaks = np.zeros((n_windows, size))
    crossings = np.zeros((n_windows, size), dtype=int)
    for w in range(n_windows):
        rows = np.flatnonzero(window == w) + 1
        peaks[w] = np.nan_to_num(distance[rows], nan=np.inf).max(axis=0)
        crossings[w] = flips[rows - 1].sum(axis=0)
    outside = ~(distance <= 1.0)
    last = np.where(outside.any(axis=0), rtt[::-1][np.argmax(outside[::-1], axis=0)], 0.0)
    return Envelope(peaks, crossings, last, float(rtt[-1]))
