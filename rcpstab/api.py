"""The Python entry points of rcpstab, in python-control's style.

Each function takes a *system* (a model name such as ``"rcp"`` or a
:class:`~rcpstab.models.ModelSpec`) and returns a result object with named fields, a
short repr and a ``.plot()`` method that calls the matching ``*_plot`` function, as
``control.nyquist_response(sys).plot()`` does. They are re-exported at the top level:
``rcpstab.region``, ``rcpstab.margins``, ``rcpstab.linearize``, ``rcpstab.simulate``,
``rcpstab.cosim``. The command line computes the same things through the same engines.

Units: gains are dimensionless; frequencies and roots normalized by d0 (w*d0, s*d0);
network parameters in SI units (C in bit/s, d0 and T in s, queues in bits).
"""
from __future__ import annotations

import importlib

import numpy as np

from .errors import InputError
from .models import as_model
from .models.delayloop import DelayedFluidModel, is_loop_model

__all__ = ["REGION_METHODS", "cosim", "linearize", "margins", "region", "simulate"]

REGION_METHODS = {
    "exact": ("rcpstab.linear.exact", "exact_region"),
    "bode": ("rcpstab.linear.bode", "bode_region"),
    "nyquist": ("rcpstab.linear.nyquist", "nyquist_region"),
    "phaseplane": ("rcpstab.phaseplane.sweep", "phaseplane_region"),
    "packet": ("rcpstab.packet.lens.region", "packet_region"),
}
"""Region method -> (module, engine function); the engine is imported when the method is used."""

DEFAULT_GRID = {
    "linear": ("0.02:2.0:0.02", "0.01:1.0:0.01"),   # thesis Fig. 5.2's plane
    "simulated": ("0.1:2.0:0.1", "0.1:2.0:0.1"),    # App. E's grid
}


def _axis(values, name: str, default: str) -> np.ndarray:
    """A gain axis from ``START:STOP:STEP`` text, a number or an array (None: ``default``)."""
    from .linear.grid import check_gains, parse_range

    if values is None:
        values = default
    if isinstance(values, str):
        return parse_range(values, name)
    return check_gains(np.atleast_1d(np.asarray(values, dtype=float)), name)


def region(model="rcp", alpha=None, beta=None, method: str = "exact", **options):
    """The stable (alpha, beta) region of ``model`` seen by one ``method``.

    Parameters
    ----------
    model : str or ModelSpec
        ``"rcp"``, ``"xcp"``, ... or a model object.
    alpha, beta : str, float or array_like, optional
        Grid axes: ``"START:STOP:STEP"`` (STOP inclusive) or values. Default: Fig. 5.2's
        plane for the linear methods, App. E's 0.1..2.0 grid for ``phaseplane`` and ``packet``.
    method : {"exact", "bode", "nyquist", "phaseplane", "packet"}
        The lens (:data:`REGION_METHODS`).
    **options
        For an LTI loop (a python-control system or ``(num, den)`` as ``model``): ``gain`` and
        ``delay`` (s) arrays, the exact region over them (:func:`rcpstab.linear.lti.loop_region`).
        Otherwise passed to the engine: ``pade`` (nyquist); ``C``, ``d0``, ``N`` (lists), ``T``,
        ``workers``, ``checkpoint`` (phaseplane); ``scenario``, ``workers`` (packet).

    Returns
    -------
    RegionMap
        ``.stable[j, i]`` at ``(alpha[i], beta[j])``; ``.plot()`` draws it.

    Examples
    --------
    >>> r = region("rcp", alpha="0.2:1.6:0.2", beta="0.1:0.7:0.2")
    >>> r                              # 15: the closed-form boundary (eq. D.1) gives the same count
    RegionMap(model='rcp', method='exact', alpha: 8 points 0.2..1.6, beta: 4 points 0.1..0.7, stable: 15 of 32 (46.9%))
    >>> bool(r.stable[0, 1])           # (alpha, beta) = (0.4, 0.1): inside the thesis' region
    True
    """
    from .linear.lti import is_loop

    if is_loop(model):                                # an LTI loop: its exact region over (gain, delay)
        from .linear.lti import loop_region

        if "gain" not in options or "delay" not in options:
            raise InputError("region of an LTI loop: give gain=[...] (loop-gain factors) and delay=[...] (s)")
        return loop_region(model, options["gain"], options["delay"])
    if method not in REGION_METHODS:
        raise InputError(f"method {method!r}: choose from {', '.join(REGION_METHODS)}")
    spec = as_model(model)
    alpha_default, beta_default = DEFAULT_GRID["linear" if method in ("exact", "bode", "nyquist") else "simulated"]
    alphas = _axis(alpha, "alpha", alpha_default)
    betas = _axis(beta, "beta", beta_default)
    module, function = REGION_METHODS[method]
    engine = getattr(importlib.import_module(module), function)
    return engine(spec, alphas, betas, **options)


