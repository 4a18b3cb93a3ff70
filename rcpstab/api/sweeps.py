"""``rcpstab.convergence`` (``rcpstab convergence``) and ``rcpstab.bifurcation`` (``rcpstab bifurcation``)."""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .common import as_model, axis, gain_values, network_params, plausible
from .regions import RegionResult, network_text
from .result import Result, strict
from .validation import check_value

__all__ = ["BifurcationResult", "ContinuationResult", "ConvergenceResult", "bifurcation", "convergence"]

CONVERGENCE_GRID = "0.1:1.0:0.1"  # the range of thesis Fig. 5.13
CONVERGENCE_START = "load-doubling"


def convergence(
    model="rcp",
    alpha=CONVERGENCE_GRID,
    beta=CONVERGENCE_GRID,
    start: str = CONVERGENCE_START,
    *,
    C=None,
    d0=None,
    N=None,
    T=None,
    params=None,
    buffer_bdp=None,
    workers: int = 1,
    scheduler=None,
    checkpoint=None,
    progress: bool = False,
):
    """``model``'s convergence time over (alpha, beta), as thesis Figs. 5.10-5.13 and 7.1.

    Parameters
    ----------
    model : str or ModelSpec
        A bundled model's name (``"rcp"``, ``"xcp"``, ...), a protocol file's path or a
        :class:`~rcpstab.models.ModelSpec`.
    alpha, beta : str or array_like
        Grid axes of the gains (dimensionless; ``START:STOP:STEP``, STOP inclusive); default 0.1..1.0 by 0.1.
    start : {"load-doubling", "appE", "half-load"}
        Initial conditions (``rcpstab convergence --help``).
    C, d0, N : list of float, optional
        bit/s, s, flows: every combination is swept.
    T : float or list of float, optional
        Update interval, s (the model's default); a list is swept like ``C``.
    params : dict, optional
        Any other parameter the model declares, by name: a number held, a list swept like ``C``.
    buffer_bdp : float, optional
        Buffer in bandwidth-delay products C*d0 (default: unbounded).
    workers : int
        Local processes (>= 1).
    scheduler : str, optional
        Dask scheduler address.
    checkpoint : str, optional
        File of finished chunks: read on start, appended as chunks finish.
    progress : bool
        Show a progress bar (on stderr).

    Returns
    -------
    ConvergenceResult
        ``.times`` (RTTs, NaN where a point does not converge), ``.stable``; ``.plot()`` draws the map.

    Examples
    --------
    >>> c = convergence("rcp", alpha="0.4", beta="0.2")
    >>> bool(c.stable.all()), bool(c.times[0] > 0)
    (True, True)
    """
    from ..phaseplane.sweep import STARTS, phaseplane_region
    from ..runtime.validation import check_grid_size
    from .methods import METHODS

    if start not in STARTS:
        raise InputError(f"--start {start!r}: choose from {', '.join(STARTS)}")
    spec = as_model(model)
    alphas, betas = axis(alpha, "alpha", CONVERGENCE_GRID), axis(beta, "beta", CONVERGENCE_GRID)
    for name, value in (("C", C), ("d0", d0), ("T", T)):
        plausible(name, value, f"--{name}")
    given = network_params(spec, C, d0, N, T, params)
    configs = int(np.prod([len(v) if isinstance(v, (list, tuple, np.ndarray)) else 1 for v in given.values()]))
    check_grid_size(alphas.size * betas.size * configs, METHODS["phaseplane"].seconds_per_point, "convergence")
    region = phaseplane_region(
        spec,
        alphas,
        betas,
        params=given,
        workers=workers,
        scheduler=scheduler,
        checkpoint=checkpoint,
        progress=progress,
        start=start,
        buffer_bdp=buffer_bdp,
    )
    return ConvergenceResult(region, model=spec, method="phaseplane", start=start)


