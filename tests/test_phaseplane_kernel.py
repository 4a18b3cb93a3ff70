"""The compiled C kernel against the NumPy reference, its online envelope, and its on-disk cache."""

from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from rcpstab.models import get_model
from rcpstab.phaseplane import simulate, trajectory_envelope
from rcpstab.phaseplane.integrator import BatchIntegrator
from rcpstab.phaseplane.monitor import EnvelopeMonitor
from rcpstab.phaseplane.reference import ReferenceIntegrator
from rcpstab.phaseplane.setup import make_integrator
from rcpstab.runtime.build import load_library

# Inside and outside the region, from a full queue and from an empty one, for every model.
CASES = {
    "rcp": ({"alpha": [0.6, 1.4, 0.3], "beta": [0.8, 0.8, 0.2]}, {"gamma0": [0.01, 0.5, 0.5], "q0": [6e7, 0, 0]}),
    "switched": ({"alpha": [0.6, 1.4], "beta": [0.8, 0.3]}, {"gamma0": [0.01, 0.5], "q0": [6e7, 0]}),
    "linear": ({"alpha": [0.6, 1.4], "beta": [0.8, 0.3]}, {"gamma0": [0.01, 0.5], "q0": [6e7, 0]}),
    "xcp": ({"alpha": [0.3, 0.6], "beta": [0.1, 0.2]}, {"gamma0": [0.01, 0.5], "q0": [6e7, 0]}),
    "rcpac": ({"alpha": [0.6, 1.4], "beta": [0.8, 0.3]}, {"gamma0": [0.01, 0.5], "q0": [6e7, 0]}),
}


# Steps of dt = 0.01 RTT: every clamp these cases reach acts first by step 50 and again and again after it, the
# delay line (101-104 steps) wraps five times and rcp's flow-count change comes at step 300 (the NumPy reference
# takes ~0.6 ms a step: 600 steps instead of 1500 saved 1.8 s CPU).
STEPS = 600


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_kernel_matches_the_numpy_reference(name):
    params, initial = CASES[name]
    schedule = [(3.0, 20.0)] if name == "rcp" else None  # a flow-count change mid-run splits the kernel call
    runs = [
        make_integrator(get_model(name), params, initial, n_schedule=schedule, engine=engine).run(STEPS, record_every=1)
        for engine in (BatchIntegrator, ReferenceIntegrator)
    ]
    compiled, reference = runs
    assert compiled.shape == reference.shape == (STEPS, len(params["alpha"]), len(get_model(name).states))
    assert np.allclose(compiled, reference, rtol=1e-12, atol=1e-12 * np.abs(reference).max())


@pytest.mark.parametrize("name", ["rcp", "linear"])
@pytest.mark.parametrize("size", [1, 9, 37, 41])
def test_blocks_of_lanes_match_the_numpy_reference(name, size):
    """The kernel runs blocks of 32 trajectories, a block of up to 8 on an 8-lane loop (a lone one, for rcp,
    on a one-lane loop): random batches of 1, 9 (one block of 9), 37 (a full block and one of 5) and 41
    (a full block and one of 9) give the NumPy reference's trajectories bit for bit."""
    rng = np.random.default_rng(size)
    params = {"alpha": rng.uniform(0.1, 2.0, size), "beta": rng.uniform(0.1, 2.0, size)}
    initial = {"gamma0": rng.uniform(0.01, 1.0, size), "q0": rng.uniform(0.0, 6e7, size)}
    compiled, reference = (
        make_integrator(get_model(name), params, initial, engine=engine).run(300, record_every=1)
        for engine in (BatchIntegrator, ReferenceIntegrator)
    )
    assert compiled.shape == reference.shape == (300, size, len(get_model(name).states))
    assert np.array_equal(compiled, reference)


def test_online_envelope_matches_the_recorded_trajectory():
    params, initial = CASES["rcp"]
    integrator = make_integrator(get_model("rcp"), params, initial)
    monitor = EnvelopeMonitor(integrator)
    integrator.run(1000, monitor)  # 50 RTTs
    online = monitor.envelope(integrator.k)
    offline = trajectory_envelope(simulate(get_model("rcp"), params, initial, 10.0, record_every=1))
    assert np.allclose(online.peaks, offline.peaks, rtol=1e-12)
    assert np.array_equal(online.crossings, offline.crossings)
    assert np.allclose(online.last_out_rtt, offline.last_out_rtt, rtol=1e-12)


def _build(source):
    return load_library("probe", source).probe()


def test_concurrent_builds_share_one_cached_library(tmp_path, monkeypatch):
    monkeypatch.setenv("RCPSTAB_CACHE_DIR", str(tmp_path))
    source = "int probe(void) { return 42; }\n"
    with ProcessPoolExecutor(max_workers=3) as pool:
        assert list(pool.map(_build, [source] * 3)) == [42] * 3
    assert [p.suffix for p in tmp_path.iterdir()] == [".so"]  # one library, no temporary left behind


def test_unwritable_cache_falls_back_to_the_temporary_directory(monkeypatch):
    monkeypatch.delenv("RCPSTAB_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/proc/rcpstab-cache")  # nobody, not even root, can create this
    assert _build("int probe(void) { return 7; }\n") == 7
