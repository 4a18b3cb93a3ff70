"""Scenario.n_flows (asked by the router's control path every interval) counts start <= t < stop exactly."""

import dataclasses
import math

import numpy as np

from rcpstab.packet.simulator.scenarios import FIG5_3


def test_count_equals_the_definition_at_every_edge():
    rng = np.random.default_rng(5)
    starts = rng.choice([0.0, 0.5, 1.0, 2.5, 4.0], 300)
    stops = starts + rng.choice([0.5, 1.5, 3.0, math.inf], 300)
    flows = tuple(zip(starts.tolist(), stops.tolist()))
    sc = dataclasses.replace(FIG5_3, long_flows=flows)
    times = sorted(set(starts.tolist()) | set(stops.tolist()) | {-1.0, 0.25, 1.75, 100.0, math.inf}) + [math.nextafter(1.5, 0)]
    for t in times:
        assert sc.n_flows(t) == sum(a <= t < b for a, b in flows), t
    as_list = dataclasses.replace(FIG5_3, long_flows=list(flows))  # a list works too
    assert [as_list.n_flows(t) for t in times] == [sc.n_flows(t) for t in times]
