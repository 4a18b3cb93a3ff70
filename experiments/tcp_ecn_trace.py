"""Why ns-3's TCP nearly stalls over RED with ECN (issue 24): one long flow over the XCP-efficiency
RED bottleneck, ECN on or off, with TcpSocketBase's CongState, EcnState, cwnd and RTO traces and
the port's drops and queue every 0.2 s (findings: experiments/results/README.md).

Usage: python experiments/tcp_ecn_trace.py '{"C": 50e6, "rtt": 0.08, "ecn": true, "stop": 4.0}'
"""

import json
import sys

import cppyy
import numpy as np
from ns import ns

from rcpstab.fct import tcp_ns3 as T

extra = json.loads(sys.argv[1])
ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(2))
ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(T.SEGMENT_BYTES))
ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
ns.Config.SetDefault("ns3::TcpSocketBase::MaxSegLifetime", ns.DoubleValue(1.0))
for k, v in extra.get("defaults", {}).items():
    ns.Config.SetDefault(k, ns.StringValue(v))
cppyy.cppdef(T._SINK_CPP)
cppyy.cppdef(r"""
namespace tr { using namespace ns3;
std::vector<double> ct, cw, st, sv, et, ev, rt;
void Cw(uint32_t o, uint32_t n){ ct.push_back(Simulator::Now().GetSeconds()); cw.push_back(n/960.0);}
void St(TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n){ st.push_back(Simulator::Now().GetSeconds()); sv.push_back(n);}
void Es(TcpSocketState::EcnState_t o, TcpSocketState::EcnState_t n){ et.push_back(Simulator::Now().GetSeconds()); ev.push_back(n);}
void Rto(Time o, Time n){ rt.push_back(n.GetSeconds());}
void Hook(){ Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/CongestionWindow", MakeCallback(&Cw));
 Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/CongState", MakeCallback(&St));
 Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/EcnState", MakeCallback(&Es));
 Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/RTO", MakeCallback(&Rto));}
void Sched(double t){ Simulator::Schedule(Seconds(t), &Hook);} }
""")
orig = ns.Simulator.Stop


def stop(t):  # hook the traces once the BulkSend socket exists (just after the run starts)
    cppyy.gbl.tr.Sched(0.0001)
    orig(t)


ns.Simulator.Stop = stop
C, rtt, ecn = extra["C"], extra["rtt"], extra["ecn"]
bdp = int(C * rtt / 8000)
spec = {
    "links": [{"C": C, "delay_s": rtt / 2, "buffer_pkts": bdp, "red": T.red_spec(bdp, ecn=ecn)}],
    "flows": [{"src": 0, "dst": 1, "start_s": 0.0, "size_pkts": 0}],
    "stop_s": extra["stop"],
    "sample_s": 0.01,
    "ecn": ecn,
    "snd_buf_bytes": 4 * bdp * 1000,
}
r = T._run(ns, cppyy, spec)
g = cppyy.gbl.tr
p = r["ports"][0]
print("ecn", ecn, "bytes", r["flows"], "marks", p["disc_marks"], "disc drops", p["disc_drops"])
print("cong states", [(round(a, 3), int(b)) for a, b in zip(g.st, g.sv)][:30])
print("ecn states", [(round(a, 3), int(b)) for a, b in zip(g.et, g.ev)][:30])
print("rto", list(g.rt)[:10])
ct, cw = np.array(list(g.ct)), np.array(list(g.cw))
for t in np.arange(0.1, extra["stop"], 0.2):
    m = ct <= t
    pt, pd, pq = np.array(p["t"]), np.array(p["drops"]), np.array(p["q"])
    k = int(np.searchsorted(pt, t))
    print(
        round(t, 1),
        "cwnd",
        round(cw[m][-1], 1) if m.any() else None,
        "drops",
        pd[min(k, len(pd) - 1)],
        "q",
        pq[min(k, len(pq) - 1)],
    )
