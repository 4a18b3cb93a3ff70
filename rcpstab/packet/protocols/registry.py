"""The registry of packet protocols: name -> :class:`~.base.PacketProtocol` (SciPy's METHODS style).

``run_scenario(protocol=NAME)``, ``cosim --model`` and ``map --method packet`` look protocols
up here. A protocol from outside the package is one :func:`register_protocol` call: a
:class:`~.base.PacketProtocol` subclass whose data path is an entry of the C table (reused by
name) and whose controller is its own. An installed package can instead announce it under the
entry-point group :data:`ENTRY_POINT_GROUP`; :func:`get_protocol` registers it on first use::

    [project.entry-points."rcpstab.packet_protocols"]
    myproto = "mypackage.packet:PROTOCOL"
"""

from __future__ import annotations

from importlib.metadata import entry_points

from ...errors import InputError
from ...models.plugins import model_file_attribute
from ..hosts.senders import SENDER_HEADER_BYTES, SENDERS
from ..routers.port_ops import DATAPATH_CODES
from .base import PacketProtocol
from .rcp import RCP
from .rcpac import RCPAC
from .xcp import XCP

__all__ = [
    "ENTRY_POINT_GROUP",
    "MODEL_FILE_PROTOCOL",
    "PACKET_PROTOCOLS",
    "get_protocol",
    "model_protocol",
    "port_code",
    "register_protocol",
    "unregister_protocol",
]

ENTRY_POINT_GROUP = "rcpstab.packet_protocols"

PLAIN = "plain"  # a link without a control path: drop-tail only (the ACK links)
MODEL_FILE_PROTOCOL = "PACKET_PROTOCOL"  # what a user's protocol file (--model file.py) may define beside MODEL
PACKET_PROTOCOLS: dict[str, PacketProtocol] = {p.name: p for p in (RCP, XCP, RCPAC)}


def get_protocol(name: str) -> PacketProtocol:
    """The registered protocol ``name``.

    Raises
    ------
    InputError
        No protocol of that name is registered.

    Examples
    --------
    >>> get_protocol("rcp")
    <RcpProtocol 'rcp': rtcp senders, 12-byte header, rcp data path>
    """
    if isinstance(name, str) and name in PACKET_PROTOCOLS:
        return PACKET_PROTOCOLS[name]
    installed = _installed(name) if isinstance(name, str) else None
    if installed is None:
        raise InputError(f"model {name!r}: the packet simulator runs {', '.join(PACKET_PROTOCOLS)}")
    return installed


def model_protocol(model) -> PacketProtocol | None:
    """The packet protocol a user's protocol file defines beside its fluid model, registered; None if none.

    ``model`` is a :class:`~rcpstab.models.spec.ModelSpec` loaded from a file (``--model file.py``);
    the file's :data:`MODEL_FILE_PROTOCOL` (a :class:`PacketProtocol` instance) is registered under
    the model's name on first use, so ``run_scenario(protocol=model.name)`` runs it.

    Raises
    ------
    InputError
        The file's ``PACKET_PROTOCOL`` is not a PacketProtocol, or the registry refuses it.

    Examples
    --------
    >>> from rcpstab.models import get_model
    >>> model_protocol(get_model("rcp")) is None  # a bundled model: its protocol is registered already
    True
    """
    protocol = model_file_attribute(model, MODEL_FILE_PROTOCOL)
    if protocol is None:
        return None
    where = f"--model {model.origin}: {MODEL_FILE_PROTOCOL}"
    if not isinstance(protocol, PacketProtocol):
        raise InputError(f"{where} is not a PacketProtocol instance")
    if PACKET_PROTOCOLS.get(model.name) is protocol:
        return protocol
    if protocol.name not in ("", model.name):
        raise InputError(f"{where} is named {protocol.name!r}, not the model's name {model.name!r}")
    protocol.name = model.name
    try:
        return register_protocol(protocol)
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None


def _installed(name: str) -> PacketProtocol | None:
    """The protocol an installed package announces as ``name``, registered; None if none does."""
    for ep in entry_points(group=ENTRY_POINT_GROUP, name=name):
        try:
            protocol = ep.load()
        except Exception as exc:  # a broken plug-in package: one line naming it
            raise InputError(f"model {name!r}: the entry point {ep.value} failed to load: {exc}") from None
        if not isinstance(protocol, PacketProtocol) or protocol.name != name:
            raise InputError(f"model {name!r}: the entry point {ep.value} is not a PacketProtocol named {name!r}")
        try:
            return register_protocol(protocol)
        except ValueError as exc:
            raise InputError(f"model {name!r}: the entry point {ep.value}: {exc}") from None
    return None


def register_protocol(protocol: PacketProtocol, *, replace: bool = False) -> PacketProtocol:
    """Add ``protocol`` to the registry under ``protocol.name``; returns it.

    Raises
    ------
    ValueError
        Not a PacketProtocol, an empty or reserved name, a name already registered (unless
        ``replace``), an unknown sender kind or data path, or a header shorter than the
        sender's.
    """
    if not isinstance(protocol, PacketProtocol):
        raise ValueError(f"{protocol!r} is not a PacketProtocol")
    name = protocol.name
    if not isinstance(name, str) or not name or name == PLAIN:
        raise ValueError(f"protocol name {name!r} must be a non-empty string other than {PLAIN!r}")
    if name in PACKET_PROTOCOLS and not replace:
        raise ValueError(f"protocol {name!r} is already registered (replace=True to replace it)")
    if protocol.sender not in SENDERS:
        raise ValueError(f"protocol {name!r}: sender {protocol.sender!r} is not one of {', '.join(SENDERS)}")
    if protocol.datapath not in DATAPATH_CODES:
        raise ValueError(f"protocol {name!r}: data path {protocol.datapath!r} is not one of {', '.join(DATAPATH_CODES)}")
    if not (isinstance(protocol.header_bytes, int) and protocol.header_bytes >= SENDER_HEADER_BYTES[protocol.sender]):
        raise ValueError(
            f"protocol {name!r}: header_bytes={protocol.header_bytes!r} is shorter than the "
            f"{protocol.sender} sender's {SENDER_HEADER_BYTES[protocol.sender]}-byte header"
        )
    PACKET_PROTOCOLS[name] = protocol
    return protocol


def unregister_protocol(name: str) -> PacketProtocol:
    """Remove protocol ``name`` from the registry and return it (KeyError if absent)."""
    return PACKET_PROTOCOLS.pop(name)


def port_code(protocol: str) -> int:
    """The protocol code of a link running ``protocol`` (``"plain"``: no control path)."""
    return DATAPATH_CODES[PLAIN] if protocol == PLAIN else get_protocol(protocol).datapath_code
