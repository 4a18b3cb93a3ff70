"""A certified region for the switched loop beyond the linear one: a functional over several round trips.

The common functional of :mod:`rcpstab.linear.certified` sees one round trip of history and
cannot leave the linear region (``docs/certificates-beyond-linear.md`` proves that no quadratic
functional of one round trip can, whatever it knows about the switch). This lens uses a
functional over ``window`` round trips together with what the switch knows (the queue is never
negative, the clamp only adds to it, and which mode each block of the window was in), built in
:mod:`rcpstab.linear.switched_lkf`, solved with cvxpy and accepted only after an independent
NumPy check of every matrix inequality in double precision.

Sound for every initial condition: the functional is one for all modes, so it never jumps at a
switch, and the loop is positively homogeneous about its equilibrium, so the certificate is global.

cvxpy is an optional dependency (``pip install 'rcpstab[sdp]'``).
"""

from __future__ import annotations

import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..models import as_model
from ..models.spec import ModelSpec
from ..runtime.validation import DOMAINS
from .certified import CHECK_TOLERANCE, _import_cvxpy, solver_options, switched_modes
from .grid import check_gains
from .result import RegionMap
from .switched_lkf import Layout, common_eta_forms, decrease_lmi, positivity_lmi, stacked_loop, window_modes
from .window_obstruction import obstruction

__all__ = ["WindowCertificate", "window_certificate", "certified_window_region", "loop_matrices"]

MAX_WINDOW = int(DOMAINS["window"].high)  # 2^window mode combinations, one LMI each


@dataclass
class WindowCertificate:
    """A verified functional (matrices in the loop's own units, time in round trips).

    Attributes
    ----------
    alpha, beta : float
    window, order : int
    P, Q, R : ndarray
        The functional's matrices (module docstring of :mod:`rcpstab.linear.switched_lkf`).
    margin : float
        The SDP's t (dimensionless, for its normalization); > 0.
    """

    alpha: float
    beta: float
    window: int
    order: int
    P: np.ndarray
    Q: np.ndarray
    R: np.ndarray
    margin: float


def loop_matrices(model: ModelSpec, alpha: float, beta: float):
    """(A, Ad, clamped index or None) of an affine one-delay model, in round trips.

    Refuses a clamp this certificate does not cover (one lower clamp at the equilibrium, no finite buffer).
    """
    A0f, Adf, modes = switched_modes(model)
    clamped = None
    if len(modes) > 2:
        raise InputError(f"--method certified-window: model {model.name!r} has {len(modes) - 1} clamps (at most one)")
    if len(modes) == 2:
        clamp = model.clamps[0]
        clamped = int(modes[1][1][0])
        state = model.loop_states[clamped]
        upper = float(clamp.upper.subs(model.parameters)) if hasattr(clamp.upper, "subs") else float(clamp.upper)
        if np.isfinite(upper):
            raise InputError(
                f"--method certified-window: a finite buffer ({upper:g}) is a third mode; "
                "the certificate covers the unbounded queue"
            )
        eq = model.equilibrium.get(state)
        if eq is None or float(eq.subs(model.parameters) if hasattr(eq, "subs") else eq) != float(clamp.lower):
            raise InputError(f"--method certified-window: the clamped state {state} must sit at its bound at equilibrium")
    A, Ad = np.asarray(A0f(alpha, beta), float), np.asarray(Adf(alpha, beta), float)
    if clamped is not None and np.any(Ad[clamped] != 0):
        raise InputError("--method certified-window: the clamped state's rate must not depend on delayed states")
    return A, Ad, clamped


