"""The accuracy check of benchmarks/bench_jitcdde.py, so the comparison cannot silently rot.

At one point (App. E's stable class, 20 RTTs) rcpstab at its default step and jitcdde at
tolerance 1e-6 are each within the benchmark's stated error of its independent NumPy reference,
and that reference converges at 4th order (halving its step shrinks its change ~16x).
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

SPEC = importlib.util.spec_from_file_location("bench_jitcdde", Path(__file__).parents[1] / "benchmarks" / "bench_jitcdde.py")
bench = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(bench)


def test_reference_is_fourth_order():
    y0, q0 = bench.starts()
    runs = [bench.reference_linear(0.4, 0.2, y0, q0, 5.0, k) for k in (25, 50, 100)]
    coarse, fine = np.abs(runs[0] - runs[1]).max(), np.abs(runs[1] - runs[2]).max()
    assert 10 < coarse / fine < 25  # 2^4 = 16 for a 4th-order scheme; a 2nd-order slip gives ~4


@pytest.mark.slow
def test_both_codes_within_stated_error_of_reference():
    # here, not at the top: the benchmark imports jitcdde only to run it, and importing it (~2 s) at
    # collection cost every pytest-xdist worker, for the reference check above that does not use it
    pytest.importorskip("jitcdde")
    stated = bench.STATED
    checked = bench.accuracy(20.0, {"stable": bench.CLASSES["stable"]}, (stated["rcpstab_step"],), (stated["jitcdde_tol"],))[
        "stable"
    ]
    assert checked["reference_error"] < 1e-10
    assert 0 < checked["ours"][stated["rcpstab_step"]] < stated["rcpstab_bound"]
    assert 0 < checked["jitcdde"][stated["jitcdde_tol"]] < stated["jitcdde_bound"]
