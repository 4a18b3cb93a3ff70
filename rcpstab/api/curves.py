"""``rcpstab.boundary`` and ``rcpstab.crossovers``: the linear loop's curves as tables, for many gains at once.

:func:`boundary` is the exact stability boundary in the (alpha, beta) plane (the curve the region maps
draw) and, along one row of beta, where the verdict changes (exact delay or a Pade approximation);
:func:`crossovers` the thesis' first gain and phase crossovers (eqs. 5.10-5.11) over arrays of gains,
the ingredients of its Bode rule. Frequencies are normalized (w*d0), gains dimensionless.
"""

from __future__ import annotations

import numpy as np

from ..models import as_model
from .result import Result, strict

__all__ = ["BoundaryResult", "CrossoversResult", "boundary", "crossovers"]


def boundary(model="rcp", alpha_max: float = 2.0, beta_max: float = 1.0):
    """The exact stability boundary of the linear loop in (0, alpha_max] x (0, beta_max].

    Parameters
    ----------
    model : str or ModelSpec
        A bundled model's name (``"rcp"``, ``"rcpac"``, ...), a protocol file or a spec.
    alpha_max, beta_max : float
        The box, in the gains' (dimensionless) units.

    Returns
    -------
    BoundaryResult
        ``.alpha``, ``.beta``: the boundary in curve order with NaN between pieces (ready for ``plot``);
        ``to_pandas()``: one row per point (``piece``, ``w_d0``, ``alpha``, ``beta``) without the NaN;
        ``.alpha_interval(beta, pade=None)``: where the verdict changes along a row.

    Examples
    --------
    >>> b = boundary("rcp")
    >>> round(float(np.nanmax(b.beta)), 6)     # the bell's top: w^2 cos w where tan w = 2 / w, 0.549774
    0.549774
    >>> np.round(b.alpha_interval(0.3), 4).tolist()     # w sin w where w^2 cos w = 0.3
    [0.3427, 1.4061]
    """
    from ..linear.exact import boundary_table
    from ..runtime.validation import check_value

    spec = as_model(model)
    alpha_max, beta_max = check_value("alpha", alpha_max, "alpha_max"), check_value("beta", beta_max, "beta_max")
    table = boundary_table(spec, alpha_max, beta_max)
    return BoundaryResult(table, model=spec, alpha_max=float(alpha_max), beta_max=float(beta_max))


class BoundaryResult(Result):
    """The exact boundary (:func:`rcpstab.linear.exact.boundary_table`'s dict in ``.value``)."""

    command = "map"

    @property
    def alpha(self) -> np.ndarray:
        """Boundary alphas in curve order, NaN where one piece ends and the next starts."""
        return self._split()[0]

    @property
    def beta(self) -> np.ndarray:
        """Boundary betas, aligned with :attr:`alpha`."""
        return self._split()[1]

    def _split(self):
        t = self.value
        a, b, w = t["alpha"], t["beta"], t["w"]
        if a.size == 0:
            return a, b
        gap = np.nonzero(np.diff(w) > 0.05 + 0.2 * w[:-1])[0] + 1  # further apart than a sampling step
        return np.insert(a, gap, np.nan), np.insert(b, gap, np.nan)

    def alpha_interval(self, beta: float, pade: int | None = None, alpha_max: float = 4.0) -> np.ndarray:
        """The alphas in (0, alpha_max] where the Nyquist verdict changes along the row ``beta``.

        Parameters
        ----------
        beta : float
            The row's queue gain (dimensionless).
        pade : int, optional
            Order of the Pade approximation of the delay (None: the exact delay).
        alpha_max : float
            End of the scan (step 1e-3; each change bisected to 1e-12).

        Returns
        -------
        ndarray
            The alphas of the changes (for RCP: the stable interval's two ends).

        Examples
        --------
        >>> np.round(boundary("rcp").alpha_interval(0.3, pade=2), 4).tolist()  # App. D reads 0.3436, 1.436 off its plot
        [0.3426, 1.4157]
        """
        from ..linear.nyquist import alpha_bounds
        from ..runtime.validation import check_value

        beta = check_value("beta", beta, "beta")
        return alpha_bounds(self.inputs["model"], beta, pade=pade, alpha_max=check_value("alpha", alpha_max, "alpha_max"))

    def to_dict(self) -> dict:
        return strict({"model": self.inputs["model"].name, **{k: v for k, v in self.columns().items()}})

    def columns(self) -> dict:
        t = self.value
        return {"piece": t["piece"], "w_d0": t["w"], "alpha": t["alpha"], "beta": t["beta"]}

    def summary(self) -> str:
        beta = self.value["beta"]
        top = f", top beta {beta.max():.4f}" if beta.size else ""
        return (
            f"{self.inputs['model'].name}: exact boundary in (0, {self.inputs['alpha_max']:g}] x "
            f"(0, {self.inputs['beta_max']:g}]: {beta.size} points{top}"
        )

    def plot(self, ax=None, **kwargs):
        if ax is None:
            from ..figures import new_figure

            ax = new_figure((6.4, 4.8)).subplots()
        ax.plot(self.alpha, self.beta, **{"color": "k", "label": "exact boundary", **kwargs})
        ax.set(xlabel="alpha (dimensionless)", ylabel="beta (dimensionless)")
        return ax


