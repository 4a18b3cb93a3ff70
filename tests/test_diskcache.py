"""The on-disk cache of compiled loops (rcpstab.runtime.derivation_cache): keyed by the model's definition
and the deriving code, equal to a fresh compile."""

import dataclasses

import numpy as np

from rcpstab.linear import openloop, quasipoly
from rcpstab.models import get_model
from rcpstab.runtime.derivation_cache import cache_dir, key

SOURCES = (openloop.__file__, quasipoly.__file__)


def test_key_follows_the_model_definition():
    rcp = get_model("rcp")
    changed = dataclasses.replace(rcp, rhs=(rcp.rhs[0] * 2, rcp.rhs[1]))
    assert key("quasipoly", rcp, SOURCES) != key("quasipoly", changed, SOURCES)
    assert key("quasipoly", rcp, SOURCES) == key("quasipoly", get_model("rcp"), SOURCES)
    assert key("quasipoly", rcp, SOURCES) != key("openloop", rcp, SOURCES)


def test_cached_equals_fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("RCPSTAB_CACHE_DIR", str(tmp_path))
    for name in ("rcp", "rcpac"):
        model = get_model(name)
        quasipoly.quasi_polynomial.cache_clear()
        first = quasipoly.quasi_polynomial(model)  # computes and stores
        quasipoly.quasi_polynomial.cache_clear()
        second = quasipoly.quasi_polynomial(model)  # reads
        fresh = quasipoly._compile(model)
        for q in (first, second):
            assert np.array_equal(q.coeffs, fresh.coeffs) and np.array_equal(q.thetas, fresh.thetas)
            assert q.degree == fresh.degree
        openloop.open_loop.cache_clear()
        ol = openloop.open_loop(model)
        openloop.open_loop.cache_clear()
        assert np.array_equal(openloop.open_loop(model).num, openloop._compile(model).num) and ol.theta == 1.0
    stored = {p.name.split("-")[0] for p in cache_dir().glob("*.pkl")}
    assert {"quasipoly", "openloop"} <= stored


def test_a_refused_loop_is_cached_with_its_message(tmp_path, monkeypatch):
    """A loop with two delays is refused from the cache with the fresh refusal's message, without deriving."""
    import pytest

    from rcpstab.errors import InputError

    monkeypatch.setenv("RCPSTAB_CACHE_DIR", str(tmp_path))
    model = get_model("xcp-router")
    with pytest.raises(InputError) as fresh:
        openloop._compile(model)
    assert "more than one delay" in str(fresh.value)
    openloop.open_loop.cache_clear()
    with pytest.raises(InputError) as first:
        openloop.open_loop(model)  # derives and stores the refusal
    assert any(p.name.startswith("openloop-xcp-router-") for p in cache_dir().glob("*.pkl"))

    def derive_again(_model):
        raise AssertionError("derived again: the refusal was not read from the cache")

    monkeypatch.setattr(openloop, "_compile", derive_again)
    openloop.open_loop.cache_clear()
    with pytest.raises(InputError) as second:
        openloop.open_loop(model)
    assert str(first.value) == str(second.value) == str(fresh.value)
