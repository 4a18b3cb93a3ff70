"""A user's protocol file with a packet protocol beside its fluid model (examples/protocols/erpi.py).

The file's PACKET_PROTOCOL (ER-PI's controller on RCP's data path) is registered under the model's
name and runs through the packet lens: the simulator, the packet map with its fluid twin, cosim.
"""

import json
import math
import pathlib
import textwrap

import numpy as np
import pytest
from conftest import rcp_inside

from rcpstab.cli import main
from rcpstab.errors import InputError
from rcpstab.models import get_model
from rcpstab.packet.protocols import PACKET_PROTOCOLS
from rcpstab.packet.protocols.registry import model_protocol
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import Scenario

EXAMPLE = str(pathlib.Path(__file__).parent.parent / "examples" / "protocols" / "erpi.py")
ETA, N_FLOWS, CAPACITY_BPS = 0.9, 2, 10e6
TWO_FLOWS = Scenario(
    name="two-flows", capacity_bps=CAPACITY_BPS, rtt_s=0.02, eta=ETA, long_flows=((0.0, math.inf),) * N_FLOWS, t_end_s=6.0
)


@pytest.fixture
def erpi():
    """The example's packet protocol, registered for one test (the registry holds the bundled three after)."""
    yield model_protocol(get_model(EXAMPLE))
    PACKET_PROTOCOLS.pop("erpi", None)


def test_the_file_packet_protocol_is_registered_under_the_model_name(erpi):
    assert erpi.name == "erpi" and PACKET_PROTOCOLS["erpi"] is erpi
    assert erpi.datapath == "rcp" and erpi.sender == "rtcp"
    assert model_protocol(get_model(EXAMPLE)) is erpi  # once per process
    assert model_protocol(get_model("rcp")) is None  # a bundled model has no file


def test_a_user_packet_protocol_reaches_its_fixed_point_at_the_receivers(erpi):
    run = run_scenario(TWO_FLOWS, 0.4, 0.2, protocol="erpi")
    share = ETA / N_FLOWS  # ER-PI's fixed point: y = eta C, no queue, every flow eta C / N
    late = run.throughput_t > 2.0
    per_flow = run.flow_throughput_bps[late].mean(axis=0) / CAPACITY_BPS  # what the receivers got
    assert per_flow == pytest.approx([share] * N_FLOWS, rel=0.02)
    assert np.mean(run.R_over_C[run.t > 2.0]) == pytest.approx(share, rel=0.02)
    assert run.counters["dropped"] == 0 and run.queue_bytes[run.t > 2.0].max() <= 2 * TWO_FLOWS.packet_bytes
    # the C loop and its Python twin run the user's controller alike
    c = run_scenario(TWO_FLOWS, 0.4, 0.2, protocol="erpi", backend="c", t_end=1.0)
    py = run_scenario(TWO_FLOWS, 0.4, 0.2, protocol="erpi", backend="python", t_end=1.0)
    assert c.counters == py.counters and np.array_equal(c.R_over_C, py.R_over_C)


def test_packet_map_of_a_user_protocol_follows_its_bell_and_its_fluid_twin(erpi, capsys):
    # ER-PI linearizes to RCP's characteristic equation: (0.4, 0.2) is under the bell, (1.8, 0.2) is not
    # in a worker process (it loads the file again and registers the packet protocol there)
    assert (
        main(
            [
                "map",
                "--method",
                "packet",
                "--model",
                EXAMPLE,
                "--alpha",
                "0.4:1.8:1.4",
                "--beta",
                "0.2:0.2:1",
                "--workers",
                "2",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    A, B = np.meshgrid(out["alpha"], out["beta"])
    assert np.array_equal(np.array(out["stable"], dtype=bool), rcp_inside(A, B))
    assert out["meta"]["fluid_model"] == "erpi" and out["meta"]["fluid_agreement"] == 1.0


def test_cosim_of_a_user_protocol_matches_its_fluid_plateaus(erpi, capsys):
    assert main(["cosim", "--model", EXAMPLE, "--alpha", "0.4", "--beta", "0.2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["n_flows"] for s in out["segments"]] == [5, 10, 5]
    for seg in out["segments"]:  # fig5.3: eta = 1, the fixed point 1/N packet by packet and in the fluid model
        assert seg["fluid_plateau"] == pytest.approx(1 / seg["n_flows"], rel=1e-4)
        assert seg["packet_plateau"] == pytest.approx(1 / seg["n_flows"], rel=0.02)
    assert out["rms_relative"] < 0.02


def test_a_file_whose_packet_protocol_is_not_one_is_refused(tmp_path, capsys):
    bad = tmp_path / "bad_packet.py"
    bad.write_text(pathlib.Path(EXAMPLE).read_text().replace("PACKET_PROTOCOL = ErpiPacket()", "PACKET_PROTOCOL = 3"))
    with pytest.raises(InputError, match="PACKET_PROTOCOL is not a PacketProtocol"):
        model_protocol(get_model(str(bad)))
    assert main(["cosim", "--model", str(bad), "--alpha", "0.4", "--beta", "0.2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "PACKET_PROTOCOL" in err[0]
    # a model file without one: the packet commands name what they run
    plain = tmp_path / "plain_model.py"
    plain.write_text(textwrap.dedent(pathlib.Path(EXAMPLE).read_text().split("\n\nclass ErpiPacket")[0]))
    assert main(["cosim", "--model", str(plain), "--alpha", "0.4", "--beta", "0.2"]) == 2
    assert "packet simulator runs" in capsys.readouterr().err
    assert "erpi" not in PACKET_PROTOCOLS
