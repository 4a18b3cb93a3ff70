"""Past the boundary: bifurcation diagrams of RCP's limit cycles and the criticality of its Hopf points.

- :func:`bifurcation_sweep` continues a model's attractor along one gain, up and down, batched,
  and returns a :class:`BifurcationDiagram` (amplitude, period, hysteresis per point).
- :func:`hopf_point` / :func:`first_lyapunov`: normal form (first Lyapunov coefficient,
  amplitude law) of a delay model's Hopf point, from its symbolic spec.
- :func:`continue_from_hopf` (:mod:`.periodic`): periodic orbits, stable and unstable, of a smooth
  delay model continued from a Hopf point through folds, with their Floquet multipliers.
"""

from .continuation import bifurcation_sweep
from .lyapunov import HopfPoint, first_lyapunov, hopf_point
from .periodic import OrbitBranch, continue_from_hopf
from .result import BifurcationDiagram

__all__ = [
    "BifurcationDiagram",
    "HopfPoint",
    "OrbitBranch",
    "bifurcation_sweep",
    "continue_from_hopf",
    "first_lyapunov",
    "hopf_point",
]
