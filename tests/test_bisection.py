"""bisect_brackets: its two library solvers (SciPy's batch, mpmath's for a handful) agree to rounding."""

import numpy as np
import pytest

from rcpstab.linear import bisection
from rcpstab.linear.bisection import FEW_BRACKETS, bisect_brackets


def cubic(x, k):
    # x**3 - c_k: roots are the cube roots of c_k, a closed form
    return x**3 - (k + 2.0)


@pytest.mark.parametrize("count", [1, FEW_BRACKETS, FEW_BRACKETS + 1, 40])
def test_roots_equal_the_closed_form_to_rounding(count):
    roots = bisect_brackets(cubic, np.zeros(count), np.full(count, 4.0))
    assert np.allclose(roots, np.cbrt(np.arange(count) + 2.0), rtol=4e-16, atol=0)


def test_the_two_solvers_agree_bracket_for_bracket(monkeypatch):
    lo = np.zeros(FEW_BRACKETS)

    def phase(x, k):  # a transcendental one: x sin x = 1 + k/16 on [0, 2], where x sin x rises from 0 to 1.82
        return x * np.sin(x) - (1.0 + k / 16.0)

    few = bisect_brackets(phase, lo, np.full(FEW_BRACKETS, 2.0))
    monkeypatch.setattr(bisection, "FEW_BRACKETS", 0)  # force SciPy's batch solver on the same brackets
    batch = bisect_brackets(phase, lo, np.full(FEW_BRACKETS, 2.0))
    assert np.allclose(few, batch, rtol=4e-16, atol=0)
    assert np.all(np.abs(phase(few, np.arange(FEW_BRACKETS))) < 1e-14)


def test_an_end_that_is_exactly_a_root_is_returned():
    assert bisect_brackets(lambda x, k: x - 1.0, np.array([1.0]), np.array([3.0]))[0] == 1.0


def _scipy_roots(f, lo, hi):
    from scipy.optimize import elementwise

    k = np.arange(lo.size).astype(float)
    return np.asarray(elementwise.find_root(lambda x, kk: f(x, kk.astype(int)), (lo, hi), args=(k,)).x)


@pytest.mark.parametrize("case", ["cubic", "phase", "steep", "pole", "edges"])
def test_numpy_chandrupatla_is_scipys_bit_for_bit(case):
    from rcpstab.linear.chandrupatla import find_roots

    c = np.random.default_rng(1).uniform(0.1, 10.0, 500)
    lo, hi = np.zeros(c.size), np.full(c.size, 4.0)
    f = {
        "cubic": lambda x, k: x**3 - c[k],
        "phase": lambda x, k: x * np.sin(x) - c[k] / 6.0,
        "steep": lambda x, k: np.tanh(50.0 * (x - c[k] / 3.0)),
        "pole": lambda x, k: 1.0 / (x - 2.0 - c[k] / 100.0),  # a sign change through a pole
        "edges": lambda x, k: x - 1.0,
    }[case]
    if case == "phase":  # x sin x rises from 0 to 1.82 on [0, 2]
        hi = np.full(c.size, 2.0)
    if case == "edges":  # an end exactly at the root, no sign change (NaN), an infinite end
        lo, hi = np.array([1.0, 2.0, 0.0]), np.array([3.0, 3.0, np.inf])
    with np.errstate(all="ignore"):
        ours, theirs = find_roots(f, lo, hi), _scipy_roots(f, lo, hi)
    assert np.array_equal(ours, theirs, equal_nan=True)
    finite = np.isfinite(theirs)
    assert finite.sum() >= (1 if case == "edges" else c.size // 2)
