"""Co-simulation: packet-level run vs fluid rcp model on fig5.3 and testbed."""

import csv
import json
from pathlib import Path

import numpy as np
import pytest

import rcpstab
from rcpstab.cli import main
from rcpstab.cosim.packet_vs_fluid import CSV_COLUMNS, cosimulate


@pytest.fixture(scope="module")
def fig53():
    return cosimulate("fig5.3", 0.4, 0.6)


@pytest.fixture(scope="module")
def testbed():
    return cosimulate("testbed", 0.4, 0.6)


def test_fig53_plateaus_in_both_runs(fig53):
    assert [s.n_flows for s in fig53.segments] == [5, 10, 5]
    for seg, expected in zip(fig53.segments, (0.2, 0.1, 0.2)):
        # The packet plateau sits below eta/N by beta*q/(alpha*d*C) for a standing queue of
        # ~2 packets (2.8% at N = 10); 3% is the packet effect, not slack for a wrong model.
        assert seg.packet_plateau == pytest.approx(expected, rel=0.03)
        assert seg.fluid_plateau == pytest.approx(expected, rel=0.005)


def test_fig53_rms_difference_outside_transients(fig53):
    # Bound: 5% of the fair share. The packet plateau offset (<= 3%) plus per-update jitter
    # (y counted in whole datagrams) give the measured ~1.8%; a fluid run with the wrong N or
    # shifted in time by a segment would be off by 50-100%.
    assert fig53.rms_relative < 0.05
    assert fig53.rms_R_over_C < 0.05 * 0.1
    assert fig53.steady.sum() > 0.7 * fig53.t.size


def test_fig53_settles_within_the_transient(fig53):
    for seg in fig53.segments:
        for settling in (seg.packet_settling_s, seg.fluid_settling_s):
            assert 0 < settling < fig53.transient_rtt * fig53.scenario.rtt_s


def test_testbed_flow_count_tracks_eta_C_over_R(testbed):
    steady = testbed.steady & (testbed.n_flows >= 1)
    n = testbed.n_flows[steady]
    assert set(n.tolist()) == {1, 2, 3, 4}
    for rate in (testbed.packet_R_over_C, testbed.fluid_R_over_C):
        estimate = testbed.scenario.eta / rate[steady]
        assert np.abs(estimate / n - 1).max() < 0.05
        assert np.array_equal(np.round(estimate), n)
    assert np.array_equal(testbed.packet_n_active[steady], n)


def test_cli_writes_csv_json_and_figure(tmp_path, capsys):
    out, table = tmp_path / "cosim.png", tmp_path / "cosim.csv"
    code = main(
        [
            "cosim",
            "--alpha",
            "0.4",
            "--beta",
            "0.6",
            "--scenario",
            "fig5.3",
            "--t-end",
            "60",
            "--out",
            str(out),
            "--csv",
            str(table),
            "--json",
        ]
    )
    assert code == 0
    assert out.stat().st_size > 10_000
    with open(table) as fh:
        rows = list(csv.reader(fh))
    assert tuple(rows[0]) == CSV_COLUMNS == ("t", "packet_R_over_C", "fluid_R_over_C", "packet_queue_bytes", "fluid_queue_bytes")
    assert len(rows) == 1 + 6000
    assert float(rows[-1][0]) == pytest.approx(60.0)
    summary = json.loads(capsys.readouterr().out)
    assert {
        "scenario",
        "alpha",
        "beta",
        "transient_rtt",
        "settle_band",
        "rms_R_over_C",
        "rms_relative",
        "segments",
        "packet_wall_time_s",
        "fluid_wall_time_s",
        "fluid_omits",
    } <= set(summary)
    assert [s["n_flows"] for s in summary["segments"]] == [5, 10]
    assert {"packet_plateau", "fluid_plateau", "packet_settling_s", "fluid_settling_s"} <= set(summary["segments"][0])


@pytest.mark.parametrize(
    "extra, named",
    [
        (["--scenario", "nope"], "nope"),
        (["--alpha", "0"], "alpha"),
        (["--alpha", "-1"], "alpha"),
        (["--buffer", "0"], "--buffer 0"),  # in bandwidth-delay products C*d0 (issue 11), packet and fluid alike
        (["--rtt", "-0.05"], "--rtt -0.05"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(extra, named, capsys):
    assert main(["cosim", "--alpha", "0.4", "--beta", "0.6", "--t-end", "1", *extra]) == 2
    err = capsys.readouterr().err
    # the option and the value are both named (the one table of domains words the rest)
    assert err.count("\n") == 1 and all(part in err for part in named.split()) and "Traceback" not in err


def test_results_carry_their_model_not_its_name(tmp_path):
    """issue 22 item 2: a co-simulation keeps the model object (a protocol file is read once), its JSON
    prints the model's name, and its figure draws without looking the model up again."""
    from rcpstab.models import MODELS, ModelSpec

    single = rcpstab.cosim(0.4, 0.6, "fig5.3", t_end=20)
    assert single.value.model is MODELS["rcp"] and single.to_dict()["model"] == "rcp"
    crowd = rcpstab.cosim(0.4, 0.226, "flash-crowd", C=10e6)
    assert crowd.value.model is MODELS["rcp"] and crowd.to_dict()["model"] == "rcp"
    path = str(Path(__file__).parents[1] / "examples" / "protocols" / "erpi.py")
    user = rcpstab.cosim(0.4, 0.6, "fig5.3", path, t_end=20)
    assert isinstance(user.value.model, ModelSpec) and user.value.model.name == "erpi"
    assert user.to_dict()["model"] == "erpi" and "erpi" in repr(user.value)
    c = user.to_dict()["conservation"]  # ER-PI's own packet router ran: every packet accounted for
    assert c["sent"] > 0 and c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"]
    out = tmp_path / "user.png"
    user.save(str(out))
    assert out.stat().st_size > 1000
