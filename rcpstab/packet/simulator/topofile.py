"""Topologies as data: links, flows on paths with start and stop times, read from TOML or JSON.

The format (``examples/topologies/fig5.7.toml`` is the thesis' Fig. 5.7 written in it)::

    name = "fig5.7"          # label (optional; default: the file name)
    eta = 1.0                # target utilization of every router (optional, default 1)
    packet_bytes = 1500      # data datagram size, bytes (optional, default 1500)
    t_end_s = 400.0          # default length of a run, s (optional, default 400)
    request_bps = 0.0        # the rate senders ask for in their headers, bit/s (optional; 0 = as fast as possible)

    [[links]]                # one table per link, in any order; every link runs the run's protocol
    name = "L1"
    capacity_bps = 155e6     # bit/s
    delay_s = 0.001          # one-way propagation delay, s
    buffer_bytes = "unbounded"   # drop-tail limit, bytes (an integer), "unbounded", or "bdp": one
                             # bandwidth-delay product, capacity x (delay_s + ack_delay_s)
    ack_capacity_bps = 155e6 # optional: the ACK mirror's line rate (default: capacity_bps), bit/s
    ack_delay_s = 0.001      # optional: the ACK mirror's delay (default: delay_s), s

    [[flows]]                # one table per group of identical flows
    name = "short"
    count = 49               # optional, default 1
    path = ["L1", "L3"]      # link names in the order the data crosses them
    start_s = 0.0            # optional, default 0
    stop_s = "never"         # optional, default "never": long-lived; else a time > start_s, s
    start_jitter_s = 0.0     # optional: each flow starts at start_s + U[0, start_jitter_s), drawn from
                             # the run's seed (ns-3's random start times); 0 = every run identical

Every link gets a plain (uncontrolled) mirror that carries the ACKs of the flows crossing it,
with the same capacity, delay and buffer unless ``ack_capacity_bps``/``ack_delay_s`` say otherwise, so
a flow's round-trip propagation delay is the sum of its path's delays and their mirrors' (twice the
path's by default), as in the fluid network model (:mod:`rcpstab.network`). JSON files use the same
keys. Any mistake is an :class:`~rcpstab.errors.InputError` naming the key and value; so is a link
no flow crosses (:func:`check_every_link_crossed`).

A file with one link that every flow crosses, and no start jitter, is a single-bottleneck scenario
(:meth:`TopologySpec.single_link`): it runs as the named presets do, which are files of this format
(``rcpstab/packet/simulator/presets/``: ``fig5.3.toml``, ``testbed.toml``); the mirror's buffer is then
one bandwidth-delay product of the mirror (at least a packet), as in the dumbbell.
"""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import InputError
from ...runtime.validation import check_integer, check_value
from .topology import NS_PER_S, Link, Topology, request_field

if TYPE_CHECKING:
    from .scenarios import Scenario

__all__ = [
    "UNBOUNDED_BUFFER_BYTES",
    "FlowSpec",
    "LinkSpec",
    "TopologySpec",
    "check_every_link_crossed",
    "load_topology",
    "parse_topology",
]

UNBOUNDED_BUFFER_BYTES = 1 << 62
"""The drop-tail limit ``"unbounded"`` stands for: a queue this long is out of reach (memory grows
with what is queued, never with the limit)."""
_TOP_KEYS = {"name", "eta", "packet_bytes", "t_end_s", "request_bps", "links", "flows"}
_LINK_KEYS = {"name", "capacity_bps", "delay_s", "buffer_bytes", "ack_capacity_bps", "ack_delay_s"}
_FLOW_KEYS = {"name", "count", "path", "start_s", "stop_s", "start_jitter_s"}


