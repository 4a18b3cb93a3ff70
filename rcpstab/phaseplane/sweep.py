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
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..linear.result import RegionMap
from ..models import as_model, get_model
from ..runtime.checkpoint import Checkpoint, chunk_key
from ..runtime.executors import run_chunks
from ..runtime.validation import check_grid_size
from ..verdicts.band import STANDARD, Band
from .compiled import compile_model
from .decide import FIRST_HORIZON_RTT, MAX_HORIZON_RTT, decide
from .setup import default_step, own_name, parameter_values, unreachable
from .verdicts import CONVERGED, DIVERGED, LIMIT_CYCLE, UNDECIDED, VERDICTS

APP_E_LOADS = (5.0, 1.0, 0.1)  # initial R in units of C/N: App. E's R/C = 0.5, 0.1, 0.01 at N = 10
APP_E_QUEUES = (2.0, 0.0)  # initial queue in units of C*d0 (App. E)
# App. E's six conditions; Figs. 5.10-5.13 and 7.1's load doubling (the old equilibrium R(0) = 2 Re,
# empty queue); or half the equilibrium rate with an empty queue (a load that halves)
STARTS = ("appE", "load-doubling", "half-load")
MEASURED = ("convergence_rtt", "convergence_estimate_rtt", "envelope_rate_per_rtt")  # per-row table columns
POINTS_PER_CHUNK = 500  # 3000 trajectories: big enough to amortize NumPy's per-call cost
SECONDS_PER_POINT = 2e-3  # single-core cost at App. E's set-up, benchmarks/bench_cost_per_point.py, rounded up (refusals only)
RESULT_VERSION = 3  # bump when code changes alter chunk results (the band is in the key by itself)

# The verdict of a point is its worst trajectory's: diverged > limit_cycle > undecided > converged.
_SEVERITY = np.zeros(len(VERDICTS), dtype=int)
_SEVERITY[[CONVERGED, UNDECIDED, LIMIT_CYCLE, DIVERGED]] = range(len(VERDICTS))


