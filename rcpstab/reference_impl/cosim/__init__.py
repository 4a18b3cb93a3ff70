"""Co-simulation: the packet run and the fluid model on the same scenario, compared (:mod:`.packet_vs_fluid`, :mod:`.flash_crowd`, figures in :mod:`.plot`)."""
