"""The region methods: one registry holding each method's engine, default grid, cost and options.

Read by :func:`rcpstab.api.region` (dispatch, defaults, the cost check) and by ``rcpstab map``
(``--method`` choices, the default grids its ``--help`` states, refusing an option the method
would ignore). Adding a method is one entry here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["METHODS", "Method", "method"]

FIG52_PLANE = ("0.02:2.0:0.02", "0.01:1.0:0.01")  # thesis Fig. 5.2's plane (100 x 100)
APP_E_GRID = ("0.1:2.0:0.1", "0.1:2.0:0.1")  # App. E's grid (20 x 20)


@dataclass(frozen=True)
class Method:
    """One lens that maps the (alpha, beta) region.

    Attributes
    ----------
    name : str
    engine : str
        ``"module:function"``; imported when the method is first used.
    grid : tuple of str
        Default alpha and beta axes, ``START:STOP:STEP`` (STOP inclusive).
    seconds_per_point : float
        Single-core seconds per grid point and network configuration, measured by
        ``benchmarks/bench_cost_per_point.py`` and rounded up (used to refuse a grid that would run
        for hours, never to decide anything).
    options : tuple of str
        The keyword options of :func:`rcpstab.api.region` this method reads; others are refused.
    about : str
        One line for ``map --help``.
    bytes_per_point : float
        Peak memory per grid point (bytes) where memory rather than time bounds the grid (the exact
        map: measured at 2000 x 2000, CSV and figure included); 0 where time does.
    point_limit : int, optional
        The grid's point limit unless ``$RCPSTAB_MAX_GRID_POINTS`` is set, for a method so cheap per
        point that the default limit would refuse cheap work.
    figure : str
        What ``map --out`` draws: ``"region"`` (the stable cells and the exact boundary; a PNG of it is
        drawn without matplotlib's figure, :mod:`rcpstab.linear.region_raster`), ``"verdicts"`` (the
        four verdicts per point) or ``"margins"`` (the margins' panels).
    """

    name: str
    engine: str
    grid: tuple[str, ...]
    seconds_per_point: float
    options: tuple[str, ...] = ()
    about: str = ""
    bytes_per_point: float = 0.0
    point_limit: int | None = None
    figure: str = "region"

    def function(self) -> Callable[..., Any]:
        module, name = self.engine.split(":")
        function: Callable[..., Any] = getattr(importlib.import_module(module), name)
        return function


_SWEEP = ("C", "d0", "N", "T", "params", "buffer_bdp", "workers", "scheduler", "checkpoint", "progress")

METHODS = {
    m.name: m
    for m in (
        Method(
            "exact",
            "rcpstab.linear.exact:exact_region",
            FIG52_PLANE,
            1e-7,
            ("params",),
            "the true delayed linear loop (rightmost characteristic root)",
            bytes_per_point=120,
            point_limit=25_000_000,
        ),
        Method("bode", "rcpstab.linear.bode:bode_region", FIG52_PLANE, 1e-4, ("params",), "eqs. 5.8-5.12, counted for any loop"),
        Method(
            "nyquist",
            "rcpstab.linear.nyquist:nyquist_region",
            FIG52_PLANE,
            0.08,
            ("pade", "params"),
            "indented contour; pade N for python-control's Pade approximation",
        ),
        Method(
            "margins",
            "rcpstab.linear.marginmap:margin_map",
            ("0.05:2.0:0.05", "0.025:1.0:0.025"),
            2e-3,
            ("params",),
            "gain, phase and delay margins and the rightmost root per point (Fig. 5.2's plane, 40 x 40)",
            figure="margins",
        ),
        Method(
            "phaseplane",
            "rcpstab.phaseplane.sweep:phaseplane_region",
            APP_E_GRID,
            2e-3,
            _SWEEP,
            "the nonlinear model integrated from App. E's initial conditions",
            figure="verdicts",
        ),
        Method(
            "packet",
            "rcpstab.packet.lens.region:packet_region",
            APP_E_GRID,
            0.4,
            ("scenario", "workers", "checkpoint", "progress", "seeds", "start_jitter_s"),
            "the packet-level reference implementation (--seeds N: replications with start jitter)",
            figure="verdicts",
        ),
        Method(
            "certified",
            "rcpstab.linear.certified:certified_region",
            APP_E_GRID,
            0.1,
            ("params",),
            "a Lyapunov-Krasovskii functional found by SDP: sufficient, switched/linear models",
        ),
        Method(
            "certified-window",
            "rcpstab.linear.certified_window:certified_window_region",
            APP_E_GRID,
            1.0,
            ("params", "window"),
            "a functional over 3 round trips that knows the queue clamp: beyond the linear region",
        ),
    )
}
"""Method name -> :class:`Method`, in the order ``map --help`` lists them."""


def method(name: str) -> Method:
    """The registered method ``name`` (one line naming the choices otherwise)."""
    from ..errors import InputError

    if name not in METHODS:
        raise InputError(f"method {name!r}: choose from {', '.join(METHODS)}")
    return METHODS[name]
