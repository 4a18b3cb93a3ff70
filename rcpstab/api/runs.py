"""``rcpstab.cosim`` (``rcpstab cosim``: one dispatch over single-link, flash-crowd and network scenarios)
and ``rcpstab.network`` (``rcpstab network``: the multi-link fluid model alone)."""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..errors import InputError
from .common import plausible
from .result import Result, strict

if TYPE_CHECKING:
    from ..packet.simulator.scenarios import Scenario

__all__ = [
    "CosimResult",
    "NetworkResult",
    "ReplicationsResult",
    "cosim",
    "default_transient_rtt",
    "network",
    "off_target_links",
    "packet_models",
    "scenario_names",
]

# Rough costs of a single-link run (benchmark runs of fig5.3), for refusing runs that would not fit: its trace
# keeps one sample per control interval min(RTT, 10 ms). Network runs are priced from their work
# (rcpstab.cosim.network_cost, rcpstab.network.fluid).
TRACE_BYTES_PER_SAMPLE = 240
CPU_S_PER_SAMPLE = 1.2e-5
MIN_T_END_S = 1.0  # shorter network runs record too little to summarize


def scenario_names() -> list[str]:
    """Every scenario ``cosim`` runs: the single-link ones (flash-crowd included) and the networks."""
    from ..cosim.network import NETWORK_SCENARIOS
    from ..packet.simulator.scenarios import SCENARIOS

    return [*SCENARIOS, *NETWORK_SCENARIOS]


def default_transient_rtt() -> float:
    """RTTs after each flow-count change left out of the agreement figures, by default."""
    from ..cosim.packet_vs_fluid import TRANSIENT_RTT

    return TRANSIENT_RTT


def packet_models() -> list[str]:
    """The protocol names the packet simulator runs."""
    from ..packet.simulator.run import PROTOCOLS

    return list(PROTOCOLS)


