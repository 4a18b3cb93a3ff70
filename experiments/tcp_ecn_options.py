"""Does a setting of ns-3's TCP avoid its ECN stall (issue 24, experiments/tcp_ecn_trace.py)? The
Fig. 6 one-flow point of xcp_efficiency_tcp.py: one long-lived flow, 50 Mb/s, 80 ms, one-BDP gentle
RED (the XCP paper's thresholds), 8 s; ns-3 NewReno with PRR recovery and SACK (rcpstab's TCP) with
ECN off and on, then one setting changed at a time with ECN on: classic recovery instead of PRR, SACK
off, TcpLinuxReno, TcpCubic, and RED marking instead of dropping above max_th. Prints per case the
bytes delivered, the bottleneck's utilisation in each second, RED's drops and marks (results in
experiments/results/README.md). Not a fix: ns-3 itself is not changed.

Usage: python experiments/tcp_ecn_options.py
"""

import json

import cppyy
from ns import ns

from rcpstab.fct import tcp_ns3 as T

BASE = {
    "ns3::TcpL4Protocol::SocketType": "ns3::TcpNewReno",
    "ns3::TcpL4Protocol::RecoveryType": "ns3::TcpPrrRecovery",
    "ns3::TcpSocketBase::Sack": "true",
    "ns3::RedQueueDisc::UseHardDrop": "true",
}
ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(2))
ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(T.SEGMENT_BYTES))
ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
ns.Config.SetDefault("ns3::TcpSocketBase::MaxSegLifetime", ns.DoubleValue(1.0))
cppyy.cppdef(T._SINK_CPP)
C, rtt, stop = 50e6, 0.08, 8.0
bdp = int(C * rtt / 8000)
cases = [
    ("NewReno, PRR (default), ECN off", {}, False),
    ("NewReno, PRR (default), ECN on", {}, True),
    ("classic recovery, ECN on", {"ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery"}, True),
    ("SACK off, ECN on", {"ns3::TcpSocketBase::Sack": "false"}, True),
    ("TcpLinuxReno, ECN on", {"ns3::TcpL4Protocol::SocketType": "ns3::TcpLinuxReno"}, True),
    ("TcpCubic, ECN on", {"ns3::TcpL4Protocol::SocketType": "ns3::TcpCubic"}, True),
    ("RED marks above max_th too (UseHardDrop false), ECN on", {"ns3::RedQueueDisc::UseHardDrop": "false"}, True),
]
for name, over, ecn in cases:
    for k, v in {**BASE, **over}.items():
        ns.Config.SetDefault(k, ns.StringValue(v))
    spec = {
        "links": [{"C": C, "delay_s": rtt / 2, "buffer_pkts": bdp, "red": T.red_spec(bdp, ecn=ecn)}],
        "flows": [{"src": 0, "dst": 1, "start_s": 0.0, "size_pkts": 0}],
        "stop_s": stop,
        "sample_s": 0.1,
        "ecn": ecn,
        "snd_buf_bytes": 4 * bdp * 1000,
    }
    r = T._run(ns, cppyy, spec)
    p = r["ports"][0]
    sent = p["sent"]
    # link utilisation per second (bytes sent by the bottleneck port)
    per_s = [(sent[min(10 * (k + 1), len(sent) - 1)] - sent[10 * k]) * 8 / C for k in range(int(stop))]
    row = {"case": name, "delivered_MB": r["flows"][0][0] / 1e6, "utilisation_per_s": [round(x, 2) for x in per_s]}
    print(json.dumps({**row, "disc_drops": p["disc_drops"], "marks": p["disc_marks"]}), flush=True)
