"""TCP NewReno from ns-3 on a drawn workload: the TCP column of the FCT comparisons (issue 24).

rcpstab writes no TCP of its own. This replays flows (arrival times and sizes, or long-lived
flows) in ns-3 (the ``bench`` extra: the ``ns3`` wheel) in a separate worker process, which
runs a batch of runs one after the other (``Simulator::Destroy`` between them), so ns-3's
import (~20 s of CPU, most of a small run) is paid once per batch.

Network: a chain of nodes 0..L joined by point-to-point links (link i from node i to node
i + 1, its capacity and one-way delay, a return direction of the same capacity and delay);
one link is the single-bottleneck dumbbell of thesis Ch. 4. Each forward link queues either
drop-tail at the device (``buffer_pkts``, no queue disc, as the thesis' ns-2 routers) or a
gentle RED queue disc (``red``: ns-3's ``RedQueueDisc`` through ``TrafficControlHelper``, its
thresholds in packets, ECN optional) in front of a one-packet device queue. A flow runs from
node ``src`` to node ``dst`` (global routing), one BulkSend per flow (NewReno, initial window 2
segments as the thesis' ns-2 Reno, 960-byte segments so data packets are 1000-byte IP
datagrams, SACK on, no timestamps) bound to its own local port. A small C++ sink (compiled once
per worker through cppyy; not a TCP: it only reads sockets) records per sender port the bytes
received and the time of the last data byte, and closes its side when the sender closes, so
finished connections free their endpoints (ns-3 scans endpoints linearly per packet; with
PacketSink every finished flow stayed in CLOSE_WAIT). TCP's maximum segment lifetime is 1 s
(TIME_WAIT 2 s) for the same reason; every flow has its own port, so no port is reused.
A flow's FCT is its last data byte at the receiver minus its arrival (the SYN leaves then),
the packet simulator's definition. Every ``sample_s`` the worker records each forward link's
queue (packets) and bytes sent, for average queue and utilisation.

What differs from the thesis' ns-2 Reno: NewReno with SACK, ns-3's RTO (min 1 s) and
delayed-ACK defaults (ACK every second segment, 200 ms timer).

Run as ``python -m rcpstab.fct.tcp_ns3 SPEC.json`` (the worker) or call :func:`tcp_runs` /
:func:`tcp_fct`.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError

__all__ = [
    "NS3_MISSING",
    "PACKET_BYTES",
    "SEGMENT_BYTES",
    "flow_losses",
    "ns3_available",
    "port_drops",
    "red_spec",
    "tcp_fct",
    "tcp_runs",
]

PACKET_BYTES = 1000
SEGMENT_BYTES = PACKET_BYTES - 40  # IP and TCP headers, no options
FIRST_PORT = 1024  # flow k sends from port FIRST_PORT + k
SINK_PORT = 9  # every sink listens here
MAX_FLOWS = 65535 - FIRST_PORT
NS3_MISSING = (
    "--protocol tcp needs ns-3's TCP (the 'bench' extra: pip install 'rcpstab[bench]', the ns3 wheel); "
    "rcpstab has no TCP of its own"
)

_SINK_CPP = r"""
namespace rcpstab_ns3 {
using namespace ns3;
// Reads every accepted TCP socket: bytes and the time of the last data byte per sender port;
// closes its side when the sender closes (both endpoints are then freed).
struct FctSink {
  Ptr<Socket> listener;
  std::map<uint16_t, uint64_t> bytes;
  std::map<uint16_t, double> last_s;
  void Start(Ptr<Node> node, uint16_t port) {
    listener = Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
    listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
    listener->Listen();
    listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                MakeCallback(&FctSink::Accept, this));
  }
  void Accept(Ptr<Socket> s, const Address&) {
    s->SetRecvCallback(MakeCallback(&FctSink::Recv, this));
    s->SetCloseCallbacks(MakeCallback(&FctSink::Closed, this), MakeCallback(&FctSink::Closed, this));
  }
  void Recv(Ptr<Socket> s) {
    Address from;
    Ptr<Packet> p;
    while ((p = s->RecvFrom(from)) && p->GetSize() > 0) {
      uint16_t port = InetSocketAddress::ConvertFrom(from).GetPort();
      bytes[port] += p->GetSize();
      last_s[port] = Simulator::Now().GetSeconds();
    }
  }
  void Closed(Ptr<Socket> s) { s->Close(); }
  std::vector<double> Ports() { std::vector<double> v; for (auto &e : bytes) v.push_back(e.first); return v; }
  std::vector<double> Bytes() { std::vector<double> v; for (auto &e : bytes) v.push_back(e.second); return v; }
  std::vector<double> Last() { std::vector<double> v; for (auto &e : bytes) v.push_back(last_s[e.first]); return v; }
};
// Every dt: packets queued (queue disc plus device queue) and bytes sent by one output port.
struct PortSampler {
  Ptr<Queue<Packet>> dev;
  Ptr<QueueDisc> disc;
  double dt;
  std::vector<double> t, q, sent, drops;
  double tc_drops = 0;
  void Start(double t0, double step) { dt = step; Simulator::Schedule(Seconds(t0), &PortSampler::Sample, this); }
  // Without a queue disc a full device queue stops the device and ns-3's traffic-control layer
  // drops the packet itself: the device queue never counts it.
  void WatchTc(Ptr<Node> node) {
    if (!node->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext("TcDrop", MakeCallback(&PortSampler::TcDrop, this)))
      NS_FATAL_ERROR("no TcDrop trace source");
  }
  void TcDrop(Ptr<const Packet>) { tc_drops += 1; }
  void Sample() {
    double n = dev->GetNPackets() + (disc ? disc->GetNPackets() : 0);
    t.push_back(Simulator::Now().GetSeconds());
    q.push_back(n);
    sent.push_back(double(dev->GetTotalReceivedBytes()) - double(dev->GetTotalDroppedBytes()) - double(dev->GetNBytes()));
    drops.push_back(DiscDrops() + DeviceDrops() + tc_drops);
    Simulator::Schedule(Seconds(dt), &PortSampler::Sample, this);
  }
  double DiscDrops() { return disc ? double(disc->GetStats().nTotalDroppedPackets) : 0.0; }
  double DiscMarks() { return disc ? double(disc->GetStats().nTotalMarkedPackets) : 0.0; }
  double DeviceDrops() { return double(dev->GetTotalDroppedPackets()); }
};
// Per TCP flow (keyed by its sender's port), the packets this node's IP layer sent (originated or
// forwarded: the "Tx" trace) and received ("Rx"), data (to the sink's port) and ACKs apart. A
// flow's losses are then its packets sent at its source minus those received at its destination,
// counted without looking at any queue: the check on the queues' drop counters.
struct PacketCounter {
  std::map<uint16_t, double> tx_data, rx_data, tx_ack, rx_ack;
  uint16_t sink_port = 0;
  void Watch(Ptr<Node> node, uint16_t sink) {
    sink_port = sink;
    Ptr<Ipv4L3Protocol> ip = node->GetObject<Ipv4L3Protocol>();
    if (!ip->TraceConnectWithoutContext("Tx", MakeCallback(&PacketCounter::Tx, this)) ||
        !ip->TraceConnectWithoutContext("Rx", MakeCallback(&PacketCounter::Rx, this)))
      NS_FATAL_ERROR("no Ipv4L3Protocol Tx / Rx trace source");
  }
  bool Key(Ptr<const Packet> p, uint16_t &port, bool &data) {
    Ptr<Packet> c = p->Copy();
    Ipv4Header ih;
    c->RemoveHeader(ih);
    if (ih.GetProtocol() != TcpL4Protocol::PROT_NUMBER) return false;
    TcpHeader th;
    c->PeekHeader(th);
    data = th.GetDestinationPort() == sink_port;
    port = data ? th.GetSourcePort() : th.GetDestinationPort();
    return true;
  }
  void Tx(Ptr<const Packet> p, Ptr<Ipv4>, uint32_t) { uint16_t k; bool d; if (Key(p, k, d)) (d ? tx_data : tx_ack)[k] += 1; }
  void Rx(Ptr<const Packet> p, Ptr<Ipv4>, uint32_t) { uint16_t k; bool d; if (Key(p, k, d)) (d ? rx_data : rx_ack)[k] += 1; }
  static double At(const std::map<uint16_t, double> &m, uint16_t k) { auto i = m.find(k); return i == m.end() ? 0.0 : i->second; }
  // [data sent, data received, ACKs sent, ACKs received] of the flow from port k at this node
  std::vector<double> Counts(uint16_t k) { return {At(tx_data, k), At(rx_data, k), At(tx_ack, k), At(rx_ack, k)}; }
};
Ptr<Queue<Packet>> DeviceQueue(Ptr<NetDevice> d) { return DynamicCast<PointToPointNetDevice>(d)->GetQueue(); }
}
"""


def ns3_available() -> bool:
    """Whether ns-3's Python bindings are installed (found, not imported: importing them is slow and global)."""
    try:
        import importlib.util

        return importlib.util.find_spec("ns") is not None
    except (ImportError, ValueError):
        return False


