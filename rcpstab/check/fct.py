"""``--fct``: flow completion times against processor sharing at a typical set-up of the envelope.

The thesis chooses RCP's gains by three criteria (Ch. 7, Q2): stable, quick to recover, and
flows completing close to processor sharing (Ch. 4, Sec. 5.4 Case 2). This finding measures
the third with the reference router and flow-level traffic
(:func:`rcpstab.fct.fct_study`).

The typical set-up (documented, not tuned):

- C and d0: the geometric means of the envelope's link capacities and RTTs (C capped to
  [10 Mb/s, 2.4 Gb/s]; 2.4 Gb/s is Fig. 4.1's link, and the run costs scale with flows, not C);
- traffic: thesis Ch. 4's default, Poisson arrivals of Pareto flows (mean 25 packets of
  1000 bytes, shape 1.2) at load rho = 0.9 (Figs. 4.1-4.2), :data:`FLOWS` flows, seed 0;
- buffer: the envelope's ``buffer_bdp``; eta: the router's.

Figure: the largest AFCT/PS over the size bins up to :data:`SHORT_PKTS` packets with at
least :data:`MIN_BIN_FLOWS` flows, PS being an exact processor-sharing queue fed the same
arrivals (eq. 4.1 itself assumes the nominal load, which a finite Pareto(1.2) run does not
draw). Threshold :data:`MAX_AFCT_OVER_PS` = 1.5, from Ch. 4 rather than from data: RCP's
point is the jump start, flows finishing in about the PS time; TCP's slow start costs
[log2(L + 1) + 1/2] RTPD + L/C (Sec. 4.2.1), which for every flow of 3 or more packets on a
path whose bandwidth-delay product dwarfs it is at least 2.5 RTPD against PS's 1.5 RTPD,
a ratio of 1.67 or more. A router above 1.5 has lost most of that advantage for short flows.
The control interval is App. F's (min(avg_rtt, 10 ms)) whatever the configuration says.
"""

from __future__ import annotations

import math

from ..fct import fct_study
from ..packet.hosts.flow_traffic import parse_sizes
from .config import CheckConfig
from .finding import Finding

__all__ = ["capacity_note", "fct_finding", "typical_setup"]

LOAD = 0.9
SIZES = "pareto:mean=25,shape=1.2"
FLOWS = 10_000
SHORT_PKTS = 255
MIN_BIN_FLOWS = 20
MAX_AFCT_OVER_PS = 1.5
CAPACITY_RANGE_BPS = (10e6, 2.4e9)


def typical_setup(config: CheckConfig) -> dict:
    """C (b/s), RTPD (s), load, sizes, buffer (BDP) and eta of the finding's run, and the envelope's
    geometric-mean C before the cap (``envelope_capacity_bps``)."""
    env = config.envelope
    c_bps = math.sqrt(env.link_mbps[0] * env.link_mbps[1]) * 1e6
    rtt_s = math.sqrt(env.rtt_ms[0] * env.rtt_ms[1]) / 1000
    return dict(
        capacity_bps=min(max(c_bps, CAPACITY_RANGE_BPS[0]), CAPACITY_RANGE_BPS[1]),
        rtt_s=rtt_s,
        load=LOAD,
        sizes=SIZES,
        buffer_bdp=env.buffer_bdp,
        eta=config.router.eta,
        envelope_capacity_bps=c_bps,
    )


def capacity_note(setup: dict) -> str:
    """`` (the envelope's geometric mean is ... Mb/s, capped to ...)`` when :func:`typical_setup` capped C, else ``""``."""
    if setup["capacity_bps"] == setup["envelope_capacity_bps"]:
        return ""
    return (
        f" (the envelope's geometric mean is {setup['envelope_capacity_bps'] / 1e6:.4g} Mb/s, capped to "
        f"{CAPACITY_RANGE_BPS[0] / 1e6:g}-{CAPACITY_RANGE_BPS[1] / 1e6:g} Mb/s, Fig. 4.1's link at most, as"
        f" documented in rcpstab.check.fct)"
    )


def fct_finding(config: CheckConfig, flows: int = FLOWS, workers: int = 1) -> Finding:
    """AFCT over PS for short flows at :func:`typical_setup` with the router's gains."""
    setup = typical_setup(config)
    r = config.router
    result = fct_study(
        r.alpha,
        r.beta,
        capacity_bps=setup["capacity_bps"],
        rtt_s=setup["rtt_s"],
        load=setup["load"],
        sizes=parse_sizes(setup["sizes"]),
        n_flows=flows,
        buffer_bdp=setup["buffer_bdp"],
        eta=setup["eta"],
        workers=workers,
    )
    short = [b for b in result.bins if b.size_hi_pkts <= SHORT_PKTS and b.flows >= MIN_BIN_FLOWS and b.afct_over_ps_same_arrivals]
    where = (
        f"C = {setup['capacity_bps'] / 1e6:.4g} Mb/s{capacity_note(setup)}, RTPD = {setup['rtt_s'] * 1000:.4g} ms, rho = {LOAD:g} "
        f"(drawn {result.measured_load:.3f}), {SIZES}, {result.flows} flows, buffer {setup['buffer_bdp']:g} BDP"
    )
    if not short:
        return Finding(
            "fct_vs_ps",
            "fct",
            False,
            None,
            MAX_AFCT_OVER_PS,
            "x PS",
            f"no size bin up to {SHORT_PKTS} packets finished {MIN_BIN_FLOWS} flows at {where}: "
            f"{result.flows_completed} of {result.flows} flows finished.",
        )
    worst = max(short, key=lambda b: b.afct_over_ps_same_arrivals)
    ratio = worst.afct_over_ps_same_arrivals
    passed = ratio <= MAX_AFCT_OVER_PS and result.flows_completed == result.flows
    return Finding(
        "fct_vs_ps",
        "fct",
        passed,
        ratio,
        MAX_AFCT_OVER_PS,
        "x PS",
        f"flows of up to {SHORT_PKTS} packets complete within {ratio:.3g}x processor sharing on the same arrivals "
        f"(worst bin {worst.size_lo_pkts}-{worst.size_hi_pkts} packets: AFCT {worst.afct_s * 1000:.4g} ms vs PS "
        f"{worst.ps_same_arrivals_afct_s * 1000:.4g} ms) at {where}; link utilization {result.utilization:.3f}, "
        f"loss probability {result.loss_probability:.2e}, {result.flows_completed}/{result.flows} flows finished. "
        f"Threshold {MAX_AFCT_OVER_PS:g}: below TCP slow start's ratio (>= 1.67 for flows of 3+ packets, thesis "
        f"Sec. 4.2.1), so short flows keep RCP's jump start.",
    )
