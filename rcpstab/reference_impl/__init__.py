"""Reference RCP implementation: router data path in C, App. F control path in Python,
R-TCP end hosts, and a discrete-event packet simulator (thesis Ch. 6 and App. F).

Public API::

    run_scenario(scenario, alpha, beta, *, seed=0, backend="c", t_end=None, protocol="rcp") -> PacketRun
    get_scenario(name_or_scenario) -> Scenario;  SCENARIOS: {"fig5.3", "testbed", "flash-crowd"}
    RcpHeader (12-byte header), RcpController (App. F lines 1-17)
    protocols.PACKET_PROTOCOLS, protocols.register_protocol: packet protocols as plug-ins

The C module :mod:`rcpstab.reference_impl._datapath` holds ``Datapath`` (output ports on
packet buffers) and ``Simulator``; :mod:`.datapath_py` and :mod:`.simulator_py` are their
pure-Python twins.
"""
from .control import RcpController
from .header import RcpHeader
from .run import PacketRun, run_scenario
from .scenarios import SCENARIOS, PoissonArrivals, Scenario, get_scenario

__all__ = ["PacketRun", "PoissonArrivals", "RcpController", "RcpHeader", "SCENARIOS", "Scenario", "get_scenario", "run_scenario"]
