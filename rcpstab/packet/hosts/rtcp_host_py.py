"""The R-TCP end host's transport logic, written once for both Python twins: twin of ``csrc/rtcp_host.h``.

The packet simulator's twin (:mod:`..simulator.sim_py`) and the flow-level one
(:mod:`..simulator.flows_py`) keep their own flow objects; each has the host attributes these
functions read and write (``rate``, ``srtt_ns``, ``min_rtt_ns``, ``wnd``, ``snd_una``, ``snd_nxt``,
``recover``, ``dupacks``, ``in_recovery``, ``send_pending``, ``refresh_pending``, ``next_send_ns``,
``send_at_ns``, ``last_send_ns``, ``last_progress_ns``). The functions change host state only and
tell the caller what to do; packets, events and a flow's lifetime stay with the simulator.
Change this file and ``csrc/rtcp_host.h`` together.
"""

from __future__ import annotations

from typing import Any

from ..wire.rcp_header import PROTO_TCP, RTT_UNKNOWN, rate_is_unspecified

__all__ = [
    "DUPACK_THRESHOLD",
    "REPLY_KIND",
    "RTCP_ACK",
    "RTCP_DATA",
    "RTCP_REF",
    "RTCP_REFACK",
    "RTCP_SEND_NOW",
    "RTCP_SYN",
    "RTCP_SYNACK",
    "RTCP_WAIT",
    "RTCP_WAIT_SCHEDULE",
    "RTO_INITIAL_NS",
    "RTO_MIN_NS",
    "RTT_FIELD_MAX",
    "TO_RECEIVER",
    "ack_seq",
    "arm_refresh",
    "data_sent",
    "fill_data_header",
    "fill_header",
    "fill_syn_header",
    "go_back",
    "on_synack",
    "pace",
    "pace_ns",
    "refresh_due",
    "rto_ns",
    "rtt_sample",
    "send_event",
    "take_rate",
    "timed_out",
]

NS_PER_MS = 1_000_000
RTO_MIN_NS = 200 * NS_PER_MS
RTO_INITIAL_NS = 1_000_000_000
DUPACK_THRESHOLD = 3
RTT_FIELD_MAX = 0xFFFE
RTCP_SEND_NOW, RTCP_WAIT, RTCP_WAIT_SCHEDULE = range(3)
# The packets of an R-TCP connection, the same codes in both simulators; REF/REFACK: ns-2's rate-refresh probe
RTCP_SYN, RTCP_SYNACK, RTCP_DATA, RTCP_ACK, RTCP_REF, RTCP_REFACK = range(6)
# Tables by kind (C: rtcp_to_receiver, rtcp_reply_kind; a lookup, not a call, on the per-hop path):
# SYN, data and probes travel to the receiver (the forward path), the rest back to the sender;
# the receiver's reply to each kind.
TO_RECEIVER = (True, False, True, False, True, False)
REPLY_KIND = (RTCP_SYNACK, RTCP_ACK, RTCP_ACK, RTCP_ACK, RTCP_REFACK, RTCP_ACK)


def fill_header(rate: int, reverse: int, rtt: int, proto: int) -> bytearray:
    """Sender side: the 12 header bytes with all four fields written."""
    return bytearray(rate.to_bytes(4, "big") + reverse.to_bytes(4, "big") + rtt.to_bytes(2, "big") + bytes([proto, 0]))


def fill_syn_header(request: int) -> bytearray:
    """The SYN carries the desired rate; its RTT is unknown (all ones), so routers do not average in a zero RTT."""
    return fill_header(request, 0, RTT_UNKNOWN, PROTO_TCP)


