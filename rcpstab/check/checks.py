"""The checks of ``rcpstab check``: each turns lens results into a :class:`Finding`.

Linear findings come from the exact characteristic roots and margins of eq. 5.7; nonlinear
ones from the ``rcp`` fluid model (queue held in [0, buffer] with the envelope's buffer and the
overflow dropped, rate updated every T, rate floor and cap) over the envelope; the
configuration finding from App. F's constants alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..linear.margins import Margins, margins
from ..models import get_model
from .config import CheckConfig
from .envelope import envelope_networks, network
from .fct import fct_finding
from .feasibility import feasibility_finding, feasible
from .finding import Finding
from .nonlinear import LOAD_DOUBLING, NetworkResult, run_networks, step_horizon_rtt
from .packet import packet_finding, packet_flash_crowd_finding

SMALL_T_PER_RTT = 20  # "T -> 0" for the update-interval comparison: 20 updates per RTT


def _fmt(x: float) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.3g}"


def linear_findings(m: Margins, config: CheckConfig) -> list[Finding]:
    """Stability and margins of the linearized loop G(s) = e^{-s d0} (alpha s d0 + beta)/(s d0)^2."""
    th = config.thresholds
    re, im = m.rightmost_root
    ratio = m.alpha / m.beta
    why = (
        ""
        if m.stable
        else " The linearization (eqs. 5.5-5.7) lets the queue go negative around q = 0; the thesis (Sec. 5.2) "
        "shows the real, clamped system is stable well beyond this region, which is what the nonlinear "
        "findings test."
    )
    root = f"rightmost root s*d0 = {re:+.3g} {'+' if im >= 0 else '-'} {abs(im):.3g}j"
    gm = math.inf if m.gain_margin is None and m.stable else m.gain_margin
    no_crossing = (
        f"alpha/beta = {ratio:.3g} <= 1: the phase never returns to -180 deg (App. C), " if m.gain_margin is None else ""
    )
    return [
        Finding(
            "linear_stability",
            "linear",
            m.stable,
            re,
            0.0,
            "1/RTT",
            f"{root}: the linear loop is {'stable' if m.stable else 'UNSTABLE'} (exact for every C, N and d0).{why}",
        ),
        Finding(
            "rightmost_root",
            "linear",
            re <= th.rightmost_real_max,
            re,
            th.rightmost_real_max,
            "1/RTT",
            f"{root}: "
            + (f"a perturbation decays e-fold every {_fmt(-1 / re)} RTTs" if re < 0 else "perturbations of the linear loop grow")
            + f" (threshold: Re <= {th.rightmost_real_max:g}/RTT).",
        ),
        Finding(
            "gain_margin",
            "linear",
            gm is not None and gm >= th.gain_margin_min,
            gm,
            th.gain_margin_min,
            "x",
            (
                f"{no_crossing}both gains may grow by {_fmt(gm)}x "
                f"({_fmt(20 * math.log10(gm)) if gm and math.isfinite(gm) else 'inf'} dB) before instability."
                if m.stable
                else f"{no_crossing}the loop is already unstable: no gain margin."
            ),
        ),
        Finding(
            "phase_margin",
            "linear",
            m.phase_margin_deg >= th.phase_margin_min_deg,
            m.phase_margin_deg,
            th.phase_margin_min_deg,
            "deg",
            f"phase margin {m.phase_margin_deg:.3g} deg at w*d0 = {m.crossover_w:.3g}: the loop tolerates "
            f"{_fmt(m.delay_margin)} d0 of extra delay (queueing lengthens the loop) "
            f"before it {'oscillates' if m.stable else 'would be stable (negative: it is already unstable)'}.",
        ),
    ]


def _where(result: NetworkResult) -> str:
    n = result.network
    return f"C = {n['C'] / 1e6:.4g} Mb/s, d0 = {n['d0'] * 1000:.4g} ms, N = {n['N']:g}"


def stability_finding(results: list[NetworkResult], left_out: int = 0) -> Finding:
    """Every envelope network converges from App. E's six initial conditions (``left_out``: networks no
    gains can serve, not integrated)."""
    bad = [r for r in results if r.verdict != "converged"]
    slowest = max(results, key=lambda r: -1 if math.isnan(r.convergence_rtt) else r.convergence_rtt)
    if bad:
        text = (
            f"{len(bad)} of {len(results)} envelope networks do not converge from App. E's initial conditions; "
            f"e.g. {bad[0].verdict} at {_where(bad[0])}."
        )
    else:
        text = (
            f"all {len(results)} envelope networks (corners and inside) converge from App. E's six initial "
            f"conditions (queue up to 2 C*d0, held to the buffer); slowest {slowest.convergence_rtt:.3g} RTTs at {_where(slowest)}."
        )
    if left_out:
        text += f" ({left_out} networks no gains can serve left out: see envelope_feasible.)"
    return Finding("nonlinear_stability", "nonlinear", not bad, float(len(bad)), 0.0, "networks not converging", text)


def _slowest_step(results: list[NetworkResult], attribute: str) -> tuple[NetworkResult, float]:
    """The network whose step response is slowest (not converging counts as infinitely slow)."""

    def time(r):
        return getattr(r, attribute).time_rtt  # measured, else the labelled estimate, else inf

    worst = max(results, key=time)
    return worst, time(worst)


FLASH_CROWD_WHY = (
    "Threshold: the thesis claims recovery within about 10 RTTs of a load change in its box (Figs. 5.10-5.13, "
    "Fig. 7.1, Ch. 7 Q1) and asks only that RCP 'recover quickly' from a flash crowd, its worst case, accepting "
    "losses (Q1-Q2); a 10x crowd overflows the buffer before any feedback and drives R to MIN_RATE, from where "
    "it grows at most e^alpha per RTT: ln(R_e/MIN_RATE)/0.4 <= 38 RTTs on the default envelope, so "
    "50 = 10 + 38 (see Thresholds)."
)


def step_findings(every: list[NetworkResult], config: CheckConfig) -> list[Finding]:
    """Convergence after the load doubles and recovery after a flash crowd, both with the envelope's buffer;
    the drops after a doubling. Each step judges only the networks where some gains could pass it."""
    th, buffer = config.thresholds, config.envelope.buffer_bdp
    horizon = step_horizon_rtt(th.load_doubling_rtt_max, th.flash_crowd_rtt_max)
    findings = []
    for attribute, name, limit, event in (
        (
            "doubling",
            "load_doubling",
            th.load_doubling_rtt_max,
            "after the load doubles (N -> 2 N from the old equilibrium: R(0) = 2 Re, empty queue, thesis Figs. 5.10-5.13, 7.1)",
        ),
        (
            "flash_crowd",
            "flash_crowd",
            th.flash_crowd_rtt_max,
            "to recover from a flash crowd (N -> 10 N from the old equilibrium)",
        ),
    ):
        results = _judged(config, every, attribute)
        if not results:
            findings.append(_not_judged(name, "nonlinear", f"after the {name.replace('_', ' ')}"))
            continue
        left_out = (
            f" ({len(every) - len(results)} networks no gains can serve at this step left out: see envelope_feasible)"
            if len(results) < len(every)
            else ""
        )
        worst, time = _slowest_step(results, attribute)
        step = getattr(worst, attribute)
        status = (
            f"{time:.3g} RTTs"
            if math.isfinite(step.convergence_rtt)
            else f"about {time:.3g} RTTs (estimated past the {horizon:.0f}-RTT horizon, not observed)"
            if math.isfinite(time)
            else f"not converged within {horizon:.0f} RTTs (verdict at the horizon: {step.verdict})"
        )
        text = f"slowest {event}: {status} at {_where(worst)}, with a buffer of {buffer:g} C*d0{left_out}."
        if attribute == "flash_crowd":
            peak = max(r.flash_crowd.peak_queue_bdp for r in results)
            drops = [r.flash_crowd.dropped_bdp for r in results]
            text += (
                f" The queue peaks at {peak:.3g} C*d0 (the buffer holds it: <= {buffer:g}) and the buffer drops "
                f"{min(drops):.3g}-{max(drops):.3g} C*d0 over the envelope ({step.dropped_bdp:.3g} there): "
                f"9 C*d0 arrive in the first RTT, before any feedback, whatever alpha and beta. "
                f"{FLASH_CROWD_WHY}"
            )
        details = None
        if attribute == "flash_crowd":
            details = {
                "recovery_rtt": time,
                "peak_queue_bdp": step.peak_queue_bdp,
                "dropped_bdp": step.dropped_bdp,
                "buffer_bdp": buffer,
                "network": dict(worst.network),
                "peak_queue_bdp_max": peak,
                "dropped_bdp_range": [min(drops), max(drops)],
            }
        findings.append(Finding(name, "nonlinear", time <= limit, time, limit, "RTT", text, details))
    doubled = _judged(config, every, "doubling")
    if not doubled:
        return findings + [_not_judged("peak_queue", "info", "after the load doubles")]
    peak_net = max(doubled, key=lambda r: (r.doubling.dropped_bdp, r.doubling.peak_queue_bdp))
    drop, peak = peak_net.doubling.dropped_bdp, peak_net.doubling.peak_queue_bdp
    # The new flows send at the old rate for one RTT before any feedback reaches them: (2 - 1) C*d0
    # queues whatever the gains, and the rate then needs about 1/alpha RTTs to fall to the new
    # equilibrium, so every gain of the thesis' box peaks at 2-3 C*d0: a 1-BDP buffer drops packets
    # on a doubling. The thesis accepts it (Ch. 7 Q1: a sudden increase is RCP's worst case; it is
    # built to recover quickly, not to avoid those losses), so this finding informs and does not gate.
    unavoidable = LOAD_DOUBLING - 1.0
    findings.append(
        Finding(
            "peak_queue",
            "info",
            drop <= 0.0,
            peak,
            buffer,
            "C*d0",
            f"after the load doubles the queue peaks at {peak:.3g} C*d0 ({_where(peak_net)}) against a buffer of "
            f"{buffer:g} C*d0 (envelope buffer_bdp)"
            + (": nothing is dropped" if drop <= 0.0 else f" and {drop:.3g} C*d0 is dropped")
            + f"; {unavoidable:g} C*d0 arrives in the first RTT, before any feedback, whatever alpha and beta "
            f"(informative: the thesis accepts losses on a sudden increase and judges the recovery, Ch. 7 Q1).",
        )
    )
    return findings


def update_interval_finding(config: CheckConfig, router_t: list[NetworkResult], small_t: list[NetworkResult]) -> Finding:
    """Compare the router's update interval with T -> 0 (the linear analysis' assumption) at the smallest RTT."""
    d_lo, d_hi = (v / 1000.0 for v in config.envelope.rtt_ms)
    t_lo, t_hi = (min(d, config.router.max_interval_ms / 1000.0) for d in (d_lo, d_hi))
    ratio = t_lo / d_lo
    span = f"T/d0 = {ratio:.3g} at the smallest RTT ({d_lo * 1000:.4g} ms) to {t_hi / d_hi:.3g} at the largest"
    if not small_t:
        return Finding(
            "update_interval",
            "nonlinear",
            True,
            ratio,
            None,
            "T/d0",
            f"{span}: already {SMALL_T_PER_RTT} or more updates per RTT, so T -> 0 (as the linear "
            f"analysis assumes) changes nothing.",
        )
    router_ok = all(r.verdict == "converged" for r in router_t)
    small_ok = all(r.verdict == "converged" for r in small_t)

    def slowest(results):
        times = [r.convergence_rtt for r in results if r.verdict == "converged"]
        return max(times) if len(times) == len(results) else math.nan

    slow_router, slow_small = slowest(router_t), slowest(small_t)
    crowd_router, crowd_small = (
        _slowest_step(results, "flash_crowd")[1] if results else math.nan
        for results in (_judged(config, router_t, "flash_crowd"), _judged(config, small_t, "flash_crowd"))
    )
    passed = router_ok or not small_ok
    if router_ok and small_ok:
        effect = (
            f"both converge (slowest {slow_router:.3g} RTTs with the router's T, {slow_small:.3g} with T -> 0): "
            f"T {'matters' if abs(slow_router - slow_small) > 0.25 * slow_small else 'hardly matters'} here"
        )
    elif small_ok:
        effect = "T -> 0 converges but the router's T does not: the update interval destabilizes small-RTT networks"
    elif router_ok:
        effect = "the router's T converges where T -> 0 does not: sampling helps here"
    else:
        effect = "neither converges: the gains, not T, are the problem"
    return Finding(
        "update_interval",
        "nonlinear",
        passed,
        ratio,
        None,
        "T/d0",
        f"{span}; the linear analysis assumes T -> 0. At the smallest RTT, from App. E's conditions, "
        f"{effect}. After a flash crowd there the slowest convergence is {_fmt(crowd_router)} RTTs "
        f"with the router's T and {_fmt(crowd_small)} with T -> 0 (one update of T facing the 10x overload "
        f"cuts R much further, towards MIN_RATE, and the climb back at e^alpha per RTT takes longer).",
    )


def config_finding(config: CheckConfig) -> Finding:
    """RTT samples of the envelope must be below MAX_ALLOWABLE_RTT or the router ignores them (App. F line 19)."""
    hi, limit = config.envelope.rtt_ms[1], config.router.max_rtt_ms
    return Finding(
        "rtt_samples_valid",
        "config",
        hi < limit,
        hi,
        limit,
        "ms",
        f"the largest envelope RTT {hi:g} ms must be below MAX_ALLOWABLE_RTT {limit:g} ms, or the "
        f"router drops those RTT samples from its average (App. F lines 19-21).",
    )


def _judged(config: CheckConfig, results: list[NetworkResult], step: str) -> list[NetworkResult]:
    """The results of the networks some gains could pass at ``step`` (:mod:`.feasibility`)."""
    return [r for r, ok in zip(results, feasible(config, [r.network for r in results], step)) if ok]


def nonlinear_findings(config: CheckConfig, samples: int, workers: int, packet: bool = False) -> list[Finding]:
    """Integrate every feasible envelope network (and the T -> 0 twins at the smallest RTT) in parallel;
    with ``packet``, confirm on the worst corner with the reference implementation.

    Networks no gains can serve (:func:`~rcpstab.check.feasibility.classify`) are not integrated
    (steady infeasibility) or left out of the step they rule out: the gain findings judge the rest
    and :func:`~rcpstab.check.feasibility.feasibility_finding` reports them.
    """
    r, th = config.router, config.thresholds
    every = envelope_networks(config, samples)
    nets = [n for n, ok in zip(every, feasible(config, every, "steady")) if ok]
    if not nets:
        return [_not_judged(name, kind, "at any envelope network") for name, kind in NONLINEAR_NAMES]
    horizon = step_horizon_rtt(th.load_doubling_rtt_max, th.flash_crowd_rtt_max)
    d_lo = min(n["d0"] for n in nets)
    smallest = [n for n in nets if n["d0"] == d_lo]
    fine = [
        network(config, n["C"], n["d0"], n["N"], T=d_lo / SMALL_T_PER_RTT) for n in smallest if n["T"] > d_lo / SMALL_T_PER_RTT
    ]
    # the T -> 0 twins run the step responses too: the flash crowd is where T matters most
    tasks = [(n, r.alpha, r.beta, horizon) for n in nets + fine]
    results = run_networks(tasks, workers)
    envelope_results = results[: len(nets)]
    router_t = [res for res in envelope_results if res.network["d0"] == d_lo]
    corner_keys = {(n["C"], n["d0"], n["N"]) for n in envelope_networks(config, 0)}
    corners = [res for res in envelope_results if (res.network["C"], res.network["d0"], res.network["N"]) in corner_keys]
    return (
        [stability_finding(envelope_results, len(every) - len(nets))]
        + step_findings(envelope_results, config)
        + [update_interval_finding(config, router_t if fine else [], results[len(nets) :])]
        + (
            [
                packet_finding(_judged(config, corners, "doubling"), r.alpha, r.beta),
                packet_flash_crowd_finding(
                    _judged(config, corners, "flash_crowd"), r.alpha, r.beta, config.envelope.buffer_bdp, th.flash_crowd_rtt_max
                ),
            ]
            if packet
            else []
        )
    )


NONLINEAR_NAMES = (
    ("nonlinear_stability", "nonlinear"),
    ("load_doubling", "nonlinear"),
    ("flash_crowd", "nonlinear"),
    ("peak_queue", "info"),
    ("update_interval", "nonlinear"),
)


def _not_judged(name: str, kind: str, where: str) -> Finding:
    """A gain finding with nothing to judge: every network is infeasible there (it passes; the envelope fails)."""
    return Finding(
        name, kind, True, None, None, "", f"not judged: no gains can serve any envelope network {where} (see envelope_feasible)."
    )


@dataclass(frozen=True)
class CheckReport:
    """All findings for one configuration.

    Attributes
    ----------
    alpha, beta : float
    criterion : str
        Which findings decide (``linear``, ``nonlinear`` or ``all``); ``config`` findings always do.
    findings : tuple of Finding
    suggestion : dict or None
        When failing: ``{"alpha", "beta", "distance", "report", "reason"}`` of a verified passing
        configuration nearby, or with alpha, beta and report None and the reason none passes
        (see :mod:`rcpstab.check.suggestion`); None when the search was not run.
    """

    alpha: float
    beta: float
    criterion: str
    findings: tuple
    suggestion: dict | None = None

    @property
    def passed(self) -> bool:
        return all(f.passed for f in self.findings if f.gates(self.criterion))

    @property
    def gains_passed(self) -> bool:
        """Whether every gating finding the gains can change passes (``config`` findings are the
        router's constants and the envelope: no (alpha, beta) changes them)."""
        return all(f.passed for f in self.findings if f.gates(self.criterion) and f.kind != "config")

    def finding(self, name: str) -> Finding:
        return next(f for f in self.findings if f.name == name)

    @property
    def summary(self) -> str:
        """One sentence: the verdict and, when the lenses disagree, why."""
        verdict = "PASS" if self.passed else "FAIL"
        names = {f.name: f for f in self.findings}
        lin = names["linear_stability"].passed
        nonlin = names.get("nonlinear_stability")
        nonlinear_ok = all(f.passed for f in self.findings if f.kind == "nonlinear")
        feasibility = names.get("envelope_feasible")
        infeasible = feasibility is not None and not feasibility.passed
        if nonlin is not None and not lin and nonlin.passed and nonlinear_ok and not infeasible:
            return (
                f"{verdict}: (alpha, beta) = ({self.alpha:g}, {self.beta:g}) is linearly unstable "
                f"(rightmost root Re = {names['linear_stability'].figure:+.3g}/RTT) but converges in the "
                f"nonlinear model over the whole envelope and passes every nonlinear check: the linearization "
                f"ignores the queue's clamp at 0, "
                f"which the thesis (Sec. 5.2) shows enlarges the stable region. "
                + (
                    "Use --criterion nonlinear to accept the nonlinear verdict."
                    if self.criterion != "nonlinear"
                    else "Accepted under --criterion nonlinear."
                )
            )
        failing = [f.name for f in self.findings if f.gates(self.criterion) and not f.passed]
        if infeasible:
            gains = (
                "the gains pass every other finding on the rest"
                if self.gains_passed
                else f"on the rest the gains fail {', '.join(n for n in failing if names[n].kind != 'config')}"
            )
            return (
                f"{verdict}: failing {', '.join(failing)}; {feasibility.figure:g} envelope networks cannot be served "
                f"by any gains (envelope_feasible: narrow the envelope or lower MIN_RATE as it says), {gains}"
            )
        return f"{verdict}" + (f": failing {', '.join(failing)}" if failing else f" under --criterion {self.criterion}")

    def to_dict(self) -> dict:
        out = {
            "passed": self.passed,
            "alpha": self.alpha,
            "beta": self.beta,
            "criterion": self.criterion,
            "summary": self.summary,
            "findings": [dict(f.to_dict(), gating=f.gates(self.criterion)) for f in self.findings],
        }
        if not self.passed:
            out["suggestion"] = (
                None
                if self.suggestion is None
                else {
                    key: (value.to_dict() if key == "report" and value is not None else value)
                    for key, value in self.suggestion.items()
                }
            )
        return out


def run_checks(
    config: CheckConfig, criterion: str = "all", samples: int = 4, workers: int = 1, packet: bool = False, fct: bool = False
) -> CheckReport:
    """Run every check on ``config`` (without a suggestion).

    Parameters
    ----------
    config : CheckConfig
    criterion : {"linear", "nonlinear", "all"}
        Which findings decide the verdict (all findings are always computed and reported).
    samples : int
        Envelope points inside the box, on top of its corners.
    workers : int
        Local processes for the nonlinear integrations.
    packet : bool
        Also run the reference implementation on the worst envelope corner (:mod:`rcpstab.check.packet`).
    fct : bool
        Also measure flow completion times against processor sharing (:mod:`rcpstab.check.fct`; gates
        under ``criterion="all"``).

    Returns
    -------
    CheckReport
    """
    r = config.router
    m = margins(get_model("rcp"), r.alpha, r.beta)
    findings = (
        linear_findings(m, config)
        + nonlinear_findings(config, samples, workers, packet)
        + [config_finding(config), feasibility_finding(config, envelope_networks(config, samples))]
    )
    if fct:
        findings.append(fct_finding(config, workers=workers))
    return CheckReport(r.alpha, r.beta, criterion, tuple(findings))
