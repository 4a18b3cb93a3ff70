"""The convergence band is one object: engines take it, checkpoint keys include it, texts read it.

References: the online kernel monitor (C, the band compiled in) against the recorded trajectory's
envelope (NumPy) with a non-standard band; the band distance's closed form; the monotonicity of
the last band exit in the band's width (a wider band is left no later); the checkpoint's own
record of which chunks it computed.
"""

import numpy as np
import pytest

from rcpstab.models import get_model
from rcpstab.phaseplane import decide, phaseplane_region, simulate
from rcpstab.phaseplane.compiled import compile_model
from rcpstab.phaseplane.monitor import EnvelopeMonitor, trajectory_envelope
from rcpstab.phaseplane.setup import make_integrator
from rcpstab.phaseplane.sweep import initial_conditions
from rcpstab.verdicts.band import STANDARD, Band, band_distance, last_band_exit
from rcpstab.verdicts.judgement import judge_trace

APP_E = {"C": 0.15e9, "d0": 0.2, "N": 10.0, "T": 0.01}
CD0 = APP_E["C"] * APP_E["d0"]
WIDE = Band(0.04, 0.02)
WIDER = Band(0.08, 0.04)


def test_band_distance_is_the_worse_of_rate_and_queue_in_half_widths():
    # 3% off in rate and 0.5% of C*d0 in queue: 1.5 and 0.5 standard half-widths, 0.75 and 0.25 of WIDE's
    assert band_distance(0.103, 0.005, 0.1, 0.0, 1.0) == pytest.approx(1.5, rel=1e-12)
    assert band_distance(0.103, 0.005, 0.1, 0.0, 1.0, WIDE) == pytest.approx(0.75, rel=1e-12)
    assert WIDE.distance(0.1, 0.03, 0.1, 0.0, 1.0) == pytest.approx(1.5, rel=1e-12)  # the queue dominates
    assert STANDARD == Band(0.02, 0.01) and STANDARD.describe("C*d0") == "R within 2%, q within 1% of C*d0"
    with pytest.raises(ValueError):
        Band(0.0, 0.01)


def test_the_band_enters_the_kernel_source_and_the_standard_one_is_the_default():
    compiled = compile_model(get_model("rcp"))
    assert compiled.kernel is compiled.kernel_for(Band(0.02, 0.01))  # equal bands: one compiled kernel
    assert compiled.kernel_for(WIDE) is not compiled.kernel


def test_online_monitor_measures_in_the_band_it_was_given():
    """C kernel (WIDE compiled in) and NumPy envelope of the recorded trajectory agree, and the
    distances are the standard ones scaled by the ratio of the half-widths."""
    params = dict(APP_E, alpha=np.array([0.6, 1.4, 0.3]), beta=np.array([0.8, 0.8, 0.2]))
    start = {"gamma0": np.array([0.01, 0.5, 0.5]), "q0": np.array([2 * CD0, 0.0, 0.0])}
    envelopes = {}
    for band in (STANDARD, WIDE):
        integrator = make_integrator(get_model("rcp"), params, start)
        monitor = EnvelopeMonitor(integrator, band)
        integrator.run(1000, monitor)  # 50 RTTs
        envelopes[band] = monitor.envelope(integrator.k)
    offline = trajectory_envelope(simulate(get_model("rcp"), params, start, 10.0, record_every=1), WIDE)
    online = envelopes[WIDE]
    assert np.allclose(online.peaks, offline.peaks, rtol=1e-12, atol=1e-15)
    assert np.allclose(online.rate_peaks, offline.rate_peaks, rtol=1e-12, atol=1e-15)
    # WIDE is twice the standard band in both: every distance halves
    assert np.allclose(online.peaks, envelopes[STANDARD].peaks / 2.0, rtol=1e-12)
    assert np.all(online.last_out_rtt <= envelopes[STANDARD].last_out_rtt)


def test_a_wider_band_converges_no_later_and_the_verdicts_stay():
    """App. E's six starts at three stable points: the measured convergence time (last band exit)
    is monotone in the band's width, and strictly earlier for most trajectories."""
    gammas, queues = (v[0] for v in initial_conditions(APP_E["C"], APP_E["d0"], APP_E["N"]))
    points = [(0.6, 0.2), (0.4, 0.4), (0.8, 0.6)]
    alpha = np.repeat([a for a, _ in points], 6)
    beta = np.repeat([b for _, b in points], 6)
    start = {"gamma0": np.tile(gammas, 3), "q0": np.tile(queues, 3)}
    times = {}
    for band in (STANDARD, WIDE, WIDER):
        judged = decide(get_model("rcp"), dict(APP_E, alpha=alpha, beta=beta), start, band=band)
        assert list(judged.names) == ["converged"] * 18
        times[band] = judged.convergence_rtt
    assert np.all(times[WIDE] <= times[STANDARD]) and np.all(times[WIDER] <= times[WIDE])
    assert (times[WIDER] < times[STANDARD]).mean() > 0.8


def test_judge_trace_with_a_band_matches_the_closed_form_exit():
    """R/C = Re (1 + 0.5 e^{-0.05 t}): the band of half-width h is left for good at t = ln(0.5/h)/0.05."""
    t = np.arange(0.0, 400.0, 0.01)
    gamma = 0.1 * (1.0 + 0.5 * np.exp(-0.05 * t))
    for band in (STANDARD, WIDE, WIDER):
        j = judge_trace(t, gamma, 0 * t, 0.1, 0.0, 1.0, band)
        assert j.names[0] == "converged"
        assert j.convergence_rtt[0] == pytest.approx(np.log(0.5 / band.rate) / 0.05, abs=0.011)
        assert j.convergence_rtt[0] == last_band_exit(t, band_distance(gamma, 0 * t, 0.1, 0.0, 1.0, band))


def test_changing_the_band_rekeys_the_checkpoint(tmp_path):
    path = str(tmp_path / "ck")
    kwargs = {"params": {"C": APP_E["C"], "d0": APP_E["d0"], "N": APP_E["N"], "T": APP_E["T"]}, "checkpoint": path}
    first = phaseplane_region(get_model("rcp"), [0.6], [0.2], **kwargs)
    again = phaseplane_region(get_model("rcp"), [0.6], [0.2], **kwargs)
    wider = phaseplane_region(get_model("rcp"), [0.6], [0.2], band=WIDE, **kwargs)
    wider_again = phaseplane_region(get_model("rcp"), [0.6], [0.2], band=WIDE, **kwargs)
    assert first.meta["chunks_computed"] == 1 and again.meta["chunks_computed"] == 0
    assert wider.meta["chunks_computed"] == 1 and wider_again.meta["chunks_computed"] == 0
    # the wider band's point converges earlier (it was computed, not read back)
    assert wider.table["convergence_rtt"][0] < first.table["convergence_rtt"][0]
    assert again.table["convergence_rtt"][0] == first.table["convergence_rtt"][0]