def cosim(
    alpha: float,
    beta: float,
    scenario: str | Scenario = "fig5.3",
    model: str = "rcp",
    *,
    d0=None,
    buffer_bdp=None,
    C=None,
    N=None,
    t_end=None,
    transient_rtt=None,
    seed: int = 0,
    seeds: int | None = None,
    start_jitter_s: float | None = None,
):
    """Run ``scenario`` packet by packet (reference router) and as the fluid ``model``, and compare.

    One dispatch, as ``rcpstab cosim``: a single-link scenario (plateaus and RMS difference per
    flow-count segment), ``"flash-crowd"`` (peak queue, drops and recovery of both runs, with the
    same buffer) or a network (``"fig5.7"``: every link's router runs App. F; ``model="rcp"``).

    Parameters
    ----------
    alpha, beta : float
        Router gains (> 0, dimensionless).
    scenario : str
        ``"fig5.3"``, ``"testbed"``, ..., ``"flash-crowd"`` or ``"fig5.7"``, or a topology file
        (``*.toml``/``*.json``: :mod:`rcpstab.packet.simulator.topofile`, e.g.
        ``examples/topologies/fig5.7.toml``). A file with one link that every flow crosses runs as the
        single-link presets do (they are such files); any other runs as a network; its per-flow packet trace is
        ``result.packet_run.to_pandas("flows")``, its per-link one ``result.packet_run.to_pandas("links")``.
    model : str
        ``"rcp"``, ``"xcp"``, ``"rcpac"``, ``"rcp-router"``, ... or a protocol file defining ``PACKET_PROTOCOL``.
    d0 : float, optional
        Override the scenario's round-trip propagation delay, s (not for a network).
    buffer_bdp : float, optional
        Bottleneck buffer in C*d0, packet and fluid alike (default: the scenario's; flash crowd 1).
    C, N : optional
        Flash crowd only: capacity (bit/s, default 100e6) and flows before the crowd (default 2).
    t_end : float, optional
        Simulated time, s (default: the scenario's; network 400 s; a topology file its ``t_end_s``; not for
        the flash crowd).
    transient_rtt : float, optional
        RTTs after each flow-count change left out of the agreement figures (single-link).
    seed : int
        Seed of the packet run.
    seeds : int, optional
        Replicate the run with seeds 0..seeds-1 and return per-quantity means with 95% Student-t
        intervals (:mod:`rcpstab.cosim.replications`). A topology file: its packet run, each seed drawing
        the flows' ``start_jitter_s`` (the fluid side is not run). A single-link preset (``"fig5.3"``,
        ``"testbed"``): the whole co-simulation, each seed drawing the flows' starts within
        ``start_jitter_s``, which it then needs (the presets have no other random input).
    start_jitter_s : float, optional
        Single-link presets: each long-lived flow starts at its scripted time plus a uniform draw from
        [0, start_jitter_s), s, from the seed (default: none, every run the same). A topology file gives its
        own per flow group.

    Returns
    -------
    CosimResult
        ``.kind`` (``single-link``, ``flash-crowd`` or ``network``); ``to_dict()`` is ``cosim --json``;
        ``.plot()`` draws the overlay.

    Examples
    --------
    >>> result = cosim(0.4, 0.6, "fig5.3", t_end=20)
    >>> result.kind, round(result.segments[0].packet_plateau, 2), round(result.segments[0].fluid_plateau, 2)
    ('single-link', 0.2, 0.2)
    """
    from ..cosim.network import NETWORK_SCENARIOS
    from ..cosim.packet_vs_fluid import PACKET_PROTOCOL, TRANSIENT_RTT
    from ..packet.simulator.scenarios import FLASH_CROWD
    from ..runtime.validation import check_value

    # every number against the one domain table before any run (a string or NaN was a TypeError deep inside)
    alpha, beta = check_value("alpha", alpha, "--alpha"), check_value("beta", beta, "--beta")
    for name, key, value in (
        ("d0", "d0", d0),
        ("buffer", "buffer_bdp", buffer_bdp),
        ("C", "C", C),
        ("N", "N", N),
        ("t-end", "t_end", t_end),
        ("transient-rtt", "transient_rtt", transient_rtt),
        ("seed", "seed", seed),
    ):
        if value is not None:
            check_value(key, value, f"--{name}")
    if not isinstance(scenario, str) and not hasattr(scenario, "validate"):
        raise InputError(f"--scenario {str(scenario)[:80]!r}: a scenario name")
    _check_model(model, PACKET_PROTOCOL)
    transient_rtt = TRANSIENT_RTT if transient_rtt is None else transient_rtt
    if not transient_rtt >= 0:
        raise InputError(f"--transient-rtt {transient_rtt}: must be >= 0")
    plausible("d0", d0, "--d0")
    plausible("C", C, "--C")
    if start_jitter_s is not None:
        start_jitter_s = check_value("time", start_jitter_s, "--start-jitter")
        _check_jitter_scenario(scenario)
    if seeds is not None:
        return _replications(alpha, beta, scenario, model, seeds, t_end, (d0, buffer_bdp, C, N), transient_rtt, start_jitter_s)
    if str(scenario).endswith((".toml", ".json")):
        from ..packet.simulator.topofile import load_topology

        # one link that every flow crosses: a single-link scenario, run as the presets (which are such files)
        scenario = load_topology(cast(str, scenario)).single_link() or scenario  # a file name (.toml, .json)
    if scenario in NETWORK_SCENARIOS or str(scenario).endswith((".toml", ".json")):
        return _network_cosim(alpha, beta, scenario, model, d0, buffer_bdp, C, N, t_end)
    if scenario == FLASH_CROWD.name:
        return _flash_crowd(alpha, beta, model, d0, buffer_bdp, C, N, t_end, seed)
    for option, value in (("C", C), ("N", N)):
        if value is not None:
            raise InputError(f"--{option}: only for the flash-crowd scenario")
    return _single_link(alpha, beta, scenario, model, d0, buffer_bdp, t_end, transient_rtt, seed, start_jitter_s)


def _check_jitter_scenario(scenario) -> None:
    """--start-jitter is for the single-link presets (a topology file sets its own, the others are refused)."""
    if str(scenario).endswith((".toml", ".json")):
        raise InputError(f"--start-jitter: topology file {scenario} sets start_jitter_s per flow group")
    if _no_single_link_schedule(scenario):
        raise InputError(
            f"--start-jitter: scenario {scenario} is not a single-link preset (for a network, a topology "
            "file sets start_jitter_s per flow group)"
        )


def _no_single_link_schedule(scenario) -> bool:
    """The presets without one link's start schedule to jitter: the flash crowd and the networks."""
    from ..cosim.network import NETWORK_SCENARIOS
    from ..packet.simulator.scenarios import FLASH_CROWD

    return scenario == FLASH_CROWD.name or scenario in NETWORK_SCENARIOS


