"""Issue 29 item 3: certified points beyond the linear region, and why one round trip of history cannot give any.

Maps, on one (alpha, beta) grid of the switched model (eq. 5.14): the exact linear region
(eq. 5.15), the one-round-trip certificate (``certified``), the two-round-trip certificate
(``certified-window``) and the phase-plane verdict; writes the figure for
docs/certificates-beyond-linear.md and prints the counts, the obstruction's numbers (the unstable
root's frequency against pi/2 per round trip) and one JSON line.

Usage: python experiments/certificates_beyond_linear.py [--out docs/figures/certificates_beyond_linear.png]
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/figures/certificates_beyond_linear.png")
    parser.add_argument("--alpha", default="0.2:2.0:0.2")
    parser.add_argument("--beta", default="0.1:1.0:0.1")
    args = parser.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rcpstab.linear.certified import certified_region
    from rcpstab.linear.certified_window import certified_window_region
    from rcpstab.linear.exact import exact_region
    from rcpstab.linear.grid import parse_range
    from rcpstab.linear.roots import rightmost_roots
    from rcpstab.models import get_model
    from rcpstab.phaseplane.sweep import phaseplane_region

    sw, lin = get_model("switched"), get_model("linear")
    alphas, betas = parse_range(args.alpha, "alpha"), parse_range(args.beta, "beta")
    start = time.process_time()
    window2 = certified_window_region(sw, alphas, betas, window=2)
    cpu2 = time.process_time() - start
    window1 = certified_region(sw, alphas, betas)
    exact = exact_region(lin, alphas, betas)
    pp = phaseplane_region(sw, alphas, betas)
    fine_a, fine_b = np.linspace(0.02, 2.0, 200), np.linspace(0.01, 1.0, 200)
    fine = exact_region(lin, fine_a, fine_b)

    beyond = window2.stable & ~exact.stable
    refuted = window2.stable & ~pp.stable
    freqs = []
    for j, b in enumerate(betas):
        for i, a in enumerate(alphas):
            if not exact.stable[j, i]:
                r = rightmost_roots(lin, a, b, count=1)[0]
                freqs.append(abs(r.imag))
    out = {
        "grid": [int(alphas.size), int(betas.size)],
        "linear_stable": int(exact.stable.sum()),
        "certified_one_rtt": int(window1.stable.sum()),
        "certified_one_rtt_outside_linear": int((window1.stable & ~exact.stable).sum()),
        "certified_two_rtt": int(window2.stable.sum()),
        "certified_two_rtt_outside_linear": int(beyond.sum()),
        "certified_two_rtt_refuted_by_phase_plane": int(refuted.sum()),
        "phase_plane_stable": int(pp.stable.sum()),
        "beyond_points": [[float(alphas[i]), float(betas[j])] for j, i in zip(*np.nonzero(beyond))],
        "max_unstable_root_frequency_per_rtt": float(max(freqs)) if freqs else None,
        "cpu_s_per_point_two_rtt": cpu2 / alphas.size / betas.size,
    }
    for k, v in out.items():
        print(f"{k}: {v}")

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    ax.contour(fine_a, fine_b, fine.stable.astype(float), levels=[0.5], colors="k", linewidths=1.2)
    A, B = np.meshgrid(alphas, betas)
    ax.scatter(A[pp.stable], B[pp.stable], s=110, facecolors="none", edgecolors="0.6", label="phase plane: converges")
    ax.scatter(A[window1.stable], B[window1.stable], s=18, color="tab:blue", label="certified, 1 round trip")
    ax.scatter(A[beyond], B[beyond], s=40, marker="*", color="tab:red", label="certified, 2 round trips, outside linear")
    ax.scatter(A[window2.stable & exact.stable & ~window1.stable], B[window2.stable & exact.stable & ~window1.stable],
               s=18, color="tab:orange", label="certified, 2 round trips only")
    ax.plot([], [], "k-", label="exact linear boundary (eq. 5.15)")
    ax.set_xlabel(r"$\alpha$")
    ax.set_ylabel(r"$\beta$")
    ax.set_title("switched RCP (eq. 5.14): certificates against the linear region")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
