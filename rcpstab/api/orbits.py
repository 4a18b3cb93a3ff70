"""``rcpstab.hopf``, ``rcpstab.orbit`` and ``rcpstab.dataset``: the normal form at the boundary, one periodic
orbit with its Floquet multipliers, and the stored results of the long orbit studies.

:func:`hopf` finds Hopf points on the linear boundary and their first Lyapunov coefficient l1 (sub- or
supercritical, the amplitude law of the small cycle), for a smooth model: ``rcp-unclamped``,
``rcp-rate``, ``linear`` or the textbook ``hutchinson`` (Wright's equation). :func:`orbit` settles a
simulation on its cycle and polishes it into a periodic orbit of the compiled kernel (``rcp-clamped``,
``rcp-unclamped``, ...). Gains are dimensionless; amplitudes are half peak-to-peak R/C, periods in RTTs.
"""

from __future__ import annotations

import numpy as np

from .result import Result, strict

__all__ = ["DATASETS", "HopfResult", "OrbitResult", "dataset", "hopf", "orbit"]


def _model(model):
    """A model by name, the bifurcation variants (``rcp-unclamped``, ``rcp-rate``, ``rcp-clamped``) and the
    textbook ``hutchinson`` included."""
    from ..bifurcation.textbook import hutchinson_model
    from .sweeps import bifurcation_model

    return hutchinson_model() if isinstance(model, str) and model == "hutchinson" else bifurcation_model(model)


def _smooth(spec):
    """The normal form needs a smooth right-hand side: no clamp, saturation or sampled update."""
    from ..errors import InputError

    if spec.clamps or spec.saturations or spec.sampled:
        raise InputError(
            f"hopf: model {spec.name} has clamps, saturations or sampled updates (not smooth); "
            "use rcp-unclamped, rcp-rate, linear or hutchinson"
        )
    return spec


def hopf(model="rcp-unclamped", beta=None, *, alpha=None, **values):
    """Hopf points on the linear stability boundary, each with its normal form.

    Parameters
    ----------
    model : str or ModelSpec
        A smooth model: ``"rcp-unclamped"``, ``"rcp-rate"``, ``"linear"``, ``"hutchinson"`` (x' = -a x(t-1)(1+x),
        delay 1) or a spec.
    beta : float or sequence of float, optional
        Queue gain(s), dimensionless. Without ``alpha``: every Hopf point crossed along alpha in (0, 3] at
        each of them. With ``alpha``: one value (default: the model's).
    alpha : (float, float), optional
        A bracket of the rate gain holding one boundary crossing (the rightmost root changes side): the
        one Hopf point inside it.
    **values
        Any other parameter of the model by name (SI units).

    Returns
    -------
    HopfResult
        ``.points``: :class:`~rcpstab.bifurcation.lyapunov.HopfPoint` (``critical`` gain, ``omega_rtt``
        (rad per RTT), ``l1``, ``criticality``, ``gamma_coefficient``: half peak-to-peak R/C per
        ``sqrt(|alpha - alpha*|)``, ``predicted_amplitude(alpha)``), ordered by beta then alpha.

    Examples
    --------
    >>> h = hopf("hutchinson", alpha=(1.4, 1.7)).points[0]
    >>> round(h.critical, 10), h.criticality     # a* = pi/2
    (1.5707963268, 'supercritical')
    >>> round(h.gamma_coefficient, 5)            # sqrt(40 / (3 pi - 2)) = 2.32107 (Chow and Mallet-Paret)
    2.32107
    """
    from ..bifurcation.criticality import boundary_criticality
    from ..bifurcation.lyapunov import hopf_point
    from ..errors import InputError
    from ..runtime.validation import check_value

    spec = _smooth(_model(model))
    if alpha is None:
        if beta is None:
            raise InputError("hopf: give beta (the rows searched along alpha) or an alpha bracket")
        rows = [check_value("beta", b, "beta") for b in (beta if isinstance(beta, (list, tuple, np.ndarray)) else [beta])]
        if not 1 <= len(rows) <= 100:
            raise InputError(f"hopf: {len(rows)} values of beta (give 1 to 100)")
        points = boundary_criticality(spec, np.array(rows), **values)
    else:
        if not (isinstance(alpha, (list, tuple, np.ndarray)) and len(alpha) == 2):
            raise InputError(f"alpha={str(alpha)[:40]!r}: a bracket (low, high) with low < high")
        bracket = tuple(check_value("alpha", a, "alpha") for a in alpha)
        if not bracket[0] < bracket[1]:
            raise InputError(f"alpha={alpha!r}: a bracket (low, high) with low < high")
        extra = {} if beta is None else {"beta": check_value("beta", beta, "beta")}
        try:
            points = [hopf_point(spec, bracket, **extra, **values)]
        except ValueError:  # brentq: no sign change of the rightmost root's real part
            raise InputError(
                f"hopf: the rightmost root does not cross the axis between alpha = {bracket[0]:g} and {bracket[1]:g}"
            ) from None
    return HopfResult(points, model=spec)


