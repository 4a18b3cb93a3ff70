"""Phase-plane stable region over (alpha, beta), for one or many network configurations.

For every grid point and configuration (C, d0, N, T) the model is integrated from App. E's
six initial conditions (R/C in {0.5, 0.1, 0.01} x q in {2*C*d0, 0} for N = 10, i.e. 5, 1 and
0.1 times the fair rate C/N, which is how they carry over to other N); a point is stable
when all six converge. The work is split into chunks (a configuration x a slice of the grid,
integrated as one batch) that run anywhere (:mod:`.executors`) and are checkpointed as
they finish (:mod:`.checkpoint`).
"""
from __future__ import annotations

import itertools

import numpy as np
from tqdm import tqdm

from ..errors import InputError
from ..models import get_model
from ..regions.result import RegionMap
from .checkpoint import Checkpoint, chunk_key
from .compiled import compile_model
from .decide import FIRST_HORIZON_RTT, MAX_HORIZON_RTT, decide
from .executors import run_chunks
from .setup import parameter_values
from .verdicts import CONVERGED, DIVERGED, LIMIT_CYCLE, UNDECIDED, VERDICTS

APP_E_LOADS = (5.0, 1.0, 0.1)     # initial R in units of C/N: App. E's R/C = 0.5, 0.1, 0.01 at N = 10
APP_E_QUEUES = (2.0, 0.0)         # initial queue in units of C*d0 (App. E)
STARTS = ("appE", "half-load")    # App. E's six conditions; or Figs. 5.10-5.13's: half the equilibrium rate, empty queue
POINTS_PER_CHUNK = 100            # 600 trajectories: big enough to amortize NumPy's per-call cost
RESULT_VERSION = 1                # bump when a change alters chunk results, so old checkpoints are not reused

# The verdict of a point is its worst trajectory's: diverged > limit_cycle > undecided > converged.
_SEVERITY = np.array([0, 2, 3, 1])[[CONVERGED, LIMIT_CYCLE, DIVERGED, UNDECIDED]]


def configurations(model, C=None, d0=None, N=None, T=None) -> list[dict]:
    """Every combination of the given values (None: App. E's default), checked.

    Returns
    -------
    list of dict
        ``{"C": bit/s, "d0": s, "N": flows, "T": s}`` in C-major order.
    """
    defaults = {sym.name: value for sym, value in model.parameters.items()}
    axes = {
        "C": C or [defaults["C"]],
        "d0": d0 or [defaults["d_0"]],
        "N": N or [defaults["N"]],
    }
    if T is not None and not T > 0:
        raise InputError(f"update interval T = {T} s: must be > 0")
    compiled = compile_model(model)
    configs = []
    for c, d, n in itertools.product(axes["C"], axes["d0"], axes["N"]):
        config = {"C": float(c), "d0": float(d), "N": float(n), "T": float(T or defaults["T"])}
        parameter_values(compiled, config)  # raises InputError naming a bad value
        configs.append(config)
    return configs


def initial_conditions(config: dict, start: str = "appE") -> tuple[np.ndarray, np.ndarray]:
    """Initial R/C values and queues (bits) for one configuration.

    ``start`` is ``appE`` (App. E's six conditions) or ``half-load`` (R/C = 1/(2N), q = 0:
    the equilibrium load doubles, as in thesis Figs. 5.10-5.13).
    """
    if start not in STARTS:
        raise InputError(f"initial conditions {start!r}: choose from {', '.join(STARTS)}")
    if start == "half-load":
        return np.array([0.5 / config["N"]]), np.array([0.0])
    pairs = list(itertools.product(APP_E_LOADS, APP_E_QUEUES))
    gammas = np.minimum(np.array([load for load, _ in pairs]) / config["N"], 1.0)  # R cannot exceed C
    queues = np.array([m for _, m in pairs]) * config["C"] * config["d0"]
    return gammas, queues


def solve_chunk(model_name: str, config: dict, alphas: list, betas: list, start: str) -> dict:
    """Verdict and convergence time of each (alpha, beta) point of a chunk (runs in a worker).

    Returns
    -------
    dict
        ``codes``: per-point verdict code (worst over the initial conditions);
        ``convergence_rtt``: slowest convergence over the initial conditions (NaN unless all converged).
    """
    gammas, queues = initial_conditions(config, start)
    n_ic = gammas.size
    params = dict(config, alpha=np.repeat(alphas, n_ic), beta=np.repeat(betas, n_ic))
    verdicts = decide(get_model(model_name), params, {"gamma0": np.tile(gammas, len(alphas)),
                                                      "q0": np.tile(queues, len(alphas))})
    codes = verdicts.codes.reshape(-1, n_ic)
    worst = np.take_along_axis(codes, _SEVERITY[codes].argmax(axis=1)[:, None], axis=1)[:, 0]
    all_converged = (codes == CONVERGED).all(axis=1)
    slowest = np.where(all_converged, verdicts.convergence_rtt.reshape(-1, n_ic).max(axis=1), np.nan)
    return {"codes": worst.tolist(), "convergence_rtt": slowest.tolist()}


