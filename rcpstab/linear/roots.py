"""Rightmost characteristic roots of a model's delayed linear loop.

The roots are first approximated as eigenvalues of a Chebyshev collocation of the
infinitesimal generator of the delay system (Breda, Maset and Vermiglio's method): a
finite matrix whose rightmost eigenvalues converge spectrally to the rightmost roots.
Each is then polished by Newton's method on the scalar quasi-polynomial, so the result
is exact to machine precision and independent of the D-subdivision in :mod:`.exact`.
"""
from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp

from ..models.spec import ModelSpec
from .linearization import linearize
from .quasipoly import quasi_polynomial

COLLOCATION_NODES = 24


def chebyshev_differentiation(M: int):
    """Chebyshev points x_j = cos(j pi / M) on [-1, 1] and their differentiation matrix."""
    j = np.arange(M + 1)
    x = np.cos(np.pi * j / M)
    c = np.where((j == 0) | (j == M), 2.0, 1.0) * (-1.0) ** j
    dx = x[:, None] - x[None, :] + np.eye(M + 1)
    D = np.outer(c, 1 / c) / dx
    D -= np.diag(D.sum(axis=1))
    return x, D


def _lagrange_weights(nodes, point):
    """Weights w with p(point) = w @ p(nodes) for the interpolant through ``nodes``."""
    w = np.ones(nodes.size)
    for k in range(nodes.size):
        others = np.delete(nodes, k)
        w[k] = np.prod((point - others) / (nodes[k] - others))
    return w


@cache
def _normalized_matrices(model: ModelSpec):
    """A0 and {theta: A} of the loop in time units of d0, as functions of (alpha, beta).

    Parameters other than the gains cancel from the roots (the characteristic function's
    normalization proves it), so the model's defaults are substituted for them.
    """
    system = linearize(model)
    alpha, beta = model.loop_parameters
    d0 = model.time_scale
    others = {k: v for k, v in model.parameters.items() if k not in (alpha, beta)}

    def compile_matrix(A):
        # modules=np (the module, not "numpy"): same NumPy printer and functions, without sympy's
        # `from numpy import *`, which loads numpy.f2py, .testing, .ma... (a third of `rcpstab margins`)
        return sp.lambdify((alpha, beta), (A * d0).subs(others), modules=np)

    delayed = {float((tau / d0).subs(others)): compile_matrix(A) for tau, A in system.delayed.items()}
    return compile_matrix(system.A0), delayed


def generator_eigenvalues(model: ModelSpec, alpha: float, beta: float, nodes: int = COLLOCATION_NODES):
    """Eigenvalues of the collocated infinitesimal generator (normalized lambda = s*d0)."""
    return np.linalg.eigvals(_generator(model, alpha, beta, nodes))


def polish(model: ModelSpec, roots, alpha: float, beta: float, iterations: int = 30):
    """Newton's method on the quasi-polynomial from each of ``roots``."""
    qp = quasi_polynomial(model)
    lam = np.array(roots, dtype=complex)
    for _ in range(iterations):
        step = qp(lam, alpha, beta) / qp.derivative(lam, alpha, beta)
        lam = lam - step
        if np.all(np.abs(step) < 1e-14 * (1 + np.abs(lam))):
            break
    return lam


def rightmost_roots(model: ModelSpec, alpha: float, beta: float, count: int = 4) -> np.ndarray:
    """The ``count`` rightmost roots with Im >= 0, normalized (lambda = s*d0), rightmost first."""
    eig = generator_eigenvalues(model, alpha, beta)
    eig = eig[eig.imag >= -1e-9]
    candidates = eig[np.argsort(-eig.real)][: 2 * count]
    roots = polish(model, candidates, alpha, beta)
    # Newton from a spurious eigenvalue can stall off any root: keep only converged ones.
    roots = roots[np.isfinite(roots) & _converged(model, roots, alpha, beta)]
    roots = np.where(np.abs(roots.imag) < 1e-12, roots.real + 0j, roots)
    roots = roots[roots.imag >= -1e-12]
    # Newton can land two starts on one root: keep distinct ones.
    unique = []
    for r in roots[np.argsort(-roots.real)]:
        if all(abs(r - u) > 1e-8 * (1 + abs(r)) for u in unique):
            unique.append(r)
    return np.array(unique[:count])


