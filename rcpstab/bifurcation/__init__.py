"""Past the boundary: bifurcation diagrams of RCP's limit cycles and the criticality of its Hopf points.

- :func:`bifurcation_sweep` continues a model's attractor along one gain, up and down, batched,
  and returns a :class:`BifurcationDiagram` (amplitude, period, hysteresis per point).
- :func:`hopf_point` / :func:`first_lyapunov`: normal form (first Lyapunov coefficient,
  amplitude law) of a delay model's Hopf point, from its symbolic spec.
"""
from .continuation import bifurcation_sweep
from .lyapunov import HopfPoint, first_lyapunov, hopf_point
from .result import BifurcationDiagram

__all__ = ["BifurcationDiagram", "HopfPoint", "bifurcation_sweep", "first_lyapunov", "hopf_point"]
