"""The XCP router: its per-packet blocks (:mod:`.datapath_py`, :mod:`.frame_py`) and its control-interval timeout block (:mod:`.control`)."""