def _check_model(model, packet_protocols) -> None:
    from ..models import get_model, is_model_path
    from ..packet.protocols.registry import model_protocol

    protocols = packet_models()
    if model not in (*protocols, *packet_protocols) and not (is_model_path(model) and model_protocol(get_model(model))):
        raise InputError(f"--model {model}: the packet simulator runs {', '.join(protocols)}")


def _single_link(alpha, beta, scenario, model, d0, buffer_bdp, t_end, transient_rtt, seed, start_jitter_s=None):
    from ..cosim.network import NETWORK_SCENARIOS
    from ..cosim.packet_vs_fluid import cosimulate
    from ..packet.simulator.scenarios import get_scenario
    from ..runtime.validation import check_integer

    spec = get_scenario(scenario, also=tuple(NETWORK_SCENARIOS))
    buffer = (
        None if buffer_bdp is None else check_integer("buffer_bytes", max(int(round(buffer_bdp * spec.bdp_bytes)), 1), "--buffer")
    )  # never wraps in C
    overrides = {"rtt_s": d0, "buffer_bytes": buffer, "start_jitter_s": start_jitter_s}
    spec = dataclasses.replace(spec, **{k: v for k, v in overrides.items() if v is not None})
    spec.validate()  # a jitter past a flow's stop
    _check_length(spec, d0, t_end, transient_rtt)
    result = cosimulate(spec, alpha, beta, seed=seed, t_end=t_end, transient_rtt=transient_rtt, model=model)
    return CosimResult(result, kind="single-link", model=model, transient_rtt=transient_rtt)


def _check_length(scenario, d0, t_end, transient_rtt) -> None:
    """Refuse a run too short to compare (every plateau would be NaN) or too long to hold in memory."""
    from ..packet.simulator.segments import flow_segments
    from ..runtime.validation import check_run_cost

    given = " ".join(f"--{o} {v:g}" for o, v in (("d0", d0), ("t-end", t_end)) if v is not None) or f"scenario {scenario.name}"
    t_end = scenario.t_end_s if t_end is None else t_end
    transient = transient_rtt * scenario.rtt_s
    for segment in flow_segments(scenario, t_end):
        if segment.stop_s - segment.start_s <= transient:
            raise InputError(
                f"{given}: the {segment.n_flows}-flow stretch {segment.start_s:g}-{segment.stop_s:g} s "
                f"is not longer than the transient ({transient_rtt:g} RTTs = {transient:g} s), so "
                "there is nothing to compare; use a longer --t-end, a shorter --d0 or a smaller "
                "--transient-rtt"
            )
    samples = t_end / min(scenario.rtt_s, 0.01)
    check_run_cost(f"cosim --t-end {t_end:g}", samples * CPU_S_PER_SAMPLE, samples * TRACE_BYTES_PER_SAMPLE)


def _flash_crowd(alpha, beta, model, d0, buffer_bdp, C, N, t_end, seed):
    from ..cosim.flash_crowd import check_flash_crowd, flash_crowd_cosim
    from ..packet.simulator.scenarios import FLASH_CROWD, flash_crowd

    if t_end is not None:
        raise InputError("--t-end: the flash-crowd scenario runs 40 RTTs before and 80 after the crowd")
    default = FLASH_CROWD
    capacity = default.capacity_bps if C is None else C
    rtt = default.rtt_s if d0 is None else d0
    flows = default.n_flows(0.0) if N is None else N
    # the domain table and the run-cost limits (a 1e6-flow crowd took 279 s and 4.5 GB)
    check_flash_crowd(capacity, rtt, flows, 1.0 if buffer_bdp is None else buffer_bdp, options=("--C", "--d0", "--N", "--buffer"))
    scenario = flash_crowd(capacity, rtt, flows, buffer_bdp=1.0 if buffer_bdp is None else buffer_bdp)
    result = flash_crowd_cosim(scenario, alpha, beta, seed=seed, model=model)
    return CosimResult(result, kind="flash-crowd", model=model, flows=flows, rtt=rtt)


