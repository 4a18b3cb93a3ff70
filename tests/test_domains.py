"""Every parameter of every bundled model has a declared domain, and the phase plane enforces it."""

import math

import pytest

from rcpstab.errors import InputError
from rcpstab.models import MODELS
from rcpstab.phaseplane.compiled import compile_model
from rcpstab.phaseplane.setup import parameter_values
from rcpstab.runtime.validation import Domain


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_parameter_has_a_domain_containing_its_default(name):
    model = MODELS[name]
    for sym, default in model.parameters.items():
        domain = model.domains.get(sym)
        assert isinstance(domain, Domain), (name, sym)
        assert domain.violation(default, sym.name) is None, (name, sym, default)


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_values_are_refused_by_name(name, bad):
    compiled = compile_model(MODELS[name])
    for sym in MODELS[name].parameters:
        if bad == math.inf and MODELS[name].domains[sym].unbounded:
            continue  # an unbounded buffer is the thesis' fluid model: +inf means "no limit"
        with pytest.raises(InputError, match=f"= {bad}"):
            parameter_values(compiled, {sym.name: bad})


@pytest.mark.parametrize(
    "domain, value, ok",
    [
        (Domain(low=0, low_open=True), 0.0, False),
        (Domain(low=0), 0.0, True),
        (Domain(high=1), 1.0, True),
        (Domain(high=1, high_open=True), 1.0, False),
        (Domain(low=1), 0.999, False),
        (Domain(), 1e308, True),
        (Domain(), float("nan"), False),
    ],
)
def test_domain_bounds(domain, value, ok):
    assert (domain.violation(value, "x") is None) == ok
