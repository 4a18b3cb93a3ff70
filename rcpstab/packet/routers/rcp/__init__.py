"""The RCP router: App. F lines 18-23 per packet and lines 1-17 once per interval.

:mod:`.datapath_py` is the per-packet data path (twin of ``csrc/rcp_port.h``), :mod:`.control` the
control path.
"""