def configurations(model: Any, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every combination of the given parameter values (the model's configuration by default), checked.

    Parameters
    ----------
    model : ModelSpec
    params : dict, optional
        Any declared parameter by name or declared alias (``d0`` for RCP's ``d_0``): a number
        (held fixed) or a list (swept, every combination with the others; None: the default).
        The loop gains are the grid, not parameters here.

    Returns
    -------
    list of dict
        ``{name: value}`` per configuration: the model's configuration parameters
        (:attr:`~rcpstab.models.spec.ModelSpec.configuration_parameters`, C, d0, N, T for RCP) at
        their defaults unless given, then the other given ones, each under its public name; in
        the order of the axes (the first varies slowest).

    Raises
    ------
    InputError
        A name the model does not declare, or a value outside the parameter's domain.
    """
    model = as_model(model)
    compiled = compile_model(model)
    table = model.parameter_table  # by name: a cached bundled model is not built (no SymPy)
    gains = set(table.loop)
    axes: dict[str, Any] = {table.public_name(name): [table.defaults[name]] for name in table.configuration}
    from_params: dict[str, Any] = {}  # public name -> the name it was given under
    for name, given in (params or {}).items():
        if given is None:
            continue
        own = table.own(name)
        if own is None or own in gains:
            what = "is a loop gain (the grid) of" if own is not None else "is not a parameter of the model"
            names = set(compiled.param_names) - gains
            raise InputError(f"--param {name}: {what} {model.name!r} (parameters: {', '.join(sorted(names))})")
        try:
            values = list(np.atleast_1d(np.asarray(given, dtype=float)).ravel())
        except (TypeError, ValueError):
            raise InputError(f"{name} = {given!r}: not a number (or a list of numbers)") from None
        if not values:
            raise InputError(f"--param {name}: no value given")
        axis = table.public_name(own)
        # --param d0=... --param d_0=... name one parameter twice: refuse, as map and convergence would pick either
        if axis in from_params:
            raise InputError(f"--param {name}: {axis} is also given as --param {from_params[axis]}; give it once")
        from_params[axis] = name
        axes[axis] = values
    configs = []
    for combination in itertools.product(*axes.values()):
        config = {name: float(value) for name, value in zip(axes, combination)}
        parameter_values(compiled, config)  # raises InputError naming a bad value
        configs.append(config)
    return configs


def buffer_bits(model: Any, buffer_bdp: float | None, params: dict[str, Any]) -> dict[str, Any]:
    """``{name: bits}`` for a buffer of ``buffer_bdp`` queue units (``{}`` for None).

    The queue unit is the model's (:attr:`~rcpstab.models.spec.ModelSpec.queue_unit`: one
    bandwidth-delay product C*d0 for RCP) at ``params`` (name to value or array); ``name`` is the
    model's buffer parameter (:attr:`~rcpstab.models.spec.ModelSpec.buffer`, ``buffer`` for RCP).
    Raises :class:`InputError` when the model has no buffer (``linear``: its queue is unclamped).
    """
    if buffer_bdp is None:
        return {}
    if model.buffer is None:
        raise InputError(f"--buffer {buffer_bdp:g}: model {model.name!r} has no buffer (its queue is not clamped)")
    compiled = compile_model(model)
    return {
        model.public_name(model.buffer): buffer_bdp
        * np.asarray(compiled.queue_scale(*parameter_values(compiled, params)), dtype=float)
    }


def start_states(gamma_eq: ArrayLike, queue_unit: ArrayLike, start: str = "appE") -> tuple[np.ndarray, np.ndarray]:
    """Initial normalized rates and queues, shape (points, conditions), from each point's equilibrium.

    Parameters
    ----------
    gamma_eq : array_like, shape (n_points,)
        The equilibrium normalized rate (R/C = eta/N for RCP).
    queue_unit : array_like, shape (n_points,)
        The queue's unit (C*d0 for RCP).
    start : str
        ``appE`` (App. E's six conditions: 5, 1 and 0.1 times the equilibrium rate, with 2 queue
        units or none), ``load-doubling`` (twice the equilibrium rate, empty queue: the old
        equilibrium when the number of flows doubles, as in thesis Figs. 5.10-5.13 and 7.1; Fig.
        5.12's N = 200 example has Re/C = 0.005 and R(0)/C = 0.01) or ``half-load`` (half the
        equilibrium rate, empty queue: the load halves, the rate must double).
    """
    if start not in STARTS:
        raise InputError(f"initial conditions {start!r}: choose from {', '.join(STARTS)}")
    gamma_eq, queue_unit = (np.atleast_1d(np.asarray(v, dtype=float))[:, None] for v in (gamma_eq, queue_unit))
    if start in ("half-load", "load-doubling"):
        return np.minimum((0.5 if start == "half-load" else 2.0) * gamma_eq, 1.0), np.zeros_like(gamma_eq)
    loads, queues = (np.array(v, dtype=float)[None, :] for v in zip(*itertools.product(APP_E_LOADS, APP_E_QUEUES)))
    return np.minimum(loads * gamma_eq, 1.0), queues * queue_unit  # R cannot exceed C


def equilibrium_starts(model: Any, params: dict[str, Any], size: int = 1, start: str = "appE") -> tuple[np.ndarray, np.ndarray]:
    """:func:`start_states` of ``model`` at ``params`` (name to value or array of ``size``), from its equilibrium.

    Returns
    -------
    gammas, queues : ndarray, shape (size, conditions)
        Initial normalized rates and queues (the queue in the model's unit, bits for RCP).
    """
    compiled = compile_model(model)
    values = parameter_values(compiled, params)
    eq = [f(*[0.0] * compiled.n_states, *values) for f in compiled.equilibrium]
    gamma_eq = np.broadcast_to(compiled.gamma(*eq, *values), (size,))
    return start_states(gamma_eq, np.broadcast_to(compiled.queue_scale(*values), (size,)), start)


def initial_conditions(C: ArrayLike, d0: ArrayLike, N: ArrayLike, start: str = "appE") -> tuple[np.ndarray, np.ndarray]:
    """Initial R/C values and queues (bits), shape (points, conditions), for each (C, d0, N) of RCP.

    ``start`` is ``appE`` (App. E's six conditions) or ``half-load`` (R/C = 1/(2N), q = 0:
    the equilibrium load doubles, as in thesis Figs. 5.10-5.13). See :func:`start_states`.
    """
    c, d, n = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (C, d0, N))
    return start_states(1.0 / n, c * d, start)


def portable(model: Any) -> Any:
    """What a worker gets to find ``model``: its reference (a name or a protocol file, cheap to send)
    when that gives this very model back, else the model object itself (one built in a session)."""
    try:
        return model.reference if get_model(model.reference) is model else model
    except InputError:
        return model


def solve_chunk(model_ref: Any, rows: dict[str, Any], start: str, band: Band = STANDARD) -> dict[str, Any]:
    """Verdict and convergence time of each row (point and configuration) of a chunk (runs in a worker).

    ``rows`` maps ``alpha``, ``beta`` (the model's two loop gains) and each configuration
    parameter to equal-length lists; the parameters that set the delay line (d0 and T for RCP)
    are the same in a chunk, so every row is integrated in one batch. ``model_ref`` is what
    :func:`portable` gave: a name or a protocol file (:func:`~rcpstab.models.get_model` finds the
    model again in the worker), or the model object itself.

    Returns
    -------
    dict
        ``codes``: per-row verdict code (worst over the initial conditions);
        ``convergence_rtt``: slowest measured convergence over the initial conditions (NaN unless
        all converged and all were observed in the band); ``convergence_estimate_rtt``: the slowest
        time counting labelled estimates (NaN unless all converged and one is an estimate);
        ``envelope_rate_per_rtt``: the slowest envelope trend (largest log-slope, per RTT) of the
        trajectories that were fitted.
    """
    model = get_model(model_ref)
    compiled = compile_model(model)
    named = {key: np.asarray(value, dtype=float) for key, value in rows.items()}
    gammas, queues = equilibrium_starts(model, named, len(rows["alpha"]), start)
    n_ic = gammas.shape[1]
    held = model.public_name(model.buffer) if model.buffer is not None else None
    if held in named:  # App. E's full queue (2 C*d0) held to a smaller buffer
        queues = np.minimum(queues, np.broadcast_to(named[held], gammas.shape[:1])[:, None])
    # the delay line's parameters are one value per chunk; the others vary over the batch
    params = {
        key: value[0] if own_name(model, key) in compiled.delay_symbols else np.repeat(value, n_ic)
        for key, value in named.items()
    }
    verdicts = decide(model, params, {"gamma0": gammas.ravel(), "q0": queues.ravel()}, band=band)
    codes = verdicts.codes.reshape(-1, n_ic)
    worst = np.take_along_axis(codes, _SEVERITY[codes].argmax(axis=1)[:, None], axis=1)[:, 0]
    all_converged = (codes == CONVERGED).all(axis=1)
    measured = verdicts.convergence_rtt.reshape(-1, n_ic)
    estimated = verdicts.convergence_estimate_rtt.reshape(-1, n_ic)
    slowest = np.where(all_converged, measured.max(axis=1), np.nan)  # NaN if one was not observed
    guessed = np.isfinite(estimated).any(axis=1)
    estimate = np.where(all_converged & guessed, np.fmax(measured, estimated).max(axis=1), np.nan)
    rates = verdicts.rate_per_rtt.reshape(-1, n_ic)
    trend = np.where(np.isfinite(rates).any(axis=1), np.nanmax(np.where(np.isfinite(rates), rates, -np.inf), axis=1), np.nan)

    def listed(a: np.ndarray) -> list[float | None]:
        return [None if not np.isfinite(v) else float(v) for v in a]

    return {
        "codes": worst.tolist(),
        "convergence_rtt": listed(slowest),
        "convergence_estimate_rtt": listed(estimate),
        "envelope_rate_per_rtt": listed(trend),
    }


def phaseplane_region(
    model: Any,
    alphas: ArrayLike,
    betas: ArrayLike,
    params: dict[str, Any] | None = None,
    workers: int = 1,
    scheduler: str | None = None,
    checkpoint: str | None = None,
    progress: bool = False,
    start: str = "appE",
    buffer_bdp: float | None = None,
    band: Band = STANDARD,
    **named: Any,
) -> RegionMap:
    """Stable region of ``model`` by phase-plane integration (thesis Sec. 5.1.2, App. E).

    Parameters
    ----------
    model : ModelSpec
    alphas, betas : array_like
        Grid axes.
    params : dict, optional
        Any declared parameter of the model by name or declared alias (``--C``, ``--d0``,
        ``--param NAME=VALUES`` on the command line): a number is held fixed (e.g.
        ``{"gamma_AC": 0.2}`` for ``rcpac``), a list is swept, every combination with the others
        (``{"C": [0.15e9, 10e9]}``). Unset ones take the model's defaults (App. E's set-up for
        RCP). Checked against the model's declared domains before any work.
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
    buffer_bdp : float, optional
        Buffer in units of the model's queue unit (bandwidth-delay products C*d0 for RCP) of each
        configuration (None: unbounded). App. E's full-queue start is held to it.
    band : Band
        The convergence band (default the thesis'); part of every chunk's checkpoint key.
    **named
        Parameters as keywords, the same as in ``params`` (``C=[0.15e9, 10e9]``, ``lag=[0.1]``).

    Returns
    -------
    RegionMap
        ``stable`` is the region common to all configurations whose equilibrium is reachable
        (see the module docstring); ``table`` has one row per grid point and configuration:
        alpha, beta (the model's two loop gains), the configuration's parameters (C, d0, N for
        RCP; any swept by ``params``), stable, verdict, convergence_rtt (measured, slowest over the
        initial conditions), convergence_estimate_rtt (labelled extrapolation, where one was needed),
        envelope_rate_per_rtt (slowest envelope trend).
    """
    model = as_model(model)  # a name works too; anything else is an InputError
    alphas = np.asarray(alphas, dtype=float)
    betas = np.asarray(betas, dtype=float)
    configs = configurations(model, {**named, **(params or {})})
    start_states(1.0, 1.0, start)  # reject an unknown start before any work
    compiled = compile_model(model)
    # the cost of a point grows with the steps per round trip (App. E's set-up: 20)
    steps_per_rtt = []
    for config in configs:
        values = parameter_values(compiled, config)
        steps_per_rtt.append(float(np.max(compiled.time_scale(*values))) / default_step(compiled, values))
    check_grid_size(
        alphas.size * betas.size * len(configs),
        SECONDS_PER_POINT * max(1.0, float(np.mean(steps_per_rtt)) / 20),
        f"phaseplane sweep of {model.name}",
    )
    aa, bb = (m.ravel() for m in np.meshgrid(alphas, betas))
    rows = {"alpha": np.tile(aa, len(configs)), "beta": np.tile(bb, len(configs))}
    for key in configs[0]:
        rows[key] = np.repeat([config[key] for config in configs], aa.size)
    if buffer_bdp is not None:  # in each configuration's own bandwidth-delay product
        rows.update(
            {name: np.broadcast_to(bits, rows["alpha"].shape) for name, bits in buffer_bits(model, buffer_bdp, rows).items()}
        )
    chunks = _chunks(model, rows, compile_model(model).delay_symbols)
    keys = [
        chunk_key(
            {
                "model": model.reference,
                "rows": {k: v[part].tolist() for k, v in rows.items()},
                "version": RESULT_VERSION,
                "start": start,
                "horizon": [FIRST_HORIZON_RTT, MAX_HORIZON_RTT],
                **band.key(),
            }
        )
        for part in chunks
    ]
    store = Checkpoint(checkpoint)
    todo = [i for i, key in enumerate(keys) if store.get(key) is None]
    ref = portable(model)
    from tqdm import tqdm  # here: tqdm's import (its version lookup reads package metadata) costs a portrait 0.1 s

    tasks = [(ref, {k: v[chunks[i]].tolist() for k, v in rows.items()}, start, band) for i in todo]
    with tqdm(
        total=len(chunks), initial=len(chunks) - len(todo), disable=not progress, desc=f"phaseplane {model.name}", unit="chunk"
    ) as bar:
        for j, result in run_chunks(solve_chunk, tasks, workers, scheduler):
            store.save(keys[todo[j]], result)
            bar.update(1)
    codes = np.full(rows["alpha"].size, UNDECIDED)
    measured = {name: np.full(rows["alpha"].size, np.nan) for name in MEASURED}
    for part, key in zip(chunks, keys):
        codes[part] = store.get(key)["codes"]
        for name in MEASURED:
            measured[name][part] = np.array(store.get(key)[name], dtype=float)
    return _region(
        model,
        alphas,
        betas,
        configs,
        rows,
        codes,
        measured,
        {
            "start": start,
            "loop_parameters": [sym.name for sym in model.loop_parameters],
            "chunks_total": len(chunks),
            "chunks_computed": len(todo),
            "buffer_bdp": buffer_bdp,
            "band": band.key(),
        },
    )


def _chunks(model: Any, rows: dict[str, Any], delay_symbols: Iterable[Any]) -> list[np.ndarray]:
    """Row indices of each chunk: rows sharing the delay line's parameters, in slices of :data:`POINTS_PER_CHUNK`.

    A delay parameter not in ``rows`` is at the model's default in every row (one group).
    """
    line = [key for key in rows if own_name(model, key) in delay_symbols]
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i in range(len(rows["alpha"])):
        groups.setdefault(tuple(rows[k][i] for k in line), []).append(i)
    return [
        np.array(members[s : s + POINTS_PER_CHUNK])
        for members in groups.values()
        for s in range(0, len(members), POINTS_PER_CHUNK)
    ]


def _region(
    model: Any,
    alphas: np.ndarray,
    betas: np.ndarray,
    configs: list[dict[str, Any]],
    rows: dict[str, Any],
    codes: np.ndarray,
    measured: dict[str, np.ndarray],
    counts: dict[str, Any],
) -> RegionMap:
    """Assemble per-row verdicts into the common region and the per-configuration table."""
    stable = (codes == CONVERGED).reshape(len(configs), -1)
    compiled = compile_model(model)
    lost = [bool(np.any(unreachable(compiled, parameter_values(compiled, config)))) for config in configs]
    table = {key: rows[key] for key in rows if key != "T"}  # T is one value per sweep: it is in meta
    table.update(stable=stable.ravel().astype(int), verdict=np.asarray(VERDICTS, dtype=object)[codes], **measured)
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
    common = reachable.all(axis=0) if reachable.size else np.zeros(stable.shape[1], dtype=bool)
    common = common.reshape(betas.size, alphas.size)
    return RegionMap(model, "phaseplane", alphas, betas, common, table=table, meta=meta)
