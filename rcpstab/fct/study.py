"""Flow completion times of RCP against processor sharing (thesis Ch. 4, Fig. 4.1).

:func:`fct_study` runs flow-level traffic through the reference router and packet
simulator (:func:`rcpstab.fct.flow_run.run_flows`) and bins the finished flows
by size: per bin the AFCT and the largest FCT beside the PS AFCT of the same flows (eq. 4.1
at their mean size, :mod:`.ps`) and the lower bound 1.5 RTPD + L/C. It also reports the
link utilization, the loss probability at the bottleneck and the mean number of flows in
progress against Little's law (lambda times the AFCT of the same window) and against PS.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..packet.hosts.flow_traffic import ArrivalProcess, SizeDistribution
from ..runtime.atomic import atomic_open
from .flow_run import DATA_PACKET_BYTES, NS_PER_S, FlowRun, check_flow_run, run_flows
from .ps import lower_bound_fct, processor_sharing_fct, processor_sharing_sojourn

__all__ = ["FctBin", "FctResult", "fct_study", "size_bins"]

CSV_COLUMNS = (
    "size_lo_pkts",
    "size_hi_pkts",
    "flows",
    "mean_size_pkts",
    "afct_s",
    "max_fct_s",
    "ps_afct_s",
    "lower_bound_s",
    "afct_over_ps",
    "ps_measured_load_afct_s",
    "ps_same_arrivals_afct_s",
    "afct_over_ps_eq41",
)


def size_bins(max_size: int) -> list[tuple[int, int]]:
    """Bins of whole-packet sizes, doubling: [1, 1], [2, 3], [4, 7], ... up to ``max_size``.

    Examples
    --------
    >>> size_bins(9)
    [(1, 1), (2, 3), (4, 7), (8, 15)]
    """
    bins, lo = [], 1
    while lo <= max_size:
        bins.append((lo, 2 * lo - 1))
        lo *= 2
    return bins


@dataclass(frozen=True)
class FctBin:
    """Finished flows with ``size_lo_pkts <= size <= size_hi_pkts`` (whole data packets).

    Times in seconds; ``ps_afct_s`` is None where eq. 4.1 does not apply (non-Poisson
    arrivals).
    """

    size_lo_pkts: int
    size_hi_pkts: int
    flows: int
    mean_size_pkts: float
    afct_s: float
    max_fct_s: float
    ps_afct_s: float | None
    lower_bound_s: float
    ps_measured_load_afct_s: float | None = None
    ps_same_arrivals_afct_s: float | None = None

    @property
    def afct_over_ps_same_arrivals(self) -> float | None:
        """AFCT over the AFCT of the same flows in an exact PS queue fed the same arrivals."""
        return None if self.ps_same_arrivals_afct_s is None else self.afct_s / self.ps_same_arrivals_afct_s

    @property
    def afct_over_ps_measured_load(self) -> float | None:
        """AFCT over eq. 4.1 at the offered load the run actually drew."""
        return None if self.ps_measured_load_afct_s is None else self.afct_s / self.ps_measured_load_afct_s

    @property
    def afct_over_ps_eq41(self) -> float | None:
        """AFCT over eq. 4.1 at the nominal load and the bin's mean size."""
        return None if self.ps_afct_s is None else self.afct_s / self.ps_afct_s

    @property
    def ps_reference(self) -> str | None:
        """Which PS the headline :attr:`afct_over_ps` divides by: ``same_arrivals`` or ``eq_4_1``."""
        if self.ps_same_arrivals_afct_s is not None:
            return "same_arrivals"
        return None if self.ps_afct_s is None else "eq_4_1"

    @property
    def afct_over_ps(self) -> float | None:
        """The headline: AFCT over PS on the same arrivals (an exact PS queue fed the run's
        flows); eq. 4.1 at the nominal load only where that is unavailable (a run that did
        not finish every flow)."""
        same = self.afct_over_ps_same_arrivals
        return same if same is not None else self.afct_over_ps_eq41


