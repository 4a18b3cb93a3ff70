"""Pure-Python twin of the flow-level simulator (``csrc/flows.c``), statement for statement.

One RCP bottleneck (the forward port runs App. F lines 18-23, the ACK direction is a plain
drop-tail port); flows arrive at times and with sizes handed in by the caller, open a
connection (SYN with the rate request, SYN-ACK with the router's stamped rate), send
their data paced at the stamped rate (the R-TCP host of :mod:`..hosts.rtcp_host_py`, shared
with the packet simulator's twin) and leave. Flow slots are recycled with a
generation number, so timers and late packets of a finished flow are ignored. The
agreement tests require identical records and counters from both. Time is integer
nanoseconds and ties are broken by scheduling order, exactly as in C.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from ..packet.hosts import rtcp_host_py as host
from ..packet.routers.rcp.datapath_py import PortRegisters, dp_arrive, dp_depart, port_admit, port_release, receiver_echo
from ..packet.simulator.events_py import NS_PER_S, EventLoop
from ..runtime.validation import SIMULATOR_INTEGERS, check_simulator_integer

__all__ = ["PyFlowSimulator", "RECORD_FIELDS"]

FE_ARRIVAL, FE_SEND, FE_RTO, FE_TX_DONE, FE_DELIVER, FE_REFRESH = range(6)
FF_FREE, FF_SYN_SENT, FF_ESTAB = range(3)
FL_FWD, FL_REV = range(2)
RECORD_FIELDS = ("id", "size_pkts", "start_ns", "fct_ns", "drops")  # int64 each, as take_records packs them


class _Packet:
    __slots__ = ("hdr", "size", "kind", "slot", "gen", "seq", "ts")


class _Link:
    __slots__ = ("capacity_bps", "delay_ns", "rcp", "port", "queue", "busy", "arrivals", "tx_bytes")

    def __init__(self, spec, rcp: bool, name: str) -> None:
        if not isinstance(spec, (tuple, list)) or len(spec) != 3:
            raise TypeError(f"{name} link must be a tuple (capacity_bps, delay_ns, buffer_bytes)")
        capacity, delay, buffer = (
            check_simulator_integer(key, value, name) for key, value in zip(("capacity_bps", "delay_ns", "buffer_bytes"), spec)
        )
        self.capacity_bps, self.delay_ns, self.rcp = capacity, delay, rcp
        self.port = PortRegisters(buffer_bytes=buffer)
        self.queue: deque[_Packet] = deque()
        self.busy: _Packet | None = None
        self.arrivals = self.tx_bytes = 0


class _Flow:
    __slots__ = (
        "state",
        "gen",
        "id",
        "size_pkts",
        "start_ns",
        "rate",
        "srtt_ns",
        "wnd",
        "snd_una",
        "snd_nxt",
        "recover",
        "dupacks",
        "in_recovery",
        "send_pending",
        "refresh_pending",
        "received",
        "next_send_ns",
        "last_progress_ns",
        "syn_ns",
        "send_at_ns",
        "last_send_ns",
        "min_rtt_ns",
        "rcv_next",
        "drops",
    )

    def __init__(self) -> None:
        self.state, self.gen = FF_FREE, 0

    def reset(self, flow_id: int, size: int, now: int) -> None:
        self.state, self.id, self.size_pkts, self.start_ns = FF_SYN_SENT, flow_id, size, now
        self.rate, self.wnd, self.srtt_ns = 1, 1, 0
        self.snd_una = self.snd_nxt = self.recover = self.dupacks = 0
        self.in_recovery = self.send_pending = self.refresh_pending = self.received = 0
        self.next_send_ns = self.last_progress_ns = self.syn_ns = self.send_at_ns = self.min_rtt_ns = 0
        self.last_send_ns = -1
        self.rcv_next = self.drops = 0


class PyFlowSimulator(EventLoop):
    """Flow-level simulator in Python; same constructor and methods as the C ``FlowSimulator``."""

    def __init__(self, forward, reverse, data_size, ctrl_size, window_denominator, rwnd_pkts, request, rate_refresh=True) -> None:
        # The order of the checks is C's (csrc/flows_module.c), so both raise the same error first.
        data_size, ctrl_size, window_denominator, rwnd_pkts, request = (
            check_simulator_integer(name, value)
            for name, value in (
                ("data_size", data_size),
                ("ctrl_size", ctrl_size),
                ("window_denominator", window_denominator),
                ("rwnd_pkts", rwnd_pkts),
                ("request", request),
            )
        )
        self.links = (_Link(forward, True, "forward"), _Link(reverse, False, "reverse"))
        self.data_size, self.ctrl_size, self.window_denominator = data_size, ctrl_size, window_denominator
        self.rwnd_pkts, self.request = rwnd_pkts, request
        self.rate_refresh = bool(rate_refresh)
        super().__init__()
        self.flows: list[_Flow] = []
        self.free: list[int] = []  # a stack: the last entry is C's free-list head
        self.slots_used = 0
        self.arrivals: deque[tuple[int, int]] = deque()
        self.next_id = 0
        self.arrival_pending = False
        self.records: list[tuple[int, ...]] = []
        self.sent = self.delivered = self.dropped = 0
        self.n_active_flows = self.started = self.completed = 0

    # ---- flow slots
    def _slot_alloc(self) -> int:
        if not self.free:
            old = len(self.flows)
            cap = 2 * old if old else 256
            self.flows.extend(_Flow() for _ in range(cap - old))
            self.free = list(range(cap - 1, old - 1, -1))
        self.slots_used += 1
        return self.free.pop()

    def _slot_release(self, slot: int) -> None:
        f = self.flows[slot]
        f.state = FF_FREE
        f.gen = (f.gen + 1) & 0xFFFFFFFF
        self.free.append(slot)
        self.slots_used -= 1

    def _live_flow(self, slot: int, gen: int) -> _Flow | None:
        f = self.flows[slot]
        return f if f.state != FF_FREE and f.gen == gen else None

    # ---- links
    def _link_start_tx(self, li: int) -> None:
        link = self.links[li]
        p = link.queue.popleft()
        if link.rcp:
            dp_depart(link.port, p.hdr, p.size)
        else:
            port_release(link.port, p.size)
        link.busy = p
        self._schedule(self.now + p.size * 8 * NS_PER_S // link.capacity_bps, FE_TX_DONE, li)

    def _link_arrive(self, li: int, p: _Packet) -> None:
        link = self.links[li]
        link.arrivals += 1
        accepted = dp_arrive(link.port, p.hdr, p.size) if link.rcp else port_admit(link.port, p.size)
        if not accepted:
            f = self._live_flow(p.slot, p.gen)
            if f is not None:
                f.drops += 1
            self.dropped += 1
            return
        link.queue.append(p)
        if link.busy is None:
            self._link_start_tx(li)

    def _host_send(self, p: _Packet) -> None:
        self.sent += 1
        self._link_arrive(FL_FWD if host.TO_RECEIVER[p.kind] else FL_REV, p)

    def _new_packet(self, slot: int, kind: int, size: int, seq: int) -> _Packet:
        p = _Packet()
        p.hdr, p.slot, p.gen, p.kind, p.size, p.seq, p.ts = bytearray(12), slot, self.flows[slot].gen, kind, size, seq, self.now
        return p

    # ---- sender (R-TCP: hosts/rtcp_host_py.py, shared with sim_py)
    def _send_syn(self, slot: int) -> None:
        p = self._new_packet(slot, host.RTCP_SYN, self.ctrl_size, 0)
        p.hdr = host.fill_syn_header(self.request)
        self.flows[slot].syn_ns = self.now
        self._host_send(p)

    def _send_segment(self, slot: int, kind: int) -> None:
        """Data packet snd_nxt (RTCP_DATA), or a rate-refresh probe (RTCP_REF: control size, the data header)."""
        f = self.flows[slot]
        p = self._new_packet(slot, kind, self.data_size if kind == host.RTCP_DATA else self.ctrl_size, f.snd_nxt)
        p.hdr = host.fill_data_header(self.request, f)
        if kind == host.RTCP_DATA:
            host.data_sent(f, self.now)
        self._host_send(p)

    def _arm_refresh(self, slot: int) -> None:
        f = self.flows[slot]
        if host.arm_refresh(f, self.now, self.rate_refresh):
            self._schedule(self.now + f.min_rtt_ns, FE_REFRESH, slot, f.gen)

    def _on_refresh(self, slot: int) -> None:
        f = self.flows[slot]
        if not host.refresh_due(f, self.now) or f.state != FF_ESTAB:
            return
        self._send_segment(slot, host.RTCP_REF)
        self._arm_refresh(slot)

    def _try_send(self, slot: int) -> None:
        f = self.flows[slot]
        if f.state != FF_ESTAB:
            return
        while True:
            if f.snd_nxt >= f.size_pkts or f.snd_nxt - f.snd_una >= f.wnd:
                return
            act = host.pace(f, self.now, self.data_size, self.rate_refresh)
            if act != host.RTCP_SEND_NOW:
                if act == host.RTCP_WAIT_SCHEDULE:
                    self._schedule(f.next_send_ns, FE_SEND, slot, f.gen)
                self._arm_refresh(slot)
                return
            self._send_segment(slot, host.RTCP_DATA)

    def _take_feedback(self, f: _Flow, reverse: int) -> None:
        host.take_rate(f, reverse, self.data_size, self.window_denominator, self.rwnd_pkts, self.rate_refresh)

    def _sender_on_synack(self, slot: int, p: _Packet) -> None:
        f = self.flows[slot]
        if f.state != FF_SYN_SENT:
            return
        host.on_synack(f, self.now, p.ts)
        f.state = FF_ESTAB
        self._take_feedback(f, int.from_bytes(p.hdr[4:8], "big"))
        self._try_send(slot)

    def _sender_on_ack(self, slot: int, p: _Packet) -> None:
        f = self.flows[slot]
        if f.state != FF_ESTAB:
            return
        host.rtt_sample(f, self.now, p.ts)
        self._take_feedback(f, int.from_bytes(p.hdr[4:8], "big"))
        newly, loss = host.ack_seq(f, p.seq, self.now)
        if newly > 0:
            if f.snd_una >= f.size_pkts:
                self._slot_release(slot)
                return
        elif loss:
            host.go_back(f)
        self._try_send(slot)

    def _sender_on_refack(self, slot: int, p: _Packet) -> None:
        f = self.flows[slot]
        if f.state != FF_ESTAB:
            return
        self._take_feedback(f, int.from_bytes(p.hdr[4:8], "big"))
        self._try_send(slot)

    def _on_rto(self, slot: int) -> None:
        f = self.flows[slot]
        rto = host.rto_ns(f, f.state == FF_ESTAB)
        if f.state == FF_SYN_SENT:
            if self.now - f.syn_ns >= rto:
                self._send_syn(slot)
        elif host.timed_out(f, self.now, rto):
            host.go_back(f)
            f.last_progress_ns = self.now
            self._try_send(slot)
        self._schedule(self.now + rto, FE_RTO, slot, f.gen)

    # ---- receiver
    def _receiver_on_packet(self, p: _Packet) -> None:
        f = self.flows[p.slot]
        if p.kind == host.RTCP_DATA and p.seq == f.rcv_next:
            f.rcv_next += 1
            if f.rcv_next == f.size_pkts and not f.received:
                f.received = 1
                self.n_active_flows -= 1
                self.completed += 1
                self.records.append((f.id, f.size_pkts, f.start_ns, self.now - f.start_ns, f.drops))
        p.hdr = bytearray(receiver_echo(p.hdr))
        p.kind = host.REPLY_KIND[p.kind]
        p.seq = f.rcv_next
        p.size = self.ctrl_size
        self._host_send(p)

    def _host_receive(self, p: _Packet) -> None:
        self.delivered += 1
        if self._live_flow(p.slot, p.gen) is None:
            return
        if host.TO_RECEIVER[p.kind]:
            self._receiver_on_packet(p)
        elif p.kind == host.RTCP_SYNACK:
            self._sender_on_synack(p.slot, p)
        elif p.kind == host.RTCP_REFACK:
            self._sender_on_refack(p.slot, p)
        else:
            self._sender_on_ack(p.slot, p)

    # ---- arrivals
    def _schedule_next_arrival(self) -> None:
        self.arrival_pending = bool(self.arrivals)
        if self.arrival_pending:
            self._schedule(self.arrivals[0][0], FE_ARRIVAL, 0)

    def _flow_arrive(self) -> None:
        _, size = self.arrivals.popleft()
        slot = self._slot_alloc()
        f = self.flows[slot]
        f.reset(self.next_id, size, self.now)
        self.next_id += 1
        self.n_active_flows += 1
        self.started += 1
        self._send_syn(slot)
        self._schedule(self.now + host.RTO_INITIAL_NS, FE_RTO, slot, f.gen)
        self._schedule_next_arrival()

    def add_arrivals(self, start_ns, size_pkts) -> None:
        """Append arrivals: C-contiguous int64 buffers (bytes, arrays) of start times (ns) and sizes (packets)."""
        t, z = (np.frombuffer(_contiguous(b), dtype=np.uint8) for b in (start_ns, size_pkts))
        if len(t) != len(z) or len(t) % 8:
            raise ValueError("start times and sizes must be int64 buffers of equal length")
        t, z = t.view(np.int64).tolist(), z.view(np.int64).tolist()  # copies: alignment does not matter
        (t_low, t_high), (z_low, z_high) = SIMULATOR_INTEGERS["start_ns"], SIMULATOR_INTEGERS["size_pkts"]
        last = max(self.arrivals[-1][0], self.now) if self.arrivals else self.now
        for k, (tk, zk) in enumerate(zip(t, z)):
            if not (t_low <= tk <= t_high and z_low <= zk <= z_high):
                raise ValueError(
                    f"arrival {k}: start_ns={tk} and size_pkts={zk} must be in {t_low}..{t_high} and {z_low}..{z_high}"
                )
            if tk < last:
                raise ValueError(
                    f"arrival {k}: start_ns={tk} is before the clock or the previous arrival ({last}); "
                    "arrivals must be in time order"
                )
            last = tk
        self.arrivals.extend(zip(t, z))
        if not self.arrival_pending:
            self._schedule_next_arrival()

    def run_until(self, t_ns) -> None:
        """Process every event strictly before ``t_ns`` (ns, range-checked as in C), then set the clock to it."""
        super().run_until(check_simulator_integer("t_ns", t_ns))

    # ---- the loop
    def _dispatch(self, etype: int, arg, gen: int) -> None:
        if etype == FE_DELIVER:
            self._host_receive(arg)
        elif etype == FE_TX_DONE:
            link = self.links[arg]
            p, link.busy = link.busy, None
            link.tx_bytes += p.size
            self._schedule(self.now + link.delay_ns, FE_DELIVER, p)
            if link.queue:
                self._link_start_tx(arg)
        elif etype == FE_SEND:
            if self._live_flow(arg, gen) is not None:
                host.send_event(self.flows[arg], self.now, self.rate_refresh)
                self._try_send(arg)
        elif etype == FE_REFRESH:
            if self._live_flow(arg, gen) is not None:
                self._on_refresh(arg)
        elif etype == FE_RTO:
            if self._live_flow(arg, gen) is not None:
                self._on_rto(arg)
        else:
            self._flow_arrive()

    # ---- the control path's and the caller's view
    def registers(self) -> dict[str, int]:
        """The bottleneck port's registers by name."""
        p = self.links[FL_FWD].port
        return {"input_bytes": p.input_bytes, "rtt_sum": p.rtt_sum, "rtt_count": p.rtt_count,
                "queue_bytes": p.queue_bytes, "buffer_bytes": p.buffer_bytes, "dropped": p.dropped,
                "max_rtt": p.max_rtt, "rate": p.rate}  # fmt: skip

    def set_registers(self, *, rate=None, input_bytes=None, rtt_sum=None, rtt_count=None) -> None:
        """Write the bottleneck port's registers by name (None: left as it is); all are checked first."""
        given = {
            name: check_simulator_integer(name, value, "register")
            for name, value in (("rate", rate), ("input_bytes", input_bytes), ("rtt_sum", rtt_sum), ("rtt_count", rtt_count))
            if value is not None
        }
        p = self.links[FL_FWD].port
        for name, value in given.items():
            setattr(p, name, value)

    def take_records(self) -> bytes:
        """Finished flows since the last call, packed int64 per :data:`RECORD_FIELDS`."""
        out = np.array(self.records, dtype=np.int64).reshape(-1, len(RECORD_FIELDS)).tobytes()
        self.records = []
        return out

    def in_flight(self) -> int:
        """Packets inside the network: queues, links and pending deliveries."""
        on_links = sum(len(link.queue) + (link.busy is not None) for link in self.links)
        return on_links + self._pending(FE_DELIVER)

    def counters(self) -> dict[str, int]:
        """Run counters, the same keys as the C simulator's."""
        fwd = self.links[FL_FWD]
        return {
            "now_ns": self.now, "events": self.events, "sent": self.sent, "delivered": self.delivered,
            "dropped": self.dropped, "in_flight": self.in_flight(), "n_active": self.n_active_flows,
            "slots_used": self.slots_used, "started": self.started, "completed": self.completed,
            "pending_arrivals": len(self.arrivals), "fwd_arrivals": fwd.arrivals,
            "fwd_dropped": fwd.port.dropped, "fwd_tx_bytes": fwd.tx_bytes,
        }  # fmt: skip

    def census(self) -> dict[str, int]:
        """The senders now, as the C simulator's ``census``: flows in the SYN phase, established with
        data left to send, of those held by the window (full while the pacer is due), and their
        stamped rates' sum (bytes/ms)."""
        out = {"syn": 0, "sending": 0, "window_full": 0, "rate_sum": 0}
        for f in self.flows:
            if f.state == FF_SYN_SENT:
                out["syn"] += 1
            elif f.state == FF_ESTAB and f.snd_nxt < f.size_pkts:
                out["sending"] += 1
                out["window_full"] += f.snd_nxt - f.snd_una >= f.wnd and self.now >= f.next_send_ns
                out["rate_sum"] += f.rate
        return out

    def n_active(self) -> int:
        """Flows whose SYN is sent and whose last data packet has not yet arrived."""
        return self.n_active_flows


def _contiguous(buffer) -> memoryview:
    """A buffer as C's ``y*`` format takes it: bytes-like and C-contiguous, else the errors C raises."""
    if isinstance(buffer, str):
        raise TypeError(f"a bytes-like object is required, not '{type(buffer).__name__}'")
    view = memoryview(buffer)  # TypeError for anything without the buffer protocol
    if not view.c_contiguous:
        raise BufferError("memoryview: underlying buffer is not C-contiguous")
    return view.cast("B") if view.ndim != 1 or view.format != "B" else view
