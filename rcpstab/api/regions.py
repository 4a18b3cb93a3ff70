"""``rcpstab.region``: the stable (alpha, beta) region of a model, by any registered method (``rcpstab map``)."""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..runtime.frames import grid_dataset
from ..units import rate_text
from .common import as_model, axis, network_params, plausible
from .methods import method as registered
from .result import Result

__all__ = ["RegionResult", "network_text", "region", "region_buffer_text", "region_summary"]

# units of the table columns the engines write with bare parameter names
UNITS = {"C": "C_bps", "d0": "d0_s", "T": "T_s", "N": "N_flows", "buffer": "buffer_bits"}

# the unit of each table column, for to_xarray's attrs (gains dimensionless; margins and roots normalized by d0)
XARRAY_UNITS = {
    "alpha": "1",
    "beta": "1",
    "stable": "1",
    "C": "bit/s",
    "d0": "s",
    "T": "s",
    "N": "flows",
    "buffer": "bit",
    "unstable_roots": "1",
    "gain_margin": "1",
    "phase_margin_deg": "deg",
    "delay_margin": "d0",
    "rightmost_real": "1/d0",
    "rightmost_imag": "rad/d0",
    "convergence_rtt": "RTT",
    "convergence_estimate_rtt": "RTT",
    "envelope_rate_per_rtt": "1/RTT",
    "fluid_stable": "1",
    "verdict": "",
    "fluid_verdict": "",
    # a replicated packet map (--seeds): per point over the seeds
    "stable_fraction": "1",
    "stable_ci_low": "1",
    "stable_ci_high": "1",
    "convergence_rtt_ci_low": "RTT",
    "convergence_rtt_ci_high": "RTT",
    "convergence_rtt_std": "RTT",
    "convergence_rtt_median": "RTT",
    "convergence_rtt_median_low": "RTT",
    "convergence_rtt_median_high": "RTT",
    "median_level": "1",
    "seeds": "1",
}


def column_unit(model, name: str) -> str:
    """The unit of a region table's column: a known column's, else the unit the model declares for the
    parameter of that name (a user's protocol: ``tau`` in s), ``"1"`` where it declares none."""
    if name in XARRAY_UNITS:
        return XARRAY_UNITS[name]
    symbol = model.parameter(name) if hasattr(model, "parameter") else None
    domain = model.domains.get(symbol) if symbol is not None else None
    return (domain.unit or "1") if domain is not None else ""


def region(model="rcp", alpha=None, beta=None, method: str = "exact", **options):
    """The stable (alpha, beta) region of ``model`` seen by one ``method``.

    Parameters
    ----------
    model : str or ModelSpec
        ``"rcp"``, ``"xcp"``, ... a protocol file or a model object.
    alpha, beta : str, float or array_like, optional
        Grid axes of the gains (dimensionless): ``"START:STOP:STEP"`` (STOP inclusive) or values. Default: the method's own grid
        (:data:`rcpstab.api.methods.METHODS`: Fig. 5.2's plane for exact, bode, nyquist; 40 x 40 on it
        for margins; App. E's 0.1..2.0 grid for phaseplane, packet and the certified ones).
    method : {"exact", "bode", "nyquist", "margins", "phaseplane", "packet", "certified", "certified-window"}
        How each point is judged: the linear loop's exact roots, its Bode or Nyquist criterion or its
        margins; the nonlinear fluid model's runs (phaseplane); the packet simulator; or an interval-
        certified linear verdict (:data:`rcpstab.api.methods.METHODS`).
    **options
        For an LTI loop (a python-control system or ``(num, den)`` as ``model``): ``gain`` and
        ``delay`` (s) arrays, the exact region over them (:func:`rcpstab.linear.lti.loop_region`).
        Otherwise the method's own options (``Method.options``): ``pade`` (nyquist); ``C`` (bit/s), ``d0`` (s),
        ``N`` (lists), ``T`` (s), ``params`` ({name: [values]}), ``buffer_bdp`` (C*d0), ``workers``,
        ``scheduler``, ``checkpoint``, ``progress`` (phaseplane); ``scenario``, ``workers``,
        ``checkpoint``, ``progress``, ``seeds`` (replications with per-point 95% intervals) and
        ``start_jitter_s`` (s; default one d0 with ``seeds``) (packet); ``window`` (certified-window: round
        trips of history, 1 to 3). An option the method does not read is refused.

    Returns
    -------
    RegionResult
        ``.stable[j, i]`` at ``(alpha[i], beta[j])``; ``.plot()`` draws it; ``.value`` is the engine's map.

    Examples
    --------
    >>> r = region("rcp", alpha="0.2:1.6:0.2", beta="0.1:0.7:0.2")
    >>> r                              # 15: the closed-form boundary (eq. D.1) gives the same count
    RegionResult(exact region of rcp: 15 of 32 grid points stable (46.9%))
    >>> bool(r.stable[0, 1])           # (alpha, beta) = (0.4, 0.1): inside the thesis' region
    True
    """
    if not isinstance(model, str) and _is_loop(model):  # an LTI loop: its exact region over (gain, delay)
        from ..linear.lti import loop_region

        if "gain" not in options or "delay" not in options:
            raise InputError("region of an LTI loop: give gain=[...] (loop-gain factors) and delay=[...] (s)")
        return loop_region(model, options["gain"], options["delay"])
    m = registered(method)
    unused = sorted(k for k, v in options.items() if k not in m.options and v is not None)
    if unused:
        raise InputError(f"{', '.join(unused)}: not used by method {method}")
    spec = as_model(model)
    alphas = axis(alpha, "alpha", m.grid[0])
    betas = axis(beta, "beta", m.grid[1])
    if m.name == "nyquist" and options.get("pade") is not None and not 1 <= options["pade"] <= 20:
        raise InputError(f"--pade {options['pade']}: order must be between 1 and 20")
    for name in ("C", "d0", "T"):
        plausible(name, options.get(name), f"--{name}")
    kwargs = {k: v for k, v in options.items() if k in m.options}
    if "params" in m.options:  # the engine takes every parameter by name, the RCP family's four included
        kwargs["params"] = network_params(spec, *(kwargs.pop(k, None) for k in ("C", "d0", "N", "T")), kwargs.get("params"))  # type: ignore[call-arg]  # four from the generator: mypy cannot count them
    configs = int(np.prod([len(v) if isinstance(v, (list, tuple, np.ndarray)) else 1 for v in kwargs.get("params", {}).values()]))
    if isinstance(kwargs.get("seeds"), (int, np.integer)) and kwargs["seeds"] > 1:
        configs *= int(kwargs["seeds"])  # every point runs once per seed
    from ..runtime.validation import check_grid_size

    check_grid_size(
        alphas.size * betas.size * configs,
        m.seconds_per_point,
        f"map --method {method}",
        bytes_per_point=m.bytes_per_point,
        default_limit=m.point_limit,
    )
    return RegionResult(m.function()(spec, alphas, betas, **kwargs), model=spec, method=method)


