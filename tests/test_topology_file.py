"""Topology files: the fig5.7 file is the fig5.7 preset, flows start and stop, buffers drop, traces export."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli

from rcpstab.cosim.network_packet_run import run_network, run_topology
from rcpstab.errors import InputError
from rcpstab.network.topology import FlowGroup, Link, Network, fig57
from rcpstab.packet.simulator.topofile import load_topology

ROOT = Path(__file__).resolve().parent.parent
FIG57_FILE = ROOT / "examples" / "topologies" / "fig5.7.toml"
T_END = 2.0  # 200 control intervals at L1: seconds of CPU, the whole transient of the short flows

PARKING_LOT = """
[[links]]
name = "A"
capacity_bps = 10e6
delay_s = 0.005
buffer_bytes = {buffer}
[[links]]
name = "B"
capacity_bps = 20e6
delay_s = 0.005
buffer_bytes = {buffer}
[[flows]]
name = "through"
path = ["A", "B"]
[[flows]]
name = "late"
count = 2
path = ["A"]
start_s = 1.0
[[flows]]
name = "early"
path = ["B"]
stop_s = 2.0
"""


def test_fig57_file_runs_the_fig57_preset():
    """Two independent builders (the preset's Network, the file's links and flows) give the same packet run."""
    preset = run_network(fig57(), 0.4, 0.2, T_END)
    from_file = run_topology(FIG57_FILE, 0.4, 0.2, T_END)
    assert from_file.counters == preset.counters and preset.counters["events"] > 100_000
    assert list(from_file.traces) == ["L1", "L2", "L3"]
    for link, trace in preset.traces.items():
        for field, values in trace.items():
            assert np.array_equal(from_file.traces[link][field], values, equal_nan=True), (link, field)
    assert np.array_equal(from_file.flow_bytes, preset.flow_bytes)
    assert np.array_equal(from_file.flow_delivered_bytes, preset.flow_delivered_bytes)


def test_cosim_on_the_file_judges_l1_l3_as_the_preset(tmp_path):
    import rcpstab

    preset = rcpstab.cosim(0.4, 0.2, "fig5.7", t_end=T_END).to_dict()
    from_file = rcpstab.cosim(0.4, 0.2, str(FIG57_FILE), t_end=T_END).to_dict()
    for side in ("packet", "fluid"):
        for key, value in preset[side].items():
            assert from_file[side][key] == value, (side, key)
        assert "L2_final_rate_bps" in from_file[side]  # a file's summary judges every link


def test_json_file_is_the_toml_file(tmp_path):
    path = tmp_path / "fig5.7.json"
    path.write_text(json.dumps(tomllib.loads(FIG57_FILE.read_text())))
    assert load_topology(path) == load_topology(FIG57_FILE)


def test_max_min_shares_starts_stops_and_per_flow_trace(tmp_path):
    """10 Mb/s link A shared by 3 flows from t = 1 s; the 'early' flow gets B's rest (20 - 10/3 Mb/s) until 2 s."""
    path = tmp_path / "pl.toml"
    path.write_text(PARKING_LOT.format(buffer=30000))
    run = run_topology(path, 0.4, 0.2, 4.0, flow_sample_s=0.5)
    flows = run.to_pandas("flows")
    rate = flows.pivot(index="t_s", columns="flow", values="throughput_bps")
    assert (rate.loc[:1.0, ["late[0]", "late[1]"]] == 0).all().all()  # not started
    assert (rate.loc[3.0:, "early[0]"] == 0).all()  # stopped
    share = 10e6 / 3
    for flow in ("through[0]", "late[0]", "late[1]"):
        assert rate.loc[3.0:, flow].to_numpy() == pytest.approx(share, rel=0.03)
    assert rate.loc[2.0, "early[0]"] == pytest.approx(20e6 - share, rel=0.03)
    # the per-flow trace integrates to the bytes delivered, and the rates to the delivered bytes
    last = flows[flows.t_s == 4.0].set_index("flow").delivered_bytes
    assert last.to_numpy() == pytest.approx(run.flow_bytes)
    assert (rate.sum() * 0.5 / 8).to_numpy() == pytest.approx(last[rate.columns].to_numpy())
    links = run.to_pandas("links")
    assert sorted(links.link.unique()) == ["A", "B"]
    assert len(links) == sum(tr["t"].size for tr in run.traces.values())
    csv = tmp_path / "flows.csv"
    run.to_csv(csv, "flows")
    assert csv.read_text().splitlines()[0] == "flow,t_s,delivered_bytes,throughput_bps"