def red_spec(buffer_pkts: int, *, ecn: bool = True) -> dict[str, Any]:
    """The XCP paper's RED (its Sec. 5.1): gentle, thresholds a third and two thirds of the buffer (packets)."""
    return {"min_th": buffer_pkts / 3, "max_th": 2 * buffer_pkts / 3, "limit": int(buffer_pkts), "gentle": True, "ecn": bool(ecn)}


def _run(ns: Any, cppyy: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """One run of ``spec`` in the current ns-3 process (see :func:`tcp_runs` for the fields)."""
    links, flows = spec["links"], spec["flows"]
    ns.Config.SetDefault("ns3::TcpSocketBase::UseEcn", ns.StringValue("On" if spec.get("ecn") else "Off"))
    # BulkSend fills the send buffer: a long-lived flow would buffer all of it (GBs at the default)
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(int(spec.get("snd_buf_bytes", 1 << 30))))
    # the receiver's window caps every flow's flight, and so ns-3's per-segment walk of its sent list
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(int(spec.get("rcv_buf_bytes", 1 << 30))))
    nodes = ns.NodeContainer()
    nodes.Create(len(links) + 1)
    ns.InternetStackHelper().Install(nodes)
    addr = ns.Ipv4AddressHelper()
    samplers: list[Any] = []
    node_address: dict[Any, Any] = {}
    for i, link in enumerate(links):
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.StringValue(f"{int(link['C'])}bps"))
        p2p.SetChannelAttribute("Delay", ns.StringValue(f"{int(round(link['delay_s'] * 1e9))}ns"))
        red = link.get("red")
        dev_pkts = 1 if red else int(link["buffer_pkts"])
        p2p.SetQueue("ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{dev_pkts}p")))
        devices = p2p.Install(nodes.Get(i), nodes.Get(i + 1))
        disc = None
        if red:
            tch = ns.TrafficControlHelper()
            tch.SetRootQueueDisc(
                "ns3::RedQueueDisc",
                "MinTh",
                ns.DoubleValue(red["min_th"]),
                "MaxTh",
                ns.DoubleValue(red["max_th"]),
                "MaxSize",
                ns.QueueSizeValue(ns.QueueSize(f"{int(red['limit'])}p")),
                "Gentle",
                ns.BooleanValue(bool(red.get("gentle", True))),
                "UseEcn",
                ns.BooleanValue(bool(red.get("ecn", False))),
                "LinkBandwidth",
                ns.DataRateValue(ns.DataRate(f"{int(link['C'])}bps")),
                "LinkDelay",
                ns.TimeValue(ns.Seconds(link["delay_s"])),
                "MeanPktSize",
                ns.UintegerValue(PACKET_BYTES),
            )
            discs = tch.Install(ns.NetDeviceContainer(devices.Get(0)))
            disc = discs.Get(0)
        addr.SetBase(ns.Ipv4Address(f"10.{1 + i // 250}.{1 + i % 250}.0"), ns.Ipv4Mask("255.255.255.0"))
        ifaces = addr.Assign(devices)  # installs ns-3's default queue disc where none is: removed next
        # drop-tail at the device (no queue disc) unless RED is asked for; the return direction always
        ns.TrafficControlHelper().Uninstall(devices.Get(1))
        if disc is None:
            ns.TrafficControlHelper().Uninstall(devices.Get(0))
        node_address.setdefault(i + 1, ifaces.GetAddress(1))
        node_address.setdefault(i, ifaces.GetAddress(0))
        s = cppyy.gbl.rcpstab_ns3.PortSampler()
        s.dev = cppyy.gbl.rcpstab_ns3.DeviceQueue(devices.Get(0))
        if disc is not None:
            s.disc = disc
        else:  # drop-tail: the drops happen in node i's traffic-control layer (its ACKs' port too)
            s.WatchTc(nodes.Get(i))
        samplers.append(s)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    sinks = {}
    for dst in sorted({f["dst"] for f in flows}):
        sinks[dst] = cppyy.gbl.rcpstab_ns3.FctSink()
        sinks[dst].Start(nodes.Get(dst), SINK_PORT)
    for k, f in enumerate(flows):
        app = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(node_address[f["dst"]], SINK_PORT).ConvertTo())
        app.SetAttribute("MaxBytes", ns.UintegerValue(int(f["size_pkts"]) * SEGMENT_BYTES))  # 0 = long-lived
        app.SetAttribute("SendSize", ns.UintegerValue(SEGMENT_BYTES))
        app.SetAttribute("Local", ns.AddressValue(ns.InetSocketAddress(node_address[f["src"]], FIRST_PORT + k).ConvertTo()))
        installed = app.Install(nodes.Get(f["src"]))
        installed.Start(ns.Seconds(float(f["start_s"])))
        if f.get("stop_s") is not None:
            installed.Stop(ns.Seconds(float(f["stop_s"])))
    counters = []
    if spec.get("count_packets"):
        for i in range(len(links) + 1):
            counters.append(cppyy.gbl.rcpstab_ns3.PacketCounter())
            counters[-1].Watch(nodes.Get(i), SINK_PORT)
    for s in samplers:
        s.Start(0.0, float(spec["sample_s"]))
    ns.Simulator.Stop(ns.Seconds(float(spec["stop_s"])))
    wall = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - wall
    got = {}
    for sink in sinks.values():
        for port, nbytes, last in zip(sink.Ports(), sink.Bytes(), sink.Last()):
            got[int(port)] = (nbytes, last)
    out_flows = [[*got.get(FIRST_PORT + k, (0.0, math.nan))] for k in range(len(flows))]
    ports = [
        {
            "t": list(s.t),
            "q": list(s.q),
            "sent": list(s.sent),
            "drops": list(s.drops),
            "disc_drops": s.DiscDrops(),
            "disc_marks": s.DiscMarks(),
            "device_drops": s.DeviceDrops(),
            "tc_drops": float(s.tc_drops),
        }
        for s in samplers
    ]
    packets = []
    for k, f in enumerate(flows) if counters else ():
        at_src, at_dst = list(counters[f["src"]].Counts(FIRST_PORT + k)), list(counters[f["dst"]].Counts(FIRST_PORT + k))
        packets.append([at_src[0], at_dst[1], at_dst[2], at_src[3]])
    events = int(ns.Simulator.GetEventCount())
    ns.Simulator.Destroy()
    return {
        "flows": [[b, (None if math.isnan(t) else t)] for b, t in out_flows],
        "ports": ports,
        **({"flow_packets": packets} if counters else {}),
        "wall_s": wall,
        "events": events,
    }


