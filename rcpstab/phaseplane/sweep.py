"""Phase-plane stable region over (alpha, beta), for one or many network configurations.

For every grid point and configuration (C, d0, N, T) the model is integrated from App. E's
six initial conditions (R/C in {0.5, 0.1, 0.01} x q in {2*C*d0, 0} for N = 10, i.e. 5, 1 and
0.1 times the fair rate C/N, which is how they carry over to other N); a point is stable
when all six converge.

Some configurations cannot reach their equilibrium with any gains: with C = 56 kb/s and
N = 1000 flows the fair rate C/N is below the rate floor MIN_RATE = 0.01*MTU/d0, so R never
gets down to it and a standing queue remains (:func:`~rcpstab.phaseplane.setup.unreachable`).
Their rows are ``diverged`` (settled away from the equilibrium) and they are listed in the
result's ``meta["unreachable_configurations"]``, but they are left out of the common region:
they would empty it whatever the gains, which says nothing about the gains. The common region
is therefore over the configurations whose equilibrium is reachable, and
``meta["stable_points_all_configurations"]`` (0 as soon as one is unreachable) is the count
with them. The work is split into chunks (a configuration x a slice of the grid,
integrated as one batch) that run anywhere (:mod:`.executors`) and are checkpointed as
they finish (:mod:`.checkpoint`).
"""
from __future__ import annotations

import itertools

import numpy as np
from tqdm import tqdm

from ..errors import InputError
from ..models import as_model, get_model
from ..regions.result import RegionMap
from .checkpoint import Checkpoint, chunk_key
from .compiled import compile_model
from .decide import FIRST_HORIZON_RTT, MAX_HORIZON_RTT, decide
from .executors import run_chunks
from .setup import parameter_values, unreachable
from .verdicts import CONVERGED, DIVERGED, LIMIT_CYCLE, UNDECIDED, VERDICTS

APP_E_LOADS = (5.0, 1.0, 0.1)     # initial R in units of C/N: App. E's R/C = 0.5, 0.1, 0.01 at N = 10
APP_E_QUEUES = (2.0, 0.0)         # initial queue in units of C*d0 (App. E)
STARTS = ("appE", "half-load")    # App. E's six conditions; or Figs. 5.10-5.13's: half the equilibrium rate, empty queue
POINTS_PER_CHUNK = 500            # 3000 trajectories: big enough to amortize NumPy's per-call cost
RESULT_VERSION = 2                # bump when a change alters chunk results, so old checkpoints are not reused

# The verdict of a point is its worst trajectory's: diverged > limit_cycle > undecided > converged.
_SEVERITY = np.zeros(len(VERDICTS), dtype=int)
_SEVERITY[[CONVERGED, UNDECIDED, LIMIT_CYCLE, DIVERGED]] = range(len(VERDICTS))


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


def initial_conditions(C, d0, N, start: str = "appE") -> tuple[np.ndarray, np.ndarray]:
    """Initial R/C values and queues (bits), shape (points, conditions), for each (C, d0, N).

    ``start`` is ``appE`` (App. E's six conditions) or ``half-load`` (R/C = 1/(2N), q = 0:
    the equilibrium load doubles, as in thesis Figs. 5.10-5.13).
    """
    if start not in STARTS:
        raise InputError(f"initial conditions {start!r}: choose from {', '.join(STARTS)}")
    C, d0, N = (np.atleast_1d(np.asarray(v, dtype=float))[:, None] for v in (C, d0, N))
    if start == "half-load":
        return 0.5 / N, np.zeros_like(N)
    loads, queues = (np.array(v, dtype=float)[None, :] for v in zip(*itertools.product(APP_E_LOADS, APP_E_QUEUES)))
    return np.minimum(loads / N, 1.0), queues * C * d0  # R cannot exceed C


