"""rcpstab: stability analysis of explicit congestion control (RCP, XCP, RCP-AC).

Several independent lenses map the stable region of the router gains (alpha, beta):
the exact region of the delayed linear loop, the Bode and Nyquist criteria, margins,
phase-plane integration of the nonlinear model, and a packet-level reference
implementation. See :mod:`rcpstab.models` for the models they share.
"""
from .errors import InputError
from .models import MODELS, get_model

__version__ = "0.1.0"
__all__ = ["InputError", "MODELS", "get_model", "__version__"]
