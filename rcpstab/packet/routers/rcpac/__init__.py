"""The RCP-AC router: App. F's rate controller plus the acceleration controller (rcp-ac.txt).

:mod:`.control` is the control path, :mod:`.datapath_py` the per-packet deficit sum (twin of
``csrc/rcpac_port.h``).
"""