class RegionResult(Result):
    """A region map (:class:`~rcpstab.linear.result.RegionMap` in ``.value``) with the API's contract."""

    command = "map"

    def columns(self) -> dict:
        return {UNITS.get(k, k): np.asarray(v) for k, v in self.value.table.items()}

    def to_csv(self, path: str) -> None:
        self.value.to_csv(path)  # the engine's columns, as ``map --csv`` has always written them

    def to_pandas(self):
        """:meth:`columns` as a DataFrame; the unit of every column (those without one in the name too:
        ``delay_margin`` in d0, ``convergence_rtt`` in RTTs) in ``attrs["units"]``."""
        frame = super().to_pandas()
        bare = {UNITS.get(k, k): k for k in self.value.table}
        frame.attrs["units"] = {c: column_unit(self.value.model, bare.get(c, c)) for c in frame.columns}
        return frame

    def to_xarray(self):
        """The map as an :class:`xarray.Dataset` (needs ``rcpstab[xarray]``).

        Dimensions ``beta`` and ``alpha`` in the map's order (``ds.stable.values[j, i]`` is the verdict at
        ``(alpha[i], beta[j])``), preceded by each network parameter that takes several values (``C``,
        ``d0``, ``N``...; the others are scalar coordinates). One variable per table column (``stable`` 0/1,
        margins, ``verdict``, ``convergence_rtt``...), its unit in ``attrs["units"]``. Where several
        configurations were swept, ``stable_everywhere`` (beta, alpha) is the map's common region.

        Examples
        --------
        >>> ds = region("rcp", alpha="0.2:1.6:0.2", beta="0.1:0.7:0.2").to_xarray()
        >>> ds["stable"].dims, int(ds["stable"].sum())   # the closed form (eq. D.1) counts 15 too
        (('beta', 'alpha'), 15)
        """
        region = self.value
        # the columns that label a configuration: the swept network's parameters, by whatever name the model uses
        configuration = list(
            dict.fromkeys(k for config in region.meta.get("configurations") or [] for k in config if k in region.table)
        )
        units = {k: column_unit(region.model, k) for k in region.table}
        ds = grid_dataset(
            region.table,
            {"beta": region.beta, "alpha": region.alpha},
            units,
            {"model": region.model.name, "method": region.method, "command": self.command},
            configuration=configuration,
        )
        if set(ds["stable"].dims) != {"beta", "alpha"}:
            ds["stable_everywhere"] = (("beta", "alpha"), region.stable.astype(int), {"units": "1"})
        return ds

    def summary(self) -> str:
        return region_summary(self.value)

    def _repr_text(self) -> str:
        text = self.summary()
        return text.split(" at C = ")[0].split(" in every ")[0]

    def plot(self, ax=None, *, verdicts: bool = True, **kwargs):
        """Draw the map: the margins' panels, the four verdicts of a simulated map, else the shaded region.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on (default: a new figure; a margins map draws its own figure).
        verdicts : bool
            A map with verdicts (phase plane, packet) shows each point's verdict (as ``map --out``);
            ``False`` shades its stable points instead.
        **kwargs
            Passed on to the drawing function (e.g. ``color`` of the shaded region, ``title``).

        Returns
        -------
        matplotlib.axes.Axes or matplotlib.figure.Figure

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> r = region("rcp", alpha="0.5:1.5:0.5", beta="0.5:1.5:0.5", method="phaseplane")
        >>> [t.get_text() for t in r.plot().get_legend().get_texts()][:4]   # each verdict with its count
        ['converged (stable): 5', 'limit cycle: 4', 'diverged: 0', 'undecided (not known): 0']
        """
        if self.value.method == "margins":
            from ..linear.marginmap_plot import margin_map_plot

            return margin_map_plot(self.value, **kwargs)
        if verdicts and self.value.table is not None and "verdict" in self.value.table:
            from ..phaseplane.plotting import verdict_plot

            return verdict_plot(self.value, ax=ax, **kwargs)
        return self.value.plot(ax=ax, **kwargs)

    def save(self, path: str) -> None:
        """Write the map's figure to ``path`` (.png, .svg, .pdf); a PNG of a map without verdicts is drawn
        without matplotlib's figure (:func:`png_without_matplotlib`)."""
        if self.value.method == "margins":
            from ..linear.marginmap_plot import save_margin_figure

            save_margin_figure(self.value, path)
        else:
            from ..plotting import save_region_figure

            save_region_figure(self.value, path)

    def write_boundary(self, path: str) -> int:
        """Write the exact stable boundary up to this grid's largest gains as CSV (piece, w_d0, alpha, beta)."""
        from ..linear.exact import write_boundary_csv

        return write_boundary_csv(self.inputs["model"], float(self.value.alpha.max()), float(self.value.beta.max()), path)


