"""Issue 24, mechanism B: why each router of the parking-lot chain held 40-75 packets.

The claim (notebook 07, experiments/fct_router_queue.py): every router starts at R = C and the
400-flow runs end before the rate has come down, so the window's mean queue is the descent's:
the rate law's budget of ln R over a window of length T gives the mean queue exactly,
alpha (1 - u) C d / beta + C d^2 ln(R(t0) / R(t1)) / (beta T), which for a settled router is
the pinned alpha (1 - u) C d / beta and for a router still falling from C adds a term that
shrinks as 1/T. It is a per-link property (one link alone holds it), and the flow-level fluid
model started at R = C on the same arrivals puts the same queue on one link. Small set-ups the
reports do not use: 30 Mb/s, load 0.85, seed 7 (the reports: 20/50/100 Mb/s, seeds 1-3).
"""

from __future__ import annotations

import numpy as np
import pytest

from rcpstab.fct.fluid_flows import fluid_flow_run
from rcpstab.fct.multilink import chain_fct
from rcpstab.packet.hosts.flow_traffic import parse_sizes

C, D, LOAD, SEED = 30e6, 0.1, 0.85, 7
SIZES = parse_sizes("pareto:mean=25,shape=1.2")


def _mean(tq, li, t0, t1, key):
    m = (tq["link"] == li) & (tq["t_s"] > t0) & (tq["t_s"] <= t1)
    return float(np.average(tq[key][m], weights=np.diff(np.r_[t0, tq["t_s"][m]])))


def _router(n, flows, li=0):
    r = chain_fct(
        "rcp", 0.1, 1.0, n_links=n, capacity_bps=C, rtt0_s=D, load=LOAD, sizes=SIZES, n_flows=flows, seed=SEED, queues=True
    )
    tq, a = r["queue_trace"], r["arrival_s"]
    t0, t1 = 0.1 * a[-1], a[-1]
    u, d = _mean(tq, li, t0, t1, "utilization"), _mean(tq, li, t0, t1, "avg_rtt_s")
    m = np.flatnonzero(tq["link"] == li)
    r0 = tq["R_over_C"][m[np.searchsorted(tq["t_s"][m], t0) - 1]]
    r1 = tq["R_over_C"][m[np.searchsorted(tq["t_s"][m], t1, side="right") - 1]]
    bdp_pkts = C / 8000.0  # packets per second
    return {
        "queue": _mean(tq, li, t0, t1, "queue_bytes") / 1000,
        "pinned": 0.1 * (1 - u) * d * bdp_pkts,
        "budget": (0.1 * (1 - u) * d + d * d * np.log(r0 / r1) / (t1 - t0)) * bdp_pkts,
        "R_first": _mean(tq, li, t0, t0 + 0.1 * (t1 - t0), "R_over_C"),
        "run": r,
        "window": (t0, t1),
    }


def test_a_short_run_holds_the_routers_descent_from_c_and_a_long_one_the_pinned_queue():
    short, long_ = _router(2, 300), _router(2, 3000)
    assert short["R_first"] > 0.3  # still far above any fair share when the window opens
    assert short["queue"] > 2 * short["pinned"]
    assert long_["queue"] < 0.6 * short["queue"]
    # the budget carries the descent (the pinned term alone misses the short run by half); it
    # leaves out the drift lost while R sits at its cap C, which the long run's idle spells have
    assert short["queue"] == pytest.approx(short["budget"], rel=0.15)
    assert long_["queue"] == pytest.approx(long_["budget"], rel=0.3)
    assert long_["queue"] == pytest.approx(long_["pinned"], rel=0.3)


def test_one_link_holds_the_same_queue_and_the_fluid_model_puts_it_there_too():
    one = _router(1, 300)
    assert one["queue"] > 2 * one["pinned"]  # no chain needed
    r, (t0, t1) = one["run"], one["window"]
    fl = fluid_flow_run(
        0.1, 1.0, capacity_bps=C, rtt_s=D, arrival_s=r["arrival_s"], size_bits=r["size_pkts"] * 8000.0,
        packet_bits=8000.0, dt_s=0.001, horizon_s=t1 + 1.0,
    )  # fmt: skip
    w = (fl.t_s > t0) & (fl.t_s <= t1)
    fluid = float(np.mean(fl.queue_bits[w] + fl.packet_queue_bits[w]) / 8000.0)
    assert fluid == pytest.approx(one["queue"], rel=0.4)


def test_the_fct_summary_names_a_run_still_in_the_descent_from_c():
    import rcpstab
    from rcpstab.fct.regime import regime_note

    short = rcpstab.fct(0.1, 1.0, C=C, d0=D, load=LOAD, sizes="pareto:mean=25,shape=1.2", flows=600, seed=SEED)
    assert "start-up" in (regime_note(short.value) or "")
    settled = rcpstab.fct(0.1, 1.0, C=20e6, d0=D, load=0.8, sizes="fixed:size=20", flows=3000, seed=SEED)
    assert "start-up" not in (regime_note(settled.value) or "")


def test_a_router_started_near_its_settled_rate_holds_no_descent_queue():
    from rcpstab.errors import InputError
    from rcpstab.fct.flow_run import run_flows

    kw = dict(capacity_bps=C, rtt_s=D, load=LOAD, sizes=SIZES, n_flows=600, seed=SEED)
    from_c = run_flows(0.1, 1.0, **kw).mean_queue_bytes
    low = run_flows(0.1, 1.0, initial_rate_bps=0.03 * C, keep_trace=True, **kw)
    tr, (t0, t1) = low.trace, low.window_s
    m = (tr["t_s"] > t0) & (tr["t_s"] <= t1)
    d = tr["avg_rtt_ms"][m].mean() / 1e3
    pinned = 0.1 * (1 - tr["input_bps"][m].mean() / C) * C * d / 8000.0
    i = np.flatnonzero(m)
    rising = C * d * d * np.log(tr["R_over_C"][i[0] - 1] / tr["R_over_C"][i[-1]]) / (t1 - t0) / 8000.0
    assert from_c / 1000 > 2 * pinned
    assert low.mean_queue_bytes < 0.2 * from_c
    # started below where it settles, the rate rises through the window: the budget's term is negative
    assert rising < 0 and low.mean_queue_bytes / 1000 == pytest.approx(pinned + rising, abs=0.25 * pinned)
    with pytest.raises(InputError, match="initial_rate_bps=0"):
        run_flows(0.1, 1.0, initial_rate_bps=0, **kw)
