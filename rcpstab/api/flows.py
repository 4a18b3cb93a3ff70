"""``rcpstab.fct`` (``rcpstab fct``): flow completion times of RCP against processor sharing (thesis Ch. 4)."""
from __future__ import annotations

from ..errors import InputError
from .common import plausible
from .result import Result, strict

__all__ = ["FctResult", "fct"]

SHORT_FLOW_PKTS = 255  # "flows up to a few hundred packets": the summary's headline range
DEFAULT_SIZES = "pareto:mean=25,shape=1.2"


def fct(alpha: float, beta: float, *, C: float, d0: float, load: float, sizes: str = DEFAULT_SIZES,
        arrivals: str = "poisson", buffer_bdp: float = 1.0, flows: int = 10000, replications: int = 1,
        eta: float = 1.0, seed: int = 0, workers: int = 1):
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
    >>> r      # doctest: +ELLIPSIS
    FctResult(fct: RCP (0.4, 0.2) at C=1e+08 b/s, RTPD=0.1 s, rho=0.5 ...: 200/200 flows, AFCT/PS ...)
    """
    from ..fct import fct_study
    from ..packet.hosts.flow_traffic import parse_arrivals, parse_sizes
    from ..runtime.validation import check_value

    # every number against the one domain table first (a string or NaN was a TypeError deep inside)
    alpha, beta = check_value("alpha", alpha, "--alpha"), check_value("beta", beta, "--beta")
    for key, option, value in (("C", "--C", C), ("d0", "--d0", d0), ("load", "--load", load),
                               ("buffer_bdp", "--buffer", buffer_bdp), ("flows", "--flows", flows),
                               ("replications", "--replications", replications), ("eta", "--eta", eta),
                               ("seed", "--seed", seed), ("workers", "--workers", workers)):
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
    result = fct_study(alpha, beta, capacity_bps=C, rtt_s=d0, load=load, sizes=size_law, n_flows=flows,
                       buffer_bdp=buffer_bdp, arrivals=arrival_law, seed=seed, replications=replications,
                       workers=workers, eta=eta)
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
        result = self.value
        s = result.setup
        short = [b.afct_over_ps for b in result.bins if b.size_hi_pkts <= SHORT_FLOW_PKTS and b.afct_over_ps]
        ratio = (f"AFCT/PS {min(short):.2f}-{max(short):.2f} for flows up to {SHORT_FLOW_PKTS} pkts"
                 if short else "AFCT/PS n/a (no PS reference)")
        return (f"fct: RCP ({s.alpha:g}, {s.beta:g}) at C={s.capacity_bps:g} b/s, RTPD={s.rtt_s:g} s, rho={s.load:g} "
                f"(drawn {result.measured_load:.3f}): {result.flows_completed}/{result.flows} flows, {ratio}, "
                f"utilization {result.utilization:.3f}, loss {result.loss_probability:.2e}, "
                f"mean flows {result.mean_active:.2f} (Little {result.little_mean_active:.2f})")

    def save(self, path: str) -> None:
        from ..fct import save_fct_figure

        save_fct_figure(self.value, path)
