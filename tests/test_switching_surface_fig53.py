"""Packet converged where rcp-router cycles at fig5.3's own 10 Mb/s: the queue's switching surface.

Category B of the packet map's disagreements (alpha 0.95-1.25, beta 0.45-0.95; docs notebook 05,
experiments/region_counterfactuals.py --switching): rcp-router's equilibrium lies on the
surface (y = C, q = 0) and its small cycle is the switched system's; the packet router's paced
flows keep a jitter queue of about 2 packets, which the rate law balances by holding R/C 1-2%
below C/N, so the link runs under C and the loop is the stable alpha-only one. Moving only the
target utilization eta switches the cycle on and off on each side (measured over 70-100 s, the
10-flow segment).
"""

import dataclasses

import pytest

from rcpstab.packet.lens.fluid_twin import fluid_run
from rcpstab.packet.protocols import register_protocol
from rcpstab.packet.protocols.rcp import RcpProtocol
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import get_scenario
from rcpstab.packet.simulator.segments import rtt_average
from rcpstab.verdicts.judgement import dominant_oscillation

WINDOW = (70.0, 100.0)  # s: the 10-flow segment after its transient
SCENARIO = dataclasses.replace(get_scenario("fig5.3"), t_end_s=100.0)


class _TargetRcp(RcpProtocol):
    """App. F's router with its target utilization set after construction (may exceed 1)."""

    name = "rcp-target-fig53-test"
    target = 1.0

    def make_controller(self, *args, **kwargs):
        ctrl = super().make_controller(*args, **kwargs)
        ctrl.eta = self.target
        return ctrl


def _swing(t, gamma):
    """Half peak-to-peak of the one-RTT-mean R/C over WINDOW, relative to its mean, and its autocorrelation."""
    inside = (t >= WINDOW[0]) & (t < WINDOW[1])
    mean = rtt_average(gamma[inside], 10)
    dev = mean / mean.mean() - 1.0
    return 0.5 * (dev.max() - dev.min()), dominant_oscillation(dev, 10)[1], float(mean.mean())


@pytest.mark.parametrize("alpha, beta, cycle", [(1.0, 0.9, 0.037), (1.05, 0.75, 0.024)])
def test_fluid_cycle_needs_the_equilibrium_on_the_surface(alpha, beta, cycle):
    swings = []
    for eta in (1.0, 0.999):
        traj = fluid_run(dataclasses.replace(SCENARIO, eta=eta), alpha, beta, SCENARIO.t_end_s, "rcp-router")
        every = max(int(round(0.01 / traj.dt)), 1)
        swings.append(_swing(traj.t[every::every], traj.gamma[every::every, 0]))
        if eta < 1:
            assert traj.queue[traj.t >= WINDOW[0], 0].max() == 0.0  # the queue rests on its clamp
    (on, on_coh, _), (off, _, _) = swings
    assert on == pytest.approx(cycle, rel=0.1) and on_coh > 0.9
    assert off < 1e-4


def test_packet_cycle_returns_when_the_equilibrium_is_pushed_onto_the_surface():
    """(1.05, 0.75): at eta = 1 the packet R/C sits 1.7% under C/N and swings by counting noise
    (autocorrelation < 0.6); at eta = 1.01 (equilibrium queue alpha (eta - 1) C d / beta, 1.75
    packets, about the jitter queue) a coherent cycle of rcp-router's period (5.1 RTTs) returns."""
    protocol = register_protocol(_TargetRcp(), replace=True)
    out = {}
    for eta in (1.0, 1.01):
        protocol.target = eta
        run = run_scenario(SCENARIO, 1.05, 0.75, protocol=protocol.name)
        out[eta] = _swing(run.t, run.R_over_C)
    noise, noise_coh, level = out[1.0]
    cycle, cycle_coh, _ = out[1.01]
    assert level < 0.0995  # held under C/N = 0.1 by the jitter queue
    assert noise_coh < 0.6 and cycle_coh > 0.9
    assert cycle > 2.5 * noise and cycle > 0.04
