"""rcp-router's cycle at (0.95, 0.95) needs its equilibrium on the queue's switching surface (docs notebook 05).

The packet router's jitter queue holds its equilibrium 0.06% below C (measured at 100 Mb/s:
R/C = 0.09994), on the clamped side; at that offset the fluid model's cycle is gone too
(experiments/standing_queue.py runs the packet side).
"""

import numpy as np
import sympy as sp

from rcpstab.linear.roots import rightmost_root
from rcpstab.models import get_model, rcp_router
from rcpstab.phaseplane import simulate
from rcpstab.verdicts.judgement import judge_trace


def test_cycle_needs_the_equilibrium_on_the_switching_surface():
    """10 flows on 100 Mb/s, 100 ms, T = 10 ms, from R/C = 0.05 eta: at eta = 1 a limit cycle of
    about +-2%, at the packet run's eta_eff = 0.9994 (and at 0.9997) the queue ends empty and R
    converges. The linear loop (eta = 1 by construction) is unstable there: rightmost root at
    lambda = 0.227 + 1.103j for rcp-router at T/d0 = 1/10."""
    root = rightmost_root(rcp_router.at_interval_ratio(sp.Rational(1, 10)), 0.95, 0.95)
    assert abs(root - (0.2268 + 1.1032j)) < 1e-3
    etas = np.array([1.0, 0.9997, 0.9994])
    params = {"alpha": 0.95, "beta": 0.95, "C": 100e6, "d0": 0.1, "T": 0.01, "N": 10, "eta": etas}
    run = simulate(get_model("rcp-router"), params, {"gamma0": 0.05 * etas, "q0": 0.0}, 100.0, record_every=1)
    late = run.t >= 40.0
    t_rtt = run.t[late] / 0.1
    judged = judge_trace(t_rtt, run.gamma[late], run.queue[late], 0.1 * etas, 0.0, 100e6 * 0.1)
    assert list(judged.names) == ["limit_cycle", "converged", "converged"], list(judged.reason)
    swing = 0.5 * (run.gamma[late, 0].max() - run.gamma[late, 0].min()) / 0.1
    assert 0.015 < swing < 0.025
    assert run.queue[run.t >= 70.0, 1:].max() == 0.0  # the queue rests on its clamp