@dataclass(frozen=True)
class LinkSpec:
    """One link of a topology file.

    Parameters
    ----------
    name : str
    capacity_bps : float
        Line rate, bit/s.
    delay_s : float
        One-way propagation delay, s.
    buffer_bytes : int or None
        Drop-tail limit, bytes (:data:`UNBOUNDED_BUFFER_BYTES` for ``"unbounded"``; None for ``"bdp"``).
    ack_capacity_bps, ack_delay_s : float or None
        The ACK mirror's line rate (bit/s) and delay (s); None: the link's own.
    """

    name: str
    capacity_bps: float
    delay_s: float
    buffer_bytes: int | None
    ack_capacity_bps: float | None = None
    ack_delay_s: float | None = None

    @property
    def mirror_capacity_bps(self) -> float:
        """The ACK mirror's line rate, bit/s."""
        return self.capacity_bps if self.ack_capacity_bps is None else self.ack_capacity_bps

    @property
    def mirror_delay_s(self) -> float:
        """The ACK mirror's one-way delay, s."""
        return self.delay_s if self.ack_delay_s is None else self.ack_delay_s

    @property
    def effective_buffer_bytes(self) -> int:
        """The drop-tail limit, bytes (``"bdp"``: capacity x round trip over the link and its mirror)."""
        if self.buffer_bytes is None:
            return int(self.capacity_bps * (self.delay_s + self.mirror_delay_s) / 8)
        return self.buffer_bytes


@dataclass(frozen=True)
class FlowSpec:
    """A group of ``count`` identical flows of a topology file.

    Parameters
    ----------
    name : str
    count : int
    path : tuple of str
        Link names, in the order the data crosses them.
    start_s : float
        Start time, s.
    stop_s : float
        Stop time, s (``math.inf``: long-lived).
    start_jitter_s : float
        Each flow starts at ``start_s`` plus a uniform draw from [0, start_jitter_s), s.
    """

    name: str
    count: int
    path: tuple[str, ...]
    start_s: float = 0.0
    stop_s: float = math.inf
    start_jitter_s: float = 0.0


