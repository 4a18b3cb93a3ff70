"""The ``rcpstab check`` configuration file: read, validate, fill in the documented defaults.

A configuration is a TOML file with three tables::

    [router]                              # App. F constants (names as in the thesis)
    ALPHA = 0.4                           # required, > 0
    BETA = 0.2                            # required, > 0
    ETA = 1.0                             # target utilization, (0, 1]
    MAX_RATE_ESTIMATION_INTERVAL_MS = 10  # Tr = min(avg_rtt, this), ms
    MAX_ALLOWABLE_RTT_MS = 20000          # RTT samples at or above this are ignored, ms
    MIN_RATE_MTU_FRACTION = 0.01          # MIN_RATE = this * MTU / avg_rtt

    [envelope]                            # the networks the router will see
    rtt_ms = [15, 500]                    # round-trip propagation delay d0, ms
    link_mbps = [10, 10000]               # link capacity C, Mb/s
    flows = [1, 100]                      # long-lived flows N
    buffer_bdp = 1.0                      # buffer, in bandwidth-delay products C*d0

    [thresholds]                          # pass marks of the checks
    gain_margin_min = 2.0
    phase_margin_min_deg = 10.0
    rightmost_real_max = -0.05            # per RTT (s*d0)
    load_doubling_rtt_max = 25.0
    flash_crowd_rtt_max = 50.0

Every bad input raises :class:`~rcpstab.errors.InputError` with one line naming the key.
"""

from __future__ import annotations

import difflib
import math
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from typing import Any

from ..errors import InputError
from ..runtime.validation import DOMAINS

ROUTER_KEYS = ("ALPHA", "BETA", "ETA", "MAX_RATE_ESTIMATION_INTERVAL_MS", "MAX_ALLOWABLE_RTT_MS", "MIN_RATE_MTU_FRACTION")
ENVELOPE_RANGES = ("rtt_ms", "link_mbps", "flows")


@dataclass(frozen=True)
class Router:
    """The router constants of App. F.

    Attributes
    ----------
    alpha, beta : float
        Gains of the rate law (App. F line 8).
    eta : float
        Target utilization (App. F: 0.95..1; 1 in the thesis' analysis).
    max_interval_ms : float
        MAX_RATE_ESTIMATION_INTERVAL (ms): the update interval is T = min(avg_rtt, this) (line 13).
    max_rtt_ms : float
        MAX_ALLOWABLE_RTT (ms): RTT samples at or above it are not averaged (lines 19-21).
    min_rate_mtu_fraction : float
        MIN_RATE = this * MTU / avg_rtt (lines 9-10).
    """

    alpha: float
    beta: float
    eta: float = 1.0
    max_interval_ms: float = 10.0
    max_rtt_ms: float = 20_000.0
    min_rate_mtu_fraction: float = 0.01


@dataclass(frozen=True)
class Envelope:
    """The networks the router must be stable on.

    Attributes
    ----------
    rtt_ms : tuple of float
        (lo, hi) round-trip propagation delay d0, ms. Default 15-500 ms: the thesis (Sec. 5.2)
        cites 85% of Internet traffic in this range.
    link_mbps : tuple of float
        (lo, hi) link capacity C, Mb/s.
    flows : tuple of float
        (lo, hi) number of long-lived flows N.
    buffer_bdp : float
        Buffer size in bandwidth-delay products C*d0 (1: the rule of thumb the thesis'
        ns-2 set-ups use, Ch. 4). The fluid model's queue is held in [0, buffer] and what
        overflows is dropped: without it a flash crowd queues hundreds of C*d0 that no router
        holds, and the queueing delay (d = d0 + q/C) slows the loop to a drain of hundreds of
        RTTs that no real network would see.
    """

    rtt_ms: tuple[float, float] = (15.0, 500.0)
    link_mbps: tuple[float, float] = (10.0, 10_000.0)
    flows: tuple[float, float] = (1.0, 100.0)
    buffer_bdp: float = 1.0


