"""Fixed-step batched integration of a delay-differential model, in compiled C.

Every trajectory of a batch takes the same fixed steps. Continuous states take a classical
RK4 step, their delayed values read from a ring buffer by Hermite interpolation
(:mod:`.history`: 4th order overall on smooth problems). Where every continuous right-hand side reads only held
values (rcp: dq/dt = N*R(t-d0) - C with R updated every T) one Euler step is exact.
Sampled states are updated every ``interval`` from their right-hand side, then saturated.
Clamps are applied exactly, without smoothing: at the bound the derivative is max(0, rhs)
and the state never goes below it.

The stepping loop is C generated from the model (:mod:`.codegen`), blocks of trajectories
side by side (vectorized) with their ring buffers in cache; the envelope monitor (:mod:`.monitor`) and recording run
inside it, so no Python runs per step. :mod:`.reference` is the same method in NumPy, the
executable specification the tests hold the C kernel to.
"""

from __future__ import annotations

import ctypes
import math

import numpy as np

from .compiled import CompiledModel

GRID_TOLERANCE = 1e-9  # a delay within this many steps of an integer is on the grid


def steps_of(duration, dt: float, what: str) -> float:
    """``duration / dt`` as a scalar number of steps, snapped to an integer when it is one."""
    values = np.unique(np.atleast_1d(np.asarray(duration, dtype=float)))
    if values.size != 1:
        raise ValueError(f"{what} must be the same for every trajectory of a batch")
    steps = float(values[0]) / dt
    return float(round(steps)) if abs(steps - round(steps)) < GRID_TOLERANCE * max(1.0, steps) else steps


def _pointer(array: np.ndarray):
    return array.ctypes.data_as(ctypes.c_void_p)


