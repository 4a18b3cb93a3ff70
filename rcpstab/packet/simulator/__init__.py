"""The discrete-event packet simulator: scenarios, topologies, the run driver and the Python twins of the C event loops.

:mod:`.scenarios` (the set-ups both the packet simulator and the fluid model run), :mod:`.topology`
(links and the flow table), :mod:`.run` (one scenario through the C simulator or :mod:`.sim_py`, its
twin), :mod:`.segments` (flow-count segments and one-RTT averages of packet traces), and the
flow-level simulator (:mod:`.flow_run`, twin :mod:`.flows_py`).
"""
