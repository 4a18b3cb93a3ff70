"""``cosim --seeds N --start-jitter S`` on the single-link presets: the presets have no random input, so
each seed draws the flows' starts within S seconds of the script (as ``map --method packet --seeds``),
and each quantity gets its mean with a Student-t interval over the seeds."""

import math
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli

import rcpstab
from rcpstab.errors import InputError

TESTS = Path(__file__).resolve().parent
RUN = dict(t_end=50.0)  # Fig. 5.3 to 50 s: the 5-flow stretch (to 40 s) and 10 s of the 10-flow one


@pytest.fixture(scope="module")
def replicated():
    return rcpstab.cosim(0.4, 0.6, "fig5.3", seeds=3, start_jitter_s=0.1, **RUN)


def test_each_replication_is_the_jittered_cosim_of_its_seed(replicated):
    # two paths to the same run: one co-simulation with --seed k and --start-jitter, and the k-th replication
    values = replicated.value.values
    for seed in (0, 2):
        one = rcpstab.cosim(0.4, 0.6, "fig5.3", seed=seed, start_jitter_s=0.1, **RUN).value
        assert values["rms_R_over_C"][seed] == one.rms_R_over_C
        assert values["segment1_N5_packet_plateau"][seed] == one.segments[0].packet_plateau
    assert len(set(values["rms_R_over_C"])) == 3  # the jitter makes the seeds' runs differ


def test_intervals_are_the_t_interval_and_the_plateaus_the_fair_share(replicated):
    t975_2 = 0.95 / math.sqrt(2 * 0.975 * 0.025)  # Student t, 2 degrees of freedom: closed form
    for name, q in replicated.to_dict()["quantities"].items():
        v = replicated.value.values[name]
        half = t975_2 * np.std(v, ddof=1) / math.sqrt(3)
        assert q["n"] == 3 and q["ci_low"] == pytest.approx(v.mean() - half, rel=1e-12, abs=1e-15)
        assert q["ci_high"] == pytest.approx(v.mean() + half, rel=1e-12, abs=1e-15)
    q = replicated.to_dict()["quantities"]
    # the packet plateau sits on eta/N (eta = 1): 0.2 with 5 flows, 0.1 with 10, within 3%
    assert q["segment1_N5_packet_plateau"]["mean"] == pytest.approx(0.2, rel=0.03)
    assert q["segment2_N10_packet_plateau"]["mean"] == pytest.approx(0.1, rel=0.03)
    assert replicated.to_dict()["start_jitter_s"] == 0.1 and replicated.to_dict()["late_from_s"] is None
    assert list(replicated.to_pandas().columns) == ["quantity", "mean", "std", "ci_low", "ci_high", "n"]


def test_without_jitter_a_single_cosim_is_unchanged():
    plain = rcpstab.cosim(0.4, 0.6, "fig5.3", t_end=12.0).to_dict()
    zero = rcpstab.cosim(0.4, 0.6, "fig5.3", t_end=12.0, seed=5).to_dict()  # the seed draws nothing
    for key in ("rms_R_over_C", "rms_relative", "segments"):
        assert plain[key] == zero[key]


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--scenario", "fig5.3", "--seeds", "3"], "--start-jitter"),
        (["--scenario", "fig5.3", "--seeds", "3", "--start-jitter", "0"], "--start-jitter"),
        (["--scenario", "testbed", "--seeds", "3", "--start-jitter", "1e6"], "start_jitter_s=1e+06"),
        (["--scenario", "fig5.7", "--seeds", "3", "--start-jitter", "0.1"], "--start-jitter"),
        (["--scenario", "flash-crowd", "--seeds", "3"], "--seeds"),
        (["--scenario", "fig5.3", "--seeds", "3", "--start-jitter", "0.1", "--d0", "0.2"], "--d0"),
    ],
)
def test_bad_replications_are_one_line_exit_2(capsys, args, needle):
    # in this process (the exit code and stderr are the contract; test_cli keeps real processes for it)
    code, _, err = run_cli(capsys, "cosim", "--alpha", "0.4", "--beta", "0.6", *args)
    assert code == 2, err
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_jitter_is_refused_for_a_topology_file():
    with pytest.raises(InputError, match="sets start_jitter_s per flow group"):
        rcpstab.cosim(0.4, 0.2, str(TESTS.parent / "examples" / "topologies" / "fig5.7.toml"), seeds=2, start_jitter_s=0.1)
