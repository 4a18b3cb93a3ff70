"""The packet lens: verdicts on packet traces (:mod:`.verdicts`), the fluid model on the same scenario (:mod:`.fluid_twin`) and the packet-level stable region beside it (:mod:`.region`)."""