class ConvergenceResult(RegionResult):
    """A convergence-time map (a phase-plane :class:`~rcpstab.linear.result.RegionMap` in ``.value``)."""

    command = "convergence"

    @property
    def times(self) -> np.ndarray:
        """Convergence time per row of the table, RTTs (NaN: did not converge)."""
        return np.asarray(self.value.table["convergence_rtt"], dtype=float)

    def to_dict(self) -> dict:
        table = self.value.table
        return strict(
            {
                **self.value.to_dict(),
                "start": self.inputs["start"],
                "convergence_rtt": self.times,
                "convergence_estimate_rtt": np.asarray(table["convergence_estimate_rtt"], dtype=float),
                "verdict": [str(v) for v in table["verdict"]],
            }
        )

    def summary(self) -> str:
        from .regions import region_buffer_text

        table, times = self.value.table, self.times
        best = np.nanargmin(times) if np.isfinite(times).any() else None
        where = (
            "no point converged"
            if best is None
            else (f"fastest {times[best]:.1f} RTTs at alpha={table['alpha'][best]:g}, beta={table['beta'][best]:g}")
        )
        configs = self.value.meta.get("configurations") or []
        at = f" at {network_text(configs[0])}" if len(configs) == 1 else f" over {len(configs)} configurations"
        return (
            f"convergence of {self.inputs['model'].name}{at}, start {self.inputs['start']}: "
            f"{self.value.stable.sum()} of {self.value.stable.size} grid points converge (blank in the map "
            f"otherwise); {where}{region_buffer_text(self.value.meta)}"
        )

    def _repr_text(self) -> str:
        return self.summary()

    def plot(self, ax=None, **kwargs):
        from ..phaseplane.plotting import convergence_plot

        return convergence_plot(self.value, ax=ax, **kwargs)

    def save(self, path: str) -> None:
        from ..figures import draw_and_save
        from ..phaseplane.plotting import convergence_plot

        draw_and_save(convergence_plot, self.value, path)


def bifurcation_model(model):
    """A bundled or file model, one of the smooth variants ``rcp-unclamped``, ``rcp-rate``, or
    ``rcp-clamped`` (rcp with its update continuous in time)."""
    from ..bifurcation.kernel_orbits import RCP_CLAMPED
    from ..bifurcation.smooth import SMOOTH_MODELS
    from ..models import MODELS

    variants = {**SMOOTH_MODELS, RCP_CLAMPED.name: RCP_CLAMPED}
    if isinstance(model, str) and model in variants and model not in MODELS:
        return variants[model]
    return as_model(model)


def bifurcation(
    model="rcp",
    alpha=None,
    beta=None,
    rtts: float = 200.0,
    *,
    C=None,
    d0=None,
    N=None,
    T=None,
    params=None,
    continuation: bool = False,
    branch_steps: int = 30,
):
    """Continue ``model``'s attractor along one gain, up then down: limit-cycle amplitude, period, hysteresis.

    Parameters
    ----------
    model : str or ModelSpec
        A bundled model's name, a protocol file's path or a :class:`~rcpstab.models.ModelSpec`; also the
        smooth variants ``rcp-unclamped`` and ``rcp-rate``.
    alpha, beta : str or sequence
        The gains (dimensionless). Exactly one is ``START:STOP:STEP`` (swept); the other one value or
        several (``V1,V2`` or a list), held.
    rtts : float
        Run per gain value, in round-trip times d0 (>= 20).
    C, d0, N, T : float, optional
        bit/s, s, flows, s (the model's defaults).
    params : dict, optional
        Any other parameter the model declares, by name: one value each.
    continuation : bool
        Also compute the branches of periodic orbits, stable and unstable, over the swept range
        (one held value only): from the Hopf points of a smooth model, from the simulations'
        settled cycles of a clamped one (shooting on the compiled kernel); a sampled model's
        orbits are those of its continuous-update variant (:mod:`rcpstab.bifurcation.branches`).
    branch_steps : int
        Continuation steps per branch and direction (``continuation`` only).

    Returns
    -------
    BifurcationResult or ContinuationResult
        ``.rows`` per run (amplitudes relative to R/C, periods in RTTs), ``.boundaries`` (held value ->
        the swept gain's linear stability boundaries), ``.hysteresis``; ``.plot()`` draws the diagram.
        With ``continuation``, also ``.branches`` (amplitude in R/C, period in RTTs, ``stable``, the
        largest non-trivial Floquet multiplier per point, folds).

    Examples
    --------
    The linear boundary in alpha at beta = 0.2: RCP's loop (alpha s d0 + beta) e^{-s d0}/(s d0)^2
    crosses -1 where (w d0)^2 cos(w d0) = beta and alpha = beta tan(w d0)/(w d0), i.e. at 0.21647.

    >>> r = bifurcation("rcp", alpha="0.1:0.3:0.2", beta=0.2, rtts=20)
    >>> [round(a, 5) for a in r.boundaries[0.2]]
    [0.21647]
    >>> r      # doctest: +ELLIPSIS
    BifurcationResult(rcp: ... linear boundary in alpha at beta=0.2: 0.2165)
    """
    from ..bifurcation import bifurcation_sweep
    from ..linear.grid import parse_range

    spec = bifurcation_model(model)
    texts = {"alpha": alpha, "beta": beta}
    swept = [name for name, v in texts.items() if isinstance(v, str) and ":" in v]
    if len(swept) != 1:
        raise InputError(f"--alpha {alpha!r} --beta {beta!r}: give exactly one gain as START:STOP:STEP")
    parameter = swept[0]
    other = "beta" if parameter == "alpha" else "alpha"
    values = parse_range(texts[parameter], parameter)
    if texts[other] is None:
        raise InputError(f"--{other}: required (the value or values held)")
    fixed = gain_values(texts[other], other)
    twice = [v for i, v in enumerate(fixed) if v in fixed[:i]]
    if twice:  # each held value is one curve of the diagram; a repeat merged two (KeyError 'hysteresis')
        raise InputError(f"--{other} {texts[other]!r}: {twice[0]:g} is given twice")
    check_value("bifurcation_rtts", rtts, "--rtts")
    for name, value in (("C", C), ("d0", d0), ("T", T)):
        plausible(name, value, f"--{name}")
    given = network_params(spec, C, d0, N, T, params, single=True)
    if continuation:
        from ..runtime.validation import check_integer

        branch_steps = check_integer("branch_steps", branch_steps, "--branch-steps")
        if len(fixed) != 1:
            raise InputError(f"--continuation: give one --{other} value (got {len(fixed)})")
        if values.size < 2:
            raise InputError(f"--continuation: --{parameter} must span a range (START:STOP:STEP with STOP > START)")
    diagram = bifurcation_sweep(spec, values, fixed, parameter=parameter, rtts=rtts, params=given)
    if not continuation:
        return BifurcationResult(diagram, model=spec)
    from ..bifurcation.branches import orbit_branches

    cycles = [r[parameter] for r in diagram.rows if r["state"] == "cycle"]
    growing = [r[parameter] for r in diagram.rows if r["state"] in ("growing", "diverged")]
    branches = orbit_branches(
        spec,
        parameter,
        float(values[0]),
        float(values[-1]),
        {other: float(fixed[0])},
        given,
        cycles,
        steps=branch_steps,
        growing=growing,
    )
    return ContinuationResult(diagram, model=spec, branches=branches)


