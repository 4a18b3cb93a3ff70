"""``rcpstab.check`` (``rcpstab check``): a router's RCP constants over the networks it will see."""

from __future__ import annotations

import warnings
from dataclasses import replace

from ..errors import InputError
from .result import Result, strict

__all__ = ["CRITERIA", "CheckResult", "check", "check_example", "check_examples", "check_schema"]

CRITERIA = ("linear", "nonlinear", "all")  # the checker's criteria (rcpstab.check.CRITERIA, tested equal)


def check_schema() -> str:
    """The configuration format (TOML), every key at its default with units."""
    from ..check.bundled import schema_text

    return schema_text()


def check_examples() -> list[str]:
    """Names of the bundled example configurations."""
    from ..check.bundled import example_names

    return example_names()


def check_example(name: str) -> str:
    """The text of the bundled example configuration ``name``."""
    from ..check.bundled import example_text

    return example_text(name)


def warn_implausible_envelope(config) -> None:
    """One line when the envelope's numbers look typed in another unit (``rtt_ms = [0.02, 0.2]``: seconds)."""
    env = config.envelope
    lo, hi = env.rtt_ms
    if hi < 1.0:
        warnings.warn(
            f"envelope rtt_ms = [{lo:g}, {hi:g}]: implausible in ms (probably seconds: [{lo * 1e3:g}, {hi * 1e3:g}] ms)",
            stacklevel=3,
        )
    elif lo > 10_000.0:
        warnings.warn(
            f"envelope rtt_ms = [{lo:g}, {hi:g}]: implausible in ms (probably us: [{lo / 1e3:g}, {hi / 1e3:g}] ms)", stacklevel=3
        )
    lo, hi = env.link_mbps
    if lo > 1e6:
        warnings.warn(
            f"envelope link_mbps = [{lo:g}, {hi:g}]: implausible in Mb/s (probably bit/s: [{lo / 1e6:g}, {hi / 1e6:g}] Mb/s)",
            stacklevel=3,
        )


def check(
    config,
    criterion: str = "all",
    samples: int = 4,
    workers: int = 1,
    *,
    packet: bool = False,
    fct: bool = False,
    suggest: bool = True,
):
    """Check a router configuration (a TOML file or a :class:`~rcpstab.check.CheckConfig`).

    Parameters
    ----------
    config : str or CheckConfig
        Path of the TOML file (format: :func:`check_schema`) or a parsed configuration.
    criterion : {"linear", "nonlinear", "all"}
        Which checks gate the verdict: the linear loop's margins, the nonlinear fluid model's runs, or both.
    samples : int
        Envelope points inside the box, besides its corners (>= 0).
    workers : int
        Processes to run the envelope's points on (>= 1).
    packet, fct : bool
        Also confirm with the packet reference implementation / measure flow completion times.
    suggest : bool
        When a check fails, search for the nearest passing (alpha, beta).

    Returns
    -------
    CheckResult
        ``.passed``, ``.findings``, ``.suggestion``; ``to_dict()`` is ``check --json``.

    Examples
    --------
    The thesis box at (alpha, beta) = (0.4, 0.2), where the loop's rightmost root is Re(s d0) = -0.109
    (:func:`~rcpstab.api.margins`), passes the linear checks:

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "box.toml"
    >>> _ = path.write_text(check_example("thesis_box_a0.4_b0.2"))
    >>> r = check(str(path), criterion="linear", samples=0)
    >>> r
    CheckResult(PASS under --criterion linear)
    >>> r.passed
    True
    """
    from ..check import CheckConfig, load_config, run_checks
    from ..check import suggest as search

    if not isinstance(criterion, str) or criterion not in CRITERIA:  # type: ignore[redundant-expr]  # callers without type checking pass anything
        raise InputError(f"--criterion {criterion!r}: choose from {', '.join(CRITERIA)}")
    for name, value, least in (("workers", workers, 1), ("samples", samples, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:  # type: ignore[redundant-expr]  # callers without type checking pass anything
            raise InputError(f"--{name} {value!r}: must be a whole number >= {least}")
    if isinstance(config, str):
        config = load_config(config)
    if not isinstance(config, CheckConfig):
        raise InputError(f"config {str(config)[:80]!r}: expected a TOML file's path or a CheckConfig")
    warn_implausible_envelope(config)
    outcome = run_checks(config, criterion, samples, workers, packet=packet, fct=fct)
    if not outcome.passed and suggest:
        outcome = replace(outcome, suggestion=search(config, criterion, samples, workers, packet, outcome))
    return CheckResult(outcome, packet=packet, suggest=suggest)


class CheckResult(Result):
    """A check report (:class:`~rcpstab.check.CheckReport` in ``.value``)."""

    command = "check"

    def to_dict(self) -> dict:
        return strict(self.value.to_dict())

    def columns(self) -> dict:
        """One row per finding."""
        rows = [dict(f.to_dict(), gating=f.gates(self.value.criterion)) for f in self.value.findings]
        keys = list(dict.fromkeys(k for r in rows for k in r))
        return {k: [strict(r.get(k)) if not isinstance(r.get(k), (dict, list)) else str(r.get(k)) for r in rows] for k in keys}

    def summary(self) -> str:
        return self.value.summary

    def plot(self, ax=None, **kwargs):
        """Each finding's figure against its threshold (passed green, failed red)."""
        from ..figures import current_axes

        ax = ax or current_axes()
        findings = [f for f in self.value.findings if f.figure is not None and f.threshold]
        ratios = [f.figure / f.threshold for f in findings]
        ax.barh([f.name for f in findings], ratios, color=["tab:green" if f.passed else "tab:red" for f in findings])
        ax.axvline(1.0, color="k", lw=0.8)
        ax.set_xlabel("figure / threshold")
        ax.set_title(f"check: alpha = {self.value.alpha:g}, beta = {self.value.beta:g}")
        return ax
