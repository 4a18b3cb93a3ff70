"""Stability regions over (alpha, beta): exact, Bode and Nyquist engines and margins.

Every engine returns a :class:`~rcpstab.linear.result.RegionMap`.
"""

from .result import RegionMap

__all__ = ["RegionMap"]
