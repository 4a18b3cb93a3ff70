"""Verdicts for a batch: integrate, judge the envelope, extend the horizon of the undecided ones.

Slow convergence is not instability (thesis Sec. 5.4: from a full queue some stable points
need well over 100 RTTs), so instead of one fixed horizon the batch is integrated to
:data:`FIRST_HORIZON_RTT`, judged, and only the undecided trajectories continue, as far as
their fitted envelope trend says they need, up to :data:`MAX_HORIZON_RTT`. The horizon at
most doubles per look, so that one slow trajectory does not carry every undecided one of the
batch to its horizon: most are decided (limit cycles, settled) at the next look.
Trajectories whose equilibrium lies outside the saturation bounds
(:func:`~rcpstab.phaseplane.setup.unreachable`) are ``diverged`` without integration: they
settle away from it whatever the gains.
"""
from __future__ import annotations

import math

import numpy as np

from ..models.spec import ModelSpec
from .monitor import EnvelopeMonitor
from .setup import make_integrator, unreachable
from .verdicts import DIVERGED, UNDECIDED, Verdicts, classify

FIRST_HORIZON_RTT = 100.0
MAX_HORIZON_RTT = 1000.0


def decide(model: ModelSpec, params: dict, initial: dict, dt: float | None = None,
           first_horizon_rtt: float = FIRST_HORIZON_RTT, max_horizon_rtt: float = MAX_HORIZON_RTT) -> Verdicts:
    """Verdict and convergence time (RTTs) of every trajectory of a batch.

    Parameters
    ----------
    model, params, initial, dt
        As for :func:`~rcpstab.phaseplane.trajectory.simulate` (params and initial conditions
        may be arrays over the batch).
    first_horizon_rtt, max_horizon_rtt : float
        First look and last possible look (round trips).

    Returns
    -------
    Verdicts
        ``next_horizon_rtt`` is the horizon actually reached (0 if no trajectory could reach its
        equilibrium, so none was integrated). A convergence time beyond it is extrapolated.
    """
    integrator = make_integrator(model, params, initial, dt)
    size = integrator.size
    codes = np.full(size, UNDECIDED)
    convergence = np.full(size, np.nan)
    lost = np.broadcast_to(unreachable(integrator.model, integrator.params), (size,))
    codes[lost] = DIVERGED
    alive = np.flatnonzero(~lost)
    if not alive.size:
        return Verdicts(codes, convergence, 0.0)
    integrator.keep(~lost)
    monitor = EnvelopeMonitor(integrator)
    target = min(first_horizon_rtt, max_horizon_rtt)
    while True:
        integrator.run(math.ceil(target * monitor.steps_per_rtt - 1e-9) - integrator.k, monitor)
        final = target >= max_horizon_rtt
        verdicts = classify(monitor.envelope(integrator.k), final)
        codes[alive] = verdicts.codes
        convergence[alive] = verdicts.convergence_rtt
        undecided = verdicts.codes == UNDECIDED
        if final or not undecided.any():
            return Verdicts(codes, convergence, target)
        alive = alive[undecided]
        integrator.keep(undecided)
        monitor.keep(undecided)
        target = min(max_horizon_rtt, verdicts.next_horizon_rtt, 2 * target)
