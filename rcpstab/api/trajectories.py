"""``rcpstab.simulate`` (one fluid run) and ``rcpstab.portrait`` (``rcpstab portrait``: App. E's starts, judged)."""

from __future__ import annotations

import math

import numpy as np

from ..errors import InputError
from ..figures_raster import is_png
from ..runtime.validation import check_run_cost, check_value
from .common import as_model, network_params, plausible
from .regions import network_text
from .result import Result, strict

__all__ = ["PortraitResult", "TrajectoryResult", "portrait", "simulate"]

SIMULATE_BYTES_PER_START_RTT = 90  # the trajectories' samples, from a run of 1e6 starts (8.94 GiB at 100 RTTs)
SWING_RTT = 10.0  # the summary's swing is measured over the run's last this many round trips


def _check_rtts(rtts) -> float:
    return float(check_value("rtts", rtts, "--rtts"))


def simulate(
    model,
    alpha: float,
    beta: float,
    rtts: float = 100.0,
    *,
    C=None,
    d0=None,
    N=None,
    T=None,
    gamma0=None,
    q0=None,
    record_every: int | None = None,
    **params,
):
    """Integrate the nonlinear fluid model at one (alpha, beta) for ``rtts`` round trips.

    Parameters
    ----------
    model : str or ModelSpec
        A bundled model's name (``"rcp"``, ``"xcp"``, ...), a protocol file's path or a
        :class:`~rcpstab.models.ModelSpec`.
    alpha, beta : float
        The gains (> 0, dimensionless).
    rtts : float
        Duration in round trips d0.
    C, d0, N, T : float or array_like, optional
        Capacity (bit/s), propagation RTT (s), flows, update interval (s); App. E's by default
        (0.15 Gb/s, 0.2 s, 10, 0.01 s). C and N (and any ``**params`` that is not a delay) may take one
        value per trajectory (a batch, broadcast against ``gamma0``/``q0``, which must then be given);
        d0 and T are shared by the batch.
    gamma0, q0 : array_like, optional
        Initial R/C and queues (bits), one trajectory per pair. Default: App. E's six starts
        (R/C in {0.5, 0.1, 0.01} x q in {2*C*d0, 0}), placed relative to the model's equilibrium.
    record_every : int, optional
        Keep every this many integration steps (default: at most 20 000 samples per trajectory).
    **params
        Any other parameter the model declares, by name (a user's model: its own names).

    Returns
    -------
    TrajectoryResult
        ``.gamma`` (R/C) and ``.queue`` (bits) per sample and start; ``.plot()`` draws the portrait,
        ``.judge()`` judges each recorded trace, ``.band_distance()`` measures it in the convergence band.

    See Also
    --------
    portrait : App. E's starts about the model's own equilibrium, each judged (``rcpstab portrait``).

    Examples
    --------
    >>> traj = simulate("rcp", 0.4, 0.2, rtts=400)
    >>> traj
    TrajectoryResult(model='rcp', 6 trajectories, 0..400 RTTs (d0 = 0.2 s), alpha=0.4, beta=0.2)
    >>> [round(float(g), 4) for g in traj.gamma[-1]]   # every start ends at R/C = 1/N
    [0.1, 0.1, 0.1, 0.1, 0.1, 0.1]

    A batch over capacity and flows, each started at half its fair share: the normalized loop is the same,
    so R/(C/N) follows one curve whatever C and N (the thesis' Sec. 5.1 normalization):

    >>> batch = simulate("rcp", 0.4, 0.2, rtts=40, C=[10e6, 10e9], N=[10, 1000], gamma0=[0.05, 0.0005], q0=0.0)
    >>> bool(abs(batch.gamma[:, 0] * 10 - batch.gamma[:, 1] * 1000).max() < 1e-9)
    True
    """
    from ..phaseplane.sweep import configurations
    from ..phaseplane.trajectory import simulate_rtts

    spec = as_model(model)
    rtts = _check_rtts(rtts)
    for name, value in (("C", C), ("d0", d0), ("T", T)):
        plausible(name, value)
    alpha, beta = check_value("alpha", alpha, field="alpha"), check_value("beta", beta, field="beta")
    given = network_params(spec, C, d0, N, T, params)
    batch = {k: np.asarray(v, dtype=float).ravel() for k, v in given.items() if np.size(v) > 1}
    given = network_params(spec, params={k: v for k, v in given.items() if k not in batch}, single=True)
    (config,) = configurations(spec, {k: [v] for k, v in given.items()})
    if record_every is not None and not (isinstance(record_every, (int, np.integer)) and record_every >= 1):  # type: ignore[redundant-expr]  # callers without type checking pass anything
        raise InputError(f"record_every = {record_every!r}: must be a whole number >= 1")
    starts = 6  # App. E's
    if gamma0 is not None or q0 is not None:
        if gamma0 is None or q0 is None:
            raise InputError("gamma0 and q0: give both or neither")
        try:
            gamma0, q0 = np.broadcast_arrays(np.asarray(gamma0, dtype=float), np.asarray(q0, dtype=float))
        except (TypeError, ValueError) as exc:
            raise InputError(f"gamma0 and q0: expected numbers of one shape ({str(exc).splitlines()[0][:200]})") from None
        if not (np.all(np.isfinite(gamma0)) and np.all(np.isfinite(q0))):
            raise InputError("gamma0 and q0: must be finite")
        starts = gamma0.size
    if batch:
        try:
            shape = np.broadcast_shapes(*(v.shape for v in batch.values()), np.shape(gamma0 if gamma0 is not None else 0))
        except ValueError:
            raise InputError(
                f"{', '.join(batch)}, gamma0, q0: one value per trajectory, of one length "
                f"(got {', '.join(str(v.size) for v in batch.values())} and {np.size(gamma0)})"
            ) from None
        starts = int(np.prod(shape))
    # 1e6 starts at 100 RTTs asked numpy for 8.94 GiB: about 90 bytes per start and RTT
    check_run_cost(
        f"simulate with {starts} starts over {rtts:g} RTTs", 0.0, starts * max(rtts, 1.0) * SIMULATE_BYTES_PER_START_RTT
    )
    traj = simulate_rtts(spec, alpha, beta, rtts, given, gamma0, q0, batch=batch, record_every=record_every)
    return TrajectoryResult(traj, model=spec, config=dict(config, **batch), alpha=alpha, beta=beta, rtts=rtts)


