"""One front end: every command is a thin shell over one ``rcpstab.api`` function, so the command line and
the API give identical numbers for the same call (per command, small inputs), and every API result keeps the
contract (short repr, strict JSON, a long table with units, a figure)."""

import json
import math

import numpy as np
import pytest

import rcpstab
from rcpstab import api
from rcpstab.api.checker import check_example
from rcpstab.api.methods import METHODS
from rcpstab.cli import main
from rcpstab.commands import COMMANDS

WALL = ("wall_time_s", "packet_wall_time_s", "fluid_wall_time_s")  # measured durations: differ run to run


def _numbers(value):
    """``value`` without wall-clock durations (the only fields two identical runs may differ in)."""
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items() if k not in WALL and not k.endswith("wall_time_s")}
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    return value


def cli_json(capsys, argv, code=0):
    assert main([*argv, "--json"]) == code
    return json.loads(capsys.readouterr().out)


def _assert_contract(result):
    text = repr(result)
    assert len(text) < 300 and "array" not in text, text
    json.loads(result.to_json())  # strict: json.dumps(allow_nan=False) inside
    assert not _has_nan(result.to_dict())
    columns = result.columns()
    lengths = {len(v) for v in columns.values()}
    assert len(lengths) == 1 and lengths.pop() > 0  # equal-length columns, at least one row
    table = result.to_pandas()
    assert list(table.columns) == list(columns) and len(table) == len(next(iter(columns.values())))


def _has_nan(value):
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    return isinstance(value, float) and not math.isfinite(value)


GRID = ["--alpha", "0.2:1.6:0.2", "--beta", "0.1:0.7:0.2"]


@pytest.mark.parametrize("method", ["exact", "bode", "nyquist", "margins"])
def test_map_linear_methods(capsys, method):
    result = api.region("rcp", "0.2:1.6:0.2", "0.1:0.7:0.2", method=method)
    assert cli_json(capsys, ["map", "--method", method, *GRID]) == result.to_dict()
    _assert_contract(result)
    # the exact region's count is the closed form's (eq. D.1): 15 of 32 on this grid; every lens agrees here
    assert int(result.stable.sum()) == 15


def test_map_phaseplane_and_packet(capsys):
    args = dict(C=[0.15e9, 10e9], workers=1)
    result = api.region("rcp", "0.4,1.6", "0.2", method="phaseplane", **args)
    assert (
        cli_json(capsys, ["map", "--method", "phaseplane", "--alpha", "0.4,1.6", "--beta", "0.2", "--C", "0.15e9", "10e9"])
        == result.to_dict()
    )
    assert result.stable.tolist() == [[True, False]]  # (0.4, 0.2) inside Fig. 5.2's region, (1.6, 0.2) outside
    _assert_contract(result)
    packet = api.region("rcp", "0.4", "0.2", method="packet")
    assert cli_json(capsys, ["map", "--method", "packet", "--alpha", "0.4", "--beta", "0.2"]) == packet.to_dict()


def test_map_certified(capsys):
    pytest.importorskip("cvxpy")
    result = api.region("switched", "0.2,0.4", "0.2", method="certified")
    assert (
        cli_json(capsys, ["map", "--method", "certified", "--model", "switched", "--alpha", "0.2,0.4", "--beta", "0.2"])
        == result.to_dict()
    )


@pytest.mark.parametrize("command", ["margins", "bode", "nyquist"])
def test_point_commands(capsys, command):
    result = getattr(api, command)("xcp", 0.4, 0.226)
    assert cli_json(capsys, [command, "--model", "xcp", "--alpha", "0.4", "--beta", "0.226"]) == result.to_dict()
    _assert_contract(result)


def test_nyquist_count_agrees_with_margins():
    # two independent lenses: the encirclement count and the rightmost root
    for alpha, beta in ((0.4, 0.2), (1.8, 0.2)):
        n = api.nyquist("rcp", alpha, beta)
        assert n.stable == api.margins("rcp", alpha, beta).stable == (alpha < 1.5)


def test_linearize_and_theorem1(capsys):
    lin = api.linearize("rcp-router", T_over_d0=0.01)
    assert cli_json(capsys, ["linearize", "--model", "rcp-router", "--T-over-d0", "0.01"]) == lin.to_dict()
    assert lin.to_dict()["free_parameters"] == ["alpha", "beta"]
    _assert_contract(lin)
    th = api.theorem1("xcp")
    assert cli_json(capsys, ["theorem1"]) == th.to_dict()
    assert th["tightness"] == pytest.approx(1.0, abs=1e-9)  # the theorem is tight (the exit is at its bound)


