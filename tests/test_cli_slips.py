"""Issue 23's option slips: no abbreviations, one name per option, a warning on implausible magnitudes,
value lists for the gains, linearize on rcp-router, map --help's default grids."""

import warnings

import numpy as np
import pytest
import sympy as sp
from conftest import run_cli

import rcpstab
from rcpstab import api
from rcpstab.api.methods import METHODS
from rcpstab.cli import build_parser, main
from rcpstab.commands import COMMANDS


def parse(argv):
    return build_parser(only=argv[0]).parse_args(argv)


def test_no_abbreviation_portrait_rtt_is_the_delay_not_the_duration():
    # before: argparse took --rtt as the prefix of --rtts and ran 0.1 RTTs
    with pytest.warns(UserWarning, match="--rtt is deprecated: use --d0"):
        args = parse(["portrait", "--alpha", "0.4", "--beta", "0.2", "--rtt", "0.1"])
    assert args.d0 == 0.1 and args.rtts == 100.0


@pytest.mark.parametrize(
    "argv",
    [
        ["margins", "--alpha", "0.4", "--beta", "0.2", "--js"],
        ["portrait", "--alpha", "0.4", "--beta", "0.2", "--rt", "5"],
        ["map", "--meth", "bode"],
    ],
)
def test_abbreviations_are_refused(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        parse(argv)
    assert exc.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def _long_options():
    out = {}
    for name in COMMANDS:
        parser = build_parser(only=name)
        sub = parser._subparsers._group_actions[0].choices[name]
        out[name] = [a.option_strings for a in sub._actions if a.option_strings]
    return out


def test_the_same_option_has_the_same_name_in_every_command():
    # the propagation delay is --d0 and the buffer (in C*d0) --buffer everywhere; the old spellings
    # (--rtt in cosim and fct, --buffer-bdp in fct) are accepted only as deprecated aliases
    for command, options in _long_options().items():
        for strings in options:
            assert strings[0] not in ("--rtt", "--buffer-bdp"), (command, strings)
            if "--rtt" in strings or "--buffer-bdp" in strings:
                assert strings[0] in ("--d0", "--buffer"), (command, strings)
    names = {c: {s[0] for s in o} for c, o in _long_options().items()}
    assert {"cosim", "fct", "portrait", "map", "convergence", "bifurcation"} <= {c for c, n in names.items() if "--d0" in n}
    assert {"cosim", "fct", "portrait", "map", "convergence"} <= {c for c, n in names.items() if "--buffer" in n}


def test_fct_old_spellings_still_parse_with_a_warning():
    with (
        pytest.warns(UserWarning, match="--buffer-bdp is deprecated: use --buffer"),
        pytest.warns(UserWarning, match="--rtt is deprecated: use --d0"),
    ):
        args = parse(
            ["fct", "--alpha", "0.1", "--beta", "1", "--C", "10e6", "--rtt", "0.1", "--load", "0.5", "--buffer-bdp", "2"]
        )
    assert args.buffer == 2.0 and args.d0 == 0.1


@pytest.mark.parametrize(
    "name, value, unit",
    [("d0", 100.0, "probably meant 100 ms"), ("T", 20.0, "probably meant 20 ms"), ("C", 100.0, "probably meant 100 Mb/s")],
)
def test_implausible_magnitudes_warn_naming_the_unit(name, value, unit):
    from rcpstab.api.common import plausible

    with pytest.warns(UserWarning, match=unit):
        plausible(name, value, f"--{name}")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plausible(name, {"d0": 0.1, "T": 0.01, "C": 100e6}[name])  # plausible: silent


def test_portrait_d0_in_ms_warns_in_one_line(capsys):
    # in this process with a new process's warning filters (conftest.run_cli): everything else the run warns
    # would be a second stderr line
    code, _, err = run_cli(capsys, "portrait", "--alpha", "0.4", "--beta", "0.2", "--d0", "100", "--rtts", "20", "-q")
    assert code == 0
    assert err.strip().splitlines() == ["rcpstab: warning: --d0 100: implausible in s (probably meant 100 ms = 0.1 s)"]


def test_toml_rtt_in_seconds_warns():
    from rcpstab.api.checker import warn_implausible_envelope
    from rcpstab.check import parse_config

    with pytest.warns(UserWarning, match=r"rtt_ms = \[0.02, 0.2\]: implausible in ms \(probably seconds: \[20, 200\] ms\)"):
        warn_implausible_envelope(parse_config({"router": {"ALPHA": 0.4, "BETA": 0.2}, "envelope": {"rtt_ms": [0.02, 0.2]}}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_implausible_envelope(parse_config({"router": {"ALPHA": 0.4, "BETA": 0.2}, "envelope": {"rtt_ms": [20, 200]}}))


def test_alpha_and_beta_take_value_lists(capsys):
    # as --param and --C do: V1,V2,..., several values, or ranges mixed
    args = parse(["map", "--alpha", "0.2,0.4", "1.2:1.6:0.2", "--beta", "0.1", "0.3"])
    r = api.region("rcp", args.alpha, args.beta)
    np.testing.assert_allclose(r.alpha, [0.2, 0.4, 1.2, 1.4, 1.6])
    np.testing.assert_allclose(r.beta, [0.1, 0.3])
    same = api.region("rcp", [0.2, 0.4, 1.2, 1.4, 1.6], [0.1, 0.3])
    assert (r.stable == same.stable).all()
    from conftest import rcp_inside

    A, B = np.meshgrid(r.alpha, r.beta)
    assert (r.stable == rcp_inside(A, B)).all()  # eq. D.1's closed-form region
    assert main(["convergence", "--alpha", "0.4", "0.8", "--beta", "0.2", "-q"]) == 0


def test_linearize_rcp_router_does_not_claim_independence_of_T():
    text = api.linearize("rcp-router").text()
    assert "does not depend on T" not in text  # its G has a d0/20 delay: it does depend on T
    assert "does not depend on T" in api.linearize("rcp").text()  # rcp's T does drop out


@pytest.mark.parametrize("tau", [0.05, 0.01, 0.2])
def test_linearize_rcp_router_T_over_d0_matches_the_closed_form(tau):
    # rcp_router's docstring: G = exp(-lambda) (alpha (1 - exp(-lambda tau))/tau + beta) / lambda**2, lambda = s d0
    lin = api.linearize("rcp-router", T_over_d0=tau)
    G = lin.value.open_loop
    s, d0, alpha, beta = (sp.Symbol(n) for n in ("s", "d_0", "alpha", "beta"))
    symbols = {str(x): x for x in G.free_symbols}
    at = {symbols["alpha"]: 0.7, symbols["beta"]: 0.3, symbols["d_0"]: 0.2}
    for lam in (0.3 + 0.8j, 1.1 + 2.0j):
        value = complex(G.subs(at).subs(symbols["s"], lam / 0.2).evalf())
        expected = np.exp(-lam) * (0.7 * (1 - np.exp(-lam * tau)) / tau + 0.3) / lam**2
        assert value == pytest.approx(expected, rel=1e-9)


def test_linearize_T_over_d0_refused_for_a_model_without_it():
    with pytest.raises(rcpstab.InputError, match="does not fix T"):
        api.linearize("rcp", T_over_d0=0.01)


def test_map_help_states_each_methods_real_default_grid(capsys):
    with pytest.raises(SystemExit):
        main(["map", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for m in METHODS.values():
        assert f"{m.name}" in text and f"--alpha {m.grid[0]} --beta {m.grid[1]}" in text
    assert "0.05:2.0:0.05" in text and "0.025:1.0:0.025" in text  # margins: 40 x 40, not Fig. 5.2's 100 x 100
