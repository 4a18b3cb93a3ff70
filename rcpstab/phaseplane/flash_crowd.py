"""Flash crowds in the fluid models: N flows become ``factor * N`` while the system sits at equilibrium."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..models import as_model
from ..models.spec import ModelSpec
from .trajectory import simulate

__all__ = ["FLASH_FACTOR", "flash_crowd_peak_queue"]

FLASH_FACTOR = 10  # the flash crowd: N flows become 10 N (rcp-ac.txt Fig. 1 has 10 -> 100)


def flash_crowd_peak_queue(
    model: ModelSpec,
    params: dict[str, Any],
    N: float = 10,
    factor: float = FLASH_FACTOR,
    t_jump: float = 2.0,
    t_end: float = 12.0,
) -> np.ndarray:
    """Peak queue after N flows become ``factor * N`` at ``t_jump``, for each trajectory of a batch.

    The system starts at equilibrium (R = C/N, q = 0; a model with more states, such as RCP-AC's
    aggregate input rate y, starts at its own equilibrium through the model's initial state); the
    new flows start at rate 0 and are brought to R by the controllers, as in rcp-ac.txt Fig. 1.

    Parameters
    ----------
    model : ModelSpec
        A model that declares its flows parameter (N for RCP) and its queue unit.
    params : dict
        Model parameters by name (``alpha``, ``beta``, ``C`` bit/s, ``d0`` s, ``T`` s, ...); any
        may be an array over the batch, except the delays.
    N : float
        Flows before the crowd.
    factor : float
        Flows after the crowd, as a multiple of ``N``.
    t_jump, t_end : float
        Crowd arrival and end of the run (s).

    Returns
    -------
    ndarray, shape (B,)
        Largest queue after ``t_jump``, in the model's queue unit (bandwidth-delay products C*d0 for RCP).
    """
    model = as_model(model)
    run = simulate(
        model, {**params, model.flow_parameter(): N}, {"gamma0": 1.0 / N, "q0": 0.0}, t_end, n_schedule=[(t_jump, factor * N)]
    )
    after = run.t >= t_jump
    peak: np.ndarray = run.queue[after].max(axis=0) / run.queue_scale
    return peak
