"""Bring your own loop: a protocol file with its own names runs through every fluid lens (issue 22).

``tests/data/protocols/aimd_backlog.py`` is eq. 5.14 (bundled ``switched``) and
``aimd_unclamped.py`` eq. 5.15 (bundled ``linear``) with none of RCP's names (gains g_p, g_i,
capacity cap, round trip lag, flows users). Renaming changes nothing in the mathematics, so every
lens must give the bundled model's verdicts point for point, through the command line and the
API, with no ``--param``: the engines take the model's own defaults, time scale and queue unit.
``two_delays.py`` has two distinct delays; its exact region is checked against an argument-principle
count written here, independent of the package.
"""

import functools
import json
import pathlib

import numpy as np
import pytest
from conftest import run_cli
from scipy.optimize import brentq

import rcpstab
from rcpstab.cli import main
from rcpstab.models import get_model

HERE = pathlib.Path(__file__).parent
PROTOCOLS = HERE / "data" / "protocols"
BACKLOG = str(PROTOCOLS / "aimd_backlog.py")  # eq. 5.14 renamed
UNCLAMPED = str(PROTOCOLS / "aimd_unclamped.py")  # eq. 5.15 renamed
TWO_DELAYS = str(PROTOCOLS / "two_delays.py")
ERPI = str(HERE.parent / "examples" / "protocols" / "erpi.py")
RENAMED = [("switched", BACKLOG), ("linear", UNCLAMPED)]
LINEAR_GRID = ("0.1:1.9:0.3", "0.05:0.95:0.15")  # 7 x 7, across the bell's boundary
SIM_GRID = ("0.4:1.6:0.6", "0.2:1.0:0.4")  # 3 x 3: converged points and limit cycles


def _cli_json(capsys, argv):
    capsys.readouterr()  # what earlier commands printed
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_renamed_files_use_none_of_rcps_names():
    for path in (BACKLOG, UNCLAMPED, TWO_DELAYS):
        names = {sym.name for sym in get_model(path).parameters}
        assert not names & {"alpha", "beta", "C", "d_0", "N", "T", "eta", "MTU", "buffer"}


# --- the linear lenses: exact, bode, nyquist, margins -------------------------------------------


@pytest.mark.parametrize("bundled, path", RENAMED)
@pytest.mark.parametrize("method", ["exact", "bode", "nyquist"])
def test_linear_maps_are_renaming_invariant_cli(capsys, tmp_path, bundled, path, method):
    grid = ["--alpha", LINEAR_GRID[0], "--beta", LINEAR_GRID[1], "--method", method]
    mine = _cli_json(capsys, ["map", "--model", path, *grid, "--out", str(tmp_path / "x.png")])
    theirs = _cli_json(capsys, ["map", "--model", bundled, *grid])
    assert (tmp_path / "x.png").stat().st_size > 0
    assert mine["stable"] == theirs["stable"]
    stable = np.array(mine["stable"])
    assert stable.any() and not stable.all()  # the grid straddles the boundary
    assert mine["model"] == get_model(path).name


@pytest.mark.parametrize("bundled, path", RENAMED)
def test_margin_map_is_renaming_invariant_cli(capsys, bundled, path):
    grid = ["--alpha", "0.2:1.4:0.4", "--beta", "0.1:0.7:0.2", "--method", "margins"]
    # no figure: a file's margin map figure (0.8 s of drawing) is test_map_of_a_file_writes_its_figure's
    mine = _cli_json(capsys, ["map", "--model", path, *grid])
    theirs = _cli_json(capsys, ["map", "--model", bundled, *grid])
    assert mine["stable"] == theirs["stable"]
    for layer in ("gain_margin", "phase_margin_deg", "delay_margin", "rightmost_real"):
        a = np.array(mine[layer], dtype=float)
        b = np.array(theirs[layer], dtype=float)
        assert np.array_equal(np.isnan(a), np.isnan(b)) and np.isfinite(a).any()
        assert np.allclose(a[np.isfinite(a)], b[np.isfinite(b)], rtol=1e-9, atol=1e-12), layer


