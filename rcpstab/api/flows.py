"""``rcpstab.fct`` (``rcpstab fct``): flow completion times of RCP against processor sharing (thesis Ch. 4)."""

from __future__ import annotations

from ..errors import InputError
from .common import plausible
from .result import Result, strict

__all__ = ["FctResult", "fct", "fct_fixed_rate", "fct_protocols"]

SHORT_FLOW_PKTS = 255  # "flows up to a few hundred packets": the summary's headline range
DEFAULT_SIZES = "pareto:mean=25,shape=1.2"


def fct(
    alpha: float,
    beta: float,
    *,
    C: float,
    d0: float,
    load: float,
    sizes: str = DEFAULT_SIZES,
    arrivals: str = "poisson",
    buffer_bdp: float = 1.0,
    flows: int = 10000,
    replications: int = 1,
    eta: float = 1.0,
    seed: int = 0,
    workers: int = 1,
):
    """AFCT per flow-size bin of RCP at one bottleneck against processor sharing (thesis Fig. 4.1).

    Parameters
    ----------
    alpha, beta : float
        RCP's gains (> 0, dimensionless).
    C : float
        Bottleneck capacity, bit/s.
    d0 : float
        Round-trip propagation delay, s.
    load : float
        Offered load, in (0, 1).
    sizes, arrivals : str
        ``pareto:mean=M,shape=S`` | ``exponential:mean=M`` | ``fixed:size=L`` (packets); ``poisson`` or
        ``pareto:shape=S``.
    buffer_bdp : float
        Bottleneck buffer, C*d0.
    flows, replications, eta, seed, workers : int, int, float, int, int
        Flows simulated, runs they are split over, target utilisation (fraction of C), seed, processes.

    Returns
    -------
    FctResult
        ``.bins``, ``.utilization``, ...; ``to_dict()`` is ``fct --json`` (times in s, sizes in packets);
        ``.plot()`` draws Fig. 4.1.

    Examples
    --------
    >>> r = fct(0.4, 0.2, C=1e8, d0=0.1, load=0.5, flows=200)
    >>> d = r.to_dict()
    >>> d["flows_completed"], d["flows"], d["loss_probability"]
    (200, 200, 0.0)
    >>> r.to_dict()["offered_load"]     # the drawn sizes offer exactly the load asked for
    0.5
    >>> r      # doctest: +ELLIPSIS
    FctResult(fct: RCP (0.4, 0.2) at C=1e+08 b/s, RTPD=0.1 s: load nominal 0.5, offered 0.500, ...; 200/200 flows, AFCT/PS ...)
    """
    from ..fct import fct_study
    from ..packet.hosts.flow_traffic import parse_arrivals, parse_sizes
    from ..runtime.validation import check_value

    # every number against the one domain table first (a string or NaN was a TypeError deep inside)
    alpha, beta = check_value("alpha", alpha, "--alpha"), check_value("beta", beta, "--beta")
    for key, option, value in (
        ("C", "--C", C),
        ("d0", "--d0", d0),
        ("load", "--load", load),
        ("buffer_bdp", "--buffer", buffer_bdp),
        ("flows", "--flows", flows),
        ("replications", "--replications", replications),
        ("eta", "--eta", eta),
        ("seed", "--seed", seed),
        ("workers", "--workers", workers),
    ):
        check_value(key, value, option)
    for option, text in (("--sizes", sizes), ("--arrivals", arrivals)):
        if not isinstance(text, str):
            raise InputError(f"{option} {str(text)[:80]!r}: a distribution as text (see rcpstab fct --help)")
    plausible("C", C, "--C")
    plausible("d0", d0, "--d0")
    size_law, arrival_law = parse_sizes(sizes), parse_arrivals(arrivals)
    if replications < 1:
        raise InputError(f"--replications {replications}: must be at least 1")
    if flows < replications:
        raise InputError(f"--flows {flows}: must be at least --replications ({replications})")
    result = fct_study(
        alpha,
        beta,
        capacity_bps=C,
        rtt_s=d0,
        load=load,
        sizes=size_law,
        n_flows=flows,
        buffer_bdp=buffer_bdp,
        arrivals=arrival_law,
        seed=seed,
        replications=replications,
        workers=workers,
        eta=eta,
    )
    return FctResult(result)


