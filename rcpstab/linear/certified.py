"""A certified stable region: a Lyapunov-Krasovskii functional found by semidefinite programming.

For a model whose right-hand sides are affine in the states (``switched``, eq. 5.14, and
``linear``, eq. 5.15) with one delay, write the deviation from equilibrium in round trips
(tau = t/d0) as a switched delay system::

    x'(tau) = A_m x(tau) + A_d x(tau - 1),

with one mode ``m`` for the free dynamics and, per clamp, one for the clamped state sitting on its
bound (its row of A_0 and A_d zeroed; the clamped state is 0 there). One functional common to every
mode (Balakrishnan, Dukkipati, McKeown and Tomlin's approach to RCP as a switched time-delay
system)::

    V = eta' P eta + int_{tau-1}^{tau} x(s)' Q x(s) ds + int_{-1}^{0} int_{tau+th}^{tau} x'(s)' R x'(s) ds dth,
    eta = (x(tau), int_{tau-1}^{tau} x(s) ds),

decreases along every mode when the Wirtinger-based LMI of Seuret and Gouaisbaut (2013) holds
on the states the mode allows (in a clamped mode the clamped component of x(tau) is 0, so the
condition is imposed on that subspace only), with P > 0, R > 0, Q >= 0. With P on x alone and
Jensen's inequality instead (``bound="jensen"``, more conservative) the condition is the classical::

    [[P A_m + A_m' P + Q - R,  P A_d + R,   A_m' R],
     [      *,                 -Q - R,      A_d' R],
     [      *,                   *,          -R   ]]  < 0.

V is continuous across switches, so strict feasibility proves global asymptotic stability of the switched system, for
every initial condition: a *sufficient* condition, conservative by construction.

Each grid point is one SDP (cvxpy, Clarabel or SCS): maximize the margin t with every matrix
inequality held at ``-t I`` (``P, R >= t I``) and trace(P + Q + R) <= 1. A point is certified
only when the solver's matrices pass an independent NumPy check: every LMI's largest eigenvalue
negative, P and R positive definite. The margin (dimensionless, for that normalization) is in
the table.

cvxpy is an optional dependency (``pip install 'rcpstab[sdp]'``); without it
:func:`certified_region` raises :class:`~rcpstab.errors.InputError`.
"""

from __future__ import annotations

import warnings

import numpy as np
import sympy as sp

from ..errors import InputError
from ..models import as_model
from ..models.spec import ModelSpec
from .grid import check_gains
from .linearization import linearize
from .result import RegionMap

__all__ = ["certified_region", "SOLVERS", "SOLVER_OPTIONS", "solver_options"]

SOLVERS = ("CLARABEL", "SCS")  # preference order, both open source
SOLVER_OPTIONS: dict[str, dict[str, object]] = {"CLARABEL": {"max_threads": 1}}
"""Per solver, the options every solve passes. One thread: these SDPs are small (PSD blocks up to ~20 wide),
so a second thread's synchronisation costs more CPU than it saves (the same iterates, bit for bit), and
callers that want parallelism run grid points in parallel. Passed through :func:`solver_options`, which leaves
out what the installed solver does not know (Clarabel before its multithreaded releases has no ``max_threads``,
and cvxpy would fail the solve on it)."""
CHECK_TOLERANCE = 1e-9  # verified eigenvalues must be below -this (LMIs) / above this (P, R)


def solver_options(solver: str) -> dict[str, object]:
    """The :data:`SOLVER_OPTIONS` of ``solver`` that the installed solver accepts.

    Parameters
    ----------
    solver : str
        A cvxpy solver name (one of :data:`SOLVERS`).

    Returns
    -------
    dict of str to object
        Keyword arguments for ``problem.solve``.

    Examples
    --------
    >>> solver_options("SCS")
    {}
    """
    options = SOLVER_OPTIONS.get(solver, {})
    if solver == "CLARABEL" and options:
        import clarabel

        settings = clarabel.DefaultSettings()
        options = {key: value for key, value in options.items() if hasattr(settings, key)}
    return dict(options)


def _import_cvxpy():
    try:
        import cvxpy
    except ImportError:
        raise InputError(
            "--method certified needs an SDP solver: install the extra with "
            "pip install 'rcpstab[sdp]' (cvxpy could not be imported)"
        ) from None
    installed = set(cvxpy.installed_solvers())
    solver = next((s for s in SOLVERS if s in installed), None)
    if solver is None:
        raise InputError(
            f"--method certified needs one of the solvers {', '.join(SOLVERS)} for cvxpy (pip install 'rcpstab[sdp]')"
        )
    return cvxpy, solver


