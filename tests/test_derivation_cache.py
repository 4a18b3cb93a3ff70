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