@dataclass(frozen=True)
class Thresholds:
    """Pass marks.

    Attributes
    ----------
    gain_margin_min : float
        Smallest gain margin (2 = 6 dB: both gains may double, e.g. from a misconfigured
        link rate, before the linear loop goes unstable).
    phase_margin_min_deg : float
        Smallest phase margin, degrees (10 deg is about 0.3 RTT of extra loop delay, which
        queueing adds, at the thesis' recommended gains).
    rightmost_real_max : float
        Largest real part of the rightmost root, per RTT (-0.05: a perturbation decays at
        least e-fold every 20 RTTs).
    load_doubling_rtt_max : float
        Slowest allowed convergence after the load doubles (N -> 2 N from the old equilibrium,
        R(0) = 2 Re, q(0) = 0: thesis Figs. 5.10-5.13, 7.1), RTTs. The thesis recommends
        alpha in (0.4, 0.6), beta in (0.2, 0.6) as recovering quickly (Sec. 5.4, Ch. 7 Q1) and
        says "within 10 RTTs"; with its own band (:data:`~rcpstab.verdicts.band.STANDARD`) and start,
        that box takes 11.8-22.9 RTTs in App. E's set-up (`rcpstab convergence --alpha
        0.4:0.6:0.1 --beta 0.2:0.6:0.1`; Fig. 7.1's own (0.6, 0.2) takes 22.05). 25 accepts the
        thesis' recommended box on that calibration set-up and rejects gains that recover more
        slowly than any of it. (The old 20 was set against a start at Re/2, which is not the
        thesis'.)
    flash_crowd_rtt_max : float
        Slowest allowed recovery after a flash crowd (N -> 10 N from equilibrium), RTTs from the
        crowd until R and q re-enter the band for good. The thesis gives no figure for it: Ch. 7
        Q1 calls a sudden increase "the worst-case scenario for RCP", which is "not optimized to
        prevent bad things ... but to recover quickly", accepting losses (Q1-Q2: the box is
        chosen so that RCP "recovers quickly after sudden traffic changes, such as
        flash-crowds"). What the physics adds to the thesis' 10 RTTs (the doubling's figure):
        9 C*d0 arrive before any feedback, so a one-BDP buffer overflows in the first RTT
        whatever the gains, and the rate law, facing 10x overload, drives R down to its floor
        MIN_RATE = 0.01 MTU/d within one or two updates where T/d0 is large. From there R can
        grow at most e^alpha per RTT (dR/dt <= alpha R / d0 with the link idle), so the climb
        back to R_e = eta C/(10 N) takes at least ln(R_e/MIN_RATE)/alpha RTTs: at the box's
        smallest alpha (0.4) and the default envelope's widest ratio (10 Gb/s, 500 ms, 10
        flows: R_e/MIN_RATE = 4e6) that is 38 RTTs. 50 = 10 (thesis) + 38 (the climb), rounded
        up: derived from the thesis and the envelope, not fitted to measured recoveries.
    """

    gain_margin_min: float = 2.0
    phase_margin_min_deg: float = 10.0
    rightmost_real_max: float = -0.05
    load_doubling_rtt_max: float = 25.0
    flash_crowd_rtt_max: float = 50.0


@dataclass(frozen=True)
class CheckConfig:
    """A validated configuration: the router, its envelope and the thresholds."""

    router: Router
    envelope: Envelope = field(default_factory=Envelope)
    thresholds: Thresholds = field(default_factory=Thresholds)

    def with_gains(self, alpha: float, beta: float) -> CheckConfig:
        """The same configuration with other gains (to try a suggestion)."""
        return replace(self, router=replace(self.router, alpha=float(alpha), beta=float(beta)))


ECHO_CHARS = 80  # a value is echoed in a message up to this many characters
MAX_CONFIG_BYTES = 16 * 2**20  # a configuration file is a few hundred bytes; 16 MB is far beyond any real one


def _echo(value: object) -> str:
    """``repr(value)`` for a one-line message, cut to :data:`ECHO_CHARS` (a 2M-element array was
    echoed as one 8 MB line), with the length of what was cut."""
    text = repr(value)
    if len(text) <= ECHO_CHARS:
        return text
    size = f", {len(value)} items" if isinstance(value, (list, dict, str)) else ""
    return f"{text[:ECHO_CHARS]}... ({len(text)} characters{size})"


def _unknown(key: str, where: str, known: Iterable[str]) -> InputError:
    close = difflib.get_close_matches(key[:200], list(known), n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(known)})"
    return InputError(f"unknown key {_echo(key)} in {where}{hint}")


def _number(value: object, name: str, minimum: float = 0.0, strict: bool = True, maximum: float = math.inf) -> float:
    """``value`` as a finite float in its range, or an InputError naming ``name``."""
    # bool is an int in Python but `ALPHA = true` is a typo, not a gain.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{name} = {_echo(value)}: expected a number")
    value = float(value)
    low_ok = value > minimum if strict else value >= minimum
    if not (math.isfinite(value) and low_ok and value <= maximum):
        bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
        upper = "" if math.isinf(maximum) else f" and <= {maximum:g}"
        raise InputError(f"{name} = {value}: must be finite, {bound}{upper}")
    return value


