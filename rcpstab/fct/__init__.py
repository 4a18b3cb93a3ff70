"""Flow completion times against processor sharing (thesis Ch. 4): the third criterion
for choosing RCP's gains, beside stability and fast convergence.

Public API::

    fct_study(alpha, beta, *, capacity_bps, rtt_s, load, sizes, n_flows, ...) -> FctResult
    processor_sharing_fct(size_bits, capacity_bps, rtt_s, load)   # eq. 4.1
    lower_bound_fct(size_bits, capacity_bps, rtt_s)               # 1.5 RTPD + L/C
    fct_plot(result, ax=None)                                     # Fig. 4.1
    compare_methods(alpha, beta, ...)       # high-load regime: packet simulator vs fluid model (regime.py)
    fixed_rate_study(rates_bps, ...)        # the App. A U curve on one workload (fixed_rate.py)
    compare_protocols(protocols, gains, ...)  # RCP, RCP-AC, XCP on the same arrivals (protocols.py)
"""

from typing import Any

from .fixed_rate import fixed_rate_study
from .protocols import compare_protocols
from .ps import lower_bound_fct, processor_sharing_fct
from .regime import compare_methods
from .study import FctBin, FctResult, fct_study, size_bins

__all__ = [
    "FctBin",
    "FctResult",
    "compare_methods",
    "compare_protocols",
    "fct_plot",
    "fct_study",
    "fixed_rate_study",
    "lower_bound_fct",
    "processor_sharing_fct",
    "save_fct_figure",
    "size_bins",
]

_PLOTTING = ("fct_plot", "save_fct_figure")


def __getattr__(name: str) -> Any:
    """The plotting functions on first use: importing matplotlib's figure machinery costs more than a
    small study, and a run that draws nothing should not pay it."""
    if name in _PLOTTING:
        from . import plotting

        return getattr(plotting, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
