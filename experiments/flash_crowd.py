"""Flash crowd, packet vs fluid with the same buffer (run by hand): ``python experiments/flash_crowd.py``.

For each network and gains: both runs' peak queue, drops and recovery (C*d0, RTTs), and the
measurements that explain a difference (the rate's trough, the rate law's d during the overload,
the senders' stall). ``--model rcp-router`` (default) compares with the fluid model that has the
packet router's timing and RTT average; ``--model rcp`` with eqs. 5.1-5.4. Counterfactual packet
runs, each changing one thing: ``oracle_rtt``, a router whose RTT estimate is eqs. 5.1-5.4's
d = d0 + q/C (instead of App. F's average of the RTTs in the headers); ``no_window``, R-TCP senders
without the window rule (paced only, as the fluid senders are); ``old_pacing``, senders without
the rate refresh (a new rate applied one old-rate interval late, no probes: they stall at
MIN_RATE). One JSON line per run, ``router`` = ``appF`` or the counterfactual's name.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
from unittest import mock

from rcpstab.cosim.flash_crowd import flash_crowd_cosim
from rcpstab.packet.routers.rcp.control import RcpController
from rcpstab.packet.simulator import run as run_module
from rcpstab.packet.simulator.scenarios import flash_crowd

NETWORKS = [(100e6, 0.05, 2), (40e6, 0.1, 3), (100e6, 0.015, 1)]
GAINS = [(0.4, 0.2), (0.4, 0.226), (0.6, 0.2), (0.5, 0.5), (0.6, 0.6)]


class OracleRttController(RcpController):
    """App. F's control path, but d = d0 + q/C exactly, as in the fluid model (a counterfactual)."""

    base_rtt_ms: float = 0.0

    def update(self, input_bytes, rtt_sum, rtt_count, queue_bytes, tr):
        self.avg_rtt = self.base_rtt_ms + queue_bytes / self.link_rate
        return super().update(input_bytes, 0, 0, queue_bytes, tr)


def oracle_controller(link, alpha, beta, eta, initial_R_over_C, avg_rtt_s, mtu, **options):
    """:func:`~rcpstab.packet.simulator.run.make_controller` with :class:`OracleRttController` for RCP."""
    c = ORIGINAL(link, alpha, beta, eta, initial_R_over_C, avg_rtt_s, mtu, **options)
    oracle = OracleRttController(
        link_rate=c.link_rate, alpha=c.alpha, beta=c.beta, eta=c.eta, rate=c.rate, avg_rtt=c.avg_rtt, mtu=c.mtu
    )
    oracle.base_rtt_ms = avg_rtt_s * 1000.0
    return oracle


ORIGINAL = run_module.make_controller
ORIGINAL_BUILD = run_module.build_simulator


def windowless_simulator(topology, flows, packet_bytes, backend, protocol, rwnd_pkts=run_module.RWND_PACKETS):
    """The C simulator with R-TCP's window rule off: window_denominator = 1 (rate x RTT / 1 byte)."""
    from rcpstab.packet._datapath import Simulator

    sim = ORIGINAL_BUILD(topology, flows, packet_bytes, "python", protocol, rwnd_pkts)
    return Simulator(
        links=[link.as_sim_tuple() for link in topology.links],
        paths=list(topology.paths),
        flows=flows,
        data_size=packet_bytes,
        ctrl_size=sim.ctrl_size,
        window_denominator=1,
        rwnd_pkts=1 << 20,
        sender=sim.sender,
    )


def row(result, router: str) -> dict:
    def num(x):
        return None if not math.isfinite(x) else round(x, 4)

    sc = result.scenario
    out = {
        "router": router,
        "C_Mbps": sc.capacity_bps / 1e6,
        "d0_ms": sc.rtt_s * 1000,
        "N": sc.n_flows(0.0),
        "alpha": result.alpha,
        "beta": result.beta,
    }
    for side in ("fluid", "packet"):
        r = getattr(result, side)
        out[side] = {
            "peak_queue_bdp": num(r.peak_queue_bdp),
            "dropped_bdp": num(r.dropped_bdp),
            "recovery_rtt": num(r.recovery_rtt),
            "trough_R_over_C": num(r.trough_R_over_C),
            "overload_d_over_d0": num(r.overload_d_over_d0),
            "stall_rtt": num(r.stall_rtt),
        }
    out["relative_difference"] = result.agreement()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--buffer", type=float, default=1.0, help="buffer, C*d0 (default 1)")
    parser.add_argument("--model", default="rcp-router", help="fluid model: rcp-router (default) or rcp")
    args = parser.parse_args()
    from rcpstab.packet import _datapath

    counterfactuals = {
        "oracle_rtt": (run_module, "make_controller", oracle_controller),
        "no_window": (run_module, "build_simulator", windowless_simulator),
        "old_pacing": (_datapath, "Simulator", functools.partial(_datapath.Simulator, rate_refresh=False)),
    }
    for net in NETWORKS:
        for gains in GAINS:
            scenario = flash_crowd(*net, buffer_bdp=args.buffer)
            print(json.dumps(row(flash_crowd_cosim(scenario, *gains, model=args.model), "appF")), flush=True)
            for name, (module, attribute, replacement) in counterfactuals.items():
                with mock.patch.object(module, attribute, replacement):
                    result = flash_crowd_cosim(scenario, *gains, model=args.model)
                print(json.dumps(row(result, name)), flush=True)


if __name__ == "__main__":
    main()