def fill_data_header(request: int, h: Any) -> bytearray:
    """A data packet's header, and a rate-refresh probe's: the smoothed RTT in ms, capped below "unknown"."""
    return fill_header(request, 0, min(h.srtt_ns // NS_PER_MS, RTT_FIELD_MAX), PROTO_TCP)


def pace_ns(h: Any, data_size: int) -> int:
    """One data packet per pacing interval at the flow's rate, ns (one datagram per data_size/rate)."""
    result: int = data_size * NS_PER_MS // h.rate
    return result


def take_rate(h: Any, reverse: int, data_size: int, window_denominator: int, rwnd_pkts: int, rate_refresh: bool) -> int:
    """A valid reverse field sets rate and window (and re-paces, ns-2's rate_change): 1; unspecified: 0."""
    if rate_is_unspecified(reverse):
        return 0
    h.rate = reverse
    if rate_refresh and h.last_send_ns >= 0:
        h.next_send_ns = h.last_send_ns + pace_ns(h, data_size)
    denom = NS_PER_MS * window_denominator
    wnd = (reverse * h.srtt_ns + denom - 1) // denom
    h.wnd = 1 if wnd < 1 else min(wnd, rwnd_pkts)
    return 1


def pace(h: Any, now: int, data_size: int, rate_refresh: bool) -> int:
    """RTCP_SEND_NOW (next send set one interval on), RTCP_WAIT_SCHEDULE (schedule a send) or RTCP_WAIT."""
    if now < h.next_send_ns:
        if not h.send_pending or (rate_refresh and h.next_send_ns < h.send_at_ns):
            h.send_pending = 1
            h.send_at_ns = h.next_send_ns
            return RTCP_WAIT_SCHEDULE
        return RTCP_WAIT
    h.next_send_ns = now + pace_ns(h, data_size)
    h.last_send_ns = now
    return RTCP_SEND_NOW


def send_event(h: Any, t: int, rate_refresh: bool) -> None:
    """A send event at ``t`` fired: it clears the pending send unless a re-paced one replaced it."""
    if not rate_refresh or t == h.send_at_ns:
        h.send_pending = 0


def arm_refresh(h: Any, now: int, rate_refresh: bool) -> bool:
    """True: the caller schedules a refresh probe at now + min_rtt_ns (next packet over a minimum RTT away)."""
    if not rate_refresh or h.refresh_pending or h.next_send_ns - now <= h.min_rtt_ns:
        return False
    h.refresh_pending = 1
    return True


def refresh_due(h: Any, now: int) -> bool:
    """The refresh event fired: True if the next packet is still over a minimum RTT away."""
    h.refresh_pending = 0
    result: bool = h.next_send_ns - now > h.min_rtt_ns
    return result


def on_synack(h: Any, now: int, ts: int) -> None:
    """The first RTT sample, from the SYN-ACK: the connection is up."""
    h.srtt_ns = now - ts
    h.min_rtt_ns = h.srtt_ns
    h.last_progress_ns = now


def rtt_sample(h: Any, now: int, ts: int) -> None:
    """An ACK's RTT sample (TCP's 7/8 average) and the minimum."""
    h.srtt_ns = (7 * h.srtt_ns + (now - ts)) // 8
    if now - ts < h.min_rtt_ns:
        h.min_rtt_ns = now - ts


def go_back(h: Any) -> None:
    """Go-back-N from the first unacknowledged packet."""
    h.recover = h.snd_nxt
    h.in_recovery = 1
    h.snd_nxt = h.snd_una
    h.dupacks = 0


def ack_seq(h: Any, seq: int, now: int) -> tuple[int, bool]:
    """(packets newly acknowledged, whether this is the third duplicate ACK)."""
    if seq > h.snd_una:
        newly = seq - h.snd_una
        h.snd_una = seq
        h.dupacks = 0
        h.last_progress_ns = now
        if h.snd_una >= h.recover:
            h.in_recovery = 0
        return newly, False
    if seq == h.snd_una and h.snd_nxt > h.snd_una and not h.in_recovery:
        h.dupacks += 1
        return 0, h.dupacks == DUPACK_THRESHOLD
    return 0, False


def rto_ns(h: Any, established: bool) -> int:
    """The retransmission timeout: 2 srtt, at least 200 ms; 1 s before the connection is up."""
    if not established:
        return RTO_INITIAL_NS
    result: int = max(2 * h.srtt_ns, RTO_MIN_NS)
    return result


def timed_out(h: Any, now: int, rto: int) -> bool:
    """Data outstanding and no progress for a whole timeout."""
    result: bool = h.snd_nxt > h.snd_una and now - h.last_progress_ns >= rto
    return result


def data_sent(h: Any, now: int) -> None:
    """Data packet snd_nxt has left: the timer's progress clock starts with the first outstanding one."""
    if h.snd_una == h.snd_nxt:
        h.last_progress_ns = now
    h.snd_nxt += 1
