"""Replications of a packet run over seeds, with Student-t confidence intervals.

As ns-3 users replicate a run with several RNG run numbers: the same file run with seeds
0..N-1. The seed drives the flows' start jitter (``start_jitter_s`` in the file, see
:mod:`rcpstab.packet.simulator.topofile`), the only random input of a packet run; a file
without jitter gives N identical runs and intervals of width 0. Per run, each quantity is
averaged over the late part of the run (default: its second half):

- ``<group>_throughput_bps``: mean delivered rate per flow of the group, bit/s;
- ``<link>_utilization``: mean input rate of the link over its capacity;
- ``<link>_R_over_C``: mean router rate over capacity.

A single-link preset (``fig5.3``, ``testbed``) has no random input at all, so its replications
(:func:`replicate_scenario`) draw each flow's start from ``[start, start + start_jitter_s)`` with the
seed, as the seeded packet maps do, and repeat the whole co-simulation; per run:

- ``rms_R_over_C``, ``rms_relative``: packet minus fluid R/C outside the transients (the latter over eta/N);
- ``segment<i>_N<n>_packet_plateau``: the packet run's mean R/C over the i-th flow-count stretch (n flows);
- ``segment<i>_N<n>_packet_settling_s``: when the packet R/C entered the settling band for good, s (NaN: never);
- ``segment<i>_N<n>_rms_R_over_C``: packet minus fluid R/C over the stretch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from ..intervals import sample_std, t_half_width_of_std
from ..packet.simulator.topofile import TopologySpec, load_topology
from .network_packet_run import run_topology

if TYPE_CHECKING:
    import pandas

__all__ = ["Replications", "replicate_scenario", "replicate_topology"]


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
    late_from_s : float or None
        Start of the averaging window, s (None: per-run figures of a single-link co-simulation).
    """

    seeds: list[int]
    values: dict[str, Any]
    confidence: float
    late_from_s: float | None = None

    def summary(self) -> dict[str, Any]:
        """Quantity -> {mean, std (sample, ddof=1), ci_low, ci_high, n}; Student t with n - 1 degrees of freedom."""
        out = {}
        for name, v in self.values.items():
            n = v.size
            std = float(sample_std(v))
            half = float(t_half_width_of_std(std, n, self.confidence))
            mean = float(np.mean(v))
            out[name] = {"mean": mean, "std": std, "ci_low": mean - half, "ci_high": mean + half, "n": n}
        return out

    def to_pandas(self) -> pandas.DataFrame:
        """One row per quantity: ``quantity``, ``mean``, ``std``, ``ci_low``, ``ci_high``, ``n``."""
        import pandas

        return pandas.DataFrame([{"quantity": k, **v} for k, v in self.summary().items()])


def replicate_topology(
    spec: TopologySpec | str,
    alpha: float,
    beta: float,
    seeds: int = 5,
    t_end: float | None = None,
    *,
    late_from: float | None = None,
    confidence: float = 0.95,
    backend: str = "c",
) -> Replications:
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
    if not (isinstance(seeds, int) and seeds >= 1):  # type: ignore[redundant-expr]  # callers without type checking pass anything
        raise InputError(f"seeds={seeds!r}: must be an integer >= 1")
    if not 0 < confidence < 1:
        raise InputError(f"confidence={confidence}: must be in (0, 1)")
    rows = [_late_means(run_topology(spec, alpha, beta, t_end, backend=backend, seed=s), spec, late_from) for s in range(seeds)]
    values = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    return Replications(seeds=list(range(seeds)), values=values, confidence=confidence, late_from_s=late_from)


def replicate_scenario(
    scenario: Any,
    alpha: float,
    beta: float,
    seeds: int,
    start_jitter_s: float,
    *,
    t_end: float | None = None,
    transient_rtt: float | None = None,
    model: str = "rcp",
    confidence: float = 0.95,
) -> Replications:
    """Co-simulate a single-link scenario with seeds 0..``seeds``-1, each drawing the flows' start jitter.

    Parameters
    ----------
    scenario : str or Scenario
        ``"fig5.3"``, ``"testbed"``, a single-link topology file or a scenario object.
    alpha, beta : float
        Router gains (dimensionless).
    seeds : int
        Number of replications (>= 2 for an interval).
    start_jitter_s : float
        Each long-lived flow starts at its scripted time plus a uniform draw from [0, start_jitter_s), s (> 0:
        the presets have no other random input).
    t_end : float, optional
        Simulated seconds per run (default: the scenario's).
    transient_rtt : float, optional
        Round trips after each flow-count change left out of the figures (default: the co-simulation's).
    model : str
        Protocol of the packet run and the fluid model (as :func:`~rcpstab.cosim.packet_vs_fluid.cosimulate`).
    confidence : float
        Two-sided confidence level, in (0, 1).

    Returns
    -------
    Replications
        ``late_from_s`` None; the quantities of the module docstring, one value per seed.

    Examples
    --------
    >>> r = replicate_scenario("fig5.3", 0.4, 0.6, 2, 0.1, t_end=12)
    >>> sorted(r.values)[:3], r.values["segment1_N5_packet_plateau"].shape
    (['rms_R_over_C', 'rms_relative', 'segment1_N5_packet_plateau'], (2,))
    """
    import dataclasses

    from ..packet.simulator.scenarios import get_scenario
    from .packet_vs_fluid import TRANSIENT_RTT, cosimulate

    if not (isinstance(seeds, int) and seeds >= 1):  # type: ignore[redundant-expr]  # callers without type checking pass anything
        raise InputError(f"seeds={seeds!r}: must be an integer >= 1")
    if not 0 < confidence < 1:
        raise InputError(f"confidence={confidence}: must be in (0, 1)")
    if not start_jitter_s > 0:
        raise InputError(f"--start-jitter {start_jitter_s}: must be > 0 (the scenario has no other random input)")
    spec = dataclasses.replace(get_scenario(scenario), start_jitter_s=float(start_jitter_s))
    spec.validate()
    transient_rtt = TRANSIENT_RTT if transient_rtt is None else transient_rtt
    rows = []
    for seed in range(seeds):
        run = cosimulate(spec, alpha, beta, seed=seed, t_end=t_end, transient_rtt=transient_rtt, model=model)
        row = {"rms_R_over_C": run.rms_R_over_C, "rms_relative": run.rms_relative}
        for i, seg in enumerate(run.segments, 1):
            for key in ("packet_plateau", "packet_settling_s", "rms_R_over_C"):
                row[f"segment{i}_N{seg.n_flows}_{key}"] = float(getattr(seg, key))
        rows.append(row)
    values = {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]}
    return Replications(seeds=list(range(seeds)), values=values, confidence=confidence)


def _late_means(run: Any, spec: TopologySpec, late_from: float) -> dict[str, float]:
    out = {}
    t, d = run.flow_t, run.flow_delivered_bytes
    late = np.flatnonzero(t >= late_from)
    if late.size < 2:
        raise InputError(f"late_from={late_from:g} s: fewer than two per-flow samples after it (run to t_end >= late_from + 1 s)")
    i0, i1 = late[0], late[-1]
    rate = (d[i1] - d[i0]) * 8 / (t[i1] - t[i0])  # bit/s per flow
    first = 0
    for flow in spec.flows:
        out[f"{flow.name}_throughput_bps"] = float(np.mean(rate[first : first + flow.count]))
        first += flow.count
    for name, trace in run.traces.items():
        window = trace["t"] >= late_from
        out[f"{name}_utilization"] = float(np.mean(trace["utilization"][window]))
        out[f"{name}_R_over_C"] = float(np.mean(trace["R_over_C"][window]))
    return out