def _range(value: object, name: str, minimum: float, strict: bool = True) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise InputError(f"{name} = {_echo(value)}: expected [lo, hi]")
    lo, hi = (_number(v, f"{name}[{i}]", minimum, strict) for i, v in enumerate(value))
    if lo > hi:
        raise InputError(f"{name} = [{lo:g}, {hi:g}]: reversed range (lo > hi)")
    return lo, hi


def _table(document: dict[str, Any], name: str) -> dict[str, Any]:
    table = document.get(name, {})
    if not isinstance(table, dict):
        raise InputError(f"{name} must be a table ([{name}])")
    return table


def parse_config(document: dict[str, Any]) -> CheckConfig:
    """Validate a parsed TOML document and fill in the defaults.

    Parameters
    ----------
    document : dict
        As returned by :func:`tomllib.loads`.

    Returns
    -------
    CheckConfig

    Raises
    ------
    InputError
        Unknown table or key (with a "did you mean" suggestion), missing ALPHA/BETA, a value
        of the wrong type, not finite or out of range, a reversed envelope range.
    """
    for name in document:
        if name not in ("router", "envelope", "thresholds"):
            raise _unknown(name, "the file (tables)", ("router", "envelope", "thresholds"))
    router = _table(document, "router")
    envelope = _table(document, "envelope")
    thresholds = _table(document, "thresholds")
    for key in router:
        if key not in ROUTER_KEYS:
            raise _unknown(key, "[router]", ROUTER_KEYS)
    for key in ("ALPHA", "BETA"):
        if key not in router:
            raise InputError(f"missing key {key} in [router]")
    defaults = Router(alpha=1.0, beta=1.0)
    parsed_router = Router(
        alpha=_number(router["ALPHA"], "ALPHA"),
        beta=_number(router["BETA"], "BETA"),
        eta=_number(router.get("ETA", defaults.eta), "ETA", maximum=1.0),
        max_interval_ms=_number(
            router.get("MAX_RATE_ESTIMATION_INTERVAL_MS", defaults.max_interval_ms), "MAX_RATE_ESTIMATION_INTERVAL_MS"
        ),
        max_rtt_ms=_number(router.get("MAX_ALLOWABLE_RTT_MS", defaults.max_rtt_ms), "MAX_ALLOWABLE_RTT_MS"),
        min_rate_mtu_fraction=_number(
            router.get("MIN_RATE_MTU_FRACTION", defaults.min_rate_mtu_fraction), "MIN_RATE_MTU_FRACTION"
        ),
    )
    env_keys = [f.name for f in fields(Envelope)]
    for key in envelope:
        if key not in env_keys:
            raise _unknown(key, "[envelope]", env_keys)
    base = Envelope()
    parsed_envelope = Envelope(
        rtt_ms=_range(envelope.get("rtt_ms", list(base.rtt_ms)), "rtt_ms", 0.0),
        link_mbps=_range(envelope.get("link_mbps", list(base.link_mbps)), "link_mbps", 0.0),
        flows=_range(envelope.get("flows", list(base.flows)), "flows", 1.0, strict=False),
        buffer_bdp=_number(envelope.get("buffer_bdp", base.buffer_bdp), "buffer_bdp"),
    )
    threshold_keys = [f.name for f in fields(Thresholds)]
    values = {}
    for key, value in thresholds.items():
        if key not in threshold_keys:
            raise _unknown(key, "[thresholds]", threshold_keys)
        # the rightmost root bound may be any real number (0: plain stability); the rest are positive
        values[key] = _number(value, key, -math.inf) if key == "rightmost_real_max" else _number(value, key)
    _check_domains(parsed_router, parsed_envelope)
    return CheckConfig(parsed_router, parsed_envelope, Thresholds(**values))


# Config key -> (shared domain, factor from the file's unit to the domain's, the file's unit)
_DOMAIN_KEYS = {
    "ALPHA": ("alpha", 1.0, ""),
    "BETA": ("beta", 1.0, ""),
    "MAX_RATE_ESTIMATION_INTERVAL_MS": ("T", 1e-3, "ms"),
    "rtt_ms": ("d0", 1e-3, "ms"),
    "link_mbps": ("C", 1e6, "Mb/s"),
    "flows": ("N", 1.0, ""),
    "buffer_bdp": ("buffer_bdp", 1.0, "BDP"),
}


