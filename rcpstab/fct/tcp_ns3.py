"""TCP NewReno from ns-3 on a drawn workload: the TCP column of the FCT comparison (issue 24).

rcpstab writes no TCP of its own. This replays the flows (arrival times and sizes) in ns-3 (the
``bench`` extra: the ``ns3`` wheel) in a separate process, since ns-3's simulator runs once per
process: one sender node and one receiver node joined by the bottleneck (C, RTPD/2 each way,
drop-tail of one BDP at the device, no queue disc), one BulkSend per flow (NewReno, initial
window 2 segments as in thesis Ch. 4 with ns-2's Reno, 960-byte segments so data packets are
1000-byte datagrams, SACK on, no timestamps), one PacketSink. A flow's FCT is FlowMonitor's last
packet received minus first packet sent (the SYN) of its 5-tuple; the last packet is the FIN,
right behind the last data segment, so this slightly overstates TCP's FCT. What differs from the
thesis' ns-2 Reno: NewReno with SACK, ns-3's RTO and delayed-ACK defaults.

Run as ``python -m rcpstab.fct.tcp_ns3 SPEC.json`` (the worker) or call :func:`tcp_fct`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from ..errors import InputError

__all__ = ["NS3_MISSING", "ns3_available", "tcp_fct"]

PACKET_BYTES = 1000
SEGMENT_BYTES = PACKET_BYTES - 40  # IP and TCP headers, no options
NS3_MISSING = ("--protocol tcp needs ns-3's TCP (the 'bench' extra: pip install 'rcpstab[bench]', the ns3 wheel); "
               "rcpstab has no TCP of its own")


def ns3_available() -> bool:
    """Whether ns-3's Python bindings import (checked in a subprocess: importing them is slow and global)."""
    try:
        import importlib.util

        return importlib.util.find_spec("ns") is not None
    except (ImportError, ValueError):
        return False


def _worker(spec_path: str) -> None:
    """Replay the arrivals of ``spec_path`` in ns-3 and print per-flow results as JSON."""
    from ns import ns

    spec = json.load(open(spec_path))
    C, rtt = spec["C"], spec["rtt"]
    start_s, size_pkts = np.array(spec["start_s"]), np.array(spec["size_pkts"])
    bdp_pkts = max(int(C * rtt / 8 / PACKET_BYTES), 1)
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(2))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(SEGMENT_BYTES))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 30))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 30))
    ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    nodes = ns.NodeContainer()
    nodes.Create(2)
    link = ns.PointToPointHelper()
    link.SetDeviceAttribute("DataRate", ns.StringValue(f"{int(C)}bps"))
    link.SetChannelAttribute("Delay", ns.StringValue(f"{int(round(rtt / 2 * 1e9))}ns"))
    link.SetQueue("ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{bdp_pkts}p")))
    devices = link.Install(nodes)
    ns.InternetStackHelper().Install(nodes)
    addresses = ns.Ipv4AddressHelper(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
    interfaces = addresses.Assign(devices)
    ns.TrafficControlHelper().Uninstall(devices)  # drop-tail at the device, as the thesis' routers
    port = 9
    sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sink.Install(nodes.Get(1)).Start(ns.Seconds(0))
    target = ns.InetSocketAddress(interfaces.GetAddress(1), port).ConvertTo()
    for t, size in zip(start_s.tolist(), size_pkts.tolist()):
        app = ns.BulkSendHelper("ns3::TcpSocketFactory", target)
        app.SetAttribute("MaxBytes", ns.UintegerValue(int(size) * SEGMENT_BYTES))
        app.SetAttribute("SendSize", ns.UintegerValue(SEGMENT_BYTES))
        app.Install(nodes.Get(0)).Start(ns.Seconds(float(t)))
    monitor_helper = ns.FlowMonitorHelper()
    monitor = monitor_helper.InstallAll()
    ns.Simulator.Stop(ns.Seconds(float(start_s[-1]) + spec["drain_s"]))
    wall = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - wall
    classifier = monitor_helper.GetClassifier()
    flows = []
    for flow_id, stats in monitor.GetFlowStats():
        five = classifier.FindFlow(flow_id)
        if str(five.destinationAddress) != str(interfaces.GetAddress(1)):
            continue  # the ACK direction
        flows.append((int(five.sourcePort), stats.timeFirstTxPacket.GetSeconds(), stats.timeLastRxPacket.GetSeconds(),
                      int(stats.rxBytes), int(stats.lostPackets)))
    events = int(ns.Simulator.GetEventCount())
    ns.Simulator.Destroy()
    print(json.dumps({"flows": flows, "wall_s": wall, "events": events}))


def tcp_fct(start_s, size_pkts, capacity_bps: float, rtt_s: float, drain_s: float = 60.0) -> dict:
    """FCT of each flow (arrival order) under ns-3 TCP NewReno; NaN if it did not finish.

    Returns
    -------
    dict
        ``fct_s`` (ndarray), ``lost_packets``, ``wall_s``, ``events``.

    Raises
    ------
    InputError
        ns-3 is not installed (:data:`NS3_MISSING`) or its run failed.
    """
    if not ns3_available():
        raise InputError(NS3_MISSING)
    start_s, size = np.asarray(start_s, float), np.asarray(size_pkts, np.int64)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump({"C": capacity_bps, "rtt": rtt_s, "start_s": start_s.tolist(), "size_pkts": size.tolist(),
                   "drain_s": drain_s}, fh)
    try:
        proc = subprocess.run([sys.executable, "-m", "rcpstab.fct.tcp_ns3", fh.name], capture_output=True, text=True)
    finally:
        os.unlink(fh.name)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise InputError("ns-3 run failed: " + (proc.stderr.strip().splitlines() or ["no output"])[-1])
    ns3 = json.loads(lines[-1])
    fct = np.full(len(size), np.nan)
    # A flow's first packet is its SYN, sent when its BulkSend starts: match it to the arrival.
    for _, first, last, rx_bytes, _ in ns3["flows"]:
        i = int(np.argmin(np.abs(start_s - first)))
        if abs(start_s[i] - first) < 1e-6 and rx_bytes >= size[i] * PACKET_BYTES:
            fct[i] = last - first
    return {"fct_s": fct, "lost_packets": int(sum(f[4] for f in ns3["flows"])), "wall_s": ns3["wall_s"],
            "events": ns3["events"]}


if __name__ == "__main__":
    _worker(sys.argv[1])
