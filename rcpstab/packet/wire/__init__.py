"""Wire formats: the congestion headers as real bytes in network byte order (the layer every router and host shares).

:mod:`.rcp_header` is RCP's 12-byte header (thesis Fig. 6.2); :mod:`.xcp_header` is XCP's 20-byte
congestion header (xcp-katabi.txt Sec. 3.2), which RCP-AC also carries. Their C twins are
``csrc/rcp_header.h`` and ``csrc/xcp_header.h``.
"""
