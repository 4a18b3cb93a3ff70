"""Pure-Python twin of the C packet simulator (``csrc/sim.c``), statement for statement.

It exists as the executable specification of the C event loop and as the baseline of
the speed benchmark; the agreement tests require identical traces from both. Time is
integer nanoseconds and ties are broken by scheduling order, exactly as in C.
"""

from __future__ import annotations

from collections import deque
from dataclasses import asdict
from typing import Any

from ...runtime.validation import check_index_range, check_simulator_integer
from ..hosts import rtcp_host_py as host
from ..hosts.rtcp_sender_py import take_feedback as rtcp_take_feedback
from ..hosts.senders import SENDER_OPS, SENDER_RTCP
from ..hosts.xcp_sender_py import XCP_UNITS_PER_BYTE, xcp_take_feedback
from ..routers.port_ops import PORT_OPS
from ..routers.rcp.datapath_py import PortRegisters, registers_dict, set_registers
from ..routers.xcp.frame_py import XcpState, set_xcp_registers
from .events_py import NS_PER_S, EventLoop

INITIAL_CWND = 2

EV_FLOW_START, EV_FLOW_STOP, EV_SEND, EV_RTO, EV_TX_DONE, EV_DELIVER, EV_REFRESH = range(7)
FS_IDLE, FS_SYN_SENT, FS_ESTAB, FS_DONE = range(4)


class _Packet:
    __slots__ = ("hdr", "size", "kind", "hop", "flow", "seq", "ts")

    def __init__(self, flow: int, kind: int, size: int, seq: int, ts: int) -> None:
        self.hdr = bytearray(12)
        self.flow, self.kind, self.size, self.seq, self.ts = flow, kind, size, seq, ts
        self.hop = 0


def _fields(item: object, what: str, i: int, n: int) -> tuple[Any, ...]:
    """An item of the links or flows list as the C module's parse_item takes it (a tuple or a list of n)."""
    if not isinstance(item, (tuple, list)):
        raise TypeError(f"{what} {i} must be a tuple, not {type(item).__name__}")
    if len(item) != n:
        raise TypeError(f"{what} {i}: function takes exactly {n} arguments ({len(item)} given)")
    return tuple(item)


def check_arguments(
    links: Any, paths: Any, flows: Any, data_size: Any, ctrl_size: Any, window_denominator: Any, rwnd_pkts: Any, sender: Any
) -> tuple[Any, ...]:
    """The constructor's arguments as ints, checked in the C module's order with its errors.

    Every integer is checked against :data:`~rcpstab.runtime.validation.SIMULATOR_INTEGERS`, the
    table ``csrc/module.c`` reads, or against a range the call sets (a path's links, a flow's paths),
    so the twins refuse the same values with the same message (TypeError for a non-integer).

    Returns
    -------
    tuple
        (links, paths, flows, data_size, ctrl_size, window_denominator, rwnd_pkts, sender), ints.
    """
    data_size, ctrl_size = check_simulator_integer("data_size", data_size), check_simulator_integer("ctrl_size", ctrl_size)
    window_denominator = check_simulator_integer("window_denominator", window_denominator)
    rwnd_pkts = check_simulator_integer("rwnd_pkts", rwnd_pkts)
    sender = check_index_range(sender, "sender", 0, len(SENDER_OPS) - 1)
    refused = SENDER_OPS[sender].check(data_size, rwnd_pkts)
    if refused:
        raise ValueError(refused)
    ops = SENDER_OPS[sender]
    if min(data_size, ctrl_size) < ops.header_bytes:
        raise ValueError(
            f"data_size={data_size} and ctrl_size={ctrl_size} must hold the {ops.name} header ({ops.header_bytes} bytes)"
        )
    sequences = []
    for name, seq in (("links", links), ("paths", paths), ("flows", flows)):
        try:
            sequences.append(seq if isinstance(seq, (list, tuple)) else list(seq))
        except TypeError:
            raise TypeError(f"{name} must be a sequence") from None
    links, paths, flows = sequences
    checked_links = []
    for i, link in enumerate(links):
        where = f"link {i}"
        capacity, delay, buffer, proto = _fields(link, "link", i, 4)
        checked_links.append(
            (
                check_simulator_integer("capacity_bps", capacity, where),
                check_simulator_integer("delay_ns", delay, where),
                check_simulator_integer("buffer_bytes", buffer, where),
                check_index_range(proto, "protocol", 0, len(PORT_OPS) - 1, where),
            )
        )
    lengths = [check_simulator_integer("path_links", len(path), f"path {i}") for i, path in enumerate(paths)]
    checked_paths = []
    for i, (path, length) in enumerate(zip(paths, lengths)):
        path = tuple(path)
        if len(path) != length:  # len() and iteration may disagree: the C module indexes only what is there
            raise ValueError(f"path {i}: len() said {length} links but it holds {len(path)}")
        checked_paths.append(tuple(check_index_range(li, "link", 0, len(links) - 1, f"path {i}") for li in path))
    checked_flows = []
    for i, flow in enumerate(flows):
        where = f"flow {i}"
        start, stop, size, request, fwd, rev = _fields(flow, "flow", i, 6)
        checked_flows.append(
            (
                check_simulator_integer("start_ns", start, where),
                check_simulator_integer("stop_ns", stop, where),
                check_simulator_integer("flow_pkts", size, where),
                check_simulator_integer("request", request, where),
                check_index_range(fwd, "fwd_path", 0, len(paths) - 1, where),
                check_index_range(rev, "rev_path", 0, len(paths) - 1, where),
            )
        )
    return (checked_links, checked_paths, checked_flows, data_size, ctrl_size, window_denominator, rwnd_pkts, sender)