def crossovers(model, alpha, beta):
    """The thesis' first gain and phase crossovers of the loop at each (alpha, beta) (eqs. 5.10-5.11).

    Parameters
    ----------
    model : str or ModelSpec
        A bundled model's name, a protocol file or a spec.
    alpha, beta : array_like
        The gains (dimensionless, > 0), broadcast against each other.

    Returns
    -------
    CrossoversResult
        ``.gain_w`` (first ``|G|`` = 1), ``.phase_w`` (first return of the phase to -180 deg; NaN where it
        never returns) in w*d0, ``.gain_count`` (how often ``|G|`` crosses 1), each shaped like the
        broadcast gains; the thesis' Bode rule is ``gain_w < phase_w``.

    Examples
    --------
    >>> c = crossovers("rcp", [0.2, 0.4], [0.4, 0.2])
    >>> np.round(c.gain_w, 6).tolist()    # eq. 5.10: w_z^2 = (alpha^2 + sqrt(alpha^4 + 4 beta^2)) / 2
    [0.648459, 0.543513]
    >>> c.phase_w.round(4).tolist()        # App. C: no phase crossover unless alpha > beta
    [nan, 1.1656]
    """
    from ..errors import InputError
    from ..linear.bode import crossovers as engine
    from ..linear.grid import check_gains

    spec = as_model(model)
    try:
        a, b = np.broadcast_arrays(np.asarray(alpha, float), np.asarray(beta, float))
    except (TypeError, ValueError):
        raise InputError(
            f"crossovers: alpha and beta must be numbers or arrays of numbers of one shape, got "
            f"{str(alpha)[:40]!r} and {str(beta)[:40]!r}"
        ) from None
    if a.size == 0 or a.size > 10_000_000:
        raise InputError(f"crossovers: {a.size} points (give 1 to 10,000,000)")
    check_gains(a.ravel(), "alpha")
    check_gains(b.ravel(), "beta")
    found = engine(spec, a.ravel(), b.ravel())
    return CrossoversResult(
        {
            "alpha": a,
            "beta": b,
            "gain_w": found.gain_w.reshape(a.shape),
            "phase_w": found.phase_w.reshape(a.shape),
            "gain_count": found.gain_count.reshape(a.shape),
        },
        model=spec,
    )


class CrossoversResult(Result):
    """Crossovers over arrays of gains (a dict of equally shaped arrays in ``.value``)."""

    command = "bode"

    def __getattr__(self, name):
        if name.startswith("__") or name in ("value", "inputs"):
            raise AttributeError(name)
        try:
            return self.value[name]
        except KeyError:
            raise AttributeError(name) from None

    def to_dict(self) -> dict:
        return strict({"model": self.inputs["model"].name, **self.columns()})

    def columns(self) -> dict:
        return {
            "alpha": self.value["alpha"].ravel(),
            "beta": self.value["beta"].ravel(),
            "gain_w_d0": self.value["gain_w"].ravel(),
            "phase_w_d0": self.value["phase_w"].ravel(),
            "gain_count": self.value["gain_count"].ravel(),
        }

    def summary(self) -> str:
        rule = np.isfinite(self.value["phase_w"]) & (self.value["gain_w"] < self.value["phase_w"])
        return (
            f"{self.inputs['model'].name}: crossovers at {rule.size} points; the thesis' Bode rule "
            f"(w_z before w_c) holds at {int(rule.sum())}"
        )

    def plot(self, ax=None, **kwargs):
        from ..errors import InputError

        raise InputError("crossovers have no figure (see to_pandas())")