def solve_chunk(model_name: str, rows: dict, start: str) -> dict:
    """Verdict and convergence time of each row (point and configuration) of a chunk (runs in a worker).

    ``rows`` maps alpha, beta, C, d0, N, T to equal-length lists; d0 and T are the same in a
    chunk (they set the delay line), so every row is integrated in one batch.

    Returns
    -------
    dict
        ``codes``: per-row verdict code (worst over the initial conditions);
        ``convergence_rtt``: slowest convergence over the initial conditions (NaN unless all converged).
    """
    gammas, queues = initial_conditions(rows["C"], rows["d0"], rows["N"], start)
    n_ic = gammas.shape[1]
    params = {key: np.repeat(rows[key], n_ic) for key in ("alpha", "beta", "C", "N")}
    params.update(d0=rows["d0"][0], T=rows["T"][0])
    verdicts = decide(get_model(model_name), params, {"gamma0": gammas.ravel(), "q0": queues.ravel()})
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
        ``stable`` is the region common to all configurations whose equilibrium is reachable
        (see the module docstring); ``table`` has one row per grid point and configuration:
        alpha, beta, C, d0, N, stable, verdict, convergence_rtt.
    """
    model = as_model(model)  # a name works too; anything else is an InputError
    alphas = np.asarray(alphas, dtype=float)
    betas = np.asarray(betas, dtype=float)
    configs = configurations(model, C, d0, N, T)
    initial_conditions(1.0, 1.0, 1.0, start)  # reject an unknown start before any work
    aa, bb = (m.ravel() for m in np.meshgrid(alphas, betas))
    rows = {"alpha": np.tile(aa, len(configs)), "beta": np.tile(bb, len(configs))}
    for key in ("C", "d0", "N", "T"):
        rows[key] = np.repeat([config[key] for config in configs], aa.size)
    chunks = _chunks(rows)
    keys = [chunk_key({"model": model.name, "rows": {k: v[part].tolist() for k, v in rows.items()},
                       "version": RESULT_VERSION, "start": start, "horizon": [FIRST_HORIZON_RTT, MAX_HORIZON_RTT]})
            for part in chunks]
    store = Checkpoint(checkpoint)
    todo = [i for i, key in enumerate(keys) if store.get(key) is None]
    tasks = [(model.name, {k: v[chunks[i]].tolist() for k, v in rows.items()}, start) for i in todo]
    with tqdm(total=len(chunks), initial=len(chunks) - len(todo), disable=not progress,
              desc=f"phaseplane {model.name}", unit="chunk") as bar:
        for j, result in run_chunks(solve_chunk, tasks, workers, scheduler):
            store.save(keys[todo[j]], result)
            bar.update(1)
    codes = np.full(rows["alpha"].size, UNDECIDED)
    convergence = np.full(rows["alpha"].size, np.nan)
    for part, key in zip(chunks, keys):
        codes[part] = store.get(key)["codes"]
        convergence[part] = store.get(key)["convergence_rtt"]
    return _region(model, alphas, betas, configs, rows, codes, convergence,
                   {"start": start, "chunks_total": len(chunks), "chunks_computed": len(todo)})


def _chunks(rows: dict) -> list[np.ndarray]:
    """Row indices of each chunk: rows sharing (d0, T), in slices of :data:`POINTS_PER_CHUNK`."""
    groups: dict = {}
    for i, key in enumerate(zip(rows["d0"], rows["T"])):
        groups.setdefault(key, []).append(i)
    return [np.array(members[s:s + POINTS_PER_CHUNK])
            for members in groups.values() for s in range(0, len(members), POINTS_PER_CHUNK)]


def _region(model, alphas, betas, configs, rows, codes, convergence, counts) -> RegionMap:
    """Assemble per-row verdicts into the common region and the per-configuration table."""
    stable = (codes == CONVERGED).reshape(len(configs), -1)
    compiled = compile_model(model)
    lost = [bool(np.any(unreachable(compiled, parameter_values(compiled, config)))) for config in configs]
    table = {key: rows[key] for key in ("alpha", "beta", "C", "d0", "N")}
    table.update(stable=stable.ravel().astype(int), verdict=np.asarray(VERDICTS, dtype=object)[codes],
                 convergence_rtt=convergence)
    meta = {
        "configurations": configs,
        "horizon_rtt": [FIRST_HORIZON_RTT, MAX_HORIZON_RTT],
        "stable_per_configuration": stable.sum(axis=1).tolist(),
        "verdict_counts": {name: int((codes == i).sum()) for i, name in enumerate(VERDICTS)},
        "unreachable_configurations": [config for config, gone in zip(configs, lost) if gone],
        "stable_points_all_configurations": int(stable.all(axis=0).sum()),
        **counts,
    }
    reachable = stable[~np.array(lost)]
    common = (reachable.all(axis=0) if reachable.size else np.zeros(stable.shape[1], dtype=bool))
    common = common.reshape(betas.size, alphas.size)
    return RegionMap(model.name, "phaseplane", alphas, betas, common, table=table, meta=meta)
