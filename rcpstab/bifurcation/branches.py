"""Branches of periodic orbits over a gain range, for any model: the engine of ``bifurcation --continuation``.

- A smooth model (no clamp, saturation or sampled state): every Hopf point of the exact
  boundary inside the range starts a branch (:func:`~.periodic.continue_from_hopf`, the normal
  form's amplitude as first guess).
- A clamped (non-smooth) model: the branch starts from the settled cycles of the up/down
  simulations (:func:`~.kernel_orbits.orbit_from_simulation`) and is continued both ways by
  shooting on the compiled kernel, down to a vanishing amplitude or the range's end. Where no
  run settles (eq. 5.14, ``switched``: positively homogeneous, its oscillations grow or decay
  without bound), the orbit is found with the gain free (:func:`~.kernel_orbits.ray_orbit`): a
  vertical ray of neutral orbits at the critical gain.
- A sampled model (a rate held between updates): its cycles are invariant circles of the
  update map, not periodic orbits, so the branches are those of the same model with its
  update continuous in time (``<name>-continuous``); the result says so, and the simulations
  drawn with them are of the sampled model itself.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .boundary import linear_boundary
from .kernel_orbits import continue_kernel_orbits, orbit_from_simulation, ray_orbit
from .periodic import continue_from_hopf

if TYPE_CHECKING:
    from ..models.spec import ModelSpec

__all__ = ["Branch", "orbit_branches"]

BRACKET = 1e-3  # half-width of the bracket around an exact boundary crossing
MIN_AMPLITUDE = 2e-4  # a clamped branch followed down to this amplitude (relative to the equilibrium rate)


@dataclass
class Branch:
    """One branch: its points (gain, amplitude, period, stable, max_multiplier) and folds.

    Attributes
    ----------
    source : str
        ``hopf`` (from a Hopf point) or ``simulation`` (from a settled cycle).
    model : str
        The model whose orbits these are (the continuous-update variant for a sampled model).
    points : list of dict
    folds : list of dict
    stop : str
    """

    source: str
    model: str
    points: list[dict[str, Any]]
    folds: list[dict[str, Any]] = field(default_factory=list)
    stop: str = ""


def _rows(parameter: str, points: Iterable[Any]) -> list[dict[str, Any]]:
    return [
        {
            parameter: p.gain,
            "amplitude": p.amplitude,
            "period": p.period,
            "stable": bool(p.stable),
            "max_multiplier": p.max_multiplier,
        }
        for p in points
    ]


def orbit_model(spec: ModelSpec) -> ModelSpec:
    """The model whose periodic orbits are computed: ``spec`` itself, or its continuous-update variant."""
    if not spec.sampled:
        return spec
    return dataclasses.replace(
        spec, name=f"{spec.name}-continuous", sampled={}, title=f"{spec.title} (update continuous in time)"
    )


def orbit_branches(
    spec: ModelSpec,
    parameter: str,
    low: float,
    high: float,
    held: dict[str, Any],
    values: dict[str, Any],
    cycles: list[Any],
    steps: int = 30,
    growing: Sequence[Any] = (),
) -> list[Branch]:
    """Branches of periodic orbits of ``spec`` in ``parameter`` over [low, high].

    Parameters
    ----------
    spec : ModelSpec
    parameter : {'alpha', 'beta'}
    low, high : float
        The range of the continued gain.
    held : dict
        The other gain, ``{name: value}``.
    values : dict
        Every other parameter (SI units).
    cycles : list of float
        Gains where the simulations settled on a cycle (starts for a clamped model; the
        highest and the lowest are used).
    growing : list of float
        Gains where the simulations oscillated with a growing envelope (where no run settled,
        the lowest is the start of the search for a ray of orbits).
    steps : int
        Continuation steps per branch and direction.

    Returns
    -------
    list of Branch
    """
    model = orbit_model(spec)
    smooth = not (model.clamps or model.saturations)
    out = []
    if smooth:
        for critical in linear_boundary(model, parameter, np.linspace(low, high, 200), **held):
            b = continue_from_hopf(
                model, (critical - BRACKET, critical + BRACKET), parameter, steps=steps, gain_range=(low, high), **held, **values
            )
            out.append(
                Branch(
                    "hopf",
                    model.name,
                    _rows(parameter, b.points),
                    [{parameter: f["gain"], "amplitude": f["amplitude"]} for f in b.folds],
                    b.stop,
                )
            )
        return out
    starts = sorted(set(cycles))
    if not starts:
        ray = _ray(model, parameter, min(growing, default=high), held, values)
        return [ray] if ray else []
    for gain in [starts[-1], starts[0]] if len(starts) > 1 else starts:
        system, first = orbit_from_simulation(model, gain, parameter, **held, **values)
        if first is None:
            continue
        if any(_covers(b, parameter, first) for b in out):
            continue
        scale = _rate_scale(system)
        parts = [
            continue_kernel_orbits(
                system,
                first,
                sign,
                steps=steps,
                step=0.03,
                max_step=0.15,
                gain_range=(low, high),
                min_amplitude=MIN_AMPLITUDE * scale,
            )
            for sign in (-1, +1)
        ]
        points = list(reversed(parts[0].points)) + parts[1].points[1:]
        folds = [{parameter: f["gain"], "amplitude": f["amplitude"]} for part in parts for f in part.folds]
        out.append(
            Branch("simulation", model.name, _rows(parameter, points), folds, f"down: {parts[0].stop}; up: {parts[1].stop}")
        )
    return out


RAY_AMPLITUDES = (0.05, 0.25, 0.5, 1.0)  # a ray drawn at these amplitudes (fractions of the equilibrium rate)


def _ray(model: ModelSpec, parameter: str, gain: float, held: dict[str, Any], values: dict[str, Any]) -> Branch | None:
    """No settled cycle: the orbits of a positively homogeneous model, a ray at its critical gain."""
    found = ray_orbit(model, gain, parameter, **held, **values)
    if found is None:
        return None
    system, orbit, homogeneous = found
    row = {parameter: orbit.gain, "period": orbit.period, "stable": False, "max_multiplier": orbit.max_multiplier}
    if not homogeneous:
        return Branch(
            "growing run, gain free",
            model.name,
            [{**row, "amplitude": orbit.amplitude}],
            [],
            "one orbit (not a ray: the model is not positively homogeneous)",
        )
    scale = _rate_scale(system)
    return Branch(
        "ray",
        model.name,
        [{**row, "amplitude": f * scale} for f in RAY_AMPLITUDES],
        [],
        f"positively homogeneous: every multiple of the orbit is an orbit at {parameter} = {orbit.gain:.6g}"
        " (neutral: the scaling multiplier is 1)",
    )


def _rate_scale(system: Any) -> float:
    """The equilibrium's normalised rate (R/C), the unit of a clamped branch's smallest amplitude."""
    c = system.compiled
    eq = [float(f(*[0.0] * c.n_states, *system.params)) for f in c.equilibrium]
    g = abs(float(c.gamma(*eq, *system.params)))
    return g if g > 0 else 1.0


def _covers(branch: Branch, parameter: str, orbit: Any) -> bool:
    """Whether ``orbit`` lies on ``branch``: a segment of the branch spans its gain with an amplitude
    (interpolated) within 5% of its own."""
    pts = branch.points
    for a, b in zip(pts[:-1], pts[1:]):
        lo, hi = sorted((a[parameter], b[parameter]))
        if lo <= orbit.gain <= hi and hi > lo:
            f = (orbit.gain - a[parameter]) / (b[parameter] - a[parameter])
            amplitude = a["amplitude"] + f * (b["amplitude"] - a["amplitude"])
            if math.isclose(amplitude, orbit.amplitude, rel_tol=0.05):
                return True
    return False