def margins(model, alpha=None, beta=None, *, delay=None, **parameters):
    """Gain, phase and delay margins and the rightmost root of ``model``'s linear loop.

    Parameters
    ----------
    model : str, ModelSpec, control.TransferFunction, control.StateSpace or (num, den)
        A model, or any SISO LTI loop L(s) (closed by unit negative feedback through ``delay``).
    alpha, beta : float or array_like
        The gains (> 0, dimensionless) of a model; arrays broadcast against each other and give
        a :class:`~rcpstab.linear.batch.MarginsBatch` (one result per point).
    delay : float or sequence of float, optional
        An LTI loop's delay(s) in seconds (several add); see :mod:`rcpstab.linear.lti`.
    **parameters : float
        For ``"dcqcn"`` and ``"timely"`` (:mod:`rcpstab.models.delayloop`): parameter values by the
        paper's names, e.g. ``N=10, tau_star=50e-6`` (SI units); arrays give one result per point.

    Returns
    -------
    Margins or LoopMargins
        A model's: frequencies normalized (w*d0), delay margin in units of d0. An LTI loop's
        (:class:`~rcpstab.linear.lti.LoopMargins`): rad/s and seconds, exact verdict,
        ``open_loop_rhp_poles`` and ``notes`` where a margin's sign and the verdict disagree.

    Examples
    --------
    >>> m = margins("rcp", 0.4, 0.2)
    >>> m.stable, round(m.phase_margin_deg, 2), round(m.rightmost_root[0], 4)
    (True, 16.25, -0.1092)
    >>> margins("rcp", [0.4, 0.5], 0.2).phase_margin_deg.round(2)    # one result per point
    array([16.25, 21.92])
    >>> m = margins(([2.0], [1.0, -1.0]), delay=0.3)         # 2 e^{-0.3 s}/(s - 1)
    >>> m.stable, m.open_loop_rhp_poles, round(m.delay_margin, 6)
    (True, 1, 0.3046)
    """
    if is_loop_model(model) or isinstance(model, DelayedFluidModel):
        from .linear.fluid_loop import model_margins

        if any(np.ndim(v) for v in parameters.values()):       # arrays of parameters: one result per point
            from .linear.batch import MarginsBatch

            names = list(parameters)
            grid = np.broadcast_arrays(*(np.asarray(parameters[k], float) for k in names))
            points = {k: g.ravel() for k, g in zip(names, grid)}
            size = grid[0].size if grid else 0
            return MarginsBatch(model, points, [model_margins(model, **{k: float(points[k][i]) for k in names})
                                                for i in range(size)])
        return model_margins(model, **parameters)
    from .linear.lti import is_loop

    if delay is not None or is_loop(model):
        from .linear.lti import loop_margins

        return loop_margins(model, 0.0 if delay is None else delay)
    if alpha is None or beta is None:
        raise InputError(f"margins of model {getattr(model, 'name', model)!r}: give alpha and beta")
    if np.ndim(alpha) or np.ndim(beta):                          # one result per point, never the first alone
        from .linear.batch import margins_many

        return margins_many(as_model(model), alpha, beta)
    from .linear.margins import margins as compute

    return compute(as_model(model), alpha, beta)


def linearize(model="rcp"):
    """``model`` linearized about its equilibrium: A0, the delayed matrices and G(s) (App. B).

    Examples
    --------
    >>> linearize("rcp").open_loop
    (alpha*d_0*s + beta)*exp(-d_0*s)/(d_0**2*s**2)
    """
    from .linear.linearization import linearize as derive

    return derive(as_model(model))


