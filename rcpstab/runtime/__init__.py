"""Runtime: what every lens shares to run (the compile cache, derivation cache, checkpoints,
executors, the domain table of user-facing parameters).

The bottom layer beside :mod:`rcpstab.verdicts`: it imports no model, lens or application.
"""