@pytest.mark.parametrize("bundled, path, drawn", [(*RENAMED[0], ("bode", (0.4, 0.2))), (*RENAMED[1], ("nyquist", (1.6, 0.6)))])
def test_point_lenses_are_renaming_invariant(capsys, tmp_path, bundled, path, drawn):
    # margins at a stable and an unstable point, no --param; one command's figure (--out) per file (a Bode
    # diagram costs 0.7 s of drawing, and the two files' figures are drawn by the same code)
    for alpha, beta in ((0.4, 0.2), (1.6, 0.6)):
        point = ["--alpha", str(alpha), "--beta", str(beta)]
        mine = _cli_json(capsys, ["margins", "--model", path, *point])
        theirs = _cli_json(capsys, ["margins", "--model", bundled, *point])
        assert mine["stable"] == theirs["stable"]
        assert np.allclose(mine["rightmost_root"], theirs["rightmost_root"], rtol=1e-9)
    command, (alpha, beta) = drawn
    out = tmp_path / f"{command}.png"
    assert main([command, "--model", path, "--alpha", str(alpha), "--beta", str(beta), "--out", str(out)]) == 0
    assert out.stat().st_size > 0
    capsys.readouterr()


@pytest.mark.parametrize("bundled, path", RENAMED)
def test_certified_region_is_renaming_invariant(bundled, path):
    pytest.importorskip("cvxpy")
    from rcpstab.linear.certified import certified_region

    alphas, betas = np.array([0.2, 0.6, 1.0]), np.array([0.1, 0.3])
    mine = certified_region(get_model(path), alphas, betas)
    theirs = certified_region(get_model(bundled), alphas, betas)
    assert np.array_equal(mine.stable, theirs.stable) and mine.stable.any() and not mine.stable.all()


# --- the nonlinear lenses: phase-plane map, portrait, convergence, bifurcation ------------------


@pytest.mark.parametrize("bundled, path", RENAMED)
def test_phaseplane_map_is_renaming_invariant_cli(capsys, tmp_path, bundled, path):
    grid = ["--method", "phaseplane", "--alpha", SIM_GRID[0], "--beta", SIM_GRID[1]]
    mine_csv, theirs_csv = tmp_path / "mine.csv", tmp_path / "theirs.csv"
    mine = _cli_json(capsys, ["map", "--model", path, *grid, "--csv", str(mine_csv), "--out", str(tmp_path / "p.png")])
    theirs = _cli_json(capsys, ["map", "--model", bundled, *grid, "--csv", str(theirs_csv)])
    assert (tmp_path / "p.png").stat().st_size > 0
    assert mine["meta"]["chunks_total"] > 0 and mine["stable"] == theirs["stable"]
    assert mine["meta"]["verdict_counts"] == theirs["meta"]["verdict_counts"]
    counts = mine["meta"]["verdict_counts"]
    assert counts["converged"] > 0 and counts["converged"] < 9 and counts["undecided"] == 0
    assert mine["meta"]["configurations"] == [{"lag": 0.2}]  # the model's own time scale, its own name
    rows = [np.genfromtxt(f, delimiter=",", names=True, dtype=None, encoding=None) for f in (mine_csv, theirs_csv)]
    assert list(rows[0]["verdict"]) == list(rows[1]["verdict"])
    assert np.array_equal(rows[0]["convergence_rtt"], rows[1]["convergence_rtt"], equal_nan=True)


@pytest.mark.parametrize("bundled, path", RENAMED)
def test_portrait_is_renaming_invariant_cli(capsys, tmp_path, bundled, path):
    point = ["--alpha", "1.4", "--beta", "0.8", "--rtts", "60"]
    assert main(["portrait", "--model", path, *point, "--csv", str(tmp_path / "a.csv"), "--out", str(tmp_path / "a.png")]) == 0
    mine_line = capsys.readouterr().out
    assert main(["portrait", "--model", bundled, *point, "--csv", str(tmp_path / "b.csv")]) == 0
    theirs_line = capsys.readouterr().out
    a, b = (np.loadtxt(tmp_path / f, delimiter=",", skiprows=1) for f in ("a.csv", "b.csv"))
    assert a.shape == b.shape and a.shape[0] > 6 * 100
    assert np.allclose(a, b, rtol=1e-12, atol=0)
    # the same verdicts and band counts in the summary (it names the model and its configuration differently)
    assert "converged" in mine_line and "diverged" in mine_line  # (1.4, 0.8) is outside: App. E's big starts diverge
    assert mine_line.split(": ", 1)[1].split("; figure")[0] == theirs_line.split(": ", 1)[1].split("; table")[0]
    assert (tmp_path / "a.png").stat().st_size > 0


