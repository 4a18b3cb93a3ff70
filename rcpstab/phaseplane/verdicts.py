"""Verdicts on phase-plane trajectories: the judgement of :mod:`rcpstab.verdicts.judgement`, re-exported.

The rules (converged, limit cycle, diverged, undecided; the measured convergence time; the
envelope's decay rate with its uncertainty; a limit cycle's amplitude and period) live in
:mod:`rcpstab.verdicts.judgement`, shared by every lens. This module keeps the names the phase
plane's callers import, and :func:`classify`, the judgement of an envelope whose floor is the
band itself (everything that stays inside the band counts as settled), for noisy traces whose
noise floor is not measured separately.
"""

from __future__ import annotations

import numpy as np

from ..verdicts.judgement import (  # noqa: F401  (re-exported)
    BLOCK_WINDOWS,
    CONVERGED,
    DIVERGED,
    DIVERGED_BAND,
    LIMIT_CYCLE,
    NUMERICAL_FLOOR,
    QUEUE_BAND,
    RATE_BAND,
    UNDECIDED,
    VERDICTS,
    WINDOW_RTT,
    Envelope,
    Judgement,
    band_distance,
    judge_envelope,
)

__all__ = [
    "CONVERGED",
    "DIVERGED",
    "Envelope",
    "Judgement",
    "LIMIT_CYCLE",
    "UNDECIDED",
    "VERDICTS",
    "Verdicts",
    "band_distance",
    "classify",
    "judge_envelope",
]

TREND = 0.1  # relative change treated as noise by the packet verdicts (kept for their import)

Verdicts = Judgement  # the phase plane's verdicts are judgements (codes, convergence_rtt, next_horizon_rtt, ...)


def classify(env: Envelope, final: bool = False) -> Judgement:
    """Judge ``env`` with the band as the floor: a trace that stays inside the band has converged.

    This is :func:`~rcpstab.verdicts.judgement.judge_envelope` with ``floor_peaks = peaks``, for
    traces whose noise is as large as the band. Traces with a measured noise floor should call
    :func:`~rcpstab.verdicts.judgement.judge_trace` with it instead.
    """
    env = Envelope(
        env.peaks,
        env.crossings,
        env.last_out_rtt,
        env.horizon_rtt,
        env.window_rtt,
        floor_peaks=np.asarray(env.peaks),
        rate_peaks=env.rate_peaks,
        queue_peaks=env.queue_peaks,
    )
    return judge_envelope(env, final=final, noise_floor=True)
