"""Criticality of RCP's Hopf points, hysteresis of the sweeps, certified fraction (run by hand).

``python experiments/bifurcation_certified.py``: prints

- l1 along both branches of the exact boundary of ``rcp-unclamped`` and the beta where it changes
  sign; ``rcp-rate`` (no queue term) and ``linear`` for comparison;
- the continuation sweeps of the clamped ``rcp`` model (App. E set-up) at several beta: hysteresis
  found or not, onset of cycles vs the linear boundary;
- the certified region of eq. 5.14 on App. E's 20 x 20 grid and the fraction of the phase-plane
  regions (switched and rcp models) it covers;

then one JSON line with the numbers.

Measured (shared 2-core machine, ~1 min): l1 > 0 (subcritical) on the high-alpha branch for
beta < 0.1792 and on the low-alpha branch for beta < 0.3173, l1 < 0 above; rcp-rate l1 = -24.5
(supercritical). Clamped rcp sweeps at beta in {0.05, 0.1, 0.2, 0.3, 0.5, 0.8}, alpha 1.0..2.0:
no hysteresis; first settled cycle of the up sweep at alpha = 1.64, 1.62, 1.58, 1.52, 1.38, 1.18
(linear boundary 1.550, 1.527, 1.473, 1.406, 1.172, none). Certified: 49 of 400 points, 24.9% of
the switched phase-plane region (197 points), 23.4% of the rcp one (205; the one certified point
it misses, (0.2, 0.1), is ``undecided`` there, not unstable).
"""

from __future__ import annotations

import json
import time

import numpy as np

from rcpstab.bifurcation import bifurcation_sweep, hopf_point
from rcpstab.bifurcation.criticality import boundary_criticality, criticality_switch
from rcpstab.bifurcation.smooth import RCP_RATE, RCP_UNCLAMPED
from rcpstab.linear.certified import certified_region
from rcpstab.models import get_model
from rcpstab.phaseplane import phaseplane_region

BETAS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
GRID = np.round(np.arange(0.1, 2.01, 0.1), 2)


def main() -> None:
    out = {}
    start = time.perf_counter()
    points = boundary_criticality(RCP_UNCLAMPED, BETAS)
    for p in points:
        print(
            f"rcp-unclamped beta={p.values['beta']:.2f} alpha*={p.critical:.4f} w*d0={p.omega_rtt:.3f} "
            f"l1={p.l1:+.2f} {p.criticality}"
        )
    out["switch_high"] = criticality_switch(RCP_UNCLAMPED, (0.1, 0.2), "high")
    out["switch_low"] = criticality_switch(RCP_UNCLAMPED, (0.3, 0.4), "low")
    out["rcp_rate_l1"] = hopf_point(RCP_RATE, (1.4, 1.7)).l1
    print(
        f"l1 changes sign at beta = {out['switch_high']:.4f} (high-alpha branch), {out['switch_low']:.4f} (low); "
        f"rcp-rate l1 = {out['rcp_rate_l1']:.2f}  [{time.perf_counter() - start:.0f} s]"
    )

    start = time.perf_counter()
    sweep = bifurcation_sweep(
        get_model("rcp"), np.round(np.arange(1.0, 2.001, 0.02), 3), [0.05, 0.1, 0.2, 0.3, 0.5, 0.8], rtts=300
    )
    print(sweep.summary(), f"[{time.perf_counter() - start:.0f} s]")
    out["rcp_hysteresis"] = sweep.hysteresis
    out["rcp_onset"] = {}
    for beta in sorted(sweep.boundaries):
        first = next((r["alpha"] for r in sweep.branch(beta, "up") if r["state"] == "cycle"), None)
        out["rcp_onset"][beta] = first
        print(
            f"  beta={beta}: linear boundary {np.round(sweep.boundaries[beta], 4).tolist()}, first settled cycle "
            f"(up) at alpha={first}"
        )

    start = time.perf_counter()
    cert = certified_region(get_model("switched"), GRID, GRID)
    for name in ("switched", "rcp"):
        pp = phaseplane_region(get_model(name), GRID, GRID)
        covered = int((cert.stable & pp.stable).sum())
        out[f"certified_fraction_{name}"] = covered / int(pp.stable.sum())
        print(
            f"certified {int(cert.stable.sum())} points; phase plane ({name}) {int(pp.stable.sum())}; covered {covered} "
            f"({100 * covered / pp.stable.sum():.1f}%); certified but not phase-plane stable: "
            f"{int((cert.stable & ~pp.stable).sum())}"
        )
    print(f"[{time.perf_counter() - start:.0f} s]")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
