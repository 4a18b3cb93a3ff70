"""The single-link presets are topology files (rcpstab/packet/simulator/presets/): each gives the set-up the
thesis describes, field by field, and a copy of the file runs bit-identical to the named preset.

The reference set-ups are written out here from the thesis (Fig. 5.3; Sec. 6.1.2's testbed), as the presets
were defined before they became files, so a wrong number in a file fails."""

import dataclasses
import math
import shutil

import numpy as np
import pytest

import rcpstab
from rcpstab.errors import InputError
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import PRESETS, SCENARIOS, Scenario, get_scenario
from rcpstab.packet.simulator.topofile import load_topology

THESIS = {
    # Fig. 5.3: 5 flows 0-100 s, 5 more from 40 s; 10 Mb/s, 100 ms (the thesis gives neither), eta 1
    "fig5.3": Scenario(
        name="fig5.3",
        capacity_bps=10e6,
        rtt_s=0.1,
        eta=1.0,
        long_flows=((0.0, 100.0),) * 5 + ((40.0, math.inf),) * 5,
        t_end_s=150.0,
    ),
    # Sec. 6.1.2: 10 Mb/s, eta 0.9, 50 ms NetEm on the data direction only, ACKs over 100 Mb/s, senders ask
    # for 100 Mb/s, 100 s flows from 0, 20, 40, 60 s
    "testbed": Scenario(
        name="testbed",
        capacity_bps=10e6,
        rtt_s=0.05,
        eta=0.9,
        long_flows=tuple((s, s + 100.0) for s in (0.0, 20.0, 40.0, 60.0)),
        t_end_s=180.0,
        forward_delay_share=1.0,
        reverse_capacity_bps=100e6,
        request_bps=100e6,
    ),
}


@pytest.mark.parametrize("name", sorted(THESIS))
def test_preset_file_is_the_thesis_set_up_on_every_field(name):
    from_file = load_topology(PRESETS / f"{name}.toml").single_link()
    for field in dataclasses.fields(Scenario):
        assert getattr(from_file, field.name) == getattr(THESIS[name], field.name), field.name
    assert SCENARIOS[name] == THESIS[name]


def run_fields(run) -> dict:
    return {f.name: getattr(run, f.name) for f in dataclasses.fields(run) if f.name not in ("wall_time_s", "scenario")}


@pytest.mark.parametrize("name, t_end", [("fig5.3", 60.0), ("testbed", 80.0)])
def test_a_copy_of_the_file_runs_bit_identical_to_the_preset(name, t_end, tmp_path):
    copy = tmp_path / f"my-{name}.toml"
    shutil.copy(PRESETS / f"{name}.toml", copy)
    preset = run_fields(run_scenario(THESIS[name], 1.2, 0.6, t_end=t_end))
    from_file = run_fields(run_scenario(str(copy), 1.2, 0.6, t_end=t_end))
    assert preset.keys() == from_file.keys()
    assert preset["counters"]["events"] > 100_000
    for key, value in preset.items():
        if isinstance(value, np.ndarray):
            assert value.dtype == from_file[key].dtype and np.array_equal(value, from_file[key], equal_nan=True), key
        else:
            assert value == from_file[key], key

    # and through rcpstab.cosim: the same single-link comparison, number for number
    def numbers(result):
        return {k: v for k, v in result.to_dict().items() if not k.endswith("wall_time_s")}

    named = numbers(rcpstab.cosim(1.2, 0.6, name, t_end=t_end))
    assert numbers(rcpstab.cosim(1.2, 0.6, str(copy), t_end=t_end)) == named and len(named) > 10


def test_an_edited_copy_changes_the_run(tmp_path):
    # the file is what runs: twice the capacity halves nothing in R/C but doubles the delivered bytes
    copy = tmp_path / "fast.toml"
    copy.write_text((PRESETS / "fig5.3.toml").read_text().replace("capacity_bps = 10e6", "capacity_bps = 20e6"))
    assert get_scenario(str(copy)).capacity_bps == 20e6
    assert get_scenario(str(copy)).effective_buffer_bytes == 2 * THESIS["fig5.3"].effective_buffer_bytes


def test_a_network_file_is_no_single_link_scenario(tmp_path):
    path = tmp_path / "two.toml"
    path.write_text(
        (PRESETS / "fig5.3.toml")
        .read_text()
        .replace(
            '[[flows]]\nname = "first"',
            '[[links]]\nname = "other"\ncapacity_bps = 1e6\ndelay_s = 0.01\nbuffer_bytes = 30000\n\n'
            '[[flows]]\nname = "side"\npath = ["other"]\n\n[[flows]]\nname = "first"',  # every link crossed
            1,
        )
    )
    assert load_topology(path).single_link() is None
    with pytest.raises(InputError, match="not a single-link scenario"):
        get_scenario(str(path))
