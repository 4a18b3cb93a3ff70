"""``to_xarray()`` of the grid results (issue 28 item 3): labelled dimensions alpha, beta (and the swept
configurations), units in ``attrs``, the values the result's own arrays hold, and facts the engines do not
produce themselves (the closed-form RCP boundary, eq. D.1; the single-point margins)."""

import importlib.util

import numpy as np
import pytest
from conftest import near_rcp_boundary, rcp_inside

import rcpstab

# found, not imported: the code imports xarray when it runs; importing it here cost every pytest-xdist worker
# ~1.2 s of CPU at collection, also the worker that does not run this file
if importlib.util.find_spec("xarray") is None:
    pytest.skip("xarray is not installed", allow_module_level=True)

ALPHA, BETA = "0.15:1.95:0.3", "0.05:0.95:0.15"  # 7 x 7, no point near the boundary (checked below)


def _units_everywhere(ds):
    for name in ds.variables:
        assert "units" in ds[name].attrs, name


def test_exact_region_dataset_is_the_map_and_the_closed_form():
    r = rcpstab.region("rcp", ALPHA, BETA)
    ds = r.to_xarray()
    assert ds["stable"].dims == ("beta", "alpha")
    np.testing.assert_array_equal(ds["alpha"].values, r.value.alpha)
    np.testing.assert_array_equal(ds["beta"].values, r.value.beta)
    np.testing.assert_array_equal(ds["stable"].values.astype(bool), r.stable)
    A, B = np.meshgrid(r.value.alpha, r.value.beta)
    assert not near_rcp_boundary(A, B, 0.01).any()
    expected = rcp_inside(A, B)
    assert 0 < expected.sum() < expected.size
    assert int(ds["stable"].sum()) == int(expected.sum())  # the closed form's count (eq. D.1)
    np.testing.assert_array_equal(ds["stable"].values.astype(bool), expected)
    assert ds.attrs["model"] == "rcp" and ds.attrs["method"] == "exact"
    _units_everywhere(ds)


def test_a_descending_axis_keeps_the_results_order():
    # region() sorts its axes; a batch of margins keeps the caller's order, and so does its Dataset
    alphas, betas = np.array([1.6, 0.4]), np.array([0.3, 0.1])
    batch = rcpstab.margins("rcp", alphas[None, :], betas[:, None])
    ds = batch.to_xarray()
    assert ds["alpha"].values.tolist() == [1.6, 0.4] and ds["beta"].values.tolist() == [0.3, 0.1]
    np.testing.assert_array_equal(ds["stable"].values, batch.stable.reshape(2, 2))
    assert ds["stable"].values.tolist() == [[False, True], [False, True]]  # alpha = 1.6 is outside at both betas


def test_margins_map_dataset_agrees_with_single_point_margins():
    r = rcpstab.region("rcp", "0.2:1.6:0.7", "0.1:0.5:0.4", method="margins")
    ds = r.to_xarray()
    assert ds["phase_margin_deg"].attrs["units"] == "deg" and ds["delay_margin"].attrs["units"] == "d0"
    for a in ds["alpha"].values:
        for b in ds["beta"].values:
            m = rcpstab.margins("rcp", float(a), float(b))  # the single-point engine, point by point
            point = ds.sel(alpha=a, beta=b)
            assert bool(point["stable"]) == m.stable == bool(rcp_inside(a, b))
            for name in ("phase_margin_deg", "gain_margin", "delay_margin"):
                value, single = float(point[name]), getattr(m, name)
                assert np.isnan(value) if single is None else value == pytest.approx(single, rel=1e-6, abs=1e-9)
    _units_everywhere(ds)
    units = r.to_pandas().attrs["units"]  # the long table says the same units
    assert units["delay_margin"] == "d0" and units["phase_margin_deg"] == "deg" and units["alpha"] == "1"


def test_swept_configurations_become_dimensions():
    r = rcpstab.region("rcp", "0.4,1.6", "0.2", method="phaseplane", C=[0.15e9, 10e9])
    ds = r.to_xarray()
    assert ds["stable"].dims == ("C", "beta", "alpha")
    assert ds["C"].values.tolist() == [0.15e9, 10e9] and ds["C"].attrs["units"] == "bit/s"
    assert float(ds["d0"]) == 0.2 and ds["d0"].attrs["units"] == "s"  # one value: a scalar coordinate
    table = r.value.table
    for k in range(len(table["alpha"])):
        point = ds.sel(C=table["C"][k], alpha=table["alpha"][k], beta=table["beta"][k])
        assert int(point["stable"]) == int(table["stable"][k]) and str(point["verdict"].item()) == str(table["verdict"][k])
    # Fig. 5.2: (0.4, 0.2) inside the region at both capacities, (1.6, 0.2) outside
    assert ds["stable"].values.tolist() == [[[1, 0]], [[1, 0]]]
    np.testing.assert_array_equal(ds["stable_everywhere"].values, ds["stable"].all("C").values)
    np.testing.assert_array_equal(ds["stable_everywhere"].values.astype(bool), r.stable)