def _problem(cp, A, Ad, clamped, window, order):
    """The SDP (maximize t) with A and Ad as cvxpy parameters, compiled once per grid."""
    n = A.shape[0]
    # cone forms from the first point (they depend on the queue row of A only); the NumPy check uses each point's own
    lay, modes = window_modes(A, Ad, clamped, window, order)
    big = lay.n
    A_par = cp.Parameter((n, n))
    Ad_par = cp.Parameter((n, n))
    P = cp.Variable((lay.dim_eta,) * 2, symmetric=True)
    Q = cp.Variable((big, big), symmetric=True)
    R = cp.Variable((big, big), symmetric=True)
    t = cp.Variable()
    eta_forms = common_eta_forms(lay, modes)
    K0 = cp.Variable((eta_forms.shape[0],) * 2, symmetric=True) if eta_forms.shape[0] else np.zeros((0, 0))
    cons = [Q >> 0, R >> t * np.eye(big), cp.trace(Q) + cp.trace(R) <= 1]
    if eta_forms.shape[0]:
        cons.append(K0 >= 0)
    pos = positivity_lmi(lay, P, Q, K0, eta_forms)
    pos_plain = positivity_lmi(lay, P, Q, K0, np.zeros((0, lay.dim_eta)))
    cons += [(pos + pos.T) / 2 >> t * np.eye(lay.dim_eta), (pos_plain + pos_plain.T) / 2 << np.eye(lay.dim_eta)]
    Ks = []
    for mode in modes:
        m = mode.forms.shape[0]
        K = cp.Variable((m, m), symmetric=True) if m else np.zeros((0, 0))
        if m:
            cons.append(K >= 0)
        Ks.append(K)
        # the mode's matrices are linear maps of the parameters A, Ad: one compiled problem for the grid
        stacked = stacked_loop(A_par, Ad_par, clamped, mode.modes, cp.bmat)
        M = decrease_lmi(lay, _ParamMode(mode, *stacked), P, Q, R, K, cp.bmat)
        cons.append((M + M.T) / 2 << -t * np.eye(M.shape[0]))
    return cp.Problem(cp.Maximize(t), cons), (A_par, Ad_par), (P, Q, R, K0, Ks, t), lay, modes, eta_forms


class _ParamMode:
    """A mode combination with the loop matrices as cvxpy expressions of the parameters A, Ad."""

    def __init__(self, mode, A, Ad):
        self.modes, self.forms, self.basis, self.A, self.Ad = mode.modes, mode.forms, mode.basis, A, Ad


def _verified(lay: Layout, modes, eta_forms, P, Q, R, K0, Ks):
    """Every inequality again in double precision (K clipped to >= 0, Q shifted to >= 0 first).

    Returns
    -------
    (P, Q, R) as checked, or None.
    """
    P, Q, R = ((X + X.T) / 2 for X in (P, Q, R))
    if np.linalg.eigvalsh(R).min() <= CHECK_TOLERANCE:
        return None
    Q = Q + max(0.0, -np.linalg.eigvalsh(Q).min()) * np.eye(Q.shape[0])
    K0 = np.clip((K0 + K0.T) / 2, 0.0, None) if eta_forms.shape[0] else K0
    pos = positivity_lmi(lay, P, Q, K0, eta_forms)
    if np.linalg.eigvalsh((pos + pos.T) / 2).min() <= CHECK_TOLERANCE:
        return None
    for mode, K in zip(modes, Ks):
        K = np.clip((K + K.T) / 2, 0.0, None) if mode.forms.shape[0] else K
        M = decrease_lmi(lay, mode, P, Q, R, K, np.block)
        if np.linalg.eigvalsh((M + M.T) / 2).max() >= -CHECK_TOLERANCE:
            return None
    return P, Q, R


def _check_shape(window: int, order: int):
    if not (isinstance(window, (int, np.integer)) and 1 <= window <= MAX_WINDOW):  # type: ignore[redundant-expr]  # callers without type checking pass anything
        raise InputError(f"window {window!r}: an integer number of round trips from 1 to {MAX_WINDOW}")
    if not (isinstance(order, (int, np.integer)) and 1 <= order <= 4):  # type: ignore[redundant-expr]  # callers without type checking pass anything
        raise InputError(f"order {order!r}: an integer from 1 to 4")


COMPILED_KEPT = 16
"""Compiled problems kept for reuse in a process (the least recently used is dropped first)."""

_COMPILED: OrderedDict = OrderedDict()
_COMPILED_LOCK = threading.Lock()


def _compiled(cp, A, Ad, clamped, window, order):
    """:func:`_problem` for this shape, built once per process and re-solved with new parameter values.

    The key is everything the problem's constants depend on: the sizes, the clamped index and the
    clamped state's row of A (the cone forms); A and Ad themselves are parameters. A point's
    solution does not depend on which points the problem solved before (the solver starts cold).

    Returns
    -------
    (lock, problem pieces)
        Hold the lock from setting the parameters to reading the solution.
    """
    row = A[clamped].tobytes() if clamped is not None else b""
    key = (A.shape[0], clamped, window, order, row)
    with _COMPILED_LOCK:
        entry = _COMPILED.get(key)
        if entry is None:
            entry = _COMPILED[key] = (threading.Lock(), _problem(cp, A, Ad, clamped, window, order))
            while len(_COMPILED) > COMPILED_KEPT:
                _COMPILED.popitem(last=False)
        _COMPILED.move_to_end(key)
    return entry