def _network_cosim(alpha, beta, scenario, model, d0, buffer_bdp, C, N, t_end):
    from ..cosim.network import NETWORK_SCENARIOS, NETWORK_T_END_S, cosimulate_network
    from ..cosim.network_cost import network_run_cost
    from ..packet.simulator.topofile import load_topology
    from ..runtime.validation import check_run_cost

    if model != "rcp":
        raise InputError(f"--model {model}: scenario {scenario} runs rcp only")
    for option, value in (("d0", d0), ("buffer", buffer_bdp), ("C", C), ("N", N)):
        if value is not None:
            raise InputError(f"--{option}: does not apply to the network scenario {scenario}")
    # a preset's network, or the file: one read gives its run length and its cost
    target = NETWORK_SCENARIOS[scenario]() if scenario in NETWORK_SCENARIOS else load_topology(scenario)
    if t_end is None and str(scenario).endswith((".toml", ".json")):
        t_end = target.t_end_s
    t_end = NETWORK_T_END_S if t_end is None else t_end
    check_run_cost(f"cosim --scenario {scenario} --t-end {t_end:g}", *network_run_cost(target, t_end))
    result = cosimulate_network(scenario, alpha, beta, t_end=t_end)
    return CosimResult(result, kind="network", model=model, t_end=t_end)


def _replications(alpha, beta, scenario, model, seeds, t_end, unused, transient_rtt, start_jitter_s):
    from ..runtime.validation import check_integer, check_run_cost

    seeds = check_integer("seeds", seeds, "--seeds")
    if not str(scenario).endswith((".toml", ".json")):
        return _preset_replications(alpha, beta, scenario, model, seeds, t_end, unused, transient_rtt, start_jitter_s)
    from ..cosim.network_cost import network_run_cost
    from ..cosim.replications import replicate_topology
    from ..packet.simulator.topofile import load_topology

    if model != "rcp":
        raise InputError(f"--model {model}: topology files run rcp only")
    if any(value is not None for value in unused):
        raise InputError("--d0/--buffer/--C/--N: do not apply to a topology file")
    spec = load_topology(scenario)
    t_end = spec.t_end_s if t_end is None else t_end
    # one packet run of the file per seed, one after the other (each keeps only its averages)
    cpu_s, memory_bytes = network_run_cost(spec, t_end, fluid=False)
    check_run_cost(f"cosim --scenario {scenario} --seeds {seeds} --t-end {t_end:g}", seeds * cpu_s, memory_bytes)
    return ReplicationsResult(replicate_topology(scenario, alpha, beta, seeds, t_end), scenario=scenario, alpha=alpha, beta=beta)


def _preset_replications(alpha, beta, scenario, model, seeds, t_end, unused, transient_rtt, start_jitter_s):
    """A single-link preset's co-simulation over seeds, each drawing the flows' start jitter."""
    from ..cosim.replications import replicate_scenario
    from ..packet.simulator.scenarios import get_scenario
    from ..runtime.validation import check_run_cost

    if _no_single_link_schedule(scenario):
        raise InputError(
            f"--seeds: scenario {scenario} has no random input to replicate (single-link presets with "
            "--start-jitter, or a topology file with start_jitter_s)"
        )
    if start_jitter_s is None or start_jitter_s == 0:
        raise InputError(
            f"--seeds: scenario {scenario} is deterministic (every seed runs the same); give "
            "--start-jitter S (each flow starts within S seconds of its scripted time, from the seed)"
        )
    if any(value is not None for value in unused):
        raise InputError("--d0/--buffer/--C/--N: not with --seeds (the preset runs as it is)")
    spec = get_scenario(scenario)
    _check_length(spec, None, t_end, transient_rtt)
    run_t = spec.t_end_s if t_end is None else t_end
    samples = run_t / min(spec.rtt_s, 0.01)
    check_run_cost(f"cosim --scenario {scenario} --seeds {seeds} --t-end {run_t:g}", seeds * samples * CPU_S_PER_SAMPLE)
    result = replicate_scenario(spec, alpha, beta, seeds, start_jitter_s, t_end=t_end, transient_rtt=transient_rtt, model=model)
    return ReplicationsResult(result, scenario=scenario, alpha=alpha, beta=beta, start_jitter_s=start_jitter_s)