class BatchIntegrator:
    """A batch of trajectories of one compiled model, advanced step by step.

    Parameters
    ----------
    model : CompiledModel
        The compiled model.
    params : list
        One value per model parameter (``model.param_names`` order): a float, or an
        array of shape (B,) for a parameter that varies over the batch. Delays and sampling
        intervals must be uniform over the batch.
    initial : list of ndarray, shape (B,)
        Initial state (SI units), also the constant history before time 0.
    dt : float
        Step (s). Every delay must be at least one step; every sampling interval must be a
        whole number of steps.
    n_schedule : list of (float, float), optional
        Piecewise-constant number of flows: ``(time_s, N)`` pairs, N taking effect at time_s.
    n_param : str, optional
        The parameter the schedule sets (default: the model's declared ``flows``).
    """

    def __init__(self, model: CompiledModel, params: list, initial: list, dt: float, n_schedule=None, n_param: str | None = None):
        self.model = model
        self.params = list(params)
        self.dt = float(dt)
        self.k = 0
        self.delay_steps = [steps_of(term.delay(*self.params), self.dt, "the delay") for term in model.delayed]
        if any(d < 1 for d in self.delay_steps):
            raise ValueError(f"step {dt} s is longer than a delay of the model")
        self.update_every = {}
        for i, interval in model.interval.items():
            steps = steps_of(interval(*self.params), self.dt, "the sampling interval")
            if steps != round(steps) or steps < 1:
                raise ValueError(f"sampling interval is not a whole number of steps of {dt} s")
            self.update_every[i] = int(steps)
        self.n_index = model.param_names.index(n_param or model.spec.flow_parameter()) if n_schedule else None
        self.n_schedule = sorted(n_schedule or [])
        self._x = np.ascontiguousarray(np.column_stack([np.asarray(x, dtype=float) for x in initial]))
        self._x0 = self._x.copy()
        self.length = int(math.ceil(max(self.delay_steps, default=1))) + 3  # ring buffer: longest delay + 3 steps
        self._ring_values = np.ascontiguousarray(np.repeat(self._x[:, :, None], self.length, axis=2))
        self._ring_slopes = np.zeros_like(self._ring_values)

    @property
    def time(self) -> float:
        """Current time (s)."""
        return self.k * self.dt

    @property
    def size(self) -> int:
        return self._x.shape[0]

    @property
    def states(self) -> list:
        """Current state, one array of shape (B,) per model state."""
        return [self._x[:, i].copy() for i in range(self.model.n_states)]

    def _apply_schedule(self) -> int:
        """Apply the flow counts due now; the number of steps until the next change (or a huge number)."""
        while self.n_schedule and self.n_schedule[0][0] <= self.time + GRID_TOLERANCE * self.dt:
            self.params[self.n_index] = float(self.n_schedule.pop(0)[1])
        if not self.n_schedule:
            return 1 << 62
        return max(1, math.ceil(self.n_schedule[0][0] / self.dt - GRID_TOLERANCE) - self.k)

    def run(self, n_steps: int, monitor=None, record_every: int = 0):
        """Take ``n_steps`` steps.

        Parameters
        ----------
        n_steps : int
        monitor : EnvelopeMonitor, optional
            Updated after every step (:mod:`.monitor`).
        record_every : int
            Record the state after every step whose index is a multiple of this (0: none).

        Returns
        -------
        ndarray, shape (n_records, B, S)
            The recorded states.
        """
        records = []
        while n_steps > 0:
            n = min(n_steps, self._apply_schedule()) if self.n_index is not None else n_steps
            records.append(self._advance(n, monitor, record_every))
            n_steps -= n
        if len(records) == 1:
            return records[0]  # no copy: a large batch records megabytes
        return np.concatenate(records) if records else np.empty((0, self.size, self.model.n_states))

    def _advance(self, n: int, monitor, record_every: int) -> np.ndarray:
        """``n`` steps of the compiled kernel, without a flow-count change inside."""
        size, n_states = self.size, self.model.n_states
        params = np.ascontiguousarray(np.column_stack([np.broadcast_to(p, (size,)) for p in self.params]))
        delay = np.array(self.delay_steps or [0.0])
        every = np.array([self.update_every.get(i, 0) for i in range(n_states)], dtype=np.int64)
        n_records = (self.k + n) // record_every - self.k // record_every if record_every else 0
        recorded = np.empty((n_records, size, n_states))
        window = monitor.window_steps if monitor is not None else 0
        n_windows = (self.k + n) // window - self.k // window if window else 0
        peaks = np.empty((n_windows, size))
        crossings = np.empty((n_windows, size), dtype=np.int64)
        rate_peaks, queue_peaks = np.empty((n_windows, size)), np.empty((n_windows, size))
        m = monitor or _NO_MONITOR
        kernel = self.model.kernel_for(monitor.band) if monitor is not None else self.model.kernel
        failed = kernel.rcpstab_run(
            ctypes.c_long(size),
            ctypes.c_long(n),
            ctypes.c_long(self.k),
            ctypes.c_double(self.dt),
            ctypes.c_long(self.length),
            _pointer(delay),
            _pointer(every),
            _pointer(self._x),
            _pointer(self._ring_values),
            _pointer(self._ring_slopes),
            _pointer(self._x0),
            _pointer(params),
            ctypes.c_long(window),
            *(_pointer(a) for a in (m.gamma_eq, m.queue_eq, m.queue_scale, m.peak, m.crossing, m.above, m.last_out)),
            _pointer(peaks),
            _pointer(crossings),
            ctypes.c_long(record_every),
            _pointer(recorded),
            _pointer(m.rate_peak),
            _pointer(m.queue_peak),
            _pointer(rate_peaks),
            _pointer(queue_peaks),
        )
        if failed:  # the kernel's block buffer (history of one block of trajectories) could not be allocated
            raise MemoryError(f"the {self.model.spec.name} kernel could not allocate its delay line ({self.length} steps)")
        self.k += n
        if monitor is not None:
            monitor.add_windows(peaks, crossings, rate_peaks, queue_peaks)
        return recorded

    def keep(self, mask: np.ndarray) -> None:
        """Continue only the trajectories where ``mask`` is true."""
        self.params = [p[mask] if np.ndim(p) else p for p in self.params]
        self._x, self._x0, self._ring_values, self._ring_slopes = (
            np.ascontiguousarray(a[mask]) for a in (self._x, self._x0, self._ring_values, self._ring_slopes)
        )


class _NoMonitor:
    """Placeholder arrays for a run without a monitor (the kernel never reads them)."""

    def __getattr__(self, name):
        return np.zeros(1)


_NO_MONITOR = _NoMonitor()
