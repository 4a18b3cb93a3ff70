"""Why a packet-map point disagrees with rcp-router: one change at a time (run by hand).

``python experiments/region_counterfactuals.py ALPHA,BETA [ALPHA,BETA ...] [--only NAME ...]``

For each (alpha, beta) of the fig5.3 scenario, the packet run and the rcp-router fluid run are
judged segment by segment (the scenario's 5 / 10 / 5 flow segments) with the map's own judgement
(:func:`rcpstab.packet.lens.region.trace_verdict`), printing each segment's verdict, the
judgement's reason, the envelope's fitted growth rate (per RTT) and the last block's peak (band
units). Then the packet run again with ONE change each (the counterfactuals of
experiments/flash_crowd.py, same switches):

``old_pacing``  senders without the rate refresh (``Simulator(rate_refresh=False)``: a new rate
                applied one old-rate interval late, no probes) -- the sender before the change;
``no_window``   R-TCP senders without the window rule (paced only, as the fluid senders are);
``100Mbps``     ten times the link rate (towards the fluid limit);
``600s``        one 600 s segment of 10 flows (ten times the N = 10 segment), packet and fluid.

One JSON line per run.

``--switching``: instead, the standing-queue experiment of experiments/standing_queue.py at
the scenario's own 10 Mb/s, moving only the target utilization eta on each side: rcp-router at
eta = 1, 0.999, 0.998 (just under the link rate, where a packet router's jitter queue holds it)
and the packet router at eta = 1, 1.005, 1.01, 1.02 (the equilibrium then needs a standing queue of a
packet or more, off the queue's clamp). Measured over the 10-flow segment's 70-100 s: half
peak-to-peak of the one-RTT-mean R/C, its period and autocorrelation, the queue.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import os
import sys
from unittest import mock

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flash_crowd import windowless_simulator  # noqa: E402  (the same no_window switch)
from standing_queue import TARGET, measure  # noqa: E402  (the same eta switch and measurement)

from rcpstab.packet import _datapath  # noqa: E402
from rcpstab.packet.lens import region  # noqa: E402
from rcpstab.packet.lens import verdicts as lens_verdicts  # noqa: E402
from rcpstab.packet.lens.fluid_twin import fluid_run  # noqa: E402
from rcpstab.packet.protocols import register_protocol  # noqa: E402
from rcpstab.packet.simulator import run as run_module  # noqa: E402
from rcpstab.packet.simulator.run import run_scenario  # noqa: E402
from rcpstab.packet.simulator.scenarios import get_scenario  # noqa: E402
from rcpstab.packet.simulator.segments import control_interval_s  # noqa: E402
from rcpstab.phaseplane.verdicts import VERDICTS  # noqa: E402

LONG_RUN_S = 600.0


def judged_segments(call):
    """Run ``call()`` (which judges a trace) and return the full judgement of every segment it judged."""
    seen = []

    def recording(t_s, gamma, queue, gamma_eq, queue_eq, d0, capacity, per_rtt, packet_bits, noisy=True, window_flows=0):
        j = lens_verdicts.judgement_of_segment(
            t_s, gamma, queue, gamma_eq, queue_eq, d0, capacity, per_rtt, packet_bits, noisy, window_flows
        )
        # the late half's one-RTT mean rate, relative to the equilibrium: how big the oscillation is
        mean = lens_verdicts.rtt_average(np.asarray(gamma, dtype=float), per_rtt)[gamma.size // 2 :] / gamma_eq - 1.0
        seen.append(
            {
                "verdict": str(j.names[0]),
                "reason": str(j.reason[0]),
                "late_rate_rms": round(float(np.sqrt(np.mean(mean**2))), 4),
                "late_rate_peak": round(float(np.max(np.abs(mean))), 4),
                "growth_per_rtt": round(float(j.rate_per_rtt[0]), 5),
                "growth_stderr": round(float(j.rate_stderr[0]), 5),
                "length_rtt": round(float(t_s[-1] / d0), 1),
            }
        )
        return int(j.codes[0]), float(j.convergence_rtt[0])

    with mock.patch.object(region, "judge_segment", recording):
        code = call()
    return code, seen


def packet(scenario, alpha, beta):
    return judged_segments(lambda: region.run_verdict(run_scenario(scenario, alpha, beta))[0])


def fluid(scenario, alpha, beta):
    def call():
        traj = fluid_run(scenario, np.array([alpha]), np.array([beta]), scenario.t_end_s, region.FLUID_MODEL)
        every = max(int(round(control_interval_s(scenario) / traj.dt)), 1)
        return region.trace_verdict(
            scenario, alpha, beta, traj.t[every::every], traj.gamma[every::every, 0], traj.queue[every::every, 0], noisy=False
        )[0]

    return judged_segments(call)


def report(point, run, side, result):
    code, segments = result
    print(
        json.dumps(
            {"alpha": point[0], "beta": point[1], "run": run, "side": side, "verdict": VERDICTS[code], "segments": segments}
        ),
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("points", nargs="+", help="alpha,beta")
    parser.add_argument("--only", nargs="*", default=None, help="runs to do (default all)")
    parser.add_argument("--switching", action="store_true", help="the eta experiment (standing queue) instead")
    args = parser.parse_args()
    base = get_scenario("fig5.3")
    if args.switching:
        switching(base, [tuple(float(x) for x in text.split(",")) for text in args.points])
        return
    long = dataclasses.replace(base, name="fig5.3-long", long_flows=((0.0, math.inf),) * 10, t_end_s=LONG_RUN_S)
    fast = dataclasses.replace(base, name="fig5.3@100M", capacity_bps=10 * base.capacity_bps)
    runs = {
        "appF": lambda a, b: [("packet", packet(base, a, b)), ("rcp-router", fluid(base, a, b))],
        "old_pacing": lambda a, b: _patched(
            _datapath,
            "Simulator",
            functools.partial(_datapath.Simulator, rate_refresh=False),
            lambda: [("packet", packet(base, a, b))],
        ),
        "no_window": lambda a, b: _patched(
            run_module, "build_simulator", windowless_simulator, lambda: [("packet", packet(base, a, b))]
        ),
        "100Mbps": lambda a, b: [("packet", packet(fast, a, b))],
        "600s": lambda a, b: [("packet", packet(long, a, b)), ("rcp-router", fluid(long, a, b))],
    }
    for text in args.points:
        a, b = (float(x) for x in text.split(","))
        for name, run in runs.items():
            if args.only and name not in args.only:
                continue
            for side, result in run(a, b):
                report((a, b), name, side, result)


def switching(base, points) -> None:
    register_protocol(TARGET)
    scenario = dataclasses.replace(base, t_end_s=100.0)
    for a, b in points:
        for eta in (1.0, 0.999, 0.998):
            traj = fluid_run(dataclasses.replace(scenario, eta=eta), a, b, scenario.t_end_s, region.FLUID_MODEL)
            every = max(int(round(control_interval_s(scenario) / traj.dt)), 1)
            row = measure(
                traj.t[every::every], traj.gamma[every::every, 0], traj.queue[every::every, 0] / 8, scenario.packet_bytes
            )
            print(json.dumps({"alpha": a, "beta": b, "side": "rcp-router", "eta": eta, **row}), flush=True)
        for eta in (1.0, 1.005, 1.01, 1.02):
            TARGET.target = eta
            run = run_scenario(scenario, a, b, protocol="rcp-target")
            row = measure(run.t, run.R_over_C, run.queue_bytes.astype(float), scenario.packet_bytes)
            print(json.dumps({"alpha": a, "beta": b, "side": "packet", "eta": eta, **row}), flush=True)


def _patched(module, attribute, replacement, call):
    with mock.patch.object(module, attribute, replacement):
        return call()


if __name__ == "__main__":
    main()