class BifurcationResult(Result):
    """A bifurcation diagram (:class:`~rcpstab.bifurcation.result.BifurcationDiagram` in ``.value``)."""

    command = "bifurcation"

    def columns(self) -> dict:
        rows = self.value.rows
        keys = list(dict.fromkeys(k for r in rows for k in r))
        names = {
            "period_rtt": "period_rtt",
            "growth_rtt": "growth_per_rtt",
            "rightmost_real_rtt": "rightmost_real_per_rtt",
            "amplitude": "amplitude_R_over_C",
        }
        return {names.get(k, k): [r.get(k) for r in rows] for k in keys}

    def summary(self) -> str:
        return self.value.summary()

    def plot(self, ax=None, **kwargs):
        from ..bifurcation.plotting import bifurcation_plot

        return bifurcation_plot(self.value, ax=ax, **kwargs)


class ContinuationResult(BifurcationResult):
    """A bifurcation diagram with its branches of periodic orbits (``bifurcation --continuation``).

    ``.value`` is the simulations' :class:`~rcpstab.bifurcation.result.BifurcationDiagram`,
    ``.branches`` the list of :class:`~rcpstab.bifurcation.branches.Branch`.
    """

    @property
    def branches(self) -> list:
        return self.inputs["branches"]

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["branches"] = strict(
            [{"source": b.source, "model": b.model, "points": b.points, "folds": b.folds, "stop": b.stop} for b in self.branches]
        )
        return out

    def summary(self) -> str:
        p = self.value.parameter
        parts = []
        for b in self.branches:
            if b.source == "ray":
                parts.append(f"{b.model}: {b.stop}")
                continue
            stable = sum(r["stable"] for r in b.points)
            gains = [r[p] for r in b.points]
            folds = ", ".join(f"{f[p]:.4f}" for f in b.folds) or "none"
            parts.append(
                f"{b.model} branch from {b.source}: {len(b.points)} orbits, {p} {min(gains):.4f}..{max(gains):.4f},"
                f" {stable} stable, {len(b.points) - stable} unstable, folds at {p} = {folds}"
            )
        return "\n".join([super().summary()] + (parts or ["no periodic orbit found in the range"]))

    def plot(self, ax=None, **kwargs):
        from ..bifurcation.plotting import continuation_plot

        return continuation_plot(self.value, self.branches, ax=ax, **kwargs)
