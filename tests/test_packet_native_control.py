"""RCP's control path run in C with the event loop (``Simulator.rcp_intervals``) against the Python twin."""
import dataclasses

import numpy as np
import pytest

from rcpstab.packet.simulator import run as runner
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import FIG5_3


@pytest.mark.parametrize("estimator", ["appf", "ns2"])
@pytest.mark.parametrize("capacity_bps", [10e6, 100e6])
def test_the_c_control_path_gives_the_python_twins_run_to_the_bit(estimator, capacity_bps, monkeypatch):
    scenario = dataclasses.replace(FIG5_3, capacity_bps=capacity_bps)
    calls = []
    native = runner._native_rcp
    monkeypatch.setattr(runner, "_native_rcp", lambda *a: calls.append(native(*a)) or calls[-1])
    c = run_scenario(scenario, alpha=0.4, beta=0.2, backend="c", t_end=4.0, rtt_estimator=estimator)
    py = run_scenario(scenario, alpha=0.4, beta=0.2, backend="python", t_end=4.0, rtt_estimator=estimator)
    assert calls[0] is not None and calls[1] is None      # C ran the control path natively, Python in Python
    assert c.counters == py.counters
    assert c.t.size > 300                                 # one row per expiry (Tr = 10 ms)
    for name in ("t", "R_over_C", "queue_bytes", "n_active", "utilization", "dropped_packets", "avg_rtt_s",
                 "throughput_t", "flow_throughput_bps", "flow_completion_s"):
        assert np.array_equal(getattr(c, name), getattr(py, name), equal_nan=True), name