class ReplicationsResult(Result):
    """Packet runs of a topology file over seeds (:class:`~rcpstab.cosim.replications.Replications` in
    ``.value``): per quantity, the mean and its confidence interval; ``kind`` is ``"replications"``."""

    command = "cosim"
    kind = "replications"

    def to_dict(self) -> dict:
        r = self.value
        jitter = {} if self.inputs.get("start_jitter_s") is None else {"start_jitter_s": self.inputs["start_jitter_s"]}
        return strict(
            {
                "scenario": self.inputs["scenario"],
                "alpha": self.inputs["alpha"],
                "beta": self.inputs["beta"],
                "seeds": r.seeds,
                **jitter,
                "confidence": r.confidence,
                "late_from_s": r.late_from_s,
                "quantities": r.summary(),
                "values": {k: v for k, v in r.values.items()},
            }
        )

    def columns(self) -> dict:
        rows = self.value.summary()
        cols = {"quantity": list(rows)}
        for key in ("mean", "std", "ci_low", "ci_high", "n"):
            cols[key] = [row[key] for row in rows.values()]
        return cols

    def differences(self) -> list[str]:
        return []

    def summary(self) -> str:
        r = self.value
        parts = [f"{k} {v['mean']:.4g} [{v['ci_low']:.4g}, {v['ci_high']:.4g}]" for k, v in r.summary().items()]
        window = (
            f"start jitter {self.inputs['start_jitter_s']:g} s, means over seeds"
            if r.late_from_s is None
            else f"means after {r.late_from_s:g} s"
        )
        runs = "packet runs" if r.late_from_s is not None else "co-simulations"
        return (
            f"{self.inputs['scenario']} alpha={self.inputs['alpha']:g} beta={self.inputs['beta']:g}, "
            f"{len(r.seeds)} {runs} (seeds 0..{len(r.seeds) - 1}), {window} with "
            f"{100 * r.confidence:g}% intervals: " + ", ".join(parts)
        )

    def plot(self, ax=None, **kwargs):
        raise InputError("--out: replications have no figure (see --json or --csv)")

    def save(self, path: str) -> None:
        self.plot()


