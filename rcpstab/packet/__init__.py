"""Reference implementation of the routers and hosts, and the packet lens (thesis Ch. 6 and App. F).

Layers, each importing only the ones before it:

- ``wire``: the congestion headers as bytes (RCP Fig. 6.2, XCP Sec. 3.2);
- ``routers``: one subpackage per protocol, the per-packet data path (C, with a Python twin) and
  the control path (Python), e.g. :class:`~.routers.rcp.control.RcpController`;
- ``hosts``: the sender kinds, and what end hosts offer (flow sizes and arrival processes);
- ``protocols``: the plug-ins binding a wire format, a router and a sender kind (a registry);
- ``simulator``: the discrete-event packet and flow simulators (C event loops ``csrc/sim.c`` and
  ``csrc/flows.c``, Python twins), scenarios and topologies;
- ``lens``: verdicts on packet traces, the fluid twin of a scenario, the packet-level stable region;
- ``cosim``: the packet run beside the fluid model on the same scenario, compared.

Public API::

    run_scenario(scenario, alpha, beta, *, seed=0, backend="c", t_end=None, protocol="rcp") -> PacketRun
    get_scenario(name_or_scenario) -> Scenario;  SCENARIOS: {"fig5.3", "testbed", "flash-crowd"}
    RcpHeader (12-byte header), RcpController (App. F lines 1-17)
    protocols.PACKET_PROTOCOLS, protocols.register_protocol: packet protocols as plug-ins

The C module :mod:`rcpstab.packet._datapath` holds ``Datapath`` (output ports on
packet buffers) and ``Simulator``; :mod:`.routers.rcp.datapath_py` and :mod:`.simulator.sim_py`
are their pure-Python twins.
"""

from .routers.rcp.control import RcpController
from .simulator.run import PacketRun, run_scenario
from .simulator.scenarios import SCENARIOS, PoissonArrivals, Scenario, get_scenario
from .wire.rcp_header import RcpHeader

__all__ = ["PacketRun", "PoissonArrivals", "RcpController", "RcpHeader", "SCENARIOS", "Scenario", "get_scenario", "run_scenario"]
