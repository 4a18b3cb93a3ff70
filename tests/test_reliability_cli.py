"""Hostile command lines (issue 18, defects 6-8): one line on stderr naming the value, exit 2, before any work."""

import time

import numpy as np
import pytest

from rcpstab.cli import main
from rcpstab.errors import InputError
from rcpstab.models import get_model

CASES = [
    (["margins", "--alpha", "1e6", "--beta", "0.5"], "1000000.0"),  # allocated 4.7 GB, then MemoryError
    (["margins", "--alpha", "0.5", "--beta", "1e308"], "1e+308"),  # ValueError traceback
    (["map", "--alpha", "0.5:2000:100", "--beta", "0.5"], "1000.5"),
    (["map", "--method", "phaseplane", "--alpha", "0.5", "--beta", "0.5", "--T", "1e308"], "1e+308"),  # OverflowError
    (["map", "--method", "phaseplane", "--alpha", "0.5", "--beta", "0.5", "--T", "inf"], "inf"),
    (["map", "--method", "phaseplane", "--alpha", "0.5", "--beta", "0.5", "--d0", "nan"], "nan"),
    (["map", "--method", "phaseplane", "--alpha", "0.5", "--beta", "0.5", "--C", "1e308"], "1e+308"),
    (["portrait", "--alpha", "0.5", "--beta", "0.5", "--d0", "1e308"], "1e+308"),
    (["portrait", "--alpha", "0.5", "--beta", "0.5", "--N", "1e308"], "1e+308"),  # printed (nan, inf), exit 0
    (["portrait", "--alpha", "1e6", "--beta", "0.5"], "1000000.0"),
    (["portrait", "--alpha", "0.5", "--beta", "0.5", "--rtts", "inf"], "inf"),
    (["convergence", "--alpha", "0.5", "--beta", "0.5", "--T", "nan"], "nan"),
    (["cosim", "--alpha", "0.4", "--beta", "0.2", "--buffer", "18446744073709553116"], "18446744073709553116"),
    (["cosim", "--alpha", "0.4", "--beta", "0.2", "--buffer", "-1"], "-1"),
    (["cosim", "--alpha", "0.4", "--beta", "0.2", "--rtt", "nan"], "nan"),
    (["cosim", "--alpha", "0.4", "--beta", "0.2", "--t-end", "inf"], "inf"),
    (["cosim", "--alpha", "inf", "--beta", "0.2"], "inf"),
    (["cosim", "--alpha", "0.4", "--beta", "0.2", "--seed", "-1"], "-1"),
    (["cosim", "--alpha", "0.4", "--beta", "0.2", "--rtt", "10"], "--rtt 10"),  # plateaus nan/nan, exit 0
    (["cosim", "--alpha", "0.4", "--beta", "0.2", "--t-end", "2"], "--t-end 2"),  # plateaus nan/nan, exit 0
    (["cosim", "--alpha", "0.4", "--beta", "0.2", "--t-end", "100000"], "100000"),  # grew to 3 GB
    (["network", "--alpha", "inf", "--beta", "0.2"], "inf"),  # accepted
    (["network", "--alpha", "0.4", "--beta", "inf"], "inf"),  # printed L1 nan Mb/s
    (["network", "--alpha", "0.4", "--beta", "0.2", "--t-end", "0.01"], "0.01"),  # traceback
    (["network", "--alpha", "0.4", "--beta", "0.2", "--t-end", "1e9"], "1000000000.0"),
    (["map", "--alpha", "", "--beta", "0.5"], "''"),  # silently the default grid
    (["map", "--alpha", "0.5", "--beta", "0.5", "--out", ""], "''"),  # silently no figure
    (["check", ""], "''"),
    (["map", "--method", "phaseplane", "--alpha", "0.5", "--beta", "0.5", "--checkpoint", "/nonexistent/x.ckpt"], "/nonexistent"),
    (["map", "--method", "phaseplane", "--alpha", "0.5", "--beta", "0.5", "--checkpoint", "/dev/full"], "/dev/full"),
    (["check", "--samples", "100000000", "x.toml"], "100000000"),
    (["map", "--method", "nyquist", "--pade", "99", "--alpha", "0.5", "--beta", "0.5"], "99"),
]


