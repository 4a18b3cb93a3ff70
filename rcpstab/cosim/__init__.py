"""Co-simulation: the packet run and the fluid model on the same scenario, compared.

:mod:`.packet_vs_fluid` overlays the two on a scenario, :mod:`.flash_crowd` compares their response
to a flash crowd, :mod:`.plot` draws both.
"""