class TrajectoryResult(Result):
    """Fluid trajectories (:class:`~rcpstab.phaseplane.trajectory.Trajectory` in ``.value``)."""

    command = "simulate"

    def columns(self) -> dict:
        traj = self.value
        starts = traj.gamma.shape[1]
        samples = len(traj.t)
        return {
            "ic": np.repeat(np.arange(starts), samples),
            "gamma0": np.repeat(traj.gamma[0], samples),
            "q0_bits": np.repeat(traj.queue[0], samples),
            "t_s": np.tile(np.asarray(traj.t, dtype=float), starts),
            "R_over_C": traj.gamma.T.ravel(),
            "queue_bits": traj.queue.T.ravel(),
        }

    def to_dict(self) -> dict:
        traj = self.value
        return strict(
            {
                "model": self.inputs["model"].name,
                "alpha": self.inputs["alpha"],
                "beta": self.inputs["beta"],
                "rtts": self.inputs["rtts"],
                "network": self.inputs["config"],
                "final_R_over_C": traj.gamma[-1],
                "final_queue_bits": traj.queue[-1],
            }
        )

    def summary(self) -> str:
        return repr(self.value)

    def _repr_text(self) -> str:
        text = repr(self.value)
        return text[text.index("(") + 1 : -1]

    def write_csv(self, path: str) -> None:
        self.to_csv(path)

    def judge(self):
        """Judge each recorded trajectory as it stands (the one judgement of fluid and packet traces).

        Returns
        -------
        rcpstab.verdicts.judgement.Judgement
            Per trajectory: ``names`` (converged, limit_cycle, diverged, undecided), ``convergence_rtt`` (the
            last exit from the band, RTTs), ``amplitude_rate`` (fraction of the equilibrium rate),
            ``amplitude_queue`` (fraction of C*d0), ``period_rtt`` and the envelope's trend ``rate_per_rtt``
            with its standard error ``rate_stderr`` (per RTT). Unlike :func:`portrait`, no horizon is chosen:
            a run too short to tell is ``undecided``.

        Examples
        --------
        >>> j = simulate("rcp", 0.4, 0.2, rtts=400).judge()
        >>> [str(n) for n in j.names]
        ['converged', 'converged', 'converged', 'converged', 'converged', 'converged']
        >>> j = simulate("rcp", 1.4, 0.8, rtts=400, gamma0=0.5, q0=0.0).judge()   # outside the linear region
        >>> str(j.names[0])
        'limit_cycle'
        """
        from ..verdicts.judgement import judge_trace

        traj = self.value
        return judge_trace(traj.rtt, traj.gamma, traj.queue, traj.gamma_eq, traj.queue_eq, traj.queue_scale)

    def band_distance(self):
        """Distance of every sample from equilibrium in units of the convergence band (<= 1: inside).

        Returns
        -------
        numpy.ndarray, shape (samples, trajectories)
            ``max(abs(R/Re - 1) / 0.02, abs(q - qe) / (0.01 C d0))`` (dimensionless; the standard band).

        Examples
        --------
        >>> traj = simulate("rcp", 0.4, 0.2, rtts=200, gamma0=0.2, q0=0.0)   # twice the fair share 1/N
        >>> d = traj.band_distance()
        >>> round(float(d[0, 0]), 6), bool(d[-1, 0] < 1)          # starts 100% off: 50 band widths
        (50.0, True)
        """
        from ..verdicts.band import band_distance

        traj = self.value
        return band_distance(traj.gamma, traj.queue, traj.gamma_eq, traj.queue_eq, traj.queue_scale)


