"""Issue 24, item 1: `rcpstab fct` offers the load it is asked for, reports nominal, offered
and carried load, and its headline ratio is against PS fed the same arrivals."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import run_cli

from rcpstab.fct import fct_study
from rcpstab.fct.flow_run import NS_PER_S, WARMUP_FRACTION, draw_workload, run_flows
from rcpstab.fct.ps import processor_sharing_sojourn
from rcpstab.packet.hosts.flow_traffic import parse_arrivals, parse_sizes

PKT = 1000
SIZES = [
    "pareto:mean=25,shape=1.2",
    "pareto:mean=25,shape=2.5",
    "exponential:mean=30",
    "fixed:size=37",
    "pareto:mean=10,shape=1.05",
]


@pytest.mark.parametrize("sizes", SIZES)
@pytest.mark.parametrize("n", [300, 20000])
@pytest.mark.parametrize("arrivals", ["poisson", "pareto:shape=1.5"])
def test_drawn_workload_offers_the_nominal_load(sizes, n, arrivals):
    C, rho = 20e6, 0.9
    start, size, warm = draw_workload(parse_sizes(sizes), parse_arrivals(arrivals), n, rho, C, PKT, seed=3)
    assert np.all(np.diff(start) >= 0) and size.min() >= 1
    whole = size.sum() * PKT * 8 / (C * start[-1])
    window = size[warm:].sum() * PKT * 8 / (C * (start[-1] - start[warm]))
    assert whole == pytest.approx(rho, rel=0.02) and window == pytest.approx(rho, rel=0.02)


def test_the_old_nominal_rate_draws_far_less_than_rho_with_pareto_1_2():
    # Why item 1 exists: at the distribution's mean rate the issue measured 0.60 at 5000 flows.
    d = parse_sizes("pareto:mean=25,shape=1.2")
    rng = np.random.default_rng(0)
    drawn = [d.sample(rng, 5000).mean() / d.mean_packets for _ in range(200)]
    assert np.median(drawn) < 0.9  # the typical run offers under 90% of rho


def test_poisson_arrivals_stay_poisson_after_scaling():
    # Scaling exponential gaps to a fixed sum gives uniform spacings: coefficient of variation 1,
    # and the counts in equal sub-intervals are binomial (variance ~ mean).
    start, size, warm = draw_workload(
        parse_sizes("pareto:mean=25,shape=1.2"), parse_arrivals("poisson"), 40000, 0.8, 1e7, PKT, seed=5
    )
    gaps = np.diff(start[warm:])
    assert np.std(gaps) / np.mean(gaps) == pytest.approx(1.0, abs=0.03)
    counts = np.histogram(start[warm:], bins=200)[0]
    assert np.var(counts) / np.mean(counts) == pytest.approx(1.0, abs=0.3)


@pytest.mark.parametrize("sizes", SIZES[:4])
def test_run_offered_load_is_nominal_and_carried_load_is_reported(sizes):
    run = run_flows(0.4, 0.3, capacity_bps=20e6, rtt_s=0.05, load=0.6, sizes=parse_sizes(sizes), n_flows=2000, seed=2)
    assert run.measured_load == pytest.approx(0.6, rel=0.02)
    assert len(run.records) == 2000
    # The window's carried load cannot exceed what was offered plus the backlog at its start.
    assert 0 < run.utilization <= 1


def test_headline_is_afct_over_ps_fed_the_same_arrivals():
    r = fct_study(
        0.1, 1.0, capacity_bps=20e6, rtt_s=0.1, load=0.8, sizes=parse_sizes("pareto:mean=25,shape=1.2"), n_flows=3000, seed=4
    )
    rec = r.runs[0].records
    order = np.argsort(rec["id"])
    # Independent re-computation of PS on the same arrivals from the records.
    soj = processor_sharing_sojourn(rec["start_ns"][order] / NS_PER_S, rec["size_pkts"][order] * PKT * 8.0, 20e6)
    ps = np.empty(len(rec))
    ps[order] = 0.15 + soj
    fct = rec["fct_ns"] / NS_PER_S
    out = r.summary()
    for b, js in zip(r.bins, out["bins"]):
        sel = (rec["size_pkts"] >= b.size_lo_pkts) & (rec["size_pkts"] <= b.size_hi_pkts)
        assert b.afct_over_ps == pytest.approx(fct[sel].mean() / ps[sel].mean(), rel=1e-9)
        assert js["afct_over_ps"] == pytest.approx(b.afct_over_ps) and js["ps_reference"] == "same_arrivals"
        assert js["afct_over_ps_eq41"] == pytest.approx(b.afct_s / b.ps_afct_s)
    assert out["nominal_load"] == 0.8 and out["offered_load"] == pytest.approx(0.8, rel=0.02)
    assert out["carried_load"] == out["utilization"]
    assert int(WARMUP_FRACTION * 3000) == 300


def _keys(obj, out):
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.add(k)
            _keys(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _keys(v, out)
    return out


@pytest.mark.slow  # three runs of the command (in this process: ~2.5 s of start-up each saved)
def test_help_documents_every_output_column(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # the help wrapped as in a pipe, whatever this terminal's width
    cmd = [
        "fct",
        "--alpha",
        "0.4",
        "--beta",
        "0.3",
        "--C",
        "10e6",
        "--d0",
        "0.05",
        "--load",
        "0.5",
        "--flows",
        "200",
        "--sizes",
        "exponential:mean=5",
    ]
    runs = {
        name: run_cli(capsys, *argv) for name, argv in (("json", cmd + ["--json"]), ("help", cmd[:1] + ["--help"]), ("text", cmd))
    }
    assert all(code == 0 for code, _, _ in runs.values()), runs
    js = json.loads(runs["json"][1])
    help_text = runs["help"][1]
    missing = sorted(k for k in _keys(js, set()) if k not in help_text)
    assert not missing, missing
    assert "offered" in runs["text"][1]
