"""Stable region against T/d0: the jump of ``rcp`` at d0 = T and why the router has none (run by hand).

``python experiments/interval_ratio.py [--out interval_ratio.png]``

``rcp`` (eqs. 5.1-5.4, R updated every T) reads the input rate y(t) = N R(t - d0) at the update
instant. R is piecewise constant, so at d0 = m T it is read exactly where it jumps: the value
read is the one set m - 1 intervals earlier when d0 <= m T and m intervals earlier when d0 is a
hair longer. At d0 = T the controller then sees its own last update at once and the loop is far
more stable. The router (and ``rcp-router``) measures the bytes that arrived during the interval,
sent over the interval one d0 earlier: continuous in d0, no jump. The packet runs at T = d0 decide
which reading the router has; the integrator's step is T there, exact for this model, so a jump
in ``rcp`` belongs to its instantaneous reading, not to the integrator. Measured results: docs
notebook 05.

Prints, per d0 (T = 10 ms, App. E's C and N), the phase-plane stable counts of ``rcp`` and
``rcp-router`` on a 10 x 10 grid, the exact sampled linear loop's counts (d0 = m T, router and
instantaneous reading; :func:`rcpstab.models.rcp_router.sampled_spectral_radius`), the packet
verdicts at (2.0, 0.1), and writes the figure.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time

import numpy as np

from rcpstab.models import get_model
from rcpstab.models.rcp_router import sampled_spectral_radius
from rcpstab.packet.lens.region import run_verdict
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import get_scenario
from rcpstab.phaseplane import phaseplane_region
from rcpstab.phaseplane.verdicts import VERDICTS

T = 0.01
D0S = (0.2, 0.1, 0.05, 0.02, 0.0101, 0.01)
ALPHAS = np.round(np.arange(0.2, 2.01, 0.2), 10)
BETAS = np.round(np.arange(0.1, 1.01, 0.1), 10)


def sampled_counts(m: int) -> tuple[int, int]:
    """Stable grid points of the exact sampled linear loop at d0 = m T: (router, instantaneous reading)."""
    router = sum(sampled_spectral_radius(a, b, m) < 1 for a in ALPHAS for b in BETAS)
    instant = sum(sampled_spectral_radius(a, b, m, instantaneous=True) < 1 for a in ALPHAS for b in BETAS)
    return int(router), int(instant)


def packet_verdict(d0: float, alpha: float, beta: float) -> str:
    """Verdict of a packet run of 10 long flows at 100 Mb/s for 30 s, RTT d0 (T = min(avg RTT, 10 ms))."""
    sc = dataclasses.replace(
        get_scenario("fig5.3"), name=f"ratio-{d0}", capacity_bps=100e6, rtt_s=d0, long_flows=((0.0, math.inf),) * 10, t_end_s=30.0
    )
    return VERDICTS[run_verdict(run_scenario(sc, alpha, beta))[0]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="interval_ratio.png")
    args = parser.parse_args()
    rows = []
    for d0 in D0S:
        start = time.perf_counter()
        counts = {
            m: int(phaseplane_region(get_model(m), ALPHAS, BETAS, d0=[d0], T=T).stable.sum()) for m in ("rcp", "rcp-router")
        }
        m = d0 / T
        linear = sampled_counts(int(round(m))) if abs(m - round(m)) < 1e-9 else (None, None)
        row = {
            "d0": d0,
            "T_over_d0": T / d0,
            "phaseplane_rcp": counts["rcp"],
            "phaseplane_rcp_router": counts["rcp-router"],
            "sampled_linear_router": linear[0],
            "sampled_linear_instantaneous": linear[1],
            "packet_2.0_0.1": packet_verdict(d0, 2.0, 0.1),
            "wall_s": time.perf_counter() - start,
        }
        rows.append(row)
        print(row, flush=True)
    ms = np.arange(1, 21)
    linear = np.array([sampled_counts(int(m)) for m in ms])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.plot(1 / ms, linear[:, 0], "o-", ms=3, label="sampled linear loop, router (averaged y)")
    ax.plot(1 / ms, linear[:, 1], "s--", ms=3, label="sampled linear loop, y read at the instant (rcp)")
    ratio = np.array([r["T_over_d0"] for r in rows])
    ax.plot(ratio, [r["phaseplane_rcp_router"] for r in rows], "^", ms=8, label="phase plane, rcp-router")
    ax.plot(ratio, [r["phaseplane_rcp"] for r in rows], "v", ms=8, label="phase plane, rcp")
    ax.set_xscale("log")
    ax.set_xlabel("T / d0 (T = 10 ms)")
    ax.set_ylabel(f"stable points of {ALPHAS.size * BETAS.size}")
    ax.set_title("Stable (alpha, beta) on a 10 x 10 grid against T/d0")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(
        json.dumps(
            {
                "rows": rows,
                "sampled_linear": {"m": ms.tolist(), "router": linear[:, 0].tolist(), "instantaneous": linear[:, 1].tolist()},
                "figure": args.out,
            }
        )
    )


if __name__ == "__main__":
    main()