def portrait(
    model,
    alpha: float,
    beta: float,
    rtts: float = 100.0,
    *,
    C=None,
    d0=None,
    N=None,
    T=None,
    buffer_bdp=None,
    gamma0=None,
    q0=None,
    **params,
):
    """App. E's six starts about ``model``'s own equilibrium, integrated and each judged (``rcpstab portrait``).

    Starts R/C in {0.5, 0.1, 0.01} x q in {2*C*d0, 0} placed relative to the equilibrium (the full
    queue held to the buffer when ``buffer_bdp`` is smaller); each trajectory is judged with its own
    adaptive horizon (:func:`rcpstab.phaseplane.decide`).

    Parameters
    ----------
    model : str or ModelSpec
        A bundled model's name (``"rcp"``, ``"xcp"``, ...), a protocol file's path or a
        :class:`~rcpstab.models.ModelSpec`.
    alpha, beta : float
        The gains (> 0, dimensionless).
    rtts : float
        Duration of the recorded run in round trips.
    C, d0, N, T : float, optional
        bit/s, s, flows, s (the model's defaults).
    buffer_bdp : float, optional
        Buffer in bandwidth-delay products (default: unbounded).
    gamma0, q0 : array_like, optional
        Other starts instead of App. E's: initial R/C (dimensionless) and queues (bits), one start per pair.
    **params
        Any other parameter the model declares, by name (a user's model: its own names).

    Returns
    -------
    PortraitResult
        ``.trajectory``, ``.verdicts`` (names per start), ``.judgement`` (convergence times, amplitudes,
        periods), ``.summary()``, ``.plot()`` (with any limit cycle).

    Examples
    --------
    >>> p = portrait("rcp", 0.4, 0.2, rtts=50)
    >>> sorted(set(p.verdicts))
    ['converged']
    """
    from ..phaseplane.compiled import compile_model
    from ..phaseplane.decide import decide
    from ..phaseplane.setup import parameter_values
    from ..phaseplane.sweep import buffer_bits, configurations, equilibrium_starts
    from ..phaseplane.trajectory import simulate as integrate

    spec = as_model(model)
    rtts = _check_rtts(rtts)
    for name, value in (("C", C), ("d0", d0), ("T", T)):
        plausible(name, value, f"--{name}")
    (config,) = configurations(spec, network_params(spec, C, d0, N, T, params, single=True))
    point = dict(config, alpha=alpha, beta=beta)
    held = buffer_bits(spec, buffer_bdp, point)
    point.update(held)
    if gamma0 is not None or q0 is not None:
        if gamma0 is None or q0 is None:
            raise InputError("gamma0 and q0: give both or neither")
        gammas, queues = (np.ravel(v) for v in np.broadcast_arrays(np.asarray(gamma0, dtype=float), np.asarray(q0, dtype=float)))
        if not (np.all(np.isfinite(gammas)) and np.all(np.isfinite(queues))):
            raise InputError("gamma0 and q0: must be finite")
    else:
        gammas, queues = (v[0] for v in equilibrium_starts(spec, point))
        if held:  # App. E's full-queue start (2 C*d0) cannot exceed the buffer
            queues = queues.clip(max=next(iter(held.values())))
    compiled = compile_model(spec)
    rtt = float(compiled.time_scale(*parameter_values(compiled, point)))
    start = {"gamma0": gammas, "q0": queues}
    traj = integrate(spec, point, start, rtts * rtt)
    judged = decide(spec, point, start)
    return PortraitResult(
        traj, model=spec, config=config, params=point, start=start, judged=judged, alpha=alpha, beta=beta, rtts=rtts
    )