def test_portrait_json_and_csv(capsys, tmp_path):
    result = api.portrait("rcp", 0.4, 0.2, 30, N=20)
    path = tmp_path / "p.csv"
    assert (
        cli_json(capsys, ["portrait", "--alpha", "0.4", "--beta", "0.2", "--rtts", "30", "--N", "20", "--csv", str(path)])
        == result.to_dict()
    )
    table = result.to_pandas()
    import pandas

    written = pandas.read_csv(path)
    assert list(written.columns) == list(table.columns)
    np.testing.assert_array_equal(written.to_numpy(), table.to_numpy())
    d = result.to_dict()
    inside = np.array(d["ends_in_band"])
    assert inside.any()  # the starts inside the band end at R = C/N with N = 20 (within the 2% band)
    np.testing.assert_allclose(np.array(d["final_R_over_C"])[inside], 1 / 20, rtol=0.02)
    _assert_contract(result)


def test_convergence(capsys):
    result = api.convergence("rcp", "0.4,0.8", "0.2")
    assert cli_json(capsys, ["convergence", "--alpha", "0.4,0.8", "--beta", "0.2"]) == result.to_dict()
    assert np.isfinite(result.times).all()
    _assert_contract(result)


def test_bifurcation(capsys):
    result = api.bifurcation("rcp", "1.3:1.5:0.1", "0.3", rtts=40)
    assert cli_json(capsys, ["bifurcation", "--alpha", "1.3:1.5:0.1", "--beta", "0.3", "--rtts", "40"]) == result.to_dict()
    _assert_contract(result)


def test_network(capsys):
    result = api.network(0.1, 1.0, t_end=5)
    assert cli_json(capsys, ["network", "--alpha", "0.1", "--beta", "1.0", "--t-end", "5"]) == result.to_dict()
    _assert_contract(result)


@pytest.mark.parametrize(
    "argv, call, kind",
    [
        (["--scenario", "fig5.3", "--t-end", "20"], dict(scenario="fig5.3", t_end=20), "single-link"),
        (["--scenario", "flash-crowd", "--C", "10e6"], dict(scenario="flash-crowd", C=10e6), "flash-crowd"),
        (["--scenario", "fig5.7", "--t-end", "5"], dict(scenario="fig5.7", t_end=5), "network"),
    ],
)
def test_cosim_one_dispatch(capsys, argv, call, kind):
    alpha, beta = (0.1, 1.0) if kind == "network" else (0.4, 0.6)
    result = rcpstab.cosim(alpha, beta, **call)
    assert result.kind == kind
    assert _numbers(cli_json(capsys, ["cosim", "--alpha", str(alpha), "--beta", str(beta), *argv])) == _numbers(result.to_dict())
    _assert_contract(result)


def test_cosim_flash_crowd_is_the_commands_engine():
    # issue 22: rcpstab.cosim(..., "flash-crowd") used to return plateaus and RMS, the command peak queue,
    # drops and recovery: now both are the flash-crowd engine's
    d = rcpstab.cosim(0.4, 0.226, "flash-crowd", C=10e6).to_dict()
    assert {"fluid", "packet", "differences", "conservation"} <= set(d)
    assert {"peak_queue_bdp", "dropped_bdp", "recovery_rtt"} <= set(d["fluid"])
    c = d["conservation"]
    assert c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"]


def test_check(capsys, tmp_path):
    path = tmp_path / "router.toml"
    path.write_text(check_example("thesis_box_a0.6_b0.2_T2ms"))
    result = api.check(str(path), "linear", samples=0, suggest=False)
    assert (
        cli_json(
            capsys,
            ["check", str(path), "--criterion", "linear", "--samples", "0", "--no-suggest"],
            code=0 if result.passed else 1,
        )
        == result.to_dict()
    )
    _assert_contract(result)


def test_fct(capsys):
    call = dict(C=10e6, d0=0.1, load=0.5, flows=200)
    result = api.fct(0.1, 1.0, **call)
    assert (
        cli_json(
            capsys, ["fct", "--alpha", "0.1", "--beta", "1.0", "--C", "10e6", "--d0", "0.1", "--load", "0.5", "--flows", "200"]
        )
        == result.to_dict()
    )
    _assert_contract(result)


def test_every_command_has_its_api_function_and_top_level_name():
    import importlib

    for package in ("cosim", "network", "check", "fct", "bifurcation", "theorem1"):
        importlib.import_module(f"rcpstab.{package}")  # binding the subpackage must not hide the function
    function = {"map": "region", "portrait": "portrait"}
    for command in COMMANDS:
        name = function.get(command, command)
        assert callable(getattr(api, name)) and getattr(rcpstab, name) is getattr(api, name)