class HopfResult(Result):
    """Hopf points with their normal forms (a list of ``HopfPoint`` in ``.value``, also ``.points``)."""

    command = "bifurcation"

    @property
    def points(self) -> list:
        """The Hopf points, ordered by beta, then alpha."""
        return self.value

    def to_dict(self) -> dict:
        return strict(
            {
                "model": self.inputs["model"].name,
                "points": [{k: v[i] for k, v in self.columns().items()} for i in range(len(self.value))],
            }
        )

    def columns(self) -> dict:
        p = self.value
        return {
            "parameter": [h.parameter for h in p],
            "critical": [h.critical for h in p],
            "beta": [h.values.get("beta", np.nan) for h in p],
            "omega_rtt": [h.omega_rtt for h in p],
            "l1": [h.l1 for h in p],
            "criticality": [h.criticality for h in p],
            "gamma_coefficient": [np.nan if h.gamma_coefficient is None else h.gamma_coefficient for h in p],
        }

    def summary(self) -> str:
        kinds = [h.criticality for h in self.value]
        return f"{self.inputs['model'].name}: {len(kinds)} Hopf point(s), " + ", ".join(
            f"{kinds.count(k)} {k}" for k in sorted(set(kinds))
        )

    def plot(self, ax=None, **kwargs):
        if ax is None:
            from ..figures import new_figure

            ax = new_figure((6.4, 4.8)).subplots()
        for kind, color in (("subcritical", "C3"), ("supercritical", "C0"), ("degenerate", "k")):
            chosen = [h for h in self.value if h.criticality == kind]
            if chosen:
                ax.scatter(
                    [h.critical for h in chosen],
                    [h.values.get("beta", np.nan) for h in chosen],
                    c=color,
                    s=18,
                    label=f"Hopf point, {kind}",
                    **kwargs,
                )
        ax.set(xlabel="alpha (dimensionless)", ylabel="beta (dimensionless)")
        ax.legend(fontsize="small")
        return ax


def orbit(model, alpha: float, beta: float | None = None, rtts: float = 400.0, **values):
    """The periodic orbit a simulation settles on at (alpha, beta), polished on the compiled kernel.

    Parameters
    ----------
    model : str or ModelSpec
        ``"rcp-clamped"`` (rcp with its update continuous in time), ``"rcp-unclamped"``, a bundled model
        without sampled updates, or a spec.
    alpha : float
        Rate gain (dimensionless).
    beta : float, optional
        Queue gain (dimensionless; default: the model's).
    rtts : float
        Round trips simulated before the cycle is measured.
    **values
        Any other parameter of the model by name (SI units).

    Returns
    -------
    OrbitResult
        ``.amplitude`` (half peak-to-peak R/C), ``.period`` (RTTs), ``.max_multiplier`` (largest non-trivial
        Floquet multiplier), ``.stable``; ``.value`` is None when the run settles on no cycle.

    Examples
    --------
    >>> o = orbit("hutchinson", 1.7, rtts=200)       # Wright's equation past its Hopf point at pi/2
    >>> o.stable, round(o.period, 3)                 # a stable orbit of period a little above 4
    (True, 4.096)
    """
    from ..bifurcation.kernel_orbits import orbit_from_simulation
    from ..runtime.validation import check_value

    alpha = check_value("alpha", alpha, "alpha")
    beta = None if beta is None else check_value("beta", beta, "beta")
    rtts = check_value("bifurcation_rtts", rtts, "rtts")
    spec = _model(model)
    extra = {} if beta is None else {"beta": beta}
    _, found = orbit_from_simulation(spec, alpha, rtts=rtts, **extra, **values)
    return OrbitResult(found, model=spec, alpha=alpha, beta=beta)


class OrbitResult(Result):
    """One kernel orbit (:class:`~rcpstab.bifurcation.kernel_orbits.KernelOrbit` in ``.value``, or None)."""

    command = "bifurcation"

    def to_dict(self) -> dict:
        o = self.value
        fields = (
            {}
            if o is None
            else {"amplitude": o.amplitude, "period": o.period, "stable": o.stable, "max_multiplier": o.max_multiplier}
        )
        return strict(
            {
                "model": self.inputs["model"].name,
                "alpha": self.inputs["alpha"],
                "beta": self.inputs["beta"],
                "cycle": o is not None,
                **fields,
            }
        )

    def columns(self) -> dict:
        return {k: [v] for k, v in self.to_dict().items()}

    def summary(self) -> str:
        o = self.value
        head = f"{self.inputs['model'].name} at alpha = {self.inputs['alpha']:g}"
        if o is None:
            return head + ": the run settles on no cycle"
        return (
            f"{head}: {'stable' if o.stable else 'unstable'} orbit, amplitude {o.amplitude:.5g} R/C, period "
            f"{o.period:.5g} RTTs, largest multiplier {o.max_multiplier:.4f}"
        )

    def plot(self, ax=None, **kwargs):
        from ..errors import InputError

        raise InputError("orbit: no figure (see rcpstab.bifurcation(..., continuation=True).plot())")


DATASETS = {"cycles-clamped": ("rcpstab.bifurcation", "data/cycles_clamped.json")}
"""Stored results (name -> package, file): studies too long to rerun in a notebook."""


def dataset(name: str) -> dict:
    """Stored results of a long study, as the experiment that made them wrote them.

    Parameters
    ----------
    name : str
        ``"cycles-clamped"``: the periodic-orbit study (``docs/periodic-orbits.md``): ``criticality`` (l1 per Hopf
        point of rcp-unclamped), ``smooth_beta_0.1`` (its unstable branch, two methods compared), ``clamped``
        (rcp-clamped's branches per beta with simulation checks), ``probes`` (small and large starts),
        ``switched`` (the switched model's onsets), ``seconds`` (what each part took). Gains dimensionless, amplitudes R/C, periods RTTs.

    Returns
    -------
    dict
        The stored JSON.

    Examples
    --------
    >>> sorted(dataset("cycles-clamped"))
    ['clamped', 'criticality', 'probes', 'seconds', 'smooth_beta_0.1', 'switched']
    """
    import json
    from importlib import resources

    from ..errors import InputError

    if not isinstance(name, str) or name not in DATASETS:
        raise InputError(f"dataset {str(name)[:40]!r}: choose from {', '.join(DATASETS)}")
    package, path = DATASETS[name]
    return json.loads((resources.files(package) / path).read_text())