def _converged(model: ModelSpec, lam, alpha, beta):
    """Whether each polished lambda is a root: residual at rounding of the principal term."""
    qp = quasi_polynomial(model)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.abs(qp(lam, alpha, beta)) <= 1e-9 * (1.0 + np.abs(lam)) ** qp.degree


def rightmost_root(model: ModelSpec, alpha: float, beta: float) -> complex:
    """The rightmost characteristic root (normalized lambda = s*d0; Im >= 0 of a pair)."""
    return complex(rightmost_roots(model, alpha, beta, count=1)[0])


def rightmost_roots_many(model: ModelSpec, alphas, betas, nodes: int = COLLOCATION_NODES) -> np.ndarray:
    """:func:`rightmost_root` at many points at once (1-D arrays): batched eigenvalues, batched Newton.

    The collocated generator is affine in the gains (its blocks are the loop matrices), so it
    is built at three points and combined; the selection of the root is :func:`rightmost_roots`'.
    """
    alphas = np.asarray(alphas, float).ravel()
    betas = np.asarray(betas, float).ravel()
    g0 = _generator(model, 0.0, 0.0, nodes)
    ga = _generator(model, 1.0, 0.0, nodes) - g0
    gb = _generator(model, 0.0, 1.0, nodes) - g0
    out = np.empty(alphas.size, complex)
    chunk = 2000
    qp = quasi_polynomial(model)
    for s in range(0, alphas.size, chunk):
        a, b = alphas[s:s + chunk], betas[s:s + chunk]
        eig = np.linalg.eigvals(g0 + a[:, None, None] * ga + b[:, None, None] * gb)
        # Rank the eigenvalues with Im >= -1e-9 by real part, as rightmost_roots does.
        key = np.where(eig.imag >= -1e-9, eig.real, -np.inf)
        order = np.argsort(-key, axis=1)[:, :2]        # rightmost_root polishes 2 candidates
        lam = np.take_along_axis(eig, order, axis=1)
        valid = np.take_along_axis(key, order, axis=1) > -np.inf
        for _ in range(30):
            step = qp(lam, a[:, None], b[:, None]) / qp.derivative(lam, a[:, None], b[:, None])
            lam = lam - step
            if np.all(np.abs(step[np.isfinite(step)]) < 1e-14 * (1 + np.abs(lam[np.isfinite(step)]))):
                break
        lam = np.where(np.abs(lam.imag) < 1e-12, lam.real + 0j, lam)
        ok = valid & np.isfinite(lam) & (lam.imag >= -1e-12) & _converged(model, lam, a[:, None], b[:, None])
        best = np.argmax(np.where(ok, lam.real, -np.inf), axis=1)
        out[s:s + chunk] = lam[np.arange(a.size), best]
    return out


def _generator(model: ModelSpec, alpha: float, beta: float, nodes: int) -> np.ndarray:
    """The collocated generator matrix of :func:`generator_eigenvalues` (before eigenvalues)."""
    A0_fn, delayed_fns = _normalized_matrices(model)
    return collocated_generator(np.asarray(A0_fn(alpha, beta), dtype=float),
                                {th: np.asarray(fn(alpha, beta), float) for th, fn in delayed_fns.items()}, nodes)


def collocated_generator(A0: np.ndarray, delayed: dict, nodes: int = COLLOCATION_NODES) -> np.ndarray:
    """The Chebyshev collocation of the generator of x' = A0 x + sum_theta A_theta x(t - theta).

    Parameters
    ----------
    A0 : ndarray, shape (n, n)
        The undelayed matrix (per unit of time).
    delayed : dict
        Delay theta (> 0, same time unit) -> its matrix, shape (n, n).
    nodes : int
        Chebyshev nodes on [-max theta, 0].

    Returns
    -------
    ndarray, shape (n*(nodes+1), n*(nodes+1))
        Its eigenvalues approximate the rightmost characteristic roots spectrally.
    """
    n = A0.shape[0]
    tau = max(delayed)
    x, Dc = chebyshev_differentiation(nodes)
    theta = tau * (x - 1) / 2
    G = np.kron(Dc * (2 / tau), np.eye(n))
    first = np.kron(np.eye(1, nodes + 1), A0)
    for th, A in delayed.items():
        first = first + np.kron(_lagrange_weights(theta, -th)[None, :], A)
    G[:n, :] = first
    return G
