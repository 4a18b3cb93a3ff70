"""Why the packet cycle at (0.95, 0.95) is ten times smaller than rcp-router's (run by hand).

``python experiments/standing_queue.py``

fig5.3 at 100 Mb/s (10 flows from 40 s), alpha = beta = 0.95: rcp-router keeps a limit cycle of
+-2% of the fair share, the packet router one of +-0.26%. Hypothesis: the fluid equilibrium sits on
the queue's switching surface (y = C, q = 0), the packet one just inside the clamped side: paced
packets keep a jitter queue of about half a packet, which the rate law balances by holding R a
fraction beta q_s / (alpha d C) below C/N, so the link runs just under C, the queue rests on its
clamp, and the local loop is the alpha-only loop (stable), where the fluid's half-time queue
building (the switched system's slow growth) is not available. Two targeted experiments, one per
side, each moving only the target utilization eta:

- fluid ``rcp-router`` with eta just below 1 (the packet run's measured offset and a smaller one):
  if the hypothesis holds, the cycle disappears;
- packet router with eta just above 1 (a control-path plug-in that sets the controller's target;
  the scenario itself is unchanged): the equilibrium then needs a standing queue
  alpha (eta - 1) C d / beta of a packet or more, off the clamp, and the fluid's cycle should return.

Measured: half peak-to-peak of the one-RTT-mean R/C (relative to its mean) over 70-100 s, the
dominant period and autocorrelation, the queue (packets) and the fraction of expiries at q = 0.
"""

from __future__ import annotations

import dataclasses
import json

from rcpstab.packet.lens.fluid_twin import fluid_run
from rcpstab.packet.protocols import register_protocol
from rcpstab.packet.protocols.rcp import RcpProtocol
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import get_scenario
from rcpstab.packet.simulator.segments import rtt_average
from rcpstab.verdicts.judgement import dominant_oscillation

ALPHA = BETA = 0.95
WINDOW = (70.0, 100.0)  # s: the 10-flow segment after its transient


class TargetRcp(RcpProtocol):
    """App. F's router with its target utilization set after construction (may exceed 1)."""

    name = "rcp-target"
    target = 1.0

    def make_controller(self, *args, **kwargs):
        ctrl = super().make_controller(*args, **kwargs)
        ctrl.eta = self.target
        return ctrl


TARGET = TargetRcp()


def measure(t, gamma, queue_bytes, packet_bytes, per_rtt=10) -> dict:
    inside = (t >= WINDOW[0]) & (t < WINDOW[1])
    mean = rtt_average(gamma[inside], per_rtt)
    dev = mean / mean.mean() - 1.0
    period, coherence = dominant_oscillation(dev, per_rtt)
    q = queue_bytes[inside] / packet_bytes
    return {
        "R_over_C_mean": float(mean.mean()),
        "half_p2p": float(0.5 * (dev.max() - dev.min())),
        "period_rtt": period,
        "coherence": coherence,
        "queue_mean_pk": float(q.mean()),
        "queue_max_pk": float(q.max()),
        "at_zero": float((q <= 0).mean()),
    }


def main() -> None:
    register_protocol(TARGET)
    scenario = dataclasses.replace(get_scenario("fig5.3"), name="fig5.3@100M", capacity_bps=100e6, t_end_s=100.0)
    rows = []
    for eta in (1.0, 0.9997, 0.9994):
        fluid = fluid_run(dataclasses.replace(scenario, eta=eta), ALPHA, BETA, scenario.t_end_s, "rcp-router")
        every = max(int(round(0.01 / fluid.dt)), 1)
        rows.append(
            {
                "side": "rcp-router",
                "eta": eta,
                **measure(
                    fluid.t[every::every], fluid.gamma[every::every, 0], fluid.queue[every::every, 0] / 8, scenario.packet_bytes
                ),
            }
        )
    for eta in (1.0, 0.995, 1.001, 1.002):
        TARGET.target = eta
        run = run_scenario(scenario, ALPHA, BETA, protocol="rcp-target")
        rows.append(
            {"side": "packet", "eta": eta, **measure(run.t, run.R_over_C, run.queue_bytes.astype(float), scenario.packet_bytes)}
        )
    for r in rows:
        print(
            f"{r['side']:10s} eta {r['eta']:<7g} R/C {r['R_over_C_mean']:.5f}  cycle +-{100 * r['half_p2p']:.2f}%  "
            f"period {r['period_rtt']:.1f} RTT (autocorr. {r['coherence']:.2f})  queue mean {r['queue_mean_pk']:.1f} "
            f"max {r['queue_max_pk']:.0f} packets, at 0 in {100 * r['at_zero']:.0f}% of expiries"
        )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
