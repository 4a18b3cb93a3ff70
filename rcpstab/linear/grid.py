"""Parsing and checking of the (alpha, beta) grid axes given on the command line."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..runtime.validation import DOMAINS, check_value

MAX_POINTS_PER_AXIS = 100_000


def parse_range(text: str, name: str) -> np.ndarray:
    """Parse ``START:STOP:STEP`` (STOP inclusive) into an array of positive values.

    A single number gives a one-point axis. Raises :class:`InputError` naming ``name``
    for anything that is not a finite, positive, increasing range with a positive step.
    """
    parts = text.split(":")
    if len(parts) not in (1, 3):
        raise InputError(f"--{name} {text!r}: expected START:STOP:STEP or a single number")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise InputError(f"--{name} {text!r}: not a number") from None
    if not all(math.isfinite(v) for v in values):
        raise InputError(f"--{name} {text!r}: values must be finite")
    if len(values) == 1:
        return check_gains(np.array(values), name)
    start, stop, step = values
    if step <= 0:
        raise InputError(f"--{name} {text!r}: step must be positive")
    if stop < start:
        raise InputError(f"--{name} {text!r}: STOP is below START (reversed range)")
    count = math.floor((stop - start) / step + 1e-9) + 1
    if count > MAX_POINTS_PER_AXIS:
        raise InputError(f"--{name} {text!r}: {count} points is more than {MAX_POINTS_PER_AXIS}")
    # Rounding keeps 0.2 + 2*0.2 at 0.6 rather than 0.6000000000000001 in CSV rows and lookups.
    return check_gains(np.round(start + step * np.arange(count), 12), name)


def check_gains(values: ArrayLike, name: str) -> np.ndarray:
    """Check gains against their shared domain (:data:`rcpstab.runtime.validation.DOMAINS`)."""
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    if name not in DOMAINS:  # e.g. frequencies: only finite and positive
        bad = arr[~np.isfinite(arr) | (arr <= 0)]
        if bad.size:
            raise InputError(f"{name} = {float(bad[0])!r}: must be a finite number > 0")
        return arr
    domain = DOMAINS[name]
    bad = arr[~np.isfinite(arr) | (arr <= domain.low) | (arr > domain.high)]
    if bad.size:
        check_value(name, bad[0])  # raises, naming the value
    return arr
