"""DCQCN's stability figure (Zhu et al., CoNEXT 2016, Fig. 5): the paper's loop beside the exact one.

For every published point (the authors' figure data, ``pm_rai40_delay{0,50,100}.txt``,
``pm_rai10_delay*.txt``, ``pm_rai10_delay*_kmax1000.txt``, read from ``--data`` or
$RCPSTAB_ZHU2016_DATA) it prints the paper's phase margin, the margin of ``dcqcn-paper`` (the
paper's linearization, :mod:`rcpstab.models.dcqcn_paper`) with the verdict of that loop's roots,
and the exact linearization's (``dcqcn``, the ramp continued past K_max as the paper does) margin
and root verdict; then where "phase margin > 0 => stable" fails, and what each approximation
accounts for (the paper's loop with one approximation taken out, against the paper's data).

    python experiments/zhu2016_dcqcn.py --data /tmp/zhu2016 [--stride 2] [--ablation-stride 2]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib

import numpy as np

from rcpstab.linear.fluid_loop import model_margins
from rcpstab.models.dcqcn_paper import APPROXIMATIONS, variant

FIGURES = {
    "a": ("pm_rai40_delay{}", {}),
    "b": ("pm_rai10_delay{}", {"R_AI": 10e6}),
    "c": ("pm_rai10_delay{}_kmax1000", {"R_AI": 10e6, "K_max": 1000e3}),
}
DELAYS_US = (0, 50, 100)


def _row(N, paper_pm, tau_star, values):
    ours = model_margins("dcqcn-paper", N=N, tau_star=tau_star, **values)
    exact = model_margins("dcqcn", N=N, tau_star=tau_star, extend_ramp=1, **values)
    return {
        "N": int(N),
        "paper_pm": float(paper_pm),
        "paper_loop_pm": ours.phase_margin_deg,
        "paper_loop_stable": ours.stable,
        "paper_loop_rhp_poles": ours.open_loop_rhp_poles,
        "paper_loop_rightmost_re": ours.rightmost_root[0],
        "exact_pm": exact.phase_margin_deg,
        "exact_stable": exact.stable,
        "exact_rhp_poles": exact.open_loop_rhp_poles,
        "exact_rightmost_re": exact.rightmost_root[0],
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get("RCPSTAB_ZHU2016_DATA"), help="folder of the authors' pm_*.txt")
    ap.add_argument("--stride", type=int, default=1, help="every k-th N of each figure (1: all)")
    ap.add_argument("--ablation-stride", type=int, default=2, help="every k-th N for the ablation (0: skip it)")
    args = ap.parse_args(argv)
    if not args.data or not pathlib.Path(args.data).is_dir():
        ap.error("the authors' figure data is needed: --data FOLDER or $RCPSTAB_ZHU2016_DATA")
    data = pathlib.Path(args.data)
    rows = []
    for fig, (pattern, values) in FIGURES.items():
        for d in DELAYS_US:
            table = np.loadtxt(data / (pattern.format(d) + ".txt"))[:: args.stride]
            for N, pm in table:
                rows.append({"figure": fig, "delay_us": d, **_row(N, pm, d * 1e-6, values)})
    print("| fig | tau* us | N | paper | dcqcn-paper | its roots | P | exact | exact roots | P |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['figure']} | {r['delay_us']} | {r['N']} | {r['paper_pm']:.2f} | {r['paper_loop_pm']:.2f} | "
            f"{'stable' if r['paper_loop_stable'] else 'UNSTABLE'} | {r['paper_loop_rhp_poles']} | "
            f"{r['exact_pm']:.2f} | {'stable' if r['exact_stable'] else 'UNSTABLE'} | {r['exact_rhp_poles']} |"
        )
    dev = np.array([abs(r["paper_loop_pm"] - r["paper_pm"]) for r in rows])
    print(f"\nmax |dcqcn-paper - paper| = {dev.max():.3f} deg over {len(rows)} points")
    print("\nWhere the readings differ (paper: PM > 0 read as stable):")
    for r in rows:
        says = r["paper_pm"] > 0
        loop_fail = (r["paper_loop_pm"] > 0) != r["paper_loop_stable"]
        if says != r["exact_stable"] or loop_fail:
            print(
                f"  fig {r['figure']}, {r['delay_us']} us, N = {r['N']}: paper PM {r['paper_pm']:+.2f} "
                f"({'stable' if says else 'unstable'}); the paper's own loop is "
                f"{'stable' if r['paper_loop_stable'] else 'UNSTABLE'} by its roots "
                f"(P = {r['paper_loop_rhp_poles']}{', PM > 0 => stable fails' if loop_fail else ''}); exact: PM "
                f"{r['exact_pm']:+.2f}, {'stable' if r['exact_stable'] else 'UNSTABLE'}"
            )
    ablation = {}
    if args.ablation_stride:
        print("\nEach approximation taken out of the paper's loop: max |PM - paper| (deg) over N, figure a")
        print("| without | 0 us | 50 us | 100 us |\n|---|---|---|---|")
        for name in ("none",) + APPROXIMATIONS:
            model = variant(frozenset(a for a in APPROXIMATIONS if a != name))
            worst = []
            for d in DELAYS_US:
                table = np.loadtxt(data / (FIGURES["a"][0].format(d) + ".txt"))[:: args.ablation_stride]
                devs = [abs(model_margins(model, N=N, tau_star=d * 1e-6).phase_margin_deg - pm) for N, pm in table]
                k = int(np.argmax(devs))
                worst.append((round(float(devs[k]), 2), int(table[k, 0])))
            ablation[name] = worst
            print(f"| {name} | " + " | ".join(f"{w:.2f} (N={n})" for w, n in worst) + " |")
    print(json.dumps({"max_dev_deg": float(dev.max()), "points": len(rows), "ablation": ablation}))


if __name__ == "__main__":
    main()
