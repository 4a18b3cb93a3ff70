"""Nonlinear work of a check: phase-plane verdicts and step responses of the ``rcp`` fluid model.

Each task is one network of the envelope, so the tasks run in parallel on
:func:`~rcpstab.runtime.executors.run_chunks`. The step responses start at the old
equilibrium (the history before t = 0 is constant), which is what a load step looks like to
a router that had settled: the load doubles (N -> 2 N from R = eta*C/N, so R(0) = 2 Re and
q(0) = 0, the start of thesis Figs. 5.10-5.13 and 7.1) and a flash crowd (N -> 10 N). Every
verdict is the one judgement (:mod:`rcpstab.verdicts.judgement`, through
:func:`~rcpstab.phaseplane.decide`), whose horizon grows until the trajectory is decided: a
flash crowd that drains slowly gets its measured convergence time, not "not converged"; a
time past the last horizon is only ever a labelled estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..models import get_model
from ..phaseplane import decide, simulate
from ..phaseplane.sweep import initial_conditions
from ..runtime.executors import run_chunks

FLASH_CROWD = 10.0  # N -> 10 N
LOAD_DOUBLING = 2.0  # N -> 2 N (thesis Figs. 5.10-5.13, 7.1)
HORIZON_FACTOR = 10.0  # last horizon over the slowest allowed convergence: a failing one is measured, not extrapolated
MIN_HORIZON_RTT = 1000.0  # decide's own last horizon
WORST_FIRST = ("diverged", "limit_cycle", "undecided", "converged")  # a network's verdict is its worst trajectory's


@dataclass(frozen=True)
class StepResult:
    """Response of one network to a load step.

    Attributes
    ----------
    verdict : str
        One of :data:`~rcpstab.phaseplane.verdicts.VERDICTS` once decided (or at the last horizon).
    convergence_rtt : float
        Last exit from the convergence band (:data:`~rcpstab.verdicts.band.STANDARD`), RTTs, measured;
        NaN unless converged and observed.
    peak_queue_bdp : float
        Largest queue up to the horizon the verdict needed, in bandwidth-delay products C*d0
        (at most the buffer).
    dropped_bdp : float
        Volume the full buffer dropped up to that horizon, C*d0.
    convergence_estimate_rtt : float
        Extrapolated time into the band (RTTs) when the trajectory was still converging at the
        last horizon (its model in the judgement); NaN otherwise.
    """

    verdict: str
    convergence_rtt: float
    peak_queue_bdp: float
    dropped_bdp: float = 0.0
    convergence_estimate_rtt: float = float("nan")

    @property
    def time_rtt(self) -> float:
        """The measured time, else the labelled estimate, else inf (not converged)."""
        if self.verdict != "converged":
            return float("inf")
        return next((t for t in (self.convergence_rtt, self.convergence_estimate_rtt) if np.isfinite(t)), float("inf"))


@dataclass(frozen=True)
class NetworkResult:
    """Everything the nonlinear checks learnt about one network.

    Attributes
    ----------
    network : dict
        Model parameters (see :func:`~rcpstab.check.envelope.network`).
    verdict : str
        Worst verdict from App. E's six initial conditions.
    convergence_rtt : float
        Slowest convergence from those conditions, RTTs (NaN unless all converged).
    doubling, flash_crowd : StepResult or None
        After the load doubles (N -> 2 N from the old equilibrium: R(0) = 2 Re, empty queue,
        thesis Figs. 5.10-5.13 and 7.1) and after N -> 10 N from the old equilibrium. None for a
        stability-only task.
    """

    network: dict
    verdict: str
    convergence_rtt: float
    doubling: StepResult | None = None
    flash_crowd: StepResult | None = None


def step_responses(network: dict, alpha: float, beta: float, horizon_rtt: float) -> list[StepResult]:
    """Load doubling and flash crowd of one network, decided as one batch within ``horizon_rtt`` RTTs."""
    n, eta = network["N"], network["eta"]
    params = dict(network, alpha=alpha, beta=beta, N=np.array([LOAD_DOUBLING * n, FLASH_CROWD * n]))
    # both start at the old equilibrium of N flows, eta/N, with an empty queue
    initial = {"gamma0": np.full(2, eta / n), "q0": 0.0}
    model = get_model("rcp")
    judged = decide(model, params, initial, max_horizon_rtt=horizon_rtt)
    # the peak queue over the same time the verdict needed (decide keeps envelopes, not traces)
    traj = simulate(model, params, initial, t_end=max(judged.next_horizon_rtt, 1.0) * network["d0"])
    bdp = traj.capacity * traj.d0
    peaks = traj.queue.max(axis=0) / bdp
    dropped = traj.states["dropped"][-1] / bdp if "dropped" in traj.states else np.zeros_like(peaks)
    return [
        StepResult(str(v), float(c), float(p), dropped_bdp=float(x), convergence_estimate_rtt=float(e))
        for v, c, p, x, e in zip(judged.names, judged.convergence_rtt, peaks, dropped, judged.convergence_estimate_rtt)
    ]


def stability(network: dict, alpha: float, beta: float) -> tuple[str, float]:
    """Worst verdict and slowest convergence (RTTs, NaN unless all converge) from App. E's six conditions."""
    gammas, queues = initial_conditions(network["C"], network["d0"], network["N"], "appE")
    queues = np.minimum(queues, network.get("buffer", np.inf))  # App. E's full queue (2 C*d0) held to the buffer
    verdicts = decide(get_model("rcp"), dict(network, alpha=alpha, beta=beta), {"gamma0": gammas.ravel(), "q0": queues.ravel()})
    names = set(verdicts.names)
    worst = next(v for v in WORST_FIRST if v in names)
    # the slowest measured time (NaN if one was only estimated: never report an unobserved time)
    return worst, float(np.max(verdicts.convergence_rtt)) if worst == "converged" else float("nan")


def network_task(network: dict, alpha: float, beta: float, horizon_rtt: float | None) -> NetworkResult:
    """Stability verdict from App. E's conditions and, unless ``horizon_rtt`` is None, the step responses."""
    steps = step_responses(network, alpha, beta, horizon_rtt) if horizon_rtt else [None, None]
    return NetworkResult(network, *stability(network, alpha, beta), *steps)


def step_horizon_rtt(*limits_rtt: float) -> float:
    """Last horizon (RTTs) of the step responses: long enough to measure how far past the slowest
    allowed convergence a failing one is (beyond it a steady decay's time is only estimated)."""
    return max(MIN_HORIZON_RTT, HORIZON_FACTOR * max(limits_rtt))


def run_networks(tasks: list[tuple], workers: int) -> list[NetworkResult]:
    """Run :func:`network_task` on every ``(network, alpha, beta, horizon_rtt)``, in parallel.

    Returns the results in the order of ``tasks``.
    """
    results = [None] * len(tasks)
    for i, result in run_chunks(network_task, tasks, workers):
        results[i] = result
    return results
