"""Phase-plane lens: batched integration of the nonlinear fluid models, verdicts, sweeps, portraits.

- :func:`simulate` integrates a batch of trajectories and returns a :class:`Trajectory`.
- :func:`decide` judges each trajectory of a batch (:class:`Judgement`: verdict from :data:`VERDICTS`,
  measured convergence time, envelope rate, limit-cycle amplitude and period), integrating the
  undecided ones longer.
- :func:`phaseplane_region` maps the stable (alpha, beta) region over network configurations.
- :mod:`rcpstab.phaseplane.plotting` draws portraits and convergence maps from these results.
"""

from .decide import decide
from .monitor import trajectory_envelope
from .sweep import phaseplane_region
from .trajectory import Trajectory, simulate
from .verdicts import VERDICTS, Envelope, Judgement, Verdicts, classify

__all__ = [
    "VERDICTS",
    "Envelope",
    "Judgement",
    "Trajectory",
    "Verdicts",
    "classify",
    "decide",
    "phaseplane_region",
    "simulate",
    "trajectory_envelope",
]
