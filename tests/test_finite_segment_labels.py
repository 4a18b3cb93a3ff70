"""Rule 4 on the packet map's finite segments (docs notebook 05, classes B and C).

A segment of fig5.3 ends when the flow count changes; a growth still unresolved there is
`undecided`, and the longer run shows what it was: rcp-router's growth at (1.1, 0.6) is a small
limit cycle, the packet segment's at (1.05, 0.65) noise that settles at 100 Mb/s and over 600 s.
"""

import dataclasses
import math
from unittest import mock

from rcpstab.packet.lens import region
from rcpstab.packet.lens import verdicts as lens_verdicts
from rcpstab.packet.lens.region import fluid_verdicts, run_verdict
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import get_scenario
from rcpstab.phaseplane.verdicts import CONVERGED, LIMIT_CYCLE, UNDECIDED

FIG53 = get_scenario("fig5.3")
LONG = dataclasses.replace(FIG53, name="fig5.3-long", long_flows=((0.0, math.inf),) * 10, t_end_s=600.0)


def _segment_judgements(call):
    """The full judgement of every segment judged while ``call()`` runs."""
    seen = []

    def recording(*args, **kwargs):
        j = lens_verdicts.judgement_of_segment(*args, **kwargs)
        seen.append(j)
        return int(j.codes[0]), float(j.convergence_rtt[0])

    with mock.patch.object(region, "judge_segment", recording):
        code = call()
    return code, seen


def test_rcp_router_growth_inside_the_band_is_undecided_then_a_cycle():
    code, segments = _segment_judgements(lambda: fluid_verdicts(FIG53, [1.1], [0.6])[0][0])
    ten = segments[1]  # the 10-flow segment, 600 RTTs
    assert code == UNDECIDED and ten.names[0] == "undecided"
    assert "inside the band" in ten.reason[0]
    assert 0.002 < ten.rate_per_rtt[0] < 0.003  # measured growth, kept in the judgement
    assert fluid_verdicts(LONG, [1.1], [0.6])[0][0] == LIMIT_CYCLE


def test_packet_growth_from_the_noise_floor_is_undecided_and_settles_at_100mbps():
    code, segments = _segment_judgements(lambda: run_verdict(run_scenario(FIG53, 1.05, 0.65))[0])
    assert code == UNDECIDED
    assert segments[0].names[0] == "undecided" and "noise floor" in segments[0].reason[0]
    assert segments[0].rate_per_rtt[0] > 0
    fast = dataclasses.replace(FIG53, capacity_bps=100e6)
    assert run_verdict(run_scenario(fast, 1.05, 0.65))[0] == CONVERGED
    assert fluid_verdicts(FIG53, [1.05], [0.65])[0][0] == CONVERGED