def test_portrait_takes_the_models_own_parameter_names(capsys, tmp_path):
    # --param lag=0.1 on the renamed file is --d0 0.1 on the bundled model
    point = ["--alpha", "0.6", "--beta", "0.3", "--rtts", "40"]
    assert main(["portrait", "--model", BACKLOG, *point, "--param", "lag=0.1", "--csv", str(tmp_path / "a.csv")]) == 0
    assert main(["portrait", "--model", "switched", *point, "--d0", "0.1", "--csv", str(tmp_path / "b.csv")]) == 0
    a, b = (np.loadtxt(tmp_path / f, delimiter=",", skiprows=1) for f in ("a.csv", "b.csv"))
    assert np.allclose(a, b, rtol=1e-12) and abs(a[-1, 3] - 4.0) < 0.02  # 40 RTTs of 0.1 s
    capsys.readouterr()
    assert main(["portrait", "--model", BACKLOG, *point, "--d0", "0.1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--d0: model 'aimd-backlog' has no parameter d0" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("bundled, path", RENAMED)
def test_convergence_map_is_renaming_invariant_cli(capsys, tmp_path, bundled, path):
    grid = ["--alpha", "0.4:0.8:0.4", "--beta", "0.2:0.6:0.4"]
    mine = _cli_json(capsys, ["convergence", "--model", path, *grid, "--out", str(tmp_path / "c.png")])
    theirs = _cli_json(capsys, ["convergence", "--model", bundled, *grid])
    assert mine["verdict"] == theirs["verdict"] and "converged" in mine["verdict"]
    assert mine["convergence_rtt"] == theirs["convergence_rtt"]
    assert (tmp_path / "c.png").stat().st_size > 0


@pytest.mark.parametrize("bundled, path", RENAMED)
def test_bifurcation_is_renaming_invariant_cli(capsys, tmp_path, bundled, path):
    sweep = ["--alpha", "1.3:1.5:0.1", "--beta", "0.3", "--rtts", "60"]
    mine = _cli_json(capsys, ["bifurcation", "--model", path, *sweep, "--out", str(tmp_path / "b.png")])
    theirs = _cli_json(capsys, ["bifurcation", "--model", bundled, *sweep])
    assert [p["state"] for p in mine["points"]] == [p["state"] for p in theirs["points"]]
    for key in ("amplitude", "period_rtt", "rightmost_real_rtt"):
        a = np.array([p[key] if p[key] is not None else np.nan for p in mine["points"]], dtype=float)
        b = np.array([p[key] if p[key] is not None else np.nan for p in theirs["points"]], dtype=float)
        assert np.allclose(a, b, rtol=1e-9, equal_nan=True), key
    # the linear boundary at beta = 0.3 (alpha = 1.406) lies inside the swept range for both
    ((boundary,),) = [b["alpha"] for b in mine["boundaries"]]
    assert mine["boundaries"] == theirs["boundaries"] and 1.3 < boundary < 1.5
    assert (tmp_path / "b.png").stat().st_size > 0


# --- the API: results carry their model, plots never look a name up -----------------------------


@pytest.mark.parametrize("bundled, path", RENAMED)
def test_api_results_plot_and_match(bundled, path):
    import matplotlib

    matplotlib.use("Agg")

    mine = rcpstab.region(path, alpha=LINEAR_GRID[0], beta=LINEAR_GRID[1])
    theirs = rcpstab.region(bundled, alpha=LINEAR_GRID[0], beta=LINEAR_GRID[1])
    assert mine.model is get_model(path) and np.array_equal(mine.stable, theirs.stable)
    assert mine.plot() is not None and json.loads(mine.to_json())["model"] == mine.model.name
    traj = rcpstab.simulate(path, 1.4, 0.8, rtts=30)
    ref = rcpstab.simulate(bundled, 1.4, 0.8, rtts=30)
    assert traj.model is get_model(path) and np.allclose(traj.gamma, ref.gamma, rtol=1e-12)
    assert np.allclose(traj.queue_scale, ref.queue_scale) and traj.plot() is not None
    # any declared parameter by its own name, in the API too
    short = rcpstab.simulate(path, 1.4, 0.8, rtts=30, lag=0.1)
    assert short.d0 == 0.1 and np.allclose(short.gamma, rcpstab.simulate(bundled, 1.4, 0.8, rtts=30, d0=0.1).gamma, rtol=1e-12)


def test_plots_never_look_the_name_up_again():
    # A model object that no registry knows (its name is nobody's): every result still plots.
    import dataclasses

    import matplotlib

    matplotlib.use("Agg")
    from rcpstab.bifurcation import bifurcation_sweep
    from rcpstab.linear.marginmap import margin_map
    from rcpstab.linear.marginmap_plot import margin_map_plot
    from rcpstab.phaseplane.plotting import convergence_plot, verdict_plot
    from rcpstab.phaseplane.sweep import phaseplane_region

    ghost = dataclasses.replace(get_model(UNCLAMPED), name="nowhere-registered", origin="")
    with pytest.raises(rcpstab.errors.InputError):
        get_model("nowhere-registered")
    region = rcpstab.region(ghost, alpha="0.4:1.6:0.6", beta="0.2:0.6:0.4")
    region.plot()
    # drawn, not rendered (0.7 s): save_margin_figure's own code is the command's (test_map_of_a_file_writes_its_figure)
    margin_map_plot(margin_map(ghost, region.alpha, region.beta))
    sim = phaseplane_region(ghost, [0.4, 1.6], [0.2])
    verdict_plot(sim)
    convergence_plot(sim)
    assert sim.model is ghost and list(sim.table["verdict"]) == ["converged", "diverged"]  # a linear loop grows
    bifurcation_sweep(ghost, [1.3, 1.5], [0.3], rtts=40).plot()


# --- the repros: each failed before the change ------------------------------------------


def test_erpi_phaseplane_map_integrates(capsys):
    # was: "0 of 12 stable, 12 undecided", chunks_total 0 (configurations built from C, d0, N)
    out = _cli_json(capsys, ["map", "--method", "phaseplane", "--model", ERPI, "--alpha", "0.2:1.4:0.4", "--beta", "0.2:1.0:0.4"])
    assert out["meta"]["chunks_total"] == 1 and out["meta"]["verdict_counts"]["undecided"] == 0
    assert 0 < np.sum(out["stable"]) < 12 and out["meta"]["configurations"] == [{"tau": 0.1}]


@pytest.mark.parametrize("method", ["exact", "bode", "nyquist", "margins"])
def test_map_of_a_file_writes_its_figure(tmp_path, method, capsys):
    # was: the map computed, then exit 2 "unknown model 'erpi'" when plotting (a name looked up again).
    # In this process (~2.5 s of start-up saved each): a file's model is not registered by name, so a
    # lookup by name fails here as it did in a new process.
    out = tmp_path / "x.png"
    code, stdout, err = run_cli(
        capsys, "map", "--method", method, "--model", ERPI, "--alpha", "0.2:1.4:0.4", "--beta", "0.2:1.0:0.4", "--out", str(out)
    )
    assert code == 0, err
    assert out.stat().st_size > 0 and "region of erpi" in stdout


def test_simulate_a_file_from_the_api():
    # was: KeyError 'C'
    traj = rcpstab.simulate(ERPI, 0.8, 0.3, rtts=150)
    assert traj.gamma.shape[1] == 6 and np.allclose(traj.gamma[-1], 1 / 20, rtol=0.02)  # r -> mu/n_src


def test_bifurcation_of_a_file(capsys):
    # was: internal error (tuple.index: the swept gain looked up as "alpha")
    out = _cli_json(capsys, ["bifurcation", "--model", ERPI, "--beta", "0.2", "--alpha", "1.3:1.6:0.1", "--rtts", "100"])
    ((boundary,),) = [b["alpha"] for b in out["boundaries"] if b["beta"] == 0.2]
    # ER-PI's closed-form bell (module docstring): kappa_r = w sin w where kappa_q = w^2 cos w = 0.2
    w = brentq(lambda w: w**2 * np.cos(w) - 0.2, 1.0, 1.55)
    assert abs(boundary - w * np.sin(w)) < 1e-8
    states = {p["alpha"]: p["state"] for p in out["points"] if p["direction"] == "up"}
    assert states[1.3] in ("equilibrium", "decaying") and states[1.6] in ("cycle", "growing", "diverged")


@pytest.mark.parametrize(
    "argv", [["map", "--method", "packet", "--alpha", "0.4", "--beta", "0.2"], ["cosim", "--alpha", "0.4", "--beta", "0.2"]]
)
def test_packet_commands_refuse_a_fluid_only_model(capsys, argv):
    assert main([*argv, "--model", BACKLOG]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "error" in err and ("packet" in err)


# --- two distinct delays ------------------------------------------------------------------------

NEAR_BOUNDARY = 1e-3  # smallest |Delta(i w)| relative to its terms' size below which a point is not counted


@functools.cache
def _imaginary_axis(theta, w_max):
    """The samples s = i w of :func:`_unstable_roots`, s^2, w^2, e^-s and e^(-theta s): the same at every gain."""
    # fine where the delayed terms can turn the phase, coarse where -w^2 dominates
    w = np.concatenate([np.arange(0.0, 20.0, 2e-4), np.arange(20.0, w_max + 1e-2, 1e-2)])
    s = 1j * w
    return w, s, s**2, w**2, np.exp(-s), np.exp(-theta * s)


def _unstable_roots(kr, kq, theta, w_max=400.0):
    """Roots of lambda^2 + kr lambda e^-lambda + kq e^(-theta lambda) in Re > 0, by the argument principle.

    For this retarded equation of degree 2 the count is 1 - (arg change of Delta(i w), w: 0 -> inf)/pi
    (the right half-plane contour's big arc adds pi per degree); Delta(0) = kq > 0. Returns the
    count and the smallest |Delta(i w)| (relative), which is 0 on the boundary.
    """
    w, s, s2, w2, e1, e_theta = _imaginary_axis(theta, w_max)
    delta = s2 + kr * s * e1 + kq * e_theta
    closeness = np.min(np.abs(delta) / (w2 + kr * w + kq))
    if closeness < NEAR_BOUNDARY:  # a root on or next to the axis: the count is not resolved
        return np.nan, closeness
    turn = np.unwrap(np.angle(delta))
    # beyond w_max, Delta ~ -w^2 (1 + O(1/w)): its argument settles on the nearest pi + 2 pi k
    limit = np.pi + 2 * np.pi * np.round((turn[-1] - np.pi) / (2 * np.pi))
    assert abs(turn[-1] - limit) < 0.02 and np.max(np.abs(np.diff(turn))) < 1.0  # asymptotic, and resolved
    return 1.0 - (limit - turn[0]) / np.pi, closeness


def test_argument_principle_count_is_the_closed_form_bell_for_one_delay():
    # theta = 1 is eq. 5.15's loop: stable exactly inside alpha = w sin w, beta = w^2 cos w (conftest)
    from conftest import near_rcp_boundary, rcp_inside

    A, B = np.meshgrid(np.arange(0.1, 2.0, 0.3), np.arange(0.05, 1.0, 0.15))
    far = ~near_rcp_boundary(A, B, 1e-2)
    counts = np.array([[_unstable_roots(a, b, 1.0)[0] for a in row_a] for row_a, b in zip(A, B[:, 0])])
    resolved = far & np.isfinite(counts)
    assert resolved.sum() > 30 and np.array_equal((counts == 0)[resolved], rcp_inside(A, B)[resolved])


def test_two_delay_exact_region_against_the_argument_principle(capsys):
    model = get_model(TWO_DELAYS)
    assert len(model.delays) == 2
    grid = ["--alpha", "0.1:1.9:0.2", "--beta", "0.05:1.25:0.15"]
    out = _cli_json(capsys, ["map", "--model", TWO_DELAYS, *grid])
    stable = np.array(out["stable"], dtype=bool)
    agree = checked = 0
    for j, kq in enumerate(out["beta"]):
        for i, kr in enumerate(out["alpha"]):
            count, _ = _unstable_roots(kr, kq, theta=0.5)
            if np.isnan(count):
                continue
            assert round(count) in (0, 2)
            checked += 1
            agree += (round(count) == 0) == stable[j, i]
    assert checked >= 0.9 * stable.size and agree == checked
    assert stable.any() and not stable.all()
    # the second delay matters: the region differs from eq. 5.15's (theta = 1) on this grid
    single = np.array(_cli_json(capsys, ["map", "--model", "linear", *grid])["stable"], dtype=bool)
    assert (single != stable).sum() >= 3


def test_two_delay_linear_lenses_take_its_own_parameter(capsys):
    # qlag = lag makes theta = 1: eq. 5.15's loop, the bundled linear model's region point for point
    grid = ["--alpha", "0.1:1.9:0.2", "--beta", "0.05:1.25:0.15"]
    single = _cli_json(capsys, ["map", "--model", "linear", *grid])["stable"]
    for method in ("exact", "nyquist"):
        same = _cli_json(capsys, ["map", "--method", method, "--model", TWO_DELAYS, *grid, "--param", "qlag=0.2"])
        assert same["stable"] == single
    mine = rcpstab.region(TWO_DELAYS, alpha=grid[1], beta=grid[3], params={"qlag": 0.2})
    assert mine.stable.tolist() == [[bool(v) for v in row] for row in single] and mine.model.parameters
    assert get_model(TWO_DELAYS).parameters[mine.model.symbol("qlag")] == 0.1  # the file's model is untouched
    assert mine.model.parameters[mine.model.symbol("qlag")] == 0.2  # the result's is the one mapped
    for bad, message in (
        (["--param", "qlag=0.1,0.2"], "give one value"),
        (["--param", "k_r=1"], "is a loop gain"),
        (["--param", "qlag=-1"], "qlag = -1"),
    ):
        assert main(["map", "--model", TWO_DELAYS, "--alpha", "0.4", "--beta", "0.2", *bad]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err


def test_two_delay_nonlinear_lens_agrees_with_its_exact_region():
    # The model is linear (no clamp), so the phase plane must see the exact region away from the boundary.
    from rcpstab.phaseplane.sweep import phaseplane_region

    alphas, betas = np.array([0.3, 0.9, 1.7]), np.array([0.2, 0.8])
    exact = rcpstab.region(TWO_DELAYS, alpha=alphas, beta=betas)
    simulated = phaseplane_region(TWO_DELAYS, alphas, betas)
    assert exact.stable.any() and not exact.stable.all()
    assert np.array_equal(exact.stable, simulated.stable)
    assert simulated.meta["configurations"] == [{"lag": 0.2}]


def test_bode_refuses_two_delays_in_one_line(capsys):
    assert main(["map", "--method", "bode", "--model", TWO_DELAYS, "--alpha", "0.4", "--beta", "0.2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "more than one delay" in err


@pytest.mark.parametrize("bundled, path", RENAMED)
def test_every_api_function_is_renaming_invariant_and_plots(bundled, path):
    # one API function per lens, each result plotted: the renamed file and the bundled model agree
    import matplotlib
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")

    calls = {
        "margins": (lambda m: rcpstab.margins(m, 1.2, 0.4), ("stable", "rightmost_root", "gain_margin", "phase_margin_deg")),
        "bode": (lambda m: rcpstab.bode(m, 1.2, 0.4), ("stable", "crossover_w", "phase_margin_deg")),
        "nyquist": (lambda m: rcpstab.nyquist(m, 1.6, 0.4), ("N", "P", "Z", "stable")),
        "portrait": (lambda m: rcpstab.portrait(m, 1.4, 0.8, rtts=30), ("final_R_over_C", "verdicts", "ends_in_band")),
        "convergence": (
            lambda m: rcpstab.convergence(m, alpha="0.4:0.8:0.4", beta="0.2:0.6:0.4"),
            ("stable", "verdict", "convergence_rtt"),
        ),
        "bifurcation": (lambda m: rcpstab.bifurcation(m, alpha="1.3:1.5:0.1", beta="0.3", rtts=60), ("points",)),
    }
    for name, (call, keys) in calls.items():
        mine, theirs = call(path), call(bundled)
        a, b = mine.to_dict(), theirs.to_dict()
        for key in keys:
            if key == "points":
                assert [p["state"] for p in a[key]] == [p["state"] for p in b[key]], name
                assert np.allclose([p["amplitude"] for p in a[key]], [p["amplitude"] for p in b[key]], rtol=1e-9)
            elif isinstance(a[key], (list, float)) and not isinstance(np.ravel(a[key])[0], str):
                assert np.allclose(np.array(a[key], dtype=float), np.array(b[key], dtype=float), rtol=1e-9, equal_nan=True), (
                    name,
                    key,
                )
            else:
                assert a[key] == b[key], (name, key)
        assert mine.plot() is not None, name
        plt.close("all")
