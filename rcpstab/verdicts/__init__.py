"""Verdicts: the one judgement of traces (fluid or packet): converged, limit cycle, diverged or
undecided, with the convergence band, the measured convergence time and recovery after a disturbance.

The bottom layer beside :mod:`rcpstab.runtime`: it imports no model, lens or application.
"""
