"""Packet protocols as plug-ins: one :class:`PacketProtocol` per router protocol, in a registry.

Each protocol module holds one protocol: :mod:`.rcp`, :mod:`.xcp`, :mod:`.rcpac`.
:mod:`.base` says what a protocol is; :mod:`.registry` holds them by name.
"""

from .base import PacketProtocol, PortService
from .registry import PACKET_PROTOCOLS, get_protocol, port_code, register_protocol, unregister_protocol

__all__ = [
    "PACKET_PROTOCOLS",
    "PacketProtocol",
    "PortService",
    "get_protocol",
    "port_code",
    "register_protocol",
    "unregister_protocol",
]