def _check_domains(router: Router, envelope: Envelope) -> None:
    """The shared parameter domains (rcpstab.runtime.validation), in the file's units."""
    given = {
        "ALPHA": [router.alpha],
        "BETA": [router.beta],
        "MAX_RATE_ESTIMATION_INTERVAL_MS": [router.max_interval_ms],
        "rtt_ms": envelope.rtt_ms,
        "link_mbps": envelope.link_mbps,
        "flows": envelope.flows,
        "buffer_bdp": [envelope.buffer_bdp],
    }
    for key, values in given.items():
        name, factor, unit = _DOMAIN_KEYS[key]
        domain = DOMAINS[name]
        for i, value in enumerate(values):
            if not domain.contains(value * factor):
                where = f"{key}[{i}]" if len(values) > 1 else key
                low, high = domain.low / factor, domain.high / factor
                raise InputError(
                    f"{where} = {value:g}: must be in {'(' if domain.low_open else '['}{low:g}, "
                    f"{high:g}]{' ' + unit if unit else ''}"
                )
    _check_derived(envelope)


def _check_derived(envelope: Envelope) -> None:
    """What the checks derive from the envelope, refused in the file's terms: the nonlinear check's
    finest update interval T = d0/SMALL_T_PER_RTT and its flash crowd of FLASH_CROWD x N flows
    (``T = 5e-08 s`` and ``N = 2e7`` named values the file never held)."""
    from .checks import SMALL_T_PER_RTT
    from .nonlinear import FLASH_CROWD, LOAD_DOUBLING

    t_low, n_high = DOMAINS["T"].low, DOMAINS["N"].high
    rtt_ms = envelope.rtt_ms[0]
    if rtt_ms * 1e-3 / SMALL_T_PER_RTT < t_low:
        raise InputError(
            f"rtt_ms[0] = {rtt_ms:g}: the nonlinear check integrates with T = d0/{SMALL_T_PER_RTT:g} = "
            f"{rtt_ms * 1e-3 / SMALL_T_PER_RTT:.3g} s, below the {t_low:g} s the model is built for; "
            f"rtt_ms must be >= {t_low * SMALL_T_PER_RTT * 1e3:g}"
        )
    flows = envelope.flows[1]
    step = max(FLASH_CROWD, LOAD_DOUBLING)
    if flows * step > n_high:
        raise InputError(
            f"flows[1] = {flows:g}: the flash crowd grows it to {step:g} N = {flows * step:.3g} flows, "
            f"above the {n_high:.3g} the model is built for; flows must be <= {n_high / step:g}"
        )


def _read_text(path: str) -> str:
    """The text of a regular file of at most :data:`MAX_CONFIG_BYTES`, without a UTF-8 BOM.

    Devices and FIFOs are refused before they are opened (``/dev/zero`` was read until
    MemoryError; a FIFO with no writer blocked forever); at most the limit plus one byte is read,
    so a file growing while it is read cannot get past it either.
    """
    import os
    import stat

    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: is a folder, not a TOML file")
    if not stat.S_ISREG(info.st_mode):
        kind = (
            "a FIFO"
            if stat.S_ISFIFO(info.st_mode)
            else "a device"
            if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
            else "a socket"
            if stat.S_ISSOCK(info.st_mode)
            else "not a regular file"
        )
        raise InputError(f"{path}: {kind}, not a TOML file")
    if info.st_size > MAX_CONFIG_BYTES:
        raise InputError(
            f"{path}: {info.st_size} bytes, more than a configuration file's limit of {MAX_CONFIG_BYTES // 2**20} MB"
        )
    try:
        # O_NONBLOCK: should the path have become a FIFO since the check, opening it does not wait.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise InputError(f"{path}: not a regular file, not a TOML file")
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise InputError(f"{path}: more than a configuration file's limit of {MAX_CONFIG_BYTES // 2**20} MB")
    if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark (Windows editors write one)
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a UTF-8 text file") from None


def load_config(path: str) -> CheckConfig:
    """Read and validate a configuration file.

    Raises
    ------
    InputError
        The file is missing or unreadable, not valid TOML (with the line), or invalid
        (see :func:`parse_config`).
    """
    try:
        document = tomllib.loads(_read_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: TOML syntax error: {exc}") from None
    except RecursionError:
        raise InputError(f"{path}: arrays or tables nested too deeply") from None
    return parse_config(document)
