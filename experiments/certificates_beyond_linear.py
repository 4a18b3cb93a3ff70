"""Issue 29 item 3: certified points beyond the linear region, and why one round trip of history cannot give any.

Maps, on one (alpha, beta) grid of the switched model (eq. 5.14): the exact linear region
(eq. 5.15), the one-round-trip certificate (``certified``), the two- and three-round-trip
certificates (``certified-window``) and the phase-plane verdict; writes the figure for
docs/certificates-beyond-linear.md and prints the counts, the obstruction's numbers (the unstable
root's frequency against pi/2 per round trip) and one JSON line.

Usage: python experiments/certificates_beyond_linear.py [--out docs/figures/certificates_beyond_linear.png]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def fifty_starts(model, points, rtts=1500):
    """Every point from 50 starts (R/C 1/100 to 10x the fair share, queue 0 to 1000 BDP): worst final band distance, worst RTTs to the band."""
    from rcpstab.phaseplane import simulate
    from rcpstab.verdicts.judgement import band_distance

    gammas = np.array([0.001, 0.01, 0.05, 0.3, 1.0])
    queues = np.array([0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0, 1000.0]) * 0.15e9 * 0.2
    G, Q = np.meshgrid(gammas, queues)
    a = np.repeat([p[0] for p in points], G.size)
    b = np.repeat([p[1] for p in points], G.size)
    tr = simulate(
        model,
        {"alpha": a, "beta": b},
        {"gamma0": np.tile(G.ravel(), len(points)), "q0": np.tile(Q.ravel(), len(points))},
        rtts * 0.2,
    )
    dist = band_distance(tr.gamma, tr.queue, tr.gamma_eq, tr.queue_eq, tr.capacity * tr.d0)
    outside = dist > 1
    last = np.where(outside.any(axis=0), tr.rtt[::-1][np.argmax(outside[::-1], axis=0)], 0.0)
    return float(np.nanmax(dist[-1])), float(last.max()), int(a.size)


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
    start = time.process_time()
    window3 = certified_window_region(sw, alphas, betas, window=3)
    cpu3 = time.process_time() - start
    window1 = certified_region(sw, alphas, betas)
    exact = exact_region(lin, alphas, betas)
    pp = phaseplane_region(sw, alphas, betas)
    fine_a, fine_b = np.linspace(0.02, 2.0, 200), np.linspace(0.01, 1.0, 200)
    fine = exact_region(lin, fine_a, fine_b)

    beyond = window2.stable & ~exact.stable
    beyond3 = window3.stable & ~exact.stable & ~window2.stable
    refuted = (window2.stable | window3.stable) & ~pp.stable
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
        "certified_three_rtt": int(window3.stable.sum()),
        "certified_three_rtt_outside_linear": int((window3.stable & ~exact.stable).sum()),
        "certified_two_rtt_not_three": int((window2.stable & ~window3.stable).sum()),
        "certified_refuted_by_phase_plane": int(refuted.sum()),
        "phase_plane_stable": int(pp.stable.sum()),
        "beyond_points_two_rtt": [[float(alphas[i]), float(betas[j])] for j, i in zip(*np.nonzero(beyond))],
        "beyond_points_three_rtt": [
            [float(alphas[i]), float(betas[j])] for j, i in zip(*np.nonzero(window3.stable & ~exact.stable))
        ],
        "max_unstable_root_frequency_per_rtt": float(max(freqs)) if freqs else None,
        "cpu_s_per_point_two_rtt": cpu2 / alphas.size / betas.size,
        "cpu_s_per_point_three_rtt": cpu3 / alphas.size / betas.size,
    }
    certified_points = [
        (float(alphas[i]), float(betas[j])) for j, i in zip(*np.nonzero((window2.stable | window3.stable) & ~exact.stable))
    ]
    worst, slowest, runs = fifty_starts(sw, certified_points)
    out["fifty_starts"] = {
        "points": len(certified_points),
        "runs": runs,
        "worst_final_band_distance": worst,
        "latest_rtt_outside_band": slowest,
    }
    for k, v in out.items():
        print(f"{k}: {v}")

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    ax.contour(fine_a, fine_b, fine.stable.astype(float), levels=[0.5], colors="k", linewidths=1.2)
    A, B = np.meshgrid(alphas, betas)
    ax.scatter(A[pp.stable], B[pp.stable], s=110, facecolors="none", edgecolors="0.6", label="phase plane: converges")
    ax.scatter(A[window1.stable], B[window1.stable], s=18, color="tab:blue", label="certified, 1 round trip")
    ax.scatter(A[beyond], B[beyond], s=40, marker="*", color="tab:red", label="certified, 2 round trips, outside linear")
    ax.scatter(
        A[beyond3], B[beyond3], s=30, marker="D", color="tab:purple", label="certified, 3 round trips (not 2), outside linear"
    )
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