@dataclass(frozen=True)
class TopologySpec:
    """A topology file's content: links, flow groups and run settings (see the module docstring).

    Examples
    --------
    >>> spec = parse_topology({"links": [{"name": "A", "capacity_bps": 1e7, "delay_s": 0.01,
    ...                                    "buffer_bytes": 30000}],
    ...                         "flows": [{"name": "f", "count": 2, "path": ["A"]}]})
    >>> spec.rtt_s(spec.flows[0]), spec.n_flows
    (0.02, 2)
    """

    name: str
    links: tuple[LinkSpec, ...]
    flows: tuple[FlowSpec, ...]
    eta: float = 1.0
    packet_bytes: int = 1500
    t_end_s: float = 400.0
    request_bps: float = 0.0

    @property
    def n_flows(self) -> int:
        """Number of flows (the groups' counts summed)."""
        return sum(f.count for f in self.flows)

    def link_index(self, name: str) -> int:
        """Position of link ``name`` in :attr:`links`."""
        return [link.name for link in self.links].index(name)

    def rtt_s(self, flow: FlowSpec) -> float:
        """Round-trip propagation delay of ``flow``'s path and its ACK mirror, s."""
        links = [self.links[self.link_index(name)] for name in flow.path]
        if all(link.ack_delay_s is None for link in links):
            return 2 * sum(link.delay_s for link in links)  # as before the mirrors had their own delays
        return sum(link.delay_s + link.mirror_delay_s for link in links)

    def packet_topology(self, protocol: str = "rcp") -> tuple[Topology, list[tuple[int, int]]]:
        """``protocol``'s ports (indices 0..L-1), their plain ACK mirrors (L..2L-1), and each group's
        (forward, reverse) path index, for :func:`~rcpstab.packet.simulator.run.build_simulator`."""
        links = [Link(link.name, link.capacity_bps, link.delay_s, link.effective_buffer_bytes, protocol) for link in self.links]
        links += [
            Link(link.name + "-ack", link.mirror_capacity_bps, link.mirror_delay_s, link.effective_buffer_bytes, "plain")
            for link in self.links
        ]
        n = len(self.links)
        paths, group_paths = [], []
        for flow in self.flows:
            forward = tuple(self.link_index(name) for name in flow.path)
            paths += [forward, tuple(n + i for i in reversed(forward))]
            group_paths.append((len(paths) - 2, len(paths) - 1))
        topology = Topology(
            links=tuple(links),
            forward_path=group_paths[0][0],
            reverse_path=group_paths[0][1],
            paths=tuple(paths),
            monitored_link=0,
        )
        return topology, group_paths

    def flow_table(self, group_paths: list[tuple[int, int]], seed: int = 0) -> list[tuple[Any, ...]]:
        """Every flow as the simulators take it: (start ns, stop ns or -1, 0 = long-lived, request
        "as fast as possible", forward path, reverse path), groups in file order.

        Start jitter is drawn from ``numpy.random.default_rng(seed)``, group by group, only for
        groups that have some (so a file without jitter gives the same table for every seed)."""
        request = request_field(self.request_bps)
        rng = np.random.default_rng(seed)
        table = []
        for f, (fwd, rev) in zip(self.flows, group_paths):
            starts = f.start_s + (rng.uniform(0.0, f.start_jitter_s, f.count) if f.start_jitter_s > 0 else np.zeros(f.count))
            stop = -1 if math.isinf(f.stop_s) else round(f.stop_s * NS_PER_S)
            table += [(round(float(start) * NS_PER_S), stop, 0, request, fwd, rev) for start in starts]
        return table

    def flow_names(self) -> list[str]:
        """One label per flow, ``<group>[<i>]``, in :meth:`flow_table` order."""
        return [f"{f.name}[{i}]" for f in self.flows for i in range(f.count)]

    def single_link(self) -> Scenario | None:
        """The single-bottleneck :class:`~rcpstab.packet.simulator.scenarios.Scenario` this file describes, or
        None when it is not one (several links, a flow not on the link, or start jitter).

        Returns
        -------
        Scenario or None
            The link's capacity and buffer, round trip ``delay_s + ack_delay_s`` with the data direction's share
            ``delay_s / round trip``, the mirror's capacity (None when it is the link's), each flow as a
            (start, stop) pair in file order, and the file's eta, ``packet_bytes``, ``t_end_s``, ``request_bps``.

        Examples
        --------
        >>> spec = parse_topology({"links": [{"name": "b", "capacity_bps": 1e7, "delay_s": 0.05, "buffer_bytes": "bdp"}],
        ...                         "flows": [{"count": 2, "path": ["b"], "stop_s": 9.0}]})
        >>> sc = spec.single_link()
        >>> sc.rtt_s, sc.forward_delay_share, sc.long_flows, sc.effective_buffer_bytes   # 10 Mb/s x 0.1 s / 8
        (0.1, 0.5, ((0.0, 9.0), (0.0, 9.0)), 125000)
        """
        from .scenarios import Scenario

        if len(self.links) != 1 or any(f.path != (self.links[0].name,) or f.start_jitter_s for f in self.flows):
            return None
        link = self.links[0]
        rtt = link.delay_s + link.mirror_delay_s
        return Scenario(
            name=self.name,
            capacity_bps=link.capacity_bps,
            rtt_s=rtt,
            eta=self.eta,
            long_flows=tuple((f.start_s, f.stop_s) for f in self.flows for _ in range(f.count)),
            t_end_s=self.t_end_s,
            forward_delay_share=link.delay_s / rtt if rtt > 0 else 0.5,
            buffer_bytes=link.buffer_bytes,
            reverse_capacity_bps=link.ack_capacity_bps,
            request_bps=self.request_bps,
            packet_bytes=self.packet_bytes,
        )


def load_topology(path: str | Path) -> TopologySpec:
    """Read a topology file (``.toml`` or ``.json``; the format is in the module docstring).

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    TopologySpec

    Raises
    ------
    InputError
        A missing or unreadable file, a syntax error, or an invalid value (named).
    """
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise InputError(f"topology file {str(path)!r}: {exc.strerror or exc}") from None
    try:
        document = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"topology file {str(path)!r}: {exc}") from None
    if not isinstance(document, dict):
        raise InputError(f"topology file {str(path)!r}: the top level must be a table/object")
    return parse_topology(document, default_name=path.stem)


