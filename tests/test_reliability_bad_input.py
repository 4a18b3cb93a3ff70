"""Issue 27 defects 3, 5 and 7: internal errors on bad input become one-line refusals (exit 2), a
parameter given twice is refused, a parameter given by its model name is labelled as computed."""

from __future__ import annotations

import csv

import pytest

from rcpstab.cli import main

REPO_README = __file__.rsplit("/tests/", 1)[0] + "/README.md"


def refused(argv, capsys, *needles):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "internal error" not in lines[0], err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_a_held_gain_given_twice_is_refused(capsys):
    # KeyError: 'hysteresis' (exit 1): the two curves of beta = 0.3 merged into one
    refused(["bifurcation", "--beta", "0.3,0.3", "--alpha", "1.2:1.4:0.1"], capsys, "--beta", "0.3 is given twice")


def test_a_model_file_that_is_not_python_is_refused(capsys):
    # AttributeError: 'NoneType' object has no attribute 'loader' (exit 1)
    refused(
        ["margins", "--model", REPO_README, "--alpha", "0.4", "--beta", "0.2"], capsys, "README.md", "not a Python protocol file"
    )


def test_a_failing_cc_is_named(capsys, monkeypatch, tmp_path):
    # RuntimeError: compiling the rcp kernel with /bin/false failed (exit 1)
    from rcpstab.phaseplane import compiled

    monkeypatch.setenv("CC", "false")
    monkeypatch.setenv("RCPSTAB_CACHE_DIR", str(tmp_path))  # no cached kernel to fall back on
    monkeypatch.setattr(compiled, "_CACHE", {})  # nor one an earlier test loaded into this process
    refused(
        ["map", "--method", "phaseplane", "--alpha", "0.4", "--beta", "0.2"],
        capsys,
        "$CC='false'",
        "compiling the rcp kernel failed",
    )


def test_a_run_shorter_than_one_rtt_is_refused(capsys):
    # portrait ran "after 9.99989e-321 RTTs" (exit 0)
    refused(["portrait", "--alpha", "0.4", "--beta", "0.2", "--rtts", "1e-320"], capsys, "--rtts", "1e-320")
    refused(["bifurcation", "--beta", "0.3", "--alpha", "1.2:1.4:0.1", "--rtts", "0.5"], capsys, "--rtts")


def test_a_parameter_by_its_model_name_is_labelled_as_computed(tmp_path, capsys):
    # --param d_0=0.05 computed at 50 ms but the summary and the CSV's d0 column said 200 ms
    table = tmp_path / "d.csv"
    argv = ["map", "--method", "phaseplane", "--alpha", "0.4", "--beta", "0.2"]
    assert main(argv + ["--param", "d_0=0.05", "--csv", str(table)]) == 0
    line = capsys.readouterr().out
    assert "d0 = 50 ms" in line and "200 ms" not in line
    rows = list(csv.DictReader(open(table)))
    assert [float(r["d0"]) for r in rows] == [0.05]
    # the same run named d0 gives the same verdict and convergence time: the value is the one computed
    other = tmp_path / "d0.csv"
    assert main(argv + ["--d0", "0.05", "--csv", str(other)]) == 0
    assert list(csv.DictReader(open(other))) == rows


@pytest.mark.parametrize(
    "given",
    [["--C", "1e9", "--param", "C=2e9"], ["--d0", "0.1", "--param", "d_0=0.05"], ["--param", "d0=0.1", "--param", "d_0=0.05"]],
)
def test_one_parameter_given_twice_is_refused(given, capsys):
    refused(["map", "--method", "phaseplane", "--alpha", "0.4", "--beta", "0.2", *given], capsys, "give it once")
    refused(["convergence", "--alpha", "0.4:0.5:0.1", "--beta", "0.2:0.3:0.1", *given], capsys, "give it once")


# ---- defect 10: the Python API validates like the command line


def test_api_margins_of_a_list_drops_no_point():
    # margins("rcp", [0.4, 0.5], 0.2) was silently computed at 0.4 alone; it now gives one result per
    # point (issue 25), each equal to the point's own call
    from rcpstab.api import margins
    from rcpstab.errors import InputError

    both = margins("rcp", [0.4, 0.5], 0.2)
    for i, alpha in enumerate((0.4, 0.5)):
        one = margins("rcp", alpha, 0.2)
        assert both.phase_margin_deg[i] == pytest.approx(one.phase_margin_deg, rel=1e-12)
        assert bool(both.stable[i]) == one.stable
    with pytest.raises(InputError, match="alpha"):
        margins("rcp", [0.4, float("nan")], 0.2)


def test_api_region_takes_one_number_where_a_list_is_accepted_and_refuses_unknown_options():
    import numpy as np

    from rcpstab.api import region
    from rcpstab.errors import InputError

    with pytest.raises(InputError, match="C: not used by method exact"):
        region("rcp", [0.4], [0.2], method="exact", C=1e9)  # TypeError from exact_region
    one = region("rcp", "0.4", "0.2", method="phaseplane", C=1e9)  # 'float' object is not iterable
    listed = region("rcp", "0.4", "0.2", method="phaseplane", C=[1e9])
    assert np.array_equal(one.stable, listed.stable)
    with pytest.raises(InputError, match="C = 0.0"):
        region("rcp", "0.4", "0.2", method="phaseplane", C=0.0)


def test_api_simulate_refuses_above_the_memory_estimate_before_allocating():
    import tracemalloc

    from rcpstab.api import simulate
    from rcpstab.errors import InputError

    tracemalloc.start()
    with pytest.raises(InputError, match="1000000 starts.*GB of memory"):
        simulate("rcp", 0.4, 0.2, gamma0=[0.1] * 1_000_000, q0=0.0)  # asked numpy for 8.94 GiB
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 200e6
    for bad in (dict(rtts=float("inf")), dict(rtts="x"), dict(C="x"), dict(gamma0=[0.1, 0.2], q0=[0.0, 1.0, 2.0])):
        with pytest.raises(InputError):
            simulate("rcp", 0.4, 0.2, **{"rtts": 5, **bad})
