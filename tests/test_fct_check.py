"""`rcpstab check --fct`: the flow-completion finding at the envelope's typical set-up."""

from __future__ import annotations

import math

import pytest

from rcpstab.check.config import parse_config
from rcpstab.check.fct import MAX_AFCT_OVER_PS, fct_finding, typical_setup


def test_typical_setup_is_the_documented_one():
    cfg = parse_config({"router": {"ALPHA": 0.5, "BETA": 0.5}, "envelope": {"link_mbps": [10, 10000], "rtt_ms": [20, 500]}})
    s = typical_setup(cfg)
    assert s["capacity_bps"] == pytest.approx(math.sqrt(10 * 10000) * 1e6)
    assert s["rtt_s"] == pytest.approx(0.1)
    assert (s["load"], s["sizes"], s["buffer_bdp"]) == (0.9, "pareto:mean=25,shape=1.2", 1.0)
    huge = parse_config({"router": {"ALPHA": 0.5, "BETA": 0.5}, "envelope": {"link_mbps": [1000, 100000]}})
    assert typical_setup(huge)["capacity_bps"] == 2.4e9  # capped at Fig. 4.1's link


def test_finding_passes_with_the_rule_of_thumb_buffer_and_fails_with_a_tiny_one():
    good = fct_finding(parse_config({"router": {"ALPHA": 0.5, "BETA": 0.5}}), flows=3000)
    assert good.passed and good.kind == "fct" and 0.95 < good.figure < MAX_AFCT_OVER_PS
    # 5% of a BDP: new flows all start at R before the router can react, the buffer overflows
    # and SYN / data losses cost timeouts (thesis Sec. 5.4: loss rises as the buffer shrinks).
    tiny = fct_finding(parse_config({"router": {"ALPHA": 0.5, "BETA": 0.5}, "envelope": {"buffer_bdp": 0.05}}), flows=3000)
    assert not tiny.passed and tiny.figure > 2 * MAX_AFCT_OVER_PS
    assert "loss probability" in tiny.explanation
