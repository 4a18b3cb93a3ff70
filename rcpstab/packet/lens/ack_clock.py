"""XCP's router loop closed by the exact fluid ack clock of window senders (not a registered model).

The router is ``xcp-router``'s: every interval d0 it reads the input averaged over the interval and
the queue, sets phi = alpha d0 (C - y_d) - beta q and spreads it over the next interval. The hosts
differ. ``xcp-router`` (and eq. 16) make the aggregate rate a state, dy/dt = phi/d0**2 one round trip
later. Window senders instead are clocked by their ACKs: what arrives at the router is what left
it one propagation round trip earlier plus the window change, ``y(t) = out(t - d0) + phi/d0``
(stamped one round trip earlier), with ``out = C`` while the queue is not empty and ``out = y`` when
it is. That is a neutral delay equation (y repeats itself one round trip later), which the
ModelSpec machinery (states with right-hand sides) cannot hold; :func:`xcp_loop` integrates it
directly (fixed step, every grid point at once), with the rate-state loop alongside as a check.
``experiments/xcp_ack_clock.py`` compares both with the packet XCP map.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ...verdicts.judgement import judge_trace

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["verdicts", "xcp_loop"]


def xcp_loop(
    alpha: ArrayLike, beta: ArrayLike, ack_clock: bool, rtts: int = 400, per_rtt: int = 100, y0: float = 0.8
) -> tuple[np.ndarray, np.ndarray]:
    """Per-interval mean of y/C and the queue (C*d0) at each interval's end, shape (rtts, B); C = d0 = 1.

    Parameters
    ----------
    alpha, beta : array_like
        Router gains (dimensionless), one trajectory per pair.
    ack_clock : bool
        True: window senders, y(t) = out(t - d0) + phi/d0 (the ack clock); False: the rate as a
        state, dy/dt = phi/d0**2 one round trip later (``xcp-router``'s hosts).
    rtts : int
        Round trips integrated (each one router interval d0).
    per_rtt : int
        Steps per round trip (fixed step d0/per_rtt).
    y0 : float
        Initial input y/C (queue empty).
    """
    alpha, beta = np.atleast_1d(np.asarray(alpha, float)), np.atleast_1d(np.asarray(beta, float))
    size, dt = alpha.size, 1.0 / per_rtt
    out_hist = np.full((per_rtt, size), min(y0, 1.0))  # departures over the last round trip, by step
    fb_hist = np.zeros((per_rtt, size))  # window-change rate stamped over the last round trip
    y = np.full(size, y0)
    q = np.zeros(size)
    phi = np.zeros(size)
    ys, qs = np.empty((per_rtt, size)), np.empty((per_rtt + 1, size))
    means, queues = np.empty((rtts, size)), np.empty((rtts, size))
    # One round trip (one router interval) at a time: every step's input is known at the interval's
    # start (the ack clock repeats last round trip's departures plus the stamps, which all hold one phi;
    # the rate state adds that phi each step), so only the queue stays a loop over steps. The departure
    # is 1 while q > 0 and min(y, 1) when it is empty, so q + (y - out) dt is max(q + (y - 1) dt, 0)
    # in either case, to the bit; the arrays are those of the step-by-step loop, in the same order.
    for r in range(rtts):
        if ack_clock:
            np.maximum(out_hist + fb_hist, 0.0, out=ys)
        else:
            for s in range(per_rtt):
                y = np.maximum(y + fb_hist[s] * dt, 0.0)
                ys[s] = y
        rise = (ys - 1.0) * dt
        qs[0] = q
        if q.any() or (rise > 0.0).any():
            for s in range(per_rtt):
                np.maximum(qs[s] + rise[s], 0.0, out=qs[s + 1])
        else:  # an empty queue and y <= 1 throughout: it stays empty
            qs[1:] = 0.0
        out_hist = np.where(qs[:-1] > 0, 1.0, np.minimum(ys, 1.0))
        fb_hist[:] = phi
        acc = np.cumsum(ys * dt, axis=0)[-1]  # sequential, as the step loop accumulates (no pairwise sum)
        q = qs[-1].copy()
        means[r], queues[r] = acc, q
        phi = alpha * (1.0 - acc) - beta * q  # the router's timeout: phi/d0 with d0 = 1, the window change rate
    return means, queues


def verdicts(alpha: ArrayLike, beta: ArrayLike, ack_clock: bool) -> np.ndarray:
    """Verdict codes of :func:`xcp_loop` at each (alpha, beta), judged on the per-interval mean of y
    as the router sees it (:func:`~rcpstab.verdicts.judgement.judge_trace`)."""
    means, queues = xcp_loop(alpha, beta, ack_clock)
    t = np.arange(1, means.shape[0] + 1, dtype=float)
    return judge_trace(t, means, queues, 1.0, 0.0, 1.0).codes
