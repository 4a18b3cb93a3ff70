"""The networks of an envelope to integrate: its corners and a deterministic sample inside."""

from __future__ import annotations

import itertools
import math

import numpy as np

from .config import CheckConfig

MTU_BITS = 1500 * 8
MODEL_MIN_RATE_FRACTION = 0.01  # the rcp model's MIN_RATE = 0.01 * MTU / d (models/rcp.py)


def halton_points(samples: int) -> np.ndarray:
    """Points 1..``samples`` of the unscrambled Halton sequence in bases 2, 3 and 5, shape (samples, 3).

    Point 0 of the sequence is the origin (an envelope corner, already checked), so the sample
    starts at point 1: (1/2, 1/3, 1/5), (1/4, 2/3, 2/5), (3/4, 1/9, 3/5), ...

    Examples
    --------
    >>> halton_points(3)
    array([[0.5       , 0.33333333, 0.2       ],
           [0.25      , 0.66666667, 0.4       ],
           [0.75      , 0.11111111, 0.6       ]])
    """
    index = np.arange(1, samples + 1)
    return np.column_stack([_radical_inverse(index, base) for base in (2, 3, 5)])


def _radical_inverse(index: np.ndarray, base: int) -> np.ndarray:
    """Van der Corput's radical inverse of each ``index`` in ``base``: its digits mirrored about the point.

    The digits are added from the lowest, each times ``base**-(k+1)`` formed by repeated division,
    the order of SciPy's ``qmc.Halton(scramble=False)``, whose points these equal bit for bit
    (``tests/test_check_envelope.py``); SciPy's statistics package costs ~0.5 s of import.
    """
    value = np.zeros(index.shape)
    quotient = index.copy()
    weight = 1.0 / base
    while quotient.any():
        value += (quotient % base) * weight
        weight /= base
        quotient //= base
    return value


def _log_between(lo: float, hi: float, u: float) -> float:
    return lo if lo == hi else math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))


def network(config: CheckConfig, capacity_bps: float, d0_s: float, flows: float, T: float | None = None) -> dict:
    """Model parameters of one network as the router runs it.

    The update interval is App. F line 13's T = min(avg_rtt, MAX_RATE_ESTIMATION_INTERVAL) at
    equilibrium (empty queue: avg_rtt = d0) unless ``T`` (s) is given. The model's rate floor is
    0.01 * MTU / d, so MIN_RATE_MTU_FRACTION enters as an equivalent MTU.

    The buffer is the envelope's ``buffer_bdp`` bandwidth-delay products of this network: the
    queue is held in [0, buffer] and what overflows is dropped (:mod:`rcpstab.models.rcp`).

    Returns
    -------
    dict
        ``C`` (bit/s), ``d0`` (s), ``N``, ``T`` (s), ``eta``, ``MTU`` (bits), ``buffer`` (bits):
        parameters of the ``rcp`` model.
    """
    router = config.router
    interval = min(d0_s, router.max_interval_ms / 1000.0) if T is None else T
    return {
        "C": float(capacity_bps),
        "d0": float(d0_s),
        "N": float(flows),
        "T": float(interval),
        "eta": router.eta,
        "MTU": MTU_BITS * router.min_rate_mtu_fraction / MODEL_MIN_RATE_FRACTION,
        "buffer": config.envelope.buffer_bdp * float(capacity_bps) * float(d0_s),
    }


def envelope_networks(config: CheckConfig, samples: int) -> list[dict]:
    """The envelope's corners, then ``samples`` points inside (log-uniform, Halton sequence).

    Inside points have d0 rounded to a whole millisecond and N to a whole flow so that the
    integrator's step divides the delay (an unaligned delay needs a 64 times finer step).

    Returns
    -------
    list of dict
        :func:`network` parameters, without duplicates (a range with lo == hi has one corner).
    """
    env = config.envelope
    axes = (np.multiply(env.link_mbps, 1e6), np.divide(env.rtt_ms, 1000.0), env.flows)
    points = [tuple(p) for p in itertools.product(*axes)]
    for u_c, u_d, u_n in halton_points(samples):
        c = _log_between(*axes[0], u_c)
        d = round(_log_between(*axes[1], u_d) * 1000.0) / 1000.0
        n = round(_log_between(*axes[2], u_n))
        points.append((c, min(max(d, axes[1][0]), axes[1][1]), min(max(n, axes[2][0]), axes[2][1])))
    unique = list(dict.fromkeys((float(c), float(d), float(n)) for c, d, n in points))
    return [network(config, c, d, n) for c, d, n in unique]
