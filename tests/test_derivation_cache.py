"""The on-disk cache of symbolic linearizations: same result as deriving, keyed by model and code, robust."""

import pickle

import sympy as sp

from rcpstab.linear.linearization import DERIVED, _derive, linearize
from rcpstab.models import get_model
from rcpstab.runtime import derivation_cache


def test_cached_linearization_equals_a_fresh_derivation(tmp_path, monkeypatch):
    monkeypatch.setenv("RCPSTAB_CACHE_DIR", str(tmp_path))
    model = get_model("xcp")
    first = linearize(model)  # derives and writes
    (entry,) = (tmp_path / "symbolic").iterdir()
    assert entry.name.startswith("linearization-xcp-")
    second = linearize(model)  # reads
    A0, delayed, derived = _derive(model)  # SymPy again, no cache
    for system in (first, second):
        assert system.model is model
        assert sp.simplify(system.A0 - A0) == sp.zeros(*A0.shape)
        assert set(system.delayed) == set(delayed)
        for name in DERIVED:
            assert sp.simplify(getattr(system, name) - derived[name]) == 0, name


def test_a_changed_model_gets_its_own_entry_and_a_corrupt_one_is_rederived(tmp_path, monkeypatch):
    monkeypatch.setenv("RCPSTAB_CACHE_DIR", str(tmp_path))
    rcp, switched = get_model("rcp"), get_model("switched")
    assert derivation_cache.key("linearization", rcp, []) != derivation_cache.key("linearization", switched, [])
    linearize(rcp)
    (entry,) = (tmp_path / "symbolic").iterdir()
    entry.write_bytes(b"not a pickle")
    system = linearize(rcp)
    assert str(system.open_loop) == "(alpha*d_0*s + beta)*exp(-d_0*s)/(d_0**2*s**2)"
    A0, delayed, derived = pickle.loads(entry.read_bytes())  # rewritten whole
    assert str(derived["open_loop"]) == str(system.open_loop)


def test_an_unwritable_cache_only_costs_time(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("RCPSTAB_CACHE_DIR", str(blocker))  # a file where a folder should be
    assert str(linearize(get_model("rcp")).open_loop) == "(alpha*d_0*s + beta)*exp(-d_0*s)/(d_0**2*s**2)"


def test_a_bundled_delayed_loop_is_read_back_bit_for_bit(tmp_path, monkeypatch):
    """TIMELY's Jacobians and delays: derived and stored, then read without deriving, the same bits."""
    import dataclasses

    import numpy as np
    import pytest

    from rcpstab.linear import fluid_loop
    from rcpstab.models.delayloop import get_loop_model

    monkeypatch.setenv("RCPSTAB_CACHE_DIR", str(tmp_path))
    model = get_loop_model("timely")
    compile_loop = fluid_loop._compiled.__wrapped__  # past the process's memo
    fresh = compile_loop(model)  # derives and writes
    (entry,) = (tmp_path / "symbolic").iterdir()
    assert entry.name.startswith("fluidloop-timely-")

    def derive_again(_model):
        raise AssertionError("derived again")

    monkeypatch.setattr(fluid_loop, "_sources", derive_again)
    cached = compile_loop(model)
    values = model.values(N=20, D_prop=100e-6)
    results = []
    for compiled in (fresh, cached):
        monkeypatch.setattr(fluid_loop, "_compiled", lambda _model, c=compiled: c)
        results.append(fluid_loop.loop_matrices(model, values)[:2])
    (A0, delayed), (A0_read, delayed_read) = results
    assert np.array_equal(A0, A0_read) and A0.any() and delayed.keys() == delayed_read.keys()
    assert all(np.array_equal(delayed[tau], delayed_read[tau]) for tau in delayed)
    # a variant that is not the registry's model is derived, never read under the bundled model's key
    with pytest.raises(AssertionError, match="derived again"):
        compile_loop(dataclasses.replace(model, title="a user's variant"))
