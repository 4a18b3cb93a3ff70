"""Pure-Python twin of the C data path: the executable specification of App. F lines 18-23.

Same API as :class:`rcpstab.packet._datapath.Datapath`; property tests require
both to produce byte-identical packets and identical registers. Counters are 64-bit
registers in C, so they wrap modulo 2**64 here too.
"""

from __future__ import annotations

import operator
from dataclasses import asdict, dataclass

from ....runtime.validation import check_simulator_integer
from ...wire.rcp_header import HEADER_LEN, RATE_ALL_ONES

MAX_ALLOWABLE_RTT_MS = 20_000  # App. F's recommendation: the default of each port's max_rtt register
U64_MASK = (1 << 64) - 1
_U64_REGISTERS = ("input_bytes", "rtt_sum", "rtt_count", "queue_bytes", "buffer_bytes", "malformed", "dropped", "max_rtt")


@dataclass
class PortRegisters:
    """Registers of one output port (units: bytes, ms, packets; ``rate`` in bytes/ms)."""

    input_bytes: int = 0
    rtt_sum: int = 0
    rtt_count: int = 0
    queue_bytes: int = 0
    buffer_bytes: int = 0
    malformed: int = 0
    dropped: int = 0
    max_rtt: int = MAX_ALLOWABLE_RTT_MS  # ms; RTTs at or above it are not averaged (App. F line 19)
    rate: int = 0


def check_size(size: object) -> int:
    """``size`` in the range of ``SIMULATOR_INTEGERS["size"]`` (the 32-bit registers), with the C module's errors."""
    return check_simulator_integer("size", size)


def is_malformed(length: int, size: int) -> bool:
    """A packet too short to carry an RCP header; it is passed without RCP processing."""
    return length < HEADER_LEN or size < HEADER_LEN


def port_admit(port: PortRegisters, size: int) -> bool:
    """Drop-tail admission: queue the packet's ``size`` bytes if they fit the buffer."""
    if (port.queue_bytes + size) & U64_MASK > port.buffer_bytes:
        port.dropped = (port.dropped + 1) & U64_MASK
        return False
    port.queue_bytes = (port.queue_bytes + size) & U64_MASK
    return True


def port_release(port: PortRegisters, size: int) -> None:
    """Take ``size`` bytes out of the queue, never below zero."""
    port.queue_bytes = port.queue_bytes - size if port.queue_bytes >= size else 0


def dp_arrive(port: PortRegisters, packet: bytes | bytearray, size: int) -> bool:
    """App. F lines 18-21 on arrival, then drop-tail admission; True if queued.

    The counters run before the buffer check: App. F counts dropped packets as input.
    """
    if is_malformed(len(packet), size):
        port.malformed = (port.malformed + 1) & U64_MASK
    else:
        rtt = (packet[8] << 8) | packet[9]
        port.input_bytes = (port.input_bytes + size) & U64_MASK
        if rtt < port.max_rtt:
            port.rtt_sum = (port.rtt_sum + rtt) & U64_MASK
            port.rtt_count = (port.rtt_count + 1) & U64_MASK
    return port_admit(port, size)


def dp_depart(port: PortRegisters, packet: bytearray, size: int) -> None:
    """App. F lines 22-23, in place: stamp the port rate over a larger or unspecified request."""
    port_release(port, size)
    if is_malformed(len(packet), size):
        return
    request = int.from_bytes(packet[0:4], "big")
    if request == 0 or request == RATE_ALL_ONES or request > port.rate:
        packet[0:4] = port.rate.to_bytes(4, "big")


def registers_dict(port: PortRegisters) -> dict[str, int]:
    """The port's registers by name, as the C module returns them."""
    return asdict(port)


def set_registers(port: PortRegisters, values: dict[str, int]) -> None:
    """Write registers by name with the C module's width checks."""
    for name, value in values.items():
        if name not in _U64_REGISTERS and name != "rate":
            raise ValueError(f"unknown register {name}")
        value = operator.index(value)  # as C: integers only (TypeError for 1.5)
        if name == "rate":
            check_simulator_integer("rate", value, "register")
        elif name not in _U64_REGISTERS:
            raise ValueError(f"unknown register {name}")
        elif not 0 <= value <= U64_MASK:
            raise OverflowError(f"register {name}={value} does not fit in 64 bits")
        setattr(port, name, value)


def receiver_echo(packet: bytes | bytearray) -> bytes:
    """Header of the receiver's pure ACK: reverse field = data rate, rate and RTT zero."""
    if len(packet) < HEADER_LEN:
        raise ValueError(f"packet of {len(packet)} bytes has no RCP header")
    return bytes(4) + bytes(packet[0:4]) + bytes(2) + bytes([packet[10], 0])


class PyDatapath:
    """Output ports of an RCP router, in Python. See the C ``Datapath`` for the contract."""

    def __init__(self, n_ports: int) -> None:
        n_ports = check_simulator_integer("n_ports", n_ports)
        self._ports = [PortRegisters() for _ in range(n_ports)]

    def _port(self, i: int) -> PortRegisters:
        if not 0 <= i < len(self._ports):
            raise IndexError(f"port {i} is outside 0..{len(self._ports) - 1}")
        return self._ports[i]

    def arrive(self, port: int, packet: bytearray, size: int) -> bool:
        """App. F lines 18-21 for a packet of ``size`` datagram bytes; True if queued."""
        return dp_arrive(self._port(port), packet, check_size(size))

    def depart(self, port: int, packet: bytearray, size: int) -> bytes:
        """App. F lines 22-23; returns the stamped copy of ``packet``."""
        port_registers = self._port(port)
        size = check_size(size)
        out = bytearray(packet)
        dp_depart(port_registers, out, size)
        return bytes(out)

    def registers(self, port: int) -> dict[str, int]:
        """The port's registers by name."""
        return registers_dict(self._port(port))

    def set_registers(self, port: int, **values: int) -> None:
        """Write the port's registers by name."""
        set_registers(self._port(port), values)