class CosimResult(Result):
    """A co-simulation of any kind: ``.value`` is the engine's result (``CosimResult``, ``FlashCrowdResult``
    or ``NetworkCosimResult`` of :mod:`rcpstab.cosim`), ``.kind`` says which."""

    command = "cosim"

    @property
    def kind(self) -> str:
        return self.inputs["kind"]

    def to_dict(self) -> dict:
        return strict(self.value.summary())

    def columns(self) -> dict:
        r = self.value
        if self.kind == "single-link":
            return {
                "t_s": r.t,
                "packet_R_over_C": r.packet_R_over_C,
                "fluid_R_over_C": r.fluid_R_over_C,
                "packet_queue_bytes": r.packet_queue_bytes,
                "fluid_queue_bytes": r.fluid_queue_bytes,
            }
        if self.kind == "network":
            cols = r.columns()
            return {("t_s" if k == "t" else k): v for k, v in cols.items()}
        # flash crowd: the two runs have different grids, so one row per sample of either run (long format)
        parts: dict[str, list[Any]] = {"run": [], "t_s": [], "R_over_C": [], "queue_bdp": [], "dropped_bdp": []}
        for side in ("fluid", "packet"):
            t = np.asarray(getattr(r, f"{side}_t"), dtype=float)
            parts["run"] += [side] * t.size
            parts["t_s"] += list(t)
            for q in ("R_over_C", "queue_bdp", "dropped_bdp"):
                parts[q] += list(np.asarray(getattr(r, f"{side}_{q}"), dtype=float))
        return parts

    def to_csv(self, path: str) -> None:
        if self.kind == "flash-crowd":
            raise InputError("--csv: the flash-crowd scenario writes --json and --out (the runs have different grids)")
        self.value.to_csv(path)

    def differences(self) -> list[str]:
        """Flash crowd: each disagreement beyond the agreement limit, with its measured cause (else empty)."""
        return list(self.to_dict().get("differences", [])) if self.kind == "flash-crowd" else []

    def summary(self) -> str:
        r, model = self.value, self.inputs["model"]
        if self.kind == "single-link":
            tr = self.inputs["transient_rtt"]
            plateaus = ", ".join(f"{s.packet_plateau:.4g}/{s.fluid_plateau:.4g}" for s in r.segments)
            return (
                f"{r.scenario.name} {model} alpha={r.alpha:g} beta={r.beta:g}: R/C plateaus packet/fluid "
                f"{plateaus}; RMS difference outside transients {r.rms_R_over_C:.3g} "
                f"({100 * r.rms_relative:.2g}% of eta/N; the first {tr:g} RTTs after each flow-count change left out)"
            )
        if self.kind == "flash-crowd":
            from ..cosim.flash_crowd import AGREEMENT

            f, p, sc = r.fluid, r.packet, r.scenario

            def rec(x):
                return f"{x.recovery_rtt:.3g} RTTs" if x.reason is None else "not recovered"

            differences = self.differences()
            agreement = (
                f"; {len(differences)} difference(s) beyond {AGREEMENT:.0%}, each with its measured cause above"
                if differences
                else f"; they agree within {AGREEMENT:.0%}"
            )
            return (
                f"flash crowd ({model}, alpha={r.alpha:g}, beta={r.beta:g}) at "
                f"{sc.capacity_bps / 1e6:.4g} Mb/s, {self.inputs['rtt'] * 1000:.4g} ms, N {self.inputs['flows']} -> "
                f"{sc.n_flows(r.crowd_s)}, buffer {sc.effective_buffer_bytes / sc.bdp_bytes:.3g} "
                f"C*d0: fluid/packet peak queue {f.peak_queue_bdp:.3g}/{p.peak_queue_bdp:.3g} C*d0, dropped "
                f"{f.dropped_bdp:.3g}/{p.dropped_bdp:.3g} C*d0, recovery {rec(f)}/{rec(p)}{agreement}"
            )
        s = self.to_dict()
        p, f = s["packet"], s["fluid"]
        rates = ", ".join(
            f"{L} {p[f'{L}_final_rate_bps'] / 1e6:.4g}/{f[f'{L}_final_rate_bps'] / 1e6:.4g} Mb/s "
            f"(target {f[f'{L}_target_rate_bps'] / 1e6:.4g})"
            for L in r.judged_links
        )
        return (
            f"{r.scenario} alpha={r.alpha:g} beta={r.beta:g} after {self.inputs['t_end']:g} s, packet/fluid: "
            f"{rates}, RTT estimate at {r.judged_links[0]} {p['rtt_final_s']:.4g}/{f['rtt_final_s']:.4g} s "
            f"(target {f['rtt_target_s']:.4g})" + off_target_links(p, "packet: ") + off_target_links(f, "fluid: ")
        )

    def _repr_text(self) -> str:
        if self.kind == "flash-crowd":  # the engine's result is a dataclass whose repr prints the traces
            r = self.value
            return (
                f"kind='flash-crowd', model={self.inputs['model']!r}, alpha={r.alpha:g}, beta={r.beta:g}, "
                f"peak queue fluid/packet {r.fluid.peak_queue_bdp:.3g}/{r.packet.peak_queue_bdp:.3g} C*d0, "
                f"{len(self.differences())} difference(s)"
            )
        text = repr(self.value)
        return f"kind={self.kind!r}, " + text[text.index("(") + 1 : -1]

    def plot(self, ax=None, **kwargs):
        return self.value.plot() if self.kind == "network" else self.value.plot(ax)

    def save(self, path: str) -> None:
        if self.kind == "single-link":
            from ..cosim.plot import save_cosim_figure

            save_cosim_figure(self.value, path)
        elif self.kind == "flash-crowd":
            from ..cosim.plot import save_flash_crowd_figure

            save_flash_crowd_figure(self.value, path)
        else:
            from ..cosim.network_plot import save_network_cosim_figure

            save_network_cosim_figure(self.value, path)


def off_target_links(summary: dict, label: str = "") -> str:
    """``"; L1 ends 42% below its max-min target (outside the 2% band at the end of the run...)"`` or ''.

    ``summary`` has ``<L>_final_error`` (relative) per link, as the network summaries do.
    """
    from ..verdicts.band import STANDARD

    off = [
        (key[: -len("_final_error")], value)
        for key, value in summary.items()
        if key.endswith("_final_error") and value is not None and abs(value) > STANDARD.rate
    ]
    if not off:
        return ""
    words = ", ".join(f"{link} ends {100 * abs(err):.2g}% {'below' if err < 0 else 'above'}" for link, err in off)
    return (
        f"; {label}{words} its max-min target (outside the {STANDARD.rate_percent} band at the end of the run: "
        "not settled, or settled elsewhere; see --json)"
    )


NETWORK_SCENARIOS = ("fig5.7",)