def switched_modes(model: ModelSpec):
    """Normalized loop matrices as functions of (alpha, beta), and the modes.

    Returns
    -------
    A0, Ad : callable
        ``f(alpha, beta) -> ndarray (n, n)``, in round trips (already multiplied by d0).
    modes : list of (ndarray of int, ndarray of int)
        Per mode: the free state indices (the rows/columns of x(tau) kept) and the zeroed rows.
    """
    plain = model.plain_rhs()
    symbols = list(model.current_symbols) + [term.symbol for term in model.delayed_terms]
    if any(sp.diff(f, a, b) != 0 for f in plain for a in symbols for b in symbols):
        raise InputError(
            f"--method certified: model {model.name!r} is not affine in its states "
            "(the certificate covers the switched and linear models, eqs. 5.14-5.15)"
        )
    system = linearize(model)
    if len(system.delayed) != 1:
        raise InputError(f"--method certified: model {model.name!r} has {len(system.delayed)} delays (one needed)")
    ((tau, Ad),) = system.delayed.items()
    alpha, beta = model.loop_parameters
    others = {k: v for k, v in model.parameters.items() if k not in (alpha, beta)}
    if float((tau / model.time_scale).subs(others)) != 1.0:
        raise InputError(f"--method certified: the delay {tau} is not one round trip")
    d0 = model.time_scale
    A0 = sp.lambdify((alpha, beta), (system.A0 * d0).subs(others), modules="numpy")
    Adf = sp.lambdify((alpha, beta), (Ad * d0).subs(others), modules="numpy")
    n = len(model.loop_states)  # the linearization's states: a buffer's overflow accumulator is not one
    modes = [(np.arange(n), np.array([], dtype=int))]
    for clamp in model.clamps:
        i = model.loop_states.index(clamp.state)
        modes.append((np.delete(np.arange(n), i), np.array([i])))
    return A0, Adf, modes


def _restrict(M, keep, n):
    """Keep the rows/columns of x(tau)'s free components and every other block of an LMI."""
    rows = np.concatenate([keep, np.arange(n, M.shape[0])])
    return M[rows][:, rows] if len(keep) < n else M


def _lmi_jensen(P, Q, R, A, Ad, keep, stack):
    """Jensen's LMI of one mode (xi = x, x(tau-1); Schur complement of the derivative term)."""
    n = A.shape[0]
    top = stack(
        [[P @ A + A.T @ P + Q - R, P @ Ad + R, A.T @ R], [(P @ Ad + R).T, -Q - R, Ad.T @ R], [(A.T @ R).T, (Ad.T @ R).T, -R]]
    )
    return _restrict(top, keep, n)


def _lmi_wirtinger(P, Q, R, A, Ad, keep, stack):
    """Seuret and Gouaisbaut's Wirtinger-based LMI (2013, Thm. 5 with h = 1) of one mode.

    xi = (x, x(tau-1), int_{tau-1}^{tau} x); P acts on eta = (x, int x), so the functional also
    weighs the state's recent average. Jensen's LMI is the special case that ignores it.
    """
    n = A.shape[0]
    I, Z = np.eye(n), np.zeros((n, n))
    F0 = np.block([[I, Z, Z], [Z, Z, I]])
    F1 = stack([[A, Ad, Z], [I, -I, Z]])
    E0 = np.block([[I, -I, Z]])
    E1 = np.block([[I, I, -2 * I]])
    G = stack([[A, Ad, Z]])
    He = F0.T @ P @ F1
    Phi = He + He.T + stack([[Q, Z, Z], [Z, -Q, Z], [Z, Z, Z]]) - E0.T @ R @ E0 - 3 * (E1.T @ R @ E1)
    top = stack([[Phi, G.T @ R], [R @ G, -R]])
    return _restrict(top, keep, n)


BOUNDS = {"wirtinger": (_lmi_wirtinger, 2), "jensen": (_lmi_jensen, 1)}
"""Integral bound -> (LMI builder, size of P in units of n)."""