def test_buffer_is_the_drop_tail_limit(tmp_path):
    """A 2-packet buffer drops at start-up; an unbounded one never does (same flows, same gains)."""
    dropped = {}
    for buffer in ("3000", '"unbounded"'):
        path = tmp_path / "pl.toml"
        path.write_text(PARKING_LOT.format(buffer=buffer))
        dropped[buffer] = run_topology(path, 0.4, 0.2, 1.5).counters["dropped"]
    assert dropped['"unbounded"'] == 0 < dropped["3000"]


IDLE_LINK = '[[links]]\nname = "C"\ncapacity_bps = 1e6\ndelay_s = 0.01\nbuffer_bytes = 30000\n'
BAD_FILES = [
    (('"A", "B"]', '"A", "C"]'), "unknown link 'C'"),
    (("delay_s = 0.005", "delay_s = -1"), "delay_s=-1"),
    (("buffer_bytes = 30000", "buffer_bytes = 100"), "buffer_bytes=100"),
    (("stop_s = 2.0", "stop_s = 0.0"), "start_s=0, start_jitter_s=0, stop_s=0"),
    (("count = 2", "count = 2\nrate = 3"), "unknown key 'rate'"),
    (("[[links]]", "[[links]"), "topology file"),
    # issue 27: beyond the one domain table these reached the packet simulator (internal error, exit 1)
    (("capacity_bps = 10e6", "capacity_bps = 1e20"), "links[A].capacity_bps=1e+20: must be in [1, 1e+13] bit/s"),
    (("delay_s = 0.005", "delay_s = 1e12"), "links[A].delay_s=1000000000000.0: must be in [0, 100] s"),
    (("buffer_bytes = 30000", "buffer_bytes = 1180591620717411303424"), "links[A].buffer_bytes=1180591620717411303424"),
    (("start_s = 1.0", "start_s = 1e12"), "flows[late].start_s=1000000000000.0: must be in [0, 1e+06] s"),
    (("count = 2", "count = 10000000000"), "flows[late].count=10000000000: must be an integer in [1, 1e+09]"),
    # a link no flow crosses: its router had avg_rtt = 0 and the message named neither the link nor why
    (("[[flows]]", IDLE_LINK + "[[flows]]"), "link 'C' is crossed by no flow"),
    # a 2e-9 s round trip: the routers' control interval follows it (one expiry per 2 ns, a hang)
    (("delay_s = 0.005", "delay_s = 1e-9"), "flows[late] round trip (its links' delays)=2e-09: must be >= 1e-06 s"),
]


@pytest.mark.parametrize("edit, named", BAD_FILES)
def test_bad_file_is_one_line_naming_the_value(tmp_path, edit, named, capsys, monkeypatch):
    path = tmp_path / "bad.toml"
    path.write_text(PARKING_LOT.format(buffer=30000).replace(*edit, 1))
    with pytest.raises(InputError, match=re.escape(named)):
        load_topology(path)
    argv = ["cosim", "--alpha", "0.4", "--beta", "0.2", "--scenario", str(path), "--t-end", "1"]
    if (edit, named) == BAD_FILES[0]:  # one in a real process: exit code 2, one line, no traceback
        proc = subprocess.run([sys.executable, "-m", "rcpstab", *argv], capture_output=True, text=True, cwd=tmp_path)
        code, err = proc.returncode, proc.stderr
    else:  # the rest through the same main() in this process: ~1.2 s of start-up each
        monkeypatch.chdir(tmp_path)
        code, _, err = run_cli(capsys, *argv)
    assert code == 2 and named in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_link_no_flow_crosses_is_refused_alike_by_the_api_and_both_lenses(tmp_path):
    """The file through rcpstab.cosim, and the same network given to the fluid model and the packet run."""
    import rcpstab

    path = tmp_path / "idle.toml"
    path.write_text(PARKING_LOT.format(buffer=30000).replace("[[flows]]", IDLE_LINK + "[[flows]]", 1))
    named = "link 'C' is crossed by no flow"
    with pytest.raises(InputError, match=named):
        rcpstab.cosim(0.4, 0.2, str(path), t_end=1.0)
    with pytest.raises(InputError, match=named):  # the fluid side's Network: simulate_network and run_network take it
        Network((Link("A", 1e7, 0.005), Link("C", 1e6, 0.01)), (FlowGroup("f", 1, ("A",), 0.01),))
    assert Network((Link("A", 1e7, 0.005),), (FlowGroup("f", 1, ("A",), 0.01),)).link_index("A") == 0
    with pytest.raises(InputError, match=re.escape("group 'f' rtt=2e-09: must be >= 1e-06 s")):  # the same bound
        Network((Link("A", 1e7, 1e-9),), (FlowGroup("f", 1, ("A",), 2e-9),))


def test_cosim_refuses_what_the_fluid_model_cannot_run(tmp_path):
    path = tmp_path / "pl.toml"
    path.write_text(PARKING_LOT.format(buffer='"unbounded"'))
    import rcpstab

    with pytest.raises(InputError, match="long-lived flows from t = 0"):
        rcpstab.cosim(0.4, 0.2, str(path), t_end=1.0)


