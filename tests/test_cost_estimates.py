"""The refusal estimates of ``rcpstab map``: measured costs (benchmarks/bench_cost_per_point.py) let cheap
work run and still refuse what exceeds the limits."""

import subprocess
import sys

import pytest

from rcpstab.api.methods import METHODS
from rcpstab.errors import InputError
from rcpstab.runtime.validation import GRID_ENV, MEMORY_ENV, check_grid_size


def _check(points, method):
    m = METHODS[method]
    check_grid_size(
        points, m.seconds_per_point, f"map --method {method}", bytes_per_point=m.bytes_per_point, default_limit=m.point_limit
    )


def test_every_method_has_an_estimate():
    assert set(METHODS) == {"exact", "bode", "nyquist", "margins", "phaseplane", "packet", "certified", "certified-window"}
    assert all(m.seconds_per_point > 0 for m in METHODS.values())


def test_a_2000_by_2000_exact_map_is_accepted_and_larger_ones_are_refused(monkeypatch):
    monkeypatch.delenv(GRID_ENV, raising=False)
    monkeypatch.delenv(MEMORY_ENV, raising=False)
    _check(2000 * 2000, "exact")
    with pytest.raises(InputError, match="GB of memory"):  # 20M points: the memory estimate binds
        _check(20_000_000, "exact")
    with pytest.raises(InputError, match="grid points is more than the limit"):
        _check(10**10, "exact")
    with pytest.raises(InputError, match="grid points is more than the limit 1000000"):
        _check(2000 * 2000, "phaseplane")  # the simulated lenses keep the 1M default


def test_the_environment_still_sets_the_exact_limit(monkeypatch):
    monkeypatch.setenv(GRID_ENV, "10")
    with pytest.raises(InputError, match="15 grid points"):
        _check(15, "exact")


@pytest.mark.slow  # a 4M-point map through the command: ~3 s idle
def test_the_command_maps_2000_by_2000_exactly():
    result = subprocess.run(
        [sys.executable, "-m", "rcpstab", "map", "--method", "exact", "--alpha", "0.001:2:0.001", "--beta", "0.0005:1:0.0005"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert "of 4000000 grid points stable" in result.stdout
