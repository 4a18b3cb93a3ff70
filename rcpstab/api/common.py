"""Helpers every API function shares: the model, gain axes and gain lists, and a warning on implausible units."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError

if TYPE_CHECKING:
    from ..models.spec import ModelSpec

__all__ = [
    "as_model",
    "axis",
    "gain_values",
    "model_names",
    "network_params",
    "parse_params",
    "parse_range",
    "plausible",
    "single_gain",
]

# Plausible magnitudes of the network quantities in SI units, and the unit a value outside them was
# probably typed in. Outside the range the value is still used as given; the warning names the unit.
PLAUSIBLE = {
    "d0": (1e-5, 10.0, "s", [(10.0, "ms (divide by 1000)")]),
    "rtt": (1e-5, 10.0, "s", [(10.0, "ms (divide by 1000)")]),
    "T": (1e-6, 10.0, "s", [(10.0, "ms (divide by 1000)")]),
    "C": (1e3, 1e13, "bit/s", [(0.0, "Mb/s or Gb/s (multiply by 1e6 or 1e9)")]),
}


def plausible(name: str, values: Any, option: str | None = None) -> None:
    """Warn in one line when a value of ``name`` is far outside what a network has, naming the likely unit.

    ``d0 = 100`` (s) is probably 100 ms; ``C = 100`` (bit/s) probably 100 Mb/s.
    """
    if name not in PLAUSIBLE or values is None:
        return
    low, high, unit, _ = PLAUSIBLE[name]
    try:
        values = np.atleast_1d(np.asarray(values, dtype=float)).ravel()
    except (TypeError, ValueError):
        return  # not numbers: the domain check that follows names the value
    for value in values:
        if not np.isfinite(value) or low <= value <= high or value <= 0:
            continue
        if value > high and unit == "s":
            guess = f"{value:g} ms = {value / 1e3:g} s"
        elif value < low and unit == "bit/s":
            guess = f"{value:g} Mb/s = {value * 1e6:g} bit/s"
        elif value < low and unit == "s":
            guess = f"{value:g} s is {value * 1e6:g} us"
        else:
            guess = f"expected {low:g}..{high:g} {unit}"
        warnings.warn(f"{option or name} {value:g}: implausible in {unit} (probably meant {guess})", stacklevel=3)
        return


def as_model(model: Any) -> ModelSpec:
    """A :class:`~rcpstab.models.ModelSpec` from a name, a protocol file or a spec."""
    from ..models import as_model as resolve

    return resolve(model)


def axis(values: Any, name: str, default: str) -> np.ndarray:
    """A gain axis from ``START:STOP:STEP`` text, a number, an array, or texts each a number, ``V1,V2,...``
    or a range (their union, sorted); None: ``default``."""
    from ..linear.grid import check_gains, parse_range

    if values is None:
        values = default
    if isinstance(values, str):
        if "," not in values:
            return parse_range(values, name)
        values = [values]
    if any(isinstance(v, str) for v in np.atleast_1d(np.asarray(values, dtype=object))):
        # texts (the command line's --alpha 0.1 0.3 0.5:1:0.1): each a number, V1,V2,... or a range
        found = [g for text in values for g in gain_values(str(text), name)]
        return np.unique(check_gains(_numbers(found, name), name))
    return check_gains(_numbers(values, name), name)


def gain_values(values: Any, name: str) -> list[float]:
    """Gains as a list: one number, ``V1,V2,...``, ``START:STOP:STEP`` (each item of a list may be a range) or a
    sequence of numbers."""
    from ..linear.grid import check_gains, parse_range

    if isinstance(values, str):
        items = [item.strip() for item in values.split(",")]
        if len(items) > 1 and not all(items):
            raise InputError(f"--{name} {values!r}: an empty item in the list V1,V2,...")
        return [float(v) for item in items for v in parse_range(item, name)]
    return [float(v) for v in check_gains(_numbers(values, name), name)]


def _numbers(values: Any, name: str) -> np.ndarray:
    """``values`` as a flat float array; one line naming them when they are not numbers."""
    try:
        return np.atleast_1d(np.asarray(values, dtype=float)).ravel()
    except (TypeError, ValueError):
        shown = repr(values)
        raise InputError(f"--{name} {shown[:80]}: not a number (or a list of numbers)") from None


def single_gain(value: Any, name: str) -> float:
    """One positive, finite gain (``0.4`` or ``"0.4"``)."""
    values = gain_values(value, name)
    if len(values) != 1:
        raise InputError(f"--{name} {value!r}: expected a single number")
    return values[0]


def parse_params(items: Iterable[str] | None) -> dict[str, list[float]]:
    """``NAME=VALUES`` texts (``--param``) as ``{name: [values]}`` (one line naming a malformed one)."""
    from ..linear.grid import parse_range

    params: dict[str, list[float]] = {}
    for item in items or ():
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name or not text.strip():
            raise InputError(f"--param {item!r}: expected NAME=VALUE, NAME=V1,V2,... or NAME=START:STOP:STEP")
        if name in params:
            raise InputError(f"--param {name}: given twice")
        if ":" in text:
            params[name] = [float(v) for v in parse_range(text, f"param {name}")]
            continue
        try:
            params[name] = [float(v) for v in text.split(",")]
        except ValueError:
            raise InputError(f"--param {item!r}: not a number") from None
    return params


def parse_range(text: str, name: str) -> np.ndarray:
    """``START:STOP:STEP`` (STOP inclusive) or one number, checked against the gain's domain."""
    from ..linear.grid import parse_range as parse

    return parse(text, name)


def model_names() -> list[str]:
    """Every registered model name (bundled and plugins)."""
    from ..models import MODELS

    return list(MODELS)


NETWORK_OPTIONS = ("C", "d0", "N", "T")  # the RCP family's own names, given as keywords (--C, --d0, --N, --T)


def network_params(
    spec: Any,
    C: Any = None,
    d0: Any = None,
    N: Any = None,
    T: Any = None,
    params: dict[str, Any] | None = None,
    single: bool = False,
) -> dict[str, Any]:
    """``C``, ``d0``, ``N``, ``T`` and any other declared parameter (``params``) as one ``{name: value(s)}``.

    The four keywords exist for the RCP family's names; on a model that does not declare one, an
    :class:`InputError` names it and the model's own parameters. A parameter given both ways is a
    conflict (one line). ``single``: a function that runs at one point takes one value per parameter.
    """
    out: dict[str, Any] = {}
    for option, value in zip(NETWORK_OPTIONS, (C, d0, N, T)):
        if value is None:
            continue
        if spec.parameter(option) is None:
            own = ", ".join(sym.name for sym in spec.parameters if sym not in spec.loop_parameters)
            raise InputError(
                f"--{option}: model {spec.name!r} has no parameter {option} (it has {own}; "
                "give any of them with --param NAME=VALUES)"
            )
        out[option] = value
    for name, value in (params or {}).items():
        sym = spec.parameter(name)
        clash = [o for o in out if sym is not None and spec.parameter(o) is sym]
        if clash:
            raise InputError(f"--param {name}: the same parameter as --{clash[0]}; give it once")
        out[name] = value
    if single:
        for name, value in out.items():
            if isinstance(value, (list, tuple, np.ndarray)):
                values = list(np.ravel(value))
                if len(values) != 1:
                    raise InputError(f"--param {name}={','.join(f'{v:g}' for v in values)}: give one value")
                out[name] = float(values[0])
    return out
