"""Envelopes of trajectories: observed online during a sweep, or read from a recorded Trajectory.

A sweep cannot keep every sample of thousands of trajectories over hundreds of round trips,
so :class:`EnvelopeMonitor` (updated inside the compiled kernel) keeps only what :func:`~rcpstab.phaseplane.verdicts.classify` needs:
per-window peaks of the band distance, equilibrium crossings and the last time out of band.
"""
from __future__ import annotations

import math

import numpy as np

from .integrator import BatchIntegrator
from .trajectory import Trajectory
from .verdicts import WINDOW_RTT, Envelope, band_distance


class EnvelopeMonitor:
    """What the compiled kernel updates after every step of a :class:`BatchIntegrator` (pass it to
    ``run``) to build an :class:`Envelope`: the running window's peak and crossings, the last
    step out of the band, and the finished windows.

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
        self.gamma_eq = np.broadcast_to(model.gamma(*eq, *values), (size,)).astype(float)
        self.queue_eq = np.broadcast_to(model.queue(*eq, *values), (size,)).astype(float)
        self.d0 = float(np.max(model.time_scale(*values)))
        self.queue_scale = np.broadcast_to(model.queue_scale(*values), (size,)).astype(float)
        self.steps_per_rtt = self.d0 / integrator.dt
        self.window_steps = max(1, int(round(WINDOW_RTT * self.steps_per_rtt)))
        self.peak = np.zeros(size)
        self.crossing = np.zeros(size, dtype=np.int64)
        gamma = model.gamma(*integrator.states, *values)
        self.above = np.broadcast_to(gamma > self.gamma_eq, (size,)).astype(np.uint8)
        self.last_out = np.zeros(size)  # in steps
        self.peaks: list = []
        self.crossings: list = []

    def add_windows(self, peaks: np.ndarray, crossings: np.ndarray) -> None:
        """Append windows finished by the kernel (arrays of shape (n_windows, B))."""
        self.peaks.extend(peaks)
        self.crossings.extend(crossings)

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
            setattr(self, name, np.ascontiguousarray(getattr(self, name)[mask]))
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