@pytest.mark.parametrize("argv, named", CASES, ids=[" ".join(c[0])[:60] for c in CASES])
def test_bad_values_exit_2_with_one_line_before_any_work(argv, named, capsys):
    started = time.time()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and named in err, err
    assert "Traceback" not in err and "np.float64" not in err
    assert time.time() - started < 10


def test_the_same_bad_beta_gets_the_same_words_everywhere(capsys):
    # issue 13 counted 4 different messages for beta = 0, one leaking np.float64(0.0)
    commands = [
        ["margins", "--alpha", "0.5"],
        ["map", "--alpha", "0.5"],
        ["portrait", "--alpha", "0.5"],
        ["cosim", "--alpha", "0.5"],
        ["network", "--alpha", "0.5"],
    ]
    for argv in commands:
        assert main([*argv, "--beta", "0"]) == 2
        assert "beta = 0.0: must be in (0, 1000]" in capsys.readouterr().err


def test_deeply_nested_toml_is_one_line(tmp_path, capsys):
    config = tmp_path / "nested.toml"
    config.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert main(["check", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "nested too deeply" in err and str(config) in err


def test_workers_are_capped_at_the_usable_cores(monkeypatch):
    # --workers 1000 started 41 processes on 2 cores (~3 GB)
    from rcpstab.commands import edge
    from rcpstab.phaseplane import sweep

    monkeypatch.setattr(edge, "usable_cores", lambda: 2)
    seen = []
    real = sweep.run_chunks
    monkeypatch.setattr(
        sweep, "run_chunks", lambda f, tasks, workers, scheduler: seen.append(workers) or real(f, tasks, workers, scheduler)
    )
    with pytest.warns(UserWarning, match="capped at the 2 usable cores"):
        assert main(["convergence", "--alpha", "0.5", "--beta", "0.5", "--workers", "1000", "--json"]) == 0
    assert seen == [2]


def test_dask_scheduler_killed_mid_sweep_is_one_error(monkeypatch):
    distributed = pytest.importorskip("distributed")
    from rcpstab.phaseplane import sweep
    from rcpstab.runtime import checkpoint, executors

    monkeypatch.setattr(sweep, "POINTS_PER_CHUNK", 1)
    monkeypatch.setattr(executors, "NO_WORKER_TIMEOUT_S", 3)
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None)
    original = checkpoint.Checkpoint.save

    def save_then_kill(self, key, result):
        original(self, key, result)
        if cluster.status.name != "closed":
            cluster.close()  # the scheduler dies after the first finished chunk

    monkeypatch.setattr(checkpoint.Checkpoint, "save", save_then_kill)
    started = time.time()
    with pytest.raises(InputError, match="scheduler") as info:
        sweep.phaseplane_region(
            get_model("switched"), np.array([0.5, 0.6, 0.7]), np.array([0.2, 0.3]), scheduler=cluster.scheduler_address
        )
    assert "\n" not in str(info.value)
    assert time.time() - started < 30


def _document():
    from hypothesis import strategies as st

    from rcpstab.check.config import ROUTER_KEYS

    scalar = (
        st.floats(allow_nan=True, allow_infinity=True)
        | st.integers(-(2**70), 2**70)
        | st.booleans()
        | st.text(max_size=3)
        | st.sampled_from([0.4, 0.2, 15, 500, 1e300, -1, 0])
    )
    value = scalar | st.lists(scalar, max_size=3) | st.dictionaries(st.text(max_size=3), scalar, max_size=2)
    keys = {
        "router": list(ROUTER_KEYS) + ["ALPHA ", "alpha"],
        "envelope": ["rtt_ms", "link_mbps", "flows", "buffer_bdp", "bogus"],
        "thresholds": [
            "gain_margin_min",
            "phase_margin_min_deg",
            "rightmost_real_max",
            "load_doubling_rtt_max",
            "flash_crowd_rtt_max",
        ],
    }
    table = {name: st.dictionaries(st.sampled_from(k), value, max_size=6) for name, k in keys.items()}
    return st.fixed_dictionaries({}, optional={**table, "extra": value})


def test_any_parsed_config_is_a_config_or_one_input_error():
    from hypothesis import given, settings

    from rcpstab.check.config import CheckConfig, parse_config

    @settings(max_examples=200, deadline=None, derandomize=True)
    @given(_document())
    def check(document):
        try:
            assert isinstance(parse_config(document), CheckConfig)
        except InputError as exc:
            assert "\n" not in str(exc)

    check()
