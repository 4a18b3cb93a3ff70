"""Flash crowd, packet vs fluid with the same buffer (run by hand): ``python benchmarks/bench_flash_crowd.py``.

For each network and gains: both runs' peak queue, drops and recovery (C*d0, RTTs), and the
measurements that explain a difference (the rate's trough, the rate law's d during the overload,
the senders' stall). Then the same packet runs with a counterfactual router whose RTT estimate is
the fluid model's d = d0 + q/C (instead of App. F's average of the RTTs in the headers): if the
router's RTT estimate is what makes the packet rate fall deeper, its trough must then match the
fluid's. One JSON line per run, ``router`` = ``appF`` or ``oracle_rtt``.
"""
from __future__ import annotations

import argparse
import json
import math
from unittest import mock

from rcpstab.reference_impl.simulator import run as run_module
from rcpstab.reference_impl.routers.rcp.control import RcpController
from rcpstab.reference_impl.cosim.flash_crowd import flash_crowd_cosim
from rcpstab.reference_impl.simulator.scenarios import flash_crowd

NETWORKS = [(100e6, 0.05, 2), (40e6, 0.1, 3), (100e6, 0.015, 1)]
GAINS = [(0.4, 0.2), (0.4, 0.226), (0.6, 0.2), (0.5, 0.5), (0.6, 0.6)]


class OracleRttController(RcpController):
    """App. F's control path, but d = d0 + q/C exactly, as in the fluid model (a counterfactual)."""

    base_rtt_ms: float = 0.0

    def update(self, input_bytes, rtt_sum, rtt_count, queue_bytes, tr):
        self.avg_rtt = self.base_rtt_ms + queue_bytes / self.link_rate
        return super().update(input_bytes, 0, 0, queue_bytes, tr)


def oracle_controller(link, alpha, beta, eta, initial_R_over_C, avg_rtt_s, mtu):
    """:func:`~rcpstab.reference_impl.simulator.run.make_controller` with :class:`OracleRttController` for RCP."""
    c = ORIGINAL(link, alpha, beta, eta, initial_R_over_C, avg_rtt_s, mtu)
    oracle = OracleRttController(link_rate=c.link_rate, alpha=c.alpha, beta=c.beta, eta=c.eta, rate=c.rate,
                                 avg_rtt=c.avg_rtt, mtu=c.mtu)
    oracle.base_rtt_ms = avg_rtt_s * 1000.0
    return oracle


ORIGINAL = run_module.make_controller


def row(result, router: str) -> dict:
    def num(x):
        return None if not math.isfinite(x) else round(x, 4)
    sc = result.scenario
    out = {"router": router, "C_Mbps": sc.capacity_bps / 1e6, "d0_ms": sc.rtt_s * 1000, "N": sc.n_flows(0.0),
           "alpha": result.alpha, "beta": result.beta}
    for side in ("fluid", "packet"):
        r = getattr(result, side)
        out[side] = {"peak_queue_bdp": num(r.peak_queue_bdp), "dropped_bdp": num(r.dropped_bdp),
                     "recovery_rtt": num(r.recovery_rtt), "trough_R_over_C": num(r.trough_R_over_C),
                     "overload_d_over_d0": num(r.overload_d_over_d0), "stall_rtt": num(r.stall_rtt)}
    out["relative_difference"] = result.agreement()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--buffer", type=float, default=1.0, help="buffer, C*d0 (default 1)")
    args = parser.parse_args()
    for net in NETWORKS:
        for gains in GAINS:
            scenario = flash_crowd(*net, buffer_bdp=args.buffer)
            print(json.dumps(row(flash_crowd_cosim(scenario, *gains), "appF")), flush=True)
            with mock.patch.object(run_module, "make_controller", oracle_controller):
                print(json.dumps(row(flash_crowd_cosim(scenario, *gains), "oracle_rtt")), flush=True)


if __name__ == "__main__":
    main()