class FctResult(Result):
    """A flow-completion-time study (:class:`~rcpstab.fct.study.FctResult` in ``.value``)."""

    command = "fct"

    def to_dict(self) -> dict:
        return strict(self.value.summary())

    def columns(self) -> dict:
        """One row per flow-size bin (times in s, sizes in packets)."""
        bins = self.to_dict()["bins"]
        return {k: [b[k] for b in bins] for k in (bins[0] if bins else {})}

    def to_csv(self, path: str) -> None:
        self.value.to_csv(path)

    def summary(self) -> str:
        # issue 24: nominal, offered and carried load; the headline ratio names its PS reference
        result = self.value
        s = result.setup
        short = [b for b in result.bins if b.size_hi_pkts <= SHORT_FLOW_PKTS and b.afct_over_ps]
        ref = {"same_arrivals": "PS on the same arrivals", "eq_4_1": "eq. 4.1"}
        refs = sorted({ref[b.ps_reference] for b in short})
        ratios = [b.afct_over_ps for b in short]
        ratio = (
            f"AFCT/PS {min(ratios):.2f}-{max(ratios):.2f} for flows up to {SHORT_FLOW_PKTS} pkts (vs {' and '.join(refs)})"
            if short
            else "AFCT/PS n/a (no PS reference)"
        )
        return (
            f"fct: RCP ({s.alpha:g}, {s.beta:g}) at C={s.capacity_bps:g} b/s, RTPD={s.rtt_s:g} s: "
            f"load nominal {s.load:g}, offered {result.measured_load:.3f}, carried {result.utilization:.3f}; "
            f"{result.flows_completed}/{result.flows} flows, {ratio}, loss {result.loss_probability:.2e}, "
            f"mean flows {result.mean_active:.2f} (Little {result.little_mean_active:.2f})" + self.regime()
        )

    def regime(self) -> str:
        """A second line naming the high-load regime the run is in (``rcpstab.fct.regime``), or ''."""
        from ..fct.regime import regime_note

        note = regime_note(self.value)
        return "" if note is None else "\n" + note

    def save(self, path: str) -> None:
        from ..fct import save_fct_figure

        save_fct_figure(self.value, path)


def fct_protocols(
    protocols: str,
    alpha: float,
    beta: float,
    *,
    C: float,
    d0: float,
    load: float,
    sizes: str = DEFAULT_SIZES,
    flows: int = 1000,
    seeds=(0,),
    buffer_bdp: float = 1.0,
) -> dict:
    """RCP, RCP-AC, XCP and TCP (ns-3) on the same arrivals (issue 24): ``rcpstab fct --protocol``.

    ``protocols`` is a comma-separated list; RCP and RCP-AC use ``alpha``, ``beta``, XCP its paper's
    (0.4, 0.226). Returns :func:`rcpstab.fct.protocols.compare_protocols`'s dict.
    """
    from ..fct.protocols import DEFAULT_GAINS, check_protocol, compare_protocols
    from ..packet.hosts.flow_traffic import parse_sizes

    names = [check_protocol(p.strip()) for p in str(protocols).split(",") if p.strip()]
    if not names:
        raise InputError(f"--protocol {protocols!r}: give at least one of rcp, rcpac, xcp, tcp")
    gains = {p: DEFAULT_GAINS.get(p, (alpha, beta)) for p in names if p != "tcp"}
    return compare_protocols(
        names,
        gains,
        capacity_bps=C,
        rtt_s=d0,
        load=load,
        sizes=parse_sizes(sizes),
        n_flows=flows,
        seeds=list(seeds),
        buffer_bdp=buffer_bdp,
    )


def fct_fixed_rate(
    rates: str,
    alpha: float,
    beta: float,
    *,
    C: float,
    d0: float,
    load: float,
    sizes: str = DEFAULT_SIZES,
    flows: int = 10000,
    seed: int = 0,
) -> dict:
    """The optimal-rate U curve (thesis App. A) on one workload: ``rcpstab fct --fixed-rate``.

    ``rates`` is a comma-separated list of bit/s; ``sizes`` may be ``bpareto:mean=M,shape=S,max=X``.
    Returns :func:`rcpstab.fct.fixed_rate.fixed_rate_study`'s dict.
    """
    from ..fct.fixed_rate import fixed_rate_study, parse_bounded_pareto
    from ..packet.hosts.flow_traffic import parse_sizes

    try:
        values = [float(x) for x in str(rates).split(",") if x.strip()]
    except ValueError:
        raise InputError(f"--fixed-rate {rates!r}: expected comma-separated rates in bit/s") from None
    if not values:
        raise InputError(f"--fixed-rate {rates!r}: give at least one rate")
    law = parse_bounded_pareto(sizes) if sizes.strip().startswith("bpareto") else parse_sizes(sizes)
    return fixed_rate_study(
        values, capacity_bps=C, rtt_s=d0, load=load, sizes=law, n_flows=flows, seed=seed, alpha=alpha, beta=beta
    )