def png_without_matplotlib(method: str, path: str | None) -> bool:
    """Whether :meth:`RegionResult.save` writes ``path`` for a map by ``method`` without matplotlib's figure
    (a PNG of a map that shades its stable cells; verdict and margins maps, SVG and PDF use matplotlib)."""
    from ..figures_raster import is_png

    return path is not None and is_png(path) and registered(method).figure == "region"


def _is_loop(model) -> bool:
    """:func:`rcpstab.linear.lti.is_loop` (imported only for a model given as an object: a name is never a loop)."""
    from ..linear.lti import is_loop

    return is_loop(model)


def network_text(config: dict) -> str:
    """``C = 150 Mb/s, d0 = 200 ms, N = 10, T = 10 ms`` from a configuration in SI units."""
    parts = []
    if "C" in config:
        parts.append(f"C = {rate_text(config['C'])}")
    if "d0" in config:
        parts.append(f"d0 = {config['d0'] * 1e3:.4g} ms")
    if "N" in config:
        parts.append(f"N = {config['N']:g}")
    if "T" in config:
        parts.append(f"T = {config['T'] * 1e3:.4g} ms")
    # a model's own parameters (a user's protocol), as given
    parts += [f"{name} = {value:g}" for name, value in config.items() if name not in ("C", "d0", "N", "T")]
    return ", ".join(parts)


def region_buffer_text(meta: dict) -> str:
    """``"; buffer 1 C*d0 (the overflow dropped)"`` when the runs had a buffer, and
    ``"; resumed: 3 of 8 chunks read from the checkpoint"`` when a sweep resumed; else ``""``."""
    text = "" if meta.get("buffer_bdp") is None else f"; buffer {meta['buffer_bdp']:g} C*d0 (the overflow dropped)"
    total, computed = meta.get("chunks_total"), meta.get("chunks_computed")
    if total is not None and computed is not None and computed < total:
        text += f"; resumed: {total - computed} of {total} chunks read from the checkpoint, {computed} computed"
    return text


def region_summary(region) -> str:
    """What a region map decided, and which configurations it left out of the common region and why."""
    n, total = int(region.stable.sum()), region.stable.size
    name = region.model.name
    line = f"{region.method} region of {name}: {n} of {total} grid points stable ({100 * region.stable_fraction:.1f}%)"
    configs = region.meta.get("configurations") or []
    if len(configs) == 1:
        line += f" at {network_text(configs[0])}"
        if region.meta.get("unreachable_configurations"):
            line += "; this configuration cannot reach equilibrium (C/N < MIN_RATE), whatever the gains"
    elif configs:
        lost = region.meta.get("unreachable_configurations") or []
        line += f" in every one of the {len(configs) - len(lost)} configurations whose equilibrium is reachable"
        if lost:
            everywhere = region.meta.get("stable_points_all_configurations", 0)
            line += (
                f"; {len(lost)} of {len(configs)} configurations cannot reach equilibrium (C/N < MIN_RATE) "
                f"and are not in the common region; over all {len(configs)} the common region is "
                + ("empty" if everywhere == 0 else f"{everywhere} points")
            )
    counts = region.meta.get("verdict_counts")
    if counts:
        line += " (" + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items() if v) + " point-configurations)"
    return line + region_buffer_text(region.meta)