def certified_region(model: ModelSpec, alphas, betas, bound: str = "wirtinger", params: dict | None = None) -> RegionMap:
    """Grid points where a common Lyapunov-Krasovskii functional proves stability (see the module docstring).

    Parameters
    ----------
    model : ModelSpec
        Affine in its states with one delay: ``switched`` or ``linear``.
    alphas, betas : array_like
        Grid axes (positive gains).
    bound : {'wirtinger', 'jensen'}
        Integral inequality bounding the functional's double integral (Wirtinger's is less
        conservative; both are sound).

    params : dict, optional
        Any other parameter the model declares, by name, one value each (the model's own
        values otherwise): the linear loop at those values.

    Returns
    -------
    RegionMap
        ``method = "certified"``; table columns ``alpha, beta, stable, margin`` (margin: the
        SDP's t, negative or 0 where no certificate was found).

    Examples
    --------
    >>> from rcpstab.models import get_model
    >>> r = certified_region(get_model("switched"), [0.3, 1.9], [0.1])   # doctest: +SKIP
    >>> r.stable.tolist()                                                   # doctest: +SKIP
    [[True, False]]
    """
    if bound not in BOUNDS:
        raise InputError(f"integral bound {bound!r}: choose from {', '.join(BOUNDS)}")
    lmi, p_blocks = BOUNDS[bound]
    cp, solver = _import_cvxpy()
    model = as_model(model).with_values(params)
    alphas = check_gains(alphas, "alpha")
    betas = check_gains(betas, "beta")
    A0f, Adf, modes = switched_modes(model)
    n = len(model.loop_states)

    # A0 and Ad are affine in (alpha, beta): A(alpha, beta) = C + alpha*Ca + beta*Cb, so one DPP problem
    # is compiled once and re-solved with new parameter values.
    def affine(f):
        c = np.asarray(f(0.0, 0.0), float)
        return c, np.asarray(f(1.0, 0.0), float) - c, np.asarray(f(0.0, 1.0), float) - c

    a_par, b_par = cp.Parameter(nonneg=True), cp.Parameter(nonneg=True)
    (c0, ca0, cb0), (cd, cad, cbd) = affine(A0f), affine(Adf)
    A0 = c0 + a_par * ca0 + b_par * cb0
    Ad = cd + a_par * cad + b_par * cbd
    P = cp.Variable((p_blocks * n, p_blocks * n), symmetric=True)
    Q = cp.Variable((n, n), symmetric=True)
    R = cp.Variable((n, n), symmetric=True)
    t = cp.Variable()
    constraints = [P >> t * np.eye(p_blocks * n), R >> t * np.eye(n), Q >> 0, cp.trace(P) + cp.trace(Q + R) <= 1]
    for keep, zeroed in modes:
        A, D = A0, Ad
        if zeroed.size:
            free = np.eye(n)
            free[zeroed, zeroed] = 0.0
            A, D = free @ A0, free @ Ad
        M = lmi(P, Q, R, A, D, keep, cp.bmat)
        size = M.shape[0]
        constraints.append((M + M.T) / 2 << -t * np.eye(size))
    problem = cp.Problem(cp.Maximize(t), constraints)

    stable = np.zeros((betas.size, alphas.size), dtype=bool)
    margin = np.full(stable.shape, np.nan)
    for j, b in enumerate(betas):
        for i, a in enumerate(alphas):
            a_par.value, b_par.value = float(a), float(b)
            try:
                with warnings.catch_warnings():
                    # "solution may be inaccurate": the independent check below decides anyway
                    warnings.simplefilter("ignore", UserWarning)
                    problem.solve(solver=solver, **solver_options(solver))
            except cp.error.SolverError:
                continue
            if t.value is None or P.value is None:
                continue
            margin[j, i] = float(t.value)
            stable[j, i] = margin[j, i] > 0 and _verified(lmi, P.value, Q.value, R.value, A0f(a, b), Adf(a, b), modes)
    aa, bb = np.meshgrid(alphas, betas)
    table = {
        "alpha": aa.ravel(),
        "beta": bb.ravel(),
        "stable": stable.ravel().astype(int),
        "margin": np.where(np.isfinite(margin), margin, 0.0).ravel(),
    }
    return RegionMap(
        model=model,
        method="certified",
        alpha=alphas,
        beta=betas,
        stable=stable,
        table=table,
        meta={"functional": f"common Lyapunov-Krasovskii, {bound} bound", "modes": len(modes), "solver": solver},
    )


def _verified(lmi, P, Q, R, A0, Ad, modes) -> bool:
    """Check the solver's matrices independently: strict LMIs in double precision."""
    n = A0.shape[0]
    P, Q, R = ((X + X.T) / 2 for X in (P, Q, R))
    if np.linalg.eigvalsh(P).min() <= CHECK_TOLERANCE or np.linalg.eigvalsh(R).min() <= CHECK_TOLERANCE:
        return False
    # Q >= 0 is needed for V > 0; shift away the solver's rounding (the LMIs are checked with the shifted Q)
    Q = Q + max(0.0, -np.linalg.eigvalsh(Q).min()) * np.eye(n)
    for keep, zeroed in modes:
        A, D = np.array(A0, float), np.array(Ad, float)
        A[zeroed] = 0.0
        D[zeroed] = 0.0
        M = lmi(P, Q, R, A, D, keep, np.block)
        if np.linalg.eigvalsh((M + M.T) / 2).max() >= -CHECK_TOLERANCE:
            return False
    return True
