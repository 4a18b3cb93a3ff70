"""``rcpstab.linearize`` (``rcpstab linearize``) and ``rcpstab.theorem1`` (``rcpstab theorem1``)."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..errors import InputError
from .common import as_model
from .result import Result, strict
from .validation import check_value

__all__ = ["LinearizeResult", "Theorem1Result", "linearize", "theorem1"]


def linearize(model="rcp", T_over_d0: float | None = None):
    """``model`` linearized about its equilibrium: A0, the delayed matrices and G(s) (App. B).

    Parameters
    ----------
    model : str or ModelSpec
        A bundled model's name (``"rcp"``, ``"xcp"``, ...), a protocol file's path or a
        :class:`~rcpstab.models.ModelSpec`.
    T_over_d0 : float, optional
        For a model whose update interval ``T`` is fixed before linearizing (``rcp-router``: T = d0/20,
        App. E's 10 ms at d0 = 0.2 s), the ratio T/d0 to use instead (> 0).

    Returns
    -------
    LinearizeResult
        ``.open_loop`` G(s), ``.A0``, ``.delayed``, ``.free_parameters()`` read through;
        ``.text()`` is the textbook description ``rcpstab linearize`` prints.

    Examples
    --------
    >>> linearize("rcp").open_loop
    (alpha*d_0*s + beta)*exp(-d_0*s)/(d_0**2*s**2)
    """
    from ..linear.linearization import linearize as derive

    spec = as_model(model)
    if T_over_d0 is not None:
        spec = with_update_interval(spec, T_over_d0)
    return LinearizeResult(derive(spec), model=spec)


def with_update_interval(spec, ratio: float):
    """``spec`` with its linearization taken at T = ``ratio`` * d0 (only for a model that fixes T before linearizing)."""

    fixed = {str(k): k for k in spec.linearize_at}
    if "T" not in fixed:
        raise InputError(
            f"--T-over-d0 {ratio:g}: model {spec.name} does not fix T before linearizing "
            "(its linear loop has no update interval, or keeps T as a parameter)"
        )
    check_value("T_over_d0", ratio, "--T-over-d0")
    import sympy as sp

    at = dict(spec.linearize_at)
    at[fixed["T"]] = (
        sp.nsimplify(ratio) * spec.symbol("d_0") if "d_0" in {s.name for s in spec.parameters} else sp.nsimplify(ratio)
    )
    return dataclasses.replace(spec, linearize_at=at)


class LinearizeResult(Result):
    """A linear delay system (:class:`~rcpstab.linear.linearization.LinearDelaySystem` in ``.value``)."""

    command = "linearize"

    def text(self) -> str:
        """The textbook description (equilibrium, substitutions, the delay system, G(s), sampling note)."""
        from ..linear.linearization_text import describe

        model = self.inputs["model"]
        lines = [describe(self.value)]
        if model.sampled:
            held = ", ".join(f"{x.__name__} every {interval}" for x, interval in model.sampled.items())
            lines.append(
                f"sampling: {held}, held in between; G above treats these states as continuous. The hold "
                "adds about half an interval of delay; the exact sampled loop is a polynomial in z = exp(s*T)"
                + (" (rcpstab.models.rcp_router.sampled_characteristic)" if model.name == "rcp-router" else "")
            )
        return "\n".join(lines)

    def latex(self, standalone: bool = False) -> str:
        from ..linear.linearization_text import latex_document

        return latex_document(self.value, standalone=standalone)

    def free_parameter_names(self) -> list[str]:
        return sorted(map(str, self.value.free_parameters()))

    def to_dict(self) -> dict:
        model = self.inputs["model"]
        return strict(
            {
                "model": model.name,
                "states": [x.__name__ for x in model.loop_states],
                "substitutions": {str(k): str(v) for k, v in model.linearize_at.items()},
                "delays": [str(tau) for tau in self.value.delayed],
                "open_loop": str(self.value.open_loop),
                "normalized_characteristic": str(self.value.normalized_characteristic),
                "free_parameters": self.free_parameter_names(),
            }
        )

    def columns(self) -> dict:
        """One row per nonzero coefficient of the linear system: state, from state, delay, coefficient."""
        names = [x.__name__ for x in self.inputs["model"].loop_states]
        rows: dict[str, list[Any]] = {"state": [], "from_state": [], "delay": [], "coefficient": []}
        for delay, matrix in [("0", self.value.A0)] + [(str(k), v) for k, v in self.value.delayed.items()]:
            for i, j in ((i, j) for i in range(len(names)) for j in range(len(names))):
                if matrix[i, j] != 0:
                    for key, value in zip(rows, (names[i], names[j], delay, str(matrix[i, j]))):
                        rows[key].append(value)
        return rows

    def summary(self) -> str:
        model = self.inputs["model"]
        return (
            f"{model.name} linearized about its equilibrium: {len(model.loop_states)} states, "
            f"{len(self.value.delayed)} delay(s); the loop's stability depends on "
            f"{', '.join(self.free_parameter_names())} only"
        )

    def _repr_text(self) -> str:
        return f"model={self.inputs['model'].name!r}, G(s) = {self.value.open_loop}"

    def plot(self, ax=None, **kwargs):
        """The stable (alpha, beta) region of this linear loop (exact method, Fig. 5.2's plane at 40 x 40)."""
        from .regions import region

        return region(self.inputs["model"], alpha="0.05:2.0:0.05", beta="0.025:1.0:0.025").plot(ax=ax, **kwargs)


def theorem1(model: Any = "xcp") -> Theorem1Result:
    """XCP's Theorem 1 against the exact linear region of ``model``: the bound, where its curve leaves, tightness.

    Parameters
    ----------
    model : str or ModelSpec
        A model with XCP's gains (default ``"xcp"``): a bundled name, a protocol file's path or a
        :class:`~rcpstab.models.ModelSpec`.

    Returns
    -------
    Theorem1Result
        ``to_dict()``: ``bound`` (alpha, dimensionless), ``exit_alpha``, ``exit_beta`` (dimensionless),
        ``exit_w`` (w*d0), ``tightness``, ``notes``.

    Examples
    --------
    Theorem 1's bound alpha < pi/(4 sqrt 2) with beta = alpha^2 sqrt 2 is tight: the exact
    boundary is reached at w*d0 = pi/4.

    >>> r = theorem1("xcp").to_dict()
    >>> round(r["tightness"], 9)
    1.0
    >>> import math
    >>> round(r["bound"] - math.pi / (4 * math.sqrt(2)), 9), round(r["exit_w"] - math.pi / 4, 9)
    (0.0, 0.0)
    >>> round(r["exit_beta"] - math.sqrt(2) * r["exit_alpha"] ** 2, 9)
    0.0
    """
    from ..theorem1 import theorem1_report

    spec = as_model(model)
    return Theorem1Result(theorem1_report(spec), model=spec)


class Theorem1Result(Result):
    """The report of :func:`~rcpstab.theorem1.theorem1_report` (a dict in ``.value``)."""

    command = "theorem1"

    def __getitem__(self, key):
        return self.value[key]

    def to_dict(self) -> dict:
        return strict(self.value)

    def columns(self) -> dict:
        return {k: [v] for k, v in self.to_dict().items() if k != "notes"}

    def summary(self) -> str:
        r = self.value
        if r["exit_alpha"] is None:
            return (
                f"Theorem 1 on model {r['model']}: bound alpha < pi/(4 sqrt 2) = {r['bound']:.9f}; "
                f"the curve beta = sqrt(2) alpha^2 stays in the exact region ({r['notes']['exit_alpha']})"
            )
        return (
            f"Theorem 1 on model {r['model']}: bound alpha < pi/(4 sqrt 2) = {r['bound']:.9f}; the curve "
            f"beta = sqrt(2) alpha^2 leaves the exact region at alpha = {r['exit_alpha']:.9f}; "
            f"tightness {r['tightness']:.9f}"
        )

    def plot(  # type: ignore[override]  # its own keywords instead of the base class's **kwargs (all keyword-only)
        self,
        ax: Any = None,
        *,
        region: bool = True,
        alpha_max: float | None = None,
        color: str = "tab:red",
    ) -> Any:
        """Theorem 1's curve beta = sqrt(2) alpha^2 up to its bound, on the model's exact region.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on (default: a new figure).
        region : bool
            Shade the model's exact region first (alpha 0.02..1.2, beta 0.01..1.0, dimensionless);
            ``False`` draws the curve alone on ``ax`` (e.g. over a region drawn before), keeping its limits.
        alpha_max : float, optional
            Also draw the curve, dashed, past the bound up to this alpha (dimensionless).
        color : str
            The curve's colour.

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> ax = theorem1("xcp").plot(alpha_max=1.2)
        >>> [line.get_label() for line in ax.get_lines()][-2]   # the dashed part past the bound
        'same curve, no guarantee'
        """
        from ..theorem1 import theorem1_plot
        from .regions import region as region_map

        if region:
            ax = region_map(self.inputs["model"], alpha="0.02:1.2:0.02", beta="0.01:1.0:0.01").plot(ax=ax)
        elif ax is None:
            import matplotlib.pyplot as plt

            ax = plt.figure().add_subplot()
        return theorem1_plot(ax, alpha_max=alpha_max, color=color)
