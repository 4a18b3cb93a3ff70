"""Issue 24: the ns-3 run specs and result decoding (rcpstab/fct/tcp_ns3.py), without ns-3."""

from __future__ import annotations

import numpy as np
import pytest

from rcpstab.errors import InputError
from rcpstab.fct.tcp_ns3 import MAX_FLOWS, SEGMENT_BYTES, dumbbell_spec, flow_fct, red_spec, tcp_runs


def test_dumbbell_spec_is_one_link_of_one_bdp():
    spec = dumbbell_spec([0.0, 0.5, 1.25], [3, 10, 1], 150e6, 0.1, 2.0)
    assert spec["links"] == [{"C": 150e6, "delay_s": 0.05, "buffer_pkts": 1875}]  # 150e6 * 0.1 / 8000
    assert [f["size_pkts"] for f in spec["flows"]] == [3, 10, 1]
    assert {(f["src"], f["dst"]) for f in spec["flows"]} == {(0, 1)} and spec["stop_s"] == 3.25


def test_flow_fct_needs_every_byte_and_counts_from_the_arrival():
    result = {"flows": [[3 * SEGMENT_BYTES, 0.4], [10 * SEGMENT_BYTES - 1, 0.9], [0.0, None]]}
    fct = flow_fct(result, [0.1, 0.2, 0.3], [3, 10, 1])
    assert fct[0] == pytest.approx(0.3) and np.isnan(fct[1]) and np.isnan(fct[2])


def test_red_spec_thirds_of_the_buffer_and_too_many_flows_refused():
    assert red_spec(90, ecn=False) == {"min_th": 30, "max_th": 60, "limit": 90, "gentle": True, "ecn": False}
    flows = [{"src": 0, "dst": 1, "start_s": 0.0, "size_pkts": 1}] * (MAX_FLOWS + 1)
    with pytest.raises(InputError, match="at most"):
        tcp_runs([{"links": [], "flows": flows, "stop_s": 1.0, "sample_s": 0.1}])