class _Link:
    __slots__ = ("capacity_bps", "delay_ns", "ops", "port", "xcp", "queue", "busy")

    def __init__(self, capacity_bps: int, delay_ns: int, buffer_bytes: int, proto: int) -> None:
        self.capacity_bps, self.delay_ns = capacity_bps, delay_ns
        self.ops = PORT_OPS[proto]  # chosen once: the per-packet path never asks for the protocol
        self.port = PortRegisters(buffer_bytes=buffer_bytes)
        self.xcp = XcpState()
        self.queue: deque[_Packet] = deque()
        self.busy: _Packet | None = None


class _Flow:
    __slots__ = (
        "start_ns", "stop_ns", "size_pkts", "request", "fwd_path", "rev_path",
        "state", "stopped", "rcp_mode", "send_pending", "in_recovery", "refresh_pending", "rate",
        "srtt_ns", "wnd", "cwnd", "ssthresh", "cwnd_acc", "xcp_cwnd", "snd_una", "snd_nxt", "recover", "dupacks",
        "next_send_ns", "last_progress_ns", "syn_ns", "send_at_ns", "last_send_ns", "min_rtt_ns",
        "rcv_next", "delivered_bytes", "fct_ns",
    )  # fmt: skip

    def __init__(self, start_ns: int, stop_ns: int, size_pkts: int, request: int, fwd: int, rev: int) -> None:
        self.start_ns, self.stop_ns, self.size_pkts, self.request = start_ns, stop_ns, size_pkts, request
        self.fwd_path, self.rev_path = fwd, rev
        self.state = FS_IDLE
        self.stopped = self.rcp_mode = self.send_pending = self.in_recovery = self.refresh_pending = 0
        self.rate = self.srtt_ns = self.wnd = self.cwnd = self.ssthresh = self.cwnd_acc = self.xcp_cwnd = 0
        self.snd_una = self.snd_nxt = self.recover = self.dupacks = 0
        self.next_send_ns = self.last_progress_ns = self.syn_ns = 0
        self.send_at_ns = self.last_send_ns = self.min_rtt_ns = 0
        self.rcv_next = self.delivered_bytes = self.fct_ns = 0