def portrait_png_without_matplotlib(path: str | None) -> bool:
    """Whether :meth:`PortraitResult.save` writes ``path`` without matplotlib's figure (a PNG)."""
    return path is not None and is_png(path)


class PortraitResult(TrajectoryResult):
    """A judged phase portrait: the trajectories (``.value``) and each start's verdict."""

    command = "portrait"

    @property
    def trajectory(self):
        return self.value

    @property
    def verdicts(self) -> list[str]:
        return [str(v) for v in self.inputs["judged"].names]

    @property
    def judgement(self):
        """Each start's judgement, each integrated as far as its verdict needed (an adaptive horizon).

        Returns
        -------
        rcpstab.verdicts.judgement.Judgement
            ``names``, ``convergence_rtt`` (the last exit from the band, RTTs), ``horizon_rtt``,
            ``period_rtt``, ``amplitude_rate``/``amplitude_queue``, ``rate_per_rtt`` +- ``rate_stderr``.

        Examples
        --------
        The load doubles (R(0) = 2 C/N): judged with an adaptive horizon, and again from a fixed 400-RTT
        record of every step, the two agree on when the trajectory last leaves the band:

        >>> j = portrait("rcp", 0.5, 0.5, rtts=1, gamma0=0.2, q0=0.0).judgement
        >>> fixed = simulate("rcp", 0.5, 0.5, rtts=400, gamma0=0.2, q0=0.0, record_every=1).judge()
        >>> str(j.names[0]), float(j.convergence_rtt[0]) == float(fixed.convergence_rtt[0])
        ('converged', True)
        """
        return self.inputs["judged"]

    def to_dict(self) -> dict:
        judged = self.inputs["judged"]
        return strict(
            {
                **super().to_dict(),
                "verdicts": self.verdicts,
                "horizon_rtt": np.asarray(judged.horizon_rtt, dtype=float),
                "period_rtt": np.asarray(judged.period_rtt, dtype=float),
                "ends_in_band": self._inside(),
                "swing": self._swing(),
            }
        )

    def _last(self):
        traj, rtts = self.value, self.inputs["rtts"]
        return traj.rtt >= traj.rtt[-1] - min(SWING_RTT, rtts / 2)

    def _inside(self):
        from ..verdicts.band import band_distance

        traj = self.value
        return band_distance(traj.gamma[-1], traj.queue[-1], traj.gamma_eq, traj.queue_eq, traj.queue_scale) <= 1.0

    def _swing(self) -> float:
        traj = self.value
        return float(np.max(np.abs(traj.gamma[self._last()] / traj.gamma_eq - 1.0)))

    def summary(self) -> str:
        """Each start's verdict (with its adaptive horizon), how many end in the band, how far R/C still
        swings, and the buffer with what it dropped."""
        from ..figures import buffer_summary
        from ..verdicts.band import STANDARD

        rtts, judged = self.inputs["rtts"], self.inputs["judged"]
        inside = self._inside()
        verdicts = (
            ", ".join(f"{int((judged.names == v).sum())} {v.replace('_', ' ')}" for v in dict.fromkeys(judged.names))
            + " of App. E's six starts; "
        )
        return (
            f"{self.inputs['model'].name} at alpha = {self.inputs['alpha']:g}, beta = {self.inputs['beta']:g} "
            f"({network_text(self.inputs['config'])}): {verdicts}after {rtts:g} RTTs "
            f"{int(inside.sum())} of {inside.size} starts end inside the convergence band "
            f"({STANDARD.describe('C*d0')}) and over the last {min(SWING_RTT, rtts / 2):g} RTTs R/C deviates up to "
            f"{100 * self._swing():.1f}% from equilibrium" + buffer_summary(self.value)
        )

    def _repr_text(self) -> str:
        return super()._repr_text() + f", verdicts: {', '.join(dict.fromkeys(self.verdicts))}"

    def limit_cycles(self, periods: float = 3.0) -> dict:
        """``{index: (gamma, queue_bits)}`` over ``periods`` periods of each limit cycle, recorded every
        step after the horizon its verdict needed (the trajectory is then on the cycle)."""
        from ..phaseplane.setup import make_integrator

        spec, params, start, judged = (self.inputs[k] for k in ("model", "params", "start", "judged"))
        cycles = {}
        for b in np.flatnonzero(judged.names == "limit_cycle"):
            one = {k: np.asarray(v)[b] if np.ndim(v) else v for k, v in start.items()}
            integrator = make_integrator(spec, params, one)
            steps_per_rtt = float(np.max(integrator.model.time_scale(*integrator.params))) / integrator.dt
            integrator.run(int(math.ceil(judged.horizon_rtt[b] * steps_per_rtt)))
            period = judged.period_rtt[b] if np.isfinite(judged.period_rtt[b]) else 20.0
            rows = integrator.run(int(math.ceil(periods * period * steps_per_rtt)), record_every=1)
            states = [rows[:, 0, i] for i in range(rows.shape[2])]
            values = integrator.params
            cycles[int(b)] = tuple(
                np.broadcast_to(f(*states, *values), states[0].shape) for f in (integrator.model.gamma, integrator.model.queue)
            )
        return cycles

    def plot(self, ax=None, **kwargs):
        from ..phaseplane.plotting import portrait_plot

        return portrait_plot(self.value, ax=ax, **self._figure_keywords(kwargs))

    def _figure_keywords(self, kwargs: dict) -> dict:
        """The portrait's verdicts, limit cycles and title, unless ``kwargs`` gives them."""
        kwargs = dict(kwargs)
        kwargs.setdefault("verdicts", self.inputs["judged"])
        if "cycles" not in kwargs:
            kwargs["cycles"] = self.limit_cycles()
        first, second = self.inputs["model"].parameter_table.loop  # the model's own gain names
        kwargs.setdefault(
            "title",
            f"Phase portrait, model '{self.inputs['model'].name}', "
            f"{first} = {self.inputs['alpha']:g}, {second} = {self.inputs['beta']:g}",
        )
        return kwargs

    def save(self, path: str) -> None:
        """Write the portrait to ``path`` (.png, .svg, .pdf); a PNG is drawn without matplotlib's figure
        (:mod:`rcpstab.phaseplane.portrait_raster`)."""
        if is_png(path):
            from ..phaseplane.portrait_raster import portrait_figure

            portrait_figure(self.value, **self._figure_keywords({})).save(path)
            return
        from ..figures import draw_and_save

        draw_and_save(lambda traj, ax: self.plot(ax=ax), self.value, path)
