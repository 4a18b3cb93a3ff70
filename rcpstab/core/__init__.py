"""Core layer: what every lens shares (model-independent judgement of traces, validation, sweeps).

Imports go down the layers only: ``core`` imports nothing from the lenses
(``regions``, ``phaseplane``, ``reference_impl``) or the applications (``check``, ``commands``).
"""