def test_start_jitter_draws_from_the_seed_within_its_window(tmp_path):
    path = tmp_path / "plj.toml"
    path.write_text(PARKING_LOT.format(buffer=30000).replace("start_s = 1.0", "start_s = 1.0\nstart_jitter_s = 0.5"))
    spec = load_topology(path)
    topology, group_paths = spec.packet_topology()
    tables = [spec.flow_table(group_paths, seed) for seed in (0, 1)]
    starts = [np.array([row[0] for row in table]) / 1e9 for table in tables]
    late = [name.startswith("late") for name in spec.flow_names()]
    for s in starts:
        assert ((s[late] >= 1.0) & (s[late] < 1.5)).all() and (s[~np.array(late)] == 0).all()
    assert not np.array_equal(starts[0], starts[1])
    assert tables[0] == spec.flow_table(group_paths, 0)  # a seed fixes the table


def test_seeds_replications_and_intervals(tmp_path):
    """Without jitter every seed gives the same run (width 0); with it the runs differ and A's rate
    stays at the max-min share 1/3 of its capacity."""
    import rcpstab

    plain, jittered = tmp_path / "pl.toml", tmp_path / "plj.toml"
    plain.write_text(PARKING_LOT.format(buffer=30000))
    jittered.write_text(plain.read_text().replace("start_s = 1.0", "start_s = 1.0\nstart_jitter_s = 0.5"))
    same = rcpstab.cosim(0.4, 0.2, str(plain), t_end=4.0, seeds=3).to_dict()
    assert all(len(set(values)) == 1 for values in same["values"].values())  # identical runs
    # width 0 up to the rounding of a mean of equal floats
    assert all(q["ci_high"] - q["ci_low"] <= 1e-12 * abs(q["mean"]) for q in same["quantities"].values())
    result = rcpstab.cosim(0.4, 0.2, str(jittered), t_end=4.0, seeds=3)
    quantities = result.to_dict()["quantities"]
    assert quantities["late_throughput_bps"]["std"] > 0
    assert quantities["A_R_over_C"]["mean"] == pytest.approx(1 / 3, rel=0.02)
    for q in quantities.values():
        assert q["ci_low"] <= q["mean"] <= q["ci_high"] and q["n"] == 3
    table = result.to_pandas()
    assert list(table.columns) == ["quantity", "mean", "std", "ci_low", "ci_high", "n"] and len(table) == 7


def test_seeds_refused_where_the_seed_changes_nothing(capsys):
    from rcpstab.cli import main

    assert main(["cosim", "--alpha", "0.4", "--beta", "0.2", "--scenario", "fig5.3", "--seeds", "3"]) == 2
    assert "deterministic" in capsys.readouterr().err


def test_cosim_names_and_draws_a_files_own_links(tmp_path):
    """Link names are the file's: the summary judges each one and the figure draws each one's rate."""
    import matplotlib

    matplotlib.use("Agg")
    import rcpstab

    path = tmp_path / "renamed.toml"
    path.write_text(FIG57_FILE.read_text().replace('"L1"', '"X1"').replace('"L3"', '"X3"'))
    result = rcpstab.cosim(0.4, 0.2, str(path), t_end=1.0)
    preset = rcpstab.cosim(0.4, 0.2, "fig5.7", t_end=1.0).to_dict()["packet"]
    packet = result.to_dict()["packet"]
    assert packet["X1_final_rate_bps"] == preset["L1_final_rate_bps"] and "L1_final_rate_bps" not in packet
    assert "X3 " in result.summary() and "RTT estimate at X1" in result.summary()
    fig = result.plot()
    assert [ax.get_title() for ax in fig.axes[:3]] == ["RCP rate at X1", "RCP rate at L2", "RCP rate at X3"]


def test_c_and_python_simulators_agree_on_a_file_with_drops_starts_and_stops(tmp_path):
    """The C event loop and its Python twin run a file's buffers, starts and stops identically."""
    path = tmp_path / "pl.toml"
    path.write_text(PARKING_LOT.format(buffer=6000).replace("stop_s = 2.0", "stop_s = 1.2"))
    runs = [run_topology(path, 0.4, 0.2, 1.6, backend=b, flow_sample_s=0.4) for b in ("c", "python")]
    assert runs[0].counters == runs[1].counters and runs[0].counters["dropped"] > 0
    for link, trace in runs[0].traces.items():
        for field, values in trace.items():
            assert np.array_equal(runs[1].traces[link][field], values, equal_nan=True), (link, field)
    assert np.array_equal(runs[0].flow_delivered_bytes, runs[1].flow_delivered_bytes)