def _worker(spec_path: str) -> None:
    """Run every spec of ``spec_path`` (a JSON list) and print one JSON line per run."""
    import cppyy
    from ns import ns

    specs = json.load(open(spec_path))
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(2))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(SEGMENT_BYTES))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 30))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 30))
    ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    ns.Config.SetDefault("ns3::TcpSocketBase::MaxSegLifetime", ns.DoubleValue(1.0))
    cppyy.cppdef(_SINK_CPP)
    for spec in specs:
        print(json.dumps(_run(ns, cppyy, spec)), flush=True)


def tcp_runs(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run a batch of ns-3 TCP runs in one worker process.

    Parameters
    ----------
    specs : list of dict
        Each: ``links`` (list of {``C`` bit/s, ``delay_s`` one-way s, ``buffer_pkts`` drop-tail
        packets, optional ``red``: :func:`red_spec`}), ``flows`` (list of {``src``, ``dst`` node
        indices, ``start_s``, ``size_pkts`` (0 = long-lived), optional ``stop_s``}), ``stop_s``
        (simulated s), ``sample_s`` (queue / bytes sampling step, s), optional ``ecn`` and
        ``snd_buf_bytes`` (TCP send buffer, default 1 GiB: give long-lived flows a few BDPs),
        ``rcv_buf_bytes`` (TCP receive buffer, the advertised window; default 1 GiB),
        ``count_packets`` (count each flow's packets at its end nodes, for :func:`flow_losses`;
        passive: the run is the same).

    Returns
    -------
    list of dict
        Per run: ``flows`` ([bytes received, last data byte time s or None] per flow, in
        order), ``ports`` (per link: sample times ``t``, queue ``q`` in packets, bytes ``sent``
        (IP plus link header), packets dropped so far ``drops``; totals ``disc_drops``,
        ``disc_marks``, ``device_drops``, ``tc_drops`` (drop-tail: packets the traffic-control
        layer of the link's upstream node dropped at a full device queue, its return port's
        included)), ``flow_packets`` (with ``count_packets``: per flow, data packets sent at
        its source and received at its destination, ACKs sent at the destination and received
        at the source), ``wall_s`` (ns-3 Run), ``events``. :func:`port_drops` sums the drops.

    Raises
    ------
    InputError
        ns-3 is not installed (:data:`NS3_MISSING`), too many flows, or the run failed.
    """
    for spec in specs:
        if len(spec["flows"]) > MAX_FLOWS:
            raise InputError(f"{len(spec['flows'])} TCP flows: at most {MAX_FLOWS} (one port each)")
    if not ns3_available():
        raise InputError(NS3_MISSING)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(specs, fh)
    try:
        proc = subprocess.run([sys.executable, "-m", "rcpstab.fct.tcp_ns3", fh.name], capture_output=True, text=True)
    finally:
        os.unlink(fh.name)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or len(lines) != len(specs):
        raise InputError("ns-3 run failed: " + (proc.stderr.strip().splitlines() or ["no output"])[-1])
    return [json.loads(line) for line in lines]


def dumbbell_spec(
    start_s: ArrayLike,
    size_pkts: ArrayLike,
    capacity_bps: float,
    rtt_s: float,
    drain_s: float,
    sample_s: float | None = None,
    rwnd_bdp: float | None = None,
) -> dict[str, Any]:
    """A :func:`tcp_runs` spec: the flows over one link (C, RTPD / 2 each way, one-BDP drop-tail).

    ``rwnd_bdp``: the receiver's window in BDPs (None: 1 GiB, never binding). ns-3 walks a
    sender's list of unacknowledged segments for every segment it sends (``TcpTxBuffer::NextSeg``,
    and ``GetTransmittedSegment`` per retransmission), so a run costs packets x flight; 2 (the
    pipe plus the one-BDP buffer, the most one flow can keep in flight without loss) bounds the
    flight, and with it the cost, for flows of hundreds of BDPs.
    """
    start_s = np.asarray(start_s, float)
    bdp = max(int(capacity_bps * rtt_s / 8 / PACKET_BYTES), 1)
    return {
        "links": [{"C": capacity_bps, "delay_s": rtt_s / 2, "buffer_pkts": bdp}],
        "flows": [{"src": 0, "dst": 1, "start_s": float(t), "size_pkts": int(z)} for t, z in zip(start_s, np.asarray(size_pkts))],
        "stop_s": float(start_s[-1] + drain_s),
        "sample_s": sample_s or rtt_s,
        # ns-3's send buffer is a list walked per segment sent: a flow written whole into a
        # 1 GiB buffer made large flows quadratic; 4 BDP never binds (the window stays
        # below pipe + one-BDP buffer)
        "snd_buf_bytes": max(4 * bdp * PACKET_BYTES, 1 << 17),
        **({} if rwnd_bdp is None else {"rcv_buf_bytes": max(int(rwnd_bdp * bdp * PACKET_BYTES), 4 * PACKET_BYTES)}),
    }


def port_drops(port: dict[str, Any]) -> int:
    """Every packet a :func:`tcp_runs` port dropped: its queue disc, device queue and traffic-control layer."""
    return int(port["device_drops"] + port["disc_drops"] + port.get("tc_drops", 0.0))


def flow_losses(result: dict[str, Any]) -> np.ndarray:
    """Packets each flow lost, by conservation: sent at one end minus received at the other.

    Independent of the queues' drop counters (:func:`port_drops`): it counts only what each flow's
    end nodes handed to and got from IP. Once every packet has arrived or been dropped (the run
    drained), the data and ACK columns summed over flows equal the drops summed over ports plus
    any ACK dropped at the last node's return port (which no :func:`tcp_runs` port watches).

    Parameters
    ----------
    result : dict
        A :func:`tcp_runs` result of a spec with ``count_packets`` set (``flow_packets``: per
        flow, packets of the data direction sent at the source and received at the destination,
        ACK direction sent at the destination and received at the source).

    Returns
    -------
    numpy.ndarray
        Shape (flows, 2): data packets and ACK packets lost per flow (sent - received; packets
        still in flight at the run's end count as lost).

    Examples
    --------
    >>> flow_losses({"flow_packets": [[1004, 1000, 520, 520], [30, 30, 16, 15]]})
    array([[4., 0.],
           [0., 1.]])
    """
    if "flow_packets" not in result:
        raise InputError("the run counted no packets (set count_packets in its spec)")
    c = np.asarray(result["flow_packets"], float).reshape(-1, 4)
    return np.column_stack([c[:, 0] - c[:, 1], c[:, 2] - c[:, 3]])


def flow_fct(result: dict[str, Any], start_s: ArrayLike, size_pkts: ArrayLike) -> np.ndarray:
    """FCT per flow (s) from a :func:`tcp_runs` result; NaN if its bytes did not all arrive."""
    start_s, size = np.asarray(start_s, float), np.asarray(size_pkts)
    got = np.array([b for b, _ in result["flows"]], float)
    last = np.array([np.nan if t is None else t for _, t in result["flows"]], float)
    return np.where(got >= size * SEGMENT_BYTES, last - start_s, np.nan)


def tcp_fct(start_s: ArrayLike, size_pkts: ArrayLike, capacity_bps: float, rtt_s: float, drain_s: float = 60.0) -> dict[str, Any]:
    """FCT of each flow (arrival order) under ns-3 TCP NewReno on one link; NaN if it did not finish.

    Returns
    -------
    dict
        ``fct_s`` (ndarray, s), ``lost_packets``, ``mean_queue_pkts``, ``wall_s``, ``events``.
    """
    r = tcp_runs([dumbbell_spec(start_s, size_pkts, capacity_bps, rtt_s, drain_s)])[0]
    port = r["ports"][0]
    return {
        "fct_s": flow_fct(r, start_s, size_pkts),
        "lost_packets": port_drops(port),
        "mean_queue_pkts": float(np.mean(port["q"])) if port["q"] else math.nan,
        "wall_s": r["wall_s"],
        "events": r["events"],
    }


if __name__ == "__main__":
    _worker(sys.argv[1])