def simulate(model, alpha: float, beta: float, rtts: float = 100.0, *, C=None, d0=None, N=None, T=None,
             gamma0=None, q0=None):
    """Integrate the nonlinear fluid model at one (alpha, beta) for ``rtts`` round trips.

    Parameters
    ----------
    model : str or ModelSpec
    alpha, beta : float
        The gains.
    rtts : float
        Duration in round trips d0.
    C, d0, N, T : float, optional
        Capacity (bit/s), propagation RTT (s), flows, update interval (s); App. E's by default
        (0.15 Gb/s, 0.2 s, 10, 0.01 s).
    gamma0, q0 : array_like, optional
        Initial R/C and queues (bits), one trajectory per pair. Default: App. E's six starts
        (R/C in {0.5, 0.1, 0.01} x q in {2*C*d0, 0}).

    Returns
    -------
    Trajectory
        ``.gamma`` (R/C) and ``.queue`` (bits) per sample and start; ``.plot()`` draws the portrait.

    See Also
    --------
    rcpstab.phaseplane.simulate : batches over any parameters, flow schedules, custom steps.

    Examples
    --------
    >>> traj = simulate("rcp", 0.4, 0.2, rtts=400)
    >>> traj
    Trajectory(model='rcp', 6 trajectories, 0..400 RTTs (d0 = 0.2 s), alpha=0.4, beta=0.2)
    >>> [round(float(g), 4) for g in traj.gamma[-1]]   # every start ends at R/C = 1/N
    [0.1, 0.1, 0.1, 0.1, 0.1, 0.1]
    """
    from .phaseplane.sweep import configurations, initial_conditions
    from .phaseplane.trajectory import simulate as integrate

    spec = as_model(model)
    if not (np.isfinite(rtts) and rtts > 0):
        raise InputError(f"rtts = {rtts}: must be > 0")
    (config,) = configurations(spec, *([v] if v is not None else None for v in (C, d0, N)), T)
    if gamma0 is None and q0 is None:
        gamma0, q0 = (v[0] for v in initial_conditions(config["C"], config["d0"], config["N"]))
    elif gamma0 is None or q0 is None:
        raise InputError("gamma0 and q0: give both or neither")
    gamma0, q0 = np.broadcast_arrays(np.asarray(gamma0, dtype=float), np.asarray(q0, dtype=float))
    return integrate(spec, dict(config, alpha=alpha, beta=beta), {"gamma0": gamma0.ravel(), "q0": q0.ravel()},
                     rtts * config["d0"])


def cosim(alpha: float, beta: float, scenario: str = "fig5.3", model: str = "rcp", **options):
    """Run ``scenario`` packet by packet (reference router) and as the fluid ``model``, and compare.

    Parameters
    ----------
    alpha, beta : float
        Router gains.
    scenario : str or Scenario
        ``"fig5.3"``, ``"testbed"``, ... or ``"fig5.7"`` (a three-link network, ``model="rcp"``).
    model : {"rcp", "xcp", "rcpac"}
        Protocol of the routers, senders and fluid model.
    **options
        ``t_end`` (s), ``seed``, ``transient_rtt`` (see
        :func:`~rcpstab.cosim.packet_vs_fluid.cosimulate`).

    Returns
    -------
    CosimResult or NetworkCosimResult
        ``.summary()`` is the ``cosim --json`` object; ``.plot()`` draws the overlay.

    Examples
    --------
    >>> result = cosim(0.4, 0.6, "fig5.3", t_end=20)
    >>> result  # doctest: +ELLIPSIS
    CosimResult(scenario='fig5.3', model='rcp', alpha=0.4, beta=0.6, 0..20 s, 1 segment(s), RMS R/C difference ...)
    >>> round(result.segments[0].packet_plateau, 2), round(result.segments[0].fluid_plateau, 2)   # eta/N = 0.2
    (0.2, 0.2)
    """
    from .cosim.network import NETWORK_SCENARIOS

    if isinstance(scenario, str) and scenario in NETWORK_SCENARIOS:
        from .cosim.network import cosimulate_network

        if model != "rcp":
            raise InputError(f"model {model!r}: scenario {scenario} runs rcp only")
        return cosimulate_network(scenario, alpha, beta, **options)
    from .cosim.packet_vs_fluid import cosimulate

    return cosimulate(scenario, alpha, beta, model=model, **options)
