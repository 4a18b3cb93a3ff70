"""Where App. A's U-curve model and the fixed-rate FCFS queue part (issue 24, item 4).

Fig. A.3's set-up: C = 150 Mb/s, 1000-byte packets, bounded Pareto of mean 25 packets and shape
1.2 (the thesis gives no bound M: 1e3 and 1e4), rho = 0.8 (600 flows/s), 50 000 flows, seeds
1-5, at the integer K = C/R where App. A's system (c) exists (K = 1 is the exact control: A.7
is Pollaczek-Khinchine there, so its term there is the run's own noise). Each seed's gap
(simulation minus A.11/A.12 on the law) is split by :func:`rcpstab.fct.ucurve_gap.decompose_gap`;
means over seeds with 95% t intervals.

Usage: python experiments/fct_ucurve_gap.py [--out FILE.json] [--flows N] [--seeds 1,2,3,4,5]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from rcpstab.fct.ucurve import BoundedPareto
from rcpstab.fct.ucurve_gap import decompose_gap
from rcpstab.intervals import t_half_width

KS = (1, 2, 3, 4, 5, 7, 10, 20)
C, P = 150e6, 8000.0


def ci(values: list[float]) -> list[float]:
    v = np.asarray(values, float)
    return [float(v.mean()), float(t_half_width(v))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--flows", type=int, default=50_000)
    ap.add_argument("--seeds", default="1,2,3,4,5")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = []
    for M in (1e3, 1e4):
        d = BoundedPareto.with_mean(25.0, 1.2, M)
        for K in KS:
            runs = [decompose_gap(C / K, capacity_bps=C, dist=d, n_flows=args.flows, load=0.8, seed=s) for s in seeds]
            sim = [r["tau_sim_s"] for r in runs]
            row = {
                "M": M,
                "K": K,
                "rate_over_C": 1 / K,
                "tau_sim_ms": ci([1e3 * x for x in sim]),
                "tau_model_ms": 1e3 * runs[0]["tau_model_s"],
                "gap_pct": ci([100 * (r["tau_sim_s"] - r["tau_model_s"]) / r["tau_sim_s"] for r in runs]),
                "terms_pct_of_sim": {k: ci([100 * r["terms_s"][k] / r["tau_sim_s"] for r in runs]) for k in runs[0]["terms_s"]},
                "A1_with_measured_Qa_pct": ci([100 * (r["tau_a1_Qa_s"] / r["tau_sim_s"] - 1) for r in runs]),
                "A1_with_tagged_Ql_pct": ci([100 * (r["tau_a1_Ql_tagged_s"] / r["tau_sim_s"] - 1) for r in runs]),
                "excess_pkts": {k: ci([r[f"excess_{k}_bits"] / P for r in runs]) for k in ("measured", "tagged", "closed_form")},
                "Qa_time_vs_pasta_pct": ci([100 * (r["Qa_pasta_bits"] / r["Qa_bits"] - 1) for r in runs]),
                "rho": ci([r["rho"] for r in runs]),
                "busy_a": ci([r["busy_a"] for r in runs]),
                "p_busy_c": ci([r["p_busy_c"] for r in runs]),
                "p_all_busy_given_busy_c": ci([r["p_all_busy_c"] / r["p_busy_c"] for r in runs]),
                "a9_measured_N_vs_Qc_pct": ci([100 * (r["Qc_a9_measured_N_bits"] / r["Qc_bits"] - 1) for r in runs]),
                "D_a7_vs_measured_pct": ci([100 * (r["D_a7_s"] / r["D_s"] - 1) for r in runs]),
            }
            rows.append(row)
            t = row["terms_pct_of_sim"]
            print(
                f"M={M:g} K={K:2d} sim {row['tau_sim_ms'][0]:6.2f}+-{row['tau_sim_ms'][1]:.2f} ms model {row['tau_model_ms']:6.2f}"
                f" gap {row['gap_pct'][0]:5.1f}+-{row['gap_pct'][1]:.1f}% | "
                + " ".join(f"{k} {v[0]:5.1f}+-{v[1]:.1f}" for k, v in t.items())
                + f" | A1+Qa {row['A1_with_measured_Qa_pct'][0]:5.1f} A1+Ql(tagged) {row['A1_with_tagged_Ql_pct'][0]:5.2f}"
                f"+-{row['A1_with_tagged_Ql_pct'][1]:.2f} | excess m/t/cf "
                + "/".join(f"{v[0]:.1f}" for v in row["excess_pkts"].values())
                + f" | Pbusy_c {row['p_busy_c'][0]:.3f} Pall|busy {row['p_all_busy_given_busy_c'][0]:.3f}"
                f" A9 {row['a9_measured_N_vs_Qc_pct'][0]:+.2f}% A7 D {row['D_a7_vs_measured_pct'][0]:+.1f}"
                f"+-{row['D_a7_vs_measured_pct'][1]:.1f}%",
                flush=True,
            )
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
