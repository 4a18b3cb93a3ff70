"""The XCP router: its per-packet blocks and its control-interval timeout block (xcp-katabi.txt App. A).

:mod:`.datapath_py` and :mod:`.frame_py` are the per-packet blocks (twins of ``csrc/xcp_port.h``),
:mod:`.control` the timeout block.
"""
