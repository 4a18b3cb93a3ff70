"""Envelopes of trajectories: observed online during a sweep, or read from a recorded Trajectory.

A sweep cannot keep every sample of thousands of trajectories over up to 1e5 round trips, so
:class:`EnvelopeMonitor` (updated inside the compiled kernel) keeps only what the judgement
(:func:`~rcpstab.verdicts.judgement.judge_envelope`) needs: per-window peaks of the band distance,
equilibrium crossings and the last step out of the band. Past :data:`MAX_WINDOWS` windows,
pairs of windows are merged (peaks by max, crossings by sum) and the window doubles, so the
memory of a long run stays bounded.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..verdicts.band import STANDARD, Band
from ..verdicts.envelope import WINDOW_RTT, Envelope, trace_envelope
from .integrator import BatchIntegrator
from .trajectory import Trajectory

MAX_WINDOWS = 2048  # windows kept per trajectory before pairs are merged


class EnvelopeMonitor:
    """What the compiled kernel updates after every step of a :class:`BatchIntegrator` (pass it to
    ``run``) to build an :class:`Envelope`: the running window's peak and crossings, the last
    step out of the band, and the finished windows.

    Parameters
    ----------
    integrator : BatchIntegrator
        The batch observed; its parameters fix the equilibrium and C*d0.
    band : Band
        The convergence band distances are measured in (the kernel is compiled for it).
    """

    def __init__(self, integrator: BatchIntegrator, band: Band = STANDARD):
        self.band = band
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
        self.rate_peak = np.zeros(size)  # band units, like peak
        self.queue_peak = np.zeros(size)
        self.crossing = np.zeros(size, dtype=np.int64)
        gamma = model.gamma(*integrator.states, *values)
        self.above = np.broadcast_to(gamma > self.gamma_eq, (size,)).astype(np.uint8)
        self.last_out = np.zeros(size)  # in steps
        self.peaks: list[Any] = []
        self.crossings: list[Any] = []
        self.rate_peaks: list[Any] = []
        self.queue_peaks: list[Any] = []

    def add_windows(
        self,
        peaks: np.ndarray,
        crossings: np.ndarray,
        rate_peaks: np.ndarray | None = None,
        queue_peaks: np.ndarray | None = None,
    ) -> None:
        """Append windows finished by the kernel (arrays of shape (n_windows, B); rate and queue
        peaks in band units)."""
        self.peaks.extend(peaks)
        self.crossings.extend(crossings)
        if rate_peaks is not None:
            assert queue_peaks is not None  # the kernel reports both or neither
            self.rate_peaks.extend(rate_peaks)
            self.queue_peaks.extend(queue_peaks)

    def coarsen(self, k: int) -> None:
        """Merge pairs of windows (and double the window) when more than :data:`MAX_WINDOWS` are
        kept and step ``k`` ends a window of the doubled length (the kernel's running window is then empty)."""
        n = len(self.peaks)
        if n <= MAX_WINDOWS or n % 2 or k % (2 * self.window_steps):
            return
        for name in ("peaks", "rate_peaks", "queue_peaks"):
            values = np.array(getattr(self, name))
            setattr(self, name, list(np.maximum(values[0::2], values[1::2])) if len(values) else [])
        crossings = np.array(self.crossings)
        self.crossings = list(crossings[0::2] + crossings[1::2])
        self.window_steps *= 2

    def envelope(self, k: int) -> Envelope:
        """The envelope after ``k`` steps (complete windows only)."""
        size = self.peak.size
        known = len(self.rate_peaks) == len(self.peaks)
        return Envelope(
            peaks=np.array(self.peaks).reshape(-1, size),
            crossings=np.array(self.crossings).reshape(-1, size),
            last_out_rtt=self.last_out / self.steps_per_rtt,
            horizon_rtt=k / self.steps_per_rtt,
            window_rtt=self.window_steps / self.steps_per_rtt,
            rate_peaks=np.array(self.rate_peaks).reshape(-1, size) * self.band.rate if known else None,
            queue_peaks=np.array(self.queue_peaks).reshape(-1, size) * self.band.queue if known else None,
        )

    def keep(self, mask: np.ndarray) -> None:
        """Follow only the trajectories where ``mask`` is true (as :meth:`BatchIntegrator.keep`)."""
        for name in ("gamma_eq", "queue_eq", "queue_scale", "peak", "rate_peak", "queue_peak", "crossing", "above", "last_out"):
            setattr(self, name, np.ascontiguousarray(getattr(self, name)[mask]))
        for name in ("peaks", "crossings", "rate_peaks", "queue_peaks"):
            setattr(self, name, [p[mask] for p in getattr(self, name)])


def trajectory_envelope(traj: Trajectory, band: Band = STANDARD, **floors: Any) -> Envelope:
    """The :class:`Envelope` of a recorded trajectory (same windows as the online monitor).

    ``floors`` (``rate_floor``, ``queue_floor``) are passed to :func:`~rcpstab.verdicts.envelope.trace_envelope`.
    """
    return trace_envelope(
        traj.rtt, traj.gamma, traj.queue, traj.gamma_eq, traj.queue_eq, np.asarray(traj.queue_scale, dtype=float), band, **floors
    )
