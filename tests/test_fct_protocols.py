"""Issue 24, item 4: RCP, RCP-AC and XCP on the same arrivals (rcpstab/fct/protocols.py)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from rcpstab.errors import InputError
from rcpstab.fct.flow_run import run_flows
from rcpstab.fct.protocols import check_protocol, protocol_fct
from rcpstab.packet.hosts.flow_traffic import parse_sizes

KW = dict(capacity_bps=150e6, rtt_s=0.1, sizes=parse_sizes("pareto:mean=25,shape=1.2"), n_flows=600, seed=1)


@pytest.mark.parametrize("load", [0.3, 0.9])
def test_packet_simulator_rcp_agrees_with_the_flow_simulator(load):
    # Two simulators of the same router and hosts on the same drawn arrivals.
    a = protocol_fct("rcp", 0.1, 1.0, load=load, **KW)
    b = run_flows(0.1, 1.0, load=load, **KW)
    fb = np.full(600, np.nan)
    fb[b.records["id"]] = b.fct_s
    assert not np.isnan(a["fct_s"]).any() and not np.isnan(fb).any()
    assert np.mean(a["fct_s"]) == pytest.approx(np.mean(fb), rel=0.03)
    assert np.all(a["fct_s"] >= 1.5 * 0.1 + a["size_pkts"] * 8000 / 150e6 - 1e-6)  # the lower bound


def test_xcp_and_rcpac_short_flows_are_slower_than_rcps():
    # Thesis Sec. 4.2: XCP is "conservative in giving bandwidth to flows, especially newly
    # starting flows"; RCP-AC's senders are XCP's window senders.
    r = {p: protocol_fct(p, *g, load=0.8, **KW) for p, g in (("rcp", (0.1, 1.0)), ("xcp", (0.4, 0.226)), ("rcpac", (0.1, 1.0)))}
    small = r["rcp"]["size_pkts"] < 50
    ratio = {p: np.mean(v["fct_s"][small]) / np.mean(v["ps_fct_s"][small]) for p, v in r.items()}
    assert ratio["rcp"] < 1.3 and ratio["xcp"] > 1.5 * ratio["rcp"] and ratio["rcpac"] > 1.3 * ratio["rcp"]


def test_tcp_is_refused_without_ns3_in_one_line():
    # the package's own test (a module spec, not an import: importing ns-3's bindings costs ~20 s CPU)
    from rcpstab.fct.tcp_ns3 import ns3_available

    if ns3_available():
        pytest.skip("ns-3 installed")
    with pytest.raises(InputError, match="bench"):
        check_protocol("tcp")
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "rcpstab",
            "fct",
            "--alpha",
            "0.1",
            "--beta",
            "1",
            "--C",
            "1e7",
            "--d0",
            "0.1",
            "--load",
            "0.5",
            "--flows",
            "20",
            "--protocol",
            "rcp,tcp",
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "ns-3" in p.stderr


@pytest.mark.slow  # ns-3's import and run: about a minute
def test_tcp_from_ns3_runs_the_same_arrivals_and_is_slower_for_short_flows():
    from rcpstab.fct.tcp_ns3 import ns3_available

    if not ns3_available():  # found, not imported: the runs import ns-3 in their own process (~20 s CPU)
        pytest.skip("ns-3 is not installed (the 'bench' extra)")
    kw = dict(KW, n_flows=200)
    tcp = protocol_fct("tcp", 0.0, 0.0, load=0.5, **kw)
    rcp = protocol_fct("rcp", 0.1, 1.0, load=0.5, **kw)
    assert np.array_equal(tcp["size_pkts"], rcp["size_pkts"]) and not np.isnan(tcp["fct_s"]).any()
    assert np.all(tcp["fct_s"] >= 1.5 * 0.1 + tcp["size_pkts"] * 8000 / 150e6 - 1e-6)
    # Slow start: a flow of L > 2 packets needs several RTTs (thesis eq. 4.2's log2 term).
    big = tcp["size_pkts"] >= 8
    assert np.mean(tcp["fct_s"][big]) > 1.5 * np.mean(rcp["fct_s"][big])
