"""Replications of a topology file's packet run over seeds, with Student-t confidence intervals.

As ns-3 users replicate a run with several RNG run numbers: the same file run with seeds
0..N-1. The seed drives the flows' start jitter (``start_jitter_s`` in the file, see
:mod:`rcpstab.packet.simulator.topofile`), the only random input of a packet run; a file
without jitter gives N identical runs and intervals of width 0. Per run, each quantity is
averaged over the late part of the run (default: its second half):

- ``<group>_throughput_bps``: mean delivered rate per flow of the group, bit/s;
- ``<link>_utilization``: mean input rate of the link over its capacity;
- ``<link>_R_over_C``: mean router rate over capacity.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..intervals import t_half_width
from ..packet.simulator.topofile import TopologySpec, load_topology
from .network_packet_run import run_topology

__all__ = ["Replications", "replicate_topology"]


@dataclass
class Replications:
    """Per-seed values of each quantity and their confidence intervals.

    Attributes
    ----------
    seeds : list of int
    values : dict of str to ndarray
        Quantity -> one value per seed (units in the name, see the module docstring).
    confidence : float
        Two-sided level of the intervals, e.g. 0.95.
    late_from_s : float
        Start of the averaging window, s.
    """

    seeds: list
    values: dict
    confidence: float
    late_from_s: float

    def summary(self) -> dict:
        """Quantity -> {mean, std (sample, ddof=1), ci_low, ci_high, n}; Student t with n - 1 degrees of freedom."""
        out = {}
        for name, v in self.values.items():
            n = v.size
            std = float(np.std(v, ddof=1)) if n > 1 else float("nan")
            half = float(t_half_width(v, self.confidence))
            mean = float(np.mean(v))
            out[name] = {"mean": mean, "std": std, "ci_low": mean - half, "ci_high": mean + half, "n": n}
        return out

    def to_pandas(self):
        """One row per quantity: ``quantity``, ``mean``, ``std``, ``ci_low``, ``ci_high``, ``n``."""
        import pandas

        return pandas.DataFrame([{"quantity": k, **v} for k, v in self.summary().items()])


def replicate_topology(spec: TopologySpec | str, alpha: float, beta: float, seeds: int = 5,
                       t_end: float | None = None, *, late_from: float | None = None, confidence: float = 0.95,
                       backend: str = "c") -> Replications:
    """Run a topology file with seeds 0..``seeds``-1 and summarize each quantity with a confidence interval.

    Parameters
    ----------
    spec : TopologySpec or str
        A loaded topology file or its path.
    alpha, beta : float
        Router gains.
    seeds : int
        Number of replications (>= 2 for an interval).
    t_end : float, optional
        Simulated seconds per run (default: the file's ``t_end_s``).
    late_from : float, optional
        Start of the averaging window, s (default ``t_end / 2``).
    confidence : float
        Two-sided confidence level, in (0, 1).
    backend : {"c", "python"}

    Returns
    -------
    Replications

    Raises
    ------
    InputError
        seeds < 1, confidence outside (0, 1), a window without two per-flow samples, or a bad file.
    """
    if not isinstance(spec, TopologySpec):
        spec = load_topology(spec)
    t_end = spec.t_end_s if t_end is None else t_end
    late_from = t_end / 2 if late_from is None else late_from
    if not (isinstance(seeds, int) and seeds >= 1):
        raise InputError(f"seeds={seeds!r}: must be an integer >= 1")
    if not 0 < confidence < 1:
        raise InputError(f"confidence={confidence}: must be in (0, 1)")
    rows = [_late_means(run_topology(spec, alpha, beta, t_end, backend=backend, seed=s), spec, late_from)
            for s in range(seeds)]
    values = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    return Replications(seeds=list(range(seeds)), values=values, confidence=confidence, late_from_s=late_from)


def _late_means(run, spec: TopologySpec, late_from: float) -> dict:
    out = {}
    t, d = run.flow_t, run.flow_delivered_bytes
    late = np.flatnonzero(t >= late_from)
    if late.size < 2:
        raise InputError(f"late_from={late_from:g} s: fewer than two per-flow samples after it (run to t_end >= "
                         f"late_from + 1 s)")
    i0, i1 = late[0], late[-1]
    rate = (d[i1] - d[i0]) * 8 / (t[i1] - t[i0])          # bit/s per flow
    first = 0
    for flow in spec.flows:
        out[f"{flow.name}_throughput_bps"] = float(np.mean(rate[first:first + flow.count]))
        first += flow.count
    for name, trace in run.traces.items():
        window = trace["t"] >= late_from
        out[f"{name}_utilization"] = float(np.mean(trace["utilization"][window]))
        out[f"{name}_R_over_C"] = float(np.mean(trace["R_over_C"][window]))
    return out
