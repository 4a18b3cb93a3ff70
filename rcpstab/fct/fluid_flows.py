"""A flow-level fluid model of RCP: the second method behind the high-load regime (issue 24).

Independent of the packet flow simulator (no packets, no App. F register arithmetic, no
hosts): flows are fluid, the router's rate follows the fluid RCP law (thesis eq. 3.2 with
the queue term, eq. 5.1-5.4), and every flow whose data is reaching the router is sent at
the rate the router stamped one round trip earlier.

The single bottleneck of thesis Ch. 4 in the router's time frame, RTPD ``d``:

* flow i arrives at ``a_i`` (SYN sent; the router is next to the sender), its data reach the
  router from ``a_i + d`` (after SYN / SYN-ACK) at rate ``R(t - d)``: the rate stamped on the
  SYN for its first round trip, then the rate its ACKs bring back, both one RTPD old;
* the input rate is ``y(t) = n(t) R(t - d)`` with ``n(t)`` the flows sending;
  the queue obeys ``dq/dt = y - C`` (``q >= 0``, no buffer limit);
* the rate obeys ``dR/dt = R / (C d_c) * (alpha (C - y) - beta q / d_c)``, capped to
  ``[R_min, C]``, with ``d_c = d`` (``rtt="propagation"``) or ``d + q/C`` (``rtt="with_queue"``, the
  RTT the packets carry);
* a flow of ``L`` bits is done when its data have entered the queue (time ``e_i``); its FCT
  is ``e_i - a_i + q(e_i)/C + d/2`` (the last bit's wait and the propagation to the receiver),
  so an alone flow at ``R = C`` takes eq. 4.1's lower bound ``1.5 d + L/C``.

Switches isolate what the model leaves out: ``lag=False`` gives flows the current rate
``R(t)`` (no round trip between the router and the senders); ``quantum_bps`` rounds the
stamped rate to multiples of a quantum with a floor of one quantum, as the packet
simulator's rate register does (integer bytes per ms = 8 kb/s); ``packet_bits`` adds the
packet-scale queue a fluid queue does not have: packets of many paced flows arrive nearly
at random, so below capacity a real queue holds on average about the M/D/1 number
``u^2 / (2 (1 - u))`` packets at input utilisation ``u = y/C`` (Pollaczek-Khinchine,
deterministic service), reached with the relaxation time ``t_pkt / (1 - sqrt(u))^2`` of a
single-server queue (Cohen's, exact for M/M/1; an approximation here) and left to the fluid
queue when ``y >= C``. The router sees it and the rate law's ``beta q / d`` cuts the rate
for it, so the controller settles where ``alpha (C - y) = beta q_packets(y) / d``: below C by
a margin that grows as the bandwidth-delay product in packets shrinks (:func:`rho_star`).

Two more switches add what the packet simulator's hosts and router do with queue spikes:
``window_mss_bits`` gives the senders R-TCP's window, at most ``ceil(r srtt / mss)`` packets in
flight over the RTT the packets now see (``d + q / C`` plus one packet's transmission), with one
smoothed RTT for all senders (TCP's 7/8 average per ACK of the RTT sampled one RTPD earlier);
``window="in_flight"`` makes the window the sender's real limit instead of a rate cap: each
flow keeps its own smoothed RTT (from its SYN's, then the 7/8 average per ACK of the RTT its
bits met) and sends at the stamped rate only while its bits in flight (sent, their ACK not yet
back: a bit sent at ``s`` is acknowledged at ``s + d + q(s)/C`` plus one packet) stay below
``ceil(r srtt / mss)`` packets, so a rate cut or a stretching RTT holds it at once
(``window_shrinks=False``: the window follows the highest rate stamped over the last two
RTPDs, so a rate cut never holds a flow; a counterfactual).
``interval_s`` updates the rate once per control interval from the interval's mean input, as
App. F does. ``rate_trace`` replaces the rate law by a given R(t), e.g. a packet run's.

Time is stepped by ``dt`` (default ``d / 200``); flows finishing inside a step finish at the
exact time their remaining bits run out at the step's rate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..runtime.validation import check_run_cost

__all__ = ["FluidFlowRun", "fluid_flow_run", "fluid_flow_run_bytes", "rho_star", "time_average_in_progress"]


def rho_star(alpha: float, beta: float, bdp_packets: float) -> float:
    """Utilisation at which RCP's rate law balances the packet-scale queue, a fraction of C.

    Solves ``alpha (1 - u) C = beta q(u) / d`` with the M/D/1 mean queue
    ``q(u) = u^2 / (2 (1 - u))`` packets: ``u* = 1 / (1 + sqrt(beta / (2 alpha B)))`` with
    ``B = C d / packet`` the bandwidth-delay product in packets. An offered load above ``u*``
    exceeds what the controller lets the flows send on average, so flows accumulate.

    Examples
    --------
    >>> round(rho_star(0.1, 1.0, 250), 3)    # 20 Mb/s, 0.1 s, 1000-byte packets, Ch. 4 gains
    0.876
    >>> round(rho_star(0.1, 1.0, 30000), 3)  # thesis Fig. 4.1: 2.4 Gb/s
    0.987
    """
    return 1.0 / (1.0 + math.sqrt(beta / (2.0 * alpha * bdp_packets)))


@dataclass
class FluidFlowRun:
    """Result of :func:`fluid_flow_run`.

    Attributes
    ----------
    fct_s : ndarray
        FCT of every flow (arrival order), s; NaN if unfinished at the horizon.
    arrival_s, size_bits : ndarray
        The input.
    t_s, R_bps, queue_bits, sending : ndarray
        Trace per step: time, router rate, queue, flows sending.
    packet_queue_bits : ndarray
        Trace per step: the packet-scale queue above the fluid one (``packet_bits``), bits.
    utilization : float
        Bits entering the queue over C times the span, over the window of :func:`window`.
    """

    fct_s: np.ndarray
    arrival_s: np.ndarray
    size_bits: np.ndarray
    t_s: np.ndarray
    R_bps: np.ndarray
    queue_bits: np.ndarray
    sending: np.ndarray
    capacity_bps: float
    rtt_s: float
    sent_bits: np.ndarray
    packet_queue_bits: np.ndarray | None = None

    def window_utilization(self, t0: float, t1: float) -> float:
        """Bits sent into the queue in ``[t0, t1]`` over ``C (t1 - t0)``."""
        i0, i1 = np.searchsorted(self.t_s, [t0, t1])
        return float((self.sent_bits[i1 - 1] - self.sent_bits[i0]) / (self.capacity_bps * (t1 - t0)))


def time_average_in_progress(arrival_s: ArrayLike, fct_s: ArrayLike, t0: float, t1: float) -> float:
    """Time-average number of flows in progress (arrived, not finished) over ``[t0, t1]``."""
    a = np.asarray(arrival_s, float)
    e = a + np.where(np.isfinite(fct_s), fct_s, np.inf)
    overlap = np.clip(np.minimum(e, t1) - np.maximum(a, t0), 0.0, None)
    return float(overlap.sum() / (t1 - t0))


# Memory of a run, bytes (checked with tracemalloc by benchmarks/bench_packet.py --memory): each step's
# rate (and, with a window, queue) as a float; a trace sample of six Python floats every ten steps; with
# window="in_flight", each flow's cumulative bits at each step of the ring (the run's largest term).
BYTES_PER_STEP = 8
BYTES_PER_TRACE_STEP = 6 * 32 / 10


def fluid_flow_run_bytes(n_steps: int, n_flows: int, ring: int = 0, window: bool = False) -> float:
    """Peak memory of :func:`fluid_flow_run`, bytes: its step histories, trace and ``window="in_flight"`` ring.

    Parameters
    ----------
    n_steps, n_flows, ring : int
        Steps, flows, and the in-flight ring's length in steps (0: none).
    window : bool
        Whether a window keeps a queue history too.

    Returns
    -------
    float

    Examples
    --------
    >>> fluid_flow_run_bytes(10, 1000, ring=2202) > 2202 * 1000 * 8
    True
    """
    return float(n_steps * (BYTES_PER_STEP * (2 if window else 1) + BYTES_PER_TRACE_STEP) + 8.0 * (ring + 2) * n_flows)


def fluid_flow_run(
    alpha: float,
    beta: float,
    *,
    capacity_bps: float,
    rtt_s: float,
    arrival_s: ArrayLike,
    size_bits: ArrayLike,
    rtt: str = "propagation",
    lag: bool = True,
    quantum_bps: float = 0.0,
    dt_s: float | None = None,
    horizon_s: float | None = None,
    fixed_rate_bps: float | None = None,
    packet_bits: float = 0.0,
    window_mss_bits: float = 0.0,
    interval_s: float = 0.0,
    rate_trace: list[Any] | None = None,
    window: str = "rate_cap",
    window_shrinks: bool = True,
) -> FluidFlowRun:
    """Run the flow-level fluid model on given arrivals.

    Parameters
    ----------
    alpha, beta : float
        Gains of the rate law.
    capacity_bps, rtt_s : float
        C (bit/s) and RTPD d (s).
    arrival_s, size_bits : array_like
        Arrival times (s, non-decreasing) and sizes (bits, > 0) of the flows.
    rtt : {"propagation", "with_queue"}
        The delay in the rate law: d, or d + q/C.
    lag : bool
        Senders use the rate stamped one RTPD earlier (True) or the current one.
    quantum_bps : float
        Round the stamped rate to multiples of this (bit/s, floor one quantum); 0: exact.
    dt_s : float, optional
        Time step, s (default d / 200).
    horizon_s : float, optional
        Stop at this time (default: last arrival plus 100 d plus the largest flow at C/100).
    fixed_rate_bps : float, optional
        Hold R at this value (App. A's fixed-rate set-up) instead of the rate law.
    packet_bits : float
        Packet size for the packet-scale queue term (module docstring), bits; 0: none.
    window_mss_bits : float
        The R-TCP sender's window (module docstring), its denominator (the MSS) in bits; needs
        ``packet_bits``; 0: no window, every flow sends at the stamped rate.
    rate_trace : (array_like, array_like), optional
        Times (s, increasing) and rates (bit/s): R is held at the last rate set at or before t
        (the first before it) instead of following the rate law, e.g. a packet run's router
        rate (``FlowRun.trace``), to see what flows do at that rate.
    interval_s : float
        Update the rate once per interval from the input averaged over it and the queue at its
        end, as App. F's control path does every Tr (s, rounded to whole steps); 0: every step.
    window : {"rate_cap", "in_flight"}
        With ``window_mss_bits``: the window as a cap ``min(r, W / RTT)`` on the rate, one
        smoothed RTT for all senders; or as each flow's limit on its bits in flight, with its own
        smoothed RTT (module docstring).
    window_shrinks : bool
        With ``window="in_flight"``: the window follows the current rate (True), or the highest
        rate stamped over the last two RTPDs, so a rate cut does not shrink it (False).

    Returns
    -------
    FluidFlowRun

    Examples
    --------
    >>> r = fluid_flow_run(0.5, 0.4, capacity_bps=1e6, rtt_s=0.1, arrival_s=[0.0], size_bits=[1e5])
    >>> round(float(r.fct_s[0]), 3)   # 1.5 d + L/C
    0.25
    """
    a = np.asarray(arrival_s, float)
    size = np.asarray(size_bits, float)
    C, d = float(capacity_bps), float(rtt_s)
    if not (C > 0 and d > 0 and alpha > 0 and beta >= 0):
        raise InputError(f"C={C}, d={d}, alpha={alpha}, beta={beta}: need C, d, alpha > 0 and beta >= 0")
    if rtt not in ("propagation", "with_queue"):
        raise InputError(f"rtt={rtt!r}: propagation or with_queue")
    if window_mss_bits < 0 or (window_mss_bits > 0 and not packet_bits > 0):
        raise InputError(f"window_mss_bits={window_mss_bits}: must be >= 0, and > 0 only with packet_bits > 0")
    if window not in ("rate_cap", "in_flight"):
        raise InputError(f"window={window!r}: rate_cap or in_flight")
    in_flight = window == "in_flight" and window_mss_bits > 0
    if len(a) != len(size) or len(a) == 0 or np.any(np.diff(a) < 0) or np.any(size <= 0):
        raise InputError("arrivals must be non-decreasing, sizes > 0, equal lengths, at least one flow")
    dt = d / 200 if dt_s is None else float(dt_s)
    every = max(int(round(interval_s / dt)), 1)
    acc_bits = 0.0  # input over the current control interval
    lag_steps = int(round(d / dt)) if lag else 0
    horizon = horizon_s if horizon_s is not None else a[-1] + 100 * d + size.max() / (0.01 * C)
    n_steps = int(math.ceil(horizon / dt)) + 1
    ring = int(math.ceil((d + 1.0) / dt)) + 2 if in_flight else 0
    check_run_cost(
        f"fluid flow run with {len(a)} flows, RTPD {d:g} s, dt {dt:g} s, window={window!r}",
        0.0,
        fluid_flow_run_bytes(n_steps, len(a), ring, window_mss_bits > 0),
    )
    r_min = 1e-6 * C
    R_hist = np.empty(n_steps + 1)
    q_hist = np.zeros(
        n_steps + 1 if window_mss_bits > 0 else 0
    )  # queue the router holds (fluid + packet-scale), for the window's RTT samples
    srtt = d + packet_bits / C  # the senders' smoothed RTT (one for all: they share the queue)
    if rate_trace is not None:
        trace_set_t, trace_set_R = (np.asarray(x, float) for x in rate_trace)
        fixed_rate_bps = float(trace_set_R[0])
    R = C if fixed_rate_bps is None else float(fixed_rate_bps)
    q = q_pkt = 0.0  # fluid queue and the packet-scale queue above it, bits
    fct = np.full(len(a), np.nan)
    start = a + d  # data reach the router
    start_list = start.tolist()  # walked by a pointer: one searchsorted call per step cost more than the step
    nxt = j = 0  # next flow to start sending; first flow whose data reach the router after this step
    act_id = np.empty(0, dtype=np.int64)
    act_left = np.empty(0)
    if in_flight:
        # cumulative bits each flow has sent, at each of the last ``ring`` steps (a bit is
        # acknowledged within d + 1 s of queueing: older ones count as acknowledged)
        cum = np.zeros(len(a))
        cum_hist = np.zeros((ring, len(a)))
        srtt_i = np.full(len(a), d)
        acked_step = -1  # last step whose bits are all acknowledged by now
    trace_t, trace_R, trace_q, trace_n, trace_sent, trace_qp = [], [], [], [], [], []
    sent_total = 0.0
    done = 0
    for k in range(n_steps):
        t = k * dt
        if rate_trace is not None:
            R = float(trace_set_R[max(int(np.searchsorted(trace_set_t, t, side="right")) - 1, 0)])
        R_hist[k] = R
        # Flows whose data reach the router during this step join at its start (dt << d).
        while j < len(start_list) and start_list[j] < t + dt:  # = np.searchsorted(start, t + dt, side="left")
            j += 1
        if j > nxt:
            if in_flight:  # the SYN met the queue of its arrival (the router is next to the sender)
                back = np.clip(np.round(a[nxt:j] / dt).astype(np.int64), 0, max(k - 1, 0))
                srtt_i[nxt:j] = d + q_hist[back] / C + packet_bits / C
            act_id = np.concatenate([act_id, np.arange(nxt, j)])
            act_left = np.concatenate([act_left, size[nxt:j]])
            nxt = int(j)
        r = R_hist[k - lag_steps] if k >= lag_steps else (C if fixed_rate_bps is None else R)
        if quantum_bps > 0:
            r = max(round(r / quantum_bps), 1) * quantum_bps
        if window_mss_bits > 0 and not in_flight:
            # At most ceil(r srtt / mss) packets in flight over the RTT the packets now see.
            rtt_now = d + (q + q_pkt + packet_bits) / C
            r = min(r, math.ceil(r * srtt / window_mss_bits) * packet_bits / rtt_now)
        n = len(act_id)
        y_bits = 0.0
        if n:
            step_bits = r * dt
            if in_flight:
                # bits acknowledged by now: those sent in steps up to acked_step (s + d + q(s)/C + pkt/C <= t)
                while acked_step + 1 < k and (acked_step + 1) * dt + d + (q_hist[acked_step + 1] + packet_bits) / C <= t:
                    acked_step += 1
                acked_step = max(acked_step, k - ring + 1)
                flight = cum[act_id] - (cum_hist[acked_step % ring, act_id] if acked_step >= 0 else 0.0)
                rw = r if window_shrinks else max(float(R_hist[max(k - 3 * lag_steps, 0) : max(k - lag_steps + 1, 1)].max()), r)
                wnd = np.ceil(rw * srtt_i[act_id] / window_mss_bits) * packet_bits
                send = np.minimum(np.clip(np.minimum(step_bits, wnd - flight), 0.0, None), act_left)
                cum[act_id] += send
                cum_hist[k % ring, act_id] = cum[act_id]
                # 7/8 average per ACK (r dt / packet of them this step) of the RTT the acknowledged bits met
                sample = d + (q_hist[max(acked_step, 0)] + packet_bits) / C
                srtt_i[act_id] += (sample - srtt_i[act_id]) * (1.0 - 0.875 ** (step_bits / packet_bits))
                finish = send >= act_left
                y_bits = float(send.sum())
                left_before = act_left
                act_left = act_left - send
            else:
                finish = act_left <= step_bits
                y_bits = float(np.minimum(act_left, step_bits).sum())
                act_left = act_left - step_bits
            q_after = max(q + y_bits - C * dt, 0.0)
            if finish.any():
                ids = act_id[finish]
                if in_flight:
                    t_end = t + left_before[finish] / r
                else:
                    t_end = t + (act_left[finish] + step_bits) / r
                fct[ids] = t_end - a[ids] + q_after / C + d / 2
                done += len(ids)
                keep = ~finish
                act_id, act_left = act_id[keep], act_left[keep]
            q = q_after
        else:
            q = max(q - C * dt, 0.0)
        sent_total += y_bits
        if in_flight:
            q_hist[k] = q + q_pkt
        elif window_mss_bits > 0:
            # TCP's 7/8 average, one step per ACK (r / packet a flow) of an RTT sampled one RTPD ago
            q_hist[k] = q + q_pkt
            sample = d + (q_hist[k - lag_steps] if k >= lag_steps else 0.0) / C + packet_bits / C
            srtt += (sample - srtt) * min(r * dt / (8.0 * packet_bits), 1.0)
        if fixed_rate_bps is None:
            y = y_bits / dt
            if packet_bits > 0:
                u = y / C
                if u < 1:
                    target = packet_bits * u * u / (2.0 * (1.0 - u))
                    relax = packet_bits / C / (1.0 - math.sqrt(u)) ** 2
                else:  # the fluid queue is the queue
                    target, relax = 0.0, packet_bits / C
                q_pkt += (target - q_pkt) * min(dt / relax, 1.0)
            acc_bits += y_bits
            if (k + 1) % every == 0:
                y = acc_bits / (every * dt)
                acc_bits = 0.0
                q_seen = q + q_pkt
                dc = d + q_seen / C if rtt == "with_queue" else d
                R += every * dt * R / (C * dc) * (alpha * (C - y) - beta * q_seen / dc)
                R = min(max(R, r_min), C)
        if k % 10 == 0:
            trace_t.append(t)
            trace_R.append(R)
            trace_q.append(q)
            trace_n.append(n)
            trace_sent.append(sent_total)
            trace_qp.append(q_pkt)
        if done == len(a):
            break
    return FluidFlowRun(
        fct_s=fct,
        arrival_s=a,
        size_bits=size,
        t_s=np.array(trace_t),
        R_bps=np.array(trace_R),
        queue_bits=np.array(trace_q),
        sending=np.array(trace_n),
        capacity_bps=C,
        rtt_s=d,
        sent_bits=np.array(trace_sent),
        packet_queue_bits=np.array(trace_qp),
    )
