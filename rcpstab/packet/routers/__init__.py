"""Routers, one subpackage per protocol: the per-packet data path (Python twin of the C one) and the control path.

:mod:`.rcp` (thesis App. F), :mod:`.xcp` (xcp-katabi.txt App. A), :mod:`.rcpac` (rcp-ac.txt).
:mod:`.port_ops` is the table of data paths a port can run, twin of the C function table
``csrc/port_ops.h``.
"""