def phaseplane_region(model, alphas, betas, C=None, d0=None, N=None, T=None, workers: int = 1,
                      scheduler: str | None = None, checkpoint: str | None = None,
                      progress: bool = False, start: str = "appE") -> RegionMap:
    """Stable region of ``model`` by phase-plane integration (thesis Sec. 5.1.2, App. E).

    Parameters
    ----------
    model : ModelSpec
    alphas, betas : array_like
        Grid axes.
    C, d0, N : list of float, optional
        Capacities (bit/s), propagation RTTs (s), numbers of flows: every combination is
        swept. None: App. E (0.15 Gb/s, 0.2 s, 10).
    T : float, optional
        Rate update interval (s), default 0.01 (used by ``rcp``).
    workers : int
        Local processes.
    scheduler : str, optional
        Dask scheduler address.
    checkpoint : str, optional
        File of finished chunks: read on start, appended as chunks finish.
    progress : bool
        Show a progress bar (on stderr).
    start : str
        Initial conditions: ``appE`` (default) or ``half-load`` (see :func:`initial_conditions`).

    Returns
    -------
    RegionMap
        ``stable`` is the region common to all configurations; ``table`` has one row per grid
        point and configuration: alpha, beta, C, d0, N, stable, verdict, convergence_rtt.
    """
    alphas = np.asarray(alphas, dtype=float)
    betas = np.asarray(betas, dtype=float)
    configs = configurations(model, C, d0, N, T)
    initial_conditions(configs[0], start)  # reject an unknown start before any work
    aa, bb = (m.ravel() for m in np.meshgrid(alphas, betas))
    slices = [slice(s, s + POINTS_PER_CHUNK) for s in range(0, aa.size, POINTS_PER_CHUNK)]
    chunks = [(config, part) for config in configs for part in slices]
    keys = [chunk_key({"model": model.name, "config": config, "alpha": aa[part].tolist(),
                       "beta": bb[part].tolist(), "version": RESULT_VERSION, "start": start,
                       "horizon": [FIRST_HORIZON_RTT, MAX_HORIZON_RTT]})
            for config, part in chunks]
    store = Checkpoint(checkpoint)
    todo = [i for i, key in enumerate(keys) if store.get(key) is None]
    tasks = [(model.name, chunks[i][0], aa[chunks[i][1]].tolist(), bb[chunks[i][1]].tolist(), start)
             for i in todo]
    with tqdm(total=len(chunks), initial=len(chunks) - len(todo), disable=not progress,
              desc=f"phaseplane {model.name}", unit="chunk") as bar:
        for j, result in run_chunks(solve_chunk, tasks, workers, scheduler):
            store.save(keys[todo[j]], result)
            bar.update(1)
    results = [store.get(key) for key in keys]
    return _region(model, alphas, betas, configs, chunks, results,
                   {"start": start, "chunks_total": len(chunks), "chunks_computed": len(todo)})


def _region(model, alphas, betas, configs, chunks, results, counts) -> RegionMap:
    """Assemble chunk results into the common region and the per-configuration table."""
    n_points = alphas.size * betas.size
    codes = np.full((len(configs), n_points), UNDECIDED)
    convergence = np.full((len(configs), n_points), np.nan)
    for (config, part), result in zip(chunks, results):
        c = configs.index(config)
        codes[c, part] = result["codes"]
        convergence[c, part] = result["convergence_rtt"]
    stable = codes == CONVERGED
    aa, bb = (m.ravel() for m in np.meshgrid(alphas, betas))

    def per_config(key):
        return np.repeat([config[key] for config in configs], n_points)

    table = {
        "alpha": np.tile(aa, len(configs)),
        "beta": np.tile(bb, len(configs)),
        "C": per_config("C"),
        "d0": per_config("d0"),
        "N": per_config("N"),
        "stable": stable.ravel().astype(int),
        "verdict": np.asarray(VERDICTS, dtype=object)[codes.ravel()],
        "convergence_rtt": convergence.ravel(),
    }
    meta = {
        "configurations": configs,
        "horizon_rtt": [FIRST_HORIZON_RTT, MAX_HORIZON_RTT],
        "stable_per_configuration": stable.sum(axis=1).tolist(),
        "verdict_counts": {name: int((codes == i).sum()) for i, name in enumerate(VERDICTS)},
        **counts,
    }
    common = stable.all(axis=0).reshape(betas.size, alphas.size)
    return RegionMap(model.name, "phaseplane", alphas, betas, common, table=table, meta=meta)