def test_convergence_dataset_holds_the_times():
    c = rcpstab.convergence("rcp", "0.4,0.8", "0.2,0.3")
    ds = c.to_xarray()
    assert ds.attrs["command"] == "convergence" and ds["convergence_rtt"].attrs["units"] == "RTT"
    table = c.value.table
    for k, t in enumerate(c.times):
        assert float(ds["convergence_rtt"].sel(alpha=table["alpha"][k], beta=table["beta"][k])) == t
    assert np.isfinite(ds["convergence_rtt"].values).all()  # all four inside the region: each converges


def test_margins_batch_dataset_and_table():
    alphas, betas = np.array([0.3, 0.9, 1.7]), np.array([0.15, 0.45])
    batch = rcpstab.margins("rcp", alphas[None, :], betas[:, None])
    ds = batch.to_xarray()
    assert ds["stable"].dims == ("beta", "alpha")
    A, B = np.meshgrid(alphas, betas)
    np.testing.assert_array_equal(ds["stable"].values, rcp_inside(A, B))  # the closed form
    np.testing.assert_array_equal(ds["delay_margin"].values, batch.delay_margin.reshape(2, 3))
    assert ds["crossover_w"].attrs["units"] == "rad/d0"
    table = batch.to_pandas()
    assert len(table) == 6 and {"alpha", "beta", "delay_margin_d0", "rightmost_root_re_s_d0"} <= set(table)
    np.testing.assert_array_equal(table["stable"].to_numpy(), batch.stable)
    _units_everywhere(ds)


def test_a_delayed_loop_batch_is_in_si_units():
    batch = rcpstab.margins("dcqcn", N=[2, 10])
    ds = batch.to_xarray()
    assert ds["stable"].dims == ("N",) and ds["delay_margin"].attrs["units"] == "s"
    for i, n in enumerate((2, 10)):
        single = rcpstab.margins("dcqcn", N=n)
        assert float(ds["delay_margin"].sel(N=n)) == pytest.approx(single.delay_margin, rel=1e-9)
        assert batch.to_pandas()["delay_margin_s"][i] == pytest.approx(single.delay_margin, rel=1e-9)


def test_points_that_repeat_are_not_a_grid():
    with pytest.raises(rcpstab.InputError, match="not a grid"):
        rcpstab.margins("rcp", [0.4, 0.4], [0.2, 0.2]).to_xarray()


def test_an_lti_loop_region_dataset_is_the_closed_form():
    # k e^{-s tau}/(s - a), a = 0.5: stable iff k > a and tau < arccos(a/k)/sqrt(k^2 - a^2)
    gains, delays = np.array([0.3, 0.8, 1.5, 3.0]), np.array([0.2, 0.9, 2.5])
    r = rcpstab.region(([1.0], [1.0, -0.5]), gain=gains, delay=delays)
    ds = r.to_xarray()
    assert ds["stable"].dims == ("delay", "gain") and ds["delay"].attrs["units"] == "s"
    K, tau = np.meshgrid(gains, delays)
    with np.errstate(invalid="ignore"):
        expected = (K > 0.5) & (tau < np.arccos(np.minimum(0.5 / K, 1)) / np.sqrt(np.maximum(K * K - 0.25, 0)))
    assert 0 < expected.sum() < expected.size
    np.testing.assert_array_equal(ds["stable"].values, expected)
    np.testing.assert_array_equal(ds["stable"].values, r.stable)


def test_a_user_models_own_parameter_keeps_its_declared_unit():
    # examples/protocols/erpi.py is eq. 5.14 under other names; its delay is tau (s), not RCP's d0
    from pathlib import Path

    path = str(Path(__file__).parents[1] / "examples" / "protocols" / "erpi.py")
    ds = rcpstab.region(path, "0.4,1.6", "0.2", method="phaseplane").to_xarray()
    assert float(ds["tau"]) > 0 and ds["tau"].attrs["units"] == "s"
    assert ds["stable"].values.tolist() == [[1, 0]]  # as the bundled model: (0.4, 0.2) inside, (1.6, 0.2) outside
