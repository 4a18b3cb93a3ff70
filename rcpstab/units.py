"""Human-readable quantities for summaries and figure captions (values stay SI everywhere else)."""

from __future__ import annotations

__all__ = ["rate_text"]

_RATE_UNITS = ((1e12, "Tb/s"), (1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s"), (1.0, "b/s"))


def rate_text(bps: float) -> str:
    """A link rate in the largest unit that keeps it >= 1.

    Examples
    --------
    >>> rate_text(56e3), rate_text(0.15e9), rate_text(1e12)
    ('56 kb/s', '150 Mb/s', '1 Tb/s')
    """
    for scale, unit in _RATE_UNITS:
        if abs(bps) >= scale:
            return f"{bps / scale:.4g} {unit}"
    return f"{bps:.4g} b/s"