@dataclass
class FctResult:
    """Binned FCTs of one or more replications of the same set-up.

    Attributes
    ----------
    bins : list of FctBin
        Non-empty size bins.
    utilization, loss_probability, measured_load : float
        Over the replications' measurement windows (see :class:`FlowRun`).
    flows, flows_completed : int
        Flows simulated and flows finished.
    afct_s : float
        Mean FCT of all finished flows, s.
    mean_active, mean_active_stderr : float
        Time-average number of flows in progress over the window and its standard error.
    little_mean_active : float
        Little's law for the simulated system: lambda times the AFCT of the window's flows.
    ps_mean_active : float or None
        Little's law for PS: the run's lambda times eq. 4.1 at the drawn mean size.
    runs : list of FlowRun
    """

    bins: list[FctBin]
    utilization: float
    loss_probability: float
    measured_load: float
    flows: int
    flows_completed: int
    afct_s: float
    mean_active: float
    mean_active_stderr: float
    little_mean_active: float
    ps_mean_active: float | None
    runs: list[FlowRun] = field(repr=False, default_factory=list)
    seed: int | None = None

    @property
    def setup(self) -> FlowRun:
        """The first run, carrying the set-up (C, RTPD, load, sizes, ...)."""
        return self.runs[0]

    def __repr__(self) -> str:
        worst = self.worst_ratio()
        return (
            f"FctResult(flows={self.flows_completed}/{self.flows}, bins={len(self.bins)}, "
            f"utilization={self.utilization:.3f}, loss={self.loss_probability:.2e}, "
            f"max AFCT/PS={'n/a' if worst is None else f'{worst:.2f}'})"
        )

    def worst_ratio(self, max_size_pkts: float = math.inf, min_flows: int = 1) -> float | None:
        """Largest AFCT/PS over the bins with ``size_hi_pkts <= max_size_pkts`` and enough flows."""
        ratios = [
            b.afct_over_ps
            for b in self.bins
            if b.size_hi_pkts <= max_size_pkts and b.flows >= min_flows and b.afct_over_ps is not None
        ]
        return max(ratios) if ratios else None

    def summary(self) -> dict:
        """Strict-JSON dict (no NaN): the CLI contract's fields and the Little's-law figures."""

        def num(x):
            return None if x is None or not math.isfinite(x) else float(x)

        s = self.setup
        out = {
            "bins": [
                {
                    "size_lo_pkts": b.size_lo_pkts,
                    "size_hi_pkts": b.size_hi_pkts,
                    "flows": b.flows,
                    "afct_s": num(b.afct_s),
                    "max_fct_s": num(b.max_fct_s),
                    "ps_afct_s": num(b.ps_afct_s),
                    "lower_bound_s": num(b.lower_bound_s),
                    "afct_over_ps": num(b.afct_over_ps),
                    "ps_reference": b.ps_reference,
                    "afct_over_ps_eq41": num(b.afct_over_ps_eq41),
                    "ps_measured_load_afct_s": num(b.ps_measured_load_afct_s),
                    "ps_same_arrivals_afct_s": num(b.ps_same_arrivals_afct_s),
                }
                for b in self.bins
            ],
            "utilization": num(self.utilization),
            "loss_probability": num(self.loss_probability),
            "flows_completed": self.flows_completed,
            "measured_load": num(self.measured_load),
            "nominal_load": s.load,
            "offered_load": num(self.measured_load),
            "carried_load": num(self.utilization),
            "flows": self.flows,
            "afct_s": num(self.afct_s),
            "mean_active_flows": num(self.mean_active),
            "mean_active_flows_stderr": num(self.mean_active_stderr),
            "little_mean_active_flows": num(self.little_mean_active),
            "ps_mean_active_flows": num(self.ps_mean_active),
            "setup": {
                "alpha": s.alpha,
                "beta": s.beta,
                "C_bps": s.capacity_bps,
                "rtt_s": s.rtt_s,
                "load": s.load,
                "sizes": str(s.sizes),
                "arrivals": str(s.arrivals),
                "buffer_bytes": s.buffer_bytes,
                "packet_bytes": s.packet_bytes,
                "seed": s.seed if self.seed is None else self.seed,
                "replications": len(self.runs),
            },
        }
        if self.ps_mean_active is None:
            out["ps_note"] = "eq. 4.1 is M/G/1 processor sharing; with Pareto arrivals only the lower bound applies"
        return out

    def to_csv(self, path: str) -> None:
        """One row per bin, columns :data:`CSV_COLUMNS` (times in s)."""
        with atomic_open(path) as fh:  # a full disk leaves the old file, not a torn one
            w = csv.writer(fh)
            w.writerow(CSV_COLUMNS)
            for b in self.bins:
                w.writerow(
                    [
                        b.size_lo_pkts,
                        b.size_hi_pkts,
                        b.flows,
                        f"{b.mean_size_pkts:.6g}",
                        f"{b.afct_s:.9g}",
                        f"{b.max_fct_s:.9g}",
                        "" if b.ps_afct_s is None else f"{b.ps_afct_s:.9g}",
                        f"{b.lower_bound_s:.9g}",
                        "" if b.afct_over_ps is None else f"{b.afct_over_ps:.6g}",
                        "" if b.ps_measured_load_afct_s is None else f"{b.ps_measured_load_afct_s:.9g}",
                        "" if b.ps_same_arrivals_afct_s is None else f"{b.ps_same_arrivals_afct_s:.9g}",
                        "" if b.afct_over_ps_eq41 is None else f"{b.afct_over_ps_eq41:.6g}",
                    ]
                )

    def plot(self, ax=None, **kwargs):
        """Fig. 4.1: AFCT against flow size with PS; see :func:`.plotting.fct_plot`."""
        from .plotting import fct_plot

        return fct_plot(self, ax=ax, **kwargs)


