"""The packet lens: verdicts on packet traces and the packet-level stable region.

:mod:`.verdicts` judges packet traces, :mod:`.fluid_twin` runs the fluid model on the same scenario,
:mod:`.region` maps the packet verdicts beside the fluid ones.
"""