def test_the_region_default_grid_is_the_registrys(monkeypatch):
    from rcpstab.linear.grid import parse_range

    seen = {}
    for name, m in METHODS.items():
        monkeypatch.setattr(type(m), "function", lambda self: lambda spec, a, b, **kw: seen.setdefault(self.name, (a, b)))
        api.region("rcp", method=name)  # the fake engine records the axes it was called with
        np.testing.assert_array_equal(seen[name][0], parse_range(m.grid[0], "alpha"))
        np.testing.assert_array_equal(seen[name][1], parse_range(m.grid[1], "beta"))
    assert METHODS["margins"].grid == ("0.05:2.0:0.05", "0.025:1.0:0.025")  # 40 x 40 (issue 23)


def test_an_option_the_method_ignores_is_refused():
    with pytest.raises(rcpstab.InputError, match="not used by method exact"):
        api.region("rcp", "0.4", "0.2", method="exact", pade=2)


def test_plot_and_save_of_the_point_results(tmp_path):
    import matplotlib.axes

    from rcpstab.api.point import MarginsResult
    from rcpstab.figures import new_figure

    for result in (api.margins("rcp", 0.4, 0.2), api.nyquist("rcp", 0.4, 0.2), api.linearize("xcp")):
        drawn = result.plot(ax=new_figure().subplots()) if not isinstance(result, MarginsResult) else result.plot()
        assert drawn is not None
        path = tmp_path / f"{result.command}.png"
        result.save(str(path))
        assert path.stat().st_size > 1000
    ax = api.linearize("xcp").plot(ax=new_figure().subplots())
    assert isinstance(ax, matplotlib.axes.Axes)


def _closed_form_loop_stable(k, tau, a=0.5):
    """k e^{-s tau}/(s - a) closed by unit negative feedback: stable iff k > a and tau < arccos(a/k)/sqrt(k^2 - a^2)."""
    return k > a and tau < np.arccos(a / k) / np.sqrt(k * k - a * a)


def _rcp_inside(alpha, beta):
    from conftest import rcp_inside

    return bool(rcp_inside(alpha, beta))


# every API result class whose to_pandas() the tests above do not reach (issue 28 item 3): one cheap call each,
# the table's row count, and a number in it checked against a fact the engine does not compute itself
TABLES = {
    "theorem1": (
        lambda: api.theorem1("rcp"),
        1,
        lambda t: t["bound"][0] == pytest.approx(math.pi / (4 * math.sqrt(2)), abs=1e-12),
    ),
    "simulate": (
        lambda: api.simulate("rcp", 0.4, 0.2, 30, N=20),
        None,
        lambda t: len(t) == t["t_s"].nunique() * t["ic"].nunique() and t["R_over_C"].iloc[-1] == pytest.approx(1 / 20, rel=0.02),
    ),  # ends at R = C/N
    "margins-batch": (
        lambda: api.margins("rcp", [0.4, 1.6], [0.2, 0.2]),
        2,
        lambda t: t["stable"].tolist() == [_rcp_inside(0.4, 0.2), _rcp_inside(1.6, 0.2)],
    ),
    # 2 e^{-0.3 s}/(s - 1): crossover at w = sqrt(3), phase margin pi/3 - 0.3 sqrt(3), delay margin that / sqrt(3)
    "lti-margins": (
        lambda: api.margins(([2.0], [1.0, -1.0]), delay=0.3),
        1,
        lambda t: (
            t["delay_margin_s"][0] == pytest.approx((math.pi / 3 - 0.3 * math.sqrt(3)) / math.sqrt(3), rel=1e-6)
            and t["crossover_w_rad_s"][0] == pytest.approx(math.sqrt(3), rel=1e-6)
        ),
    ),
    "lti-region": (
        lambda: api.region(([1.0], [1.0, -0.5]), gain=[0.4, 1.0, 2.0], delay=[0.1, 1.0]),
        6,
        lambda t: t["stable"].tolist() == [_closed_form_loop_stable(k, d) for k, d in zip(t["gain"], t["delay_s"])],
    ),
    "delayed-fluid-loop-margins": (
        lambda: api.margins("dcqcn", N=2),
        1,
        # two methods: the argument principle's count and the rightmost root
        lambda t: bool(t["stable"][0]) == (t["rightmost_root_re_per_s"][0] < 0) and t["unstable_roots"][0] == 0,
    ),
}


@pytest.mark.parametrize("name", list(TABLES))
def test_to_pandas_on_every_other_result(name):
    call, rows, fact = TABLES[name]
    result = call()
    table = result.to_pandas()
    assert list(table.columns) == list(result.columns())
    assert len(table) > 0 and (rows is None or len(table) == rows)
    assert fact(table)
    if hasattr(result, "to_json"):
        json.loads(result.to_json())
