"""Flow completion times against processor sharing (thesis Ch. 4): the third criterion
for choosing RCP's gains, beside stability and fast convergence.

Public API::

    fct_study(alpha, beta, *, capacity_bps, rtt_s, load, sizes, n_flows, ...) -> FctResult
    processor_sharing_fct(size_bits, capacity_bps, rtt_s, load)   # eq. 4.1
    lower_bound_fct(size_bits, capacity_bps, rtt_s)               # 1.5 RTPD + L/C
    fct_plot(result, ax=None)                                     # Fig. 4.1
"""
from .plotting import fct_plot, save_fct_figure
from .ps import lower_bound_fct, processor_sharing_fct
from .study import FctBin, FctResult, fct_study, size_bins

__all__ = ["FctBin", "FctResult", "fct_plot", "fct_study", "lower_bound_fct", "processor_sharing_fct",
           "save_fct_figure", "size_bins"]
