"""Packet conservation in every co-simulation: sent = delivered + dropped + in flight, in the JSON too."""

import dataclasses
import json

import pytest

from rcpstab.cli import main
from rcpstab.cosim.packet_vs_fluid import cosimulate
from rcpstab.packet import get_scenario


@pytest.mark.parametrize(
    "model, scenario, change",
    [
        ("rcp", "fig5.3", {}),
        ("rcp-router", "fig5.3", {}),
        ("xcp", "fig5.3", {}),
        ("rcpac", "fig5.3", {}),
        ("rcp", "testbed", {}),
        ("rcp", "fig5.3", {"buffer_bytes": 6000, "initial_R_over_C": 1.0}),  # 5x overload into 4 packets: drops
    ],
)
def test_conservation(model, scenario, change):
    sc = dataclasses.replace(get_scenario(scenario), **change)
    result = cosimulate(sc, 0.4, 0.226, t_end=12.0, model=model)
    c = result.summary()["conservation"]
    assert set(c) == {"sent", "delivered", "dropped", "in_flight"}
    assert c["sent"] > 1000
    assert c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"]
    if change:
        assert c["dropped"] > 0


def test_cli_json_reports_conservation(capsys):
    assert main(["cosim", "--alpha", "0.4", "--beta", "0.2", "--t-end", "5", "--json"]) == 0
    c = json.loads(capsys.readouterr().out)["conservation"]
    assert c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"] > 0