def _solve_grid(model, points, window, order):
    cp, solver = _import_cvxpy()
    A, Ad, clamped = loop_matrices(model, *points[0])
    lock, built = _compiled(cp, A, Ad, clamped, window, order)
    problem, (A_par, Ad_par), (P, Q, R, K0, Ks, t), lay, modes, eta_forms = built
    for a, b in points:
        A, Ad, _ = loop_matrices(model, a, b)
        with lock:
            A_par.value, Ad_par.value = A, Ad
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)  # the NumPy check below decides
                    problem.solve(solver=solver, **solver_options(solver))
            except cp.error.SolverError:
                solved = None
            else:
                solved = (
                    None
                    if t.value is None or P.value is None
                    else (
                        float(t.value),
                        P.value,
                        Q.value,
                        R.value,
                        K0.value if eta_forms.shape[0] else K0,
                        [K.value if m.forms.shape[0] else K for K, m in zip(Ks, modes)],
                    )
                )
        if solved is None:
            yield a, b, np.nan, None
            continue
        margin, p, q, r, k0, ks = solved
        # the plain builders at this point's matrices, not the compiled problem, decide
        _, modes_here = window_modes(A, Ad, clamped, window, order)
        checked = _verified(lay, modes_here, eta_forms, p, q, r, k0, ks) if margin > 0 else None
        cert = WindowCertificate(a, b, window, order, *checked, margin) if checked else None
        yield a, b, margin, cert


def window_certificate(
    model, alpha: float, beta: float, window: int = 3, order: int = 1, params: dict | None = None
) -> WindowCertificate | None:
    """The verified certificate at one point, or None where the SDP finds none.

    Parameters
    ----------
    model : ModelSpec or str
        Affine in its states, one delay of one round trip, at most one lower clamp at equilibrium
        (``switched``, ``linear``).
    alpha, beta : float
        Gains (dimensionless).
    window : int
        Round trips of history in the functional (1 to 3).
    order : int
        Legendre moments per round trip (1 to 4).
    params : dict, optional
        Other model parameters by name.
    """
    _check_shape(window, order)
    model = as_model(model).with_values(params)
    ((_, _, _, cert),) = _solve_grid(model, [(float(alpha), float(beta))], window, order)
    return cert


def certified_window_region(
    model: ModelSpec, alphas, betas, window: int = 3, order: int = 1, params: dict | None = None
) -> RegionMap:
    """Grid points certified by a functional over ``window`` round trips (see the module docstring).

    Parameters
    ----------
    model : ModelSpec
        ``switched`` or ``linear`` (or any model of that form).
    alphas, betas : array_like
        Grid axes (positive gains).
    window : int
        Round trips of history (1 to 3; 2^window LMIs per point).
    order : int
        Legendre moments per round trip (1 to 4).
    params : dict, optional
        Any other parameter the model declares, by name.

    Returns
    -------
    RegionMap
        ``method = "certified-window"``; table ``alpha, beta, stable, margin, ruled_out`` (1 where
        :func:`rcpstab.linear.window_obstruction.obstruction` proves that no quadratic functional
        over this window exists, so a longer one is needed).
    """
    _check_shape(window, order)
    model = as_model(model).with_values(params)
    alphas = check_gains(alphas, "alpha")
    betas = check_gains(betas, "beta")
    points = [(float(a), float(b)) for b in betas for a in alphas]
    stable = np.zeros((betas.size, alphas.size), dtype=bool)
    margin = np.zeros(stable.shape)
    for idx, (_, _, t, cert) in enumerate(_solve_grid(model, points, window, order)):
        j, i = divmod(idx, alphas.size)
        stable[j, i] = cert is not None
        margin[j, i] = t if np.isfinite(t) else 0.0
    aa, bb = np.meshgrid(alphas, betas)
    # where the SDP finds nothing, say whether no functional of this window can exist (window_obstruction)
    ruled_out = np.array(
        [
            [not stable[j, i] and obstruction(model, a, b, window) is not None for i, a in enumerate(alphas)]
            for j, b in enumerate(betas)
        ],
        dtype=bool,
    )
    table = {
        "alpha": aa.ravel(),
        "beta": bb.ravel(),
        "stable": stable.ravel().astype(int),
        "margin": margin.ravel(),
        "ruled_out": ruled_out.ravel().astype(int),
    }
    return RegionMap(
        model=model,
        method="certified-window",
        alpha=alphas,
        beta=betas,
        stable=stable,
        table=table,
        meta={
            "functional": f"common Lyapunov-Krasovskii over {window} round trips, "
            f"{order} Legendre moment(s), S-procedure on the clamp"
        },
    )