def bin_records(
    records: np.ndarray,
    *,
    packet_bytes: int,
    capacity_bps: float,
    rtt_s: float,
    load: float | None,
    measured_load: float | None = None,
    ps_fct_s: np.ndarray | None = None,
) -> list[FctBin]:
    """Bin finished-flow records by size; ``load=None`` leaves the eq. 4.1 columns empty.

    ``measured_load`` (below 1) adds eq. 4.1 at the load the run drew; ``ps_fct_s`` (one
    per record) the FCTs of the same flows in an exact PS queue.
    """
    if len(records) == 0:
        return []
    size = records["size_pkts"]
    fct = records["fct_ns"] / NS_PER_S
    out = []
    for lo, hi in size_bins(int(size.max())):
        sel = (size >= lo) & (size <= hi)
        if not sel.any():
            continue
        mean_bits = float(size[sel].mean()) * packet_bytes * 8
        out.append(
            FctBin(
                size_lo_pkts=lo,
                size_hi_pkts=hi,
                flows=int(sel.sum()),
                mean_size_pkts=float(size[sel].mean()),
                afct_s=float(fct[sel].mean()),
                max_fct_s=float(fct[sel].max()),
                ps_afct_s=None if load is None else float(processor_sharing_fct(mean_bits, capacity_bps, rtt_s, load)),
                lower_bound_s=float(lower_bound_fct(mean_bits, capacity_bps, rtt_s)),
                ps_measured_load_afct_s=None
                if load is None or measured_load is None or not 0 < measured_load < 1
                else float(processor_sharing_fct(mean_bits, capacity_bps, rtt_s, measured_load)),
                ps_same_arrivals_afct_s=None if ps_fct_s is None else float(ps_fct_s[sel].mean()),
            )
        )
    return out


def _replication(kwargs: dict) -> FlowRun:
    return run_flows(**kwargs)


