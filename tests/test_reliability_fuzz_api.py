"""Property (issue 27 defect 10): every public function of rcpstab.api either answers or raises
InputError with one line -- never a raw Python exception -- within a time bound, with bounded memory."""

import math
import resource
import signal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rcpstab.api as api
from rcpstab.errors import InputError

TIME_LIMIT_S = 60
MEMORY_LIMIT_KB = 2_500_000
HOSTILE = st.sampled_from(
    [
        0.0,
        -1.0,
        math.nan,
        math.inf,
        -math.inf,
        1e308,
        1e-320,
        2**64 + 1500,
        "x",
        "",
        None,
        True,
        [0.4, 0.5],
        [],
        [[0.4]],
        {"a": 1},
        "0.1:0.5:0.2",
        "2:1:0.1",
        b"\x00",
    ]
)
# values no gain can take (checked before any run): what the long-running functions are called with
REFUSED = st.sampled_from([0.0, -1.0, math.nan, math.inf, -math.inf, 1e308, "x", "", None, [], {"a": 1}, b"\x00"])
CHEAP = {
    "alpha": st.sampled_from([0.4, 0.5]),
    "beta": st.sampled_from([0.2, 0.3]),
    "model": st.sampled_from(["rcp", "xcp", "nope"]),
}


def value(name):
    return (CHEAP[name] if name in CHEAP else st.nothing()) | HOSTILE


CALLS = {
    "margins": st.fixed_dictionaries({"model": value("model"), "alpha": value("alpha"), "beta": value("beta")}),
    "linearize": st.fixed_dictionaries({"model": value("model")}),
    "simulate": st.fixed_dictionaries(
        {"model": value("model"), "alpha": value("alpha"), "beta": value("beta")},
        optional={"rtts": st.sampled_from([5.0]) | HOSTILE, "C": HOSTILE, "d0": HOSTILE, "N": HOSTILE, "T": HOSTILE},
    ),
    "region": st.fixed_dictionaries(
        {
            "model": value("model"),
            "alpha": st.sampled_from(["0.2:0.6:0.4"]) | HOSTILE,
            "beta": st.sampled_from(["0.2:0.4:0.2"]) | HOSTILE,
        },
        optional={"method": st.sampled_from(["exact", "bode", "nyquist", "x"]), "C": HOSTILE, "pade": HOSTILE},
    ),
    "bode": st.fixed_dictionaries(
        {"model": value("model"), "alpha": value("alpha"), "beta": value("beta")},
        optional={"pade": st.sampled_from([2]) | HOSTILE},
    ),
    "nyquist": st.fixed_dictionaries(
        {"model": value("model"), "alpha": value("alpha"), "beta": value("beta")},
        optional={"pade": st.sampled_from([2]) | HOSTILE},
    ),
    "theorem1": st.fixed_dictionaries({"model": value("model")}),
    "portrait": st.fixed_dictionaries(
        {"model": value("model"), "alpha": value("alpha"), "beta": value("beta")},
        optional={"rtts": st.sampled_from([5.0]) | HOSTILE, "C": HOSTILE, "buffer_bdp": HOSTILE},
    ),
    # the long runs: their gain is always one a gain cannot be, so each call must be refused up front
    "bifurcation": st.fixed_dictionaries({"model": value("model"), "alpha": REFUSED, "beta": HOSTILE}),
    "convergence": st.fixed_dictionaries(
        {"model": value("model"), "alpha": REFUSED, "beta": HOSTILE}, optional={"C": HOSTILE, "buffer_bdp": HOSTILE}
    ),
    "cosim": st.fixed_dictionaries(
        {"alpha": REFUSED, "beta": HOSTILE}, optional={"scenario": st.sampled_from(["fig5.3", "flash-crowd", "nope"]) | HOSTILE}
    ),
    "network": st.fixed_dictionaries({"alpha": REFUSED, "beta": HOSTILE}, optional={"t_end": HOSTILE}),
    "fct": st.fixed_dictionaries({"alpha": REFUSED, "beta": HOSTILE, "C": HOSTILE, "d0": HOSTILE, "load": HOSTILE}),
    "check": st.fixed_dictionaries({"config": HOSTILE}, optional={"criterion": HOSTILE, "samples": HOSTILE}),
    # the tutorials' entry points (issue 28)
    "boundary": st.fixed_dictionaries({"model": value("model")}, optional={"alpha_max": HOSTILE, "beta_max": HOSTILE}),
    "crossovers": st.fixed_dictionaries({"model": value("model"), "alpha": value("alpha"), "beta": value("beta")}),
    "hopf": st.fixed_dictionaries(
        {"model": st.sampled_from(["rcp-unclamped", "rcp", "nope"]) | HOSTILE}, optional={"beta": REFUSED, "alpha": HOSTILE}
    ),
    "orbit": st.fixed_dictionaries({"model": value("model"), "alpha": REFUSED}, optional={"beta": HOSTILE}),
    "dataset": st.fixed_dictionaries({"name": st.sampled_from(["cycles-clamped", "nope"]) | HOSTILE}),
    "fct_study": st.fixed_dictionaries(
        {"study": st.sampled_from(["flows", "regimes", "u-curve", "nope"]) | HOSTILE, "alpha": REFUSED},
        optional={"beta": HOSTILE, "C": HOSTILE, "load": HOSTILE, "rates": HOSTILE, "sizes": HOSTILE},
    ),
    "packet_run": st.fixed_dictionaries(
        {"alpha": REFUSED}, optional={"beta": HOSTILE, "seed": HOSTILE, "scenario": st.sampled_from(["fig5.3", "nope"]) | HOSTILE}
    ),
    "router": st.fixed_dictionaries({}, optional={"protocol": st.sampled_from(["rcp", "xcp"]) | HOSTILE}),
}


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


@pytest.mark.parametrize("function", sorted(CALLS))
def test_every_api_call_answers_or_refuses_in_one_line(function):
    assert set(CALLS) == {n for n in api.__all__ if callable(getattr(api, n))}

    @settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(CALLS[function])
    def check(kwargs):
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(TIME_LIMIT_S)
        try:
            getattr(api, function)(**kwargs)
        except InputError as exc:
            assert str(exc).strip() and "\n" not in str(exc).strip(), (kwargs, str(exc))
        except Hang:
            pytest.fail(f"{function}({kwargs}): no answer within {TIME_LIMIT_S} s")
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
        assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < MEMORY_LIMIT_KB

    check()
