"""Past the boundary: bifurcation diagrams of RCP's limit cycles and the criticality of its Hopf points.

- :func:`~.lyapunov.hopf_point` / :func:`~.lyapunov.first_lyapunov`: normal form (first Lyapunov
  coefficient, amplitude law) of a delay model's Hopf point, from its symbolic spec.
"""
from .lyapunov import HopfPoint, first_lyapunov, hopf_point

__all__ = ["HopfPoint", "first_lyapunov", "hopf_point"]
