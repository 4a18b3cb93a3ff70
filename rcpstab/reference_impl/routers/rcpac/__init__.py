"""The RCP-AC router: App. F's rate controller plus the acceleration controller (:mod:`.control`), and its per-packet deficit sum (:mod:`.datapath_py`)."""