def fct_study(
    alpha: float,
    beta: float,
    *,
    capacity_bps: float,
    rtt_s: float,
    load: float,
    sizes: SizeDistribution,
    n_flows: int,
    buffer_bdp: float = 1.0,
    arrivals: ArrivalProcess | None = None,
    seed: int = 0,
    replications: int = 1,
    workers: int = 1,
    packet_bytes: int = DATA_PACKET_BYTES,
    eta: float = 1.0,
    backend: str = "c",
) -> FctResult:
    """AFCT per flow-size bin of RCP against processor sharing (thesis Fig. 4.1).

    Parameters
    ----------
    alpha, beta : float
        Router gains.
    capacity_bps, rtt_s, load : float
        C (bit/s), RTPD (s) and offered load rho in (0, 1).
    sizes : SizeDistribution
    n_flows : int
        Flows in total, split evenly over the replications.
    buffer_bdp : float
        Bottleneck buffer in bandwidth-delay products.
    arrivals : ArrivalProcess, optional
        Poisson by default; with Pareto gaps the PS column is None.
    seed : int
        One replication uses ``seed`` itself; several use seeds spawned from it.
    replications : int
        Independent runs pooled into one result (each starts from an empty link).
    workers : int
        Local processes running the replications (the result does not depend on it).
    packet_bytes, eta, backend
        See :func:`~rcpstab.fct.flow_run.run_flows`.

    Returns
    -------
    FctResult

    Examples
    --------
    >>> from rcpstab.packet.hosts.flow_traffic import parse_sizes
    >>> r = fct_study(0.4, 0.2, capacity_bps=10e6, rtt_s=0.1, load=0.5,
    ...               sizes=parse_sizes("fixed:size=4"), n_flows=40)
    >>> [(b.size_lo_pkts, b.size_hi_pkts, b.flows) for b in r.bins]
    [(4, 7, 40)]
    """
    from ..runtime.executors import run_chunks

    arrivals = arrivals or ArrivalProcess()
    if not (isinstance(seed, (int, np.integer)) and seed >= 0):
        raise InputError(f"seed={seed} must be a non-negative integer")
    if replications < 1 or workers < 1:
        raise InputError(f"replications={replications} and workers={workers} must be >= 1")
    if n_flows < replications:
        raise InputError(f"flows={n_flows} must be at least replications={replications}")
    check_flow_run(
        alpha, beta, capacity_bps, rtt_s, load, n_flows, buffer_bdp, eta, packet_bytes, backend, seed, sizes, replications
    )  # all of them, before any worker starts
    seeds = (
        [seed] if replications == 1 else [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(replications)]
    )
    counts = [n_flows // replications + (k < n_flows % replications) for k in range(replications)]
    tasks = [
        (
            dict(
                alpha=alpha,
                beta=beta,
                capacity_bps=capacity_bps,
                rtt_s=rtt_s,
                load=load,
                sizes=sizes,
                n_flows=n,
                buffer_bdp=buffer_bdp,
                arrivals=arrivals,
                seed=s,
                eta=eta,
                packet_bytes=packet_bytes,
                backend=backend,
            ),
        )
        for s, n in zip(seeds, counts)
    ]
    runs: list[FlowRun] = [None] * replications  # type: ignore[list-item]
    for i, run in run_chunks(_replication, tasks, workers=workers):
        runs[i] = run
    result = combine_runs(runs)
    result.seed = seed
    return result


def same_arrivals_ps_fct(runs: list[FlowRun]) -> np.ndarray | None:
    """Per record (in record order), 1.5 RTPD plus the sojourn in an exact PS queue fed the
    run's own arrivals; None unless every flow of every run finished (the records are then
    the whole arrival sequence)."""
    out = []
    for r in runs:
        rec = r.records
        if len(rec) != r.n_flows:
            return None
        order = np.argsort(rec["id"], kind="stable")
        sojourn = np.empty(len(rec))
        sojourn[order] = processor_sharing_sojourn(
            rec["start_ns"][order] / NS_PER_S, rec["size_pkts"][order] * (r.packet_bytes * 8.0), r.capacity_bps
        )
        out.append(1.5 * r.rtt_s + sojourn)
    return np.concatenate(out)


def combine_runs(runs: list[FlowRun]) -> FctResult:
    """Pool replications: records concatenated, window averages weighted by window length."""
    first = runs[0]
    poisson = first.arrivals.kind == "poisson"
    records = np.concatenate([r.records for r in runs])
    spans = np.array([r.window_s[1] - r.window_s[0] for r in runs])
    weights = spans if spans.sum() > 0 else np.ones(len(runs))

    def pooled(name):
        values = np.array([getattr(r, name) for r in runs], dtype=float)
        ok = np.isfinite(values)
        return float(np.average(values[ok], weights=weights[ok])) if ok.any() else float("nan")

    # Little's law on the window: lambda (arrivals per second in the window) times the AFCT
    # of the flows that arrived in it (all of them finish: the run drains).
    little = []
    for r in runs:
        span = r.window_s[1] - r.window_s[0]
        warm = r.n_flows - r.window_arrivals
        fct = r.records["fct_ns"][r.records["id"] >= warm] / NS_PER_S
        little.append(r.window_arrivals / span * fct.mean() if span > 0 and len(fct) else float("nan"))
    little_arr = np.array(little)
    stderrs = np.array([r.mean_active_stderr for r in runs], dtype=float)
    # The drawn sizes' mean: the run's arrival rate is set from it (draw_workload), so
    # lambda * E[L] = rho * C holds for it, not for the distribution's mean.
    mean_size_bits = float(records["size_pkts"].mean()) * first.packet_bytes * 8 if len(records) else float("nan")
    rate = float(np.average([r.arrival_rate_per_s for r in runs], weights=[r.n_flows for r in runs]))
    return FctResult(
        bins=bin_records(
            records,
            packet_bytes=first.packet_bytes,
            capacity_bps=first.capacity_bps,
            rtt_s=first.rtt_s,
            load=first.load if poisson else None,
            measured_load=pooled("measured_load"),
            ps_fct_s=same_arrivals_ps_fct(runs),
        ),
        utilization=pooled("utilization"),
        measured_load=pooled("measured_load"),
        loss_probability=pooled("loss_probability"),
        flows=sum(r.n_flows for r in runs),
        flows_completed=len(records),
        afct_s=float(records["fct_ns"].mean() / NS_PER_S) if len(records) else float("nan"),
        mean_active=pooled("mean_active"),
        mean_active_stderr=float(np.sqrt(np.sum((weights / weights.sum()) ** 2 * stderrs**2))),
        little_mean_active=float(np.average(little_arr[np.isfinite(little_arr)], weights=weights[np.isfinite(little_arr)]))
        if np.isfinite(little_arr).any()
        else float("nan"),
        ps_mean_active=float(rate * processor_sharing_fct(mean_size_bits, first.capacity_bps, first.rtt_s, first.load))
        if poisson
        else None,
        runs=runs,
    )