def network(alpha: float, beta: float, scenario: str = "fig5.7", t_end: float = 400.0):
    """RCP's fluid model on a multi-link network scenario (thesis Fig. 5.7, Figs. 5.8-5.9).

    Parameters
    ----------
    alpha, beta : float
        RCP's gains (> 0, dimensionless).
    scenario : {"fig5.7"}
        The network: thesis Fig. 5.7's three links.
    t_end : float
        Simulated time, s (default 400: 20 round trips of the long flow; at least 1).

    Returns
    -------
    NetworkResult
        ``.value`` is the :class:`~rcpstab.network.fluid.NetworkRun`; ``to_dict()`` its convergence summary
        (rates in bit/s, times in s).

    Examples
    --------
    L3 (100 Mb/s) is shared max-min fairly by Fig. 5.7's 49 short flows: 100/49 Mb/s each.

    >>> r = network(0.4, 0.2, t_end=40)
    >>> d = r.to_dict()
    >>> d["L3_verdict"], round(d["L3_final_rate_bps"] / (100e6 / 49), 4)
    ('converged', 1.0)
    """
    from ..network.fig57 import simulate_fig57
    from ..network.fluid import fluid_run_cost
    from ..network.topology import fig57
    from ..runtime.validation import check_run_cost, check_value

    if not isinstance(scenario, str) or scenario not in NETWORK_SCENARIOS:  # type: ignore[redundant-expr]  # callers without type checking pass anything
        raise InputError(f"--scenario {str(scenario)[:80]!r}: choose from {', '.join(NETWORK_SCENARIOS)}")
    alpha, beta = check_value("alpha", alpha, "--alpha"), check_value("beta", beta, "--beta")
    t_end = check_value("t_end", t_end, "--t-end")
    if not t_end >= MIN_T_END_S:
        raise InputError(f"--t-end {t_end:g}: too short to summarize (at least {MIN_T_END_S:g} s)")
    check_run_cost(f"network --t-end {t_end:g}", *fluid_run_cost(fig57(), t_end))
    return NetworkResult(simulate_fig57(alpha, beta, t_end=t_end), scenario=scenario, t_end=t_end, alpha=alpha, beta=beta)


class NetworkResult(Result):
    """A multi-link fluid run (:class:`~rcpstab.network.fluid.NetworkRun` in ``.value``) and its summary."""

    command = "network"

    def _summary(self) -> dict:
        from ..network.convergence import summarize

        (summary,) = summarize(self.value)
        return summary

    def to_dict(self) -> dict:
        strict_summary = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in self._summary().items()}
        return strict({"scenario": self.inputs["scenario"], "t_end_s": self.inputs["t_end"], **strict_summary})

    def columns(self) -> dict:
        r = self.value
        l1, l3 = r.link("L1"), r.link("L3")
        return {
            "t_s": r.t,
            "L1_rate_bps": r.rate[:, l1, 0],
            "L3_rate_bps": r.rate[:, l3, 0],
            "L1_avg_rtt_s": r.avg_rtt[:, l1, 0],
            "L1_rtt_sample_s": r.rtt_sample[:, l1, 0],
            "L1_queue_bits": r.queue[:, l1, 0],
            "L3_queue_bits": r.queue[:, l3, 0],
        }

    def to_csv(self, path: str) -> None:
        import csv

        from ..runtime.atomic import atomic_open

        cols = self.columns()
        with atomic_open(path) as fh:  # a full disk leaves the old file, not a torn one
            writer = csv.writer(fh)
            writer.writerow(cols)
            for row in zip(*cols.values()):
                writer.writerow([repr(float(v)) for v in row])

    def summary(self) -> str:
        s = self._summary()
        i = self.inputs
        return (
            f"{i['scenario']} at alpha={i['alpha']:g}, beta={i['beta']:g} after {i['t_end']:g} s: "
            f"L1 {s['L1_final_rate_bps'] / 1e6:.4g} Mb/s (target {s['L1_target_rate_bps'] / 1e6:.4g}), "
            f"L3 {s['L3_final_rate_bps'] / 1e6:.4g} Mb/s (target {s['L3_target_rate_bps'] / 1e6:.4g}), "
            f"RTT estimate at L1 {s['rtt_final_s']:.4g} s (target {s['rtt_target_s']:.4g})" + off_target_links(s)
        )

    def plot(self, ax=None, **kwargs):
        from ..network.plotting import network_plot

        return network_plot(self.value, **kwargs)

    def save(self, path: str) -> None:
        from ..network.plotting import save_network_figure

        save_network_figure(self.value, path)