class PySimulator(EventLoop):
    """Same constructor and methods as :class:`rcpstab.packet._datapath.Simulator`."""

    def __init__(
        self,
        links: Any,
        paths: Any,
        flows: Any,
        data_size: Any,
        ctrl_size: Any,
        window_denominator: Any,
        rwnd_pkts: Any,
        sender: Any = SENDER_RTCP,
        rate_refresh: bool = True,
    ) -> None:
        # The C module's checks, in its order: it refuses rather than wraps, and so does the twin
        (links, paths, flows, data_size, ctrl_size, window_denominator, rwnd_pkts, sender) = check_arguments(
            links, paths, flows, data_size, ctrl_size, window_denominator, rwnd_pkts, sender
        )
        self.sender = sender
        self.rate_refresh = bool(rate_refresh)
        self.snd = SENDER_OPS[sender]  # chosen once: the hosts never ask which kind they run
        self.hdr_len = self.snd.header_bytes
        self.data_size, self.ctrl_size = data_size, ctrl_size
        self.window_denominator, self.rwnd_pkts = window_denominator, rwnd_pkts
        self.links = [_Link(*link) for link in links]
        self.paths = paths
        self.flows = [_Flow(*f) for f in flows]
        super().__init__()
        self.sent = self.delivered = self.dropped = self.n_active_flows = self.flows_done = 0
        for fi, f in enumerate(self.flows):
            self._schedule(f.start_ns, EV_FLOW_START, fi)
            if f.stop_ns >= 0:
                self._schedule(f.stop_ns, EV_FLOW_STOP, fi)

    # ---- links
    def _link_start_tx(self, li: int) -> None:
        link = self.links[li]
        p = link.queue.popleft()
        link.ops.depart(link.port, link.xcp, p.hdr, p.size)
        link.busy = p
        self._schedule(self.now + p.size * 8 * NS_PER_S // link.capacity_bps, EV_TX_DONE, li)

    def _link_arrive(self, li: int, p: _Packet) -> None:
        link = self.links[li]
        if not link.ops.arrive(link.port, link.xcp, p.hdr, p.size):
            self.dropped += 1
            return
        link.queue.append(p)
        if link.busy is None:
            self._link_start_tx(li)

    def _path_link(self, p: _Packet) -> int:
        f = self.flows[p.flow]
        path = self.paths[f.fwd_path if host.TO_RECEIVER[p.kind] else f.rev_path]
        return path[p.hop] if p.hop < len(path) else -1

    def _host_send(self, p: _Packet) -> None:
        self.sent += 1
        p.hop = 0
        self._link_arrive(self._path_link(p), p)

    # ---- R-TCP sender
    def _send_syn(self, fi: int) -> None:
        f = self.flows[fi]
        p = _Packet(fi, host.RTCP_SYN, self.ctrl_size, 0, self.now)
        p.hdr = self.snd.fill_syn(self, f)
        f.syn_ns = self.now
        self._host_send(p)

    def _send_data(self, fi: int) -> None:
        f = self.flows[fi]
        p = _Packet(fi, host.RTCP_DATA, self.data_size, f.snd_nxt, self.now)
        p.hdr = self.snd.fill_data(self, f)
        host.data_sent(f, self.now)
        self._host_send(p)

    def _send_refresh(self, fi: int) -> None:
        f = self.flows[fi]
        p = _Packet(fi, host.RTCP_REF, self.ctrl_size, f.snd_nxt, self.now)
        p.hdr = host.fill_data_header(f.request, f)
        self._host_send(p)

    def _arm_refresh(self, fi: int) -> None:
        f = self.flows[fi]
        if host.arm_refresh(f, self.now, self.rate_refresh):
            self._schedule(self.now + f.min_rtt_ns, EV_REFRESH, fi)

    def _on_refresh(self, fi: int) -> None:
        f = self.flows[fi]
        if not host.refresh_due(f, self.now) or f.state != FS_ESTAB or f.stopped or not f.rcp_mode:
            return
        self._send_refresh(fi)
        self._arm_refresh(fi)

    def _try_send(self, fi: int) -> None:
        f = self.flows[fi]
        if f.state != FS_ESTAB or f.stopped:
            return
        while True:
            if f.size_pkts and f.snd_nxt >= f.size_pkts:
                return
            window = self.snd.window(self, f)
            if f.snd_nxt - f.snd_una >= window:
                return
            if f.rcp_mode:
                act = host.pace(f, self.now, self.data_size, self.rate_refresh)
                if act != host.RTCP_SEND_NOW:
                    if act == host.RTCP_WAIT_SCHEDULE:
                        self._schedule(f.next_send_ns, EV_SEND, fi)
                    self._arm_refresh(fi)
                    return
            self._send_data(fi)

    def _go_back(self, f: _Flow) -> None:
        # XCP reacts to a loss "in a similar manner to TCP" (Sec. 3.3): halve the window.
        xcp_take_feedback(self, f, -(f.xcp_cwnd // 2))
        host.go_back(f)
        f.ssthresh = max(f.cwnd // 2, 2)
        f.cwnd = f.ssthresh

    def _flow_leaves(self, f: _Flow) -> None:
        self.n_active_flows -= 1
        f.stopped = 1

    def _sender_on_synack(self, fi: int, p: _Packet) -> None:
        f = self.flows[fi]
        if f.state != FS_SYN_SENT or f.stopped:
            return
        host.on_synack(f, self.now, p.ts)
        f.state = FS_ESTAB
        self.snd.on_synack(self, f, p.hdr)
        self._try_send(fi)

    def _sender_on_ack(self, fi: int, p: _Packet) -> None:
        f = self.flows[fi]
        if f.state != FS_ESTAB or f.stopped:
            return
        host.rtt_sample(f, self.now, p.ts)
        self.snd.on_ack(self, f, p.hdr)
        newly, loss = host.ack_seq(f, p.seq, self.now)
        if newly > 0:
            self.snd.on_acked(self, f, newly)
            if f.size_pkts and f.snd_una >= f.size_pkts:
                f.state = FS_DONE
                f.fct_ns = self.now - f.start_ns
                self.flows_done += 1
                self._flow_leaves(f)
                return
        elif loss:
            self._go_back(f)
        self._try_send(fi)

    def _sender_on_refack(self, fi: int, p: _Packet) -> None:
        f = self.flows[fi]
        if f.state != FS_ESTAB or f.stopped:
            return
        rtcp_take_feedback(self, f, int.from_bytes(p.hdr[4:8], "big"))
        self._try_send(fi)

    def _on_rto(self, fi: int) -> None:
        f = self.flows[fi]
        if f.state == FS_DONE or f.stopped:
            return
        rto = host.rto_ns(f, f.state == FS_ESTAB)
        if f.state == FS_SYN_SENT:
            if self.now - f.syn_ns >= rto:
                self._send_syn(fi)
        elif host.timed_out(f, self.now, rto):
            self._go_back(f)
            f.cwnd = 1
            f.xcp_cwnd = self.data_size * XCP_UNITS_PER_BYTE
            f.last_progress_ns = self.now
            self._try_send(fi)
        self._schedule(self.now + rto, EV_RTO, fi)

    def _flow_start(self, fi: int) -> None:
        f = self.flows[fi]
        if f.state != FS_IDLE or f.stopped:
            return
        self.n_active_flows += 1
        f.state = FS_SYN_SENT
        f.cwnd = INITIAL_CWND
        f.ssthresh = self.rwnd_pkts
        f.xcp_cwnd = INITIAL_CWND * self.data_size * XCP_UNITS_PER_BYTE
        f.last_send_ns = -1
        self._send_syn(fi)
        self._schedule(self.now + host.RTO_INITIAL_NS, EV_RTO, fi)

    def _flow_stop(self, fi: int) -> None:
        f = self.flows[fi]
        if f.stopped:
            return
        if f.state in (FS_IDLE, FS_DONE):
            f.stopped = 1
        else:
            self._flow_leaves(f)

    # ---- R-TCP receiver
    def _receiver_on_packet(self, p: _Packet) -> None:
        f = self.flows[p.flow]
        if p.kind == host.RTCP_DATA and p.seq == f.rcv_next:
            f.rcv_next += 1
            f.delivered_bytes += p.size
        p.hdr = bytearray(self.snd.echo(p.hdr))
        p.kind = host.REPLY_KIND[p.kind]
        p.seq = f.rcv_next
        p.size = self.ctrl_size
        self._host_send(p)

    def _host_receive(self, p: _Packet) -> None:
        self.delivered += 1
        if host.TO_RECEIVER[p.kind]:
            self._receiver_on_packet(p)
        elif p.kind == host.RTCP_SYNACK:
            self._sender_on_synack(p.flow, p)
        elif p.kind == host.RTCP_REFACK:
            self._sender_on_refack(p.flow, p)
        else:
            self._sender_on_ack(p.flow, p)

    # ---- the loop
    def _dispatch(self, etype: int, arg: Any, gen: int) -> None:
        if etype == EV_DELIVER:
            arg.hop += 1
            nxt = self._path_link(arg)
            if nxt >= 0:
                self._link_arrive(nxt, arg)
            else:
                self._host_receive(arg)
        elif etype == EV_TX_DONE:
            link = self.links[arg]
            p = link.busy
            link.busy = None
            self._schedule(self.now + link.delay_ns, EV_DELIVER, p)
            if link.queue:
                self._link_start_tx(arg)
        elif etype == EV_SEND:
            host.send_event(self.flows[arg], self.now, self.rate_refresh)
            self._try_send(arg)
        elif etype == EV_REFRESH:
            self._on_refresh(arg)
        elif etype == EV_RTO:
            self._on_rto(arg)
        elif etype == EV_FLOW_START:
            self._flow_start(arg)
        else:
            self._flow_stop(arg)

    def run_until(self, t_ns: int) -> None:
        """Process every event strictly before ``t_ns`` (ns, refused outside the table's ``t_ns``), then stop."""
        super().run_until(check_simulator_integer("t_ns", t_ns))

    # ---- the control path's view
    def _port(self, li: int) -> PortRegisters:
        if not 0 <= li < len(self.links):
            raise IndexError(f"link {li} does not exist")
        return self.links[li].port

    def registers(self, li: int) -> dict[str, int]:
        """The link port's registers by name."""
        return registers_dict(self._port(li))

    def set_registers(self, li: int, **values: int) -> None:
        """Write the link port's registers by name."""
        set_registers(self._port(li), values)

    def xcp_registers(self, li: int) -> dict[str, float]:
        """The link's real-valued XCP / RCP-AC registers by name."""
        self._port(li)
        return asdict(self.links[li].xcp)

    def set_xcp_registers(self, li: int, **values: float) -> None:
        """Write them by name."""
        self._port(li)
        set_xcp_registers(self.links[li].xcp, values)

    def in_flight(self) -> int:
        """Packets inside the network, counted from queues, links and pending deliveries."""
        on_links = sum(len(link.queue) + (link.busy is not None) for link in self.links)
        return on_links + self._pending(EV_DELIVER)

    def counters(self) -> dict[str, int]:
        """now_ns, events, sent, delivered, dropped, in_flight, n_active, flows_done."""
        return {
            "now_ns": self.now, "events": self.events, "sent": self.sent, "delivered": self.delivered,
            "dropped": self.dropped, "in_flight": self.in_flight(), "n_active": self.n_active_flows,
            "flows_done": self.flows_done,
        }  # fmt: skip

    def n_active(self) -> int:
        """Flows started and not yet stopped or finished."""
        return self.n_active_flows

    def flow_stats(self) -> tuple[list[int], list[int | None]]:
        """(delivered bytes per flow, completion time in ns or None per flow)."""
        return (
            [f.delivered_bytes for f in self.flows],
            [f.fct_ns if f.state == FS_DONE else None for f in self.flows],
        )
