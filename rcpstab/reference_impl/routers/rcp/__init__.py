"""The RCP router: App. F lines 18-23 per packet (:mod:`.datapath_py`) and lines 1-17 per interval (:mod:`.control`)."""