def parse_topology(document: dict[str, Any], default_name: str = "topology") -> TopologySpec:
    """A :class:`TopologySpec` from a parsed TOML/JSON document (keys as in the module docstring).

    Parameters
    ----------
    document : dict
        As :func:`tomllib.loads` or :func:`json.loads` returns it.
    default_name : str
        The name when the document has none.

    Returns
    -------
    TopologySpec

    Raises
    ------
    InputError
        Naming the first unknown key, missing key or invalid value.
    """
    _known(document, _TOP_KEYS, "topology")
    links = tuple(_link(i, entry) for i, entry in enumerate(_tables(document, "links")))
    names = [link.name for link in links]
    if len(set(names)) != len(names):
        raise InputError(f"links: duplicate link name in {names}")
    flows = tuple(_flow(i, entry, names) for i, entry in enumerate(_tables(document, "flows")))
    check_every_link_crossed(names, [f.path for f in flows])
    spec = TopologySpec(
        name=str(document.get("name", default_name)),
        links=links,
        flows=flows,
        eta=_number(document, "eta", "eta", 1.0),
        packet_bytes=_integer(document, "packet_bytes", "packet_bytes", 1500),
        t_end_s=_number(document, "t_end_s", "t_end_s", 400.0),
        request_bps=_number(document, "request_bps", "request_bps", 0.0),
    )
    check_value("eta", spec.eta, field="eta")
    check_integer("packet_bytes", spec.packet_bytes, field="packet_bytes")
    check_value("t_end", spec.t_end_s, field="t_end_s")
    for ok, message in (
        (spec.packet_bytes >= 64, f"packet_bytes={spec.packet_bytes}: must be >= 64"),
        (spec.request_bps >= 0, f"request_bps={spec.request_bps:g}: must be >= 0"),
    ):
        if not ok:
            raise InputError(message)
    for flow in flows:  # its routers' first control interval: a 2e-9 s round trip ran one expiry per 2 ns
        check_value("path_rtt", spec.rtt_s(flow), field=f"flows[{flow.name}] round trip (its links' delays)")
    for link in links:
        if link.effective_buffer_bytes < spec.packet_bytes:
            raise InputError(
                f"links[{link.name}].buffer_bytes={link.effective_buffer_bytes}: holds no packet of {spec.packet_bytes} bytes"
            )
    return spec


def check_every_link_crossed(link_names: Sequence[str], paths: Sequence[Sequence[str]]) -> None:
    """Refuse a link that no path crosses, naming it.

    Such a link's router has no round trip to start from (App. F's ``avg_rtt`` prior is its flows'
    average RTT, eq. 5.16 averages their packets), and its rate reaches no sender, so it changes no
    flow: both lenses (the packet run and the fluid network model, :mod:`rcpstab.network`) refuse it
    the same way rather than invent a prior (the file can simply leave the link out).

    Parameters
    ----------
    link_names : sequence of str
        Every link, in file order.
    paths : sequence of sequence of str
        Each flow group's path (link names).

    Raises
    ------
    InputError
        ``link 'L2' is crossed by no flow ...`` for the first such link.

    Examples
    --------
    >>> check_every_link_crossed(["L1", "L2"], [("L1", "L2"), ("L1",)])
    >>> try:
    ...     check_every_link_crossed(["L1", "L2"], [("L1",)])
    ... except InputError as exc:
    ...     print(exc)
    link 'L2' is crossed by no flow: its router has no round trip to start from (leave the link out)
    """
    crossed = {name for path in paths for name in path}
    for name in link_names:
        if name not in crossed:
            raise InputError(
                f"link {name!r} is crossed by no flow: its router has no round trip to start from (leave the link out)"
            )


