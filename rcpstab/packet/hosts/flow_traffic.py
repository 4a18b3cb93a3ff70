"""Flow traffic as data: flow-size distributions and arrival processes (thesis Ch. 4).

Sizes are drawn as real numbers and rounded up to whole data packets (a flow has at least
one). :attr:`SizeDistribution.mean_packets` is the exact mean of those whole-packet sizes,
so the arrival rate ``lambda = rho * C / (mean_packets * packet_bytes * 8)`` gives exactly
the offered load rho (thesis: rho = lambda E[L] / C).

Arrivals are Poisson (exponential gaps) or, as in thesis Sec. 4.2.4, have Pareto gaps with
the same mean. Everything is drawn from ``numpy.random.default_rng(seed)``: one seed fixes
a run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import InputError

__all__ = ["ArrivalProcess", "SizeDistribution", "parse_arrivals", "parse_sizes"]


def _pareto_scale(mean: float, shape: float) -> float:
    """Minimum x_m of a Pareto law with this mean: mean = shape x_m / (shape - 1)."""
    return mean * (shape - 1) / shape


def _ceil_at_least_one(x: np.ndarray) -> np.ndarray:
    packets: np.ndarray = np.maximum(np.ceil(x), 1).astype(np.int64)
    return packets


@dataclass(frozen=True)
class SizeDistribution:
    """Flow sizes in data packets.

    Parameters
    ----------
    kind : {"pareto", "exponential", "fixed"}
    mean : float
        Mean of the real-valued law before rounding up, packets (> 0). For ``fixed``, the size.
    shape : float
        Pareto shape (> 1 so the mean exists); unused otherwise.

    Examples
    --------
    >>> d = parse_sizes("fixed:size=3")
    >>> d.mean_packets, d.sample(np.random.default_rng(0), 2).tolist()
    (3.0, [3, 3])
    """

    kind: str
    mean: float
    shape: float = 1.2

    @property
    def mean_packets(self) -> float:
        """Exact mean of the whole-packet sizes ``max(1, ceil(X))``, packets."""
        if self.kind == "pareto":
            from scipy.special import zeta  # 0.25 s of import, for Pareto sizes only

            xm = _pareto_scale(self.mean, self.shape)
            if xm < 1:  # ceil(X) >= 1 everywhere: sum over k >= 1 of P(X > k), plus P(X > 0) = 1
                below: float = 1.0 + xm**self.shape * float(zeta(self.shape, 1))
                return below
            above: float = math.ceil(xm) + xm**self.shape * float(zeta(self.shape, math.ceil(xm)))
            return above
        if self.kind == "exponential":
            return 1.0 / (1.0 - math.exp(-1.0 / self.mean))
        return float(max(math.ceil(self.mean), 1))

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` sizes in whole packets (int64, >= 1)."""
        if self.kind == "pareto":
            return _ceil_at_least_one(_pareto_scale(self.mean, self.shape) * (1.0 + rng.pareto(self.shape, n)))
        if self.kind == "exponential":
            return _ceil_at_least_one(rng.exponential(self.mean, n))
        return np.full(n, max(math.ceil(self.mean), 1), dtype=np.int64)

    def __str__(self) -> str:
        if self.kind == "pareto":
            return f"pareto:mean={self.mean:g},shape={self.shape:g}"
        return f"exponential:mean={self.mean:g}" if self.kind == "exponential" else f"fixed:size={self.mean:g}"


@dataclass(frozen=True)
class ArrivalProcess:
    """Gaps between flow arrivals: ``poisson`` (exponential) or ``pareto`` with ``shape`` (> 1)."""

    kind: str = "poisson"
    shape: float = 1.2

    def gaps(self, rng: np.random.Generator, n: int, rate_per_s: float) -> np.ndarray:
        """``n`` gaps with mean ``1 / rate_per_s``, seconds."""
        mean = 1.0 / rate_per_s
        if self.kind == "pareto":
            return _pareto_scale(mean, self.shape) * (1.0 + rng.pareto(self.shape, n))
        return rng.exponential(mean, n)

    def __str__(self) -> str:
        return f"pareto:shape={self.shape:g}" if self.kind == "pareto" else "poisson"


def _parse_spec(text: str, what: str) -> tuple[str, dict[str, float]]:
    """``kind:key=value,key=value`` -> (kind, {key: value}); InputError naming ``text`` otherwise."""
    kind, _, rest = text.strip().partition(":")
    params: dict[str, float] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, value = item.partition("=")
        try:
            if not eq:
                raise ValueError
            params[key.strip()] = float(value)
        except ValueError:
            raise InputError(f"{what} {text!r}: {item!r} is not key=number") from None
    return kind.strip().lower(), params


MAX_MEAN_PKTS = 1e9  # a terabyte per flow; also keeps whole-packet sizes inside int64

_SIZE_KEYS = {"pareto": {"mean", "shape"}, "exponential": {"mean"}, "fixed": {"size", "mean"}}


def parse_sizes(text: str) -> SizeDistribution:
    """Parse ``pareto:mean=25,shape=1.2``, ``exponential:mean=25`` or ``fixed:size=25``.

    Raises
    ------
    InputError
        Unknown distribution, unknown or missing key, non-number, mean <= 0, shape <= 1.
    """
    kind, params = _parse_spec(text, "--sizes")
    if kind not in _SIZE_KEYS:
        raise InputError(f"--sizes {text!r}: unknown distribution {kind!r} (known: {', '.join(_SIZE_KEYS)})")
    unknown = set(params) - _SIZE_KEYS[kind]
    if unknown:
        raise InputError(
            f"--sizes {text!r}: {kind} takes {', '.join(sorted(_SIZE_KEYS[kind]))}, not {', '.join(sorted(unknown))}"
        )
    mean = params.get("size", params.get("mean"))
    if mean is None:
        raise InputError(f"--sizes {text!r}: give the {'size' if kind == 'fixed' else 'mean'} in packets")
    if not (math.isfinite(mean) and 0 < mean <= MAX_MEAN_PKTS):
        raise InputError(f"--sizes {text!r}: size {mean:g} must be a positive number of packets, at most {MAX_MEAN_PKTS:g}")
    shape = params.get("shape", 1.2)
    if kind == "pareto" and not (math.isfinite(shape) and shape > 1):
        raise InputError(f"--sizes {text!r}: Pareto shape {shape:g} must be > 1 (finite mean)")
    return SizeDistribution(kind, mean, shape)


def parse_arrivals(text: str) -> ArrivalProcess:
    """Parse ``poisson`` or ``pareto:shape=1.2`` (thesis Sec. 4.2.4)."""
    kind, params = _parse_spec(text, "--arrivals")
    if kind == "poisson" and not params:
        return ArrivalProcess()
    if kind == "pareto" and set(params) <= {"shape"}:
        shape = params.get("shape", 1.2)
        if not (math.isfinite(shape) and shape > 1):
            raise InputError(f"--arrivals {text!r}: Pareto shape {shape:g} must be > 1")
        return ArrivalProcess("pareto", shape)
    raise InputError(f"--arrivals {text!r}: expected poisson or pareto:shape=S")
