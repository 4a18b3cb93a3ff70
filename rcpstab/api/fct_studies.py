"""``rcpstab.fct_study``: the flow-completion-time studies behind thesis Ch. 4 and App. A, by name.

:func:`rcpstab.fct` is the headline study (AFCT per size bin against processor sharing); the others
take it apart: one run of the flow simulator (any number of flows, with its trace), the drawn
workload, the packet simulator against the fluid model, the fixed-rate U curve against App. A, and the
protocols compared on the same arrivals. Units as in :func:`rcpstab.fct`: C in bit/s, d0 in s, sizes in
packets of 1000 bytes, times in s.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import InputError
from .flows import DEFAULT_SIZES
from .result import Result, strict

__all__ = ["STUDIES", "FctStudyResult", "fct_study"]

STUDIES = ("sizes", "flows", "workload", "regimes", "fixed-rate", "u-curve", "u-curve-gap", "protocols")
"""The studies :func:`fct_study` runs."""


def size_law(text: str):
    """A ``--sizes`` text as its law: ``pareto:``/``exponential:``/``fixed:`` or ``bpareto:mean=M,shape=S,max=X``."""
    from ..fct.fixed_rate import parse_bounded_pareto
    from ..packet.hosts.flow_traffic import parse_sizes

    if not isinstance(text, str):
        raise InputError(f"--sizes {str(text)[:80]!r}: a distribution as text (see rcpstab fct --help)")
    return parse_bounded_pareto(text) if text.strip().startswith("bpareto") else parse_sizes(text)


def fct_study(study: str, **options):
    """Run one of the FCT studies by name.

    Parameters
    ----------
    study : str
        One of :data:`STUDIES`:

        - ``"sizes"``: the flow-size law of ``sizes`` (``.mean_packets``, ``.sample(rng, n)`` in packets;
          ``.moment(k)`` for ``bpareto:``), no run.
        - ``"flows"``: one run of the flow simulator (``alpha``, ``beta``, ``C``, ``d0``, ``load``, ``sizes``,
          ``flows`` (1 and up), ``seed``, ``buffer_bdp``, ``trace``): ``.fct_s`` per finished flow, ``.trace``
          (``t_s``, ``n_active``, ...) with ``trace=True``, the time averages of :func:`rcpstab.fct`.
        - ``"workload"``: the drawn arrivals (``sizes``, ``arrivals``, ``flows``, ``load``, ``C``, ``seed``):
          ``start_s``, ``size_pkts`` and ``warm`` (the first flow of the measurement window).
        - ``"regimes"``: the packet simulator against the fluid model without and with the packet-scale queue,
          on one workload (``alpha``, ``beta``, ``C``, ``d0``, ``load``, ``sizes``, ``flows``, ``seed``,
          ``fluid_dt_s``): each method's AFCT over PS and mean flows in progress, ``rho_star``.
        - ``"fixed-rate"``: every flow at a fixed rate R (``rates`` in bit/s, ``C``, ``d0``, ``load``, ``sizes``,
          ``flows``, ``seed``, ``alpha``, ``beta``): flow simulator, FCFS queue and App. A per rate, PS and RCP.
        - ``"u-curve"``: the FCFS queue's mean duration at each fixed rate (``rates``, ``C``, ``load``, ``sizes``
          (``bpareto:``), ``flows``, ``seed``, ``background`` = (sizes, flows, load, rate_bps) or None) with
          App. A's (eqs. A.11-A.12, without background): ``duration_s``, ``app_a_duration_s``.
        - ``"u-curve-gap"``: App. A against the FCFS queue at one fixed rate (``rate`` in bit/s, ``C``, ``load``,
          ``sizes`` (``bpareto:``), ``flows``, ``seed``), the gap split by approximation
          (:func:`rcpstab.fct.ucurve_gap.decompose_gap`'s dict: ``terms_s``, the measured queues, ...).
        - ``"protocols"``: RCP, RCP-AC, XCP (its paper's gains) and TCP on the same arrivals (``protocols``,
          ``alpha``, ``beta``, ``C``, ``d0``, ``load``, ``sizes``, ``flows``, ``seeds``, ``buffer_bdp``): per
          protocol the AFCT over same-arrivals PS with its 95% t-interval over the seeds.
    **options
        The study's inputs named above: gains dimensionless, ``C`` and rates in bit/s, ``d0`` in s, ``load`` in
        (0, 1), ``sizes``/``arrivals`` as :func:`rcpstab.fct`'s text (default ``pareto:mean=25,shape=1.2``,
        ``poisson``), ``buffer_bdp`` in C*d0.

    Returns
    -------
    FctStudyResult
        ``.value`` is the study's own result (the law, a flow run, arrays or a dict); its fields read through
        the result (``fct_study("flows", ...).fct_s``); ``to_dict()``/``to_pandas()`` tabulate it.

    Examples
    --------
    >>> run = fct_study("flows", alpha=0.4, beta=0.2, C=10e6, d0=0.1, load=0.5, sizes="fixed:size=10", flows=1)
    >>> extra = float(run.fct_s[0]) - (1.5 * 0.1 + 10 * 8000 / 10e6)    # one flow: 1.5 RTPD + L / C ...
    >>> 0 < extra < 8000 / 10e6                                         # ... and less than a packet's time
    True
    >>> fct_study("sizes", sizes="bpareto:mean=25,shape=1.2,max=1000").moment(1)
    25.0
    """
    runners = {
        "sizes": _sizes,
        "flows": _flows,
        "workload": _workload,
        "regimes": _regimes,
        "fixed-rate": _fixed_rate,
        "u-curve": _u_curve,
        "u-curve-gap": _u_curve_gap,
        "protocols": _protocols,
    }
    if not isinstance(study, str) or study not in runners:
        raise InputError(f"fct_study: study {str(study)[:40]!r}: choose from {', '.join(STUDIES)}")
    _check_options(options)
    try:
        value = runners[study](**options)
    except TypeError as e:  # an option the study does not take, or one it needs left out
        raise InputError(f"fct_study({study!r}): {e}") from None
    return FctStudyResult(value, study=study, **options)


# option -> its domain in rcpstab.runtime.validation (checked before any run, as rcpstab.fct does)
_DOMAINS = {
    "alpha": "alpha",
    "beta": "beta",
    "C": "C",
    "d0": "d0",
    "load": "load",
    "flows": "flows",
    "seed": "seed",
    "buffer_bdp": "buffer_bdp",
    "fluid_dt_s": "T",
}


def _check_options(options: dict) -> None:
    from ..runtime.validation import check_integer, check_value

    for key, domain in _DOMAINS.items():
        if options.get(key) is not None:
            (check_integer if key in ("flows", "seed") else check_value)(domain, options[key], key)
    for key in ("sizes", "arrivals", "protocols"):
        if key in options and not isinstance(options[key], str):
            raise InputError(f"{key}={str(options[key])[:40]!r}: text (see rcpstab fct --help)")
    if "rate" in options and not (isinstance(options["rate"], (int, float)) and 0 < options["rate"] < math.inf):
        raise InputError(f"rate={str(options['rate'])[:40]!r}: one fixed rate in bit/s, > 0")
    if "rates" in options:
        try:
            rates = np.asarray(options["rates"], float)
        except (TypeError, ValueError):
            raise InputError(f"rates={str(options['rates'])[:40]!r}: fixed rates in bit/s") from None
        if rates.ndim != 1 or not 1 <= rates.size <= 1000 or not (np.isfinite(rates).all() and (rates > 0).all()):
            raise InputError(f"rates={str(options['rates'])[:40]!r}: 1 to 1000 positive rates in bit/s")


def _sizes(sizes=DEFAULT_SIZES):
    return size_law(sizes)


def _flows(*, alpha, beta, C, d0, load, sizes=DEFAULT_SIZES, flows, seed=0, buffer_bdp=1.0, trace=False):
    from ..fct.flow_run import run_flows

    return run_flows(
        alpha,
        beta,
        capacity_bps=C,
        rtt_s=d0,
        load=load,
        sizes=size_law(sizes),
        n_flows=flows,
        seed=seed,
        buffer_bdp=buffer_bdp,
        keep_trace=trace,
    )


def _workload(*, sizes=DEFAULT_SIZES, arrivals="poisson", flows, load, C, seed=0):
    from ..fct.flow_run import DATA_PACKET_BYTES, draw_workload
    from ..packet.hosts.flow_traffic import parse_arrivals

    start, size, warm = draw_workload(size_law(sizes), parse_arrivals(arrivals), flows, load, C, DATA_PACKET_BYTES, seed)
    return {"start_s": start, "size_pkts": size, "warm": int(warm)}


def _regimes(*, alpha, beta, C, d0, load, sizes=DEFAULT_SIZES, flows, seed=0, fluid_dt_s=None):
    from ..fct.regime import compare_methods

    return compare_methods(
        alpha, beta, capacity_bps=C, rtt_s=d0, load=load, sizes=size_law(sizes), n_flows=flows, seed=seed, fluid_dt_s=fluid_dt_s
    )


def _fixed_rate(*, rates, C, d0, load, sizes=DEFAULT_SIZES, flows, seed=0, alpha=0.1, beta=1.0):
    from ..fct.fixed_rate import fixed_rate_study

    return fixed_rate_study(
        [float(r) for r in rates],
        capacity_bps=C,
        rtt_s=d0,
        load=load,
        sizes=size_law(sizes),
        n_flows=flows,
        seed=seed,
        alpha=alpha,
        beta=beta,
    )


def _u_curve(*, rates, C, load, sizes, flows, seed=0, background=None):
    from ..fct.ucurve import app_a_duration, durations_at_rates

    law = size_law(sizes)
    rates = np.asarray(rates, float)
    if background is not None:
        b_sizes, b_flows, b_load, b_rate = background
        background = (size_law(b_sizes), b_flows, b_load, b_rate)
    simulated = durations_at_rates(rates, capacity_bps=C, dist=law, n_flows=flows, load=load, seed=seed, background=background)
    if background is None and hasattr(law, "moment"):
        model = app_a_duration(rates, C, load * C / (law.moment(1) * 8000), law)
    else:
        model = np.full(rates.shape, np.nan)  # App. A has no background traffic and needs a bounded Pareto
    return {"rate_bps": rates, "duration_s": simulated, "app_a_duration_s": model}


def _u_curve_gap(*, rate, C, load, sizes, flows, seed=0):
    from ..fct.ucurve import BoundedPareto
    from ..fct.ucurve_gap import decompose_gap

    law = size_law(sizes)
    if not isinstance(law, BoundedPareto):
        raise InputError(f"sizes={sizes!r}: App. A's model needs bpareto:mean=M,shape=S,max=X")
    return decompose_gap(float(rate), capacity_bps=C, dist=law, n_flows=flows, load=load, seed=seed)


def _protocols(
    *, protocols="rcp,rcpac,xcp", alpha, beta, C, d0, load, sizes=DEFAULT_SIZES, flows=1000, seeds=(0,), buffer_bdp=1.0
):
    from .flows import fct_protocols

    return fct_protocols(
        protocols, alpha, beta, C=C, d0=d0, load=load, sizes=sizes, flows=flows, seeds=seeds, buffer_bdp=buffer_bdp
    )


class FctStudyResult(Result):
    """One :func:`fct_study` (the study's own result in ``.value``; ``inputs['study']`` names it)."""

    command = "fct"

    def __getattr__(self, name):
        if name.startswith("__") or name in ("value", "inputs"):
            raise AttributeError(name)
        if isinstance(self.value, dict) and name in self.value:
            return self.value[name]
        return getattr(self.value, name)

    def __getitem__(self, key):
        return self.value[key]

    def __iter__(self):
        return iter(self.value)

    def items(self):
        """The study's dict items (regimes, fixed-rate, u-curve, workload, protocols)."""
        return self.value.items()

    def to_dict(self) -> dict:
        study, v = self.inputs["study"], self.value
        if study == "sizes":
            return strict({"kind": getattr(v, "kind", "bpareto"), "mean_packets": v.mean_packets})
        if study == "flows":
            return strict(
                {
                    "flows": v.n_flows,
                    "finished": len(v.records),
                    "mean_active": v.mean_active,
                    "utilization": v.utilization,
                    "loss_probability": v.loss_probability,
                }
            )
        return strict(v)

    def columns(self) -> dict:
        study, v = self.inputs["study"], self.value
        if study == "flows":
            return {"id": v.records["id"], "size_pkts": v.records["size_pkts"], "fct_s": v.fct_s}
        if study == "u-curve-gap":
            return {k: [x] for k, x in v.items() if np.ndim(x) == 0 and not isinstance(x, dict)} | {
                f"term_{k}_s": [x] for k, x in v["terms_s"].items()
            }
        if study in ("workload", "u-curve"):
            return {k: x for k, x in v.items() if np.ndim(x) == 1}
        if study == "fixed-rate":
            return {k: [row[k] for row in v["rows"]] for k in v["rows"][0]}
        if study == "regimes":
            methods = [k for k in v if isinstance(v[k], dict)]
            return {
                "method": methods,
                **{key: [v[m][key] for m in methods] for key in ("afct_over_ps", "mean_in_progress", "unfinished")},
            }
        if study == "protocols":
            return {
                "protocol": list(v),
                **{
                    f"{part}_{stat}": [v[p][part][stat] for p in v]
                    for part in ("all", "small", "large")
                    for stat in ("mean", "ci95")
                },
            }
        return {"mean_packets": [v.mean_packets]}

    def summary(self) -> str:
        return f"fct_study {self.inputs['study']!r}: " + ", ".join(f"{k}" for k in self.columns())

    def plot(self, ax=None, **kwargs):
        raise InputError(f"fct_study {self.inputs['study']!r}: no figure of its own (see to_pandas())")