def _tables(document: dict[str, Any], key: str) -> list[dict[str, Any]]:
    entries = document.get(key)
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise InputError(f"{key}: needs at least one [[{key}]] table")
    return entries


def _known(table: dict[str, Any], keys: set[str], where: str) -> None:
    unknown = sorted(set(table) - keys)
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(keys))})")


def _number(table: dict[str, Any], key: str, where: str, default: float | None = None) -> float:
    value = table.get(key, default)
    if value is None:
        raise InputError(f"{where}: missing")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{where}={value!r}: must be a finite number")
    return float(value)


def _integer(table: dict[str, Any], key: str, where: str, default: int | None = None) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}={value!r}: must be an integer")
    return value


def _link(i: int, entry: dict[str, Any]) -> LinkSpec:
    name = str(entry.get("name", f"link{i}"))
    where = f"links[{name}]"
    _known(entry, _LINK_KEYS, where)
    capacity = _number(entry, "capacity_bps", f"{where}.capacity_bps")
    delay = _number(entry, "delay_s", f"{where}.delay_s")
    buffer = entry.get("buffer_bytes")
    if buffer == "unbounded":
        buffer = UNBOUNDED_BUFFER_BYTES
    elif buffer == "bdp":
        buffer = None
    else:
        buffer = _integer(entry, "buffer_bytes", f'{where}.buffer_bytes (bytes, "unbounded" or "bdp")')
    ack_capacity = _number(entry, "ack_capacity_bps", f"{where}.ack_capacity_bps") if "ack_capacity_bps" in entry else None
    ack_delay = _number(entry, "ack_delay_s", f"{where}.ack_delay_s") if "ack_delay_s" in entry else None
    # the one domain table: 1e20 b/s or a 1e12 s delay reached the simulator and overflowed int64 there
    for key, value, domain in (
        ("capacity_bps", capacity, "C"),
        ("delay_s", delay, "link_delay"),
        ("ack_capacity_bps", ack_capacity, "C"),
        ("ack_delay_s", ack_delay, "link_delay"),
    ):
        if value is not None:
            check_value(domain, value, field=f"{where}.{key}")
    if buffer not in (None, UNBOUNDED_BUFFER_BYTES):
        check_integer("buffer_bytes", buffer, field=f"{where}.buffer_bytes")
    return LinkSpec(name, capacity, delay, buffer, ack_capacity, ack_delay)


def _flow(i: int, entry: dict[str, Any], link_names: list[str]) -> FlowSpec:
    name = str(entry.get("name", f"flow{i}"))
    where = f"flows[{name}]"
    _known(entry, _FLOW_KEYS, where)
    count = _integer(entry, "count", f"{where}.count", 1)
    path = entry.get("path")
    if not isinstance(path, list) or not path:
        raise InputError(f"{where}.path={path!r}: must be a non-empty list of link names")
    for link in path:
        if link not in link_names:
            raise InputError(f"{where}.path: unknown link {link!r} (links: {', '.join(link_names)})")
    if len(set(path)) != len(path):
        raise InputError(f"{where}.path={path}: crosses a link twice")
    start = _number(entry, "start_s", f"{where}.start_s", 0.0)
    stop = entry.get("stop_s", "never")
    stop = math.inf if stop == "never" else _number(entry, "stop_s", f'{where}.stop_s (s or "never")')
    jitter = _number(entry, "start_jitter_s", f"{where}.start_jitter_s", 0.0)
    check_integer("flows", count, field=f"{where}.count")
    for key, value in (("start_s", start), ("start_jitter_s", jitter), ("stop_s", stop)):
        if value != math.inf:
            check_value("time", value, field=f"{where}.{key}")
    if not (0 <= start and start + jitter < stop):
        raise InputError(
            f"{where}: start_s={start:g}, start_jitter_s={jitter:g}, stop_s={stop:g} need "
            "0 <= start_s and start_s + start_jitter_s < stop_s"
        )
    return FlowSpec(name, count, tuple(path), start, stop, jitter)
