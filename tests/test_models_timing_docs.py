"""docs/models.md quotes what the code computes: the update timing of ``rcp`` and ``rcp-router``."""

import re
from pathlib import Path

import pytest
from scipy.optimize import brentq

from rcpstab.models.rcp_router import sampled_spectral_radius

DOC = (Path(__file__).parents[1] / "docs" / "models.md").read_text()


def boundary(m: int, instantaneous: bool, beta: float = 0.3) -> float:
    return brentq(lambda a: sampled_spectral_radius(a, beta, m, instantaneous) - 1.0, 1.0, 1.8, xtol=1e-8)


@pytest.mark.parametrize(
    "m, instantaneous, quoted", [(20, True, "1.4607"), (20, False, "1.3526"), (100, True, "1.4169"), (100, False, "1.3953")]
)
def test_quoted_sampled_boundaries(m, instantaneous, quoted):
    assert quoted in DOC
    assert f"{boundary(m, instantaneous):.4f}" == quoted


def test_sampled_boundary_by_iterating_the_recursion():
    """Second method: iterate the sampled linear recursion (the rcp model's reading: y at the update instant,
    N u_{k+1-m}; App. F's: N u_{k-m}) and bisect on growth; it must find the roots' boundary."""
    import numpy as np

    def grows(alpha, instant, m=20, beta=0.3, periods=3000):
        tau, off = 1.0 / m, m + 1
        u = np.zeros(periods + off + 1)
        u[off] = 1e-6
        q = 0.0
        for k in range(periods):
            q += tau * u[off + k - m]
            y = u[off + k + 1 - m] if instant else u[off + k - m]
            u[off + k + 1] = u[off + k] - tau * (alpha * y + beta * q)
        return np.abs(u[-4 * m :]).max() > np.abs(u[off + periods // 2 - 4 * m : off + periods // 2]).max()

    for instant in (True, False):
        lo, hi = 1.0, 1.8
        for _ in range(20):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if grows(mid, instant) else (mid, hi)
        assert lo == pytest.approx(boundary(20, instant), abs=2e-4)


@pytest.mark.slow
def test_quoted_load_doubling_times(tmp_path):
    """(0.5, 0.5) after the load doubles at App. E's T = d0/20: 12.5 RTTs for ``rcp``, 17.5 with App. F's reading
    (the docs' own protocol file, run as written), 16.85 for ``rcp-router`` (about 10 s)."""
    from rcpstab.phaseplane.sweep import phaseplane_region

    code = re.search(r"```python\n(.*?)```", DOC, re.S).group(1)
    path = tmp_path / "rcp_appf.py"
    path.write_text(code)
    for model, quoted in (("rcp", "12.5 RTTs"), (str(path), "17.5 RTTs"), ("rcp-router", "16.85 RTTs")):
        assert quoted in DOC
        region = phaseplane_region(model, [0.5], [0.5], d0=[0.2], T=0.01, start="load-doubling")
        assert f"{float(region.table['convergence_rtt'][0]):g} RTTs" == quoted
