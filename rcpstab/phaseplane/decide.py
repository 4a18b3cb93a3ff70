"""Judgements for a batch: integrate, judge the envelope, extend the horizon of the undecided ones.

Slow convergence is not instability (in the low-gain corner a queue built from App. E's start
drains for thousands of round trips, notebook 3), and a slow decay is not a limit cycle, so
instead of one fixed horizon the batch is integrated to :data:`FIRST_HORIZON_RTT`,
judged (:func:`~rcpstab.verdicts.judgement.judge_envelope`), and only the undecided trajectories
continue, their horizon doubling at every look, up to :data:`MAX_HORIZON_RTT`. A trajectory is
decided when it reaches the numerical floor (converged), its envelope is resolved flat (limit
cycle or settled away) or it left every bound (diverged); at the last horizon what remains is
judged on its trend (steady decay: converged, with a measured or a labelled estimated time).
The compiled kernel makes this cheap (benchmarks/bench_phaseplane.py times the App. E sweep),
and only the few undecided trajectories go that far.
Trajectories whose equilibrium lies outside the saturation bounds
(:func:`~rcpstab.phaseplane.setup.unreachable`) are ``diverged`` without integration.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..verdicts.band import STANDARD, Band
from ..verdicts.judgement import DIVERGED, UNDECIDED, Judgement, judge_envelope
from .monitor import EnvelopeMonitor
from .setup import make_integrator, unreachable

if TYPE_CHECKING:
    from ..models.spec import ModelSpec

FIRST_HORIZON_RTT = 100.0
MAX_HORIZON_RTT = 204800.0  # 100 * 2**11: the doubling horizons end exactly here


def decide(
    model: ModelSpec,
    params: dict[str, Any],
    initial: dict[str, Any],
    dt: float | None = None,
    first_horizon_rtt: float = FIRST_HORIZON_RTT,
    max_horizon_rtt: float = MAX_HORIZON_RTT,
    band: Band = STANDARD,
) -> Judgement:
    """Verdict, measured convergence time (RTTs) and envelope trend of every trajectory of a batch.

    Parameters
    ----------
    model, params, initial, dt
        As for :func:`~rcpstab.phaseplane.trajectory.simulate` (params and initial conditions
        may be arrays over the batch).
    first_horizon_rtt, max_horizon_rtt : float
        First look and last possible look (round trips).
    band : Band
        The convergence band (distances, floors and convergence times are measured in it).

    Returns
    -------
    Judgement
        ``horizon_rtt`` per trajectory is how far it was integrated; ``next_horizon_rtt`` the
        largest horizon reached (0 if no trajectory could reach its equilibrium, so none was
        integrated).
    """
    integrator = make_integrator(model, params, initial, dt)
    size = integrator.size
    result = Judgement.empty(size)
    lost = np.broadcast_to(unreachable(integrator.model, integrator.params), (size,))
    result.codes[lost] = DIVERGED
    result.reason[lost] = "equilibrium outside the saturation bounds: unreachable"
    alive = np.flatnonzero(~lost)
    if not alive.size:
        return result
    integrator.keep(~lost)
    monitor = EnvelopeMonitor(integrator, band)
    target = min(first_horizon_rtt, max_horizon_rtt)
    while True:
        steps = math.ceil(target * monitor.steps_per_rtt - 1e-9)
        integrator.run(steps - integrator.k, monitor)
        monitor.coarsen(integrator.k)
        final = target >= max_horizon_rtt
        judged = judge_envelope(monitor.envelope(integrator.k), final)
        result.assign(alive, judged)
        result.next_horizon_rtt = integrator.k / monitor.steps_per_rtt
        undecided = judged.codes == UNDECIDED
        if final or not undecided.any():
            return result
        alive = alive[undecided]
        integrator.keep(undecided)
        monitor.keep(undecided)
        target = min(max_horizon_rtt, 2 * target)
