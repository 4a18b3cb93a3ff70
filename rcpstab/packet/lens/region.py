"""Packet-level stable region: the reference router run on a scenario at every (alpha, beta).

Each grid point runs the scenario (default ``fig5.3``) packet by packet and is judged one
flow-count segment at a time, each against its own equilibrium; the point's verdict is its
worst segment's. Paced flows keep a standing queue of a packet or two, which the rate law
balances (alpha*(eta*C - y) = beta*q/d) by settling R/C 1-3% below eta/N: the segment's
equilibrium is that fixed point (q_e = the mean one-RTT-mean queue over the segment's second
half, R_e = (eta*C - beta*q_e/(alpha*d*C))/N; ``diverged`` if that is <= 0). Segments are judged
by the shared judgement with the trace's measured noise floor
(:func:`~rcpstab.packet.lens.verdicts.judge_segment`; its constants come from first
principles, none was fitted to a map).

Next to each packet verdict the map gives the verdict of the fluid model that should match
the packet runs (:data:`FLUID_MODELS`; for RCP ``rcp-router``, the fluid model with the
router's timing) on the same scenario and initial conditions, sampled once per control
interval and judged segment by segment alike (:func:`fluid_verdicts`). Measured agreements
and every disagreement with the experiment that explains it: ``experiments/packet_region.py``
and docs notebook 05.

Chunks of points run on local processes (:func:`~rcpstab.runtime.executors.run_chunks`) and
are checkpointed as they finish (:class:`~rcpstab.runtime.checkpoint.Checkpoint`).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from tqdm import tqdm

from ...errors import InputError
from ...linear.result import RegionMap
from ...models import as_model
from ...phaseplane.sweep import _SEVERITY, phaseplane_region
from ...phaseplane.verdicts import CONVERGED, DIVERGED, UNDECIDED, VERDICTS
from ...runtime.checkpoint import Checkpoint, chunk_key
from ...runtime.executors import run_chunks
from ...verdicts.band import STANDARD, Band
from ..protocols.registry import get_protocol, model_protocol
from ..simulator.run import PROTOCOLS, PacketRun, run_scenario
from ..simulator.scenarios import Scenario, get_scenario
from ..simulator.segments import control_interval_s, flow_segments, rtt_average
from .fluid_twin import fluid_run
from .verdicts import judge_segment

DEFAULT_SCENARIO = "fig5.3"
POINTS_PER_CHUNK = 10  # ~1 s of work per chunk at fig5.3: small enough to checkpoint often
RESULT_VERSION = 7  # bump when code changes alter chunk results (the band is in the key by itself)
FIG53_BETA = 0.6  # thesis Fig. 5.3: at beta = 0.6 the system is stable so long as alpha <= 1.2
FIG53_ALPHA_MAX = 1.2
FLUID_MODEL = "rcp-router"  # the fluid model with the router's timing: what the packet map should match
FLUID_MODELS = {"rcp": FLUID_MODEL, "xcp": "xcp", "rcpac": "rcpac"}  # packet protocol -> fluid model it should match
# fluid models whose packet runs are another protocol's router
PACKET_ROUTER = {"rcp-router": "rcp", "rcpac-router": "rcpac"}


def _window_senders(protocol: str) -> bool:
    """Whether the protocol's hosts are window senders (XCP's), whose traces have a window quantum."""
    return get_protocol(protocol).sender == "xcp"


def segment_verdict(run: PacketRun, start_s: float, stop_s: float, n_flows: int, band: Band = STANDARD) -> tuple[int, float]:
    """Verdict code and convergence time (RTTs from ``start_s``) of one segment of a packet run.

    Parameters
    ----------
    run : PacketRun
    start_s, stop_s : float
        The segment, seconds; ``n_flows`` (>= 1) long-lived flows are active throughout.
    band : Band
        The convergence band (widened to the trace's noise floor).
    """
    return trace_segment_verdict(
        run.scenario,
        run.alpha,
        run.beta,
        run.t,
        run.R_over_C,
        run.queue_bytes * 8.0,
        start_s,
        stop_s,
        n_flows,
        rate_offset=run.protocol != "xcp",
        window_input=_window_senders(run.protocol),
        band=band,
    )


def trace_segment_verdict(
    scenario: Scenario,
    alpha: float,
    beta: float,
    t_s: np.ndarray,
    gamma: np.ndarray,
    queue_bits: np.ndarray,
    start_s: float,
    stop_s: float,
    n_flows: int,
    noisy: bool = True,
    rate_offset: bool = True,
    window_input: bool = False,
    band: Band = STANDARD,
) -> tuple[int, float]:
    """:func:`segment_verdict` on any trace sampled once per control interval (packet or fluid).

    Parameters
    ----------
    t_s, gamma, queue_bits : ndarray
        Sample times (s), R/C and the queue (bits), one sample per control interval.
    noisy : bool
        A packet trace (True) or a fluid one (False): see
        :func:`~rcpstab.packet.lens.verdicts.judge_segment`.
    rate_offset : bool
        The standing queue lowers the equilibrium rate (RCP's rate law reads the queue). False for
        XCP, whose router feeds back the smallest queue of the interval, about 0 with a standing
        queue of a packet or two: its equilibrium stays eta/N.
    window_input : bool
        The ``n_flows`` senders are windows (XCP's and RCP-AC's hosts): the trace (XCP's y/(N C),
        RCP-AC's R/C, which they turn into whole packets per RTT) has their window quantum as a
        floor (:func:`~rcpstab.packet.lens.verdicts.judge_segment`).
    band : Band
        The convergence band.
    """
    sc = scenario
    inside = (t_s >= start_s) & (t_s < stop_s)
    # samples per RTT from the trace itself: RCP's router samples every min(d0, 10 ms), XCP's once
    # per control interval, its average RTT (one sample per RTT, not 10 at fig5.3)
    steps = np.diff(np.asarray(t_s, dtype=float)[inside])
    step = float(np.median(steps)) if steps.size else control_interval_s(sc)
    per_rtt = max(int(round(sc.rtt_s / step)), 1)
    queue = np.asarray(queue_bits, dtype=float)[inside]
    # A paced packet equilibrium keeps a standing queue (measured); the fluid model's is q = 0 exactly.
    queue_eq = float(rtt_average(queue, per_rtt)[queue.size // 2 :].mean()) if noisy else 0.0
    delay = sc.rtt_s + queue_eq / sc.capacity_bps
    offset = beta * queue_eq / (alpha * delay * sc.capacity_bps) if rate_offset else 0.0
    gamma_eq = (sc.eta - offset) / n_flows
    if gamma_eq <= 0:  # the standing queue alone drives the rate law to zero: no equilibrium to settle at
        return DIVERGED, math.nan
    return judge_segment(
        t_s[inside] - start_s,
        np.asarray(gamma)[inside],
        queue,
        gamma_eq,
        queue_eq,
        sc.rtt_s,
        sc.capacity_bps,
        per_rtt,
        8.0 * sc.packet_bytes,
        noisy,
        n_flows if window_input else 0,
        band,
    )


def trace_verdict(
    scenario: Scenario,
    alpha: float,
    beta: float,
    t_s: np.ndarray,
    gamma: np.ndarray,
    queue_bits: np.ndarray,
    noisy: bool = True,
    rate_offset: bool = True,
    window_input: bool = False,
    band: Band = STANDARD,
) -> tuple[int, float]:
    """Worst verdict over a trace's segments with flows, and the slowest convergence (NaN unless all converged).

    ``noisy``, ``rate_offset``, ``window_input``, ``band``: see :func:`trace_segment_verdict`.
    """
    judged = [
        trace_segment_verdict(
            scenario,
            alpha,
            beta,
            t_s,
            gamma,
            queue_bits,
            seg.start_s,
            seg.stop_s,
            seg.n_flows,
            noisy,
            rate_offset,
            window_input,
            band,
        )
        for seg in flow_segments(scenario, float(t_s[-1]) + 1e-9)
        if seg.n_flows >= 1
    ]
    codes = [code for code, _ in judged]
    worst = max(codes, key=lambda c: _SEVERITY[c]) if codes else UNDECIDED
    all_converged = bool(codes) and all(c == CONVERGED for c in codes)
    return worst, (max(t for _, t in judged) if all_converged else math.nan)


def run_verdict(run: PacketRun, band: Band = STANDARD) -> tuple[int, float]:
    """Worst verdict over the run's segments with flows, and the slowest convergence (NaN unless all converged)."""
    return trace_verdict(
        run.scenario,
        run.alpha,
        run.beta,
        run.t,
        run.R_over_C,
        run.queue_bytes * 8.0,
        rate_offset=run.protocol != "xcp",
        window_input=_window_senders(run.protocol),
        band=band,
    )


def fluid_verdicts(
    scenario: Scenario, alphas, betas, model: str = FLUID_MODEL, band: Band = STANDARD
) -> tuple[np.ndarray, np.ndarray]:
    """The router-timed fluid model on the packet run's network and initial conditions, judged alike.

    Every (alpha, beta) is one trajectory of one batch: the scenario's C, d0, eta, MTU, its flow
    schedule as N(t), T = the router's interval min(d0, 10 ms), R(0)/C and q(0) = 0 as the
    router starts (:func:`~rcpstab.packet.lens.fluid_twin.fluid_run`). Each trajectory is sampled
    once per control interval, as the router's trace is, and judged segment by segment like the
    packet trace (:func:`trace_verdict`), by the shared judgement down to its numerical floor: a
    fluid trace has no noise, so a slow growth inside the band is growth, not convergence.

    Returns
    -------
    codes, convergence_rtt : ndarray
        One verdict code and convergence time (RTTs, NaN unless converged) per point.
    """
    alphas = np.asarray(alphas, dtype=float)
    betas = np.asarray(betas, dtype=float)
    traj = fluid_run(scenario, alphas, betas, scenario.t_end_s, model)
    interval = control_interval_s(scenario)
    every = max(int(round(interval / traj.dt)), 1)
    t_s = traj.t[every::every]
    # R/C of the scenario's C: a user's fluid model may scale its rate by another capacity (traj.capacity)
    gamma = traj.gamma[every::every] * (traj.capacity / scenario.capacity_bps)
    if model in ("xcp", "xcp-router"):  # XCP has no router rate: y/(N(t) C), as the packet map judges it
        flows = np.maximum([scenario.n_flows(x) for x in t_s], 1)
        gamma = traj.states["y"][every::every] / (flows[:, None] * scenario.capacity_bps)
    judged = [
        trace_verdict(scenario, a, b, t_s, gamma[:, i], traj.queue[every::every, i], noisy=False, band=band)
        for i, (a, b) in enumerate(zip(alphas, betas))
    ]
    return np.array([c for c, _ in judged], dtype=int), np.array([t for _, t in judged], dtype=float)


def solve_points(
    scenario: Scenario, alphas: list, betas: list, seed: int, protocol="rcp", band: Band = STANDARD, seeds: int | None = None
) -> dict:
    """Run and judge each (alpha, beta) point of a chunk (runs in a worker).

    ``protocol``: a registered name, or the ModelSpec of a user's protocol file (a worker process
    loads the file and registers its packet protocol). ``seeds``: run each point with seeds
    ``seed .. seed + seeds - 1`` (None: once, with ``seed``).

    Returns
    -------
    dict
        ``codes`` (verdict codes) and ``convergence_rtt`` (RTTs, NaN unless converged): one per point,
        or one list over the seeds per point.
    """
    if not isinstance(protocol, str):
        protocol = model_protocol(protocol).name

    def judged(a, b, s):
        return run_verdict(run_scenario(scenario, a, b, seed=s, protocol=protocol), band)

    if seeds is None:
        results = [judged(a, b, seed) for a, b in zip(alphas, betas)]
        return {"codes": [c for c, _ in results], "convergence_rtt": [t for _, t in results]}
    results = [[judged(a, b, seed + k) for k in range(seeds)] for a, b in zip(alphas, betas)]
    return {
        "codes": [[c for c, _ in point] for point in results],
        "convergence_rtt": [[t for _, t in point] for point in results],
    }


def packet_region(
    model,
    alphas,
    betas,
    scenario: str | Scenario | None = None,
    workers: int = 1,
    checkpoint: str | None = None,
    progress: bool = False,
    seed: int = 0,
    band: Band = STANDARD,
    seeds: int | None = None,
    start_jitter_s: float | None = None,
) -> RegionMap:
    """Stable region of the RCP reference implementation by packet-level simulation.

    Parameters
    ----------
    model : ModelSpec
        ``rcp`` (or ``rcp-router``), ``xcp`` or ``rcpac``: the router and senders the packet runs
        use. For ``xcp`` the judged "R/C" is y/(N*C), judged against eta/N (its router feeds back
        the smallest queue of the interval, so a standing queue does not lower y).
    alphas, betas : array_like
        Grid axes (> 0).
    scenario : str or Scenario, optional
        Default ``fig5.3``.
    workers : int
        Local processes.
    checkpoint : str, optional
        File of finished chunks: read on start, appended as chunks finish.
    progress : bool
        Show a progress bar (on stderr).
    seed : int
        Seed of every run (it draws Poisson arrivals and the start jitter; the bundled scenarios have
        neither, so by default the map is deterministic); with ``seeds``, the first seed.
    band : Band
        The convergence band (widened per trace to its noise floor); part of every chunk's key.
    seeds : int, optional
        Replications (>= 2): every point runs with seeds ``seed .. seed + seeds - 1``, each drawing the
        flows' start jitter, and the table gives per point the fraction of seeds that converged with its
        95% Wilson interval and the mean convergence time with its 95% Student-t interval
        (:mod:`~rcpstab.packet.lens.seeded`). A point is ``stable`` when every seed converged; its
        ``verdict`` is the worst seed's.
    start_jitter_s : float, optional
        Each scripted flow starts up to this much later (uniform, s, from the seed). Default: none, or one
        round trip d0 of the scenario with ``seeds``.

    Returns
    -------
    RegionMap
        ``table``: alpha, beta, stable, verdict, convergence_rtt, and fluid_stable, fluid_verdict:
        the fluid model that should match the packet runs (:data:`FLUID_MODELS`: ``rcp-router``
        for RCP) on the same scenario, judged alike (:func:`fluid_verdicts`). ``meta`` adds
        ``fluid_model``, ``fluid_agreement`` (fraction of points with the same stable verdict)
        and ``fluid_disagreements``.
    """
    model = as_model(model)  # a name works too; anything else is an InputError
    user = model_protocol(model)  # a user's protocol file may define its packet protocol beside its model
    router = user.name if user else PACKET_ROUTER.get(model.name, model.name)
    if router not in PROTOCOLS:
        raise InputError(f"--model {model.name}: the packet method runs {', '.join(PROTOCOLS)} routers")
    scripted = scenario = get_scenario(scenario or DEFAULT_SCENARIO)
    if seeds is not None and not (isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool) and seeds >= 2):
        raise InputError(f"--seeds {seeds!r}: at least 2 for a confidence interval")
    if start_jitter_s is not None or seeds is not None:
        jitter = scenario.rtt_s if start_jitter_s is None else start_jitter_s
        if not (isinstance(jitter, (int, float)) and math.isfinite(jitter) and jitter >= 0):
            raise InputError(f"--start-jitter {jitter!r}: must be a finite number of seconds >= 0")
        scenario = dataclasses.replace(scenario, start_jitter_s=float(jitter))
        scenario.validate()
    alphas = np.asarray(alphas, dtype=float)
    betas = np.asarray(betas, dtype=float)
    if workers < 1:
        raise InputError(f"workers={workers}: must be at least 1")
    aa, bb = (m.ravel() for m in np.meshgrid(alphas, betas))
    bad = np.concatenate([aa[~(aa > 0)], bb[~(bb > 0)]])
    if bad.size:
        raise InputError(f"gain {bad[0]!r}: alpha and beta must be > 0")
    parts = [slice(s, s + POINTS_PER_CHUNK) for s in range(0, aa.size, POINTS_PER_CHUNK)]
    described = dataclasses.asdict(scenario)
    if not described["start_jitter_s"]:
        del described["start_jitter_s"]  # a scenario without jitter keeps the keys it had before jitter existed
    # The protocol and the replications join the key only when used, so existing rcp checkpoints stay valid.
    protocol = {} if router == "rcp" else {"protocol": router}
    replications = {} if seeds is None else {"seeds": int(seeds)}
    keys = [
        chunk_key(
            {
                "method": "packet",
                "scenario": described,
                "alpha": aa[p].tolist(),
                "beta": bb[p].tolist(),
                "seed": seed,
                "version": RESULT_VERSION,
                **band.key(),
                **protocol,
                **replications,
            }
        )
        for p in parts
    ]
    store = Checkpoint(checkpoint)
    todo = [i for i, key in enumerate(keys) if store.get(key) is None]
    tasks = [(scenario, aa[parts[i]].tolist(), bb[parts[i]].tolist(), seed, model if user else router, band, seeds) for i in todo]
    with tqdm(
        total=len(parts), initial=len(parts) - len(todo), disable=not progress, desc=f"packet {scenario.name}", unit="chunk"
    ) as bar:
        for j, result in run_chunks(solve_points, tasks, workers):
            store.save(keys[todo[j]], result)
            bar.update(1)
    codes = np.concatenate([store.get(key)["codes"] for key in keys]).astype(int)
    convergence = np.concatenate([store.get(key)["convergence_rtt"] for key in keys]).astype(float)
    replicated = {}
    if seeds is not None:  # (points, seeds): the worst seed's verdict, and the per-point statistics
        from .seeded import seeded_columns

        replicated = seeded_columns(codes == CONVERGED, convergence)
        codes = np.take_along_axis(codes, _SEVERITY[codes].argmax(axis=1)[:, None], axis=1)[:, 0]
        convergence = replicated.pop("convergence_rtt")
    # a user's packet protocol matches its own fluid model; a router-timed model asked for is its own column
    fluid_model = model if user else model.name if model.name in PACKET_ROUTER else FLUID_MODELS[router]
    fluid_codes, _ = fluid_verdicts(scripted, aa, bb, fluid_model, band)
    table = {
        "alpha": aa,
        "beta": bb,
        "stable": (codes == CONVERGED).astype(int),
        "verdict": np.asarray(VERDICTS, dtype=object)[codes],
        "convergence_rtt": convergence,
        **replicated,
        "fluid_stable": (fluid_codes == CONVERGED).astype(int),
        "fluid_verdict": np.asarray(VERDICTS, dtype=object)[fluid_codes],
    }
    same = (codes == CONVERGED) == (fluid_codes == CONVERGED)
    if seeds is not None:
        replicated = {"seeds": int(seeds), "start_jitter_s": scenario.start_jitter_s}
    meta = {
        "scenario": scenario.name,
        "seed": seed,
        **replicated,
        "verdict_counts": {name: int((codes == i).sum()) for i, name in enumerate(VERDICTS)},
        "chunks_total": len(parts),
        "chunks_computed": len(todo),
        "fluid_model": getattr(fluid_model, "name", fluid_model),
        "fluid_agreement": float(same.mean()),
        "fluid_disagreements": [
            {"alpha": float(a), "beta": float(b), "packet": VERDICTS[c], "fluid": VERDICTS[f]}
            for a, b, c, f, ok in zip(aa, bb, codes, fluid_codes, same)
            if not ok
        ],
    }
    stable = (codes == CONVERGED).reshape(betas.size, alphas.size)
    return RegionMap(model, "packet", alphas, betas, stable, table=table, meta=meta)


def phaseplane_counterpart(
    model, alphas, betas, scenario: str | Scenario | None = None, workers: int = 1, progress: bool = False
) -> RegionMap:
    """The phase-plane map of the scenario's set-up: its C, d0 and T, and every N it goes through.

    A point is stable there when it is stable for each of those N (App. E's initial conditions).
    The phase-plane sweep runs at eta = 1; for a scenario with another eta that is a difference.
    """
    scenario = get_scenario(scenario or DEFAULT_SCENARIO)
    flows = sorted({seg.n_flows for seg in flow_segments(scenario, scenario.t_end_s) if seg.n_flows >= 1})
    return phaseplane_region(
        model,
        alphas,
        betas,
        params={
            "C": [scenario.capacity_bps],
            "d0": [scenario.rtt_s],
            "N": [float(n) for n in flows],
            "T": control_interval_s(scenario),
        },
        workers=workers,
        progress=progress,
    )


def compare_maps(packet_map: RegionMap, phaseplane_map: RegionMap) -> dict:
    """How far two maps of the same grid agree.

    Returns
    -------
    dict
        ``agreement`` (fraction of grid points with the same stable/unstable verdict),
        ``points``, ``agree``, and the (alpha, beta) points stable in only one map:
        ``stable_packet_only``, ``stable_phaseplane_only``.
    """
    aa, bb = np.meshgrid(packet_map.alpha, packet_map.beta)
    fraction = packet_map.agreement(phaseplane_map)

    def only(mask):
        return [(round(float(a), 10), round(float(b), 10)) for a, b in zip(aa[mask], bb[mask])]

    return {
        "agreement": fraction,
        "points": int(packet_map.stable.size),
        "agree": int((packet_map.stable == phaseplane_map.stable).sum()),
        "stable_packet_only": only(packet_map.stable & ~phaseplane_map.stable),
        "stable_phaseplane_only": only(phaseplane_map.stable & ~packet_map.stable),
    }


def fig53_claim(region: RegionMap) -> dict:
    """Thesis Fig. 5.3's claim at beta = 0.6 (stable so long as alpha <= 1.2) against a map's row.

    Returns
    -------
    dict
        ``rows``: per alpha of the beta = 0.6 row, ``verdict``, ``stable`` and ``claimed`` (the
        thesis' expectation); ``matches``: how many agree; ``points``. Raises InputError if the
        map has no beta = 0.6 row.
    """
    row = np.flatnonzero(np.isclose(region.beta, FIG53_BETA))
    if row.size == 0:
        raise InputError(f"the map has no beta = {FIG53_BETA} row for the thesis' Fig. 5.3 check")
    j = int(row[0])
    verdicts = np.asarray(region.table["verdict"]).reshape(-1, region.beta.size, region.alpha.size)[0, j]
    rows = [
        {"alpha": float(a), "verdict": str(v), "stable": bool(s), "claimed": bool(a <= FIG53_ALPHA_MAX + 1e-9)}
        for a, v, s in zip(region.alpha, verdicts, region.stable[j])
    ]
    return {"rows": rows, "matches": sum(r["stable"] == r["claimed"] for r in rows), "points": len(rows)}
